// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Code without effect, elided; two passes share what "without effect"
 * means (pure(): no output, no assignment to anything else, no call that
 * might have one).
 *
 * Unused alias variables: a probe alias sets every variable a script
 * might want (syscall.openat: the file name read from user memory, the
 * flags decoded, argstr formatted), and most scripts read one or two of
 * them: the rest would cost a string copy or a sprintf on every hit. So
 * in a handler derived through aliases, an assignment in an alias's block
 * to a local that nothing in the handler reads is dropped when what it
 * assigns has no effect of its own. Dropping one may leave another unread
 * (argstr reads filename): repeated until nothing changes.
 *
 * Dead code (elide_dead_code, below): the script's own statements too.
 * As in SystemTap, an elided read that would have faulted no longer ends
 * the script.
 */
#include <stdlib.h>
#include <string.h>

#include "front/diag.h"
#include "sema/builtins.h"
#include "sema/sema.h"

struct elider {
	const struct session *s;
	struct ptrvec read;  /* names of locals read somewhere (const char *) */
	struct ptrvec pure;  /* functions found pure, and ... */
	struct ptrvec impure; /* ... not (struct symbol *) */
	struct ptrvec visiting;
};

static bool has(const struct ptrvec *v, const void *p)
{
	for (size_t i = 0; i < v->n; i++)
		if (v->v[i] == p)
			return true;
	return false;
}

/* A built-in that gives nothing is called for what it does; tokenize()
 * keeps the string it splits for the next call. */
static bool builtin_pure(const struct builtin *b)
{
	return b->sig[0] != 'v' && b->id != B_TOKENIZE;
}

static bool function_pure(struct elider *e, struct symbol *f);

/* Is n a plain local of the code at n (in function f, or a handler)? */
static bool is_local(const struct elider *e, const struct node *n, const struct symbol *f)
{
	if (f)
		for (int i = 0; i < f->nparams; i++)
			if (!strcmp(((struct symbol *)f->vars.v[i])->name, n->name))
				return true;
	return !sema_find_global(e->s, n->name, n->loc.file);
}

/* Does evaluating n (an expression or, in a function f, a statement) do
 * anything besides giving a value? */
static bool pure(struct elider *e, struct node *n, struct symbol *f)
{
	if (!n)
		return true;
	switch (n->kind) {
	case N_ASSIGN:
	case N_INCDEC:
		/* In a function, setting its own locals is its own business. */
		if (!f || n->op == OP_AGG || n->lhs->kind != N_VAR || !is_local(e, n->lhs, f))
			return false;
		return pure(e, n->rhs, f);
	case N_BINARY:
		if (n->op == OP_MATCH || n->op == OP_NOMATCH) /* sets matched() */
			return false;
		break;
	case N_CALL: {
		const struct builtin *b = builtin_find(n->name);
		if (b && !builtin_pure(b))
			return false;
		if (!b) {
			struct symbol *fn = sema_find_function(e->s, n->name, ast_list_len(n->list),
							       n->loc.file);
			if (!fn || !function_pure(e, fn))
				return false;
		}
		break;
	}
	case N_DELETE:
	case N_NEXT:
	case N_EMBEDDED:
		return false;
	case N_FOREACH:
		/* In a function, iterating into its own locals only. */
		if (!f || (n->then && !is_local(e, n->then, f)))
			return false;
		for (const struct node *k = n->list; k; k = k->next)
			if (k->kind == N_VAR && !is_local(e, k, f))
				return false;
		break;
	default:
		break;
	}
	bool ok = true;
	struct node *kids[] = { n->lhs, n->rhs, n->cond, n->then, n->els, n->init, n->step, n->body };
	for (size_t i = 0; ok && i < sizeof kids / sizeof kids[0]; i++)
		ok = pure(e, kids[i], f);
	for (struct node *c = n->list; ok && c; c = c->next)
		ok = pure(e, c, f);
	return ok;
}

/* A script function is pure when its body is: embedded C never is. */
static bool function_pure(struct elider *e, struct symbol *f)
{
	if (has(&e->pure, f))
		return true;
	if (has(&e->impure, f) || has(&e->visiting, f)) /* recursion: not worth proving */
		return false;
	pv_push(&e->visiting, f);
	struct node *body = f->decl->body;
	bool ok = body && body->kind != N_EMBEDDED && pure(e, body, f);
	e->visiting.n--;
	pv_push(ok ? &e->pure : &e->impure, f);
	return ok;
}

/* Is n "local = value" or "local <<< value" (a store that reads nothing
 * of the local); its local's node in *var. */
static bool store(const struct elider *e, const struct node *n, struct node **var)
{
	if (n->kind != N_ASSIGN || (n->op != OP_ASSIGN && n->op != OP_AGG) ||
	    n->lhs->kind != N_VAR || !is_local(e, n->lhs, NULL))
		return false;
	*var = n->lhs;
	return true;
}

/* Is stmt a statement that is only a store (a candidate)? */
static bool plain_store(const struct elider *e, const struct node *stmt, struct node **var)
{
	return stmt->kind == N_EXPR_STMT && store(e, stmt->lhs, var);
}

/* Every local read in n; what a store writes is not a read. */
static void collect_reads(struct node *n, void *ctx)
{
	struct elider *e = ctx;
	struct node *var;
	if (store(e, n, &var)) {
		collect_reads(n->rhs, e);
		return;
	}
	if (n->kind == N_VAR && !pv_has_string(&e->read, n->name))
		pv_push(&e->read, (void *)n->name);
	ast_for_children(n, collect_reads, e);
}

/* Drop the dead stores in statement n (an alias's block, at first) and
 * the statements under it; true if any was. */
static bool drop(struct elider *e, struct node *n)
{
	struct node *var;
	if (!n)
		return false;
	if (plain_store(e, n, &var)) {
		if (pv_has_string(&e->read, var->name) || !pure(e, n->lhs->rhs, NULL))
			return false;
		n->kind = N_EMPTY;
		n->lhs = NULL;
		return true;
	}
	bool changed = false;
	switch (n->kind) {
	case N_BLOCK:
		for (struct node *c = n->list; c; c = c->next)
			changed |= drop(e, c);
		break;
	case N_IF:
		changed |= drop(e, n->then);
		changed |= drop(e, n->els);
		break;
	case N_TRY:
		changed |= drop(e, n->body);
		changed |= drop(e, n->els);
		break;
	default: /* loops: a store there may feed the next round */
		break;
	}
	return changed;
}

void elide_alias_stores(const struct session *s, struct node *body, const struct ptrvec *blocks)
{
	struct elider e = { .s = s };
	bool changed;
	do {
		e.read.n = 0;
		collect_reads(body, &e);
		changed = false;
		for (size_t i = 0; i < blocks->n; i++)
			changed |= drop(&e, blocks->v[i]);
	} while (changed);
	pv_free(&e.read);
	pv_free(&e.pure);
	pv_free(&e.impure);
	pv_free(&e.visiting);
}

/*
 * Code without effect, dropped from every handler and function before
 * names and types are checked, as SystemTap's optimizer does (scripts
 * rely on it: a target expression in code that does nothing is never
 * looked up, so one script serves kernels that lack it). A store to a
 * local nothing reads becomes its value; a statement whose expression
 * only gives a value goes; so do a condition or loop left with nothing
 * to run. Unlike SystemTap, code in a try block stays: it is there for
 * the error it may raise. The user's own code gets a warning for each
 * (-w hides them); -u keeps everything.
 */
static bool is_empty(const struct node *n)
{
	if (!n || n->kind == N_EMPTY)
		return true;
	if (n->kind != N_BLOCK)
		return false;
	for (const struct node *c = n->list; c; c = c->next)
		if (!is_empty(c))
			return false;
	return true;
}

static void make_empty(struct node *n)
{
	n->kind = N_EMPTY;
	n->lhs = n->rhs = n->cond = n->then = n->els = n->init = n->step = n->body = NULL;
	n->list = NULL;
}

struct dead_ctx {
	struct elider e;
	int user_file;     /* warn about the script's own code only */
	bool stripped;     /* strip_stores took one */
};

/* Every store to a local nothing reads, in n (a statement or expression),
 * becomes the value it stores. */
static void strip_stores(struct node *n, void *ctx)
{
	struct dead_ctx *d = ctx;
	struct node *var;
	while (store(&d->e, n, &var) && !pv_has_string(&d->e.read, var->name)) {
		if (var->loc.file == d->user_file)
			diag_warning(var->loc, D_UNUSED,
				     "eliding the assignment to '%s': nothing reads it", var->name);
		struct node *next = n->next, *tail = n->tail;
		*n = *n->rhs;
		n->next = next;
		n->tail = tail;
		d->stripped = true;
	}
	ast_for_children(n, strip_stores, d);
}

/* strip_stores on n (may be NULL): did it take any? */
static bool strip(struct dead_ctx *d, struct node *n)
{
	if (!n)
		return false;
	d->stripped = false;
	strip_stores(n, d);
	return d->stripped;
}

/* Does expression n only give a value? Setting a local is an effect
 * here (the code after may read it), unlike inside a pure function. */
static bool no_effect(struct dead_ctx *d, struct node *n)
{
	return pure(&d->e, n, NULL);
}

/* Whether a global is an array is settled by all the code, dead or not,
 * as in SystemTap: what goes still says so for the globals it indexes. */
static void note_arrays(struct node *n, void *ctx)
{
	struct dead_ctx *d = ctx;
	const char *name = NULL;
	if (n->kind == N_IN || (n->kind == N_INDEX && !n->lhs))
		name = n->name;
	else if (n->kind == N_FOREACH && n->lhs->kind == N_VAR)
		name = n->lhs->name;
	struct symbol *g = name ? sema_find_global(d->e.s, name, n->loc.file) : NULL;
	if (g)
		g->is_array = true;
	ast_for_children(n, note_arrays, d);
}

/* Does foreach n leave a key or the value in a global? */
static bool sets_global(struct dead_ctx *d, const struct node *n)
{
	if (n->then && sema_find_global(d->e.s, n->then->name, n->then->loc.file))
		return true;
	for (const struct node *k = n->list; k; k = k->next)
		if (k->kind == N_VAR && sema_find_global(d->e.s, k->name, k->loc.file))
			return true;
	return false;
}

static void drop_stmt(struct dead_ctx *d, struct node *n)
{
	note_arrays(n, d);
	make_empty(n);
}

static bool dead_drop(struct dead_ctx *d, struct node *n)
{
	bool changed = false;
	if (!n)
		return false;
	switch (n->kind) {
	case N_EXPR_STMT:
		changed = strip(d, n->lhs);
		if (no_effect(d, n->lhs)) {
			/* Its store was reported: the rest goes with it. */
			if (!changed && n->loc.file == d->user_file) {
				char *text = ast_expr_text(n->lhs);
				diag_warning(n->loc, D_UNUSED, "eliding '%s': it has no effect",
					     text);
				free(text);
			}
			drop_stmt(d, n);
			return true;
		}
		return changed;
	case N_BLOCK:
		for (struct node *c = n->list; c; c = c->next)
			changed |= dead_drop(d, c);
		return changed;
	case N_IF:
		changed = strip(d, n->cond);
		changed |= dead_drop(d, n->then);
		changed |= dead_drop(d, n->els);
		if (is_empty(n->then) && is_empty(n->els) && no_effect(d, n->cond)) {
			drop_stmt(d, n);
			return true;
		}
		return changed;
	case N_TRY:
		/* What a try block runs is asked for its error: it stays. */
		return dead_drop(d, n->els);
	case N_WHILE:
	case N_FOR:
	case N_FOREACH:
		changed = strip(d, n->init ? n->init->lhs : NULL);
		changed |= strip(d, n->cond);
		changed |= strip(d, n->step);
		changed |= dead_drop(d, n->body);
		if (is_empty(n->body) && no_effect(d, n->init ? n->init->lhs : NULL) &&
		    no_effect(d, n->cond) && no_effect(d, n->step) &&
		    (n->kind != N_FOREACH || (no_effect(d, n->lhs) && !sets_global(d, n)))) {
			drop_stmt(d, n);
			return true;
		}
		return changed;
	case N_RETURN:
		return strip(d, n->lhs);
	default:
		return false;
	}
}

static void dead_code_elide(const struct session *s, struct node *body)
{
	struct dead_ctx d = { .e = { .s = s }, .user_file = s->prog.user_file };
	bool changed;
	do {
		d.e.read.n = 0;
		collect_reads(body, &d.e);
		changed = dead_drop(&d, body);
	} while (changed);
	pv_free(&d.e.read);
	pv_free(&d.e.pure);
	pv_free(&d.e.impure);
	pv_free(&d.e.visiting);
}

void elide_dead_code(struct session *s)
{
	if (s->unoptimized || s->list)
		return;
	for (size_t i = 0; i < s->prog.handlers.n; i++)
		dead_code_elide(s, ((struct handler *)s->prog.handlers.v[i])->body);
	for (size_t i = 0; i < s->prog.all_functions.n; i++) {
		struct symbol *f = s->prog.all_functions.v[i];
		if (f->decl->body && f->decl->body->kind != N_EMBEDDED)
			dead_code_elide(s, f->decl->body);
	}
}
