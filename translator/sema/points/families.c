// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The probe point families: which one a point belongs to (the table,
 * in the order they are tried), begin, end, error and never, and what to
 * tell a user whose point none of them takes.
 */
#include <fnmatch.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "front/diag.h"
#include "sema/points/points.h"
#include "sema/sema.h"

static const char *const lifecycle_usage[] = { "begin[(N)]", "end[(N)]", "error[(N)]", "never",
					       NULL };
static const char *const lifecycle_shapes[] = { "begin", "end", "error", "never", NULL };

static bool lifecycle_takes(const struct pp_ctx *c)
{
	return c->n == 1 && (comp_is(c, 0, "begin") || comp_is(c, 0, "end") ||
			     comp_is(c, 0, "error") || comp_is(c, 0, "never"));
}

static void begin_end(struct pp_ctx *c, enum probe_kind kind)
{
	long long prio = 0;
	if (!want_number(c, 0, false, &prio))
		return;
	add_probe(c, kind, NULL, prio);
}

static void lifecycle_resolve(struct pp_ctx *c)
{
	if (comp_is(c, 0, "begin"))
		begin_end(c, PK_BEGIN);
	else if (comp_is(c, 0, "end"))
		begin_end(c, PK_END);
	else if (comp_is(c, 0, "error"))
		/* Instead of the end probes, when an error stops the script. */
		begin_end(c, PK_ERROR);
	else
		/* A probe that never fires: its body is still checked. */
		c->pt->handler(c->pt->arg, false)->check_only = true;
}

static const struct family lifecycle_family = {
	.usage = lifecycle_usage,
	.shapes = lifecycle_shapes,
	.takes = lifecycle_takes,
	.resolve = lifecycle_resolve,
};

/* Every family, in the order a point is offered to them (and the hint
 * and "did you mean" list them). */
static const struct family *const families[] = {
	&lifecycle_family, &timer_family,   &perf_family,    &data_family, &kernel_family, &module_family,
	&tracepoint_family, &process_family, &procfs_family, &netfilter_family,
};

/* Families that SystemTap has and Tapline will have, but not yet. */
static const char *const later_families[] = { "tp_syscall", "kprobe.module", "java" };

/* Families that cannot work on this platform, and why. */
static const struct {
	const char *family, *why, *instead;
} impossible_families[] = {
#define PYTHON_MARKERS "CPython's own markers work: python.function.entry and " \
		       "python.function.return, or process(\"/usr/bin/python3.11\").mark(\"function__entry\")"
	{ "python2", "Debian 12 has no Python 2", PYTHON_MARKERS },
	{ "python3", "they need SystemTap's HelperSDT Python module (the program run as "
		     "python3 -m HelperSDT), which Debian does not ship, in its systemtap "
		     "packages either", PYTHON_MARKERS },
#undef PYTHON_MARKERS
};

void probe_point_usages(void (*fn)(const char *usage, void *ctx), void *ctx)
{
	for (size_t i = 0; i < ARRAY_SIZE(families); i++)
		for (const char *const *u = families[i]->usage; *u; u++)
			fn(*u, ctx);
}

void probe_point_shapes(void (*fn)(const char *shape, void *ctx), void *ctx)
{
	for (size_t i = 0; i < ARRAY_SIZE(families); i++)
		for (const char *const *sh = families[i]->shapes; *sh; sh++)
			fn(*sh, ctx);
}

static void join_usage(const char *usage, void *ctx)
{
	struct strbuf *b = ctx;
	sb_printf(b, "%s%s", b->len ? ", " : "", usage);
}

static char *shape_of(const struct pp_ctx *c)
{
	struct strbuf b;
	sb_init(&b);
	for (int i = 0; i < c->n; i++) {
		if (i)
			sb_putc(&b, '.');
		sb_puts(&b, c->comps[i].name);
	}
	return sb_detach(&b);
}

/* No name is near: the aliases of the same family ("vm." for vm.kmalloc),
 * which is what a user reaching for one is looking for. False if none. */
static bool hint_family_aliases(const struct pp_ctx *c, const char *shape)
{
	const struct ptrvec *names = c->pt->alias_names;
	size_t fam = strcspn(shape, ".");
	if (!names || !shape[fam])
		return false;
	struct strbuf b;
	sb_init(&b);
	size_t shown = 0, more = 0;
	for (size_t i = 0; i < names->n; i++) {
		const char *a = names->v[i];
		bool again = false;
		for (size_t k = 0; k < i && !again; k++)
			again = !strcmp(names->v[k], a);
		if (again || strncmp(a, shape, fam + 1))
			continue;
		if (shown < 12)
			sb_printf(&b, "%s%s", shown++ ? ", " : "", a);
		else
			more++;
	}
	if (shown) {
		if (more)
			sb_printf(&b, " and %zu more (stap -l '%.*s.**')", more, (int)fam, shape);
		diag_hint("the '%.*s' probe aliases: %s", (int)fam, shape, b.s);
	}
	sb_free(&b);
	return shown > 0;
}

void unknown_shape(struct pp_ctx *c)
{
	if (c->pt->optional)
		return;
	char *shape = shape_of(c);
	for (size_t i = 0; i < ARRAY_SIZE(impossible_families); i++) {
		size_t n = strlen(impossible_families[i].family);
		if (!strncmp(shape, impossible_families[i].family, n) && (shape[n] == 0 || shape[n] == '.')) {
			diag_error(c->pp->loc, D_UNSUPPORTED, "'%s' probes cannot work here: %s",
				   impossible_families[i].family, impossible_families[i].why);
			diag_hint("%s", impossible_families[i].instead);
			free(shape);
			return;
		}
	}
	for (size_t i = 0; i < ARRAY_SIZE(later_families); i++) {
		size_t n = strlen(later_families[i]);
		if (!strncmp(shape, later_families[i], n) && (shape[n] == 0 || shape[n] == '.')) {
			diag_error(c->pp->loc, D_UNSUPPORTED,
				   "'%s' probes are not supported by Tapline yet", later_families[i]);
			free(shape);
			return;
		}
	}
	diag_error(c->pp->loc, D_UNKNOWN_PROBE, "unknown probe point '%s'", shape);
	struct suggest sg;
	suggest_init(&sg, shape);
	for (size_t i = 0; i < ARRAY_SIZE(families); i++)
		for (const char *const *sh = families[i]->shapes; *sh; sh++)
			suggest_offer(&sg, *sh);
	for (size_t i = 0; c->pt->alias_names && i < c->pt->alias_names->n; i++)
		suggest_offer(&sg, c->pt->alias_names->v[i]);
	if (!suggest_hint(&sg, NULL) && !hint_family_aliases(c, shape)) {
		struct strbuf b;
		sb_init(&b);
		probe_point_usages(join_usage, &b);
		diag_hint("the probe points Tapline knows: %s", b.s);
		sb_free(&b);
	}
	free(shape);
}


bool probe_point_taken(struct node *pp)
{
	struct pp_ctx c = { .pp = pp };
	for (struct node *k = pp->list; k && c.n < (int)ARRAY_SIZE(c.comps); k = k->next)
		c.comps[c.n++] = (struct comp){ k->name, k->lhs, k->loc };
	for (size_t i = 0; i < ARRAY_SIZE(families); i++)
		if (families[i]->first ? comp_is(&c, 0, families[i]->first) : families[i]->takes(&c))
			return true;
	return false;
}

int probe_point_resolve(struct session *s, struct point *pt)
{
	struct pp_ctx c = { .s = s, .pt = pt, .pp = pt->pp };
	for (struct node *k = pt->pp->list; k; k = k->next) {
		if (c.n == (int)ARRAY_SIZE(c.comps)) {
			if (!pt->optional)
				unknown_shape(&c);
			return 0;
		}
		c.comps[c.n++] = (struct comp){ k->name, k->lhs, k->loc };
	}
	int before = diag_errors();
	/* ".return.maxactive(N)" on a function: the calls its return probes track. */
	if (c.n >= 4 && comp_is(&c, c.n - 1, "maxactive") && comp_is(&c, c.n - 2, "return") &&
	    comp_is(&c, 1, "function")) {
		if (!want_number(&c, c.n - 1, true, &c.maxactive))
			return 0;
		if (c.maxactive < 1 || c.maxactive > 4096) {
			diag_error(c.comps[c.n - 1].loc, D_BAD_PROBE_ARG,
				   "maxactive(%lld): a return probe tracks 1 to 4096 calls at once",
				   c.maxactive);
			return 0;
		}
		c.n--;
	}
	size_t i = 0;
	while (i < ARRAY_SIZE(families) &&
	       !(families[i]->first ? comp_is(&c, 0, families[i]->first) : families[i]->takes(&c)))
		i++;
	if (i < ARRAY_SIZE(families))
		families[i]->resolve(&c);
	else if (!pt->optional)
		unknown_shape(&c);
	/* "never" counts as resolved. */
	if (c.n == 1 && comp_is(&c, 0, "never"))
		return 1;
	return diag_errors() == before ? c.made : 0;
}
