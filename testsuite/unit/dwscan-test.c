// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for the scan of a unit's function definitions (translator/
 * debuginfo/dwscan.c): units built here byte by byte, DWARF 4 and 64-bit
 * DWARF 5, give exactly the definitions they hold (declarations, types,
 * children with and without DW_AT_sibling passed over), and every
 * truncation and every one-byte corruption of them ends the scan within
 * bounds (run under the sanitizers to see that: ./configure
 * --enable-sanitizers). That the scan agrees with libdw on real modules is
 * a host test (testsuite/run-tests, TAPLINE_NO_DWSCAN).
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "debuginfo/dwscan.h"
#include "tap.h"

struct buf {
	unsigned char b[1024];
	size_t n;
};

static void u8(struct buf *b, unsigned v) { b->b[b->n++] = (unsigned char)v; }
static void uN(struct buf *b, uint64_t v, int size)
{
	for (int i = 0; i < size; i++)
		u8(b, (unsigned)(v >> (8 * i)) & 0xff);
}
static void str(struct buf *b, const char *s)
{
	memcpy(b->b + b->n, s, strlen(s) + 1);
	b->n += strlen(s) + 1;
}
static void patch(struct buf *b, size_t at, uint64_t v, int size)
{
	for (int i = 0; i < size; i++)
		b->b[at + i] = (unsigned char)(v >> (8 * i));
}

enum {
	TAG_CU = 0x11, TAG_BASE = 0x24, TAG_STRUCT = 0x13, TAG_MEMBER = 0x0d, TAG_SUB = 0x2e,
	TAG_PARAM = 0x05, TAG_VAR = 0x34, TAG_BLOCK = 0x0b,
	AT_SIB = 0x01, AT_LOC = 0x02, AT_NAME = 0x03, AT_BYTE_SIZE = 0x0b, AT_LOW = 0x11,
	AT_HIGH = 0x12, AT_DMLOC = 0x38, AT_DECL = 0x3c, AT_ENC = 0x3e, AT_TYPE = 0x49,
	AT_RANGES = 0x55,
	F_ADDR = 0x01, F_DATA1 = 0x0b, F_DATA8 = 0x07, F_STRING = 0x08, F_STRP = 0x0e,
	F_UDATA = 0x0f, F_REF4 = 0x13, F_SEC = 0x17, F_EXPRLOC = 0x18, F_PRESENT = 0x19,
	F_IMPLICIT = 0x21,
};

/* One abbreviation: code, tag, children, then (attribute, form) pairs. */
static void abbrev(struct buf *b, unsigned code, unsigned tag, bool children, const unsigned *af,
		   size_t n)
{
	u8(b, code);
	u8(b, tag);
	u8(b, children);
	for (size_t i = 0; i < n; i += 2) {
		u8(b, af[i]);
		u8(b, af[i + 1]);
		if (af[i + 1] == F_IMPLICIT)
			u8(b, 1); /* the constant: true */
	}
	u8(b, 0);
	u8(b, 0);
}

static struct buf abbrevs(void)
{
	struct buf b = { .n = 0 };
	abbrev(&b, 1, TAG_CU, true, (unsigned[]){ AT_NAME, F_STRING, AT_LOW, F_ADDR }, 4);
	abbrev(&b, 2, TAG_BASE, false,
	       (unsigned[]){ AT_NAME, F_STRP, AT_BYTE_SIZE, F_DATA1, AT_ENC, F_DATA1 }, 6);
	abbrev(&b, 3, TAG_STRUCT, true, (unsigned[]){ AT_SIB, F_REF4, AT_NAME, F_STRING }, 4);
	abbrev(&b, 4, TAG_MEMBER, false, (unsigned[]){ AT_NAME, F_STRING, AT_DMLOC, F_UDATA }, 4);
	abbrev(&b, 5, TAG_SUB, true, (unsigned[]){ AT_NAME, F_STRING, AT_DECL, F_PRESENT }, 4);
	abbrev(&b, 6, TAG_PARAM, false, (unsigned[]){ AT_TYPE, F_REF4 }, 2);
	abbrev(&b, 7, TAG_SUB, true,
	       (unsigned[]){ AT_SIB, F_REF4, AT_NAME, F_STRING, AT_LOW, F_ADDR, AT_HIGH, F_DATA8 }, 8);
	abbrev(&b, 8, TAG_SUB, false, (unsigned[]){ AT_NAME, F_STRING, AT_RANGES, F_SEC }, 4);
	abbrev(&b, 9, TAG_SUB, false,
	       (unsigned[]){ AT_NAME, F_STRING, AT_DECL, F_IMPLICIT, AT_LOW, F_ADDR }, 6);
	abbrev(&b, 10, TAG_VAR, false, (unsigned[]){ AT_NAME, F_STRING, AT_LOC, F_EXPRLOC }, 4);
	abbrev(&b, 11, TAG_SUB, true, (unsigned[]){ AT_NAME, F_STRING, AT_LOW, F_ADDR }, 4);
	abbrev(&b, 12, TAG_BLOCK, true, (unsigned[]){ AT_LOW, F_ADDR }, 2);
	u8(&b, 0);
	return b;
}

/* What the unit holds: its functions, and where they start. */
struct expect {
	uint64_t die[3];
	uint64_t entry[3];
	bool have_entry[3];
};

/* A unit of version 4 (32-bit offsets) or 5 (64-bit offsets). */
static struct buf unit(int version, struct expect *x)
{
	struct buf b = { .n = 0 };
	int os = version == 5 ? 8 : 4;
	if (os == 8)
		uN(&b, 0xffffffff, 4);
	size_t len_at = b.n;
	uN(&b, 0, os); /* unit length, later */
	uN(&b, (uint64_t)version, 2);
	if (version == 5) {
		u8(&b, 1); /* DW_UT_compile */
		u8(&b, 8);
		uN(&b, 0, os); /* abbreviation offset */
	} else {
		uN(&b, 0, os);
		u8(&b, 8);
	}
	u8(&b, 1); /* the unit */
	str(&b, "t.c");
	uN(&b, 0x1000, 8);
	u8(&b, 2); /* int */
	uN(&b, 0, os);
	u8(&b, 4);
	u8(&b, 5);
	u8(&b, 3); /* struct with a sibling */
	size_t sib = b.n;
	uN(&b, 0, 4);
	str(&b, "s");
	u8(&b, 4);
	str(&b, "a");
	u8(&b, 0x80); /* udata 0x100, two bytes */
	u8(&b, 0x02);
	u8(&b, 0);
	patch(&b, sib, b.n, 4);
	u8(&b, 5); /* a declaration, its children without a sibling */
	str(&b, "ext");
	u8(&b, 6);
	uN(&b, 0x20, 4);
	u8(&b, 0);
	x->die[0] = b.n;
	u8(&b, 7); /* a definition with a sibling */
	sib = b.n;
	uN(&b, 0, 4);
	str(&b, "f");
	uN(&b, 0x1010, 8);
	uN(&b, 0x40, 8);
	x->entry[0] = 0x1010;
	x->have_entry[0] = true;
	u8(&b, 10);
	str(&b, "local");
	u8(&b, 2);
	u8(&b, 0x91);
	u8(&b, 0x10);
	u8(&b, 0);
	patch(&b, sib, b.n, 4);
	x->die[1] = b.n;
	u8(&b, 8); /* a definition in ranges */
	str(&b, "g");
	uN(&b, 0x30, os);
	x->have_entry[1] = false;
	u8(&b, 9); /* a declaration by its abbreviation's constant */
	str(&b, "h");
	uN(&b, 0x2000, 8);
	u8(&b, 10); /* a global */
	str(&b, "glob");
	u8(&b, 9);
	u8(&b, 3);
	uN(&b, 0x3000, 8);
	x->die[2] = b.n;
	u8(&b, 11); /* a definition with nested children, no sibling */
	str(&b, "k");
	uN(&b, 0x1080, 8);
	x->entry[2] = 0x1080;
	x->have_entry[2] = true;
	u8(&b, 12);
	uN(&b, 0x1084, 8);
	u8(&b, 10);
	str(&b, "inner");
	u8(&b, 0);
	u8(&b, 0);
	u8(&b, 0);
	u8(&b, 0); /* end of the unit's children */
	patch(&b, len_at, b.n - len_at - (uint64_t)os, os);
	return b;
}

struct seen {
	struct dwscan_func f[8];
	size_t n;
	size_t stop_after; /* 0: never */
};

/* A function reported outside the bytes given is a read past them. */
static size_t info_bound, outside;

static bool record(const struct dwscan_func *f, void *ctx)
{
	struct seen *s = ctx;
	if (f->die >= info_bound)
		outside++;
	if (s->n < 8)
		s->f[s->n] = *f;
	s->n++;
	return !s->stop_after || s->n < s->stop_after;
}

static void check_unit(int version)
{
	struct expect x;
	memset(&x, 0, sizeof x);
	struct buf info = unit(version, &x), ab = abbrevs();
	struct dwscan_sections secs = { info.b, ab.b, info.n, ab.n };
	info_bound = info.n;
	outside = 0;
	struct seen s = { .n = 0 };
	bool ok = dwscan_functions(&secs, 0, record, &s);
	bool same = ok && s.n == 3;
	for (size_t i = 0; same && i < 3; i++)
		same = s.f[i].die == x.die[i] && s.f[i].have_entry == x.have_entry[i] &&
		       (!x.have_entry[i] || s.f[i].entry == x.entry[i]);
	if (!tap_check(same, "DWARF %d: the three definitions, in order, with their entries",
		       version)) {
		printf("# ok %d, n %zu\n", ok, s.n);
		for (size_t i = 0; i < s.n && i < 8; i++)
			printf("# die %#llx entry %#llx (%d)\n", (unsigned long long)s.f[i].die,
			       (unsigned long long)s.f[i].entry, s.f[i].have_entry);
	}

	s = (struct seen){ .stop_after = 2 };
	ok = dwscan_functions(&secs, 0, record, &s);
	tap_check(ok && s.n == 2, "DWARF %d: the scan stops when asked", version);

	/* Every truncation: never a read past the end. */
	size_t bad = 0;
	for (size_t n = 0; n < info.n; n++) {
		struct dwscan_sections t = secs;
		t.info_size = n;
		info_bound = n;
		s = (struct seen){ .n = 0 };
		if (dwscan_functions(&t, 0, record, &s))
			bad++;
	}
	info_bound = info.n;
	tap_check(bad == 0, "DWARF %d: each of %zu truncations of the unit is refused", version,
		  info.n);
	for (size_t n = 0; n + 1 < ab.n; n++) {
		struct dwscan_sections t = secs;
		t.abbrev_size = n;
		s = (struct seen){ .n = 0 };
		dwscan_functions(&t, 0, record, &s);
	}
	tap_check(outside == 0, "DWARF %d: no function reported past a truncated end", version);

	/* Every one-byte corruption of either section ends the scan. */
	for (int which = 0; which < 2; which++) {
		struct buf *b = which ? &ab : &info;
		for (size_t i = 0; i < b->n; i++) {
			for (unsigned flip = 1; flip < 256; flip <<= 1) {
				b->b[i] ^= (unsigned char)flip;
				s = (struct seen){ .n = 0 };
				dwscan_functions(&secs, 0, record, &s);
				b->b[i] ^= (unsigned char)flip;
			}
		}
		tap_check(outside == 0, "DWARF %d: every bit flip in %s ends the scan within it",
			  version, which ? ".debug_abbrev" : ".debug_info");
	}

	/* A sibling pointing backwards would loop: refused. */
	struct buf loop = info;
	size_t at = x.die[0] + 1;
	patch(&loop, at, x.die[0], 4);
	secs.info = loop.b;
	s = (struct seen){ .n = 0 };
	tap_check(!dwscan_functions(&secs, 0, record, &s), "DWARF %d: a backward sibling is refused",
		  version);
}

int main(void)
{
	check_unit(4);
	check_unit(5);
	struct dwscan_sections none = { 0 };
	struct seen s = { .n = 0 };
	tap_check(!dwscan_functions(&none, 0, record, &s), "no sections: refused");
	return tap_done();
}
