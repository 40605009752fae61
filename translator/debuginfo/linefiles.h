/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The file names of one line-number program's header (.debug_line),
 * read without running the program: naming a function's source file
 * needs only the header, and libdw before 0.191 decodes every row (and
 * sorts them) to answer dwarf_decl_file. Plain bytes in, no libdw.
 */
#ifndef TAPLINE_LINEFILES_H
#define TAPLINE_LINEFILES_H

#include <stddef.h>
#include <stdint.h>

struct line_sections {
	const unsigned char *line, *line_str, *str;
	size_t line_size, line_str_size, str_size;
};

/* By DW_AT_decl_file index; each name is put together when first asked
 * for (a unit lists hundreds, a probe needs one). */
struct line_files {
	size_t n;
	const char **paths, **dirs; /* in the sections' bytes */
	char **names;               /* made by line_files_name */
};

/*
 * The names of the header at offset off in .debug_line, built as libdw
 * builds them: an absolute name as it is, else its directory, '/', the
 * name (directory 0 of a DWARF 2-4 header is comp_dir). False if the
 * header is malformed or uses forms not handled here (callers then ask
 * libdw).
 */
bool line_files_read(const struct line_sections *secs, uint64_t off, const char *comp_dir,
		     struct line_files *out);
/* File i's name, or NULL if there is none (i out of range, or file 0 of a
 * DWARF 2-4 header). Valid until line_files_free. */
const char *line_files_name(struct line_files *f, size_t i);
void line_files_free(struct line_files *f);

#endif
