// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Reading the kernel line table a module carries (linetable.h). The
 * bytes come from a module file whose checksum staprun checked, but a
 * damaged table must still never be read past its end.
 */
#include "contract/linetable.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void lt_err(char *err, size_t errlen, const char *what)
{
	if (err && errlen)
		snprintf(err, errlen, "the module's line table is damaged (%s)", what);
}

size_t lt_get_uvarint(const unsigned char *p, const unsigned char *end, uint64_t *v)
{
	uint64_t x = 0;
	size_t n = 0;

	for (int shift = 0; shift < 64; shift += 7) {
		if (p + n >= end)
			return 0;
		unsigned char b = p[n++];

		x |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*v = x;
			return n;
		}
	}
	return 0;
}

size_t lt_get_svarint(const unsigned char *p, const unsigned char *end, int64_t *v)
{
	uint64_t u;
	size_t n = lt_get_uvarint(p, end, &u);

	if (n)
		*v = (int64_t)(u >> 1) ^ -(int64_t)(u & 1);
	return n;
}

static uint64_t lt_le(const unsigned char *p, int bytes)
{
	uint64_t v = 0;

	for (int i = bytes - 1; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

/* One row from *at: its address, file and line from the row before. */
static int lt_row(const struct lt_table *t, size_t *at, uint64_t *addr, uint32_t *file,
		  int64_t *line)
{
	const unsigned char *p = t->bytes + *at, *end = t->bytes + t->len;
	uint64_t step, f;
	int64_t dl;
	size_t n = lt_get_uvarint(p, end, &step);

	if (!n)
		return -1;
	p += n;
	if (step & 1) {
		n = lt_get_uvarint(p, end, &f);
		if (!n || f > t->nfiles)
			return -1;
		p += n;
		*file = (uint32_t)f;
	}
	n = lt_get_svarint(p, end, &dl);
	if (!n)
		return -1;
	p += n;
	*addr += step >> 1;
	*line += dl;
	*at = (size_t)(p - t->bytes);
	return 0;
}

int lt_open(struct lt_table *t, const unsigned char *p, size_t len, char *err, size_t errlen)
{
	memset(t, 0, sizeof(*t));
	if (len < LT_HEADER || memcmp(p, LT_MAGIC, 8)) {
		lt_err(err, errlen, "no header");
		return -1;
	}
	uint64_t nfiles = lt_le(p + 8, 4), nrows = lt_le(p + 16, 8), names = lt_le(p + 24, 8);

	if (names > len - LT_HEADER || nfiles > names || nrows > len) {
		lt_err(err, errlen, "its counts exceed its size");
		return -1;
	}
	t->bytes = malloc(len);
	t->files = calloc(nfiles + 1, sizeof(*t->files));
	t->marks = calloc(nrows / LT_STRIDE + 1, sizeof(*t->marks));
	if (!t->bytes || !t->files || !t->marks) {
		lt_close(t);
		lt_err(err, errlen, "out of memory");
		return -1;
	}
	memcpy(t->bytes, p, len);
	t->len = len;
	t->nfiles = (uint32_t)nfiles;
	t->nrows = nrows;
	const char *name = (const char *)t->bytes + LT_HEADER, *names_end = name + names;

	for (uint32_t i = 0; i < t->nfiles; i++) {
		const char *nul = memchr(name, 0, (size_t)(names_end - name));

		if (!nul) {
			lt_close(t);
			lt_err(err, errlen, "a file name runs past the names");
			return -1;
		}
		t->files[i] = name;
		name = nul + 1;
	}
	/* Every row decoded once: a lookup then never meets a bad one. */
	size_t at = LT_HEADER + (size_t)names;
	uint64_t addr = 0, prev = 0;
	uint32_t file = 0;
	int64_t line = 0;

	for (uint64_t r = 0; r < nrows; r++) {
		if (r % LT_STRIDE == 0)
			t->marks[t->nmarks++] = (struct lt_mark){ addr, at, file, line };
		if (lt_row(t, &at, &addr, &file, &line) || addr < prev) {
			lt_close(t);
			lt_err(err, errlen, "a row is cut short or out of order");
			return -1;
		}
		prev = addr;
	}
	return 0;
}

int lt_lookup(const struct lt_table *t, uint64_t off, const char **file, int *line)
{
	size_t lo = 0, hi = t->nmarks;

	/* The last mark whose state is at or before off: its state is the
	 * row before it (the first mark's is none). */
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->marks[mid].addr <= off)
			lo = mid;
		else
			hi = mid;
	}
	if (!t->nmarks)
		return -1;
	const struct lt_mark *m = &t->marks[lo];
	size_t at = m->at;
	uint64_t addr = m->addr, row = (uint64_t)lo * LT_STRIDE;
	uint32_t f = m->file, found_f = m->file;
	int64_t l = m->line, found_l = m->line;

	for (; row < t->nrows; row++) {
		if (lt_row(t, &at, &addr, &f, &l) || addr > off)
			break;
		found_f = f;
		found_l = l;
	}
	if (!found_f || found_l <= 0 || found_l > INT32_MAX)
		return -1;
	*file = t->files[found_f - 1];
	*line = (int)found_l;
	return 0;
}

void lt_close(struct lt_table *t)
{
	free(t->bytes);
	free(t->files);
	free(t->marks);
	memset(t, 0, sizeof(*t));
}
