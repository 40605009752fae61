// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * process(...) probe points: functions, statements and SDT markers of a
 * user-space program or of a library it uses, each a uprobe on the file
 * at a file offset. Functions come from the file's DWARF (dw.c, with the
 * debug file libdwfl finds), else from its symbol table with no
 * variables; markers from its .note.stapsdt (userelf.c, sdt.c). A probe
 * fires in every process that maps the file, whenever it starts; -c and
 * -x narrow that to the target at run time.
 */
#include <fnmatch.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <glob.h>
#include <string.h>
#include <unistd.h>

#include "debuginfo/kernel.h"
#include "debuginfo/tracepoints.h"
#include "debuginfo/userelf.h"
#include "front/diag.h"
#include "sema/points/points.h"
#include "sema/sema.h"

/* The program a process point names: process("PATH"), process(PID) (its
 * executable now), or plain process with -c (the command's program). */
static char *program_of(struct pp_ctx *c, char **why)
{
	const struct comp *pc = &c->comps[0];
	if (pc->arg && pc->arg->kind == N_STR)
		return user_find_program(pc->arg->str, why);
	if (pc->arg && pc->arg->kind == N_NUM) {
		char link[64], exe[PATH_MAX];
		snprintf(link, sizeof link, "/proc/%lld/exe", pc->arg->num);
		ssize_t n = readlink(link, exe, sizeof exe - 1);
		if (n <= 0) {
			*why = xasprintf("no process %lld on this machine", pc->arg->num);
			return NULL;
		}
		exe[n] = 0;
		return user_find_program(exe, why);
	}
	if (c->s->target_cmd) {
		char *first = xstrndup(c->s->target_cmd, strcspn(c->s->target_cmd, " \t"));
		char *path = user_find_program(first, why);
		free(first);
		return path;
	}
	*why = xstrdup("'process' without a program needs -c CMD, or name one: process(\"PATH\")");
	return NULL;
}

/* u's symbols go into the module (usymname() and the like), once; so
 * does the file itself, which the runtime finds in a process's mappings
 * (a global of it read, the symbol of an address). */
void uprobes_add_object(struct session *s, const struct user_elf *u)
{
	for (size_t i = 0; i < s->prog.user_objects.n; i++)
		if (s->prog.user_objects.v[i] == u)
			return;
	pv_push(&s->prog.user_objects, (void *)u);
}

/* A probe site's virtual address as a uprobe: the file offset. */
static bool add_user_probe(struct pp_ctx *c, const struct user_elf *u, enum probe_kind kind,
			   struct probe_site *site, struct loc loc)
{
	uint64_t vaddr = kind == PK_URETPROBE ? site->user_entry_vaddr : site->user_vaddr;
	uint64_t off, sem = 0;
	if (!user_elf_offset(u, vaddr, &off) ||
	    (site->user_sem_vaddr && !user_elf_offset(u, site->user_sem_vaddr, &sem))) {
		diag_error(loc, D_BAD_PROBE_ARG, "%s: address 0x%llx of %s is in no loaded segment",
			   u->path, (unsigned long long)vaddr, site->function);
		return false;
	}
	struct probe *p = add_site_probe(c, kind, site);
	uprobes_add_object(c->s, u);
	p->user_file = xstrdup(u->path);
	p->file_offset = off;
	p->sem_offset = sem;
	return true;
}

/* A site in file u, at vaddr, with no variables yet; source: what found it. */
static struct probe_site *new_user_site(const struct user_elf *u, const char *function,
					const char *source, uint64_t vaddr)
{
	struct probe_site *s = xcalloc(1, sizeof *s);
	s->object = xstrdup(u->path);
	s->object_file = xstrdup(u->path);
	s->build_id = u->build_id ? xstrdup(u->build_id) : NULL;
	s->function = xstrdup(function);
	s->source = source;
	s->vars_loaded = true;
	s->is_user = true;
	s->user_vaddr = s->user_entry_vaddr = vaddr;
	return s;
}

/* Functions by the symbol table alone: one site per address (aliases
 * such as malloc and __libc_malloc are one function). */
static void symtab_sites(const struct user_elf *u, const char *pattern, struct ptrvec *sites)
{
	for (size_t i = 0; i < u->nsyms; i++) {
		const struct user_sym *y = &u->syms[i];
		if (!y->is_func || fnmatch(pattern, y->name, 0))
			continue;
		bool dup = false;
		for (size_t k = 0; k < sites->n && !dup; k++)
			dup = ((struct probe_site *)sites->v[k])->user_vaddr == y->vaddr;
		if (dup)
			continue;
		pv_push(sites, new_user_site(u, y->name,
					     u->syms_dynamic ? "dynamic symbol table" : "symbol table",
					     y->vaddr));
	}
}

static void user_functions(struct pp_ctx *c, const struct user_elf *u, int fi)
{
	const struct comp *fc = &c->comps[fi];
	bool statement = comp_is(c, fi, "statement");
	enum probe_kind kind = PK_UPROBE;
	bool inlines = false;
	if (c->n == fi + 2 && comp_is(c, fi + 1, "return") && !statement)
		kind = PK_URETPROBE;
	else if (c->n == fi + 2 && comp_is(c, fi + 1, "inline") && !statement)
		inlines = true;
	else if (c->n != fi + 1 && !(c->n == fi + 2 && comp_is(c, fi + 1, "call") && !statement)) {
		unknown_shape(c);
		return;
	}
	if (!fc->arg || fc->arg->kind != N_STR) {
		diag_error(fc->arg ? fc->arg->loc : fc->loc, D_BAD_PROBE_ARG,
			   "'%s' takes a function name in quotes, e.g. %s(\"main\")", fc->name, fc->name);
		return;
	}
	char *func, *file;
	struct dw_query q = { 0 };
	if (!split_function_spec(fc->arg->str, &func, &file, &q.line, &q.line_last) ||
	    (q.line_last && !statement) || (statement && (!file || !q.line))) {
		diag_error(fc->arg->loc, D_BAD_PROBE_ARG, "'%s' is not NAME, NAME@FILE or NAME@FILE:LINE%s",
			   fc->arg->str, statement ? " (a statement needs FILE and LINE)" : "");
		free(func);
		free(file);
		return;
	}
	q.function = func;
	q.file = file;
	q.at_entry = kind == PK_URETPROBE;
	struct ptrvec sites = { 0 };
	size_t left_out = 0;
	char *why = NULL;
	struct dw *d = sema_debuginfo(c->s);
	dw_user_debug_dirs(d, &c->s->debuginfo_dirs);
	int r = c->s->force_symtab ? -1
		: query_sites(c, statement ? Q_STATEMENTS : inlines ? Q_INLINES : Q_FUNCTIONS, u->path,
			      u->path, NULL, &q, &sites, &left_out, &why);
	if (r < 0) {
		/* No DWARF: the symbol table has names and addresses, no more. */
		if (statement || inlines || file) {
			diag_error(fc->arg->loc, D_NO_DEBUGINFO,
				   "%s needs the debug information of %s: %s", statement ? "a statement probe"
				   : inlines ? ".inline" : "a source file", u->path,
				   why ? why : "none was found");
			diag_hint("install its -dbg or -dbgsym package, or name its debug file's directory "
				  "with --debuginfo-path");
			goto out;
		}
		if (c->s->verbose)
			fprintf(stderr, "%s: no DWARF (%s): placing by the %s\n", u->path,
				why ? why : "none found", u->syms_dynamic ? "dynamic symbol table" : "symbol table");
		symtab_sites(u, func, &sites);
	}
	char *what = xasprintf("'%s' in '%s'", fc->arg->str, u->path);
	bool too_many = too_many_matches(c, fc->arg->loc, what, sites.n, "places");
	free(what);
	size_t placed = 0, cxx = 0;
	for (size_t i = 0; i < sites.n && !too_many; i++) {
		struct probe_site *s = sites.v[i];
		if (returns_nothing_for(c, kind, strpbrk(func, "*?[") != NULL, s))
			continue;
		if (add_user_probe(c, u, kind, s, fc->arg->loc)) {
			placed++;
			cxx += s->may_throw;
		}
	}
	if (kind == PK_URETPROBE && cxx) {
		diag_warning(fc->arg->loc, D_UNSUPPORTED,
			     "if an exception leaves %s, the program is killed (std::terminate): a "
			     ".return probe puts its own return address on the stack, which the C++ "
			     "unwinder cannot step through",
			     cxx == 1 ? "this C++ function" : "one of these C++ functions");
		diag_hint("for a function that may throw, probe its entry, or a statement after "
			  "the call in its callers");
	}
	if (!placed && !too_many && !c->pt->optional) {
		if (statement) {
			diag_error(fc->arg->loc, D_UNKNOWN_USER_FUNCTION,
				   "no statement of a function matching '%s' begins at %s:%d in %s", func,
				   file, q.line, u->path);
			statement_hint(d, u->path, u->path, &q);
		} else {
			diag_error(fc->arg->loc, D_UNKNOWN_USER_FUNCTION, "%s has no function matching '%s'",
				   u->path, fc->arg->str);
			size_t nfuncs = 0;
			for (size_t i = 0; i < u->nsyms; i++)
				nfuncs += u->syms[i].is_func;
			if (!nfuncs && r < 0)
				diag_note(fc->arg->loc, "it has no symbols at all (stripped) and no debug "
							"information");
			struct suggest sg;
			suggest_init(&sg, func);
			for (size_t i = 0; i < u->nsyms; i++)
				if (u->syms[i].is_func)
					suggest_offer(&sg, u->syms[i].name);
			suggest_hint(&sg, NULL);
		}
	}
out:
	free(why);
	pv_free(&sites);
	free(func);
	free(file);
}

/* A marker's arguments as the site's variables $arg1..$argN. */
static void mark_vars(const struct user_elf *u, const struct sdt_note *note, struct probe_site *s)
{
	int n = sdt_nargs(note);
	s->vars = xcalloc((size_t)n + 1, sizeof *s->vars);
	for (int i = 1; i <= n; i++) {
		char *why = NULL;
		struct tvar *v = &s->vars[s->nvars++];
		if (!sdt_arg(u, note, i, v, &why)) {
			static struct ctype long_type = { .kind = CT_INT, .name = "long", .size = 8,
							  .is_signed = true, .complete = true };
			*v = (struct tvar){ .name = xasprintf("arg%d", i), .type = &long_type,
					    .loc = { .kind = TL_NONE, .why = why }, .is_param = true };
		}
	}
	s->vars_loaded = true;
}

/* A marker's name as written: '-' stands for "__" (SystemTap's rule). */
static char *mark_pattern(const char *name)
{
	return str_replace_all(name, "-", "__");
}

static bool mark_matches(const struct sdt_note *note, const char *pattern, const char *ppattern)
{
	return !fnmatch(pattern, note->name, 0) && (!ppattern || !fnmatch(ppattern, note->provider, 0));
}

static void user_marks(struct pp_ctx *c, const struct user_elf *u, int pi)
{
	const struct comp *prov = comp_is(c, pi, "provider") ? &c->comps[pi] : NULL;
	int mi = prov ? pi + 1 : pi;
	const struct comp *mc = &c->comps[mi];
	if (!comp_is(c, mi, "mark") || c->n != mi + 1) {
		unknown_shape(c);
		return;
	}
	if (!mc->arg || mc->arg->kind != N_STR || (prov && (!prov->arg || prov->arg->kind != N_STR))) {
		diag_error(mc->loc, D_BAD_PROBE_ARG,
			   "'mark' and 'provider' take names in quotes, e.g. mark(\"query__start\")");
		return;
	}
	char *pattern = mark_pattern(mc->arg->str);
	char *ppattern = prov ? mark_pattern(prov->arg->str) : NULL;
	size_t placed = 0, matched = 0;
	for (size_t i = 0; i < u->nnotes; i++)
		matched += mark_matches(&u->notes[i], pattern, ppattern);
	if (too_many_matches(c, mc->arg->loc, "the mark", matched, "markers"))
		goto out;
	for (size_t i = 0; i < u->nnotes; i++) {
		const struct sdt_note *note = &u->notes[i];
		if (!mark_matches(note, pattern, ppattern))
			continue;
		struct probe_site *s = new_user_site(u, note->name, "SDT", note->pc);
		s->mark_provider = xstrdup(note->provider);
		s->user_sem_vaddr = note->sem;
		mark_vars(u, note, s);
		placed += add_user_probe(c, u, PK_UPROBE, s, mc->arg->loc);
	}
	if (!placed && !matched && !c->pt->optional) {
		diag_error(mc->arg->loc, D_UNKNOWN_MARK, "%s has no marker matching '%s%s%s'", u->path,
			   ppattern ? ppattern : "", ppattern ? ":" : "", pattern);
		if (!u->nnotes)
			diag_note(mc->arg->loc, "it has no SDT markers (no .note.stapsdt section)");
		struct suggest sg;
		suggest_init(&sg, pattern);
		for (size_t i = 0; i < u->nnotes; i++)
			suggest_offer(&sg, u->notes[i].name);
		suggest_hint(&sg, NULL);
	}
out:
	free(pattern);
	free(ppattern);
}

/* process[("PATH"|PID)][.thread].begin/.end: no program means any. */
static void lifetime_point(struct pp_ctx *c, bool thread, bool begin)
{
	const struct comp *pc = &c->comps[0];
	char *path = NULL, *why = NULL;
	if (pc->arg && pc->arg->kind == N_STR) {
		const struct user_elf *u = NULL;
		path = user_find_program(pc->arg->str, &why);
		if (path)
			u = user_elf_open(path, &why);
		if (!u) {
			if (!c->pt->optional)
				diag_error(pc->arg->loc, D_NO_PROGRAM, "%s", why);
			free(why);
			free(path);
			return;
		}
	}
	enum probe_kind kind = thread ? (begin ? PK_THREAD_BEGIN : PK_THREAD_END)
				      : (begin ? PK_PROCESS_BEGIN : PK_PROCESS_END);
	struct probe *p = add_probe(c, kind, NULL, 0);
	p->user_file = path;
	p->offset = pc->arg && pc->arg->kind == N_NUM ? pc->arg->num : 0;
}

/*
 * process[("PATH"|PID)].syscall[.return]: every system call the threads of
 * the program (or process, or with no argument any, within the -c/-x
 * target) make, through raw_syscalls' sys_enter/sys_exit tracepoints,
 * with SystemTap's $syscall and $arg1..$arg6, or $syscall and $return.
 */
static void syscall_point(struct pp_ctx *c, bool ret)
{
	const struct comp *pc = &c->comps[0];
	char *path = NULL, *why = NULL;
	if (pc->arg && pc->arg->kind == N_STR) {
		path = user_find_program(pc->arg->str, &why);
		if (!path) {
			if (!c->pt->optional)
				diag_error(pc->arg->loc, D_NO_PROGRAM, "%s", why);
			free(why);
			return;
		}
	}
	struct btf_source *b;
	const char *tpname = ret ? "sys_exit" : "sys_enter";
	const struct tracepoint *tp = kernel_tracepoint(c, tpname, c->comps[1].loc, &b);
	struct probe_site *site = tp ? syscall_site(b, tp, ret) : NULL;
	if (!site) {
		if (tp && !c->pt->optional)
			diag_error(c->comps[1].loc, D_NO_DEBUGINFO,
				   "kernel %s's BTF does not give raw_syscalls:%s's arguments",
				   c->s->release, tpname);
		free(path);
		return;
	}
	site->object = xstrdup("kernel");
	site->object_file = xstrdup(c->s->kernel->btf_path);
	site->anchor = xstrdup(tpname);
	struct probe *p = add_site_probe(c, ret ? PK_SYSCALL_RETURN : PK_SYSCALL, site);
	free(p->pp_text);
	const char *tail = ret ? ".syscall.return" : ".syscall";
	p->pp_text = path ? xasprintf("process(\"%s\")%s", path, tail)
		   : pc->arg ? xasprintf("process(%lld)%s", pc->arg->num, tail)
			     : xasprintf("process%s", tail);
	free(p->symbol);
	p->symbol = NULL;
	p->user_file = path;
	p->offset = pc->arg && pc->arg->kind == N_NUM ? pc->arg->num : 0;
}

/* .plt("NAME")[.return]: the PLT entries of the functions NAME matches,
 * where the program calls into a library. */
static void user_plts(struct pp_ctx *c, const struct user_elf *u, int pi)
{
	const struct comp *pc = &c->comps[pi];
	enum probe_kind kind = PK_UPROBE;
	if (c->n == pi + 2 && comp_is(c, pi + 1, "return"))
		kind = PK_URETPROBE;
	else if (c->n != pi + 1) {
		unknown_shape(c);
		return;
	}
	const char *pattern = pc->arg && pc->arg->kind == N_STR ? pc->arg->str : "*";
	size_t placed = 0;
	for (size_t i = 0; i < u->nplts; i++) {
		const struct user_sym *y = &u->plts[i];
		if (fnmatch(pattern, y->name, 0))
			continue;
		struct probe_site *s = new_user_site(u, y->name, "PLT", y->vaddr);
		s->is_plt = true;
		placed += add_user_probe(c, u, kind, s, pc->arg ? pc->arg->loc : pc->loc);
	}
	if (!placed && !c->pt->optional) {
		diag_error(pc->arg ? pc->arg->loc : pc->loc, D_UNKNOWN_USER_FUNCTION,
			   "%s has no PLT entry for a function matching '%s'", u->path, pattern);
		struct suggest sg;
		suggest_init(&sg, pattern);
		for (size_t i = 0; i < u->nplts; i++)
			suggest_offer(&sg, u->plts[i].name);
		suggest_hint(&sg, NULL);
	}
}

static void process_file_point(struct pp_ctx *c, const struct user_elf *prog,
			       const struct user_elf *u, char *path);

static void process_point(struct pp_ctx *c)
{
	const struct comp *pc = &c->comps[0];
	if (pc->arg && pc->arg->kind != N_STR && pc->arg->kind != N_NUM) {
		unknown_shape(c);
		return;
	}
	if (c->n < 2) {
		unknown_shape(c);
		return;
	}
	bool thread = comp_is(c, 1, "thread");
	int last = thread ? 2 : 1;
	if (c->n == last + 1 && (comp_is(c, last, "begin") || comp_is(c, last, "end"))) {
		lifetime_point(c, thread, comp_is(c, last, "begin"));
		return;
	}
	if (!thread && comp_is(c, 1, "syscall") &&
	    (c->n == 2 || (c->n == 3 && comp_is(c, 2, "return")))) {
		syscall_point(c, c->n == 3);
		return;
	}
	struct loc loc = pc->arg ? pc->arg->loc : pc->loc;
	/* A wildcard in the path (process("/lib64/libc.so.*")): each file the
	 * pattern matches, once however many names lead to it, as SystemTap
	 * does. */
	if (pc->arg && pc->arg->kind == N_STR && pc->arg->str[0] == '/' &&
	    strpbrk(pc->arg->str, "*?[")) {
		glob_t g;
		struct ptrvec seen = { 0 };
		if (glob(pc->arg->str, 0, NULL, &g) == 0) {
			for (size_t i = 0; i < g.gl_pathc; i++) {
				char *real = realpath(g.gl_pathv[i], NULL);
				if (!real || pv_has_string(&seen, real)) {
					free(real);
					continue;
				}
				pv_push(&seen, real);
				char *why = NULL;
				const struct user_elf *u = user_elf_open(real, &why);
				/* A pattern also matches what is no program (a
				 * linker script named libc.so): left out. */
				if (u)
					process_file_point(c, u, u, xstrdup(real));
				free(why);
			}
			globfree(&g);
		}
		if (!seen.n && !c->pt->optional)
			diag_error(loc, D_NO_PROGRAM, "no file matches '%s'", pc->arg->str);
		pv_free_all(&seen);
		return;
	}
	char *why = NULL;
	char *path = program_of(c, &why);
	const struct user_elf *prog = path ? user_elf_open(path, &why) : NULL;
	if (!prog) {
		if (!c->pt->optional)
			diag_error(loc, D_NO_PROGRAM, "%s", why);
		free(why);
		free(path);
		return;
	}
	process_file_point(c, prog, prog, path);
}

/* .function, .statement, .mark or .plt in file u, from component next. */
static void file_point(struct pp_ctx *c, const struct user_elf *u, int next)
{
	if (comp_is(c, next, "function") || comp_is(c, next, "statement"))
		user_functions(c, u, next);
	else if (comp_is(c, next, "mark") || comp_is(c, next, "provider"))
		user_marks(c, u, next);
	else if (comp_is(c, next, "plt"))
		user_plts(c, u, next);
	else
		unknown_shape(c);
}

/*
 * .library("PATTERN") with a pattern: the point in each library prog needs
 * whose name matches. A library where it matches nothing is passed over;
 * none matching anywhere is the error. True when the pattern was taken.
 */
static bool library_pattern_point(struct pp_ctx *c, const struct user_elf *prog)
{
	const struct comp *lc = &c->comps[1];
	const char *pattern = lc->arg->str;
	if (strchr(pattern, '/') || !strpbrk(pattern, "*?["))
		return false;
	struct ptrvec libs = { 0 };
	user_find_libraries(prog, pattern, &libs);
	if (!libs.n) {
		pv_free(&libs);
		return false; /* user_find_library says why */
	}
	int made = c->made;
	bool optional = c->pt->optional;
	c->pt->optional = true;
	for (size_t i = 0; i < libs.n; i++) {
		char *why = NULL;
		const struct user_elf *u = user_elf_open(libs.v[i], &why);
		free(why);
		if (u)
			file_point(c, u, 2);
	}
	c->pt->optional = optional;
	if (c->made == made && !optional) {
		diag_error(lc->arg->loc, D_UNKNOWN_USER_FUNCTION,
			   "no library of %s matching '%s' has a match for the rest of the point",
			   prog->path, pattern);
		struct strbuf names;
		sb_init(&names);
		for (size_t i = 0; i < libs.n; i++) {
			const char *slash = strrchr(libs.v[i], '/');
			sb_printf(&names, "%s%s", i ? ", " : "", slash ? slash + 1 : (char *)libs.v[i]);
		}
		diag_note(lc->arg->loc, "the libraries matching: %s", names.s);
		sb_free(&names);
	}
	pv_free_all(&libs);
	return true;
}

/* The rest of a process point, in program prog (path: its file, freed
 * here): .library, then .function, .statement, .mark or .plt. */
static void process_file_point(struct pp_ctx *c, const struct user_elf *prog,
			       const struct user_elf *u, char *path)
{
	char *why = NULL;
	int next = 1;
	if (comp_is(c, 1, "library")) {
		const struct comp *lc = &c->comps[1];
		if (!lc->arg || lc->arg->kind != N_STR) {
			diag_error(lc->loc, D_BAD_PROBE_ARG,
				   "'library' takes a library's name or path in quotes, e.g. library(\"libc.so.6\")");
			free(path);
			return;
		}
		if (library_pattern_point(c, prog)) {
			free(path);
			return;
		}
		char *lib = user_find_library(prog, lc->arg->str, &why);
		u = lib ? user_elf_open(lib, &why) : NULL;
		free(lib);
		if (!u) {
			if (!c->pt->optional)
				diag_error(lc->arg->loc, D_NO_PROGRAM, "%s", why);
			free(why);
			free(path);
			return;
		}
		next = 2;
	}
	file_point(c, u, next);
	free(path);
}

/*
 * -d PATH and --ldd: user files whose symbols are embedded although no
 * probe is in them (usymname() and the like name addresses there): each
 * -d file, then, with --ldd, the libraries the probed programs and the -d
 * files need. Returns the number of errors.
 */
int uprobes_symbol_files(struct session *s)
{
	int errors = 0;
	for (size_t i = 0; i < s->symbol_files.n; i++) {
		char *why = NULL;
		char *path = user_find_program(s->symbol_files.v[i], &why);
		const struct user_elf *u = path ? user_elf_open(path, &why) : NULL;
		if (!u) {
			fprintf(stderr, "stap: -d %s: %s\n", (char *)s->symbol_files.v[i],
				why ? why : "cannot read it");
			errors++;
		} else {
			uprobes_add_object(s, u);
		}
		free(why);
		free(path);
	}
	if (!s->ldd)
		return errors;
	/* The list grows as libraries are added: their own needs come too. */
	for (size_t i = 0; i < s->prog.user_objects.n; i++) {
		const struct user_elf *u = s->prog.user_objects.v[i];
		for (size_t k = 0; k < u->nneeded; k++) {
			char *why = NULL;
			char *lib = user_find_library(u, u->needed[k], &why);
			const struct user_elf *l = lib ? user_elf_open(lib, &why) : NULL;
			if (l)
				uprobes_add_object(s, l);
			else if (s->verbose)
				fprintf(stderr, "stap: --ldd: %s of %s: %s\n", u->needed[k], u->path,
					why ? why : "not found");
			free(why);
			free(lib);
		}
	}
	return errors;
}

static const char *const process_usage[] = {
	"process(\"PATH\")[.library(\"LIB\")].function(\"name[@file[:line]]\")[.call|.return|.inline]",
	"process(\"PATH\")[.library(\"LIB\")].statement(\"name@file:line\")",
	"process(\"PATH\")[.library(\"LIB\")][.provider(\"p\")].mark(\"name\")",
	"process[(\"PATH\"|PID)][.thread].begin|end",
	"process[(\"PATH\"|PID)].syscall[.return]",
	"process(\"PATH\").plt[(\"name\")][.return]",
	NULL,
};
static const char *const process_shapes[] = {
	"process.function",
	"process.function.call",
	"process.function.return",
	"process.function.inline",
	"process.statement",
	"process.mark",
	"process.provider.mark",
	"process.library.function",
	"process.library.function.return",
	"process.library.mark",
	"process.begin",
	"process.end",
	"process.thread.begin",
	"process.thread.end",
	"process.syscall",
	"process.syscall.return",
	"process.plt",
	"process.plt.return",
	NULL,
};

const struct family process_family = {
	.first = "process",
	.usage = process_usage,
	.shapes = process_shapes,
	.resolve = process_point,
};
