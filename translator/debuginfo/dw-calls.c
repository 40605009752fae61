// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The calls a function makes, from the call-site entries GCC writes into
 * DWARF (DW_TAG_call_site, DW_TAG_GNU_call_site before DWARF 5): for
 * .callee and .callees, which probe a callee only when it was called from
 * one of these places. Only calls whose target the compiler knew are there
 * (not calls through pointers); a call's return address is what the
 * callee finds on its stack, which is how the runtime tells the calls
 * apart. A copy of a function inlined into the caller is a callee too: it
 * runs only there.
 */
#include <dwarf.h>
#include <stdlib.h>
#include <string.h>

#include "debuginfo/dw-private.h"

/* DWARF 5's attributes, and their GNU forms in DWARF 4. */
static bool call_target(Dwarf_Die *call, Dwarf_Die *target)
{
	Dwarf_Attribute a;
	if (!dwarf_attr(call, DW_AT_call_origin, &a) && !dwarf_attr(call, DW_AT_abstract_origin, &a))
		return false;
	return dwarf_formref_die(&a, target) != NULL;
}

static bool call_return_pc(Dwarf_Die *call, Dwarf_Addr *pc)
{
	Dwarf_Attribute a;
	if (dwarf_attr(call, DW_AT_call_return_pc, &a))
		return dwarf_formaddr(&a, pc) == 0;
	/* A GNU call site's low_pc is the address after the call. */
	return dwarf_tag(call) == DW_TAG_GNU_call_site && dwarf_lowpc(call, pc) == 0;
}

static bool is_tail_call(Dwarf_Die *call)
{
	bool flag = false;
	Dwarf_Attribute a;
	if (dwarf_attr(call, DW_AT_call_tail_call, &a) || dwarf_attr(call, DW_AT_GNU_tail_call, &a))
		dwarf_formflag(&a, &flag);
	return flag;
}

struct call_walk {
	struct dw_obj *o;
	Dwarf_Die *func;      /* the function whose frame the calls are made in */
	struct ptrvec *calls;
};

/* One DIE of the caller's body: a copy inlined here is a callee too (whose
 * own calls are one level deeper), a call site a real call. */
static void add_call(Dwarf_Die *die, void *ctx)
{
	struct call_walk *w = ctx;
	int tag = dwarf_tag(die);
	Dwarf_Attribute na;
	if (tag == DW_TAG_inlined_subroutine) {
		const char *name = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_name, &na));
		Dwarf_Addr pc;
		bool left_out;
		struct probe_site *site = name && function_entry(die, &pc)
			? inline_site(w->o, w->func, die, name, pc, NULL, &left_out)
			: NULL;
		if (!site)
			return;
		struct dw_call *call = xcalloc(1, sizeof *call);
		call->callee = xstrdup(name);
		call->callee_file = site->decl_file ? xstrdup(site->decl_file) : NULL;
		call->inlined = site;
		pv_push(w->calls, call);
		return;
	}
	if (tag != DW_TAG_call_site && tag != DW_TAG_GNU_call_site)
		return;
	Dwarf_Die target;
	Dwarf_Addr ret;
	if (!call_target(die, &target) || !call_return_pc(die, &ret))
		return;
	const char *name = dwarf_formstring(dwarf_attr_integrate(&target, DW_AT_name, &na));
	struct tstatic *st = name ? static_at(w->o, ret) : NULL;
	if (!st)
		return;
	struct dw_call *call = xcalloc(1, sizeof *call);
	call->callee = xstrdup(name);
	/* A declaration (a function of another unit) says where it was
	 * declared, not defined. */
	const char *file = dwarf_hasattr(&target, DW_AT_declaration) ? NULL : dwarf_decl_file(&target);
	call->callee_file = file ? xstrdup(file) : NULL;
	call->ret = st;
	call->tail = is_tail_call(die);
	pv_push(w->calls, call);
}

int dw_call_sites(const struct probe_site *caller, struct ptrvec *calls, char **why)
{
	Dwarf_Die func, body;
	/* An inlined copy's calls are its DIE's; its frame is the function's. */
	struct dw_obj *o = site_dwarf(caller, caller->src_frame ? caller->src_frame : caller->src_key,
				      &func);
	if (!o || !site_dwarf(caller, caller->src_key, &body)) {
		*why = xasprintf("cannot read the DWARF of %s again", caller->function);
		return -1;
	}
	size_t before = calls->n;
	struct call_walk w = { o, &func, calls };
	each_body_die(&body, add_call, &w);
	o->kept |= calls->n > before;
	return (int)(calls->n - before);
}

void dw_call_free(struct dw_call *call)
{
	free(call->callee);
	free(call->callee_file);
	free(call);
}
