// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The session's sources of debug information, opened when first asked
 * for: the index of debug files and the DWARF reader over it, the
 * kernel's and modules' BTF. The probe point families and the target
 * expressions (targets.c) both ask here.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "debuginfo/btf.h"
#include "debuginfo/dw.h"
#include "front/diag.h"
#include "sema/builtins.h"
#include "sema/sema.h"

/* The index of the system's debug files and the DWARF reader over it,
 * made when first asked for. */
struct dw *sema_debuginfo(struct session *s)
{
	if (!s->dw) {
		s->debug_ix = debugfind_index(s->release, &s->debuginfo_dirs, s->debug_archive,
					      s->verbose > 0);
		s->dw = dw_begin(s->debug_ix, s->kernel, s->verbose > 0);
	}
	return s->dw;
}

struct btf_source *sema_kernel_btf(struct session *s)
{
	if (!s->kernel_btf_tried && !s->force_symtab) {
		s->kernel_btf_tried = true;
		char *why = NULL;
		if (s->kernel && s->kernel->btf_path)
			s->kernel_btf = btf_open(s->kernel->btf_path, &why);
		if (why && s->verbose)
			fprintf(stderr, "stap: %s\n", why);
		free(why);
	}
	return s->kernel_btf;
}

struct btf_source *sema_module_btf(struct session *s, const char *module, char **why)
{
	for (size_t i = 0; i < s->module_btf_names.n; i++)
		if (!strcmp(s->module_btf_names.v[i], module)) {
			if (!s->module_btfs.v[i])
				*why = xasprintf("module %s has no BTF Tapline can read", module);
			return s->module_btfs.v[i];
		}
	struct btf_source *kb = sema_kernel_btf(s), *mb = NULL;
	sema_debuginfo(s);
	const char *ko = s->debug_ix ? debugfind_installed(s->debug_ix, module) : NULL;
	if (!ko)
		*why = xasprintf("module %s is not installed for kernel %s", module, s->release);
	else if (!kb)
		*why = xstrdup("the kernel has no BTF for the module's to build on");
	else
		mb = btf_open_module(ko, kb, why);
	pv_push(&s->module_btf_names, xstrdup(module));
	pv_push(&s->module_btfs, mb);
	return mb;
}

/*
 * What to tell a user who needs the kernel's DWARF for what (a phrase
 * like "locals"): install linux-image-R-dbg, unless it is installed (then
 * the reason is elsewhere: --btf, or a probe point that reads no debug
 * information). Hints must not send people to install what they have.
 */
bool sema_kernel_dwarf_installed(struct session *s)
{
	sema_debuginfo(s);
	return debugfind(s->debug_ix, "kernel") != NULL;
}

void sema_kernel_dwarf_hint(struct session *s, const char *what)
{
	if (!sema_kernel_dwarf_installed(s))
		diag_hint("%s need%s the kernel's DWARF: install linux-image-%s-dbg", what,
			  strchr(what, ' ') || what[strlen(what) - 1] == 's' ? "" : "s", s->release);
	else if (s->force_btf)
		diag_hint("%s need%s the kernel's DWARF, which is installed: drop --btf to use it",
			  what, strchr(what, ' ') || what[strlen(what) - 1] == 's' ? "" : "s");
	else
		diag_hint("the kernel's DWARF is installed, but this probe point reads none: "
			  "kernel.function(\"NAME\") does (kprobe.function and symbol-table probes "
			  "do not)");
}

/* The built-ins that name kernel source lines (from the module's line
 * table, which staprun reads). */
static void find_line_user(struct node *n, void *found)
{
	const struct builtin *b = n->kind == N_CALL && n->name ? builtin_find(n->name) : NULL;
	if (b && !*(struct node **)found &&
	    (b->id == B_SYMFILELINE || b->id == B_SYMFILE || b->id == B_SYMLINE ||
	     b->id == B_PRINT_BACKTRACE_FILELINE))
		*(struct node **)found = n;
	ast_for_children(n, find_line_user, found);
}

/*
 * A script that names kernel source lines gets the kernel's line table
 * (built once per kernel, kept in the cache) for its module to carry:
 * staprun names the lines. Without the kernel's DWARF they print as
 * addresses, as SystemTap's do where it knows no line; a warning says so.
 */
void sema_kernel_lines(struct session *s)
{
	struct node *use = NULL;
	for (size_t i = 0; i < s->prog.handlers.n && !use; i++)
		find_line_user(((struct handler *)s->prog.handlers.v[i])->body, &use);
	for (size_t i = 0; i < s->prog.functions.n && !use; i++)
		find_line_user(((struct symbol *)s->prog.functions.v[i])->decl, &use);
	if (!use || s->last_pass < 3)
		return;
	char *why = NULL;
	struct dw *d = s->force_btf || s->force_symtab ? NULL : sema_debuginfo(s);
	s->prog.kernel_lines = d ? dw_kernel_line_table(d, &why) : NULL;
	/* The module names the file in an assembler string (codegen.c). */
	if (s->prog.kernel_lines && strpbrk(s->prog.kernel_lines, "\"\\\n")) {
		why = xasprintf("the cache's path %s has a quote, backslash or newline",
				s->prog.kernel_lines);
		free(s->prog.kernel_lines);
		s->prog.kernel_lines = NULL;
	}
	if (!s->prog.kernel_lines) {
		diag_warning(use->loc, D_NO_DEBUGINFO,
			     "%s() prints kernel addresses in hex: %s", use->name,
			     why ? why : "--btf and --symtab read no line tables");
		if (!d || !sema_kernel_dwarf_installed(s))
			sema_kernel_dwarf_hint(s, "source lines");
	}
	free(why);
}
