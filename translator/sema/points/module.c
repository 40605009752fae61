// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * module("M").function("F") and .statement: a module's functions, from
 * its DWARF, else its BTF, else its symbol table.
 */
#include <fnmatch.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "debuginfo/btf.h"
#include "debuginfo/dw.h"
#include "debuginfo/kernel.h"
#include "debuginfo/userelf.h"
#include "front/diag.h"
#include "sema/points/points.h"
#include "sema/sema.h"

/* The module's own file: named by path, installed, or else the loose
 * debug file found for it (the same build); NULL if none. */
static const char *module_elf(struct pp_ctx *c, const char *module, const char *module_file)
{
	if (module_file)
		return module_file;
	const char *ko = debugfind_installed(c->s->debug_ix, module);
	if (ko)
		return ko;
	const struct debug_file *f = debugfind(c->s->debug_ix, module);
	return f && !f->member ? f->path : NULL;
}

/* The build-id of the module's file, for the probe cache (NULL without
 * one, or if unknown). */
static char *module_build_id(struct pp_ctx *c, const char *module, const char *module_file)
{
	const char *elf = c->s->probe_cache ? module_elf(c, module, module_file) : NULL;
	return elf ? debugfind_build_id(elf) : NULL;
}

static void collect_name(const char *name, void *names)
{
	pv_push(names, (void *)name);
}

/* The nearest function to y in its section whose name is unique in the
 * module: before y, else after it (a negative offset); NULL if none. */
static const struct ksym *unique_neighbour(const struct ksym *syms, size_t n, const struct ksym *y)
{
	const struct ksym *best = NULL;
	for (size_t i = 0; i < n; i++) {
		const struct ksym *k = &syms[i];
		if (k->shndx != y->shndx || (i > 0 && !strcmp(syms[i - 1].name, k->name)) ||
		    (i + 1 < n && !strcmp(syms[i + 1].name, k->name)))
			continue;
		bool before = k->addr <= y->addr, best_before = best && best->addr <= y->addr;
		if (!best || (before && !best_before) ||
		    (before == best_before && (before ? k->addr > best->addr : k->addr < best->addr)))
			best = k;
	}
	return best;
}

/*
 * module("m").function("f") without the module's DWARF: the functions its
 * BTF describes (on top of the kernel's), with their parameters, or with
 * --symtab (or no BTF) those of its symbol table, without. Each is placed
 * through the module's symbol table: by its name, or, when several static
 * functions share it, each copy by a unique neighbour in its section. -1
 * with *why when the module has no BTF and the body reads $variables, or
 * is not installed.
 */
static int module_btf_sites(struct pp_ctx *c, const char *module, const char *module_file,
			    const char *func, enum probe_kind kind, struct ptrvec *sites,
			    size_t *left_out, char **why)
{
	struct btf_source *kb = sema_kernel_btf(c->s);
	const char *ko = module_elf(c, module, module_file);
	if (!ko) {
		*why = xasprintf("module %s is not installed for kernel %s", module, c->s->release);
		return -1;
	}
	struct btf_source *mb = kb && !c->s->force_symtab ? btf_open_module(ko, kb, why) : NULL;
	if (!mb && c->pt->uses_targets) {
		/* $variables need types: the caller says what would give them. */
		if (!*why)
			*why = xstrdup(c->s->force_symtab ? "--symtab reads no types"
							  : "the kernel has no BTF for the module's to build on");
		return -1;
	}
	free(*why);
	*why = NULL;
	size_t nsyms = 0;
	struct ksym *syms = symbols_read_elf_functions(ko, &nsyms);
	char *build_id = debugfind_build_id(ko);
	struct ptrvec names = { 0 };
	if (mb)
		btf_each_function(mb, func, collect_name, &names);
	else
		for (size_t i = 0; i < nsyms; i++)
			if ((i == 0 || strcmp(syms[i].name, syms[i - 1].name)) &&
			    !fnmatch(func, syms[i].name, 0))
				pv_push(&names, syms[i].name);
	bool wild = strpbrk(func, "*?[") != NULL;
	int found = 0;
	for (size_t i = 0; i < names.n; i++) {
		const char *name = names.v[i];
		const struct ksym *y = symbols_find(syms, nsyms, name);
		size_t copies = 0;
		while (y && y + copies < syms + nsyms && !strcmp(y[copies].name, name))
			copies++;
		if (!copies)
			(*left_out)++; /* not in its text */
		for (size_t k = 0; k < copies; k++) {
			/* Several static functions of that name: each by a unique neighbour. */
			const struct ksym *anchor = copies == 1 ? y : unique_neighbour(syms, nsyms, &y[k]);
			if (!anchor) {
				(*left_out)++;
				continue;
			}
			struct probe_site *site = mb ? btf_function_site(mb, name) : NULL;
			if (!mb) {
				/* Symbols only: no parameters, no return type. */
				site = xcalloc(1, sizeof *site);
				site->function = xstrdup(name);
				site->source = "symbol table";
				site->vars_loaded = true;
			}
			if (!site || returns_nothing_for(c, kind, wild, site))
				continue;
			site->object = xstrdup(module);
			site->object_file = xstrdup(ko);
			site->build_id = build_id ? xstrdup(build_id) : NULL;
			site->anchor = xstrdup(anchor->name);
			site->anchor_offset = (int64_t)(y[k].addr - anchor->addr);
			if (copies > 1) {
				/* pp() tells the copies apart by where each is. */
				char *sec = symbols_elf_section_name(ko, y[k].shndx);
				site->decl_file = xasprintf("%s+0x%" PRIx64, sec ? sec : "?", y[k].addr);
				free(sec);
			}
			pv_push(sites, site);
			found++;
		}
	}
	pv_free(&names);
	symbols_free(syms, nsyms);
	free(build_id);
	return found;
}

/* No debug information for module: where it was looked for, what gives
 * it, and (btf_why) why BTF could not stand in. */
static void no_debuginfo(struct pp_ctx *c, const char *module, char *why, const char *btf_why,
			 struct loc loc)
{
	const struct debug_index *ix = c->s->debug_ix;
	if (why) {
		diag_error(loc, D_NO_DEBUGINFO, "cannot use the debug information of module '%s': %s",
			   module, why);
		return;
	}
	diag_error(loc, D_NO_DEBUGINFO, "no debug information for module '%s' (kernel %s)", module,
		   c->s->release);
	if (btf_why)
		diag_note(loc, "and no BTF to read its types from instead: %s", btf_why);
	struct strbuf b;
	sb_init(&b);
	for (size_t i = 0; i < ix->looked.n; i++)
		sb_printf(&b, "%s%s", i ? "; " : "", (char *)ix->looked.v[i]);
	diag_note(loc, "looked in: %s", b.s);
	sb_free(&b);
	diag_hint("for Debian's own modules install linux-image-%s-dbg and run "
		  "'eu-make-debug-archive --kernel %s'; for a module you built, build it with -g "
		  "and give its directory with --debuginfo-path",
		  c->s->release, c->s->release);
}

static void module_function_point(struct pp_ctx *c)
{
	const struct comp *mc = &c->comps[0], *fc = &c->comps[1];
	enum probe_kind kind = PK_KPROBE;
	bool statement = comp_is(c, 1, "statement"), inline_copies = false;
	/* .callee, .callees, .label: F's call sites or labels, in its DWARF. */
	bool inside = function_inside_point(c);
	if (statement && c->n != 2) {
		unknown_shape(c);
		return;
	}
	if (!statement && c->n == 3 && comp_is(c, 2, "return")) {
		kind = PK_KRETPROBE;
	} else if (!statement && c->n == 3 && comp_is(c, 2, "inline")) {
		inline_copies = true;
	} else if (!statement && !inside && !(c->n == 2 || (c->n == 3 && comp_is(c, 2, "call")))) {
		unknown_shape(c);
		return;
	}
	if (!mc->arg || mc->arg->kind != N_STR) {
		diag_error(mc->arg ? mc->arg->loc : mc->loc, D_BAD_PROBE_ARG,
			   "'module' takes a module name in quotes, e.g. module(\"ext4\")");
		return;
	}
	if (!fc->arg || fc->arg->kind != N_STR) {
		diag_error(fc->arg ? fc->arg->loc : fc->loc, D_BAD_PROBE_ARG,
			   "'function' takes a function name in quotes, e.g. function(\"ext4_read\")");
		return;
	}
	char *func, *file;
	struct dw_query q = { 0 };
	if (!split_function_spec(fc->arg->str, &func, &file, &q.line, &q.line_last) ||
	    (q.line_last && !statement)) {
		diag_error(fc->arg->loc, D_BAD_PROBE_ARG,
			   "'%s' is not NAME, NAME@FILE or NAME@FILE:LINE", fc->arg->str);
		if (q.line_last)
			diag_hint("a range of lines is for statement probes: statement(\"%s\")",
				  fc->arg->str);
		free(func);
		free(file);
		return;
	}
	q.function = func;
	q.file = file;
	if (statement && (!file || !q.line)) {
		diag_error(fc->arg->loc, D_BAD_PROBE_ARG,
			   "a statement probe needs a file and a line: statement(\"%s@FILE:LINE\")",
			   func);
		free(func);
		free(file);
		return;
	}
	struct dw *d = sema_debuginfo(c->s);
	char *pattern = debugfind_module_name(mc->arg->str);
	/* module("/path/to/m.ko"): that file is the module. */
	const char *module_file = strchr(mc->arg->str, '/') ? mc->arg->str : NULL;
	struct ptrvec modules = { 0 };
	if (!module_file && strpbrk(pattern, "*?[")) {
		/* Each module once, in name order, whatever places hold it. */
		const struct debug_index *ix = c->s->debug_ix;
		for (size_t i = 0; i < ix->nmodules; i++)
			if (!fnmatch(pattern, ix->by_name[i]->module, 0) &&
			    strcmp(ix->by_name[i]->module, "kernel"))
				pv_push(&modules, ix->by_name[i]->module);
		/* None has debug information: the installed ones, through BTF or
		 * the probe cache. */
		if (!modules.n && ((!statement && !inline_copies && !file) || c->s->probe_cache))
			debugfind_installed_matching(c->s->debug_ix, pattern, &modules);
	} else {
		pv_push(&modules, pattern);
	}
	struct ptrvec sites = { 0 };
	size_t left_out = 0;
	bool broken = false, too_many = false;
	bool wild_modules = !module_file && strpbrk(pattern, "*?[");
	for (size_t i = 0; i < modules.n; i++) {
		char *why = NULL;
		char *build_id = module_build_id(c, modules.v[i], module_file);
		int r = c->s->force_symtab
				? -1
				: query_sites(c, statement ? Q_STATEMENTS : inline_copies ? Q_INLINES : Q_FUNCTIONS,
					      modules.v[i], module_file, build_id, &q, &sites, &left_out, &why);
		/* .function, as in SystemTap, is also every copy inlined into a
		 * caller (.call and .return are the out-of-line copy alone). */
		if (r >= 0 && plain_function(c)) {
			char *inline_why = NULL;
			query_sites(c, Q_INLINES, modules.v[i], module_file, build_id, &q, &sites,
				    &left_out, &inline_why);
			free(inline_why);
		}
		free(build_id);
		/* No DWARF at all: BTF gives functions and parameters (not files, lines,
		 * statements or inlined copies). */
		char *btf_why = NULL;
		if (r < 0 && !why && !statement && !inline_copies && !inside && !file &&
		    module_btf_sites(c, modules.v[i], module_file, func, kind, &sites, &left_out,
				     &btf_why) >= 0)
			r = 0;
		if (r < 0 && btf_why && c->s->verbose && modules.n > 1)
			fprintf(stderr, "stap: no BTF either: %s\n", btf_why);
		if (r < 0) {
			if (modules.n == 1 && !c->pt->optional)
				no_debuginfo(c, modules.v[i], why, btf_why, mc->arg->loc);
			broken = true;
		}
		free(btf_why);
		free(why);
		if (wild_modules)
			dw_release(d, modules.v[i]);
	}
	if (modules.n == 0 && !c->pt->optional) {
		diag_error(mc->arg->loc, D_NO_DEBUGINFO,
			   "no module with debug information matches '%s'", mc->arg->str);
		struct strbuf b;
		sb_init(&b);
		for (size_t i = 0; i < c->s->debug_ix->looked.n; i++)
			sb_printf(&b, "%s%s", i ? "; " : "", (char *)c->s->debug_ix->looked.v[i]);
		diag_note(mc->arg->loc, "looked in: %s", b.s);
		sb_free(&b);
	}
	char *what = xasprintf("'%s' in '%s'", fc->arg->str, mc->arg->str);
	if (too_many_matches(c, fc->arg->loc, what, sites.n, "places")) {
		sites.n = 0;
		too_many = broken = true;
	}
	free(what);
	if (inside && comp_is(c, 2, "label"))
		label_probes(c, &sites);
	else if (inside && sites.n)
		callee_probes(c, module_file, &sites);
	for (size_t i = 0; i < sites.n && !inside; i++)
		add_site_probe(c, kind, sites.v[i]);
	if (c->s->verbose && left_out) {
		char *pp = ast_probe_point_text(c->pp);
		fprintf(stderr, "%s: %zu functions left out: only in init code (freed after loading) "
				"or with no symbol to place a probe by\n", pp, left_out);
		free(pp);
	}
	if (sites.n == 0 && !(broken && modules.n == 1) && !too_many && modules.n &&
	    !c->pt->optional) {
		if (modules.n == 1 && !left_out && statement) {
			diag_error(fc->arg->loc, D_UNKNOWN_KERNEL_FUNCTION,
				   "no statement of a function matching '%s' begins at %s:%d in module "
				   "'%s'",
				   func, file, q.line, (char *)modules.v[0]);
			statement_hint(d, modules.v[0], module_file, &q);
		} else if (modules.n == 1 && !left_out) {
			diag_error(fc->arg->loc, D_UNKNOWN_KERNEL_FUNCTION,
				   "module '%s' has no function matching '%s'", (char *)modules.v[0],
				   fc->arg->str);
			struct suggest sg;
			suggest_init(&sg, func);
			dw_each_function(d, modules.v[0], offer_name, &sg);
			suggest_hint(&sg, NULL);
		} else {
			diag_error(fc->arg->loc, D_UNKNOWN_KERNEL_FUNCTION,
				   "no function matching '%s' can be probed in module%s '%s'",
				   fc->arg->str, modules.n > 1 ? "s" : "", mc->arg->str);
			if (left_out)
				diag_hint("run with -v to see what was left out");
		}
	}
	pv_free(&modules);
	pv_free(&sites);
	free(pattern);
	free(func);
	free(file);
}

static const char *const module_usage[] = {
	"module(\"m\").function(\"name[@file[:line]]\")[.call|.return|.inline]",
	"module(\"m\").function(\"name\").callee(\"name\")[.call|.return]",
	"module(\"m\").function(\"name\").callees[(N)]",
	"module(\"m\").function(\"name\").label(\"name\")",
	"module(\"m\").statement(\"name@file:line\")",
	NULL,
};
static const char *const module_shapes[] = {
	"module.function",
	"module.function.call",
	"module.function.return",
	"module.function.inline",
	"module.function.callee",
	"module.function.callee.call",
	"module.function.callee.return",
	"module.function.callees",
	"module.function.label",
	"module.statement",
	NULL,
};

static bool module_takes(const struct pp_ctx *c)
{
	return comp_is(c, 0, "module") && (comp_is(c, 1, "function") || comp_is(c, 1, "statement"));
}

const struct family module_family = {
	.usage = module_usage,
	.shapes = module_shapes,
	.takes = module_takes,
	.resolve = module_function_point,
};
