// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for contract/linetable.c, the kernel line table staprun
 * reads from a module: tables written here by the layout linetable.h
 * gives (the translator's writer is dw-linetable.c) are looked up at and
 * around every row, across the lookup's stride, and damaged tables (cut,
 * a file index past the names, rows out of order, a bad header) are
 * refused, never read past their end.
 */
#include "contract/linetable.h"

#include <stdlib.h>
#include <string.h>

#include "tap.h"

struct buf {
	unsigned char b[1 << 20];
	size_t n;
};

static void put(struct buf *b, uint64_t v, int bytes)
{
	for (int i = 0; i < bytes; i++, v >>= 8)
		b->b[b->n++] = (unsigned char)v;
}

static void put_uv(struct buf *b, uint64_t v)
{
	while (v >= 0x80) {
		b->b[b->n++] = (unsigned char)((v & 0x7f) | 0x80);
		v >>= 7;
	}
	b->b[b->n++] = (unsigned char)v;
}

struct row {
	uint64_t addr;
	uint32_t file; /* 0: none, else index + 1 */
	int line;
};

/* A table of the files (NUL-separated, nfiles of them) and rows. */
static void write_table(struct buf *b, const char *names, size_t names_len, uint32_t nfiles,
			const struct row *rows, size_t n)
{
	uint64_t addr = 0;
	uint32_t file = 0;
	int64_t line = 0;

	b->n = 0;
	memcpy(b->b, LT_MAGIC, 8);
	b->n = 8;
	put(b, nfiles, 4);
	put(b, 0, 4);
	put(b, n, 8);
	put(b, names_len, 8);
	memcpy(b->b + b->n, names, names_len);
	b->n += names_len;
	for (size_t i = 0; i < n; i++) {
		bool nf = rows[i].file != file;
		int64_t dl = rows[i].line - line;

		put_uv(b, (rows[i].addr - addr) << 1 | nf);
		if (nf)
			put_uv(b, rows[i].file);
		put_uv(b, (uint64_t)(dl << 1) ^ (uint64_t)(dl >> 63));
		addr = rows[i].addr;
		file = rows[i].file;
		line = rows[i].line;
	}
}

static bool at(const struct lt_table *t, uint64_t off, const char *want_file, int want_line)
{
	const char *f = NULL;
	int l = 0;
	int rc = lt_lookup(t, off, &f, &l);

	if (!want_file)
		return rc == -1;
	return rc == 0 && !strcmp(f, want_file) && l == want_line;
}

int main(void)
{
	static const char names[] = "fs/read_write.c\0include/linux/fs.h\0";
	static struct buf b;
	static struct row rows[2000];
	struct lt_table t;
	char err[200];
	bool ok;

	/* A small table: a gap before the first row, a file change, a line
	 * going back, a sequence's end, a second sequence after a hole. */
	const struct row small[] = {
		{ 0x100, 1, 450 }, { 0x104, 1, 452 }, { 0x110, 2, 20 }, { 0x118, 1, 449 },
		{ 0x120, 0, 0 }, { 0x200, 2, 7 }, { 0x208, 0, 0 },
	};
	write_table(&b, names, sizeof(names) - 1, 2, small, sizeof(small) / sizeof(*small));
	tap_check(lt_open(&t, b.b, b.n, err, sizeof(err)) == 0, "a small table opens");
	tap_check(at(&t, 0, NULL, 0) && at(&t, 0xff, NULL, 0), "before the first row: no line");
	tap_check(at(&t, 0x100, "fs/read_write.c", 450) && at(&t, 0x103, "fs/read_write.c", 450),
		  "a row holds up to the next");
	tap_check(at(&t, 0x104, "fs/read_write.c", 452), "the next row at its address");
	tap_check(at(&t, 0x110, "include/linux/fs.h", 20) && at(&t, 0x117, "include/linux/fs.h", 20),
		  "a file change");
	tap_check(at(&t, 0x118, "fs/read_write.c", 449), "back to the first file, a line before");
	tap_check(at(&t, 0x120, NULL, 0) && at(&t, 0x1ff, NULL, 0), "after a sequence's end: none");
	tap_check(at(&t, 0x204, "include/linux/fs.h", 7), "the second sequence");
	tap_check(at(&t, 0x208, NULL, 0) && at(&t, UINT64_MAX, NULL, 0), "past the last row: none");
	lt_close(&t);

	/* Across the lookup's marks: 2000 rows, each 4 bytes, line = row. */
	for (int i = 0; i < 2000; i++)
		rows[i] = (struct row){ 0x1000 + 4 * (uint64_t)i, 1 + (uint32_t)(i / 700 % 2), i + 1 };
	rows[1999] = (struct row){ 0x1000 + 4 * 1999, 0, 0 };
	write_table(&b, names, sizeof(names) - 1, 2, rows, 2000);
	ok = lt_open(&t, b.b, b.n, err, sizeof(err)) == 0;
	tap_check(ok, "2000 rows open");
	for (int i = 0; ok && i < 1999; i++)
		for (int d = 0; d < 4 && ok; d++) {
			ok = at(&t, 0x1000 + 4 * (uint64_t)i + (uint64_t)d,
				i / 700 % 2 ? "include/linux/fs.h" : "fs/read_write.c", i + 1);
			if (!ok)
				printf("#   row %d + %d\n", i, d);
		}
	tap_check(ok, "every address of every row, across %d marks", (int)t.nmarks);
	lt_close(&t);

	/* Damage. */
	write_table(&b, names, sizeof(names) - 1, 2, small, sizeof(small) / sizeof(*small));
	ok = true;
	for (size_t cut = 0; cut < b.n && ok; cut++) {
		ok = lt_open(&t, b.b, cut, err, sizeof(err)) == -1;
		if (!ok)
			printf("#   cut at %zu opened\n", cut);
		lt_close(&t);
	}
	tap_check(ok, "a table cut anywhere is refused");
	tap_check(strstr(err, "damaged") != NULL, "with a reason: %s", err);
	const struct row bad_file[] = { { 0x100, 3, 1 } };
	write_table(&b, names, sizeof(names) - 1, 2, bad_file, 1);
	tap_check(lt_open(&t, b.b, b.n, err, sizeof(err)) == -1, "a file index past the names");
	write_table(&b, names, sizeof(names) - 1, 3, small, 1);
	tap_check(lt_open(&t, b.b, b.n, err, sizeof(err)) == -1, "more files than names");
	write_table(&b, names, sizeof(names) - 1, 2, small, sizeof(small) / sizeof(*small));
	b.b[0] = 'X';
	tap_check(lt_open(&t, b.b, b.n, err, sizeof(err)) == -1, "a wrong magic");
	write_table(&b, names, sizeof(names) - 1, 2, small, sizeof(small) / sizeof(*small));
	b.b[16] = 0xff; /* nrows far past the rows there are */
	tap_check(lt_open(&t, b.b, b.n, err, sizeof(err)) == -1, "more rows than bytes");
	/* Out of order: steps that wrap the address around. */
	write_table(&b, names, sizeof(names) - 1, 2, small, 3);
	size_t hdr = LT_HEADER + sizeof(names) - 1;
	b.n = hdr;
	put_uv(&b, 0x100 << 1 | 1);
	put_uv(&b, 1);
	put_uv(&b, 2);
	for (int k = 0; k < 2; k++) {
		put_uv(&b, UINT64_MAX - 1); /* a step of 2^63 - 1, the file kept */
		put_uv(&b, 2);
	}
	tap_check(lt_open(&t, b.b, b.n, err, sizeof(err)) == -1, "rows out of order");
	/* Random bytes after a good header never open into a bad lookup. */
	ok = true;
	for (int k = 0; k < 2000 && ok; k++) {
		write_table(&b, names, sizeof(names) - 1, 2, small, sizeof(small) / sizeof(*small));
		for (size_t i = hdr; i < b.n; i++)
			if (tap_rand() % 4 == 0)
				b.b[i] = (unsigned char)tap_rand();
		if (lt_open(&t, b.b, b.n, err, sizeof(err)) == 0) {
			const char *f;
			int l;
			for (uint64_t a = 0; a < 0x300; a++)
				if (!lt_lookup(&t, a, &f, &l) && (l <= 0 || !f))
					ok = false;
			lt_close(&t);
		}
	}
	tap_check(ok, "damaged rows: refused, or every line found is a real one");
	return tap_done();
}
