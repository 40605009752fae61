// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The tapset library. Its *.stpm files (public macros) are always read; a
 * *.stp file is parsed only when the script, or a tapset file already
 * pulled in, refers to something it defines: a function, a global, or a
 * probe alias a probe point names. So a script pays for the tapsets it
 * uses, not for the whole library, and a broken file nobody uses is never
 * read.
 *
 * What each file defines comes from an index: a scan of its raw tokens
 * (no preprocessing, so definitions in every %( %? %: %) branch count;
 * a file is then parsed for real, with its conditions decided). The index
 * is cached under ~/.cache/tapline/tapsets/, keyed by the files' paths,
 * sizes and modification times, so it is rebuilt whenever a tapset
 * changes.
 */
#include <dirent.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "front/diag.h"
#include "front/front.h"
#include "front/parser.h"
#include "front/source.h"
#include "private.h"

/* What one tapset file defines (private names excluded: no other file sees them). */
struct tapset_file {
	char *path;
	struct ptrvec functions, globals, aliases; /* char *; aliases as "a.b.c" */
	bool parsed;
};

struct tapset_lib {
	struct ptrvec files; /* struct tapset_file * */
};

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void collect(const char *dir, const char *suffix, struct ptrvec *paths)
{
	DIR *d = opendir(dir);
	if (!d)
		return;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		char *path = path_join(dir, e->d_name);
		size_t n = strlen(e->d_name);
		size_t k = strlen(suffix);
		if (is_dir(path)) {
			collect(path, suffix, paths);
			free(path);
		} else if (n > k && !strcmp(e->d_name + n - k, suffix)) {
			pv_push(paths, path);
		} else {
			free(path);
		}
	}
	closedir(d);
}

/* The files under dir ending in suffix, sorted. */
static struct ptrvec files_in(const char *dir, const char *suffix)
{
	struct ptrvec paths = { 0 };
	collect(dir, suffix, &paths);
	/* qsort's array may not be NULL, even with no element. */
	if (paths.n)
		qsort(paths.v, paths.n, sizeof(void *), cmp_str);
	return paths;
}

struct ptrvec tapset_paths(const struct ptrvec *dirs)
{
	struct ptrvec all = { 0 };
	for (size_t i = 0; i < dirs->n; i++) {
		struct ptrvec some = files_in(dirs->v[i], ".stp");
		for (size_t k = 0; k < some.n; k++)
			pv_push(&all, some.v[k]);
		pv_free(&some);
	}
	return all;
}

/* --- scanning a file for what it defines --- */

struct scan {
	void *scanner;
	struct lex_state ls;
	int kind;          /* the current token */
	STP_STYPE val;
	struct loc loc;
};

static void scan_free_val(struct scan *sc)
{
	lex_value_free(sc->kind, &sc->val);
	memset(&sc->val, 0, sizeof sc->val);
}

static void advance(struct scan *sc)
{
	scan_free_val(sc);
	sc->kind = lex_scan(sc->scanner, &sc->val, &sc->loc);
}

/* A piece of a probe point name, as the grammar's pp_piece accepts it. */
static const char *name_piece(const struct scan *sc)
{
	switch (sc->kind) {
	case IDENT:
		return sc->val.id;
	case FUNCTION:
		return "function";
	case RETURN:
		return "return";
	case NEXT:
		return "next";
	case GLOBAL:
		return "global";
	case DELETE:
		return "delete";
	case IN:
		return "in";
	case '*':
		return "*";
	default:
		return NULL;
	}
}

/* After 'probe': the first point's name ("a.b.c", arguments left out),
 * and whether '=' or '+=' follows (an alias). */
static char *scan_probe_name(struct scan *sc, bool *is_alias)
{
	struct strbuf b;
	sb_init(&b);
	for (;;) {
		const char *piece;
		while ((piece = name_piece(sc))) {
			sb_puts(&b, piece);
			advance(sc);
		}
		if (sc->kind == '(') {
			while (sc->kind && sc->kind != ')')
				advance(sc);
			if (sc->kind)
				advance(sc);
		}
		if (sc->kind != '.')
			break;
		sb_puts(&b, ".");
		advance(sc);
	}
	while (sc->kind == '?' || sc->kind == '!')
		advance(sc);
	*is_alias = sc->kind == '=' || (sc->kind == OP_ASSIGN_TOK && sc->val.op == OP_ADD);
	return sb_detach(&b);
}

/* After 'global': name ['%'] ['[' [N] ']'] ['=' literal] {',' ...}. */
static void scan_globals(struct scan *sc, struct tapset_file *tf, bool private)
{
	while (sc->kind == IDENT) {
		if (!private)
			pv_push(&tf->globals, xstrdup(sc->val.id));
		advance(sc);
		if (sc->kind == '%')
			advance(sc);
		if (sc->kind == '[') {
			while (sc->kind && sc->kind != ']')
				advance(sc);
			if (sc->kind)
				advance(sc);
		}
		if (sc->kind == '=') {
			advance(sc);
			if (sc->kind == '-')
				advance(sc);
			while (sc->kind == NUMBER || sc->kind == STRING || sc->kind == ARG_NUM ||
			       sc->kind == ARG_STR || sc->kind == ARG_COUNT)
				advance(sc);
		}
		if (sc->kind != ',')
			return;
		advance(sc);
	}
}

static struct tapset_file *scan_file(const char *path)
{
	struct tapset_file *tf = xcalloc(1, sizeof *tf);
	tf->path = xstrdup(path);
	size_t len;
	char *text = read_file(path, &len);
	if (!text)
		return tf;
	struct scan sc = { 0 };
	sc.ls = (struct lex_state){ .file = -1, .line = 1, .col = 1 };
	sc.scanner = lex_open(&sc.ls, text, len);
	/* A file's own mistakes are reported when it is parsed, not here. */
	diag_set_quiet(true);
	int depth = 0;
	bool private = false;
	advance(&sc);
	while (sc.kind) {
		if (sc.kind == '{') {
			depth++;
		} else if (sc.kind == '}') {
			depth -= depth > 0;
		} else if (depth == 0 && sc.kind == PRIVATE) {
			private = true;
			advance(&sc);
			if (sc.kind == IDENT)
				scan_globals(&sc, tf, true);
			continue;
		} else if (depth == 0 && sc.kind == FUNCTION) {
			advance(&sc);
			if (sc.kind == IDENT && !private)
				pv_push(&tf->functions, xstrdup(sc.val.id));
			private = false;
			continue;
		} else if (depth == 0 && sc.kind == GLOBAL) {
			advance(&sc);
			scan_globals(&sc, tf, private);
			private = false;
			continue;
		} else if (depth == 0 && sc.kind == PROBE) {
			advance(&sc);
			bool is_alias;
			char *name = scan_probe_name(&sc, &is_alias);
			if (is_alias && *name)
				pv_push(&tf->aliases, name);
			else
				free(name);
			private = false;
			continue;
		}
		advance(&sc);
	}
	scan_free_val(&sc);
	diag_set_quiet(false);
	lex_close(sc.scanner);
	sb_free(&sc.ls.str);
	free(text);
	return tf;
}

/* --- the cached index --- */

static uint64_t library_key(const struct ptrvec *paths)
{
	uint64_t h = hash_bytes(HASH_INIT, TAPLINE_VERSION, strlen(TAPLINE_VERSION));
	for (size_t i = 0; i < paths->n; i++) {
		struct stat st;
		const char *p = paths->v[i];
		h = hash_bytes(h, p, strlen(p) + 1);
		if (stat(p, &st) == 0) {
			long long facts[3] = { (long long)st.st_size, (long long)st.st_mtim.tv_sec,
					       (long long)st.st_mtim.tv_nsec };
			h = hash_bytes(h, facts, sizeof facts);
		}
	}
	return h;
}

/* One line per fact: "F path", then "f name", "g name", "a name" for it. */
static char *index_text(const struct tapset_lib *lib)
{
	struct strbuf b;
	sb_init(&b);
	for (size_t i = 0; i < lib->files.n; i++) {
		const struct tapset_file *tf = lib->files.v[i];
		sb_printf(&b, "F %s\n", tf->path);
		for (size_t k = 0; k < tf->functions.n; k++)
			sb_printf(&b, "f %s\n", (char *)tf->functions.v[k]);
		for (size_t k = 0; k < tf->globals.n; k++)
			sb_printf(&b, "g %s\n", (char *)tf->globals.v[k]);
		for (size_t k = 0; k < tf->aliases.n; k++)
			sb_printf(&b, "a %s\n", (char *)tf->aliases.v[k]);
	}
	return sb_detach(&b);
}

/* Read a cached index made for exactly these paths; false if it is not usable. */
static bool index_read(struct tapset_lib *lib, const char *text, const struct ptrvec *paths)
{
	struct tapset_file *tf = NULL;
	size_t next = 0;
	for (const char *line = text; *line;) {
		const char *nl = strchr(line, '\n');
		if (!nl || nl - line < 2 || line[1] != ' ')
			return false;
		char *val = xstrndup(line + 2, (size_t)(nl - line - 2));
		switch (line[0]) {
		case 'F':
			if (next >= paths->n || strcmp(val, paths->v[next]) != 0) {
				free(val);
				return false;
			}
			next++;
			tf = xcalloc(1, sizeof *tf);
			tf->path = val;
			pv_push(&lib->files, tf);
			break;
		case 'f':
		case 'g':
		case 'a':
			if (!tf) {
				free(val);
				return false;
			}
			pv_push(line[0] == 'f' ? &tf->functions : line[0] == 'g' ? &tf->globals
										: &tf->aliases,
				val);
			break;
		default:
			free(val);
			return false;
		}
		line = nl + 1;
	}
	return next == paths->n;
}

static void free_files(struct tapset_lib *lib)
{
	for (size_t i = 0; i < lib->files.n; i++) {
		struct tapset_file *tf = lib->files.v[i];
		pv_free_all(&tf->functions);
		pv_free_all(&tf->globals);
		pv_free_all(&tf->aliases);
		free(tf->path);
		free(tf);
	}
	pv_free(&lib->files);
}

struct tapset_lib *tapset_open(const struct ptrvec *dirs, struct pp_env *env)
{
	struct tapset_lib *lib = xcalloc(1, sizeof *lib);
	struct ptrvec paths = { 0 };
	for (size_t d = 0; d < dirs->n; d++) {
		const char *dir = dirs->v[d];
		/* Public macros first: every file may use them. */
		struct ptrvec macros = files_in(dir, ".stpm");
		for (size_t i = 0; i < macros.n; i++) {
			int file = src_load(macros.v[i], true);
			if (file < 0)
				fatal("cannot read tapset %s", (char *)macros.v[i]);
			parse_macro_file(file, env);
		}
		pv_free_all(&macros);
		struct ptrvec stp = files_in(dir, ".stp");
		for (size_t i = 0; i < stp.n; i++)
			pv_push(&paths, stp.v[i]);
		pv_free(&stp);
	}
	char *cache = cache_dir("tapsets");
	char *name = xasprintf("index-%016llx", (unsigned long long)library_key(&paths));
	char *index_path = path_join(cache, name);
	char *text = read_file(index_path, NULL);
	if (!text || !index_read(lib, text, &paths)) {
		free_files(lib);
		for (size_t i = 0; i < paths.n; i++)
			pv_push(&lib->files, scan_file(paths.v[i]));
		/* Written whole, then renamed: a concurrent stap never reads half of it. */
		char *out = index_text(lib);
		char *tmp = xasprintf("%s.%d", index_path, (int)getpid());
		if (write_file(tmp, out, strlen(out)))
			rename(tmp, index_path);
		unlink(tmp);
		free(tmp);
		free(out);
	}
	free(text);
	free(index_path);
	free(name);
	free(cache);
	pv_free_all(&paths);
	return lib;
}

/* --- pulling in the files a script needs --- */

struct wanted {
	struct ptrvec names;  /* functions and variables referred to (const char *) */
	struct ptrvec points; /* probe points named (struct node *, N_PROBE_POINT) */
	/* wanted_sort: the points whose first part is a plain name, sorted by
	 * it, and the others (a pattern there) */
	struct ptrvec plain, patterned;
};

static void want_node(struct node *n, void *ctx)
{
	struct wanted *w = ctx;
	switch (n->kind) {
	case N_VAR:
	case N_CALL:
	case N_INDEX:
	case N_IN:
		if (n->name)
			pv_push(&w->names, (void *)n->name);
		break;
	case N_PROBE_POINT:
		pv_push(&w->points, n);
		break;
	default:
		break;
	}
	ast_for_children(n, want_node, ctx);
}

static bool is_pattern(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] == '*' || s[i] == '?' || s[i] == '[')
			return true;
	return false;
}

/* Could point pp name alias "a.b.c" (or "a.b.c" with suffixes after it)? */
static bool may_name_alias(const struct node *pp, const char *alias)
{
	const struct node *c = pp->list;
	char *copy = xstrdup(alias), *save = NULL;
	bool ok = true;
	for (char *part = strtok_r(copy, ".", &save); part; part = strtok_r(NULL, ".", &save)) {
		/* "**", whole or inside a component ("sys**pen"), may stand for
		 * the rest of the name. */
		if (c && strstr(c->name, "**"))
			break;
		if (!c || (fnmatch(c->name, part, 0) != 0 && fnmatch(part, c->name, 0) != 0)) {
			ok = false;
			break;
		}
		c = c->next;
	}
	free(copy);
	return ok;
}

static const char *first_part(const struct node *pp)
{
	return pp->list ? pp->list->name : "";
}

static int cmp_first_part(const void *a, const void *b)
{
	return strcmp(first_part(*(struct node *const *)a), first_part(*(struct node *const *)b));
}

/* strcmp(s, the first n characters of part) */
static int cmp_part(const char *s, const char *part, size_t n)
{
	int d = strncmp(s, part, n);
	return d ? d : s[n] != 0;
}

/* Does a point the script names match alias? The points with a plain first
 * part are looked up by the alias's own (a script's thousands of points
 * meet a library's thousands of aliases, most of them differing there). */
static bool is_wanted_alias(const struct wanted *w, const char *alias)
{
	size_t first = strcspn(alias, ".");
	const struct ptrvec *all[] = { &w->plain, &w->patterned };
	if (is_pattern(alias, first)) {
		for (size_t v = 0; v < 2; v++)
			for (size_t i = 0; i < all[v]->n; i++)
				if (may_name_alias(all[v]->v[i], alias))
					return true;
		return false;
	}
	for (size_t i = 0; i < w->patterned.n; i++)
		if (may_name_alias(w->patterned.v[i], alias))
			return true;
	size_t lo = 0, hi = w->plain.n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (cmp_part(first_part(w->plain.v[mid]), alias, first) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i < w->plain.n && !cmp_part(first_part(w->plain.v[i]), alias, first); i++)
		if (may_name_alias(w->plain.v[i], alias))
			return true;
	return false;
}

static bool is_wanted_name(const struct wanted *w, const char *name)
{
	return w->names.n && bsearch(&name, w->names.v, w->names.n, sizeof(void *), cmp_str);
}

/* w->names sorted, each once: a file's definitions are looked up in it. */
static void wanted_sort(struct wanted *w)
{
	for (size_t i = 0; i < w->points.n; i++) {
		const char *f = first_part(w->points.v[i]);
		pv_push(is_pattern(f, strlen(f)) || !*f ? &w->patterned : &w->plain, w->points.v[i]);
	}
	if (w->plain.n)
		qsort(w->plain.v, w->plain.n, sizeof(void *), cmp_first_part);
	if (!w->names.n)
		return;
	qsort(w->names.v, w->names.n, sizeof(void *), cmp_str);
	size_t k = 0;
	for (size_t i = 0; i < w->names.n; i++)
		if (k == 0 || strcmp(w->names.v[k - 1], w->names.v[i]) != 0)
			w->names.v[k++] = w->names.v[i];
	w->names.n = k;
}

static bool file_wanted(const struct tapset_file *tf, const struct wanted *w)
{
	for (size_t i = 0; i < tf->functions.n; i++)
		if (is_wanted_name(w, tf->functions.v[i]))
			return true;
	for (size_t i = 0; i < tf->globals.n; i++)
		if (is_wanted_name(w, tf->globals.v[i]))
			return true;
	for (size_t k = 0; k < tf->aliases.n; k++)
		if (is_wanted_alias(w, tf->aliases.v[k]))
			return true;
	return false;
}

int tapset_load_needed(struct tapset_lib *lib, struct pp_env *env, struct ptrvec *decls,
		       size_t from, int *nfiles)
{
	int errors = 0;
	/* Each round parses the files that what is already parsed refers to. */
	for (;;) {
		struct wanted w = { 0 };
		for (size_t i = from; i < decls->n; i++)
			want_node(decls->v[i], &w);
		wanted_sort(&w);
		from = decls->n;
		bool more = false;
		for (size_t i = 0; i < lib->files.n; i++) {
			struct tapset_file *tf = lib->files.v[i];
			if (tf->parsed || !file_wanted(tf, &w))
				continue;
			tf->parsed = true;
			more = true;
			int file = src_load(tf->path, true);
			if (file < 0)
				fatal("cannot read tapset %s", tf->path);
			errors += parse_file(file, env, decls);
			(*nfiles)++;
		}
		pv_free(&w.names);
		pv_free(&w.points);
		pv_free(&w.plain);
		pv_free(&w.patterned);
		if (!more)
			return errors;
	}
}

void tapset_each_name(const struct tapset_lib *lib, void (*fn)(const char *name, char kind, void *ctx),
		      void *ctx)
{
	for (size_t i = 0; i < lib->files.n; i++) {
		const struct tapset_file *tf = lib->files.v[i];
		for (size_t k = 0; k < tf->functions.n; k++)
			fn(tf->functions.v[k], 'f', ctx);
		for (size_t k = 0; k < tf->globals.n; k++)
			fn(tf->globals.v[k], 'g', ctx);
		for (size_t k = 0; k < tf->aliases.n; k++)
			fn(tf->aliases.v[k], 'a', ctx);
	}
}
