// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unused alias variables, elided. A probe alias sets every variable a
 * script might want (syscall.openat: the file name read from user memory,
 * the flags decoded, argstr formatted), and most scripts read one or two
 * of them: the rest would cost a string copy or a sprintf on every hit.
 * So in a handler derived through aliases, an assignment in an alias's
 * block to a local that nothing in the handler reads is dropped, when
 * what it assigns has no effect of its own (no output, no assignment to
 * anything else, no call that might have one). Dropping one may leave
 * another unread (argstr reads filename): repeated until nothing changes.
 * The script's own statements are never touched. As in SystemTap, an
 * elided read that would have faulted no longer ends the script.
 */
#include <string.h>

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

static bool builtin_pure(const struct builtin *b)
{
	switch (b->id) {
	case B_PRINT: case B_PRINTLN: case B_PRINTD: case B_PRINTDLN: case B_PRINTF:
	case B_EXIT: case B_ERROR: case B_WARN: case B_PRINT_BACKTRACE: case B_PRINT_STACK:
	case B_PRINT_UBACKTRACE: case B_PRINT_USTACK: case B_PRINT_UBACKTRACE_FILELINE:
	case B_TOKENIZE: /* keeps the string it splits */
		return false;
	default:
		return true;
	}
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
		if (!f)
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

/* Is stmt "local = value" (a candidate); its local's node in *var. */
static bool plain_store(const struct elider *e, const struct node *stmt, struct node **var)
{
	if (stmt->kind != N_EXPR_STMT || stmt->lhs->kind != N_ASSIGN || stmt->lhs->op != OP_ASSIGN ||
	    stmt->lhs->lhs->kind != N_VAR || !is_local(e, stmt->lhs->lhs, NULL))
		return false;
	*var = stmt->lhs->lhs;
	return true;
}

/* Every local read in n; a candidate's own variable is not a read. */
static void collect_reads(struct node *n, void *ctx)
{
	struct elider *e = ctx;
	struct node *var;
	if (n->kind == N_EXPR_STMT && plain_store(e, n, &var)) {
		collect_reads(n->lhs->rhs, e);
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
