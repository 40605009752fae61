/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The node kinds of the script syntax tree, with the fields each one uses.
 * This list generates the enum, the name table and the child walker
 * (ast.c), so a new kind cannot be forgotten in one of them.
 *
 * NODE(kind, printed name)
 */
/* Top level: every declaration is one of these. */
NODE(N_PROBE, "probe")                 /* list: N_PROBE_POINTs; body */
NODE(N_ALIAS, "probe alias")           /* then: the alias's own N_PROBE_POINT; list: the points it
                                          stands for; body: prologue ('='), els: epilogue ('+=' or
                                          the second block of '= ... { } , { }') */
NODE(N_PROBE_POINT, "probe point")     /* list: N_PP_COMPs; optional ('?'); sufficient ('!');
                                          cond: 'if (expr)' or NULL */
NODE(N_PP_COMP, "probe point component") /* name (may hold '*'); lhs: N_NUM/N_STR argument or NULL */
NODE(N_GLOBAL, "global")               /* name; lhs: literal initializer or NULL; is_array, num
                                          (declared size, 0: default), wrap ('%'), is_private */
NODE(N_FUNCTION, "function")           /* name; list: N_PARAMs; body (N_BLOCK, or N_EMBEDDED);
                                          decl_type; is_private */
NODE(N_PARAM, "parameter")             /* name; decl_type */
NODE(N_EMBEDDED, "embedded C")         /* str: the C between %{ and %} (a declaration, a function
                                          body or an expression) */
/* Statements. */
NODE(N_BLOCK, "block")                 /* list: statements */
NODE(N_EXPR_STMT, "expression statement") /* lhs */
NODE(N_IF, "if")                       /* cond, then, els (or NULL) */
NODE(N_WHILE, "while")                 /* cond, body */
NODE(N_FOR, "for")                     /* init, cond, step (each may be NULL), body */
NODE(N_FOREACH, "foreach")             /* then: value variable (N_VAR) or NULL; list: key
                                          variables (N_VAR, each with sort); lhs: what is iterated
                                          (N_VAR array, N_INDEX slice, N_HIST); sort, agg: sorting
                                          by value; step: limit or NULL; body */
NODE(N_DELETE, "delete")               /* lhs: N_VAR (array or scalar) or N_INDEX (keys may be N_STAR) */
NODE(N_TRY, "try")                     /* body: try block; els: catch block; then: catch variable or NULL */
NODE(N_BREAK, "break")
NODE(N_CONTINUE, "continue")
NODE(N_NEXT, "next")
NODE(N_RETURN, "return")               /* lhs: value or NULL */
NODE(N_EMPTY, "empty statement")
/* Expressions. */
NODE(N_NUM, "number")                  /* num */
NODE(N_STR, "string")                  /* str, str_len */
NODE(N_VAR, "variable")                /* name; sym (pass 2) */
NODE(N_INDEX, "array element")         /* name: the array; list: keys; or lhs: N_HIST and list: the
                                          bucket number */
NODE(N_IN, "membership test")          /* name: the array; list: keys (may be N_STAR) */
NODE(N_STAR, "wildcard key")           /* '*' among the keys of a slice */
NODE(N_STAT, "statistic")              /* agg: @count ... @variance; lhs: N_VAR or N_INDEX; rhs: the
                                          bit shift of @variance, or NULL */
NODE(N_HIST, "histogram")              /* agg: AGG_HIST_LINEAR or AGG_HIST_LOG; lhs: N_VAR or N_INDEX;
                                          list: start, stop, interval (linear) */
NODE(N_TARGET, "target variable")      /* name without '$' ("$vars" for $$vars); list: N_MEMBERs;
                                          pretty: 0, 1 ($) or 2 ($$); addr_of ('&') */
NODE(N_MEMBER, "member access")        /* name: '->' field, or lhs: '[' index ']' */
NODE(N_CAST, "@cast")                  /* lhs: address; str: type name; rhs: N_STR module or NULL;
                                          list: N_MEMBERs; pretty; addr_of */
NODE(N_ATVAR, "@var")                  /* str: "name@file"; rhs: N_STR module or NULL; list:
                                          N_MEMBERs; pretty; addr_of */
NODE(N_AUTOCAST, "autocast")           /* lhs: any value; list: N_MEMBERs (at least one); pretty */
NODE(N_ENTRY, "@entry")                /* lhs */
NODE(N_DEFINED, "@defined")            /* lhs */
NODE(N_PROBEWRITE, "@probewrite")      /* lhs: N_VAR */
NODE(N_CONST, "@const")                /* str: the C constant */
NODE(N_CALL, "call")                   /* name; list: arguments; sym or builtin (pass 2) */
NODE(N_ASSIGN, "assignment")           /* op (OP_ASSIGN, a compound one, or OP_AGG: '<<<'); lhs, rhs */
NODE(N_BINARY, "binary operator")      /* op; lhs, rhs */
NODE(N_UNARY, "unary operator")        /* op; lhs */
NODE(N_INCDEC, "increment")            /* op (OP_INC/OP_DEC); postfix; lhs */
NODE(N_TERNARY, "conditional")         /* cond, then, els */
