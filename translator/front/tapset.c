// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The tapset library: every *.stp file under the tapset directories is
 * parsed with the user's script (as SystemTap does), and pass 2 keeps only
 * what the script reaches. Files are read in sorted order so that results
 * and diagnostics do not depend on the directory's order.
 */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "front/diag.h"
#include "front/front.h"
#include "front/source.h"

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

int tapset_load_dir(const char *dir, struct pp_env *env, struct ptrvec *decls)
{
	if (!is_dir(dir))
		return -1;
	/* Public macros first: every file may use them. */
	struct ptrvec macros = files_in(dir, ".stpm");
	for (size_t i = 0; i < macros.n; i++) {
		int file = src_load(macros.v[i], true);
		if (file < 0)
			fatal("cannot read tapset %s", (char *)macros.v[i]);
		parse_macro_file(file, env);
		free(macros.v[i]);
	}
	pv_free(&macros);
	struct ptrvec paths = files_in(dir, ".stp");
	for (size_t i = 0; i < paths.n; i++) {
		int file = src_load(paths.v[i], true);
		if (file < 0)
			fatal("cannot read tapset %s", (char *)paths.v[i]);
		parse_file(file, env, decls);
		free(paths.v[i]);
	}
	int n = (int)paths.n;
	pv_free(&paths);
	return n;
}
