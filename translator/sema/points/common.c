// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What the families share: making a probe of a point, reading its
 * components, the MAXWILDCARD limit, function specs ("NAME@FILE:LINE")
 * and DWARF queries through the probe cache.
 */
#include <fnmatch.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "debuginfo/dw.h"
#include "front/diag.h"
#include "sema/points/points.h"
#include "sema/sema.h"

/* arg: the period of a timer (its spread is set after), the priority of begin/end. */
struct probe *add_probe(struct pp_ctx *c, enum probe_kind kind, const char *symbol,
			       long long arg)
{
	struct probe *p = xcalloc(1, sizeof *p);
	p->kind = kind;
	p->pp = c->pp;
	/* pp() names the concrete point: a wildcard's match, not the pattern. */
	if (symbol)
		p->pp_text = xasprintf("%s.function(\"%s\")%s", c->comps[0].name, symbol,
				       kind == PK_KRETPROBE ? ".return" : "");
	else
		p->pp_text = ast_probe_point_text(c->pp);
	p->handler = c->pt->handler(c->pt->arg, false);
	if (p->handler->site && sema_uses_targets(p->handler->body))
		p->handler = c->pt->handler(c->pt->arg, true);
	c->made++;
	p->maxactive = c->maxactive;
	p->needs_regs = sema_uses_registers(p->handler->body);
	p->symbol = symbol ? xstrdup(symbol) : NULL;
	if (kind == PK_TIMER)
		p->period_ns = arg;
	else
		p->priority = arg;
	p->optional = c->pt->optional;
	pv_push(&c->s->prog.probes, p);
	return p;
}

/*
 * A probe placed through debug information. A body that reads target
 * variables is compiled for one site, so each such probe gets its own
 * copy of the handler.
 */
struct probe *add_site_probe(struct pp_ctx *c, enum probe_kind kind, struct probe_site *site)
{
	struct probe *p = xcalloc(1, sizeof *p);
	p->kind = kind;
	p->pp = c->pp;
	struct strbuf b;
	sb_init(&b);
	bool ret = kind == PK_KRETPROBE || kind == PK_URETPROBE;
	if (site->is_user)
		sb_printf(&b, "process(\"%s\").", site->object);
	else if (strcmp(site->object, "kernel"))
		sb_printf(&b, "module(\"%s\").", site->object);
	else
		sb_puts(&b, "kernel.");
	if (site->mark_provider)
		sb_printf(&b, "provider(\"%s\").mark(\"%s", site->mark_provider, site->function);
	else if (site->is_plt)
		sb_printf(&b, "plt(\"%s", site->function);
	else
		sb_printf(&b, "%s(\"%s", site->is_statement && !site->label ? "statement" : "function",
			  site->function);
	if (site->decl_file)
		sb_printf(&b, "@%s", site->decl_file);
	if (site->decl_file && site->decl_line)
		sb_printf(&b, ":%d", site->decl_line);
	sb_printf(&b, "\")%s", ret ? ".return" : site->is_inline ? ".inline" : "");
	if (site->label)
		sb_printf(&b, ".label(\"%s\")", site->label);
	p->pp_text = sb_detach(&b);
	struct handler *h = c->pt->handler(c->pt->arg, false);
	if (sema_uses_targets(h->body) && h->site)
		h = c->pt->handler(c->pt->arg, true);
	if (!h->site) {
		h->site = site;
		h->is_return = ret;
	}
	p->handler = h;
	c->made++;
	p->maxactive = c->maxactive;
	p->symbol = site->anchor ? xstrdup(site->anchor) : NULL;
	p->module = strcmp(site->object, "kernel") && !site->is_user ? xstrdup(site->object) : NULL;
	p->offset = site->anchor_offset;
	p->site = site;
	p->needs_regs = sema_uses_registers(h->body);
	p->optional = c->pt->optional;
	pv_push(&c->s->prog.probes, p);
	return p;
}

bool comp_is(const struct pp_ctx *c, int i, const char *name)
{
	return i < c->n && !strcmp(c->comps[i].name, name);
}

/* .function("f") with nothing after it: the entry of f wherever its code
 * is, inlined copies included. */
bool plain_function(const struct pp_ctx *c)
{
	return c->n == 2 && comp_is(c, 1, "function");
}

bool want_number(const struct pp_ctx *c, int i, bool required, long long *out)
{
	const struct comp *k = &c->comps[i];
	if (!k->arg) {
		if (required)
			diag_error(k->loc, D_BAD_PROBE_ARG, "'%s' needs a number in parentheses",
				   k->name);
		return !required;
	}
	if (k->arg->kind != N_NUM) {
		diag_error(k->arg->loc, D_BAD_PROBE_ARG, "'%s' takes a number, not a string",
			   k->name);
		return false;
	}
	*out = k->arg->num;
	return true;
}

/*
 * A wildcard that names more places than any script means (a typo such as
 * "*" for "*_read"): at most -D MAXWILDCARD (100000) for one probe point,
 * enough for every function of a kernel (SystemTap's examples wildcard
 * thousands); time and memory are bounded where the probes are placed
 * (MAXMEMORY, an interruptible start). True (after the error) when n
 * matches, of what names them, are more.
 */
bool too_many_matches(const struct pp_ctx *c, struct loc loc, const char *what, size_t n,
			     const char *noun)
{
	size_t limit = (size_t)c->s->limits[LIMIT_MAXWILDCARD];
	if (n <= limit || c->s->list)
		return false;
	diag_error(loc, D_BAD_PROBE_ARG,
		   "%s matches %zu %s; Tapline places at most %zu probes for one probe point "
		   "(-D MAXWILDCARD)",
		   what, n, noun, limit);
	diag_hint("narrow the pattern, or raise the limit: -D MAXWILDCARD=%zu", n);
	return true;
}


static void find_return(struct node *n, void *found)
{
	if (n->kind == N_TARGET && n->name && !strcmp(n->name, "return"))
		*(bool *)found = true;
	else if (n->kind != N_DEFINED)
		ast_for_children(n, find_return, found);
}

/*
 * A wildcard's .return match that returns nothing, when the body reads
 * $return (not under @defined): left out, as a function $return cannot
 * mean, instead of failing the whole script.
 */
bool returns_nothing_for(struct pp_ctx *c, enum probe_kind kind, bool wild,
				const struct probe_site *site)
{
	if (!wild || kind != PK_KRETPROBE || (site->return_type && site->return_type->kind != CT_VOID))
		return false;
	bool uses = false;
	find_return(c->pt->handler(c->pt->arg, false)->body, &uses);
	return uses;
}


/*
 * The sites of a DWARF query on object (build_id: its file's, for the
 * probe cache; NULL: not cached): from the cache when it has them, which
 * then needs no debug information, else from dw.c. As dw_functions: how
 * many, or -1 with *why (NULL when there is no DWARF at all).
 */
int query_sites(struct pp_ctx *c, enum query_kind kind, const char *object,
		       const char *module_file, const char *build_id, const struct dw_query *q,
		       struct ptrvec *sites, size_t *left_out, char **why)
{
	static const char *const names[] = { "functions", "statements", "inlines" };
	struct probe_cache_ref ref;
	size_t from = sites->n;
	if (probe_cache_query(c->s, c->pt->handler(c->pt->arg, false), object, build_id, names[kind],
			      q, &ref, sites))
		return (int)(sites->n - from);
	struct dw *d = sema_debuginfo(c->s);
	int r = -1;
	if (strcmp(object, "kernel") || debugfind(c->s->debug_ix, "kernel"))
		r = kind == Q_STATEMENTS ? dw_statements(d, object, module_file, q, sites, left_out, why)
		    : kind == Q_INLINES  ? dw_inlines(d, object, module_file, q, sites, left_out, why)
					 : dw_functions(d, object, module_file, q, sites, left_out, why);
	if (r > 0)
		probe_cache_remember(c->s, &ref, sites, from);
	else
		probe_cache_forget(&ref);
	return r;
}

/* Where statements of the function do begin, near the line asked for. */
void statement_hint(struct dw *d, const char *module, const char *module_file,
		    const struct dw_query *q)
{
	int below, above;
	dw_statement_lines_near(d, module, module_file, q, &below, &above);
	if (below && above)
		diag_hint("the nearest lines where one begins: %d and %d", below, above);
	else if (below || above)
		diag_hint("the nearest line where one begins: %d", below ? below : above);
}

/* "name", "name@file" or "name@file:line" */
/*
 * "NAME", "NAME@FILE", "NAME@FILE:LINE", and for statements a range of
 * lines, "NAME@FILE:FIRST-LAST", or "NAME@FILE:*" (every line: first 1,
 * last INT_MAX). *line_last is 0 unless a range was given.
 */
bool split_function_spec(const char *spec, char **func, char **file, int *line, int *line_last)
{
	const char *at = strchr(spec, '@');
	*file = NULL;
	*line = *line_last = 0;
	if (!at) {
		*func = xstrdup(spec);
		return true;
	}
	*func = xstrndup(spec, (size_t)(at - spec));
	const char *colon = strrchr(at + 1, ':');
	if (colon) {
		char *end;
		if (!strcmp(colon + 1, "*")) {
			*line = 1;
			*line_last = INT_MAX;
		} else {
			long v = strtol(colon + 1, &end, 10);
			if (v <= 0 || v > INT_MAX || (*end && *end != '-'))
				return false;
			*line = (int)v;
			if (*end == '-') {
				long last = strtol(end + 1, &end, 10);
				if (*end || last < v || last > INT_MAX)
					return false;
				*line_last = (int)last;
			}
		}
		*file = xstrndup(at + 1, (size_t)(colon - at - 1));
	} else {
		*file = xstrdup(at + 1);
	}
	return **func && **file;
}

void offer_name(const char *name, void *sg)
{
	suggest_offer(sg, name);
}
