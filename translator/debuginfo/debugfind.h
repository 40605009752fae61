/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Where a module's debug information is: offline debug archives first
 * (one ar archive of complete ELF files, one per module, as
 * eu-make-debug-archive makes it), then loose files. Opening them is
 * dw.c's business; this only finds them, and remembers every place it
 * looked so that "no debuginfo" can say where it looked and what would
 * provide it.
 */
#ifndef TAPLINE_DEBUGFIND_H
#define TAPLINE_DEBUGFIND_H

#include <stdbool.h>
#include "util.h"

struct debug_file {
	char *module;     /* the module's name as the kernel writes it ('_', not '-') */
	char *path;       /* the file, or the archive holding it */
	char *member;     /* the archive member, or NULL for a loose file */
	long long member_off; /* its bytes in the archive */
	size_t member_size;
};

struct debug_index {
	char *release;
	struct debug_file *files; /* the first place that has a module wins */
	size_t n;
	struct debug_file **by_name; /* each module once (its first place), by name */
	size_t nmodules;
	struct ptrvec looked;     /* "PLACE (what happened)" for messages (char *) */
	struct debug_file *installed; /* modules.dep: name and file, sorted by name */
	size_t ninstalled;
	bool installed_read;
};

/*
 * Everything the places hold for kernel release: the archives
 * /lib/modules/R/debug.a, /usr/lib/debug/lib/modules/R/debug.a and
 * archive (if given), then loose NAME.ko and NAME.ko.debug files under
 * dirs (--debuginfo-path), /usr/lib/debug/lib/modules/R. An archive older
 * than modules.dep is stale: reported (warning) and skipped.
 */
struct debug_index *debugfind_index(const char *release, const struct ptrvec *dirs,
				    const char *archive, bool verbose);
const struct debug_file *debugfind(const struct debug_index *ix, const char *module);
/* The next place after f (in the same order) that has f's module, or NULL:
 * where to look when f would not do. */
const struct debug_file *debugfind_next(const struct debug_index *ix, const struct debug_file *f);
/* A module name as the kernel writes it, from a file or member name. */
char *debugfind_module_name(const char *file);
/* The installed module's file (from modules.dep), or NULL. */
const char *debugfind_installed(struct debug_index *ix, const char *module);
/* Each installed module's name and file, as installed (maybe compressed). */
void debugfind_installed_each(struct debug_index *ix,
			       void (*fn)(const char *module, const char *path, void *ctx), void *ctx);
/* The names of the installed modules pattern matches (fnmatch), sorted. */
void debugfind_installed_matching(struct debug_index *ix, const char *pattern,
				  struct ptrvec *names);
/* An ELF file's GNU build-id in lowercase hex, or NULL. */
char *debugfind_build_id(const char *path);
bool debugfind_has_dwarf(const char *path);
/* The debug file with this build-id from the debuginfod servers in
 * DEBUGINFOD_URLS (a path in its cache, malloced), or NULL; what names the
 * module for the progress line. Adds what happened to ix->looked. */
char *debugfind_debuginfod(struct debug_index *ix, const char *build_id, const char *what);

#endif
