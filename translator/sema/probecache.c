// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * stap --probe-cache: the sites a DWARF query resolved, saved per object
 * build-id (one directory each, as ~/.debug/.build-id/ has), so that the
 * same query later needs no debug information. The file format is
 * debuginfo/sitecache.c's; this says what an entry is keyed by and when it
 * may be saved.
 *
 * An entry is keyed by the query (object, kind, function, file, line) and
 * by the text of every target expression its handler reads: the types a
 * translation looks into are exactly those its expressions reach, so a
 * script that reads the same expressions finds every type it needs, and
 * one that reads others makes an entry of its own. An entry is saved only
 * once the translation has used it (after codegen, which looks into types
 * to pretty-print), and only when the sites alone answer its expressions:
 * not for @var or a $name that is a global of the function's unit, which
 * need the debug information again.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "debuginfo/dw.h"
#include "debuginfo/sitecache.h"
#include "private.h"
#include "sema/probes.h"
#include "sema/sema.h"

struct cache_entry {
	char *build_id;
	char *key;
	char *what;            /* the query, for -v */
	struct ptrvec sites;   /* of this object, as the query gave them */
	struct ptrvec names;   /* the $names the handler reads (char *) */
	bool has_atvar;
	bool with_vars;
};

struct targets_seen {
	struct ptrvec texts, names;
	bool has_atvar;
};

static void collect_targets(struct node *n, void *ctx)
{
	struct targets_seen *t = ctx;
	if (!n)
		return;
	if (n->kind == N_TARGET || n->kind == N_CAST || n->kind == N_ATVAR)
		pv_push(&t->texts, ast_expr_text(n));
	if (n->kind == N_TARGET && n->name[0] != '$' && strcmp(n->name, "return"))
		pv_push(&t->names, xstrdup(n->name));
	if (n->kind == N_ATVAR)
		t->has_atvar = true;
	ast_for_children(n, collect_targets, ctx);
}

static int str_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The directory of one build-id's entries is checked to be ours alone (and
 * made, with create) before anything in it is read or written. */
static void check_id_dir(const struct session *s, const char *build_id, bool create)
{
	char *dir = path_join(s->probe_cache, build_id);
	private_dir(dir, create, "the probe cache", "choose a directory of your own");
	free(dir);
}

static char *cache_path(const struct session *s, const char *build_id, const char *key)
{
	char *dir = path_join(s->probe_cache, build_id);
	char *path = xasprintf("%s/%016llx.sites", dir,
			       (unsigned long long)hash_bytes(0xcbf29ce484222325ULL, key, strlen(key)));
	free(dir);
	return path;
}

bool probe_cache_query(struct session *s, struct handler *h, const char *object,
		       const char *build_id, const char *query, const struct dw_query *q,
		       struct probe_cache_ref *ref, struct ptrvec *sites)
{
	*ref = (struct probe_cache_ref){ 0 };
	if (!s->probe_cache || !build_id || strspn(build_id, "0123456789abcdef") != strlen(build_id))
		return false;
	struct targets_seen t = { 0 };
	collect_targets(h->body, &t);
	qsort(t.texts.v, t.texts.n, sizeof *t.texts.v, str_cmp);
	bool with_vars = t.texts.n || s->list == 2;
	struct strbuf k;
	sb_init(&k);
	sb_printf(&k, "tapline %s\nobject %s\nquery %s\nfunction %s\nfile %s\nline %d\n",
		  TAPLINE_VERSION, object, query, q->function, q->file ? q->file : "", q->line);
	if (q->line_last)
		sb_printf(&k, "last line %d\n", q->line_last);
	sb_printf(&k, "vars %d\n", with_vars);
	for (size_t i = 0; i < t.texts.n; i++)
		if (!i || strcmp(t.texts.v[i], t.texts.v[i - 1]))
			sb_printf(&k, "reads %s\n", (char *)t.texts.v[i]);
	pv_free_all(&t.texts);
	ref->key = sb_detach(&k);
	ref->build_id = xstrdup(build_id);
	ref->names = t.names;
	ref->has_atvar = t.has_atvar;
	ref->with_vars = with_vars;
	ref->what = xasprintf("%s %s(\"%s%s%s\") of %s", query, object, q->function,
			      q->file ? "@" : "", q->file ? q->file : "", build_id);

	check_id_dir(s, build_id, false);
	char *path = cache_path(s, build_id, ref->key);
	char *why = NULL;
	size_t before = sites->n;
	bool hit = sitecache_read(path, build_id, ref->key, sites, &why);
	if (hit && s->verbose)
		fprintf(stderr, "stap: probe cache hit: %zu sites of %s from %s\n", sites->n - before,
			ref->what, path);
	else if (s->verbose > 1)
		fprintf(stderr, "stap: probe cache miss: %s\n", why);
	free(why);
	free(path);
	return hit;
}

void probe_cache_remember(struct session *s, struct probe_cache_ref *ref, const struct ptrvec *sites,
			  size_t from)
{
	if (!ref->key)
		return;
	struct cache_entry *e = xcalloc(1, sizeof *e);
	e->build_id = ref->build_id;
	e->key = ref->key;
	e->what = ref->what;
	e->names = ref->names;
	e->has_atvar = ref->has_atvar;
	e->with_vars = ref->with_vars;
	for (size_t i = from; i < sites->n; i++)
		pv_push(&e->sites, sites->v[i]);
	*ref = (struct probe_cache_ref){ 0 };
	pv_push(&s->probe_cache_pending, e);
}

void probe_cache_forget(struct probe_cache_ref *ref)
{
	free(ref->build_id);
	free(ref->key);
	free(ref->what);
	pv_free_all(&ref->names);
	*ref = (struct probe_cache_ref){ 0 };
}

/* Why entry e cannot be saved, or NULL. */
static const char *unsaveable(struct cache_entry *e)
{
	if (e->has_atvar)
		return "@var reads globals through the debug information";
	for (size_t i = 0; i < e->sites.n; i++) {
		struct probe_site *site = e->sites.v[i];
		if (!site->build_id || strcmp(site->build_id, e->build_id))
			return "its debug information is for another build-id";
		if (!e->with_vars)
			continue;
		site_load_vars(site);
		for (size_t k = 0; k < e->names.n; k++)
			if (!site_var(site, e->names.v[k]))
				return "a $name is a global, read through the debug information";
	}
	return NULL;
}

int probe_cache_save(struct session *s)
{
	const char *gap = sitecache_first_gap();
	if (gap) {
		fprintf(stderr,
			"stap: the probe cache had not saved what the script needs of '%s'; "
			"translate it without --probe-cache\n",
			gap);
		return 1;
	}
	for (size_t i = 0; i < s->probe_cache_pending.n; i++) {
		struct cache_entry *e = s->probe_cache_pending.v[i];
		const char *not = unsaveable(e);
		char *why = NULL;
		if (!not) {
			check_id_dir(s, e->build_id, true);
			char *path = cache_path(s, e->build_id, e->key);
			if (sitecache_write(path, e->build_id, e->key, &e->sites, &why) && s->verbose)
				fprintf(stderr, "stap: probe cache: saved %zu sites of %s in %s\n",
					e->sites.n, e->what, path);
			free(path);
		}
		if ((not || why) && s->verbose)
			fprintf(stderr, "stap: probe cache: %s not saved: %s\n", e->what, not ? not : why);
		free(why);
	}
	return 0;
}
