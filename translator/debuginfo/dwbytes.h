/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Bounds-checked reading of DWARF's encodings from plain bytes, for the
 * few places that read a section without libdw (linefiles.c, dwscan.c)
 * because libdw's general path costs too much there. A cursor that runs
 * past its end (or meets an encoding it cannot take) turns !ok, and every
 * later read then gives 0: callers check ok once, after a batch of reads.
 */
#ifndef TAPLINE_DWBYTES_H
#define TAPLINE_DWBYTES_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

struct cursor {
	const unsigned char *p, *end;
	bool ok;
};

/* A little-endian number of size bytes (1 to 8). */
static inline uint64_t cur_fixed(struct cursor *c, int size)
{
	if (!c->ok || c->end - c->p < size) {
		c->ok = false;
		return 0;
	}
	uint64_t v = 0;
	for (int i = size - 1; i >= 0; i--)
		v = v << 8 | c->p[i];
	c->p += size;
	return v;
}

static inline uint64_t cur_uleb(struct cursor *c)
{
	if (c->ok && c->p < c->end && !(*c->p & 0x80)) /* most are one byte */
		return *c->p++;
	uint64_t v = 0;
	for (int shift = 0; c->ok; shift += 7) {
		if (c->p >= c->end || shift > 63) {
			c->ok = false;
			break;
		}
		unsigned char b = *c->p++;
		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return v;
	}
	return 0;
}

/* Skipped, not decoded: nothing here needs a signed value. */
static inline void cur_skip_leb(struct cursor *c)
{
	while (c->ok && c->p < c->end)
		if (!(*c->p++ & 0x80))
			return;
	c->ok = false;
}

static inline void cur_skip(struct cursor *c, uint64_t n)
{
	if (!c->ok || (uint64_t)(c->end - c->p) < n)
		c->ok = false;
	else
		c->p += n;
}

/* A NUL-terminated string at the cursor. */
static inline const char *cur_string(struct cursor *c)
{
	if (!c->ok)
		return NULL;
	const unsigned char *nul = memchr(c->p, 0, (size_t)(c->end - c->p));
	if (!nul) {
		c->ok = false;
		return NULL;
	}
	const char *s = (const char *)c->p;
	c->p = nul + 1;
	return s;
}

/* The forms both readers meet (DWARF 2 to 5, and GNU's). */
enum {
	FORM_ADDR = 0x01, FORM_BLOCK2 = 0x03, FORM_BLOCK4 = 0x04, FORM_DATA2 = 0x05,
	FORM_DATA4 = 0x06, FORM_DATA8 = 0x07, FORM_STRING = 0x08, FORM_BLOCK = 0x09,
	FORM_BLOCK1 = 0x0a, FORM_DATA1 = 0x0b, FORM_FLAG = 0x0c, FORM_SDATA = 0x0d,
	FORM_STRP = 0x0e, FORM_UDATA = 0x0f, FORM_REF_ADDR = 0x10, FORM_REF1 = 0x11,
	FORM_REF2 = 0x12, FORM_REF4 = 0x13, FORM_REF8 = 0x14, FORM_REF_UDATA = 0x15,
	FORM_INDIRECT = 0x16, FORM_SEC_OFFSET = 0x17, FORM_EXPRLOC = 0x18,
	FORM_FLAG_PRESENT = 0x19, FORM_STRX = 0x1a, FORM_ADDRX = 0x1b, FORM_REF_SUP4 = 0x1c,
	FORM_STRP_SUP = 0x1d, FORM_DATA16 = 0x1e, FORM_LINE_STRP = 0x1f, FORM_REF_SIG8 = 0x20,
	FORM_IMPLICIT_CONST = 0x21, FORM_LOCLISTX = 0x22, FORM_RNGLISTX = 0x23,
	FORM_REF_SUP8 = 0x24, FORM_STRX1 = 0x25, FORM_STRX2 = 0x26, FORM_STRX3 = 0x27,
	FORM_STRX4 = 0x28, FORM_ADDRX1 = 0x29, FORM_ADDRX2 = 0x2a, FORM_ADDRX3 = 0x2b,
	FORM_ADDRX4 = 0x2c, FORM_GNU_ADDR_INDEX = 0x1f01, FORM_GNU_STR_INDEX = 0x1f02,
	FORM_GNU_REF_ALT = 0x1f20, FORM_GNU_STRP_ALT = 0x1f21,
};

#endif
