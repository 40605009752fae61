// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Global and static variables by name (dw_global), in a unit whose file
 * matches, in a probe site's own unit, or by symbol for an extern.
 */
#include <dwarf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "debuginfo/dw-private.h"

/* A data symbol of the module as a static: itself, when unique. */
static struct tstatic *static_of_symbol(struct dw_obj *o, const char *name)
{
	if (o->is_kernel) {
		GElf_Addr value;
		if (!symtab_value(o, name, STT_OBJECT, &value))
			return NULL;
		struct tstatic *st = xcalloc(1, sizeof *st);
		st->object = xstrdup(o->name);
		st->text_offset = value - o->text_addr;
		return st;
	}
	for (size_t i = 0; i < o->nsyms; i++) {
		const struct dw_sym *y = &o->syms[i];
		if (y->is_func || !y->unique || strcmp(y->name, name))
			continue;
		uint64_t addr = y->offset;
		for (size_t k = 0; k < o->nsecs; k++)
			if (o->laid_out && !strcmp(o->secs[k].name, y->section))
				addr += o->secs[k].addr;
		if (!o->laid_out)
			addr = y->value - o->bias;
		return static_at(o, addr);
	}
	return NULL;
}


/*
 * The global or static variable name of module: defined in a unit whose
 * source file matches file (any unit when NULL), or only in the unit of
 * the DIE at in_unit_of when that is not 0. A declaration with no
 * definition in reach (an extern) is found by its symbol. NULL with *why.
 */
struct tvar *dw_global(struct dw *d, const char *module, const char *name, const char *file,
		       uint64_t in_unit_of, char **why)
{
	*why = NULL;
	struct dw_obj *o = usable_obj(d, module, NULL, true, why);
	if (!o) {
		if (!*why)
			*why = xasprintf("no debug information for %s was found", module);
		return NULL;
	}
	o->kept = true;
	char *key = xasprintf("%s@%s#%llx", name, file ? file : "", (unsigned long long)in_unit_of);
	for (size_t i = 0; i < o->global_keys.n; i++)
		if (!strcmp(o->global_keys.v[i], key)) {
			free(key);
			return o->globals.v[i];
		}
	Dwarf_Die def, decl, only_cu;
	int ndefs = 0;
	bool have_decl = false;
	struct strbuf where = { 0 };
	Dwarf_Off off = 0, next;
	size_t hsize;
	if (in_unit_of) {
		Dwarf_Die die;
		if (!dwarf_offdie(o->dbg, in_unit_of, &die) || !dwarf_diecu(&die, &only_cu, NULL, NULL)) {
			*why = xstrdup("its unit cannot be read");
			free(key);
			return NULL;
		}
	}
	while (dwarf_nextcu(o->dbg, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu, v;
		if (in_unit_of)
			cu = only_cu;
		bool ok = in_unit_of || dwarf_offdie(o->dbg, off + hsize, &cu);
		if (ok && (!file || file_matches(file, unit_file(&cu))) && dwarf_child(&cu, &v) == 0) {
			do {
				Dwarf_Attribute na;
				if (dwarf_tag(&v) != DW_TAG_variable)
					continue;
				const char *vn = dwarf_formstring(dwarf_attr_integrate(&v, DW_AT_name, &na));
				if (!vn || strcmp(vn, name))
					continue;
				if (dwarf_hasattr(&v, DW_AT_location) ||
				    dwarf_hasattr(&v, DW_AT_const_value)) {
					if (ndefs++ == 0)
						def = v;
					sb_printf(&where, "%s%s", ndefs > 1 ? ", " : "", unit_file(&cu));
				} else if (!have_decl) {
					decl = v;
					have_decl = true;
				}
			} while (dwarf_siblingof(&v, &v) == 0);
		}
		if (in_unit_of)
			break;
		off = next;
	}
	struct tvar *tv = NULL;
	if (ndefs > 1) {
		*why = xasprintf("there are %d variables named '%s' (in %s): name the file, as "
				 "@var(\"%s@FILE\")",
				 ndefs, name, where.s, name);
	} else if (ndefs == 1 || have_decl) {
		tv = xcalloc(1, sizeof *tv);
		tv->name = xstrdup(name);
		struct where w = { o, NULL, 0, false };
		if (ndefs == 1) {
			load_var(&w, &def, tv);
		} else {
			Dwarf_Die ty;
			tv->type = dw_type(o, die_type(&decl, &ty) ? &ty : NULL);
			tv->loc.stat = static_of_symbol(o, name);
			if (tv->loc.stat) {
				tv->loc.kind = TL_MEMORY;
				tv->loc.ops = xcalloc(1, sizeof *tv->loc.ops);
				tv->loc.ops[0] = (struct tloc_op){ LO_STATIC, 0 };
				tv->loc.nops = 1;
			} else {
				tv->loc.kind = TL_NONE;
				tv->loc.why = xasprintf("it is only declared here, and %s has no symbol "
							"'%s'", o->file, name);
			}
		}
	} else {
		*why = xasprintf("%s has no global or static variable '%s'%s%s", o->file, name,
				 file ? " in a file matching " : "", file ? file : "");
	}
	free(where.s);
	if (tv) {
		pv_push(&o->global_keys, key);
		pv_push(&o->globals, tv);
	} else {
		free(key);
	}
	return tv;
}
