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

#include "front/ast-kinds.h"
#include "front/source.h"
#include "util.h"

enum node_kind {
#define AST_ENUM(kind, name, class, children) kind,
	AST_KINDS(AST_ENUM)
#undef AST_ENUM
	N_NKINDS
};

/* Case labels of every kind of a class, for switches that treat them
 * alike (`switch (n->kind) { AST_EXPR_CASES return; ... }`), so that the
 * compiler still checks each switch names every kind. */
#define AST_SELECT_DECL(decl, stmt, expr) decl
#define AST_SELECT_STMT(decl, stmt, expr) stmt
#define AST_SELECT_EXPR(decl, stmt, expr) expr
#define AST_DECL_CASE(kind, name, class, children) AST_SELECT_##class(case kind:, , )
#define AST_STMT_CASE(kind, name, class, children) AST_SELECT_##class(, case kind:, )
#define AST_EXPR_CASE(kind, name, class, children) AST_SELECT_##class(, , case kind:)
#define AST_DECL_CASES AST_KINDS(AST_DECL_CASE)
#define AST_STMT_CASES AST_KINDS(AST_STMT_CASE)
#define AST_EXPR_CASES AST_KINDS(AST_EXPR_CASE)

/* Script types. T_STATS is a statistic (what '<<<' accumulates into). */
enum type { T_UNKNOWN, T_LONG, T_STRING, T_STATS, T_VOID };

/* Operators of N_ASSIGN, N_BINARY, N_UNARY and N_INCDEC, with their spelling. */
#define OPERATORS(X)                                                                   \
	X(OP_ADD, "+") X(OP_SUB, "-") X(OP_MUL, "*") X(OP_DIV, "/") X(OP_MOD, "%")     \
	X(OP_SHL, "<<") X(OP_SHR, ">>") X(OP_USHR, ">>>") X(OP_BITAND, "&")            \
	X(OP_BITOR, "|") X(OP_BITXOR, "^") X(OP_CONCAT, ".") X(OP_EQ, "==")            \
	X(OP_NE, "!=") X(OP_LT, "<") X(OP_LE, "<=") X(OP_GT, ">") X(OP_GE, ">=")       \
	X(OP_AND, "&&") X(OP_OR, "||") X(OP_NEG, "-") X(OP_PLUS, "+") X(OP_NOT, "!")    \
	X(OP_BITNOT, "~") X(OP_INC, "++") X(OP_DEC, "--") X(OP_ASSIGN, "=")             \
	X(OP_MATCH, "=~") X(OP_NOMATCH, "!~") X(OP_AGG, "<<<")
enum op {
#define X(id, s) id,
	OPERATORS(X)
#undef X
};

/* The statistics and histograms of '@name(...)'. */
#define AGGREGATES(X)                                                                  \
	X(AGG_NONE, "") X(AGG_COUNT, "@count") X(AGG_SUM, "@sum") X(AGG_MIN, "@min")   \
	X(AGG_MAX, "@max") X(AGG_AVG, "@avg") X(AGG_VARIANCE, "@variance")             \
	X(AGG_HIST_LINEAR, "@hist_linear") X(AGG_HIST_LOG, "@hist_log")
enum agg {
#define X(id, s) id,
	AGGREGATES(X)
#undef X
};

struct symbol;
struct target_access;
struct ctype;
struct builtin;

struct node {
	enum node_kind kind;
	struct loc loc;
	enum type type;      /* pass 2: the expression's type */
	enum op op;
	enum agg agg;        /* N_STAT, N_HIST; N_FOREACH: the statistic it sorts by */
	int sort;            /* N_FOREACH, its key variables: 0, 1 ('+', ascending), -1 ('-') */
	int pretty;          /* N_TARGET, N_CAST, N_ATVAR: 0, 1 ('$' suffix) or 2 ('$$') */
	bool postfix;        /* N_INCDEC */
	bool optional;       /* N_PROBE_POINT written with '?' */
	bool sufficient;     /* N_PROBE_POINT written with '!' */
	bool is_private;     /* N_GLOBAL, N_FUNCTION */
	bool is_array;       /* N_GLOBAL declared with [...] or '%' */
	bool wrap;           /* N_GLOBAL declared with '%' */
	bool addr_of;        /* N_TARGET, N_CAST, N_ATVAR written with '&' */
	bool guard;          /* N_IF: pass 2's "if (!(COND)) next" for a probe point's condition */
	int depth;           /* expressions: levels of operators below and at this node */
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
	struct target_access *access; /* N_TARGET, N_ENTRY, ... (pass 2) */
};

/* A name the script refers to. */
enum sym_kind { SYM_GLOBAL, SYM_LOCAL, SYM_PARAM, SYM_FUNCTION };

/* Most keys an array may have (as in SystemTap). */
#define MAX_KEYS 9

struct symbol {
	enum sym_kind kind;
	const char *name;
	struct loc loc;  /* declaration, or first assignment of a local */
	enum type type;  /* the value's type; T_STATS for a statistic (or an array of them) */
	struct loc type_loc; /* where the type was declared or first learned (a use, a return) */
	struct node *decl;
	int index;       /* globals, functions: a number; locals, params: frame slot */
	bool assigned, read;
	/* SYM_GLOBAL used as an array */
	bool is_array;
	int nkeys;                  /* -1 until known */
	enum type key_types[MAX_KEYS];
	struct loc keys_loc;        /* where the number of keys was learned */
	unsigned aggs;              /* statistics: (1 << AGG_...) of every extractor used */
	long long hist[3];          /* @hist_linear's start, stop, interval */
	long long variance_shift;
	/* SYM_GLOBAL only ever added to (sema/addonly.c): counted per CPU,
	 * in slot counter_slot of each CPU's counts */
	bool is_counter;
	int counter_slot;
	/* SYM_FUNCTION */
	struct ptrvec vars; /* SYM_PARAMs first, then SYM_LOCALs */
	int nparams;
	bool reachable;
	struct ptrvec calls;      /* functions this one calls (struct symbol *) */
	struct ptrvec globals_rd; /* globals it reads (itself, not callees) */
	struct ptrvec globals_wr; /* globals it writes */
	/* Autocast: the struct a local holds (or a function returns) a pointer
	 * to, when every typed value stored in it agrees; user: in user memory. */
	struct ctype *autocast;
	bool autocast_user, autocast_mixed;
};

struct node *ast_new(enum node_kind kind, struct loc loc);
const char *ast_kind_name(enum node_kind kind);
/* "a" or "an", to go before the kind's name in a message. */
const char *ast_kind_article(enum node_kind kind);
const char *ast_op_name(enum op op);
const char *ast_agg_name(enum agg agg);
const char *ast_type_name(enum type t);
/* Append b (one node, or a list built with ast_append) to the list that
 * starts at a; returns the head. Constant time. */
struct node *ast_append(struct node *a, struct node *b);
int ast_list_len(const struct node *list);

/* A deep copy of n and everything below it (pass-2 annotations left out). */
struct node *ast_clone(const struct node *n);

/* Call fn on each direct child of n (list elements included), in source order. */
void ast_for_children(struct node *n, void (*fn)(struct node *child, void *ctx), void *ctx);

/* Print a declaration back as script text (stap -p1). */
void ast_print_decl(FILE *f, const struct node *decl);
/* A probe point as script text, e.g. kernel.function("f").return (malloced). */
char *ast_probe_point_text(const struct node *pp);
/* An expression as script text, e.g. $p->x[2] (malloced). */
char *ast_expr_text(const struct node *n);
/* Quote a string as a script literal into b. */
void ast_quote_string(struct strbuf *b, const char *s, size_t len);

#endif
