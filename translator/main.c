// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * stap: a probe script becomes a kernel module and runs. The passes, in
 * order; `-p N` stops after pass N and prints what it produced.
 *
 *   1 parse      script and tapsets -> syntax tree          front/
 *   2 elaborate  names, probe points, types                 sema/ (asks debuginfo/)
 *   3 translate  -> C that calls only the runtime API       back/codegen.c
 *   4 build      C + prebuilt runtime stub -> NAME.ko       back/build.c
 *   5 run        staprun, locally or in a guest (--vm)      run/
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "back/back.h"
#include "debuginfo/kernel.h"
#include "front/diag.h"
#include "front/front.h"
#include "options.h"
#include "run/run.h"
#include "sema/builtins.h"
#include "sema/probes.h"
#include "sema/sema.h"
#include "vm/vm.h"
#include "session.h"

struct pass_clock {
	struct session *s;
	uint64_t start;
};

static struct pass_clock pass_begin(struct session *s)
{
	return (struct pass_clock){ s, now_ns() };
}

static void pass_end(struct pass_clock pc, int pass, const char *what)
{
	if (!pc.s->verbose)
		return;
	fprintf(stderr, "Pass %d: %s in %.1f ms (rss %ld MiB)\n", pass, what,
		(double)(now_ns() - pc.start) / 1e6, rss_kb() / 1024);
}

/* Tapline's own files: the source tree when stap runs from its build tree. */
static void locate_files(struct session *s)
{
	char *build_translator = path_join(TAPLINE_BUILDDIR, "translator");
	bool in_tree = !strcmp(self_dir(), build_translator);
	free(build_translator);
	const char *data = getenv("TAPLINE_DATADIR");
	if (!data)
		data = in_tree ? TAPLINE_SRCDIR : TAPLINE_PKGDATADIR;
	s->runtime_dir = path_join(data, "runtime");
	/* SystemTap's variable: another tapset library in place of ours. */
	const char *tapsets = getenv("SYSTEMTAP_TAPSET");
	s->tapset_dir = tapsets && *tapsets ? xstrdup(tapsets) : path_join(data, "tapsets");
	s->staprun_path = in_tree ? path_join(TAPLINE_BUILDDIR, "staprun/staprun")
				  : path_join(TAPLINE_LIBEXECDIR, "staprun");
}

/* Every name the tapset library defines, loaded or not: for "did you mean". */
static void note_library_name(const char *name, char kind, void *ctx)
{
	struct program *prog = ctx;
	pv_push(kind == 'f' ? &prog->library_functions
			    : kind == 'g' ? &prog->library_globals : &prog->library_aliases,
		xstrdup(name));
}

static int pass1_parse(struct session *s)
{
	struct program *prog = &s->prog;
	struct pp_env *env = &prog->env;
	env->release = s->release;
	env->arch = "x86_64";
	char *config = xasprintf("/boot/config-%s", s->release ? s->release : "");
	if (!s->release || !file_exists(config)) {
		free(config);
		config = s->release ? xasprintf("/lib/modules/%s/build/.config", s->release) : NULL;
	}
	env->config_path = config;
	env->guru = s->guru;
	env->systemtap_v = s->compatible;
	env->check_version = s->check_version;
	env->maxstringlen = s->limits[LIMIT_MAXSTRINGLEN];
	env->argv = s->script_args;
	env->argc = s->nscript_args;
	struct ptrvec dirs = { 0 };
	if (!is_dir(s->tapset_dir))
		fatal("no tapset directory %s", s->tapset_dir);
	pv_push(&dirs, s->tapset_dir);
	for (size_t i = 0; i < s->include_dirs.n; i++) {
		if (!is_dir(s->include_dirs.v[i]))
			fatal("-I %s: not a directory", (char *)s->include_dirs.v[i]);
		pv_push(&dirs, s->include_dirs.v[i]);
	}
	/* Public macros come first, so the script may use them. */
	struct tapset_lib *lib = tapset_open(&dirs, env);
	pv_free(&dirs);
	tapset_each_name(lib, note_library_name, prog);
	int file;
	if (s->script_text) {
		file = src_add("<input>", xstrdup(s->script_text), strlen(s->script_text), false);
	} else if (!strcmp(s->script_file, "-")) {
		size_t len;
		char *text = read_fd(0, &len);
		if (!text)
			fatal("cannot read the script from standard input: %m");
		file = src_add("<stdin>", text, len, false);
	} else {
		file = src_load(s->script_file, false);
		if (file < 0)
			fatal("cannot read %s: %m", s->script_file);
	}
	prog->user_file = file;
	struct ptrvec all = { 0 };
	int errors = parse_file(file, env, &all);
	/* -T N: the script ends itself after N seconds, as with SystemTap. */
	if (s->exit_after_s) {
		char *text = xasprintf("probe timer.s(%d) { exit() }\n", s->exit_after_s);
		errors += parse_file(src_add("<-T>", text, strlen(text), false), env, &all);
	}
	size_t nuser = all.n;
	/* SystemTap's printing of the globals written and never read, after
	 * the script's own end probes. */
	char *autoprint = autoprint_text(&all, 0, nuser);
	if (autoprint && s->verbose)
		fprintf(stderr, "stap: globals written and never read are printed at the end, as "
				"SystemTap does:\n%s", autoprint);
	if (autoprint)
		errors += parse_file(src_add("<auto-print>", autoprint, strlen(autoprint), false),
				     env, &all);
	size_t nauto = all.n - nuser;
	/* The tapset files the script needs, declared before it, as if the
	 * whole library came first. */
	errors += tapset_load_needed(lib, env, &all, 0, &prog->ntapset_files);
	for (size_t i = nuser + nauto; i < all.n; i++)
		pv_push(&prog->decls, all.v[i]);
	for (size_t i = 0; i < nuser + nauto; i++)
		pv_push(&prog->decls, all.v[i]);
	pv_free(&all);
	return errors;
}

static void print_user_decls(const struct session *s)
{
	for (size_t i = 0; i < s->prog.decls.n; i++) {
		const struct node *d = s->prog.decls.v[i];
		if (d->loc.file == s->prog.user_file)
			ast_print_decl(stdout, d);
	}
}

/* The kernels left out of a choice, for a note: "; X is skipped: ..." (or ""). */
static char *skipped_kernels(const struct vm_kernels *k)
{
	char *a = k->no_headers ? xasprintf("; %s is skipped: it has no headers (install "
					    "linux-headers-%s)",
					    k->no_headers, k->no_headers)
				: xstrdup("");
	char *b = k->no_image ? xasprintf("; %s is skipped: it has headers but no image in /boot",
					  k->no_image)
			      : xstrdup("");
	char *both = xasprintf("%s%s", a, b);
	free(a);
	free(b);
	return both;
}

/*
 * -r, else the running kernel; with --vm, the newest kernel installed whole
 * (image and headers): a half-installed one is never chosen. With several
 * kernels installed, a note says which was chosen and why.
 */
static void choose_release(struct session *s)
{
	if (s->release)
		return;
	struct vm_kernels k;
	char *newest = vm_installed_kernels(&k);
	char *skipped = skipped_kernels(&k);
	if (s->vm) {
		if (!newest && k.no_headers)
			fatal("no installed kernel has its headers: install linux-headers-%s to build "
			      "for kernel %s",
			      k.no_headers, k.no_headers);
		if (!newest)
			fatal("no kernel image in /boot to boot in the guest; install the packages "
			      "linux-image-amd64 and linux-headers-amd64");
		s->release = newest;
		if ((k.images > 1 || k.no_image) && !s->quiet)
			fprintf(stderr,
				"stap: note: --vm boots kernel %s, the newest installed with its "
				"headers%s; -r RELEASE chooses another\n",
				newest, skipped);
		vm_kernels_free(&k);
		free(skipped);
		return;
	}
	s->release = kernel_running_release();
	char *vmlinuz = xasprintf("/boot/vmlinuz-%s", s->release);
	char *build = xasprintf("/lib/modules/%s/build", s->release);
	bool have = file_exists(vmlinuz) || file_exists(build);
	free(vmlinuz);
	free(build);
	if (s->quiet)
		; /* -q: no notes */
	else if (!have && newest && s->last_pass > 1)
		fprintf(stderr,
			"stap: note: the running kernel %s is not installed here; for the installed "
			"kernel %s, use -r %s or --vm\n",
			s->release, newest, newest);
	else if (have && k.images > 1 && s->last_pass >= 4)
		fprintf(stderr,
			"stap: note: building for the running kernel %s, as without -r always; "
			"-r RELEASE builds for another installed kernel\n",
			s->release);
	free(newest);
	free(skipped);
	vm_kernels_free(&k);
}

/* A built-in's declaration from its signature: "user_string:string (long)". */
static void print_builtin(const struct builtin *b, void *out)
{
	struct ptrvec *decls = out;
	static const char *const names[] = { ['l'] = "long", ['s'] = "string", ['*'] = "any" };
	struct strbuf d;
	sb_init(&d);
	sb_printf(&d, "%s%s%s (", b->name, b->sig[0] == 'v' ? "" : ":",
		  b->sig[0] == 'v' ? "" : names[(unsigned char)b->sig[0]]);
	for (const char *a = b->sig + 2; *a; a++)
		sb_printf(&d, "%s%s", a > b->sig + 2 ? ", " : "",
			  *a == '.' ? "..." : names[(unsigned char)*a] ? names[(unsigned char)*a] : "?");
	sb_puts(&d, ")");
	struct tapdoc *doc = xcalloc(1, sizeof *doc);
	doc->name = xstrdup(b->name);
	doc->decl = sb_detach(&d);
	doc->doc = xstrdup(b->doc);
	pv_push(decls, doc);
}

static int doc_cmp(const void *a, const void *b)
{
	return strcmp((*(struct tapdoc *const *)a)->name, (*(struct tapdoc *const *)b)->name);
}

/* stap --dump-functions, --dump-probe-aliases: what scripts can use, by
 * name, each with what it does under -v. */
static void dump_library(const struct session *s)
{
	struct ptrvec dirs = { 0 }, functions = { 0 }, aliases = { 0 };
	pv_push(&dirs, s->tapset_dir);
	for (size_t i = 0; i < s->include_dirs.n; i++)
		pv_push(&dirs, s->include_dirs.v[i]);
	struct ptrvec paths = tapset_paths(&dirs);
	tapdoc_read(&paths, &functions, &aliases);
	struct ptrvec *list = s->dump == DUMP_FUNCTIONS ? &functions : &aliases;
	if (s->dump == DUMP_FUNCTIONS) {
		builtin_each(print_builtin, list);
		qsort(list->v, list->n, sizeof *list->v, doc_cmp);
	}
	for (size_t i = 0; i < list->n; i++) {
		const struct tapdoc *d = list->v[i];
		printf("%s\n", d->decl);
		if (s->verbose && d->doc)
			printf("    %s\n", d->doc);
	}
	pv_free_all(&paths);
	pv_free(&dirs);
}

static void print_usage(const char *usage, void *ctx)
{
	printf("%s\n", usage);
}

int main(int argc, char **argv)
{
	struct session sess = { 0 };
	struct session *s = &sess;
	options_parse(s, argc, argv);
	util_catch_signals();
	locate_files(s);
	if (s->clean_cache) {
		modcache_clean(s->verbose > 0);
		if (!s->script_text && !s->script_file)
			return 0;
	}
	if (s->dump == DUMP_PROBE_TYPES) {
		probe_point_usages(print_usage, NULL);
		return 0;
	}
	if (s->dump) {
		dump_library(s);
		return 0;
	}
	if (!run_possible(s))
		return 1;

	/* The preprocessor already asks about the target kernel. */
	choose_release(s);
	struct pass_clock pc = pass_begin(s);
	pass1_parse(s);
	util_check_signal();
	diag_summary();
	if (diag_errors())
		return 1;
	char *what = xasprintf("parsed the script and %d tapset files", s->prog.ntapset_files);
	pass_end(pc, 1, what);
	free(what);
	if (s->last_pass == 1) {
		print_user_decls(s);
		return 0;
	}

	/* An unchanged run built this module before: straight to pass 5. */
	struct modcache *cache = modcache_open(s);
	int status = 0;
	char *c_text = NULL;
	bool from_cache = modcache_lookup(cache, s);
	if (from_cache)
		goto built;

build:
	pc = pass_begin(s);
	s->kernel = kernel_open(s->release, s->verbose > 0);
	if (!s->kernel)
		return 1;
	int sema_errors = sema_elaborate(s);
	diag_summary();
	if (sema_errors)
		return 1;
	util_check_signal();
	what = xasprintf("resolved %zu probes, %zu functions and %zu globals against kernel %s",
			 s->prog.probes.n, s->prog.functions.n, s->prog.globals.n, s->release);
	pass_end(pc, 2, what);
	free(what);
	if (s->list || s->last_pass == 2) {
		if (s->probe_cache && probe_cache_save(s))
			return 1;
		if (s->list)
			sema_list(s, stdout);
		else
			sema_print(s, stdout);
		return 0;
	}

	pc = pass_begin(s);
	const struct source *user = src_get(s->prog.user_file);
	if (!s->module_name)
		s->module_name = options_default_module_name(s, user->text, user->len);
	c_text = cg_translate(s);
	if (diag_errors() || (s->probe_cache && probe_cache_save(s)))
		return 1;
	if (!s->tmpdir)
		s->tmpdir = make_temp_dir("tapline");
	s->c_file = xasprintf("%s/%s.c", s->tmpdir, s->module_name);
	if (!write_file(s->c_file, c_text, strlen(c_text)))
		fatal("cannot write %s: %m", s->c_file);
	pass_end(pc, 3, "translated to C");
	util_check_signal();
	if (s->last_pass == 3) {
		fputs(c_text, stdout);
		goto done;
	}

	pc = pass_begin(s);
	if (build_module(s)) {
		status = 1;
		goto done;
	}
	util_check_signal();
	pass_end(pc, 4, "built the module");
	modcache_store(cache, s);
built:
	if (s->last_pass == 4) {
		/* Like SystemTap: the module lands in the current directory. */
		char *dest = xasprintf("%s.ko", s->module_name);
		if (!copy_file(s->ko_file, dest, 0644))
			fatal("cannot write %s: %m", dest);
		printf("%s\n", dest);
		free(dest);
		goto done;
	}

	pc = pass_begin(s);
	status = run_module(s);
	/* staprun refused a damaged module before loading it: build it afresh. */
	if (status && from_cache && modcache_after_failure(cache, s)) {
		from_cache = false;
		free(s->ko_file);
		s->ko_file = NULL;
		goto build;
	}
	pass_end(pc, 5, "ran the module");
done:
	util_check_signal();
	if (s->keep_temps)
		fprintf(stderr, "stap: keeping the temporary directory %s\n", s->tmpdir);
	else
		remove_tree(s->tmpdir);
	free(c_text);
	modcache_free(cache);
	return status;
}
