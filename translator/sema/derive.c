// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Deriving probes: every probe point of every probe (the script's, and
 * those of the tapset files it pulled in) becomes concrete probes, each
 * with the handler it runs.
 *
 * A point that names a probe alias (its components match the alias's name,
 * '*' included: "syscall.*", and "**" for one or more whole components, or
 * inside one for any text across dots: "*sys**pen" is nd_syscall.open)
 * stands for the alias's own points, which may be aliases again. A point
 * may name an alias and go on (a suffix: "my.read.return" where my.read is
 * an alias): the suffix is added to each of the alias's own points. An
 * alias whose whole name matches is preferred to one that leaves a suffix;
 * under a wildcard, an alias that is only another name for one the
 * wildcard also matches is left out. Through a chain of aliases the
 * handler's body is the probe's body with the aliases' prologues before
 * it (the innermost alias's first) and their epilogues after it (the
 * outermost's first), so a prologue can set variables the body reads and
 * 'next' out of the probe.
 * Each chain gets its own copy of the body: its names resolve differently.
 *
 * A point written with '!' is sufficient: if it yields probes, the points
 * after it in the same list are not tried; if not, the next is ('!'
 * implies '?'). One written with '?' (or reached through one) may yield
 * none. A point with a condition ('if (EXPR)') runs
 * its body only while the condition holds: the body starts with a guard.
 * A point with wildcards in its component names that names no alias
 * stands for the families' points it matches ("kerne*.funct*("f").*" is
 * kernel.function("f").return and .call), each optional.
 */
#include <fnmatch.h>
#include <string.h>

#include "front/diag.h"
#include "front/preproc.h"
#include "sema/probes.h"
#include "sema/sema.h"

struct made {
	struct ptrvec chain;
	struct handler *h;
};

struct deriver {
	struct session *s;
	struct ptrvec runtime_calls;
	struct ptrvec aliases;     /* every N_ALIAS */
	struct ptrvec alias_names; /* their names, for "did you mean" */
	/* the probe being derived */
	struct node *decl;
	struct node *user_pp;      /* the point of decl being resolved */
	struct ptrvec chain;       /* N_ALIAS, and N_PROBE_POINT with a condition; outermost first */
	struct ptrvec made;        /* struct made *: the handlers made for decl, by chain */
};

/* Does component u's argument (as written in a probe) match component a's? */
static bool comp_matches_arg(const struct node *u, const struct node *a)
{
	if (!u->lhs != !a->lhs)
		return false;
	return !u->lhs || (u->lhs->kind == a->lhs->kind &&
			   (u->lhs->kind == N_NUM ? u->lhs->num == a->lhs->num
						  : strcmp(u->lhs->str, a->lhs->str) == 0));
}

/* Does component u (as written in a probe) match component a of an alias's name? */
static bool comp_matches(const struct node *u, const struct node *a)
{
	return fnmatch(u->name, a->name, 0) == 0 && comp_matches_arg(u, a);
}

/* names[0..k), joined by dots. */
static char *joined_names_of(char **names, int k)
{
	struct strbuf b;
	sb_init(&b);
	for (int i = 0; i < k; i++)
		sb_printf(&b, "%s%s", i ? "." : "", names[i]);
	return sb_detach(&b);
}

/*
 * Do components u (a probe's) match all of an alias's name, a? Returns how
 * many of u that takes, or -1. A component "**" matches one or more whole
 * components (the fewest that let the rest match); "**" inside one, its
 * text across as many as it needs ("sys**pen" is syscall.open). With
 * whole, u must be used up; without, what is left of it is a suffix for
 * the alias's points.
 */
static int match_name(const struct node *u, const struct node *a, bool whole, int used)
{
	if (!a)
		return whole && u ? -1 : used;
	if (!u)
		return -1;
	if (!strcmp(u->name, "**") && !u->lhs) {
		for (const struct node *rest = a->next;; rest = rest->next) {
			int n = match_name(u->next, rest, whole, used + 1);
			if (n >= 0 || !rest)
				return n;
		}
	}
	if (strstr(u->name, "**")) {
		struct ptrvec taken = { 0 };
		int n = -1;
		for (const struct node *last = a; last && n < 0; last = last->next) {
			pv_push(&taken, (void *)last->name);
			char *names = joined_names_of((char **)taken.v, (int)taken.n);
			bool ok = fnmatch(u->name, names, 0) == 0;
			free(names);
			if (ok && !u->lhs == !last->lhs && comp_matches_arg(u, last))
				n = match_name(u->next, last->next, whole, used + 1);
		}
		pv_free(&taken);
		return n;
	}
	if (!comp_matches(u, a))
		return -1;
	return match_name(u->next, a->next, whole, used + 1);
}

static int names_alias(const struct node *pp, const struct node *alias, bool whole)
{
	return match_name(pp->list, alias->then->list, whole, 0);
}

/* An alias's point t with the components of a probe's point after the
 * alias's name (its suffix) added: my.read.return, where my.read =
 * kernel.function("vfs_read"), is kernel.function("vfs_read").return. */
static struct node *with_suffix(const struct node *t, const struct node *suffix)
{
	struct node *p = ast_new(N_PROBE_POINT, t->loc);
	p->optional = t->optional;
	p->sufficient = t->sufficient;
	for (const struct node *k = t->list; k; k = k->next)
		p->list = ast_append(p->list, ast_clone(k));
	for (const struct node *k = suffix; k; k = k->next)
		p->list = ast_append(p->list, ast_clone(k));
	return p;
}

/* --- bodies --- */

struct write_ctx {
	const char *name;
	bool found;
};

static void find_write(struct node *n, void *ctx)
{
	struct write_ctx *w = ctx;
	if ((n->kind == N_ASSIGN || n->kind == N_INCDEC || n->kind == N_DELETE) &&
	    (n->lhs->kind == N_VAR || (n->lhs->kind == N_INDEX && n->lhs->name)) &&
	    !strcmp(n->lhs->name, w->name))
		w->found = true;
	ast_for_children(n, find_write, ctx);
}

/* @probewrite(var) in an alias's block: does the probe's own body write var? */
static void fold_probewrite(struct node *n, void *user_body)
{
	if (n->kind == N_PROBEWRITE) {
		struct write_ctx w = { n->lhs->name, false };
		find_write(user_body, &w);
		n->kind = N_NUM;
		n->num = w.found;
		n->lhs = NULL;
		return;
	}
	ast_for_children(n, fold_probewrite, user_body);
}

static void add_stmt(struct node *block, struct node *stmt)
{
	if (stmt)
		block->list = ast_append(block->list, stmt);
}

/* if (!(COND)) next */
static struct node *guard(const struct node *cond)
{
	struct node *not = ast_new(N_UNARY, cond->loc);
	not->op = OP_NOT;
	not->lhs = ast_clone(cond);
	struct node *n = ast_new(N_IF, cond->loc);
	n->guard = true; /* type errors name the condition, not the '!' */
	n->cond = not;
	n->then = ast_new(N_NEXT, cond->loc);
	return n;
}

static struct node *alias_block(const struct node *block, struct node *user)
{
	if (!block)
		return NULL;
	struct node *b = ast_clone(block);
	fold_probewrite(b, user);
	return b;
}

/* An alias's block (a copy), added to body and to the blocks elision may edit. */
static void add_alias_block(struct node *body, struct ptrvec *blocks, const struct node *block,
			    struct node *user)
{
	struct node *b = alias_block(block, user);
	if (!b)
		return;
	pv_push(blocks, b);
	add_stmt(body, b);
}

static struct node *derived_body(struct deriver *d)
{
	struct node *body = ast_new(N_BLOCK, d->decl->body->loc);
	struct node *user = ast_clone(d->decl->body);
	struct ptrvec blocks = { 0 };
	for (size_t i = 0; i < d->chain.n; i++) {
		struct node *c = d->chain.v[i];
		if (c->kind == N_PROBE_POINT)
			add_stmt(body, guard(c->cond));
	}
	for (size_t i = d->chain.n; i-- > 0;) {
		struct node *a = d->chain.v[i];
		if (a->kind == N_ALIAS)
			add_alias_block(body, &blocks, a->body, user);
	}
	add_stmt(body, user);
	for (size_t i = 0; i < d->chain.n; i++) {
		struct node *a = d->chain.v[i];
		if (a->kind == N_ALIAS)
			add_alias_block(body, &blocks, a->els, user);
	}
	/* Listing (-l, -L) shows what an alias offers: keep every variable;
	 * -u keeps them too (an elided read that would fault then does). */
	if (!d->s->list && !d->s->unoptimized)
		elide_alias_stores(d->s, body, &blocks);
	pv_free(&blocks);
	return body;
}

static bool same_chain(const struct ptrvec *a, const struct ptrvec *b)
{
	if (a->n != b->n)
		return false;
	for (size_t i = 0; i < a->n; i++)
		if (a->v[i] != b->v[i])
			return false;
	return true;
}

/*
 * A handler made while a point was looked at (its body decides how: for
 * $return, or DWARF's probe cache) whose points all came to nothing
 * (optional ones this kernel lacks) is not the script's: it is neither
 * checked nor built, as SystemTap drops such probes. A "never" probe's
 * body is kept: it is checked, never placed.
 */
static void drop_unplaced_handlers(struct program *prog)
{
	size_t n = 0;
	for (size_t i = 0; i < prog->handlers.n; i++) {
		struct handler *h = prog->handlers.v[i];
		bool placed = h->check_only;
		for (size_t k = 0; k < prog->probes.n && !placed; k++)
			placed = ((struct probe *)prog->probes.v[k])->handler == h;
		if (placed) {
			h->index = (int)n;
			prog->handlers.v[n++] = h;
		}
	}
	prog->handlers.n = n;
}

/* The handler of the current chain, made on first use; with fresh, a new
 * copy (a body that reads target variables gets one per probe site). */
static struct handler *handler_for(void *arg, bool fresh)
{
	struct deriver *d = arg;
	for (size_t i = 0; i < d->made.n && !fresh; i++) {
		struct made *m = d->made.v[i];
		if (same_chain(&m->chain, &d->chain))
			return m->h;
	}
	struct program *prog = &d->s->prog;
	struct handler *h = xcalloc(1, sizeof *h);
	h->index = (int)prog->handlers.n;
	h->decl = d->decl;
	h->body = derived_body(d);
	for (size_t i = 0; i < d->chain.n; i++)
		if (((struct node *)d->chain.v[i])->kind == N_ALIAS)
			pv_push(&h->aliases, d->chain.v[i]);
	pv_push(&prog->handlers, h);
	struct made *m = xcalloc(1, sizeof *m);
	for (size_t i = 0; i < d->chain.n; i++)
		pv_push(&m->chain, d->chain.v[i]);
	m->h = h;
	pv_push(&d->made, m);
	return h;
}

/* --- points --- */

static char *alias_name(const struct node *alias)
{
	return ast_probe_point_text(alias->then);
}

/* After an error deep in an alias: where the chain came from. */
static void chain_notes(struct deriver *d)
{
	for (size_t i = d->chain.n; i-- > 0;) {
		struct node *a = d->chain.v[i];
		if (a->kind != N_ALIAS)
			continue;
		char *name = alias_name(a);
		diag_note(a->loc, "in the probe alias '%s'", name);
		free(name);
	}
	diag_note(d->user_pp->loc, "which this probe uses");
}

static int resolve_point(struct deriver *d, struct node *pp, bool optional);

/* Through alias, whose name took `used` components of pp: the rest are a
 * suffix for each of the alias's points. */
static int through_alias(struct deriver *d, struct node *alias, struct node *pp, int used,
			 bool optional)
{
	for (size_t i = 0; i < d->chain.n; i++) {
		if (d->chain.v[i] == alias) {
			char *name = alias_name(alias);
			diag_error(pp->loc, D_UNKNOWN_PROBE, "probe alias '%s' refers to itself", name);
			free(name);
			chain_notes(d);
			return 0;
		}
	}
	const struct node *suffix = pp->list;
	for (int i = 0; i < used; i++)
		suffix = suffix->next;
	pv_push(&d->chain, alias);
	int total = 0;
	for (struct node *t = alias->list; t; t = t->next) {
		struct node *point = suffix ? with_suffix(t, suffix) : t;
		/* The copy has no condition: t's, on the chain, guards the body. */
		if (point != t && t->cond)
			pv_push(&d->chain, t);
		/* '!' implies '?', as in SystemTap: a sufficient point that finds
		 * nothing lets the next one be tried. */
		int n = resolve_point(d, point, optional || t->optional || t->sufficient);
		if (point != t && t->cond)
			d->chain.n--;
		total += n;
		if (n > 0 && t->sufficient)
			break;
	}
	d->chain.n--;
	return total;
}

static bool empty_body(const struct node *b)
{
	return !b || (b->kind == N_BLOCK && !b->list);
}

/*
 * Is alias a only another name for an alias that wildcard point pp also
 * matches ("nfs.aop.read_page_folio = nfs.aop.readfolio {}", under
 * "nfs.aop.*")? Such a synonym is left out, so the wildcard places each
 * probe once.
 */
static bool synonym_under(const struct deriver *d, const struct node *a, const struct node *pp)
{
	const struct node *t = a->list;
	if (!t || t->next || t->cond || !empty_body(a->body) || !empty_body(a->els))
		return false;
	for (size_t i = 0; i < d->aliases.n; i++) {
		const struct node *b = d->aliases.v[i];
		if (b != a && match_name(t->list, b->then->list, true, 0) >= 0 &&
		    names_alias(pp, b, true) >= 0)
			return true;
	}
	return false;
}

/* --check-version under an older --compatible: Tapline's tapsets are
 * today's, so what an alias of theirs sets may differ from what that
 * SystemTap's did (its own tapsets test systemtap_v). Once per place the
 * script names it (diag drops the same warning at the same place). */
static void check_version_of(struct deriver *d, const struct node *a, const struct node *pp)
{
	const struct session *s = d->s;
	if (!s->check_version || !s->compatible || a->loc.file == s->prog.user_file ||
	    pp->loc.file != s->prog.user_file || strverscmp(s->compatible, PP_SYSTEMTAP_VERSION) >= 0)
		return;
	char *name = alias_name(a);
	diag_warning(pp->loc, D_UNSUPPORTED,
		     "'%s' comes from Tapline's tapsets, which are SystemTap %s's: what it sets "
		     "under --compatible=%s may differ",
		     name, PP_SYSTEMTAP_VERSION, s->compatible);
	free(name);
}

/*
 * The aliases point pp names: those whose whole name it matches; if none,
 * those whose name matches the longest start of it, with the rest as a
 * suffix (SystemTap's "syscall.read.return.maxactive(10)").
 */
static int through_aliases(struct deriver *d, struct node *pp, bool optional, bool *matched)
{
	int total = 0, longest = 0, before = diag_errors();
	/* A wildcard over alias names means those this kernel has: each
	 * alias it matches is optional ("syscall.*" where one system call is
	 * missing), but not all of them. */
	bool wild = false;
	for (const struct node *c = pp->list; c; c = c->next)
		wild |= strpbrk(c->name, "*?[") != NULL;
	for (size_t i = 0; i < d->aliases.n; i++) {
		struct node *a = d->aliases.v[i];
		int used = names_alias(pp, a, true);
		if (used < 0)
			continue;
		*matched = true;
		if (wild && synonym_under(d, a, pp))
			continue;
		check_version_of(d, a, pp);
		total += through_alias(d, a, pp, used, optional || wild);
	}
	if (*matched && wild && !optional && !total && diag_errors() == before) {
		char *text = ast_probe_point_text(pp);
		diag_error(pp->loc, D_UNKNOWN_PROBE,
			   "no probe alias '%s' matches has a probe point on kernel %s (-v says why)",
			   text, d->s->release);
		free(text);
	}
	if (*matched)
		return total;
	for (size_t i = 0; i < d->aliases.n; i++) {
		int used = names_alias(pp, d->aliases.v[i], false);
		if (used > longest)
			longest = used;
	}
	for (size_t i = 0; longest && i < d->aliases.n; i++) {
		struct node *a = d->aliases.v[i];
		if (names_alias(pp, a, false) != longest)
			continue;
		*matched = true;
		check_version_of(d, a, pp);
		total += through_alias(d, a, pp, longest, optional);
	}
	return total;
}

static void note_skipped(const struct deriver *d, struct node *pp)
{
	char *text = ast_probe_point_text(pp), *alias = NULL;
	for (size_t i = d->chain.n; i-- > 0 && !alias;)
		if (((struct node *)d->chain.v[i])->kind == N_ALIAS)
			alias = alias_name(d->chain.v[i]);
	fprintf(stderr, "stap: skipping optional probe point %s%s%s%s: nothing on kernel %s matches it\n",
		text, alias ? " (of the alias '" : "", alias ? alias : "", alias ? "')" : "",
		d->s->release);
	free(alias);
	free(text);
}

/* --- wildcards over the families' points --- */

/* Do components u match the shape's names[at..n]? last_of[i]: the last
 * name component i of u took (its argument goes there). */
static bool match_shape(const struct node *u, int i, char **names, int n, int at, int *last_of)
{
	if (!u)
		return at == n;
	if (at == n || i >= 8)
		return false;
	bool across = strstr(u->name, "**") != NULL;
	for (int k = 1; at + k <= n && (k == 1 || across); k++) {
		char *text = joined_names_of(names + at, k);
		bool ok = fnmatch(u->name, text, 0) == 0;
		free(text);
		last_of[i] = at + k - 1;
		if (ok && match_shape(u->next, i + 1, names, n, at + k, last_of))
			return true;
	}
	return false;
}

struct shapes_ctx {
	struct deriver *d;
	struct node *pp;
	struct ptrvec seen; /* shapes tried, as text */
	int matched, total;
};

/* One family shape: if the point's names match it, the point with its
 * names, the arguments where the point had them, resolved (optional). */
static void try_shape(const char *shape, void *arg)
{
	struct shapes_ctx *sc = arg;
	for (size_t i = 0; i < sc->seen.n; i++)
		if (!strcmp(sc->seen.v[i], shape))
			return;
	pv_push(&sc->seen, (void *)shape);
	char *copy = xstrdup(shape), *names[8];
	int n = 0;
	for (char *tok = strtok(copy, "."); tok && n < 8; tok = strtok(NULL, "."))
		names[n++] = tok;
	int last_of[8];
	if (match_shape(sc->pp->list, 0, names, n, 0, last_of)) {
		struct node *p = ast_new(N_PROBE_POINT, sc->pp->loc);
		for (int j = 0; j < n; j++) {
			struct node *k = ast_new(N_PP_COMP, sc->pp->loc);
			k->name = xstrdup(names[j]);
			int i = 0;
			for (const struct node *u = sc->pp->list; u; u = u->next, i++)
				if (last_of[i] == j && u->lhs)
					k->lhs = ast_clone(u->lhs);
			p->list = ast_append(p->list, k);
		}
		sc->matched++;
		sc->total += resolve_point(sc->d, p, true);
	}
	free(copy);
}

static int resolve_point(struct deriver *d, struct node *pp, bool optional)
{
	if (pp->cond)
		pv_push(&d->chain, pp);
	bool matched = false;
	int total = through_aliases(d, pp, optional, &matched);
	bool wild = false;
	for (const struct node *c = pp->list; c && !matched; c = c->next)
		wild |= strpbrk(c->name, "*?[") != NULL;
	if (!matched && wild && !probe_point_taken(pp)) {
		struct shapes_ctx sc = { .d = d, .pp = pp };
		probe_point_shapes(try_shape, &sc);
		pv_free(&sc.seen);
		matched = sc.matched > 0;
		total = sc.total;
		if (matched && !total && !optional) {
			char *text = ast_probe_point_text(pp);
			diag_error(pp->loc, D_UNKNOWN_PROBE, "no probe point '%s' matches can be placed "
				   "on kernel %s (-v says why)", text, d->s->release);
			free(text);
		}
	}
	if (!matched) {
		bool targets = sema_uses_targets(d->decl->body);
		for (size_t i = 0; i < d->chain.n && !targets; i++) {
			struct node *a = d->chain.v[i];
			targets = a->kind == N_ALIAS &&
				  ((a->body && sema_uses_targets(a->body)) ||
				   (a->els && sema_uses_targets(a->els)));
		}
		struct point pt = { .pp = pp,
				    .optional = optional,
				    .uses_targets = targets,
				    .runtime_calls = &d->runtime_calls,
				    .alias_names = &d->alias_names,
				    .handler = handler_for,
				    .arg = d };
		int before = diag_errors();
		total = probe_point_resolve(d->s, &pt);
		if (diag_errors() > before && d->chain.n)
			chain_notes(d);
		/* An optional point that finds nothing is dropped quietly; -v says so. */
		if (!total && optional && diag_errors() == before && d->s->verbose)
			note_skipped(d, pp);
	}
	if (pp->cond)
		d->chain.n--;
	return total;
}

/* Stable insertion sort of one kind's probes by priority (the list is short). */
static void sort_by_priority(struct ptrvec *v)
{
	for (size_t i = 1; i < v->n; i++) {
		struct probe *p = v->v[i];
		size_t j = i;
		for (; j > 0 && ((struct probe *)v->v[j - 1])->priority > p->priority; j--)
			v->v[j] = v->v[j - 1];
		v->v[j] = p;
	}
}

/* begin probes first and end and error probes last, each in priority
 * order, then script order: the runtime runs them in the order of the list. */
static void order_probes(struct ptrvec *probes)
{
	struct ptrvec begins = { 0 }, others = { 0 }, ends = { 0 };
	for (size_t i = 0; i < probes->n; i++) {
		struct probe *p = probes->v[i];
		pv_push(p->kind == PK_BEGIN		       ? &begins
			: p->kind == PK_END || p->kind == PK_ERROR ? &ends
								   : &others,
			p);
	}
	sort_by_priority(&begins);
	sort_by_priority(&ends);
	probes->n = 0;
	for (size_t i = 0; i < begins.n; i++)
		pv_push(probes, begins.v[i]);
	for (size_t i = 0; i < others.n; i++)
		pv_push(probes, others.v[i]);
	for (size_t i = 0; i < ends.n; i++)
		pv_push(probes, ends.v[i]);
	pv_free(&begins);
	pv_free(&others);
	pv_free(&ends);
}

int probes_resolve(struct session *s)
{
	int before = diag_errors();
	struct program *prog = &s->prog;
	struct deriver d = { .s = s, .runtime_calls = probes_runtime_calls(s->runtime_dir) };
	for (size_t i = 0; i < prog->decls.n; i++) {
		struct node *a = prog->decls.v[i];
		if (a->kind != N_ALIAS)
			continue;
		pv_push(&d.aliases, a);
		pv_push(&d.alias_names, alias_name(a));
	}
	/* Aliases of tapset files the script did not pull in, for hints too. */
	for (size_t i = 0; i < prog->library_aliases.n; i++)
		pv_push(&d.alias_names, xstrdup(prog->library_aliases.v[i]));
	for (size_t i = 0; i < prog->decls.n; i++) {
		struct node *decl = prog->decls.v[i];
		if (decl->kind != N_PROBE)
			continue;
		d.decl = decl;
		for (struct node *pp = decl->list; pp; pp = pp->next) {
			d.user_pp = pp;
			int n = resolve_point(&d, pp, pp->optional || pp->sufficient);
			if (n > 0 && pp->sufficient)
				break;
		}
		for (size_t k = 0; k < d.made.n; k++) {
			struct made *m = d.made.v[k];
			pv_free(&m->chain);
			free(m);
		}
		d.made.n = 0;
	}
	order_probes(&prog->probes);
	drop_unplaced_handlers(prog);
	if (prog->handlers.n == 0 && diag_errors() == before)
		diag_error((struct loc){ prog->user_file, 1, 1 }, D_NO_PROBES, "the script has no probes");
	for (size_t i = 0; i < d.runtime_calls.n; i++)
		free(d.runtime_calls.v[i]);
	pv_free(&d.runtime_calls);
	return diag_errors() - before;
}
