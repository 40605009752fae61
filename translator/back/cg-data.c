// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Pass 3 for arrays and statistics. An array is rt_maps[N] and a scalar
 * statistic rt_stats[N] in the runtime (maps.c, stats.c), numbered here in
 * the order of the globals; everything the script does with them is a
 * call. Keys are written into a pool of struct rt_key in the frame, reused
 * from statement to statement, and passed by address.
 *
 * A foreach walks an rt_iter in the frame; its slice keys get fields of
 * their own, since the body's statements reuse the pool.
 */
#include <string.h>

#include "back/cg.h"
#include "front/diag.h"

void cg_number_data(struct cg *g)
{
	const struct ptrvec *globals = &g->s->prog.globals;
	int nmaps = 0, nstats = 0;
	g->map_of = xcalloc(globals->n + 1, sizeof(int));
	g->stats_of = xcalloc(globals->n + 1, sizeof(int));
	for (size_t i = 0; i < globals->n; i++) {
		const struct symbol *gl = globals->v[i];
		g->map_of[i] = gl->is_array ? nmaps++ : -1;
		g->stats_of[i] = !gl->is_array && gl->type == T_STATS ? nstats++ : -1;
	}
}

static int map_index(struct cg *g, const struct symbol *sym)
{
	return g->map_of[sym->index];
}

static int stats_index(struct cg *g, const struct symbol *sym)
{
	return g->stats_of[sym->index];
}

static const char *agg_name(enum agg a)
{
	switch (a) {
	case AGG_SUM:
		return "RT_AGG_SUM";
	case AGG_MIN:
		return "RT_AGG_MIN";
	case AGG_MAX:
		return "RT_AGG_MAX";
	case AGG_AVG:
		return "RT_AGG_AVG";
	case AGG_VARIANCE:
		return "RT_AGG_VARIANCE";
	default:
		return "RT_AGG_COUNT";
	}
}

/*
 * Evaluate keys into the pool; returns the C array. A '*' key sets its bit
 * in *star. With protect, every value is kept in a temporary: code
 * evaluated after the keys could change what they read.
 */
static char *cg_keys(struct cg *g, struct node *keys, int *star, bool protect)
{
	int n = ast_list_len(keys), base = g->nkeys, i = 0;
	g->nkeys += n;
	if (g->nkeys > g->maxnkeys)
		g->maxnkeys = g->nkeys;
	*star = 0;
	for (struct node *k = keys; k; k = k->next, i++) {
		if (k->kind == N_STAR) {
			*star |= 1 << i;
			continue;
		}
		bool later = protect;
		for (struct node *m = k->next; m && !later; m = m->next)
			later = has_side_effects(m);
		char *v = cg_expr(g, k);
		if (later)
			v = snapshot(g, v, k->type);
		emit(g, "l->keys[%d].%c = %s;", base + i, k->type == T_STRING ? 's' : 'n', v);
		free(v);
	}
	return xasprintf("(l->keys + %d)", base);
}

char *cg_element(struct cg *g, struct node *n)
{
	int star;
	char *keys = cg_keys(g, n->list, &star, false);
	char *res;
	if (n->type == T_STRING) {
		res = new_string_temp(g);
		emit(g, "rt_map_get_str(c, rt_maps[%d], %s, %s, %lld);", map_index(g, n->sym), keys,
		     res, g->maxstr);
	} else {
		res = new_long_temp(g);
		emit(g, "%s = rt_map_get_long(c, rt_maps[%d], %s);", res, map_index(g, n->sym), keys);
	}
	free(keys);
	return res;
}

char *cg_in(struct cg *g, struct node *n)
{
	int star;
	char *keys = cg_keys(g, n->list, &star, false);
	char *res = new_long_temp(g);
	emit(g, "%s = rt_map_exists(c, rt_maps[%d], %s, %d);", res, map_index(g, n->sym), keys,
	     star);
	free(keys);
	return res;
}

char *cg_stat(struct cg *g, struct node *n)
{
	struct node *operand = n->lhs;
	char *res = new_long_temp(g);
	char *loc = loc_literal(n);
	if (operand->kind == N_INDEX) {
		int star;
		char *keys = cg_keys(g, operand->list, &star, false);
		emit(g, "%s = rt_map_stat(c, rt_maps[%d], %s, %s, %s);", res,
		     map_index(g, operand->sym), keys, agg_name(n->agg), loc);
		free(keys);
	} else {
		emit(g, "%s = rt_stats_get(c, rt_stats[%d], %s, %s);", res,
		     stats_index(g, operand->sym), agg_name(n->agg), loc);
	}
	free(loc);
	/* Only @count means something for an empty statistic. */
	if (n->agg != AGG_COUNT)
		fail_check(g);
	return res;
}

char *cg_hist_src(struct cg *g, struct node *hist)
{
	struct node *operand = hist->lhs;
	if (operand->kind == N_INDEX) {
		int star;
		char *keys = cg_keys(g, operand->list, &star, false);
		char *src = xasprintf("&(struct rt_hist_src){ 0, rt_maps[%d], %s }",
				      map_index(g, operand->sym), keys);
		free(keys);
		return src;
	}
	return xasprintf("&(struct rt_hist_src){ rt_stats[%d], 0, 0 }",
			 stats_index(g, operand->sym));
}

char *cg_bucket(struct cg *g, struct node *n)
{
	char *bucket = cg_expr(g, n->list);
	bucket = snapshot(g, bucket, T_LONG);
	char *src = cg_hist_src(g, n->lhs);
	char *res = new_long_temp(g);
	char *loc = loc_literal(n);
	emit(g, "%s = rt_hist_bucket(c, %s, %s, %s);", res, src, bucket, loc);
	fail_check(g);
	free(loc);
	free(src);
	free(bucket);
	return res;
}

/* A pointer to an element's value, made if absent; a full array fails. */
static char *element_ref(struct cg *g, struct node *lhs, const char *keys, bool str)
{
	int id = g->ntemps++;
	char *loc = loc_literal(lhs);
	emit(g, "%s *p%d = rt_map_ref_%s(c, rt_maps[%d], %s, %s);", str ? "char" : "rt_long", id,
	     str ? "str" : "long", map_index(g, lhs->sym), keys, loc);
	emit(g, "if (rt_unlikely(!p%d))", id);
	emit(g, "\t%s", g->fail_leave);
	free(loc);
	return xasprintf("p%d", id);
}

char *cg_element_assign(struct cg *g, struct node *n)
{
	struct node *lhs = n->lhs;
	int star, m = map_index(g, lhs->sym);
	char *keys = cg_keys(g, lhs->list, &star, has_side_effects(n->rhs));
	char *v = cg_expr(g, n->rhs);
	char *loc = loc_literal(lhs);
	char *res = NULL;
	if (n->op == OP_AGG) {
		emit(g, "rt_map_add(c, rt_maps[%d], %s, %s, %s);", m, keys, v, loc);
		fail_check(g);
		res = xstrdup("0");
	} else if (n->op == OP_ASSIGN) {
		enum type t = lhs->type == T_STRING ? T_STRING : T_LONG;
		v = snapshot(g, v, t);
		emit(g, "rt_map_set_%s(c, rt_maps[%d], %s, %s, %s);", t == T_STRING ? "str" : "long",
		     m, keys, v, loc);
		fail_check(g);
		res = v;
		v = NULL;
	} else if (n->op == OP_CONCAT) {
		char *p = element_ref(g, lhs, keys, true);
		emit(g, "rt_strcat(%s, %s, %lld);", p, v, g->maxstr);
		res = new_string_temp(g);
		emit(g, "rt_strcpy(%s, %s, %lld);", res, p, g->maxstr);
		free(p);
	} else {
		v = snapshot(g, v, T_LONG);
		char *p = element_ref(g, lhs, keys, false);
		char *old = xasprintf("(*%s)", p);
		char *e = long_op(g, n, n->op, old, v);
		v = NULL;
		res = new_long_temp(g);
		emit(g, "%s = *%s = %s;", res, p, e);
		free(e);
		free(p);
	}
	free(v);
	free(loc);
	free(keys);
	return res;
}

char *cg_stats_add(struct cg *g, struct node *n)
{
	char *v = cg_expr(g, n->rhs);
	emit(g, "rt_stats_add(c, rt_stats[%d], %s);", stats_index(g, n->lhs->sym), v);
	free(v);
	return xstrdup("0");
}

char *cg_element_incdec(struct cg *g, struct node *n)
{
	int star;
	char *keys = cg_keys(g, n->lhs->list, &star, false);
	char *p = element_ref(g, n->lhs, keys, false);
	const char *fn = n->op == OP_INC ? "rt_add" : "rt_sub";
	char *res = new_long_temp(g);
	if (n->postfix) {
		emit(g, "%s = *%s;", res, p);
		emit(g, "*%s = %s(%s, 1);", p, fn, res);
	} else {
		emit(g, "%s = *%s = %s(*%s, 1);", res, p, fn, p);
	}
	free(p);
	free(keys);
	return res;
}

void cg_delete(struct cg *g, struct node *n)
{
	struct node *t = n->lhs;
	struct symbol *sym = t->sym;
	if (t->kind == N_INDEX) {
		int star;
		char *keys = cg_keys(g, t->list, &star, false);
		emit(g, "rt_map_delete(c, rt_maps[%d], %s, %d);", map_index(g, sym), keys, star);
		free(keys);
		return;
	}
	if (sym->kind == SYM_GLOBAL && sym->is_array) {
		emit(g, "rt_map_clear(c, rt_maps[%d]);", map_index(g, sym));
	} else if (sym->type == T_STATS) {
		emit(g, "rt_stats_clear(c, rt_stats[%d]);", stats_index(g, sym));
	} else {
		char *var = cg_expr(g, t);
		emit(g, sym->type == T_STRING ? "%s[0] = 0;" : "%s = 0;", var);
		free(var);
	}
}

/* foreach (b in @hist_log(s)): every bucket number. */
static void cg_foreach_hist(struct cg *g, struct node *n)
{
	char *src = cg_hist_src(g, n->lhs);
	char *count = new_long_temp(g);
	emit(g, "%s = rt_hist_buckets(c, %s);", count, src);
	fail_check(g);
	free(src);
	if (!loop_push(g, n, false))
		return;
	char *i = new_long_temp(g);
	emit(g, "for (%s = 0; %s < %s; %s++) {", i, i, count, i);
	g->indent++;
	spend_actions(g, 1, n);
	if (n->list->sym) {
		char *var = cg_expr(g, n->list);
		emit(g, "%s = %s;", var, i);
		free(var);
	}
	cg_loop_body(g, n->body);
	g->indent--;
	emit(g, "}");
	g->nloops--;
	free(i);
	free(count);
}

/* The keys of a slice, in fields of the foreach's own. */
static char *slice_keys(struct cg *g, struct node *slice, int id, int *star)
{
	int n = ast_list_len(slice), i = 0;
	sb_printf(&g->fields, "\tstruct rt_key sl%d[%d];\n", id, n);
	*star = 0;
	for (struct node *k = slice; k; k = k->next, i++) {
		if (k->kind == N_STAR) {
			*star |= 1 << i;
			continue;
		}
		char *v = cg_expr(g, k);
		if (k->type == T_STRING) {
			sb_printf(&g->fields, "\tchar sl%d_%d[%lld];\n", id, i, g->maxstr);
			emit(g, "rt_strcpy(l->sl%d_%d, %s, %lld);", id, i, v, g->maxstr);
			emit(g, "l->sl%d[%d].s = l->sl%d_%d;", id, i, id, i);
		} else {
			emit(g, "l->sl%d[%d].n = %s;", id, i, v);
		}
		free(v);
	}
	return xasprintf("l->sl%d", id);
}

void cg_foreach(struct cg *g, struct node *n)
{
	if (n->lhs->kind == N_HIST) {
		cg_foreach_hist(g, n);
		return;
	}
	struct node *src = n->lhs;
	int id = g->ntemps++, sort_by = -1, dir = n->sort, i = 0, star = 0;
	if (!dir)
		for (struct node *k = n->list; k; k = k->next, i++)
			if (k->sort) {
				sort_by = i;
				dir = k->sort;
			}
	char *limit = NULL;
	if (n->step)
		limit = snapshot(g, cg_expr(g, n->step), T_LONG);
	char *slice = src->kind == N_INDEX ? slice_keys(g, src->list, id, &star) : xstrdup("0");
	sb_printf(&g->fields, "\tstruct rt_iter it%d;\n", id);
	char *loc = loc_literal(n);
	emit(g, "rt_iter_begin(c, &l->it%d, rt_maps[%d], %d, %d, %s, %s, %d, %s, %s);", id,
	     map_index(g, src->sym), sort_by, dir, agg_name(n->agg), slice, star,
	     limit ? limit : "-1", loc);
	fail_check(g);
	free(loc);
	free(slice);
	free(limit);
	if (!loop_push(g, n, false))
		return;
	emit(g, "while (rt_iter_next(c, &l->it%d)) {", id);
	g->indent++;
	spend_actions(g, 1, n);
	i = 0;
	for (struct node *k = n->list; k; k = k->next, i++) {
		if (!k->sym)
			continue;
		char *var = cg_expr(g, k);
		if (k->sym->type == T_STRING)
			emit(g, "rt_strcpy(%s, rt_iter_key_str(&l->it%d, %d), %lld);", var, id, i,
			     g->maxstr);
		else
			emit(g, "%s = rt_iter_key_long(&l->it%d, %d);", var, id, i);
		free(var);
	}
	if (n->then && n->then->sym) {
		char *var = cg_expr(g, n->then);
		if (n->then->sym->type == T_STRING)
			emit(g, "rt_strcpy(%s, rt_iter_value_str(&l->it%d), %lld);", var, id, g->maxstr);
		else
			emit(g, "%s = rt_iter_value_long(&l->it%d);", var, id);
		free(var);
	}
	cg_loop_body(g, n->body);
	g->indent--;
	emit(g, "}");
	g->nloops--;
	emit(g, "rt_iter_end(c, &l->it%d);", id);
}

/* --- the descriptions --- */

static const char *kind_of(enum type t)
{
	return t == T_STRING ? "RT_STRING" : t == T_STATS ? "RT_STATS" : "RT_LONG";
}

static void stat_desc(struct strbuf *file, const struct symbol *gl)
{
	const char *hist = "0";
	if (gl->aggs & (1u << AGG_HIST_LINEAR))
		hist = "RT_HIST_LINEAR";
	else if (gl->aggs & (1u << AGG_HIST_LOG))
		hist = "RT_HIST_LOG";
	sb_printf(file, "{ \"%s\", %s, %s, %lldLL, %lldLL, %lldLL, %d }", gl->name,
		  gl->aggs & (1u << AGG_VARIANCE) ? "RT_STAT_VARIANCE" : "0", hist, gl->hist[0],
		  gl->hist[1], gl->hist[2], gl->index);
}

static long long capacity_of(struct cg *g, const struct symbol *gl)
{
	return gl->decl->num > 0 ? gl->decl->num : g->s->limits[LIMIT_MAXMAPENTRIES];
}

struct slots_ctx {
	struct cg *g;
	long long total;
};

static void count_slots(struct node *n, void *ctx)
{
	struct slots_ctx *sc = ctx;
	if (foreach_sorted(n) && n->lhs->sym)
		sc->total += capacity_of(sc->g, n->lhs->sym);
	ast_for_children(n, count_slots, ctx);
}

void cg_data_tables(struct cg *g, struct strbuf *file, int *nmaps, int *nstats,
		    long long *iter_slots)
{
	const struct program *prog = &g->s->prog;
	*nmaps = *nstats = 0;
	for (size_t i = 0; i < prog->globals.n; i++) {
		const struct symbol *gl = prog->globals.v[i];
		if (g->map_of[i] < 0)
			continue;
		if (!*nmaps)
			sb_puts(file, "static const struct rt_map_desc rt_map_descs[] = {\n");
		(*nmaps)++;
		sb_printf(file, "\t{ .name = \"%s\", .nkeys = %d, .key_kinds = {", gl->name,
			  gl->nkeys);
		for (int k = 0; k < gl->nkeys; k++)
			sb_printf(file, "%s%s", k ? ", " : " ", kind_of(gl->key_types[k]));
		sb_printf(file, " },\n\t  .value_kind = %s, .capacity = %lld, .declared = %d, "
				".wrap = %d,\n\t  .stat = ",
			  kind_of(gl->type), capacity_of(g, gl), gl->decl->num > 0, gl->decl->wrap);
		stat_desc(file, gl);
		sb_puts(file, " },\n");
	}
	if (*nmaps)
		sb_puts(file, "};\n\n");
	for (size_t i = 0; i < prog->globals.n; i++) {
		if (g->stats_of[i] < 0)
			continue;
		if (!*nstats)
			sb_puts(file, "static const struct rt_stat_desc rt_stat_descs[] = {\n");
		(*nstats)++;
		sb_puts(file, "\t");
		stat_desc(file, prog->globals.v[i]);
		sb_puts(file, ",\n");
	}
	if (*nstats)
		sb_puts(file, "};\n\n");
	/* Room for every sorted foreach open at once (recursion past this fails
	 * cleanly at run time). */
	struct slots_ctx sc = { g, 0 };
	for (size_t i = 0; i < prog->handlers.n; i++)
		count_slots(((struct handler *)prog->handlers.v[i])->body, &sc);
	for (size_t i = 0; i < prog->functions.n; i++)
		count_slots(((struct symbol *)prog->functions.v[i])->decl->body, &sc);
	*iter_slots = sc.total;
}
