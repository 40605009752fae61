/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The function definitions at the top level of one compilation unit,
 * found by a forward scan of its .debug_info bytes. Finding a function by
 * its address means walking a unit's top-level entries until its own: a
 * module's unit holds a thousand or more type entries before it, and
 * libdw's general reader (dwarf_siblingof, dwarf_tag) spends about 450
 * instructions on each. This scan decodes only what it must: an entry's
 * abbreviation, the size of its attributes, DW_AT_sibling, and for a
 * subprogram its low_pc. Plain bytes in, no libdw; anything it does not
 * understand makes it give up, and the caller asks libdw instead.
 */
#ifndef TAPLINE_DWSCAN_H
#define TAPLINE_DWSCAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct dwscan_sections {
	const unsigned char *info, *abbrev; /* .debug_info, .debug_abbrev */
	size_t info_size, abbrev_size;
};

/* A top-level DW_TAG_subprogram that is not a declaration and has code:
 * its entry's offset in .debug_info and, when its DW_AT_low_pc is a plain
 * address, that address (have_entry); otherwise (DW_AT_ranges,
 * DW_AT_entry_pc, an indexed address) the caller reads the entry itself. */
struct dwscan_func {
	uint64_t die;
	uint64_t entry;
	bool have_entry;
};

/* fn's answer: true to go on, false to stop the scan. */
typedef bool dwscan_fn(const struct dwscan_func *f, void *ctx);

/*
 * Calls fn for each such function of the unit whose header is at
 * unit_off in .debug_info, in the order of the unit. False if the unit
 * could not be scanned to its end here (a form or layout this scan does
 * not take, or damaged bytes); fn may have been called for some
 * functions before that.
 */
bool dwscan_functions(const struct dwscan_sections *secs, uint64_t unit_off, dwscan_fn *fn,
		      void *ctx);
/* The same for the unit's top-level abstract instances of inlined
 * functions (DW_TAG_subprogram with DW_AT_inline): f->die only. */
bool dwscan_abstract_functions(const struct dwscan_sections *secs, uint64_t unit_off,
			       dwscan_fn *fn, void *ctx);

#endif
