// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A forward scan over one unit's top-level entries for its function
 * definitions (see dwscan.h). Every read is bounds-checked through the
 * cursor of dwbytes.h; a sibling reference must point forward inside the
 * unit, so damaged bytes end the scan instead of looping.
 */
#include <stdlib.h>

#include "debuginfo/dwbytes.h"
#include "debuginfo/dwscan.h"
#include "util.h"

enum {
	TAG_SUBPROGRAM = 0x2e,
	AT_SIBLING = 0x01, AT_LOW_PC = 0x11, AT_INLINE = 0x20, AT_DECLARATION = 0x3c, AT_ENTRY_PC = 0x52,
	AT_RANGES = 0x55,
	UT_COMPILE = 0x01, UT_PARTIAL = 0x03,
	MAX_ABBREV_CODE = 1 << 16,
};

struct attr_spec {
	uint16_t name, form;
	int8_t size; /* fixed_size(form) */
};

struct abbrev {
	unsigned tag;
	bool children, present;
	bool declaration;       /* DW_AT_declaration, given in the abbreviation itself */
	uint32_t first, nattrs; /* in unit.specs */
	int fixed;              /* bytes of all its attributes when none varies, else -1 */
	/* Where DW_AT_sibling's value is when only fixed-size values come
	 * before it (its form a reference of that many bytes), else -1: most
	 * entries with children are passed over without decoding the rest. */
	int sibling_at, sibling_size;
};

struct unit {
	const unsigned char *start, *end; /* header to end of the unit */
	uint64_t off;                     /* of start in .debug_info */
	int version, offset_size, address_size;
	struct abbrev *abbrevs; /* by code */
	uint32_t nabbrevs;
	struct attr_spec *specs;
};

/* The size of a form's value when it does not depend on the bytes, else -1. */
static int fixed_size(const struct unit *u, unsigned form)
{
	switch (form) {
	case FORM_FLAG_PRESENT:
	case FORM_IMPLICIT_CONST:
		return 0;
	case FORM_DATA1:
	case FORM_REF1:
	case FORM_FLAG:
	case FORM_STRX1:
	case FORM_ADDRX1:
		return 1;
	case FORM_DATA2:
	case FORM_REF2:
	case FORM_STRX2:
	case FORM_ADDRX2:
		return 2;
	case FORM_STRX3:
	case FORM_ADDRX3:
		return 3;
	case FORM_DATA4:
	case FORM_REF4:
	case FORM_REF_SUP4:
	case FORM_STRX4:
	case FORM_ADDRX4:
		return 4;
	case FORM_DATA8:
	case FORM_REF8:
	case FORM_REF_SIG8:
	case FORM_REF_SUP8:
		return 8;
	case FORM_DATA16:
		return 16;
	case FORM_ADDR:
		return u->address_size;
	case FORM_REF_ADDR:
		return u->version == 2 ? u->address_size : u->offset_size;
	case FORM_STRP:
	case FORM_LINE_STRP:
	case FORM_SEC_OFFSET:
	case FORM_STRP_SUP:
	case FORM_GNU_REF_ALT:
	case FORM_GNU_STRP_ALT:
		return u->offset_size;
	default:
		return -1;
	}
}

/* Past one attribute value; its value in *v for the forms that are a
 * number (the rest leave it 0). False for a form not known here. */
static bool skip_form(struct cursor *c, const struct unit *u, unsigned form, uint64_t *v)
{
	*v = 0;
	int size = fixed_size(u, form);
	if (size >= 0) {
		if (size <= 8)
			*v = cur_fixed(c, size);
		else
			cur_skip(c, (uint64_t)size);
		return true;
	}
	switch (form) {
	case FORM_UDATA:
	case FORM_REF_UDATA:
	case FORM_STRX:
	case FORM_ADDRX:
	case FORM_LOCLISTX:
	case FORM_RNGLISTX:
	case FORM_GNU_ADDR_INDEX:
	case FORM_GNU_STR_INDEX:
		*v = cur_uleb(c);
		return true;
	case FORM_SDATA:
		cur_skip_leb(c);
		return true;
	case FORM_STRING:
		cur_string(c);
		return true;
	case FORM_BLOCK:
	case FORM_EXPRLOC:
		cur_skip(c, cur_uleb(c));
		return true;
	case FORM_BLOCK1:
		cur_skip(c, cur_fixed(c, 1));
		return true;
	case FORM_BLOCK2:
		cur_skip(c, cur_fixed(c, 2));
		return true;
	case FORM_BLOCK4:
		cur_skip(c, cur_fixed(c, 4));
		return true;
	default: /* DW_FORM_indirect among them: GCC does not use it */
		return false;
	}
}

/* The unit's abbreviation table, indexed by code. */
static bool read_abbrevs(struct unit *u, const struct dwscan_sections *secs, uint64_t off)
{
	if (off >= secs->abbrev_size)
		return false;
	struct cursor c = { secs->abbrev + off, secs->abbrev + secs->abbrev_size, true };
	size_t nspecs = 0, cap = 0;
	for (;;) {
		uint64_t code = cur_uleb(&c);
		if (!c.ok || code == 0)
			break;
		uint64_t tag = cur_uleb(&c);
		bool children = cur_fixed(&c, 1) != 0;
		if (code >= MAX_ABBREV_CODE || tag > UINT32_MAX)
			return false;
		if (code >= u->nabbrevs) {
			uint32_t n = u->nabbrevs ? u->nabbrevs : 64;
			while (n <= code)
				n *= 2;
			u->abbrevs = xrealloc(u->abbrevs, n * sizeof *u->abbrevs);
			memset(u->abbrevs + u->nabbrevs, 0, (n - u->nabbrevs) * sizeof *u->abbrevs);
			u->nabbrevs = n;
		}
		struct abbrev *a = &u->abbrevs[code];
		if (a->present) /* a code defined twice: not a table to trust */
			return false;
		*a = (struct abbrev){ .tag = (unsigned)tag, .children = children, .present = true,
				      .first = (uint32_t)nspecs, .sibling_at = -1 };
		for (;;) {
			uint64_t name = cur_uleb(&c), form = cur_uleb(&c), implicit = 0;
			if (!c.ok || (name == 0 && form == 0))
				break;
			if (form == FORM_IMPLICIT_CONST)
				implicit = cur_uleb(&c); /* its sign does not matter: zero or not */
			if (name > UINT16_MAX || form > UINT16_MAX)
				return false;
			if (nspecs == cap) {
				cap = cap ? 2 * cap : 256;
				u->specs = xrealloc(u->specs, cap * sizeof *u->specs);
			}
			int size = fixed_size(u, (unsigned)form);
			u->specs[nspecs++] = (struct attr_spec){ (uint16_t)name, (uint16_t)form,
								 (int8_t)size };
			a->nattrs++;
			if (name == AT_DECLARATION && (form == FORM_FLAG_PRESENT ||
						       (form == FORM_IMPLICIT_CONST && implicit)))
				a->declaration = true;
			if (name == AT_SIBLING && a->fixed >= 0 &&
			    (form == FORM_REF1 || form == FORM_REF2 || form == FORM_REF4 ||
			     form == FORM_REF8)) {
				a->sibling_at = a->fixed;
				a->sibling_size = size;
			}
			a->fixed = a->fixed < 0 || size < 0 ? -1 : a->fixed + size;
		}
	}
	return c.ok;
}

/* What one entry's attributes say that the scan needs. */
struct entry {
	const struct abbrev *a;
	uint64_t sibling, low_pc;
	bool has_sibling, has_addr_low_pc, has_other_code, declaration;
	bool has_inline; /* DW_AT_inline: an abstract instance */
};

/* Past the attributes of the entry whose abbreviation code was just read. */
static bool read_entry(struct cursor *c, const struct unit *u, uint64_t code, struct entry *e)
{
	if (code >= u->nabbrevs || !u->abbrevs[code].present)
		return false;
	const struct abbrev *a = &u->abbrevs[code];
	*e = (struct entry){ .a = a, .declaration = a->declaration };
	if (a->tag != TAG_SUBPROGRAM || a->declaration) {
		/* Nothing to read but where the next entry is. */
		if (!a->children && a->fixed >= 0) {
			cur_skip(c, (uint64_t)a->fixed);
			return c->ok;
		}
		if (a->children && a->sibling_at >= 0) {
			struct cursor at = *c;
			cur_skip(&at, (uint64_t)a->sibling_at);
			e->sibling = cur_fixed(&at, a->sibling_size);
			e->has_sibling = true;
			return at.ok;
		}
	}
	for (uint32_t i = 0; i < a->nattrs; i++) {
		const struct attr_spec *s = &u->specs[a->first + i];
		uint64_t v;
		if (s->size >= 0 && s->size <= 8)
			v = cur_fixed(c, s->size);
		else if (!skip_form(c, u, s->form, &v))
			return false;
		switch (s->name) {
		case AT_SIBLING:
			if (s->form == FORM_REF_ADDR || s->form == FORM_REF_SIG8 ||
			    s->form == FORM_GNU_REF_ALT || s->form == FORM_REF_SUP4 ||
			    s->form == FORM_REF_SUP8)
				return false;
			e->sibling = v;
			e->has_sibling = true;
			break;
		case AT_LOW_PC:
			if (s->form == FORM_ADDR) {
				e->low_pc = v;
				e->has_addr_low_pc = true;
			} else {
				e->has_other_code = true;
			}
			break;
		case AT_ENTRY_PC:
		case AT_RANGES:
			e->has_other_code = true;
			break;
		case AT_INLINE:
			e->has_inline = true;
			break;
		case AT_DECLARATION:
			if (s->form != FORM_IMPLICIT_CONST) /* that one is in the abbreviation */
				e->declaration = s->form == FORM_FLAG_PRESENT || v != 0;
			break;
		}
	}
	return c->ok;
}

/* To e's DW_AT_sibling: only forward, and inside the unit, so that
 * damaged bytes cannot make the scan loop or leave the unit. */
static bool to_sibling(struct cursor *c, const struct unit *u, const struct entry *e)
{
	const unsigned char *next = u->start + e->sibling;
	if (e->sibling >= (uint64_t)(u->end - u->start) || next <= c->p)
		return false;
	c->p = next;
	return true;
}

/* Past the children of an entry that has no DW_AT_sibling. */
static bool skip_children(struct cursor *c, const struct unit *u)
{
	for (size_t depth = 1; depth > 0;) {
		uint64_t code = cur_uleb(c);
		if (!c->ok)
			return false;
		if (code == 0) {
			depth--;
			continue;
		}
		struct entry e;
		if (!read_entry(c, u, code, &e))
			return false;
		if (!e.a->children)
			continue;
		if (!e.has_sibling)
			depth++;
		else if (!to_sibling(c, u, &e))
			return false;
	}
	return true;
}

/* The unit header at off: its version, sizes and abbreviation table. */
static bool read_header(struct unit *u, const struct dwscan_sections *secs, uint64_t off,
			struct cursor *c)
{
	if (!secs->info || off >= secs->info_size)
		return false;
	*c = (struct cursor){ secs->info + off, secs->info + secs->info_size, true };
	u->start = c->p;
	u->off = off;
	u->offset_size = 4;
	uint64_t length = cur_fixed(c, 4);
	if (length == 0xffffffff) {
		u->offset_size = 8;
		length = cur_fixed(c, 8);
	} else if (length >= 0xfffffff0) {
		return false;
	}
	if (!c->ok || length > (uint64_t)(c->end - c->p))
		return false;
	u->end = c->p + length;
	c->end = u->end;
	u->version = (int)cur_fixed(c, 2);
	uint64_t abbrev_off;
	if (u->version >= 2 && u->version <= 4) {
		abbrev_off = cur_fixed(c, u->offset_size);
		u->address_size = (int)cur_fixed(c, 1);
	} else if (u->version == 5) {
		unsigned type = (unsigned)cur_fixed(c, 1);
		if (type != UT_COMPILE && type != UT_PARTIAL)
			return false;
		u->address_size = (int)cur_fixed(c, 1);
		abbrev_off = cur_fixed(c, u->offset_size);
	} else {
		return false;
	}
	if (!c->ok || (u->address_size != 4 && u->address_size != 8))
		return false;
	return read_abbrevs(u, secs, abbrev_off);
}

/* abstract: report the abstract instances (DW_AT_inline) instead of the
 * functions with code. */
static bool scan(struct unit *u, struct cursor *c, bool abstract, dwscan_fn *fn, void *ctx)
{
	/* The unit's own entry, then its children up to their null entry. */
	struct entry e;
	uint64_t code = cur_uleb(c);
	if (!c->ok || code == 0 || !read_entry(c, u, code, &e))
		return false;
	if (!e.a->children) /* a unit without entries */
		return true;
	for (;;) {
		const unsigned char *at = c->p;
		code = cur_uleb(c);
		if (!c->ok)
			return false;
		if (code == 0)
			return true;
		if (!read_entry(c, u, code, &e))
			return false;
		if (e.a->tag == TAG_SUBPROGRAM && !e.declaration &&
		    (abstract ? e.has_inline : e.has_addr_low_pc || e.has_other_code)) {
			struct dwscan_func f = { u->off + (uint64_t)(at - u->start), e.low_pc,
						 e.has_addr_low_pc };
			if (!fn(&f, ctx))
				return true;
		}
		if (!e.a->children)
			continue;
		if (!(e.has_sibling ? to_sibling(c, u, &e) : skip_children(c, u)))
			return false;
	}
}

static bool scan_unit(const struct dwscan_sections *secs, uint64_t unit_off, bool abstract,
		      dwscan_fn *fn, void *ctx)
{
	struct unit u = { 0 };
	struct cursor c;
	bool ok = read_header(&u, secs, unit_off, &c) && scan(&u, &c, abstract, fn, ctx);
	free(u.abbrevs);
	free(u.specs);
	return ok;
}

bool dwscan_functions(const struct dwscan_sections *secs, uint64_t unit_off, dwscan_fn *fn,
		      void *ctx)
{
	return scan_unit(secs, unit_off, false, fn, ctx);
}

bool dwscan_abstract_functions(const struct dwscan_sections *secs, uint64_t unit_off,
			       dwscan_fn *fn, void *ctx)
{
	return scan_unit(secs, unit_off, true, fn, ctx);
}
