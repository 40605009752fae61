// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Add-only globals ("counters"): globals the script only ever adds to.
 * A number global whose every write is a statement adding to it (n++,
 * n--, ++n, n += e, n -= e, with the result unused) is counted by each
 * CPU on its own: a hit adds to its CPU's count with no lock (the lock
 * was most of what `n++` cost, and a hit that found it taken by another
 * CPU was skipped), and a read sums the counts. A read therefore sees
 * every addition that finished before it; one running on another CPU at
 * that moment may or may not be in it, as with a locked global read a
 * moment earlier or later. Two counters read together are not one
 * snapshot.
 */
#include "sema/sema.h"

struct counting {
	struct ptrvec counted;  /* globals added to by a statement somewhere */
	struct ptrvec written;  /* globals written any other way */
};

static struct symbol *plain_global(const struct node *n)
{
	return n && n->kind == N_VAR && n->sym && n->sym->kind == SYM_GLOBAL ? n->sym : NULL;
}

static void add(struct ptrvec *v, struct symbol *g)
{
	for (size_t i = 0; i < v->n; i++)
		if (v->v[i] == g)
			return;
	pv_push(v, g);
}

/* e, whose value nothing uses, adds to a global: which one (else NULL). */
static struct symbol *adds_to(const struct node *e)
{
	if (!e)
		return NULL;
	if (e->kind == N_INCDEC)
		return plain_global(e->lhs);
	if (e->kind == N_ASSIGN && (e->op == OP_ADD || e->op == OP_SUB))
		return plain_global(e->lhs);
	return NULL;
}

static void walk(struct node *n, void *ctx);

/* An expression whose value is unused: a statement's, or a for's step. */
static void walk_unused(struct node *e, struct counting *c)
{
	struct symbol *g = adds_to(e);
	if (g) {
		add(&c->counted, g);
		walk(e->rhs, c);
	} else {
		walk(e, c);
	}
}

static void walk(struct node *n, void *ctx)
{
	struct counting *c = ctx;
	if (!n)
		return;
	struct symbol *g;
	switch (n->kind) {
	case N_EXPR_STMT:
		walk_unused(n->lhs, c);
		return;
	case N_FOR:
		walk(n->init, c);
		walk(n->cond, c);
		walk_unused(n->step, c);
		walk(n->body, c);
		return;
	case N_ASSIGN:
	case N_INCDEC:
	case N_DELETE:
	case N_PROBEWRITE:
		if ((g = plain_global(n->lhs)))
			add(&c->written, g);
		break;
	case N_FOREACH:
		/* Its key and value variables are written. */
		if ((g = plain_global(n->then)))
			add(&c->written, g);
		for (struct node *k = n->list; k; k = k->next)
			if ((g = plain_global(k)))
				add(&c->written, g);
		break;
	case N_TRY:
		if ((g = plain_global(n->then)))
			add(&c->written, g);
		break;
	default:
		break;
	}
	ast_for_children(n, walk, c);
}

static bool holds(const struct ptrvec *v, const void *p)
{
	for (size_t i = 0; i < v->n; i++)
		if (v->v[i] == p)
			return true;
	return false;
}

static void drop_counters(struct ptrvec *v)
{
	size_t k = 0;
	for (size_t i = 0; i < v->n; i++)
		if (!((struct symbol *)v->v[i])->is_counter)
			v->v[k++] = v->v[i];
	v->n = k;
}

void counters_find(struct session *s)
{
	struct program *prog = &s->prog;
	struct counting c = { 0 };
	for (size_t i = 0; i < prog->handlers.n; i++)
		walk(((struct handler *)prog->handlers.v[i])->body, &c);
	for (size_t i = 0; i < prog->functions.n; i++)
		walk(((struct symbol *)prog->functions.v[i])->decl->body, &c);
	for (size_t i = 0; i < prog->globals.n; i++) {
		struct symbol *g = prog->globals.v[i];
		if (g->type == T_LONG && !g->is_array && holds(&c.counted, g) &&
		    !holds(&c.written, g)) {
			g->is_counter = true;
			g->counter_slot = prog->ncounters++;
		}
	}
	/* No hit locks a counter. */
	for (size_t i = 0; prog->ncounters && i < prog->handlers.n; i++) {
		struct handler *h = prog->handlers.v[i];
		drop_counters(&h->globals_rd);
		drop_counters(&h->globals_wr);
	}
	for (size_t i = 0; prog->ncounters && i < prog->functions.n; i++) {
		struct symbol *f = prog->functions.v[i];
		drop_counters(&f->globals_rd);
		drop_counters(&f->globals_wr);
	}
	pv_free(&c.counted);
	pv_free(&c.written);
}
