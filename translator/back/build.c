// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Pass 4: generated C to NAME.ko, without kbuild. The script's C file is
 * compiled with the kernel's own compiler command (from the stub), checked
 * by objtool as kbuild would (its warnings are errors here: a module it
 * complains about can break unwinding or mitigations), linked with the
 * stub's objects, named, and its imports verified. The finished module then
 * gets its checksum of itself (which staprun verifies before loading), and
 * last a signature (sign.c), which covers all of it.
 *
 * Guru-mode embedded C may call any kernel function, and the stub's
 * __versions only has CRCs for what the runtime calls; so such a script is
 * built by kbuild itself (modpost finds the CRCs), with the stub's runtime
 * object as a prebuilt part of the module. That takes seconds, not 0.1 s.
 *
 * The generated C carries #line directives, so a compiler message points
 * at the script line that produced the code.
 *
 * Every command is an argument vector run with execvp, never a shell line:
 * the stub's commands come from a cache, and nothing there is given to a
 * shell.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "back/back.h"
#include "front/diag.h"

/* Generated C larger than BUILD_UNITS_SOURCE is compiled as several units
 * at once, and larger than BUILD_BIG_SOURCE with -O1 too (compile). */
#define BUILD_UNITS_SOURCE (32 * 1024)
#define BUILD_BIG_SOURCE (256 * 1024)
#define BUILD_MAX_UNITS 4

/* What a stub command's placeholders stand for. */
struct fills {
	const char *src, *obj, *out;
	const char *const *in; /* NULL-terminated */
};

/* Append the stub command tmpl to argv with each placeholder argument
 * replaced: @SRC@, @OBJ@ and @OUT@ by one path each, @IN@ by the objects to
 * link. The strings are borrowed, not copied. */
static void fill(struct ptrvec *argv, const struct ptrvec *tmpl, const struct fills *f)
{
	for (size_t i = 0; i < tmpl->n; i++) {
		const char *a = tmpl->v[i], *value = NULL;
		if (!strcmp(a, "@IN@") && f->in) {
			for (const char *const *in = f->in; *in; in++)
				pv_push(argv, (void *)*in);
			continue;
		}
		if (!strcmp(a, "@SRC@"))
			value = f->src;
		else if (!strcmp(a, "@OBJ@"))
			value = f->obj;
		else if (!strcmp(a, "@OUT@"))
			value = f->out;
		pv_push(argv, (void *)(value ? value : a));
	}
}

/* The module the kernel is handed carries no DWARF: nothing reads it there
 * (staprun and the kernel need the symbol table, the .modinfo and the
 * script's sections), and the runtime's DWARF, one copy of the kernel's
 * header types per runtime file, was most of a module's megabytes, which
 * init_module copies and staprun checksums at every start. stap -k keeps
 * the objects, with theirs. */
static void strip_debug(struct ptrvec *ld)
{
	if (!ld->n)
		return;
	pv_push(ld, NULL);
	memmove(&ld->v[2], &ld->v[1], (ld->n - 2) * sizeof ld->v[0]);
	ld->v[1] = (void *)"--strip-debug";
}

/* The command as a shell would need it written, for -vv. */
static char *command_text(const struct ptrvec *argv)
{
	struct strbuf b;
	sb_init(&b);
	for (size_t i = 0; i < argv->n && argv->v[i]; i++) {
		const char *a = argv->v[i];
		if (i)
			sb_putc(&b, ' ');
		if (*a && strspn(a, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
				    "_-+=/.,:@%") == strlen(a)) {
			sb_puts(&b, a);
			continue;
		}
		sb_putc(&b, '\'');
		for (; *a; a++) {
			if (*a == '\'')
				sb_puts(&b, "'\\''");
			else
				sb_putc(&b, *a);
		}
		sb_putc(&b, '\'');
	}
	return sb_detach(&b);
}

static void build_failed(struct session *s, const char *what, const char *output)
{
	fprintf(stderr, "stap: %s failed:\n%s", what, output ? output : "");
	if (output && *output && output[strlen(output) - 1] != '\n')
		fputc('\n', stderr);
	fprintf(stderr, "stap: the generated files are kept in %s\n", s->tmpdir);
	s->keep_temps = true;
}

/* Run argv (which gets its NULL here) in the kernel build tree; output on
 * failure (or any output for objtool). */
static bool step(struct session *s, const struct stub *st, const char *what, struct ptrvec *argv,
		 bool output_is_failure)
{
	char *out = NULL;
	uint64_t t0 = now_ns();
	pv_push(argv, NULL);
	int rc = run_command((const char *const *)argv->v, st->kbuild_dir, &out);
	if (s->verbose > 1) {
		char *cmd = command_text(argv);
		fprintf(stderr, "%s: %llu ms: %s\n", what,
			(unsigned long long)((now_ns() - t0) / 1000000), cmd);
		free(cmd);
	}
	bool ok = rc == 0 && !(output_is_failure && out && *out);
	if (!ok)
		build_failed(s, what, out);
	free(out);
	return ok;
}

/* step() for a command written out as an array of n arguments. */
static bool step_of(struct session *s, const struct stub *st, const char *what,
		    const char *const *args, size_t n)
{
	struct ptrvec argv = { 0 };
	for (size_t i = 0; i < n; i++)
		pv_push(&argv, (void *)args[i]);
	bool ok = step(s, st, what, &argv, false);
	pv_free(&argv);
	return ok;
}

/* The last steps of either path: the module's checksum, then its signature. */
static int seal_module(struct session *s, const struct stub *st, const char *ko)
{
	char *why = NULL;
	if (!link_write_checksum(ko, &why)) {
		build_failed(s, "writing the module's checksum", why);
		free(why);
		return 1;
	}
	return sign_module(s, st, ko);
}

/* The guru-mode path: kbuild links the script with the prebuilt runtime. */
static int build_with_kbuild(struct session *s, const struct stub *st)
{
	const char *name = s->module_name;
	char *dir = path_join(s->tmpdir, "kbuild");
	mkdir_p(dir, 0755);
	char *script = path_join(dir, "tapline_script.c");
	char *runtime = path_join(dir, "tapline_runtime.o");
	/* modpost reads each object's .cmd file (for the CRCs it exports: none). */
	char *runtime_cmd = path_join(dir, ".tapline_runtime.o.cmd");
	struct strbuf defs;
	sb_init(&defs);
	for (size_t i = 0; i < s->cc_defines.n; i++)
		sb_printf(&defs, " -D%s", (char *)s->cc_defines.v[i]);
	char *kbuild = xasprintf("# Generated by stap: a guru-mode script with the prebuilt runtime.\n"
				 "obj-m := %s.o\n%s-y := tapline_runtime.o tapline_script.o\n"
				 "ccflags-y := -I%s%s\n",
				 name, name, st->dir, defs.s ? defs.s : "");
	sb_free(&defs);
	char *kbuild_file = path_join(dir, "Kbuild");
	int errors = 0;
	if (!copy_file(s->c_file, script, 0644) || !copy_file(st->runtime_obj, runtime, 0644) ||
	    !write_file(runtime_cmd, "", 0) || !write_file(kbuild_file, kbuild, strlen(kbuild))) {
		fprintf(stderr, "stap: cannot prepare the kbuild directory %s\n", dir);
		errors = 1;
		goto out;
	}
	if (s->verbose)
		fprintf(stderr, "Pass 4: embedded C: building with the kernel's kbuild (slower than "
				"the prebuilt-stub path)\n");
	char *m = xasprintf("M=%s", dir);
	const char *const make[] = { "make", "-C", st->kbuild_dir, m, "modules" };
	bool ok = step_of(s, st, "building with kbuild", make, ARRAY_SIZE(make));
	free(m);
	if (!ok) {
		errors = 1;
		goto out;
	}
	char *ko = xasprintf("%s/%s.ko", dir, name);
	/* No DWARF here either (strip_debug); after kbuild, whose last step
	 * (6.12) reads the module's DWARF to write its BTF. */
	const char *const strip[] = { "objcopy", "--strip-debug", ko };
	ok = step_of(s, st, "removing the module's DWARF", strip, ARRAY_SIZE(strip));
	char *why = NULL;
	if (!ok) {
		free(ko);
		errors = 1;
		goto out;
	}
	if (!link_check_imports(ko, &why)) {
		build_failed(s, "finishing the module", why);
		free(why);
		free(ko);
		errors = 1;
		goto out;
	}
	if (seal_module(s, st, ko)) {
		free(ko);
		errors = 1;
		goto out;
	}
	s->ko_file = ko;
out:
	free(dir);
	free(script);
	free(runtime);
	free(runtime_cmd);
	free(kbuild);
	free(kbuild_file);
	return errors;
}

/* gcc's command for the generated C, into obj; unit k of units (units 0:
 * the whole file as one). */
static void compile_command(struct ptrvec *cc, struct session *s, const struct stub *st,
			    const char *obj, int unit, int units, bool big, struct ptrvec *strings)
{
	const struct fills f = { .src = s->c_file, .obj = obj };
	fill(cc, &st->cc, &f);
	/* kbuild's command already has -I for the stub's directory (api.h).
	 * -g1 keeps line tables (in the objects stap -k keeps, for crash
	 * analysis: the module itself is stripped) but drops variable
	 * location tracking, which is more than half of gcc's time on long
	 * generated bodies; the unwinder uses ORC from objtool, not DWARF.
	 * The temporary directory's name is left out of the line tables, so
	 * that the same C builds the same module, byte for byte. */
	pv_push(cc, "-g1");
	pv_push(strings, xasprintf("-ffile-prefix-map=%s/=", s->tmpdir));
	pv_push(cc, strings->v[strings->n - 1]);
	/* A big script (hundreds of tapset handlers: syscall.* with argstr)
	 * is mostly calls into the runtime, and gcc's time grows with it:
	 * -O1 after kbuild's -O2 takes about a third off that time, at a few
	 * instructions per hit. Small scripts, whose hits are the hot ones,
	 * keep -O2. */
	if (big)
		pv_push(cc, "-O1");
	if (units) {
		pv_push(strings, xasprintf("-DRT_PARTS=%d", units));
		pv_push(cc, strings->v[strings->n - 1]);
		pv_push(strings, xasprintf("-DRT_PART=%d", unit));
		pv_push(cc, strings->v[strings->n - 1]);
	}
	for (size_t i = 0; i < s->cc_defines.n; i++) {
		pv_push(strings, xasprintf("-D%s", (char *)s->cc_defines.v[i]));
		pv_push(cc, strings->v[strings->n - 1]);
	}
	pv_push(cc, NULL);
}

/*
 * Compile the generated C into obj. A file of some size is compiled as
 * one unit per CPU (at most BUILD_MAX_UNITS) at once, each with its share
 * of the handlers (codegen's RT_PART), and the units joined with ld -r;
 * *units_checked: objtool has checked each unit (and is not to check obj).
 */
static bool compile(struct session *s, const struct stub *st, const char *obj, bool *units_checked)
{
	struct stat src_st;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	off_t size = stat(s->c_file, &src_st) == 0 ? src_st.st_size : 0;
	bool big = size > BUILD_BIG_SOURCE;
	int units = size <= BUILD_UNITS_SOURCE ? 0 : cpus < 1 ? 1
			: cpus > BUILD_MAX_UNITS ? BUILD_MAX_UNITS : (int)cpus;
	int n = units ? units : 1;
	struct ptrvec strings = { 0 }, unit_objs = { 0 }, join = { 0 };
	struct ptrvec *cc = xcalloc((size_t)n, sizeof *cc);
	const char *const **argvs = xcalloc((size_t)n, sizeof *argvs);
	char **outs = xcalloc((size_t)n, sizeof *outs);
	int *rcs = xcalloc((size_t)n, sizeof *rcs);
	uint64_t t0 = now_ns();
	for (int k = 0; k < n; k++) {
		const char *o = obj;
		if (n > 1) {
			pv_push(&unit_objs, xasprintf("%s.unit%d.o", obj, k));
			o = unit_objs.v[k];
		}
		compile_command(&cc[k], s, st, o, k, units, big, &strings);
		argvs[k] = (const char *const *)cc[k].v;
	}
	run_commands(argvs, (size_t)n, st->kbuild_dir, outs, rcs);
	bool ok = true;
	for (int k = 0; k < n; k++) {
		if (s->verbose > 1) {
			struct ptrvec shown = cc[k];
			shown.n--; /* (its NULL) */
			char *cmd = command_text(&shown);
			fprintf(stderr, "compiling the generated C%s: %llu ms: %s\n",
				n > 1 ? " (one of the units at once)" : "",
				(unsigned long long)((now_ns() - t0) / 1000000), cmd);
			free(cmd);
		}
		if (ok && rcs[k] != 0) {
			build_failed(s, "compiling the generated C", outs[k]);
			ok = false;
		}
		free(outs[k]);
		pv_free(&cc[k]);
	}
	/* Where objtool checks the script's object alone, it checks each
	 * unit's, as kbuild checks each object of a module (a joined object
	 * it takes for a linked one). */
	for (int k = 0; ok && n > 1 && !st->partial.n && st->objtool.n && k < n; k++) {
		const struct fills fu = { .obj = unit_objs.v[k] };
		struct ptrvec objtool = { 0 };
		fill(&objtool, &st->objtool, &fu);
		ok = step(s, st, "objtool", &objtool, true);
		pv_free(&objtool);
	}
	*units_checked = ok && n > 1 && !st->partial.n && st->objtool.n;
	if (ok && n > 1) {
		pv_push(&join, st->ld.v[0]); /* the kernel's linker */
		pv_push(&join, "-r");
		pv_push(&join, "-o");
		pv_push(&join, (void *)obj);
		for (int k = 0; k < n; k++)
			pv_push(&join, unit_objs.v[k]);
		ok = step(s, st, "joining the units", &join, false);
	}
	pv_free(&join);
	pv_free_all(&strings);
	pv_free_all(&unit_objs);
	free(cc);
	free(argvs);
	free(outs);
	free(rcs);
	return ok;
}

int build_module(struct session *s)
{
	struct stub *st = stub_get(s);
	if (!st)
		return 1;
	/* (TAPLINE_BUILD_WITH_KBUILD=1: any script, so that a test can
	 * compare the two paths' modules.) */
	if (s->prog.uses_embedded_c || getenv("TAPLINE_BUILD_WITH_KBUILD"))
		return build_with_kbuild(s, st);
	const char *name = s->module_name;
	const char *src = s->c_file;
	char *obj = xasprintf("%s/%s.o", s->tmpdir, name);
	char *ko = xasprintf("%s/%s.ko", s->tmpdir, name);
	int errors = 0;

	/* objtool checks the script's object alone, or (stub->partial) the
	 * script and the runtime linked together, as kbuild would. */
	char *both = xasprintf("%s/%s.both.o", s->tmpdir, name);
	const char *const parts[] = { st->runtime_obj, obj, NULL };
	const char *const inputs[] = { st->runtime_obj, obj, st->mod_obj, NULL };
	const char *const linked[] = { both, st->mod_obj, NULL };
	const bool at_link = st->partial.n > 0;
	const struct fills f = { .src = src, .obj = obj, .out = ko, .in = inputs };
	const struct fills fp = { .obj = both, .out = both, .in = parts };
	const struct fills fl = { .out = ko, .in = linked };
	struct ptrvec objtool = { 0 }, partial = { 0 }, ld = { 0 };
	fill(&partial, &st->partial, &fp);
	fill(&objtool, &st->objtool, at_link ? &fp : &f);
	fill(&ld, &st->ld, at_link ? &fl : &f);
	strip_debug(&ld);

	bool units_checked = false;
	if (!compile(s, st, obj, &units_checked) ||
	    (at_link && !step(s, st, "linking the script with the runtime", &partial, false)) ||
	    (st->objtool.n && !units_checked && !step(s, st, "objtool", &objtool, true)) ||
	    !step(s, st, "linking the module", &ld, false)) {
		errors = 1;
		goto out;
	}
	char *why = NULL;
	if (!link_set_module_name(ko, name, &why) || !link_check_imports(ko, &why)) {
		build_failed(s, "finishing the module", why);
		free(why);
		errors = 1;
		goto out;
	}
	if (seal_module(s, st, ko)) {
		errors = 1;
		goto out;
	}
	s->ko_file = ko;
	ko = NULL;
out:
	pv_free(&objtool);
	pv_free(&partial);
	pv_free(&ld);
	free(both);
	free(obj);
	free(ko);
	return errors;
}
