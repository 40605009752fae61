// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The kernel's own symbol table, decoded from the kallsyms tables inside a
 * vmlinux image. Debian's kernel image carries no ELF symbol table and its
 * /boot/System.map is a placeholder, but the kernel keeps every symbol
 * (static and assembly functions too) for /proc/kallsyms, compressed in
 * .rodata. The tables are not labelled in the image, so they are found by
 * their shape and every step is checked before it is trusted:
 *
 *   token_table   256 NUL-terminated strings; the single characters '0'..'9'
 *                 stand for themselves, so "0\0" "1\0" ... "9\0" is in it
 *   token_index   256 u16 offsets into token_table, just after it
 *   markers       u32 offsets into names of every 256th symbol (first 0)
 *   names         per symbol: length (1 byte, or 2 when the first has bit 7),
 *                 then that many token numbers; the first character of the
 *                 expansion is the symbol type ('T', 't', 'D', ...)
 *   num_syms      u32, 8-byte aligned, just before names
 *   offsets       s32 per symbol, and relative_base (u64): just before
 *                 num_syms in kernels up to 6.1, after token_index later
 *
 * An address is relative_base + offset, except with absolute per-CPU
 * symbols (a negative offset is then relative_base - 1 - offset, and a
 * non-negative one is the address itself).
 */
#include <stdlib.h>
#include <string.h>

#include "debuginfo/kernel.h"
#include "util.h"

struct span {
	const unsigned char *p; /* .rodata */
	size_t n;
	uint64_t addr;          /* its address */
};

static bool get_u16(const struct span *s, size_t off, unsigned *v)
{
	if (off + 2 > s->n)
		return false;
	*v = (unsigned)s->p[off] | (unsigned)s->p[off + 1] << 8;
	return true;
}

static bool get_u32(const struct span *s, size_t off, uint32_t *v)
{
	if (off + 4 > s->n)
		return false;
	memcpy(v, s->p + off, 4);
	return true;
}

static bool get_u64(const struct span *s, size_t off, uint64_t *v)
{
	if (off + 8 > s->n)
		return false;
	memcpy(v, s->p + off, 8);
	return true;
}

static size_t align8(size_t off)
{
	return (off + 7) & ~(size_t)7;
}

struct tables {
	size_t token_table, token_index, markers, names, num_syms_at;
	uint32_t nmarkers, num_syms;
	unsigned tok_off[256];
	unsigned tok_len[256];
};

/* Is a token table starting at off, with its index right after it? */
static bool check_tokens(const struct span *s, size_t off, struct tables *t)
{
	size_t p = off;
	for (int i = 0; i < 256; i++) {
		const unsigned char *nul = memchr(s->p + p, 0, s->n - p);
		if (!nul)
			return false;
		t->tok_off[i] = (unsigned)(p - off);
		t->tok_len[i] = (unsigned)(nul - (s->p + p));
		p = (size_t)(nul - s->p) + 1;
		if (p >= s->n)
			return false;
	}
	size_t index = align8(p);
	for (int i = 0; i < 256; i++) {
		unsigned v;
		if (!get_u16(s, index + 2 * (size_t)i, &v) || v != t->tok_off[i])
			return false;
	}
	/* Each character used in names is a token for itself. */
	for (int c = '0'; c <= '9'; c++)
		if (t->tok_len[c] != 1 || s->p[off + t->tok_off[c]] != c)
			return false;
	t->token_table = off;
	t->token_index = index;
	return true;
}

static bool find_tokens(const struct span *s, struct tables *t)
{
	static const unsigned char digits[] = "0\0" "1\0" "2\0" "3\0" "4\0" "5\0" "6\0" "7\0" "8\0" "9";
	for (size_t at = 0; at + sizeof digits <= s->n; at++) {
		const unsigned char *hit = memmem(s->p + at, s->n - at, digits, sizeof digits);
		if (!hit)
			return false;
		at = (size_t)(hit - s->p);
		/* Walk back over the 48 tokens before '0'. */
		size_t start = at;
		int back = 0;
		while (back < '0' && start > 0) {
			size_t q = start - 1; /* the NUL ending the previous token */
			if (s->p[q] != 0)
				break;
			while (q > 0 && s->p[q - 1] != 0)
				q--;
			start = q;
			back++;
		}
		if (back == '0' && check_tokens(s, start, t))
			return true;
	}
	return false;
}

/* markers: the closest run before the token table of u32 offsets that start
 * at 0 and grow by plausible amounts (a few bytes per symbol). */
static bool find_markers(const struct span *s, struct tables *t)
{
	for (size_t end = t->token_table & ~(size_t)3; end >= 8; end -= 4) {
		uint32_t v = 0;
		if (!get_u32(s, end - 4, &v) || v == 0)
			continue;
		/* end - 4 may be the last marker; walk back to a 0. */
		size_t p = end - 4;
		uint32_t next = v;
		uint32_t count = 1;
		while (p >= 4) {
			uint32_t prev = 0;
			get_u32(s, p - 4, &prev);
			if (prev >= next || next - prev > 256 * 64)
				break;
			next = prev;
			p -= 4;
			count++;
			if (prev == 0)
				break;
		}
		if (next == 0 && count >= 16) {
			t->markers = p;
			t->nmarkers = count;
			return true;
		}
		if (t->token_table - end > (1u << 22))
			break; /* not within 4 MiB: give up */
	}
	return false;
}

/* The next candidate for num_syms below *from: an 8-byte aligned u32 that
 * fits the marker count, names starting 8 bytes after it. */
static bool next_num_syms(const struct span *s, struct tables *t, size_t *from)
{
	uint32_t lo = (t->nmarkers - 1) * 256, hi = t->nmarkers * 256;
	for (size_t p = *from & ~(size_t)7; p >= 8 && t->markers - p < (64u << 20); p -= 8) {
		uint32_t v = 0;
		get_u32(s, p - 8, &v);
		if (v > lo && v <= hi) {
			t->num_syms_at = p - 8;
			t->num_syms = v;
			t->names = p;
			*from = p - 8;
			return true;
		}
	}
	return false;
}

/* Expand symbol i's entry at *off; NULL when it runs off the table. */
static char *expand(const struct span *s, const struct tables *t, size_t *off)
{
	size_t p = *off;
	if (p >= t->markers)
		return NULL;
	size_t len = s->p[p++];
	if (len & 0x80) {
		if (p >= t->markers)
			return NULL;
		len = (len & 0x7f) | (size_t)s->p[p++] << 7;
	}
	if (len == 0 || p + len > t->markers)
		return NULL;
	struct strbuf b;
	sb_init(&b);
	for (size_t i = 0; i < len; i++) {
		unsigned tok = s->p[p + i];
		sb_add(&b, (const char *)s->p + t->token_table + t->tok_off[tok], t->tok_len[tok]);
	}
	*off = p + len;
	if (b.len < 2) {
		sb_free(&b);
		return NULL;
	}
	return sb_detach(&b);
}

/* The offsets and base: before num_syms (up to 6.1), or after token_index. */
static bool read_addresses(const struct span *s, const struct tables *t, uint64_t *addr)
{
	size_t n = t->num_syms;
	size_t cand[2][2] = {
		{ t->num_syms_at >= 8 + 4 * n ? t->num_syms_at - 8 - 4 * n : (size_t)-1,
		  t->num_syms_at - 8 },
		{ align8(t->token_index + 512), align8(align8(t->token_index + 512) + 4 * n) },
	};
	for (int k = 0; k < 2; k++) {
		size_t offs = cand[k][0], base_at = cand[k][1];
		uint64_t base;
		if (offs == (size_t)-1 || offs + 4 * n > s->n || !get_u64(s, base_at, &base))
			continue;
		/* The base is a kernel address. */
		if (base >> 47 != 0x1ffff)
			continue;
		bool absolute = false;
		for (size_t i = 0; i < n && !absolute; i++) {
			int32_t o;
			memcpy(&o, s->p + offs + 4 * i, 4);
			absolute = o < 0;
		}
		for (size_t i = 0; i < n; i++) {
			int32_t o;
			memcpy(&o, s->p + offs + 4 * i, 4);
			if (!absolute)
				addr[i] = base + (uint32_t)o;
			else if (o >= 0)
				addr[i] = (uint64_t)o;
			else
				addr[i] = base - 1 - (uint64_t)(int64_t)o;
		}
		return true;
	}
	return false;
}

/* Decode every name, checking each 256th against its marker. */
static bool decode_names(const struct span *s, const struct tables *t, struct ksym *syms)
{
	size_t off = t->names;
	for (size_t i = 0; i < t->num_syms; i++) {
		if (i % 256 == 0) {
			uint32_t m = 0;
			if (!get_u32(s, t->markers + 4 * (i / 256), &m) || t->names + m != off)
				goto bad;
		}
		char *e = expand(s, t, &off);
		if (!e)
			goto bad;
		syms[i].type = e[0];
		syms[i].name = xstrdup(e + 1);
		free(e);
		continue;
bad:
		for (size_t k = 0; k < i; k++)
			free(syms[k].name);
		return false;
	}
	return true;
}

struct ksym *kallsyms_decode(const char *elf, size_t len, size_t *nsyms, char **why)
{
	uint64_t ro_addr;
	size_t ro_size;
	const char *ro = kimage_elf_section_at(elf, len, ".rodata", &ro_size, &ro_addr);
	if (!ro) {
		*why = xstrdup("the image has no .rodata section");
		return NULL;
	}
	struct span s = { (const unsigned char *)ro, ro_size, ro_addr };
	struct tables t;
	memset(&t, 0, sizeof t);
	if (!find_tokens(&s, &t)) {
		*why = xstrdup("no kallsyms token table in .rodata (a kernel without CONFIG_KALLSYMS?)");
		return NULL;
	}
	if (!find_markers(&s, &t)) {
		*why = xstrdup("no kallsyms marker table before the token table");
		return NULL;
	}
	struct ksym *syms = NULL;
	size_t from = t.markers;
	bool named = false;
	while (!named && next_num_syms(&s, &t, &from)) {
		free(syms);
		syms = xcalloc(t.num_syms, sizeof *syms);
		named = decode_names(&s, &t, syms);
	}
	if (!named) {
		free(syms);
		*why = xstrdup("the kallsyms name table does not decode");
		return NULL;
	}
	size_t n = t.num_syms;
	uint64_t *addr = xcalloc(n, sizeof *addr);
	if (!read_addresses(&s, &t, addr)) {
		*why = xstrdup("the kallsyms address table was not found");
		for (size_t k = 0; k < n; k++)
			free(syms[k].name);
		free(syms);
		free(addr);
		return NULL;
	}
	for (size_t i = 0; i < n; i++)
		syms[i].addr = addr[i];
	free(addr);
	symbols_sort(syms, n);
	*nsyms = n;
	return syms;
}
