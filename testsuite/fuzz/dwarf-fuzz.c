// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target for the debug-information readers: each input is a
 * module's debug file (seeded with the test modules, then mutated). It is
 * found as a loose file, opened through libdwfl, and every function, every
 * variable's location and every type a script could reach is read, as
 * `stap -L 'module("m").function("*")'` and $var->member would. Nothing
 * may crash or trip a sanitizer; errors are fine.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "debuginfo/dw.h"
#include "walk-type.h"

static char *dir, *file;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!dir) {
		dir = make_temp_dir("tapline-dwarf-fuzz");
		file = path_join(dir, "fuzzmod.ko");
		setenv("TAPLINE_NO_SYSTEM_DEBUGINFO", "1", 1);
	}
	if (!write_file(file, data, size))
		return 0;
	struct ptrvec dirs = { 0 };
	pv_push(&dirs, dir);
	struct debug_index *ix = debugfind_index("fuzz", &dirs, NULL, false);
	struct dw *d = dw_begin(ix, NULL, false);
	struct dw_query q = { .function = "*" };
	struct ptrvec sites = { 0 };
	size_t left_out = 0;
	char *why = NULL;
	dw_functions(d, "fuzzmod", NULL, &q, &sites, &left_out, &why);
	for (size_t i = 0; i < sites.n; i++) {
		struct probe_site *s = sites.v[i];
		site_load_vars(s);
		for (size_t k = 0; k < s->nvars; k++)
			walk_type(s->vars[k].type, 0);
		walk_type(s->return_type, 0);
	}
	q = (struct dw_query){ .function = "*", .file = "*", .line = 40 };
	dw_statements(d, "fuzzmod", NULL, &q, &sites, &left_out, &why);
	free(why);
	pv_free(&sites);
	pv_free(&dirs);
	dw_end(d);
	return 0;
}
