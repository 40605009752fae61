// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The rules of the language the grammar does not state, checked on each
 * file's declarations as pass 1 reads them, so that `stap -p1` rejects
 * what SystemTap's parser rejects: a parameter or global named twice in
 * one file, 'return' in a probe and 'next' in a function, a foreach that
 * sorts twice, formats, delimiters and regular expressions that are not
 * literal strings, printd with fewer than two values, @perf of anything
 * but a counter's name, embedded C in a script without guru mode, a
 * probe point's condition that changes anything or calls a function, and
 * a script with nothing in it. What needs the other files or the kernel
 * (names, types, probe points) is pass 2's.
 */
#include <string.h>

#include "front/diag.h"
#include "front/front.h"
#include "front/source.h"

struct syntax {
	bool guru;       /* stap -g */
	bool user;       /* the user's script, not a tapset */
	bool in_function;
};

static void check(struct syntax *sx, struct node *n);

static void check_child(struct node *child, void *ctx)
{
	check(ctx, child);
}

/* One sort at most: a key's, or the value's (the array's or the value variable's). */
static void check_foreach(struct node *n)
{
	int sorts = (n->sort != 0) + (n->then && n->then->sort);
	for (struct node *k = n->list; k; k = k->next)
		sorts += k->sort != 0;
	if (sorts > 1)
		diag_error(n->loc, D_FOREACH, "a foreach sorts by one key or by the value, not by %d",
			   sorts);
}

/* The print family's literal arguments. */
static void check_call(struct node *n)
{
	struct node *first = n->list;
	bool delimited = !strcmp(n->name, "printd") || !strcmp(n->name, "printdln") ||
			 !strcmp(n->name, "sprintd") || !strcmp(n->name, "sprintdln");
	if (delimited && first) {
		if (first->kind != N_STR)
			diag_error(first->loc, D_BAD_FORMAT, "the delimiter of %s must be a literal string",
				   n->name);
		else if (ast_list_len(first) < 3)
			diag_error(n->loc, D_BAD_FORMAT, "%s joins two or more values with its delimiter",
				   n->name);
	}
	if ((!strcmp(n->name, "printf") || !strcmp(n->name, "sprintf")) && first &&
	    first->kind != N_STR)
		diag_error(first->loc, D_BAD_FORMAT, "the format of %s must be a literal string",
			   n->name);
	/* @perf(NAME) (tapsets/macros.stpm) names a counter a probe defines. */
	if (!strcmp(n->name, "__perf_read") && first && (first->kind != N_STR || !first->str_len))
		diag_error(first->loc, D_UNKNOWN_COUNTER,
			   "@perf needs a counter's name as a literal string: @perf(\"NAME\")");
}

static void check(struct syntax *sx, struct node *n)
{
	if (!n)
		return;
	switch (n->kind) {
	case N_RETURN:
		if (!sx->in_function) {
			diag_error(n->loc, D_MISPLACED, "'return' is not allowed in a probe body");
			diag_hint("use 'next' to leave a probe early");
		}
		break;
	case N_NEXT:
		if (sx->in_function) {
			diag_error(n->loc, D_MISPLACED, "'next' is only allowed in a probe body");
			diag_hint("use 'return' to leave a function");
		}
		break;
	case N_FOREACH:
		check_foreach(n);
		break;
	case N_BINARY:
		if ((n->op == OP_MATCH || n->op == OP_NOMATCH) && n->rhs->kind != N_STR)
			diag_error(n->rhs->loc, D_BAD_REGEX,
				   "the regular expression of '%s' must be a literal string",
				   ast_op_name(n->op));
		break;
	case N_CALL:
		check_call(n);
		break;
	case N_EMBEDDED:
		if (sx->user && !sx->guru) {
			diag_error(n->loc, D_NEEDS_GURU, "embedded C needs guru mode");
			diag_hint("run stap with -g; the module is then built with the kernel's full "
				  "kbuild, which takes a few seconds");
		}
		return;
	default:
		break;
	}
	ast_for_children(n, check_child, sx);
}

static void check_params(struct node *fn)
{
	for (struct node *p = fn->list; p; p = p->next)
		for (struct node *q = fn->list; q != p; q = q->next)
			if (!strcmp(p->name, q->name)) {
				diag_error(p->loc, D_REDEFINED, "parameter '%s' appears twice", p->name);
				break;
			}
}

/* A global declared again in the same file (pass 2 finds it across files). */
static void check_global(struct ptrvec *decls, size_t first, size_t i)
{
	struct node *g = decls->v[i];
	for (size_t j = first; j < i; j++) {
		struct node *d = decls->v[j];
		if (d->kind == N_GLOBAL && !strcmp(d->name, g->name)) {
			diag_error(g->loc, D_REDEFINED, "global '%s' is declared twice", g->name);
			diag_note(d->loc, "the first declaration is here");
			return;
		}
	}
}

void syntax_check(int file, bool guru, struct ptrvec *decls, size_t first)
{
	struct syntax sx = { .guru = guru, .user = !src_get(file)->is_tapset };
	if (sx.user && first == decls->n && !diag_errors()) {
		diag_error((struct loc){ .file = file, .line = 1, .col = 1 }, D_NO_PROBES,
			   "the script is empty: it has no probes");
		return;
	}
	for (size_t i = first; i < decls->n; i++) {
		struct node *d = decls->v[i];
		sx.in_function = d->kind == N_FUNCTION;
		if (d->kind == N_FUNCTION)
			check_params(d);
		if (d->kind == N_GLOBAL)
			check_global(decls, first, i);
		check(&sx, d);
	}
}
