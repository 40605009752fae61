/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The kernel's source lines, for a module whose script names them
 * (symfileline(), symfile(), symline(), print_backtrace_fileline()):
 * the translator writes the kernel's line table into the module's section
 * LT_SECTION, which is not allocated, so the kernel never keeps it; staprun
 * reads it from the module file and turns the runtime's address tokens
 * (contract/ustack-records.h, RT_K_*) into "file:line". The kernel has
 * no line tables at run time, and staprun on the traced machine may have
 * no debuginfo (a guest, a module built elsewhere).
 *
 * Layout, little-endian: LT_MAGIC (8 bytes), u32 nfiles, u32 zero,
 * u64 nrows, u64 names_len; names_len bytes of file names, each ending in
 * a NUL; then nrows rows, each uvarint(address step << 1 | new file), then
 * uvarint(file) when the file changes (0: no source here, else its index
 * + 1), then svarint(line step). Addresses are offsets from _text, in
 * order; a row holds from its address up to the next row's.
 */
#ifndef TAPLINE_LINETABLE_H
#define TAPLINE_LINETABLE_H

#include <stddef.h>
#include <stdint.h>

#define LT_SECTION ".tapline_lines"
#define LT_MAGIC "TLLINES1"
#define LT_HEADER 32

/* Where a lookup starts decoding: every LT_STRIDE rows. */
#define LT_STRIDE 256

struct lt_mark {
	uint64_t addr;
	size_t at;      /* the row's first byte */
	uint32_t file;  /* as in the table: 0 none, else index + 1 */
	int64_t line;
};

struct lt_table {
	unsigned char *bytes;   /* a copy of the section */
	size_t len;
	const char **files;
	uint32_t nfiles;
	struct lt_mark *marks;
	size_t nmarks;
	uint64_t nrows;
};

/* Reads the table's len bytes at p (copied) and checks every row; 0, or
 * -1 with a reason in err. */
int lt_open(struct lt_table *t, const unsigned char *p, size_t len, char *err, size_t errlen);
/* The source file and line of the code at offset off from _text: 0, or
 * -1 when the table names none there. */
int lt_lookup(const struct lt_table *t, uint64_t off, const char **file, int *line);
void lt_close(struct lt_table *t);

/* The varints: 7 bits a byte, low first; svarint zigzag-coded. Both
 * return the bytes used, 0 when the value runs past end or is too long. */
size_t lt_get_uvarint(const unsigned char *p, const unsigned char *end, uint64_t *v);
size_t lt_get_svarint(const unsigned char *p, const unsigned char *end, int64_t *v);

#endif
