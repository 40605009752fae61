// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The kernel's line table in the form a module carries it for staprun
 * (contract/linetable.h): every unit's rows as offsets from _text, in
 * address order, a row kept only where the file or line changes. Made
 * once per kernel (3 s and 3.4 MB for Debian's 6.1, 5 s and 4.0 MB for
 * 6.12) and kept in the cache by build-id.
 */
#include <dwarf.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "contract/linetable.h"
#include "debuginfo/dw-private.h"

struct lt_row_in {
	uint64_t addr;
	uint32_t file; /* 0: no source (a sequence ended), else index + 1 */
	uint32_t order; /* rows at one address: the last one read wins */
	int line;
};

struct lt_build {
	struct lt_row_in *rows;
	size_t n, cap;
	struct ptrvec names;     /* char *, by index */
	struct name_slot *slots; /* open addressing over names */
	size_t nslots;
};

struct name_slot {
	const char *name; /* the copy in names */
	uint32_t index;   /* + 1 */
};

static uint32_t file_index(struct lt_build *b, const char *name)
{
	if (b->names.n * 2 >= b->nslots) {
		size_t n = b->nslots ? 2 * b->nslots : 4096;
		struct name_slot *s = xcalloc(n, sizeof *s);
		for (size_t i = 0; i < b->nslots; i++) {
			if (!b->slots[i].name)
				continue;
			size_t h = hash_bytes(0, b->slots[i].name, strlen(b->slots[i].name)) & (n - 1);
			while (s[h].name)
				h = (h + 1) & (n - 1);
			s[h] = b->slots[i];
		}
		free(b->slots);
		b->slots = s;
		b->nslots = n;
	}
	size_t h = hash_bytes(0, name, strlen(name)) & (b->nslots - 1);
	while (b->slots[h].name && strcmp(b->slots[h].name, name))
		h = (h + 1) & (b->nslots - 1);
	if (!b->slots[h].name) {
		pv_push(&b->names, xstrdup(name));
		b->slots[h] = (struct name_slot){ b->names.v[b->names.n - 1], (uint32_t)b->names.n };
	}
	return b->slots[h].index;
}

static void add_row(struct lt_build *b, uint64_t addr, uint32_t file, int line)
{
	if (b->n == b->cap)
		b->rows = xrealloc(b->rows, (b->cap = b->cap ? 2 * b->cap : 1 << 16) * sizeof *b->rows);
	b->rows[b->n] = (struct lt_row_in){ addr, file, (uint32_t)b->n, line };
	b->n++;
}

static int row_cmp(const void *a, const void *b)
{
	const struct lt_row_in *x = a, *y = b;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

static void put_uvarint(struct strbuf *s, uint64_t v)
{
	while (v >= 0x80) {
		sb_putc(s, (char)((v & 0x7f) | 0x80));
		v >>= 7;
	}
	sb_putc(s, (char)v);
}

static void put_le(struct strbuf *s, uint64_t v, int bytes)
{
	for (int i = 0; i < bytes; i++, v >>= 8)
		sb_putc(s, (char)(v & 0xff));
}

/* The table's bytes from every unit of o. */
static void encode_lines(struct dw_obj *o, struct strbuf *out)
{
	struct lt_build b = { 0 };
	Dwarf_Off off = 0, next;
	size_t hsize;
	while (dwarf_nextcu(o->dbg, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu;
		Dwarf_Lines *lines;
		size_t n;
		if (dwarf_offdie(o->dbg, off + hsize, &cu) &&
		    dwarf_getsrclines(&cu, &lines, &n) == 0) {
			for (size_t i = 0; i < n; i++) {
				Dwarf_Line *ln = dwarf_onesrcline(lines, i);
				Dwarf_Addr a;
				bool end = false;
				int line = 0;
				const char *file;
				if (!ln || dwarf_lineaddr(ln, &a) || a + o->bias < o->text_addr)
					continue;
				dwarf_lineendsequence(ln, &end);
				dwarf_lineno(ln, &line);
				file = end ? NULL : dwarf_linesrc(ln, NULL, NULL);
				add_row(&b, a + o->bias - o->text_addr,
					file && line > 0 ? file_index(&b, file) : 0, line);
			}
		}
		off = next;
	}
	qsort(b.rows, b.n, sizeof *b.rows, row_cmp);
	struct strbuf rows;
	sb_init(&rows);
	uint64_t addr = 0, nrows = 0;
	uint32_t file = 0;
	int line = 0;
	for (size_t i = 0; i < b.n; i++) {
		const struct lt_row_in *r = &b.rows[i];
		/* Of rows at one address the last read holds it (a sequence's
		 * end and the next one's start); a row that changes nothing
		 * adds nothing. */
		if (i + 1 < b.n && b.rows[i + 1].addr == r->addr)
			continue;
		int want_line = r->file ? r->line : 0;
		if (r->file == file && want_line == line)
			continue;
		put_uvarint(&rows, (r->addr - addr) << 1 | (r->file != file));
		if (r->file != file)
			put_uvarint(&rows, r->file);
		int64_t dl = (int64_t)want_line - line;
		put_uvarint(&rows, (uint64_t)(dl << 1) ^ (uint64_t)(dl >> 63));
		addr = r->addr;
		file = r->file;
		line = want_line;
		nrows++;
	}
	struct strbuf names;
	sb_init(&names);
	for (size_t i = 0; i < b.names.n; i++)
		sb_add(&names, b.names.v[i], strlen(b.names.v[i]) + 1);
	sb_add(out, LT_MAGIC, 8);
	put_le(out, b.names.n, 4);
	put_le(out, 0, 4);
	put_le(out, nrows, 8);
	put_le(out, names.len, 8);
	sb_add(out, names.s, names.len);
	sb_add(out, rows.s, rows.len);
	sb_free(&names);
	sb_free(&rows);
	pv_free_all(&b.names);
	free(b.slots);
	free(b.rows);
}

/* A cached table: the table, then a hash of it (hash_bytes, 8 bytes), so
 * that a cut or damaged file is made again. */
#define SEAL_BYTES 8

static uint64_t table_seal(const void *p, size_t len)
{
	return hash_bytes(0x74706c6e6c696e65ull, p, len);
}

static bool cached_table_ok(const char *path)
{
	size_t len;
	char *why = NULL;
	char *text = read_private_file(path, &len, &why);
	bool ok = text && len > LT_HEADER + SEAL_BYTES && !memcmp(text, LT_MAGIC, 8);
	if (ok) {
		uint64_t seal;
		memcpy(&seal, text + len - SEAL_BYTES, SEAL_BYTES);
		ok = seal == table_seal(text, len - SEAL_BYTES);
	}
	free(text);
	free(why);
	return ok;
}

char *dw_kernel_line_table(struct dw *d, char **why)
{
	struct dw_obj *o = usable_obj(d, "kernel", NULL, true, why);
	if (!o) {
		if (!*why)
			*why = xstrdup("no debug information for the kernel");
		return NULL;
	}
	if (!o->build_id || !o->text_addr) {
		*why = xasprintf("%s: %s", o->file, !o->build_id ? "no build-id" : "no _text symbol");
		return NULL;
	}
	char *dir = cache_dir("lines");
	char *path = xasprintf("%s/%s", dir, o->build_id);
	free(dir);
	if (cached_table_ok(path))
		return path;
	struct strbuf t;
	sb_init(&t);
	encode_lines(o, &t);
	uint64_t seal = table_seal(t.s, t.len);
	sb_add(&t, (const char *)&seal, SEAL_BYTES);
	/* Written aside and renamed: another stap reading it sees all or none. */
	char *tmp = xasprintf("%s.%ld.tmp", path, (long)getpid());
	bool ok = write_file(tmp, t.s, t.len) && !rename(tmp, path);
	if (!ok) {
		unlink(tmp);
		*why = xasprintf("cannot write the kernel's line table to %s", path);
		free(path);
		path = NULL;
	}
	free(tmp);
	sb_free(&t);
	return path;
}
