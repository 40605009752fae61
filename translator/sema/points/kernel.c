// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * kernel.function, kprobe.function and kernel.statement: from the kernel's
 * DWARF when it is installed, else its BTF, else its symbol table. Names
 * are checked against the target kernel's function list: a function the
 * kernel would refuse (debuginfo/kfuncs.c says why) or that the runtime
 * itself calls while it handles a hit is an error when named, and left
 * out of a wildcard's matches (-v says which and why). A misspelt name
 * gets the closest names.
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
#include "front/diag.h"
#include "sema/points/points.h"
#include "sema/sema.h"

static void unknown_kernel_function(const struct kernel *k, const char *name, struct loc loc)
{
	diag_error(loc, D_UNKNOWN_KERNEL_FUNCTION, "kernel %s has no function '%s'", k->release,
		   name);
	struct suggest sg;
	suggest_init(&sg, name);
	for (size_t i = 0; i < k->nfuncs; i++)
		suggest_offer(&sg, k->funcs[i].name);
	if (!suggest_hint(&sg, NULL))
		diag_hint("the function names come from %s", k->funcs_from);
}

/*
 * The kernel functions the runtime calls while it handles a hit
 * (runtime/kernel-calls.txt, "hit NAME-OR-PATTERN" lines): a probe there
 * would fire inside the runtime, where it can only be skipped.
 */
struct ptrvec probes_runtime_calls(const char *runtime_dir)
{
	struct ptrvec pats = { 0 };
	char *path = path_join(runtime_dir, "kernel-calls.txt");
	char *text = read_file(path, NULL);
	if (!text)
		fatal("cannot read %s: %m", path);
	free(path);
	char *save = NULL;
	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char kind[16], name[256];
		if (sscanf(line, "%15s %255s", kind, name) == 2 && !strcmp(kind, "hit"))
			pv_push(&pats, xstrdup(name));
	}
	free(text);
	return pats;
}

static bool runtime_calls(const struct pp_ctx *c, const char *name)
{
	const struct ptrvec *calls = c->pt->runtime_calls;
	for (size_t i = 0; i < calls->n; i++)
		if (fnmatch(calls->v[i], name, 0) == 0)
			return true;
	return false;
}

#define RUNTIME_REASON "is called by Tapline's runtime while it handles a probe hit"

/*
 * Why a probe on f cannot be placed, or NULL. A function without an ftrace
 * site (notrace) takes a kprobe when it is named; a wildcard leaves it out
 * (such functions are mostly code that runs where probes should not:
 * tracing, idle and low-level entry helpers), which -v says. In guru mode a
 * function the runtime calls is allowed (the kernel would take the probe;
 * its hits inside the runtime are skipped and counted).
 */
static const char *refusal(const struct pp_ctx *c, const struct kfunc *f, bool wild)
{
	if (f->why == KF_NOTRACE && !wild)
		return !c->s->guru && runtime_calls(c, f->name) ? RUNTIME_REASON : NULL;
	if (f->why != KF_OK)
		return kfunc_why_text(f->why);
	if (!c->s->guru && runtime_calls(c, f->name))
		return RUNTIME_REASON;
	return NULL;
}

/* The functions a wildcard left out, by reason, for -v. */
struct left_out {
	const char *reason;
	size_t count;
	struct strbuf examples;
};

static void note_left_out(struct left_out *lo, size_t *nlo, const char *reason, const char *name)
{
	size_t i = 0;
	while (i < *nlo && strcmp(lo[i].reason, reason))
		i++;
	if (i == *nlo) {
		lo[i] = (struct left_out){ reason, 0, { 0 } };
		sb_init(&lo[i].examples);
		(*nlo)++;
	}
	if (lo[i].count < 5)
		sb_printf(&lo[i].examples, "%s%s", lo[i].count ? ", " : "", name);
	lo[i].count++;
}

/*
 * Where the runtime can put an entry probe by address (through ftrace,
 * cheaper than a kprobe; with the registers saved for one that reads
 * arguments), or a return probe (through fprobe, where the kernel has
 * it; its handlers get the registers): the function's offset
 * from _text, and _printk's, by which the runtime finds _text. Not for a
 * name several functions share (a kprobe by name picks the kernel's
 * first), nor when the addresses are unknown (/proc/kallsyms read without
 * root shows zeros).
 */
static void set_entry_offset(struct pp_ctx *c, struct probe *p, const struct kfunc *f)
{
	if ((p->kind != PK_KPROBE && p->kind != PK_KRETPROBE) || f->copies != 1 || !f->offset ||
	    f->why != KF_OK || !sema_find_text(c->s))
		return;
	p->text_offset = f->offset;
}

bool sema_find_text(struct session *s)
{
	if (s->prog.printk_offset)
		return true;
	const struct kfunc *ref = s->kernel ? kernel_function(s->kernel, "_printk") : NULL;
	if (!ref || !ref->offset || ref->copies != 1)
		return false;
	s->prog.printk_offset = ref->offset;
	return true;
}

/*
 * A kernel function whose name several static functions share: every copy,
 * each by its own address (_text + offset) and named by it in pp()
 * ("NAME@_text+0xOFFSET"), not only the one the kernel's lookup by name
 * picks. How many were placed.
 */
static size_t add_every_copy(struct pp_ctx *c, enum probe_kind kind, const struct kfunc *f,
			     bool from_wildcard)
{
	size_t placed = 0;
	for (unsigned k = 0; k < f->copies; k++) {
		/* Each copy's own why: refusal() judges the first copy only. A
		 * copy without an ftrace site takes a kprobe when named. */
		enum kfunc_why why = f->whys[k];
		if ((why != KF_OK && (why != KF_NOTRACE || from_wildcard)) ||
		    (!c->s->guru && runtime_calls(c, f->name)))
			continue;
		struct probe *p = add_probe(c, kind, f->name, 0);
		free(p->pp_text);
		p->pp_text = xasprintf("%s.function(\"%s@_text+0x%llx\")%s", c->comps[0].name, f->name,
				       (unsigned long long)f->offsets[k],
				       kind == PK_KRETPROBE ? ".return" : "");
		free(p->symbol);
		p->symbol = xstrdup("_text");
		p->offset = (int64_t)f->offsets[k];
		p->function = xstrdup(f->name);
		p->from_wildcard = from_wildcard;
		placed++;
	}
	return placed;
}

static void kernel_wildcard(struct pp_ctx *c, const char *pattern, enum probe_kind kind,
			    struct loc loc)
{
	const struct kernel *k = c->s->kernel;
	struct left_out lo[KF_NREASONS + 1];
	size_t nlo = 0, matches = 0, placed = 0;
	for (size_t i = 0; i < k->nfuncs; i++) {
		const struct kfunc *f = &k->funcs[i];
		if (fnmatch(pattern, f->name, 0))
			continue;
		matches++;
		const char *why = refusal(c, f, true);
		if (why)
			note_left_out(lo, &nlo, why, f->name);
		else
			placed++;
	}
	if (c->s->verbose && matches) {
		char *pp = ast_probe_point_text(c->pp);
		fprintf(stderr, "%s: %zu functions match, %zu left out\n", pp, matches,
			matches - placed);
		for (size_t i = 0; i < nlo; i++)
			fprintf(stderr, "  %zu left out because the function %s: %s%s\n", lo[i].count, lo[i].reason, lo[i].examples.s,
				lo[i].count > 5 ? ", ..." : "");
		free(pp);
	}
	for (size_t i = 0; i < nlo; i++)
		sb_free(&lo[i].examples);
	if (placed == 0) {
		if (c->pt->optional)
			return;
		if (matches == 0)
			diag_error(loc, D_UNKNOWN_KERNEL_FUNCTION,
				   "no function of kernel %s matches '%s'", k->release, pattern);
		else
			diag_error(loc, D_UNPROBEABLE,
				   "'%s' matches %zu functions of kernel %s, but none can be probed",
				   pattern, matches, k->release);
		if (matches)
			diag_hint("run with -v to see why each was left out");
		return;
	}
	char *what = xasprintf("'%s'", pattern);
	bool too_many = too_many_matches(c, loc, what, placed, "functions");
	free(what);
	if (too_many)
		return;
	for (size_t i = 0; i < k->nfuncs; i++) {
		const struct kfunc *f = &k->funcs[i];
		if (fnmatch(pattern, f->name, 0))
			continue;
		if (f->copies > 1 && f->offsets) {
			add_every_copy(c, kind, f, true);
		} else if (!refusal(c, f, true)) {
			struct probe *p = add_probe(c, kind, f->name, 0);
			p->from_wildcard = true;
			set_entry_offset(c, p, f);
		}
	}
}

/*
 * A probe on a site in the kernel's DWARF, if the kernel would take one on
 * its function: placed by the function's name when that names it, else by
 * _text and the site's offset (a name several functions share, or a copy
 * the compiler made, "f.part.0", which DWARF calls f); a function entry
 * placed by name may go through ftrace.
 */
struct probe *kernel_site_probe(struct pp_ctx *c, enum probe_kind kind, struct probe_site *site,
				bool wild)
{
	const struct kfunc *f = kernel_function(c->s->kernel, site->function);
	/* A function that exists only inlined (context_switch, kmalloc) has
	 * no symbol: its copies are checked by the functions that hold them. */
	if (f ? refusal(c, f, wild) != NULL : !site->is_inline && !site->is_statement)
		return NULL;
	/* An inlined copy or a statement is inside some function, which the
	 * kernel may refuse (__init code, freed after boot; noinstr, entry
	 * and blacklisted code) whatever the inlined function is. */
	enum kfunc_why in_why = KF_OK;
	const struct kfunc *in = (site->is_inline || site->is_statement) && site->text_offset
					 ? kernel_function_at(c->s->kernel, site->text_offset, &in_why)
					 : NULL;
	/* A copy of a function inside the function itself (GCC's DWARF has
	 * bprm_execve inlined at bprm_execve+0x64 on 6.1) is no second place:
	 * the entry probe sees each call already. */
	if (site->is_inline && in && !strcmp(in->name, site->function)) {
		if (c->s->verbose)
			fprintf(stderr, "stap: %s@_text+0x%llx left out: it is inside %s itself\n",
				site->function, (unsigned long long)site->text_offset, in->name);
		return NULL;
	}
	if (in && in_why != KF_OK && in_why != KF_NOTRACE) {
		if (c->s->verbose)
			fprintf(stderr, "stap: %s@_text+0x%llx (in %s) left out: %s %s\n",
				site->function, (unsigned long long)site->text_offset, in->name, in->name,
				kfunc_why_text(in_why));
		return NULL;
	}
	uint64_t entry = site->text_offset - (uint64_t)site->anchor_offset;
	bool by_name = f && f->copies == 1 && (!f->offset || !site->text_offset || entry == f->offset);
	if (!by_name) {
		free(site->anchor);
		site->anchor = xstrdup("_text");
		site->anchor_offset = (int64_t)site->text_offset;
	}
	struct probe *p = add_site_probe(c, kind, site);
	if (by_name && !site->is_statement)
		set_entry_offset(c, p, f);
	return p;
}

/*
 * kernel.function("f[@file[:line]]") through the kernel's DWARF, when a
 * debug file for it exists (Debian's linux-image-R-dbg): each match is
 * checked like any kernel function, and placed by its name when that is
 * unique, else by _text and its offset. False when there is no DWARF.
 */
static bool kernel_dwarf_point(struct pp_ctx *c, const char *spec, enum probe_kind kind,
			       struct loc loc)
{
	sema_debuginfo(c->s);
	if (!debugfind(c->s->debug_ix, "kernel") && !c->s->probe_cache)
		return false;
	char *func, *file;
	struct dw_query q = { 0 };
	if (!split_function_spec(spec, &func, &file, &q.line, &q.line_last) || q.line_last) {
		diag_error(loc, D_BAD_PROBE_ARG, "'%s' is not NAME, NAME@FILE or NAME@FILE:LINE", spec);
		if (q.line_last)
			diag_hint("a range of lines is for statement probes: kernel.statement(\"%s\")",
				  spec);
		free(func);
		free(file);
		return true;
	}
	q.function = func;
	q.file = file;
	struct ptrvec sites = { 0 };
	size_t left_out = 0;
	char *why = NULL;
	bool inlines_only = c->n == 3 && comp_is(c, 2, "inline");
	int r = query_sites(c, inlines_only ? Q_INLINES : Q_FUNCTIONS, "kernel", NULL,
			    c->s->kernel->build_id, &q, &sites, &left_out, &why);
	/* .function is also every copy inlined into a caller, as in SystemTap
	 * (vfs_getattr inside vfs_statx); .call and .return are not. */
	if (r >= 0 && plain_function(c)) {
		char *inline_why = NULL;
		query_sites(c, Q_INLINES, "kernel", NULL, c->s->kernel->build_id, &q, &sites,
			    &left_out, &inline_why);
		free(inline_why);
	}
	if (r < 0 && !why) {
		/* No DWARF (and nothing cached): BTF or the symbols answer. */
		free(func);
		free(file);
		return false;
	}
	if (r < 0) {
		diag_error(loc, D_NO_DEBUGINFO, "cannot use the kernel's debug information: %s", why);
		free(why);
		free(func);
		free(file);
		return true;
	}
	/* A name DWARF does not know (an alias like __x64_sys_getpid): the
	 * symbol path still gives $return. */
	if (sites.n == 0 && !q.file && !inlines_only) {
		free(func);
		free(file);
		return false;
	}
	size_t placed = 0;
	bool wild = strpbrk(func, "*?[") != NULL;
	for (size_t i = 0; i < sites.n; i++) {
		struct probe_site *site = sites.v[i];
		if (!returns_nothing_for(c, kind, wild, site) && kernel_site_probe(c, kind, site, wild))
			placed++;
	}
	char *what = xasprintf("'%s'", spec);
	if (!too_many_matches(c, loc, what, sites.n, wild ? "functions" : "places (its inlined copies)") &&
	    !placed && !c->pt->optional)
		diag_error(loc, D_UNKNOWN_KERNEL_FUNCTION,
			   "no function of kernel %s that can be probed matches '%s' in its debug "
			   "information", c->s->release, spec);
	free(what);
	pv_free(&sites);
	free(func);
	free(file);
	return true;
}

/* A BTF site of kernel function f: placed by name, or by _text + offset
 * when several functions share the name. false if it cannot be placed. */
static bool btf_place(const struct kernel *k, struct probe_site *site, const struct kfunc *f)
{
	if (f->copies != 1 && !f->offset)
		return false;
	site->object = xstrdup("kernel");
	site->object_file = xstrdup(k->btf_path);
	site->build_id = k->build_id ? xstrdup(k->build_id) : NULL;
	site->anchor = xstrdup(f->copies == 1 ? f->name : "_text");
	site->anchor_offset = f->copies == 1 ? 0 : (int64_t)f->offset;
	site->text_offset = f->offset;
	return true;
}

/*
 * kernel.function("f") whose body reads $parameters, without the kernel's
 * DWARF (or with --btf): the function's BTF prototype gives them at its
 * entry, and saved there, in .return. false when BTF cannot answer (none,
 * or no such function in it): the symbol path then says what is missing.
 */
static bool kernel_btf_point(struct pp_ctx *c, const char *spec, enum probe_kind kind,
			     struct loc loc)
{
	struct btf_source *b = sema_kernel_btf(c->s);
	const struct kernel *k = c->s->kernel;
	if (!b)
		return false;
	struct ptrvec sites = { 0 };
	bool wild = strpbrk(spec, "*?[") != NULL;
	for (size_t i = 0; i < k->nfuncs; i++) {
		const struct kfunc *f = &k->funcs[i];
		if (wild ? fnmatch(spec, f->name, 0) != 0 : strcmp(spec, f->name) != 0)
			continue;
		if (refusal(c, f, wild))
			continue;
		struct probe_site *site = btf_function_site(b, f->name);
		if (site && !returns_nothing_for(c, kind, wild, site) && btf_place(k, site, f))
			pv_push(&sites, site);
	}
	if (!sites.n) {
		pv_free(&sites);
		return false;
	}
	char *what = xasprintf("'%s'", spec);
	if (!too_many_matches(c, loc, what, sites.n, "functions")) {
		for (size_t i = 0; i < sites.n; i++) {
			struct probe_site *site = sites.v[i];
			struct probe *p = add_site_probe(c, kind, site);
			p->from_wildcard = wild;
			const struct kfunc *f = kernel_function(k, site->function);
			if (f && f->copies == 1)
				set_entry_offset(c, p, f);
		}
	}
	free(what);
	pv_free(&sites);
	return true;
}

/* kernel.statement("f@file:LINE"): through the kernel's DWARF only. */
static void kernel_statement_point(struct pp_ctx *c)
{
	const struct comp *sc = &c->comps[1];
	if (c->n != 2 || !sc->arg || sc->arg->kind != N_STR) {
		unknown_shape(c);
		return;
	}
	char *func, *file;
	struct dw_query q = { 0 };
	if (!split_function_spec(sc->arg->str, &func, &file, &q.line, &q.line_last) || !file ||
	    !q.line) {
		diag_error(sc->arg->loc, D_BAD_PROBE_ARG,
			   "a statement probe needs a function, a file and a line (or FIRST-LAST, "
			   "or *): statement(\"%s@FILE:LINE\")",
			   func ? func : "NAME");
		free(func);
		free(file);
		return;
	}
	q.function = func;
	q.file = file;
	struct dw *d = sema_debuginfo(c->s);
	struct ptrvec sites = { 0 };
	size_t left_out = 0, placed = 0;
	char *why = NULL;
	int r = query_sites(c, Q_STATEMENTS, "kernel", NULL, c->s->kernel->build_id, &q, &sites,
			    &left_out, &why);
	if (r < 0 && !why) {
		if (!c->pt->optional) {
			diag_error(sc->arg->loc, D_NO_DEBUGINFO,
				   "a statement probe needs the kernel's debug information (DWARF: "
				   "BTF has no lines)");
			sema_kernel_dwarf_hint(c->s, "statement probes");
		}
		free(func);
		free(file);
		return;
	}
	if (r < 0)
		diag_error(sc->arg->loc, D_NO_DEBUGINFO, "cannot use the kernel's debug information: %s",
			   why ? why : "not found");
	for (size_t i = 0; i < sites.n; i++)
		placed += kernel_site_probe(c, PK_KPROBE, sites.v[i], strpbrk(func, "*?[") != NULL) != NULL;
	if (!placed && !why && !c->pt->optional) {
		diag_error(sc->arg->loc, D_UNKNOWN_KERNEL_FUNCTION,
			   "no statement of a function matching '%s' begins at %s:%d in kernel %s", func,
			   file, q.line, c->s->release);
		statement_hint(d, "kernel", NULL, &q);
	}
	free(why);
	pv_free(&sites);
	free(func);
	free(file);
}

/* kernel.function("F") followed by .callee("P"), .callees(N) or
 * .label("L"): F's call sites or labels in the kernel's DWARF. */
static void kernel_function_inside(struct pp_ctx *c)
{
	const struct comp *fn = &c->comps[1];
	if (!fn->arg || fn->arg->kind != N_STR) {
		diag_error(fn->arg ? fn->arg->loc : fn->loc, D_BAD_PROBE_ARG,
			   "'function' takes a function name in quotes, e.g. function(\"vfs_read\")");
		return;
	}
	bool is_label = comp_is(c, 2, "label");
	sema_debuginfo(c->s);
	if (!debugfind(c->s->debug_ix, "kernel") || c->s->force_btf || c->s->force_symtab) {
		if (!c->pt->optional) {
			diag_error(c->comps[2].loc, D_NO_DEBUGINFO,
				   "'.%s' needs the kernel's DWARF: %s", c->comps[2].name,
				   is_label ? "labels are known only from it"
					    : "the calls a function makes are known only from its call "
					      "sites there");
			sema_kernel_dwarf_hint(c->s, is_label ? "'.label' probes" : "'.callee' probes");
		}
		return;
	}
	char *func, *file;
	struct dw_query q = { 0 };
	if (!split_function_spec(fn->arg->str, &func, &file, &q.line, &q.line_last) ||
	    q.line_last) {
		diag_error(fn->arg->loc, D_BAD_PROBE_ARG, "'%s' is not NAME, NAME@FILE or NAME@FILE:LINE",
			   fn->arg->str);
		free(func);
		free(file);
		return;
	}
	q.function = func;
	q.file = file;
	struct ptrvec callers = { 0 };
	size_t left_out = 0;
	char *why = NULL;
	int r = dw_functions(sema_debuginfo(c->s), "kernel", NULL, &q, &callers, &left_out, &why);
	if (r < 0)
		diag_error(fn->arg->loc, D_NO_DEBUGINFO, "cannot use the kernel's debug information: %s",
			   why ? why : "not found");
	else if (r == 0 && !c->pt->optional)
		unknown_kernel_function(c->s->kernel, func, fn->arg->loc);
	else if (r > 0 && is_label)
		label_probes(c, &callers);
	else if (r > 0)
		callee_probes(c, NULL, &callers);
	free(why);
	pv_free(&callers);
	free(func);
	free(file);
}

static void kernel_function_point(struct pp_ctx *c)
{
	const struct comp *fn = &c->comps[1];
	bool is_return = false, inlines_only = false;
	if (c->n == 3 && comp_is(c, 2, "return"))
		is_return = true;
	else if (c->n == 3 && comp_is(c, 2, "call") && comp_is(c, 0, "kernel"))
		is_return = false;
	else if (c->n == 3 && comp_is(c, 2, "inline") && comp_is(c, 0, "kernel"))
		inlines_only = true;
	else if (c->n != 2) {
		unknown_shape(c);
		return;
	}
	if (!fn->arg || fn->arg->kind != N_STR) {
		diag_error(fn->arg ? fn->arg->loc : fn->loc, D_BAD_PROBE_ARG,
			   "'function' takes a function name in quotes, e.g. function(\"vfs_read\")");
		return;
	}
	const char *name = fn->arg->str;
	const struct kernel *k = c->s->kernel;
	enum probe_kind kind = is_return ? PK_KRETPROBE : PK_KPROBE;
	/* Target variables and source files need the kernel's DWARF. */
	bool wants_types = (c->pt->uses_targets || c->s->list == 2) && !c->s->force_symtab;
	bool wants_dwarf = strpbrk(name, "@:") || inlines_only || plain_function(c) ||
			   (wants_types && !c->s->force_btf);
	if (wants_dwarf && !c->s->force_btf && !c->s->force_symtab && comp_is(c, 0, "kernel") &&
	    kernel_dwarf_point(c, name, kind, fn->arg->loc))
		return;
	if (inlines_only) {
		if (!c->pt->optional) {
			diag_error(fn->arg->loc, D_NO_DEBUGINFO,
				   "inlined copies ('.inline') are known only from the kernel's DWARF "
				   "(BTF and the symbol table know only the out-of-line copy)");
			sema_kernel_dwarf_hint(c->s, "'.inline' probes");
		}
		return;
	}
	/* Without DWARF only the function's own code is probed: a copy the
	 * compiler inlined into a caller is invisible to BTF and the symbols. */
	if (plain_function(c) && (c->s->verbose || c->s->list == 2)) {
		static bool said;
		if (!said)
			fprintf(stderr, "stap: note: without the kernel's DWARF, kernel.function(...) "
					"probes only each function's out-of-line copy: calls inlined "
					"into other functions are not seen\n");
		said = true;
	}
	/* Without DWARF, BTF gives parameters (not locals, lines or inlines). */
	if (wants_types && !strpbrk(name, "@:") && comp_is(c, 0, "kernel") &&
	    kernel_btf_point(c, name, kind, fn->arg->loc))
		return;
	if (strpbrk(name, "@:")) {
		diag_error(fn->arg->loc, D_NO_DEBUGINFO,
			   "function names with a file or line ('%s') need the kernel's debug "
			   "information (DWARF)",
			   name);
		sema_kernel_dwarf_hint(c->s, "file and line names");
		return;
	}
	if (strpbrk(name, "*?[")) {
		kernel_wildcard(c, name, kind, fn->arg->loc);
		return;
	}
	const struct kfunc *f = kernel_function(k, name);
	if (!f) {
		if (!c->pt->optional)
			unknown_kernel_function(k, name, fn->arg->loc);
		return;
	}
	const char *why = refusal(c, f, false);
	if (f->copies > 1 && f->offsets && add_every_copy(c, kind, f, false)) {
		if (c->s->verbose)
			fprintf(stderr, "%s: %u functions are named '%s': each is probed by its address\n",
				k->release, f->copies, name);
	} else if (!why) {
		set_entry_offset(c, add_probe(c, kind, name, 0), f);
		if (runtime_calls(c, name))
			diag_warning(fn->arg->loc, D_UNPROBEABLE,
				     "'%s' %s: its hits inside the runtime will be skipped", name,
				     RUNTIME_REASON);
	} else if (!c->pt->optional) {
		diag_error(fn->arg->loc, D_UNPROBEABLE, "cannot probe '%s' in kernel %s: it %s",
			   name, k->release, why);
		if (f->why == KF_INIT)
			diag_hint("an __init function runs only while the kernel boots");
		else if (!strcmp(why, RUNTIME_REASON))
			diag_hint("guru mode (-g) allows it; hits inside the runtime are then skipped");
	}
}

static const char *const kernel_usage[] = {
	"kernel.function(\"name\")[.call|.return[.maxactive(N)]]",
	"kprobe.function(\"name\")[.return]",
	"kernel.statement(\"name@file:line\")",
	"kernel.function(\"name\").callee(\"name\")[.call|.return]",
	"kernel.function(\"name\").callees[(N)]",
	"kernel.function(\"name\").label(\"name\")",
	NULL,
};
static const char *const kernel_shapes[] = {
	"kernel.function",
	"kernel.function.return",
	"kernel.function.call",
	"kernel.function.callee",
	"kernel.function.callee.call",
	"kernel.function.callee.return",
	"kernel.function.callees",
	"kernel.function.label",
	"kprobe.function",
	"kprobe.function.return",
	NULL,
};

static bool kernel_takes(const struct pp_ctx *c)
{
	return ((comp_is(c, 0, "kernel") || comp_is(c, 0, "kprobe")) && comp_is(c, 1, "function")) ||
	       (comp_is(c, 0, "kernel") && comp_is(c, 1, "statement"));
}

static void kernel_resolve(struct pp_ctx *c)
{
	if (comp_is(c, 0, "kernel") && function_inside_point(c))
		kernel_function_inside(c);
	else if (comp_is(c, 1, "function"))
		kernel_function_point(c);
	else
		kernel_statement_point(c);
}

const struct family kernel_family = {
	.usage = kernel_usage,
	.shapes = kernel_shapes,
	.takes = kernel_takes,
	.resolve = kernel_resolve,
};
