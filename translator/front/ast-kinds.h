/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The node kinds of the script syntax tree, with the fields each one uses.
 * This list generates the enum, the name table, the case labels of every
 * declaration, statement and expression kind (ast.h), and the child walker
 * (ast.c), so a new kind cannot be forgotten in one of them.
 *
 * AST_KINDS(NODE) calls NODE(kind, printed name, class, children) for each:
 *   class     DECL, STMT or EXPR
 *   children  the fields ast_for_children visits, in source order
 */
#ifndef TAPLINE_AST_KINDS_H
#define TAPLINE_AST_KINDS_H

#define AST_KINDS(NODE) \
	/* Top level: every declaration is one of these. */ \
	NODE(N_PROBE, "probe", DECL, LIST_BODY)             /* list: N_PROBE_POINTs; body */ \
	NODE(N_ALIAS, "probe alias", DECL, THEN_LIST_BODY_ELS) /* then: the alias's own N_PROBE_POINT; list: \
	                                                          the points it stands for; body: prologue \
	                                                          ('='), els: epilogue ('+=' or the second \
	                                                          block of '= ... { } , { }') */ \
	NODE(N_PROBE_POINT, "probe point", DECL, LIST_COND) /* list: N_PP_COMPs; optional ('?'); sufficient \
	                                                       ('!'); cond: 'if (expr)' or NULL */ \
	NODE(N_PP_COMP, "probe point component", DECL, LHS_RHS) /* name (may hold '*'); lhs: N_NUM/N_STR \
	                                                           argument or NULL */ \
	NODE(N_GLOBAL, "global", DECL, LHS_RHS)             /* name; lhs: literal initializer or NULL; \
	                                                       is_array, num (declared size, 0: default), \
	                                                       wrap ('%'), is_private */ \
	NODE(N_FUNCTION, "function", DECL, LIST_BODY)       /* name; list: N_PARAMs; body (N_BLOCK, or \
	                                                       N_EMBEDDED); decl_type; is_private */ \
	NODE(N_PARAM, "parameter", DECL, LHS_RHS)           /* name; decl_type */ \
	NODE(N_EMBEDDED, "embedded C", DECL, LHS_RHS)       /* str: the C between %{ and %} (a declaration, \
	                                                       a function body or an expression) */ \
	/* Statements. */ \
	NODE(N_BLOCK, "block", STMT, LIST_BODY)             /* list: statements */ \
	NODE(N_EXPR_STMT, "expression statement", STMT, LHS_RHS) /* lhs */ \
	NODE(N_IF, "if", STMT, COND_THEN_ELS)               /* cond, then, els (or NULL) */ \
	NODE(N_WHILE, "while", STMT, INIT_COND_STEP_BODY)   /* cond, body */ \
	NODE(N_FOR, "for", STMT, INIT_COND_STEP_BODY)       /* init, cond, step (each may be NULL), body */ \
	NODE(N_FOREACH, "foreach", STMT, THEN_LIST_LHS_STEP_BODY) /* then: value variable (N_VAR) or NULL; \
	                                                             list: key variables (N_VAR, each with \
	                                                             sort); lhs: what is iterated (N_VAR \
	                                                             array, N_INDEX slice, N_HIST); sort, \
	                                                             agg: sorting by value; step: limit or \
	                                                             NULL; body */ \
	NODE(N_DELETE, "delete", STMT, LHS_RHS)             /* lhs: N_VAR (array or scalar) or N_INDEX (keys \
	                                                       may be N_STAR) */ \
	NODE(N_TRY, "try", STMT, BODY_THEN_ELS)             /* body: try block; els: catch block; then: \
	                                                       catch variable or NULL */ \
	NODE(N_BREAK, "break", STMT, LHS_RHS) \
	NODE(N_CONTINUE, "continue", STMT, LHS_RHS) \
	NODE(N_NEXT, "next", STMT, LHS_RHS) \
	NODE(N_RETURN, "return", STMT, LHS_RHS)             /* lhs: value or NULL */ \
	NODE(N_EMPTY, "empty statement", STMT, LHS_RHS) \
	/* Expressions. */ \
	NODE(N_NUM, "number", EXPR, LHS_RHS)                /* num */ \
	NODE(N_STR, "string", EXPR, LHS_RHS)                /* str, str_len */ \
	NODE(N_VAR, "variable", EXPR, LHS_RHS)              /* name; sym (pass 2) */ \
	NODE(N_INDEX, "array element", EXPR, LHS_RHS_LIST)  /* name: the array; list: keys; or lhs: N_HIST \
	                                                       and list: the bucket number */ \
	NODE(N_IN, "membership test", EXPR, LIST)           /* name: the array; list: keys (may be N_STAR) */ \
	NODE(N_STAR, "wildcard key", EXPR, LHS_RHS)         /* '*' among the keys of a slice */ \
	NODE(N_STAT, "statistic", EXPR, LHS_RHS_LIST)       /* agg: @count ... @variance; lhs: N_VAR or \
	                                                       N_INDEX; rhs: the bit shift of @variance, or \
	                                                       NULL */ \
	NODE(N_HIST, "histogram", EXPR, LHS_RHS_LIST)       /* agg: AGG_HIST_LINEAR or AGG_HIST_LOG; lhs: \
	                                                       N_VAR or N_INDEX; list: start, stop, interval \
	                                                       (linear) */ \
	NODE(N_TARGET, "target variable", EXPR, LIST)       /* name without '$' ("$vars" for $$vars); list: \
	                                                       N_MEMBERs; pretty: 0, 1 ($) or 2 ($$); \
	                                                       addr_of ('&') */ \
	NODE(N_MEMBER, "member access", EXPR, LHS_RHS)      /* name: '->' field, or lhs: '[' index ']' */ \
	NODE(N_CAST, "@cast", EXPR, LHS_RHS_LIST)           /* lhs: address; str: type name; rhs: N_STR \
	                                                       module or NULL; list: N_MEMBERs; pretty; \
	                                                       addr_of */ \
	NODE(N_ATVAR, "@var", EXPR, LHS_RHS_LIST)           /* str: "name@file"; rhs: N_STR module or NULL; \
	                                                       list: N_MEMBERs; pretty; addr_of */ \
	NODE(N_AUTOCAST, "autocast", EXPR, LHS_RHS_LIST)    /* lhs: any value; list: N_MEMBERs (at least \
	                                                       one); pretty */ \
	NODE(N_ENTRY, "@entry", EXPR, LHS_RHS)              /* lhs */ \
	NODE(N_DEFINED, "@defined", EXPR, LHS_RHS)          /* lhs */ \
	NODE(N_PROBEWRITE, "@probewrite", EXPR, LHS_RHS)    /* lhs: N_VAR */ \
	NODE(N_CONST, "@const", EXPR, LHS_RHS)              /* str: the C constant */ \
	NODE(N_CALL, "call", EXPR, LIST_BODY)               /* name; list: arguments; sym or builtin (pass \
	                                                       2) */ \
	NODE(N_ASSIGN, "assignment", EXPR, LHS_RHS)         /* op (OP_ASSIGN, a compound one, or OP_AGG: \
	                                                       '<<<'); lhs, rhs */ \
	NODE(N_BINARY, "binary operator", EXPR, LHS_RHS)    /* op; lhs, rhs */ \
	NODE(N_UNARY, "unary operator", EXPR, LHS_RHS)      /* op; lhs */ \
	NODE(N_INCDEC, "increment", EXPR, LHS_RHS)          /* op (OP_INC/OP_DEC); postfix; lhs */ \
	NODE(N_TERNARY, "conditional", EXPR, COND_THEN_ELS) /* cond, then, els */

#endif
