// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for the .debug_line header reader (translator/debuginfo/
 * linefiles.c): DWARF 4 and DWARF 5 headers built here byte by byte give
 * the file names libdw would, and every truncation and every one-byte
 * corruption of them is refused or read within bounds (run it under the
 * sanitizers to see the second: ./configure --enable-sanitizers).
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "debuginfo/linefiles.h"
#include "tap.h"

struct buf {
	unsigned char b[512];
	size_t n;
};

static void put(struct buf *b, const void *p, size_t n)
{
	memcpy(b->b + b->n, p, n);
	b->n += n;
}
static void u8(struct buf *b, unsigned v) { b->b[b->n++] = (unsigned char)v; }
static void u16(struct buf *b, unsigned v) { u8(b, v & 0xff); u8(b, v >> 8); }
static void u32(struct buf *b, unsigned v) { u16(b, v & 0xffff); u16(b, v >> 16); }
static void str(struct buf *b, const char *s) { put(b, s, strlen(s) + 1); }

/* The unit length and header length, filled in once the rest is there. */
static void finish(struct buf *b, size_t header_len_at, size_t header_start)
{
	unsigned total = (unsigned)(b->n - 4), hl = (unsigned)(b->n - header_start);
	for (int i = 0; i < 4; i++) {
		b->b[i] = (unsigned char)(total >> (8 * i));
		b->b[header_len_at + i] = (unsigned char)(hl >> (8 * i));
	}
}

/* DWARF 4: directory 0 is comp_dir; file 0 is none. */
static struct buf dwarf4(void)
{
	struct buf b = { .n = 0 };
	u32(&b, 0);            /* unit length, later */
	u16(&b, 4);            /* version */
	size_t hl = b.n;
	u32(&b, 0);            /* header length, later */
	size_t start = b.n;
	u8(&b, 1);             /* minimum instruction length */
	u8(&b, 1);             /* maximum operations per instruction */
	u8(&b, 1);             /* default is_stmt */
	u8(&b, 0xfb);          /* line base */
	u8(&b, 14);            /* line range */
	u8(&b, 13);            /* opcode base */
	static const unsigned char lens[12] = { 0, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0, 1 };
	put(&b, lens, sizeof lens);
	str(&b, "include/linux");
	str(&b, "/abs/dir");
	str(&b, "");
	str(&b, "fs/open.c");      u8(&b, 0); u8(&b, 0); u8(&b, 0);
	str(&b, "fs.h");           u8(&b, 1); u8(&b, 0); u8(&b, 0);
	str(&b, "x.h");            u8(&b, 2); u8(&b, 0); u8(&b, 0);
	str(&b, "/elsewhere/y.h"); u8(&b, 1); u8(&b, 0); u8(&b, 0);
	str(&b, "");
	finish(&b, hl, start);
	u8(&b, 0); /* a line program would follow */
	return b;
}

/* DWARF 5: directory and file entries described by their formats; paths
 * inline (DW_FORM_string) and in .debug_line_str (DW_FORM_line_strp). */
static const char line_str[] = "\0/build/linux\0fs/read_write.c\0";

static struct buf dwarf5(void)
{
	struct buf b = { .n = 0 };
	u32(&b, 0);
	u16(&b, 5);
	u8(&b, 8);             /* address size */
	u8(&b, 0);             /* segment selector size */
	size_t hl = b.n;
	u32(&b, 0);
	size_t start = b.n;
	u8(&b, 1); u8(&b, 1); u8(&b, 1); u8(&b, 0xfb); u8(&b, 14);
	u8(&b, 13);
	static const unsigned char lens[12] = { 0, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0, 1 };
	put(&b, lens, sizeof lens);
	/* Directories: one format, path as line_strp or string (both used). */
	u8(&b, 1); u8(&b, 1); u8(&b, 0x1f);  /* DW_LNCT_path, DW_FORM_line_strp */
	u8(&b, 2);
	u32(&b, 1);                          /* "/build/linux" */
	u32(&b, 0);                          /* "" is fine as a directory */
	/* Files: path (string), directory index (udata), MD5 (data16). */
	u8(&b, 3);
	u8(&b, 1); u8(&b, 0x08);
	u8(&b, 2); u8(&b, 0x0f);
	u8(&b, 5); u8(&b, 0x1e);
	u8(&b, 3);
	str(&b, "fs/read_write.c"); u8(&b, 0); for (int i = 0; i < 16; i++) u8(&b, i);
	str(&b, "include/linux/fs.h"); u8(&b, 0); for (int i = 0; i < 16; i++) u8(&b, i);
	str(&b, "/usr/include/z.h"); u8(&b, 1); for (int i = 0; i < 16; i++) u8(&b, i);
	finish(&b, hl, start);
	u8(&b, 0);
	return b;
}

static bool names_are(struct line_files *f, const char *const *want, size_t n)
{
	if (f->n != n || line_files_name(f, n))
		return false;
	for (size_t i = 0; i < n; i++) {
		const char *got = line_files_name(f, i);
		if (!want[i] != !got || (want[i] && strcmp(want[i], got)))
			return false;
	}
	return true;
}

/* Every prefix and every one-byte change of a header: refused, or read. */
static void abuse(const struct buf *good, const struct line_sections *secs, const char *what)
{
	int truncated_ok = 0, corrupt_read = 0, corrupt_refused = 0;
	for (size_t n = 0; n < good->n; n++) {
		unsigned char *copy = malloc(n ? n : 1); /* exactly n bytes: overreads show */
		memcpy(copy, good->b, n);
		struct line_sections s = *secs;
		s.line = copy;
		s.line_size = n;
		struct line_files f;
		truncated_ok += line_files_read(&s, 0, "/comp", &f);
		line_files_free(&f);
		free(copy);
	}
	tap_check(truncated_ok == 1, "%s: copies cut inside the header are refused (%d of %zu cuts read: the one after it)", what,
		  truncated_ok, good->n);
	for (size_t i = 0; i < good->n; i++) {
		for (unsigned v = 0; v < 256; v += 51) {
			struct buf bad = *good;
			bad.b[i] ^= (unsigned char)(v | 1);
			struct line_sections s = *secs;
			s.line = bad.b;
			s.line_size = bad.n;
			struct line_files f;
			if (line_files_read(&s, 0, "/comp", &f)) {
				corrupt_read++;
				for (size_t k = 0; k <= f.n; k++)
					line_files_name(&f, k);
			}
			else
				corrupt_refused++;
			line_files_free(&f);
		}
	}
	tap_check(corrupt_read + corrupt_refused > 0, "%s: %d corrupted copies read, %d refused, "
		  "none crashed", what, corrupt_read, corrupt_refused);
}

int main(void)
{
	struct line_files f;
	struct buf b4 = dwarf4();
	struct line_sections s4 = { .line = b4.b, .line_size = b4.n };
	static const char *const want4[] = { NULL, "/comp/fs/open.c", "include/linux/fs.h",
					     "/abs/dir/x.h", "/elsewhere/y.h" };
	bool ok = line_files_read(&s4, 0, "/comp", &f);
	tap_check(ok && names_are(&f, want4, 5), "DWARF 4: comp_dir, include directories, "
		  "absolute names");
	line_files_free(&f);
	ok = line_files_read(&s4, 0, NULL, &f);
	tap_check(ok && f.n == 5 && !strcmp(line_files_name(&f, 1), "fs/open.c"),
		  "DWARF 4 without comp_dir: names stay relative");
	line_files_free(&f);

	struct buf b5 = dwarf5();
	struct line_sections s5 = { .line = b5.b, .line_size = b5.n,
				    .line_str = (const unsigned char *)line_str,
				    .line_str_size = sizeof line_str };
	static const char *const want5[] = { "/build/linux/fs/read_write.c",
					     "/build/linux/include/linux/fs.h",
					     "/usr/include/z.h" };
	ok = line_files_read(&s5, 0, NULL, &f);
	tap_check(ok && names_are(&f, want5, 3), "DWARF 5: line_strp and string paths, MD5 skipped");
	line_files_free(&f);

	struct line_sections no_str = s5;
	no_str.line_str = NULL;
	tap_check(!line_files_read(&no_str, 0, NULL, &f), "DWARF 5 without .debug_line_str: refused");
	line_files_free(&f);
	tap_check(!line_files_read(&s5, b5.n, NULL, &f), "an offset past the section: refused");
	line_files_free(&f);

	abuse(&b4, &s4, "DWARF 4");
	abuse(&b5, &s5, "DWARF 5");
	return tap_done();
}
