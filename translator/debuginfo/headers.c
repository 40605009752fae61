// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Types from C headers, for @cast(p, "type", "<sys/un.h>"): the headers
 * compiled by the host's C compiler into a small shared library whose
 * DWARF holds every type they declare (used or not), which @cast then
 * reads like any program's. Each set of headers is compiled once and kept
 * in the cache, under a hash of its text and the compiler's identity, and
 * looked up there once per run (a script names it in every @cast).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "debuginfo/headers.h"
#include "private.h"
#include "util.h"

/* "<a.h><b/c.h>" as #include lines; NULL when it is not such a list. */
static char *include_lines(const char *headers)
{
	struct strbuf b;
	sb_init(&b);
	const char *p = headers;
	while (*p == '<') {
		const char *end = strchr(p, '>');
		if (!end || end == p + 1 || memchr(p + 1, '<', (size_t)(end - p - 1)) ||
		    memchr(p, '\n', (size_t)(end - p))) {
			sb_free(&b);
			return NULL;
		}
		sb_printf(&b, "#include %.*s\n", (int)(end - p + 1), p);
		p = end + 1;
	}
	if (*p || !b.len) {
		sb_free(&b);
		return NULL;
	}
	return sb_detach(&b);
}

static char *headers_library_made(const char *headers, char **why);

char *headers_library(const char *headers, char **why)
{
	/* This run's answers, three entries each: the header list, its
	 * library, and why there is none. */
	static struct ptrvec known;
	for (size_t i = 0; i + 2 < known.n; i += 3)
		if (!strcmp(known.v[i], headers)) {
			if (!known.v[i + 1])
				*why = xstrdup(known.v[i + 2]);
			return known.v[i + 1] ? xstrdup(known.v[i + 1]) : NULL;
		}
	char *lib = headers_library_made(headers, why);
	pv_push(&known, xstrdup(headers));
	pv_push(&known, lib ? xstrdup(lib) : NULL);
	pv_push(&known, lib ? NULL : xstrdup(*why));
	return lib;
}

static char *headers_library_made(const char *headers, char **why)
{
	char *text = include_lines(headers);
	if (!text) {
		*why = xasprintf("'%s' is not a list of headers such as <sys/un.h>", headers);
		return NULL;
	}
	char *cc = find_in_path("gcc");
	if (!cc) {
		*why = xasprintf("the types of %s come from compiling it, and gcc is not installed",
				 headers);
		free(text);
		return NULL;
	}
	struct stat st;
	uint64_t h = hash_bytes(0x6865616465727331ULL, text, strlen(text));
	if (stat(cc, &st) == 0) {
		h = hash_bytes(h, &st.st_size, sizeof st.st_size);
		h = hash_bytes(h, &st.st_mtime, sizeof st.st_mtime);
	}
	char *dir = cache_dir("headers");
	char *name = xasprintf("%016llx.so", (unsigned long long)h);
	char *lib = path_join(dir, name);
	free(name);
	free(dir);
	char *problem = access(lib, R_OK) == 0 ? private_entry_problem(lib) : xstrdup("absent");
	if (!problem) {
		free(cc);
		free(text);
		return lib;
	}
	free(problem);
	char *tmp = make_temp_dir("stap-headers");
	char *src = path_join(tmp, "types.c"), *out = path_join(tmp, "types.so");
	char *output = NULL;
	int rc = -1;
	if (write_file(src, text, strlen(text))) {
		/* Every type the headers declare, used or not; no code. */
		const char *argv[] = { cc, "-g", "-fno-eliminate-unused-debug-types", "-shared",
				       "-fPIC", "-w", "-o", out, src, NULL };
		rc = run_command(argv, tmp, &output);
	}
	if (rc != 0) {
		const char *first = output && *output ? output : "it did not run";
		*why = xasprintf("compiling %s failed: %.*s", headers, (int)strcspn(first, "\n"), first);
		free(lib);
		lib = NULL;
	} else if (rename(out, lib) != 0) {
		*why = xasprintf("cannot keep the types of %s in %s: %s", headers, lib, strerror(errno));
		free(lib);
		lib = NULL;
	}
	free(output);
	remove_tree(tmp);
	free(tmp);
	free(src);
	free(out);
	free(cc);
	free(text);
	return lib;
}
