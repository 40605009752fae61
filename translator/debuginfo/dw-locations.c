// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * DWARF location expressions as the target model's locations (tloc):
 * where a variable is at a probe site, or why it cannot be had (an
 * operation Tapline cannot use, a part optimized out): one place that
 * knows DWARF's operations, for parameters, locals and globals alike.
 */
#include <dwarf.h>
#include <stdlib.h>
#include <string.h>

#include "debuginfo/dw-private.h"

struct loc_builder {
	struct tloc *l;
	size_t cap;
};

static void emit(struct loc_builder *b, enum tloc_op_kind k, int64_t arg)
{
	if (b->l->nops == b->cap) {
		b->cap = b->cap ? 2 * b->cap : 4;
		b->l->ops = xrealloc(b->l->ops, b->cap * sizeof *b->l->ops);
	}
	b->l->ops[b->l->nops++] = (struct tloc_op){ k, arg };
}

/* The names of the DWARF operations a location may hold that Tapline
 * cannot use somewhere, for messages. */
static const char *op_name(unsigned op)
{
	static const struct { unsigned op; const char *name; } names[] = {
		{ DW_OP_addr, "DW_OP_addr" }, { DW_OP_fbreg, "DW_OP_fbreg" },
		{ DW_OP_call_frame_cfa, "DW_OP_call_frame_cfa" },
		{ DW_OP_entry_value, "DW_OP_entry_value" }, { DW_OP_GNU_entry_value, "DW_OP_GNU_entry_value" },
		{ DW_OP_implicit_value, "DW_OP_implicit_value" },
		{ DW_OP_implicit_pointer, "DW_OP_implicit_pointer" },
		{ DW_OP_GNU_implicit_pointer, "DW_OP_GNU_implicit_pointer" },
		{ DW_OP_GNU_parameter_ref, "DW_OP_GNU_parameter_ref" },
		{ DW_OP_convert, "DW_OP_convert" }, { DW_OP_GNU_convert, "DW_OP_GNU_convert" },
		{ DW_OP_piece, "DW_OP_piece" }, { DW_OP_bit_piece, "DW_OP_bit_piece" },
		{ DW_OP_form_tls_address, "DW_OP_form_tls_address" },
		{ DW_OP_GNU_push_tls_address, "DW_OP_GNU_push_tls_address" },
	};
	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		if (names[i].op == op)
			return names[i].name;
	return NULL;
}

static void unusable(struct tloc *l, const char *what, unsigned op)
{
	free(l->ops);
	l->ops = NULL;
	l->nops = 0;
	l->kind = TL_NONE;
	const char *name = op_name(op);
	l->why = name ? xasprintf("%s (its location uses %s)", what, name)
		      : xasprintf("%s (its location uses DWARF operation 0x%x)", what, op);
}

/*
 * The canonical frame address at pc. At the function's entry it is
 * rsp + 8 (only the return address was pushed); elsewhere the call frame
 * information says (.debug_frame, or .eh_frame).
 */
static bool emit_cfa(struct loc_builder *b, const struct where *w)
{
	if (w->at_entry) {
		emit(b, LO_REG, 7);
		emit(b, LO_PLUS, 8);
		return true;
	}
	Dwarf_Addr bias;
	Dwarf_CFI *cfi = dwarf_getcfi(w->o->dbg);
	Dwarf_Frame *frame = NULL;
	if (!cfi || dwarf_cfi_addrframe(cfi, w->pc, &frame) != 0) {
		/* .eh_frame's addresses are its file's: DWARF's moved by the
		 * one bias, back by the other (a user program's DWARF and
		 * .eh_frame may sit in two files). */
		cfi = dwfl_module_eh_cfi(w->o->mod, &bias);
		if (!cfi || dwarf_cfi_addrframe(cfi, w->pc + w->o->bias - bias, &frame) != 0)
			return false;
	}
	Dwarf_Op *ops;
	size_t n;
	bool ok = dwarf_frame_cfa(frame, &ops, &n) == 0 && n == 1;
	/* libdw gives a register-plus-offset rule as DW_OP_bregx. */
	if (ok && ops[0].atom == DW_OP_bregx) {
		emit(b, LO_REG, (int64_t)ops[0].number);
		emit(b, LO_PLUS, (int64_t)ops[0].number2);
	} else if (ok && ops[0].atom >= DW_OP_breg0 && ops[0].atom <= DW_OP_breg31) {
		emit(b, LO_REG, ops[0].atom - DW_OP_breg0);
		emit(b, LO_PLUS, (int64_t)ops[0].number);
	} else {
		ok = false;
	}
	free(frame);
	return ok;
}

/* The frame base of the function (DW_AT_frame_base) at pc. */
static bool emit_frame_base(struct loc_builder *b, const struct where *w)
{
	Dwarf_Attribute a;
	Dwarf_Op *ops;
	size_t n;
	if (!dwarf_attr_integrate(w->func, DW_AT_frame_base, &a) ||
	    dwarf_getlocation_addr(&a, w->pc, &ops, &n, 1) != 1 || n != 1)
		return false;
	if (ops[0].atom == DW_OP_call_frame_cfa)
		return emit_cfa(b, w);
	/* clang: the frame pointer's value (set by the prologue). */
	if (ops[0].atom >= DW_OP_reg0 && ops[0].atom <= DW_OP_reg31) {
		emit(b, LO_REG, ops[0].atom - DW_OP_reg0);
		return true;
	}
	if (ops[0].atom >= DW_OP_breg0 && ops[0].atom <= DW_OP_breg31) {
		emit(b, LO_REG, ops[0].atom - DW_OP_breg0);
		emit(b, LO_PLUS, (int64_t)ops[0].number);
		return true;
	}
	return false;
}

/*
 * The symbol of o unique by name nearest at or before offset off of
 * section sec (the one named name itself if it is there), else the nearest
 * after it; only functions if funcs. NULL if the section has none.
 */
const struct dw_sym *nearest_unique(const struct dw_obj *o, const char *sec, uint64_t off,
				    bool funcs, const char *name)
{
	const struct dw_sym *below = NULL, *above = NULL;
	for (size_t i = 0; i < o->nsyms; i++) {
		const struct dw_sym *y = &o->syms[i];
		if (!y->unique || (funcs && !y->is_func) || strcmp(y->section, sec))
			continue;
		if (name && !strcmp(y->name, name) && y->offset == off)
			return y;
		if (y->offset <= off && (!below || y->offset > below->offset))
			below = y;
		if (y->offset > off && (!above || y->offset < above->offset))
			above = y;
	}
	return below ? below : above;
}

/*
 * A static object at DWARF's address addr, as the runtime can find it: an
 * offset from _text in the kernel; in a module, an offset from the
 * nearest unique symbol of the same section; in a user file, its virtual
 * address there. NULL if there is none.
 */
struct tstatic *static_at(struct dw_obj *o, Dwarf_Addr addr)
{
	if (o->is_user) {
		/* Found at run time through the file's mapping in the process. */
		struct tstatic *st = xcalloc(1, sizeof *st);
		st->object = xstrdup(o->name);
		st->build_id = o->build_id ? xstrdup(o->build_id) : NULL;
		st->user_vaddr = addr + o->bias - o->elf_bias;
		return st;
	}
	if (o->is_kernel) {
		struct tstatic *st = xcalloc(1, sizeof *st);
		st->object = xstrdup(o->name);
		st->text_offset = addr + o->bias - o->text_addr;
		return st;
	}
	uint64_t off;
	const char *sec = dwarf_to_section(o, addr, &off);
	if (!sec)
		return NULL;
	const struct dw_sym *best = nearest_unique(o, sec, off, false, NULL);
	if (!best)
		return NULL;
	struct tstatic *st = xcalloc(1, sizeof *st);
	st->object = xstrdup(o->name);
	st->build_id = o->build_id ? xstrdup(o->build_id) : NULL;
	st->symbol = xstrdup(best->name);
	st->offset = (int64_t)(off - best->offset);
	return st;
}

/* One DWARF expression (without pieces) into l. */
static void translate_ops(struct tloc *l, struct loc_builder *b, Dwarf_Attribute *attr,
			  Dwarf_Op *ops, size_t n, const struct where *w)
{
	l->kind = TL_MEMORY;
	for (size_t i = 0; i < n; i++) {
		unsigned op = ops[i].atom;
		if (op >= DW_OP_reg0 && op <= DW_OP_reg31) {
			emit(b, LO_REG, op - DW_OP_reg0);
			l->kind = TL_VALUE;
		} else if (op == DW_OP_regx) {
			emit(b, LO_REG, (int64_t)ops[i].number);
			l->kind = TL_VALUE;
		} else if (op >= DW_OP_breg0 && op <= DW_OP_breg31) {
			emit(b, LO_REG, op - DW_OP_breg0);
			emit(b, LO_PLUS, (int64_t)ops[i].number);
		} else if (op == DW_OP_bregx) {
			emit(b, LO_REG, (int64_t)ops[i].number);
			emit(b, LO_PLUS, (int64_t)ops[i].number2);
		} else if (op >= DW_OP_lit0 && op <= DW_OP_lit31) {
			emit(b, LO_CONST, op - DW_OP_lit0);
		} else if (op == DW_OP_const1u || op == DW_OP_const2u || op == DW_OP_const4u ||
			   op == DW_OP_const8u || op == DW_OP_constu || op == DW_OP_const1s ||
			   op == DW_OP_const2s || op == DW_OP_const4s || op == DW_OP_const8s ||
			   op == DW_OP_consts) {
			emit(b, LO_CONST, (int64_t)ops[i].number);
		} else if (op == DW_OP_plus_uconst) {
			emit(b, LO_PLUS, (int64_t)ops[i].number);
		} else if (op == DW_OP_fbreg) {
			if (!emit_frame_base(b, w))
				return unusable(l, "its frame base is not known here", op);
			emit(b, LO_PLUS, (int64_t)ops[i].number);
		} else if (op == DW_OP_call_frame_cfa) {
			if (!emit_cfa(b, w))
				return unusable(l, "no call frame information covers this point", op);
		} else if (op == DW_OP_deref) {
			emit(b, LO_DEREF, 8);
		} else if (op == DW_OP_deref_size) {
			emit(b, LO_DEREF, (int64_t)ops[i].number);
		} else if (op == DW_OP_plus || op == DW_OP_minus || op == DW_OP_mul || op == DW_OP_and ||
			   op == DW_OP_or) {
			emit(b, op == DW_OP_plus ? LO_ADD : op == DW_OP_minus ? LO_SUB :
				op == DW_OP_mul ? LO_MUL : op == DW_OP_and ? LO_AND : LO_OR, 0);
		} else if (op == DW_OP_neg) {
			emit(b, LO_NEG, 0);
		} else if (op == DW_OP_stack_value) {
			l->kind = TL_VALUE;
		} else if ((op == DW_OP_entry_value || op == DW_OP_GNU_entry_value) && w->at_entry) {
			/* At the entry a register's entry value is the register. */
			Dwarf_Attribute ea;
			Dwarf_Op *eops;
			size_t en;
			if (dwarf_getlocation_attr(attr, &ops[i], &ea) != 0 ||
			    dwarf_getlocation(&ea, &eops, &en) != 0 || en != 1 ||
			    eops[0].atom < DW_OP_reg0 || eops[0].atom > DW_OP_reg31)
				return unusable(l, "an entry value Tapline cannot read", op);
			emit(b, LO_REG, eops[0].atom - DW_OP_reg0);
		} else if ((op == DW_OP_addr || op == DW_OP_addrx || op == DW_OP_GNU_addr_index) &&
			   !l->stat) {
			/* DWARF 5 (clang's default) keeps the address in .debug_addr. */
			Dwarf_Addr addr = ops[i].number;
			Dwarf_Attribute aa;
			if (op != DW_OP_addr &&
			    (dwarf_getlocation_attr(attr, &ops[i], &aa) != 0 || dwarf_formaddr(&aa, &addr) != 0))
				return unusable(l, "its address could not be read", op);
			l->stat = static_at(w->o, addr);
			if (!l->stat)
				return unusable(l, "its static address has no symbol of its module to "
						   "find it by", op);
			emit(b, LO_STATIC, 0);
		} else {
			return unusable(l, "its location uses an operation Tapline does not "
					   "handle", op);
		}
	}
}

void translate_location(struct tloc *l, Dwarf_Attribute *attr, Dwarf_Op *ops, size_t n,
			const struct where *w)
{
	size_t npieces = 0;
	for (size_t i = 0; i < n; i++)
		npieces += ops[i].atom == DW_OP_piece;
	if (!npieces) {
		struct loc_builder b = { l, 0 };
		translate_ops(l, &b, attr, ops, n, w);
		return;
	}
	l->kind = TL_PIECES;
	l->pieces = xcalloc(npieces, sizeof *l->pieces);
	size_t start = 0;
	for (size_t i = 0; i < n; i++) {
		if (ops[i].atom != DW_OP_piece)
			continue;
		struct tloc_piece *p = &l->pieces[l->npieces++];
		p->size = ops[i].number;
		if (i == start) {
			p->loc.kind = TL_NONE;
			p->loc.why = xstrdup("part of it is optimized out");
		} else {
			struct loc_builder b = { &p->loc, 0 };
			translate_ops(&p->loc, &b, attr, ops + start, i - start, w);
		}
		if (p->loc.kind == TL_NONE) {
			char *why = p->loc.why;
			l->kind = TL_NONE;
			l->why = why;
			return;
		}
		start = i + 1;
	}
}
