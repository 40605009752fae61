// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * SystemTap prints, when a run ends, every global the script writes and
 * never reads: `global c; probe syscall.* { c[execname()]++ }` shows its
 * counts without a line of printing. Which globals those are is a matter
 * of the script's own syntax (a tapset never names the script's globals):
 * assigned, incremented, added to with <<< or deleted, and named nowhere
 * else. For them this writes an end probe in the script language, as
 * SystemTap's translator adds one, and the caller parses it after the
 * script: it runs after the script's own end probes.
 *
 * The text is SystemTap's: "n=4", "s=\"text\"", "c[\"a\",1]=3", and for a
 * statistic "s @count=2 @min=1 @max=5 @sum=6 @avg=3" ("s @count=0x0" when
 * empty); globals by name, an array's elements by their keys.
 */
#include <stdlib.h>
#include <string.h>

#include "front/front.h"

struct global_use {
	const char *name;
	bool written, read, stats, array;
	bool plain;  /* written otherwise than with <<< (or initialized) */
	int nkeys; /* 0: not known from the script */
};

struct uses {
	struct global_use *v;
	size_t n;
};

static struct global_use *use_of(struct uses *u, const char *name)
{
	for (size_t i = 0; name && i < u->n; i++)
		if (!strcmp(u->v[i].name, name))
			return &u->v[i];
	return NULL;
}

static void walk(struct node *n, void *ctx);

/* The keys of an element written, which are read. */
static void walk_keys(struct node *target, struct uses *u)
{
	for (struct node *k = target->list; k; k = k->next)
		walk(k, u);
}

/* target (a variable or an element, of a global or not) is written. */
static void written(struct node *target, struct uses *u, bool stats)
{
	struct global_use *g = NULL;
	if ((target->kind == N_VAR || (target->kind == N_INDEX && !target->lhs)))
		g = use_of(u, target->name);
	if (!g) {
		walk(target, u);
		return;
	}
	g->written = true;
	g->stats |= stats;
	g->plain |= !stats;
	if (target->kind == N_INDEX) {
		int k = 0;
		for (struct node *key = target->list; key; key = key->next)
			k++;
		g->array = true;
		if (!g->nkeys)
			g->nkeys = k;
		walk_keys(target, u);
	}
}

/* An assignment or increment whose value nothing uses (a statement of its
 * own, a for loop's init or step) only writes; one inside an expression
 * (`if (!seen[k]++)`) also reads, as SystemTap counts it. */
static void walk_statement_expr(struct node *e, struct uses *u)
{
	if (e && e->kind == N_ASSIGN) {
		written(e->lhs, u, e->op == OP_AGG);
		walk(e->rhs, u);
	} else if (e && e->kind == N_INCDEC) {
		written(e->lhs, u, false);
	} else {
		walk(e, u);
	}
}

/* What an assignment or increment inside an expression names is read too. */
static void read_target(struct node *target, struct uses *u)
{
	struct global_use *g;
	if ((target->kind == N_VAR || (target->kind == N_INDEX && !target->lhs)) &&
	    (g = use_of(u, target->name)))
		g->read = true;
}

static void walk(struct node *n, void *ctx)
{
	struct uses *u = ctx;
	if (!n)
		return;
	struct global_use *g;
	switch (n->kind) {
	case N_EXPR_STMT:
		walk_statement_expr(n->lhs, u);
		return;
	case N_FOR:
		walk_statement_expr(n->init, u);
		walk(n->cond, u);
		walk_statement_expr(n->step, u);
		walk(n->body, u);
		return;
	case N_ASSIGN:
		read_target(n->lhs, u);
		walk_statement_expr(n, u);
		return;
	case N_INCDEC:
		read_target(n->lhs, u);
		walk_statement_expr(n, u);
		return;
	case N_DELETE:
		if (n->lhs && (n->lhs->kind == N_VAR || n->lhs->kind == N_INDEX) &&
		    (g = use_of(u, n->lhs->name))) {
			g->written = true;
			walk_keys(n->lhs, u);
			return;
		}
		break;
	case N_VAR:
	case N_IN:
		if ((g = use_of(u, n->name)))
			g->read = true;
		break;
	case N_INDEX:
		if (!n->lhs && (g = use_of(u, n->name)))
			g->read = true;
		break;
	default:
		break;
	}
	ast_for_children(n, walk, u);
}

static int use_cmp(const void *a, const void *b)
{
	return strcmp(((const struct global_use *)a)->name, ((const struct global_use *)b)->name);
}

/* g's key variables "__ap_g_1, __ap_g_2" (each global its own: a probe's
 * locals have one type each), sorted ("__ap_g_1+, ..."), or as printf's
 * arguments. */
static void key_list(struct strbuf *b, const char *g, int nkeys, bool sorted, bool quoted)
{
	for (int k = 1; k <= nkeys; k++)
		sb_printf(b, "%s%s__ap_%s_%d%s%s", k > 1 ? ", " : "",
			  quoted ? "__autoprint_value(" : "", g, k, quoted ? ")" : "",
			  sorted && k == 1 ? "+" : "");
}

static void print_one(struct strbuf *b, const struct global_use *g)
{
	static const char stats_fmt[] = " @count=%d @min=%d @max=%d @sum=%d @avg=%d\\n";
	const char *s = g->name;
	if (!g->array && g->stats) {
		sb_printf(b, "\tif (@count(%s))\n\t\tprintf(\"%s", s, s);
		sb_puts(b, stats_fmt);
		sb_printf(b, "\", @count(%s), @min(%s), @max(%s), @sum(%s), @avg(%s))\n", s, s, s, s, s);
		sb_printf(b, "\telse\n\t\tprintf(\"%s @count=0x0\\n\")\n", s);
		return;
	}
	if (!g->array) {
		sb_printf(b, "\tprintf(\"%s=%%s\\n\", __autoprint_value(%s))\n", s, s);
		return;
	}
	struct strbuf keys, args;
	sb_init(&keys);
	sb_init(&args);
	key_list(&keys, s, g->nkeys, true, false);
	key_list(&args, s, g->nkeys, false, true);
	sb_printf(b, "\tforeach ([%s] in %s)\n\t\tprintf(\"%s[", keys.s, s, s);
	for (int k = 1; k <= g->nkeys; k++)
		sb_puts(b, k > 1 ? ",%s" : "%s");
	struct strbuf elem;
	sb_init(&elem);
	sb_printf(&elem, "%s[", s);
	key_list(&elem, s, g->nkeys, false, false);
	sb_putc(&elem, ']');
	if (g->stats) {
		sb_puts(b, "]");
		sb_puts(b, stats_fmt);
		sb_printf(b, "\", %s, @count(%s), @min(%s), @max(%s), @sum(%s), @avg(%s))\n", args.s,
			  elem.s, elem.s, elem.s, elem.s, elem.s);
	} else {
		sb_printf(b, "]=%%s\\n\", %s, __autoprint_value(%s))\n", args.s, elem.s);
	}
	sb_free(&keys);
	sb_free(&args);
	sb_free(&elem);
}

char *autoprint_text(const struct ptrvec *decls, size_t first, size_t count)
{
	struct uses u = { 0 };
	for (size_t i = first; i < first + count; i++) {
		struct node *d = decls->v[i];
		if (d->kind != N_GLOBAL || use_of(&u, d->name))
			continue;
		u.v = xrealloc(u.v, (u.n + 1) * sizeof *u.v);
		u.v[u.n++] = (struct global_use){ .name = d->name, .written = d->lhs != NULL,
						  .plain = d->lhs != NULL, .array = d->is_array };
	}
	for (size_t i = first; i < first + count; i++) {
		struct node *d = decls->v[i];
		if (d->kind != N_GLOBAL)
			walk(d, &u);
	}
	qsort(u.v, u.n, sizeof *u.v, use_cmp);
	struct strbuf b;
	sb_init(&b);
	for (size_t i = 0; i < u.n; i++) {
		const struct global_use *g = &u.v[i];
		/* An array only deleted (no key count known) has nothing to show;
		 * a global the script misuses (a statistic assigned too, more
		 * keys than an array may have) gets its error from the script
		 * alone. */
		if (!g->written || g->read || (g->array && !g->nkeys) || (g->stats && g->plain) ||
		    g->nkeys > MAX_KEYS)
			continue;
		if (!b.len)
			sb_puts(&b, "probe end {\n");
		print_one(&b, g);
	}
	free(u.v);
	if (!b.len)
		return NULL;
	sb_puts(&b, "}\n");
	return sb_detach(&b);
}
