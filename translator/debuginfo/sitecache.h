/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Probe sites saved to a file and read back (stap --probe-cache), a third
 * filler of the target model beside DWARF and BTF: a later translation for
 * the same object needs none of the debug information that resolved them.
 *
 * A file holds one query's sites, their variables and locations, and the
 * part of their type graph the saving translation used: a type it never
 * looked into is saved by name only and comes back empty. The caller keys
 * each file so that the same query, asked by a script that reads the same
 * target expressions, finds it (sema/probecache.c).
 *
 * Each file names the build-id it was resolved against and the key it was
 * saved under; a file that says otherwise, or that does not parse, is never
 * used. Nothing here includes libdw or libbpf.
 */
#ifndef TAPLINE_SITECACHE_H
#define TAPLINE_SITECACHE_H

#include <stdbool.h>

#include "debuginfo/target.h"
#include "util.h"

/* Write sites (struct probe_site *) to path, atomically; false with *why. */
bool sitecache_write(const char *path, const char *build_id, const char *key,
		     const struct ptrvec *sites, char **why);
/* Append the sites saved in path under exactly this build-id and key; false
 * (nothing appended) with *why when it is absent, for another id or key,
 * or damaged. */
bool sitecache_read(const char *path, const char *build_id, const char *key, struct ptrvec *sites,
		    char **why);
/* Free every site and type read so far (for tests: nothing may use them after). */
void sitecache_free_all(void);
/* The first type a translation looked into that its cached sites had saved
 * by name only (NULL: none): the caller's key failed to cover it. */
const char *sitecache_first_gap(void);

#endif
