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
NODE(N_PROBE_POINT, "probe point")     /* list: N_PP_COMPs; optional ('?') */
NODE(N_PP_COMP, "probe point component") /* name; lhs: N_NUM/N_STR argument or NULL */
NODE(N_GLOBAL, "global")               /* name; lhs: N_NUM/N_STR initializer or NULL */
NODE(N_FUNCTION, "function")           /* name; list: N_PARAMs; body; decl_type */
NODE(N_PARAM, "parameter")             /* name; decl_type */
/* Statements. */
NODE(N_BLOCK, "block")                 /* list: statements */
NODE(N_EXPR_STMT, "expression statement") /* lhs */
NODE(N_IF, "if")                       /* cond, then, els (or NULL) */
NODE(N_WHILE, "while")                 /* cond, body */
NODE(N_FOR, "for")                     /* init, cond, step (each may be NULL), body */
NODE(N_BREAK, "break")
NODE(N_CONTINUE, "continue")
NODE(N_NEXT, "next")
NODE(N_RETURN, "return")               /* lhs: value or NULL */
NODE(N_EMPTY, "empty statement")
/* Expressions. */
NODE(N_NUM, "number")                  /* num */
NODE(N_STR, "string")                  /* str, str_len */
NODE(N_VAR, "variable")                /* name; sym (pass 2) */
NODE(N_TARGET, "target variable")      /* name without '$' */
NODE(N_CALL, "call")                   /* name; list: arguments; sym or builtin (pass 2) */
NODE(N_ASSIGN, "assignment")           /* op; lhs, rhs */
NODE(N_BINARY, "binary operator")      /* op; lhs, rhs */
NODE(N_UNARY, "unary operator")        /* op; lhs */
NODE(N_INCDEC, "increment")            /* op (OP_INC/OP_DEC); postfix; lhs */
NODE(N_TERNARY, "conditional")         /* cond, then, els */
