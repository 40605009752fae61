/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The script syntax tree. One node struct serves every kind (the kinds and
 * the fields each uses are listed in ast-kinds.h); pass 1 builds it, pass 2
 * annotates it (types, symbols), pass 3 reads it. Nodes are never freed
 * before the program ends.
 */
#ifndef TAPLINE_AST_H
#define TAPLINE_AST_H

#include <stdbool.h>
#include <stdio.h>

#include "front/source.h"
#include "util.h"

enum node_kind {
#define NODE(kind, name) kind,
#include "front/ast-kinds.h"
#undef NODE
	N_NKINDS
};

/* Script types. */
enum type { T_UNKNOWN, T_LONG, T_STRING, T_VOID };

/* Operators of N_ASSIGN, N_BINARY, N_UNARY and N_INCDEC, with their spelling. */
#define OPERATORS(X)                                                                   \
	X(OP_ADD, "+") X(OP_SUB, "-") X(OP_MUL, "*") X(OP_DIV, "/") X(OP_MOD, "%")     \
	X(OP_SHL, "<<") X(OP_SHR, ">>") X(OP_BITAND, "&") X(OP_BITOR, "|")             \
	X(OP_BITXOR, "^") X(OP_CONCAT, ".") X(OP_EQ, "==") X(OP_NE, "!=") X(OP_LT, "<") \
	X(OP_LE, "<=") X(OP_GT, ">") X(OP_GE, ">=") X(OP_AND, "&&") X(OP_OR, "||")      \
	X(OP_NEG, "-") X(OP_PLUS, "+") X(OP_NOT, "!") X(OP_BITNOT, "~") X(OP_INC, "++") \
	X(OP_DEC, "--") X(OP_ASSIGN, "=") X(OP_MATCH, "=~") X(OP_NOMATCH, "!~")
enum op {
#define X(id, s) id,
	OPERATORS(X)
#undef X
};

struct symbol;
struct builtin;

struct node {
	enum node_kind kind;
	struct loc loc;
	enum type type;      /* pass 2: the expression's type */
	enum op op;
	bool postfix;        /* N_INCDEC */
	int depth;           /* expressions: levels of operators below and at this node */
	bool optional;       /* N_PROBE_POINT written with '?' */
	enum type decl_type; /* N_FUNCTION, N_PARAM: declared with ':long'/':string' */
	const char *name;
	long long num;
	char *str;
	size_t str_len;
	struct node *lhs, *rhs;
	struct node *cond, *then, *els;
	struct node *init, *step, *body;
	struct node *list; /* first element of the node's list child */
	struct node *next; /* next element in the list this node is in */
	struct node *tail; /* on a list's first node: its last, so appending is O(1) */
	/* pass 2 */
	struct symbol *sym;
	const struct builtin *builtin;
};

/* A name the script refers to. */
enum sym_kind { SYM_GLOBAL, SYM_LOCAL, SYM_PARAM, SYM_FUNCTION };
struct symbol {
	enum sym_kind kind;
	const char *name;
	struct loc loc;  /* declaration, or first assignment of a local */
	enum type type;
	struct node *decl;
	int index;       /* globals, functions: a number; locals, params: frame slot */
	bool assigned, read;
	/* SYM_FUNCTION */
	struct ptrvec vars; /* SYM_PARAMs first, then SYM_LOCALs */
	int nparams;
	bool reachable;
	struct ptrvec calls;      /* functions this one calls (struct symbol *) */
	struct ptrvec globals_rd; /* globals it reads (itself, not callees) */
	struct ptrvec globals_wr; /* globals it writes */
};

struct node *ast_new(enum node_kind kind, struct loc loc);
const char *ast_kind_name(enum node_kind kind);
const char *ast_op_name(enum op op);
const char *ast_type_name(enum type t);
/* Append b (one node, or a list built with ast_append) to the list that
 * starts at a; returns the head. Constant time. */
struct node *ast_append(struct node *a, struct node *b);
int ast_list_len(const struct node *list);

/* Call fn on each direct child of n (list elements included), in source order. */
void ast_for_children(struct node *n, void (*fn)(struct node *child, void *ctx), void *ctx);

/* Print a declaration back as script text (stap -p1). */
void ast_print_decl(FILE *f, const struct node *decl);
/* A probe point as script text, e.g. kernel.function("f").return (malloced). */
char *ast_probe_point_text(const struct node *pp);
/* Quote a string as a script literal into b. */
void ast_quote_string(struct strbuf *b, const char *s, size_t len);

#endif
