/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The code generator's shared state and helpers, for its files: codegen.c
 * (the module's layout: functions, handlers, tables), cg-stmt.c
 * (statements and expressions), cg-data.c (arrays, statistics, histograms,
 * foreach, delete), cg-target.c (target variables) and cg-builtins.c (the
 * built-in functions). Nothing outside back/ includes this.
 */
#ifndef TAPLINE_CG_H
#define TAPLINE_CG_H

#include "back/back.h"

/* Statements in one C function before the rest goes into a part function. */
#define CG_PART_STMTS 64

struct loop {
	int id;
	bool is_for;
	bool used_continue;
};

struct cg {
	struct session *s;
	struct strbuf *out;      /* the function being written */
	struct strbuf fields;    /* its frame's fields */
	struct strbuf parts;     /* part functions of the body being written */
	int indent;
	int ntemps;              /* numbers for temporaries, fields and labels */
	int nstr, maxnstr;       /* string temporaries in use now, and at most */
	int nargs, maxnargs;     /* slots of the argument pool in use now, and at most */
	int nkeys, maxnkeys;     /* slots of the key pool likewise */
	int nparts;
	const char *name;        /* C name of the body: h3 or f_name */
	const char *leave;       /* how to leave the body: "goto out;" or, in a part, "return 1;" */
	const char *fail_leave;  /* where a failure goes: the same, or a try's catch */
	struct loop loops[64];
	int nloops;
	struct symbol *func;     /* NULL in a handler */
	bool user_regs;          /* a user probe's handler: registers always there */
	const char *ret_var;     /* C lvalue of the function's return value */
	long long maxstr;
	int *map_of, *stats_of;  /* by global index: its number in rt_maps / rt_stats, or -1 */
	struct ptrvec statics;   /* the static objects target reads use (struct tstatic) */
};

/* cg-target.c: the index of static object st in the module's table
 * (rt_statics), added when new. */
size_t cg_static_index(struct cg *g, struct tstatic *st);

/* cg-stmt.c */
void emit(struct cg *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* "file:line:col" of a node, as a C string literal (malloced). */
char *loc_literal(const struct node *n);
/* Text as a C string literal (malloced): every byte escaped as needed. */
char *c_string(const char *s, size_t len);
/* User text (a path, a pattern) made safe inside a C comment (malloced): no
 * comment closer or opener, no control character, no trigraph. Every piece
 * of user text written into a comment goes through this. */
char *c_comment(const char *s);
char *new_long_temp(struct cg *g);
char *new_string_temp(struct cg *g);
/* Keep a value as it is now, in a temporary, unless nothing can change it. */
char *snapshot(struct cg *g, char *e, enum type t);
bool has_side_effects(const struct node *n);
/* Evaluate a list left to right; the values stay valid until all are done. */
char **cg_list(struct cg *g, struct node *list, int *count);
/* The same, as a call's argument list after its first: ", a, b" ("" for none). */
char *cg_args(struct cg *g, struct node *list);
void free_list(char **vals, int n);
/* After a call that may fail: go where failures go. */
void fail_check(struct cg *g);
char *cg_expr(struct cg *g, struct node *n);
/* The long operation op on two evaluated operands (division checked). */
char *long_op(struct cg *g, struct node *n, enum op op, char *a, char *b);
void cg_stmt(struct cg *g, struct node *n);
/* A loop's entry for break and continue (NULL, reported, when too deep), and
 * its end; between them, the body as a C block spending its own actions. */
struct loop *loop_push(struct cg *g, struct node *n, bool is_for);
void cg_loop_body(struct cg *g, struct node *body);
/* Spend `count` actions at once, failing at `at` when the budget runs out. */
void spend_actions(struct cg *g, int count, const struct node *at);
/* Evaluate arguments into the frame's rt_fmt_arg pool; returns the C array. */
char *fmt_args(struct cg *g, struct node *args, int *nargs);

/* A #line directive pointing the C that follows at n's script line. */
void line_directive(struct cg *g, const struct node *n);
/* Does this foreach sort (and so take room on the CPU until it ends)? */
bool foreach_sorted(const struct node *n);
/* Does n hold a sorted foreach? */
bool has_sorted_foreach(struct node *n);

/* codegen.c */
/* A script function's C name. */
char *fn_cname(const struct symbol *f);

/* cg-data.c */
char *cg_element(struct cg *g, struct node *n);         /* m[k] */
char *cg_in(struct cg *g, struct node *n);              /* [k] in m */
char *cg_stat(struct cg *g, struct node *n);            /* @count(s) ... */
char *cg_bucket(struct cg *g, struct node *n);          /* @hist_log(s)[b] */
char *cg_hist_src(struct cg *g, struct node *hist);     /* &(struct rt_hist_src){...} */
char *cg_element_assign(struct cg *g, struct node *n);  /* m[k] = v, op=, <<< */
char *cg_stats_add(struct cg *g, struct node *n);       /* s <<< v */
char *cg_element_incdec(struct cg *g, struct node *n);  /* m[k]++ ... */
void cg_delete(struct cg *g, struct node *n);
void cg_foreach(struct cg *g, struct node *n);
/* The arrays' and statistics' descriptions for rt_script: how many of each,
 * and the room sorted foreach loops need. */
void cg_data_tables(struct cg *g, struct strbuf *file, int *nmaps, int *nstats,
		    long long *iter_slots);
/* Which globals are arrays and statistics, numbered for rt_maps and rt_stats. */
void cg_number_data(struct cg *g);

/* cg-target.c */
char *cg_target(struct cg *g, struct node *n);       /* $var->a[i], $$parms, ... */
void cg_target_store(struct cg *g, struct node *n, const char *val); /* guru: $var = val */
char *cg_entry_value(struct cg *g, struct node *n);  /* @entry(...) in a .return body */
/* The entry function's body: each saved value into the call's entry data. */
void cg_entry_values(struct cg *g, struct handler *h);

/* cg-builtins.c */
char *cg_builtin(struct cg *g, struct node *n);
/* Is b one of int_arg() ... pointer_arg()? Then the bytes it reads of
 * the argument's register (4: sign- or zero-extended; 8: all of it). */
bool arg_builtin(const struct builtin *b, int *size, bool *is_signed);

#endif
