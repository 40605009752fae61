// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The prebuilt runtime stub. The runtime is compiled with the target
 * kernel's kbuild once, and cached under the kernel's build-id and a hash
 * of the runtime's sources, so a script needs no kbuild run: build.c
 * compiles it with the same compiler command kbuild used for the runtime
 * (read back from kbuild's .cmd files, never written down here) and links
 * it with the stub's objects.
 *
 * Building the stub:
 *  1. copy runtime/, and the part of contract/ the kernel side shares,
 *     into a fresh directory;
 *  2. compile each compat/probes/NAME.c against the kernel; features.h
 *     defines RT_HAVE_NAME for those that compile;
 *  3. write imports.c, referencing the symbols the compiler may call on
 *     its own (thunks, __fentry__, memcpy...) that the kernel exports, so
 *     that modpost records a CRC for each and a script's module can use them;
 *  4. kbuild the module, then keep its objects and commands.
 *
 * The commands are kept as argument vectors, one argument per line, and
 * run with execvp: kbuild's shell command lines are split into words once,
 * here, and nothing in the cache is ever given to a shell. The stub's
 * directory, like every cache, is private (private.h), and checked to be
 * ours alone, every file in it, before it is used.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "back/back.h"
#include "back/shellwords.h"
#include "debuginfo/kernel.h"
#include "private.h"

/* Bump when the stub's layout or this file's commands change.
 * 2: commands are argument vectors (cc.argv, objtool.argv, ld.argv).
 * 3: partial.argv and runtime-unchecked.o, for objtool at the module's link. */
#define STUB_FORMAT 3

/* The first line of a command file; an argument per line follows. */
static const char argv_header[] = "# stap runs this with execvp: one argument per line, no shell\n";

/* Symbols compilers emit calls to without the source naming them. */
static const char *const compiler_symbols[] = {
	"__fentry__", "__x86_return_thunk", "__stack_chk_fail", "memcpy", "memset", "memmove",
	"memcmp", "__x86_indirect_thunk_rax", "__x86_indirect_thunk_rbx",
	"__x86_indirect_thunk_rcx", "__x86_indirect_thunk_rdx", "__x86_indirect_thunk_rsi",
	"__x86_indirect_thunk_rdi", "__x86_indirect_thunk_rbp", "__x86_indirect_thunk_r8",
	"__x86_indirect_thunk_r9", "__x86_indirect_thunk_r10", "__x86_indirect_thunk_r11",
	"__x86_indirect_thunk_r12", "__x86_indirect_thunk_r13", "__x86_indirect_thunk_r14",
	"__x86_indirect_thunk_r15", "__x86_indirect_call_thunk_rax",
	"__x86_indirect_call_thunk_rcx", "__x86_indirect_call_thunk_rdx",
	"__x86_indirect_call_thunk_r11", "__x86_indirect_jump_thunk_rax",
	"__x86_indirect_jump_thunk_r11",
};

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool starts_with(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

/* The files of contract/ (beside runtime/) the kernel side is built with,
 * at contract/ in the stub: the formats, the regex matcher and the user
 * stack records it shares with the translator and staprun. The rest of
 * contract/ (the module format) is theirs alone. */
static const char *const kernel_contract[] = { "format.c", "format.h", "rematch.c", "rematch.h",
					       "ustack-records.h" };

/* Where a stub file comes from: contract/ beside runtime_dir, else runtime_dir. */
static char *source_path(const char *runtime_dir, const char *rel)
{
	if (starts_with(rel, "contract/"))
		return xasprintf("%s/../%s", runtime_dir, rel);
	return path_join(runtime_dir, rel);
}

/* Relative paths of the runtime's sources: *.c and *.h, probes/, compat/,
 * compat/probes/. */
static void list_runtime_dir(const char *root, const char *sub, struct ptrvec *out)
{
	char *dir = sub ? path_join(root, sub) : xstrdup(root);
	DIR *d = opendir(dir);
	free(dir);
	if (!d)
		return;
	struct dirent *e;
	while ((e = readdir(d))) {
		size_t n = strlen(e->d_name);
		if (e->d_name[0] == '.')
			continue;
		char *rel = sub ? path_join(sub, e->d_name) : xstrdup(e->d_name);
		char *full = path_join(root, rel);
		if (is_dir(full) && (!strcmp(rel, "compat") || !strcmp(rel, "compat/probes") ||
				     !strcmp(rel, "probes"))) {
			list_runtime_dir(root, rel, out);
			free(rel);
		} else if (n > 2 && (!strcmp(e->d_name + n - 2, ".c") ||
				     !strcmp(e->d_name + n - 2, ".h"))) {
			pv_push(out, rel);
		} else {
			free(rel);
		}
		free(full);
	}
	closedir(d);
}

/* The stub's sources, sorted: the runtime's and the kernel's part of the contract. */
static void list_runtime(const char *root, struct ptrvec *out)
{
	list_runtime_dir(root, NULL, out);
	for (size_t i = 0; i < ARRAY_SIZE(kernel_contract); i++)
		pv_push(out, path_join("contract", kernel_contract[i]));
	qsort(out->v, out->n, sizeof(void *), cmp_str);
}

static uint64_t runtime_hash(const char *runtime_dir, const struct ptrvec *files)
{
	uint64_t h = HASH_INIT;
	const int format = STUB_FORMAT;
	h = hash_bytes(h, &format, sizeof format);
	h = hash_bytes(h, TAPLINE_VERSION, strlen(TAPLINE_VERSION));
	for (size_t i = 0; i < files->n; i++) {
		char *p = source_path(runtime_dir, files->v[i]);
		size_t len = 0;
		char *text = read_file(p, &len);
		free(p);
		h = hash_bytes(h, files->v[i], strlen(files->v[i]) + 1);
		if (text)
			h = hash_bytes(h, text, len);
		free(text);
	}
	return h;
}

/* The command recorded in a kbuild .cmd file (shellwords.h). */
static char *kbuild_command(const char *cmd_file)
{
	char *text = read_file(cmd_file, NULL);
	char *line = text ? kbuild_cmd_line(text) : NULL;
	free(text);
	return line;
}

/* The commands of a kbuild .cmd file, as words (shellwords.h); false, reported, if
 * it has none or has what only a shell would interpret. */
static bool kbuild_commands(const char *cmd_file, struct ptrvec *commands)
{
	char *line = kbuild_command(cmd_file), *why = NULL;
	bool ok = line && shell_split(line, commands, &why) && commands->n;
	if (!line)
		fprintf(stderr, "stap: cannot read the kbuild command in %s\n", cmd_file);
	else if (why)
		fprintf(stderr, "stap: the kbuild command in %s has %s; stap runs commands without "
				"a shell\n",
			cmd_file, why);
	else if (!ok)
		fprintf(stderr, "stap: the kbuild command in %s is empty\n", cmd_file);
	free(line);
	free(why);
	return ok;
}

/* In argv, drop the arguments starting with prefix, and replace each one equal to
 * a path with its placeholder (paths[i] -> names[i]). */
static void templatize(struct ptrvec *argv, const char *drop_prefix, const char *const paths[],
		       const char *const names[], size_t n)
{
	size_t to = 0;
	for (size_t i = 0; i < argv->n; i++) {
		char *a = argv->v[i];
		if (drop_prefix && starts_with(a, drop_prefix)) {
			free(a);
			continue;
		}
		for (size_t k = 0; k < n; k++) {
			if (!strcmp(a, paths[k])) {
				free(a);
				a = xstrdup(names[k]);
				break;
			}
		}
		argv->v[to++] = a;
	}
	argv->n = to;
}

/* Replace the arguments first, second (one after the other) with one, name. */
static void join_pair(struct ptrvec *argv, const char *first, const char *second, const char *name)
{
	for (size_t i = 0; i + 1 < argv->n; i++) {
		if (strcmp(argv->v[i], first) || strcmp(argv->v[i + 1], second))
			continue;
		free(argv->v[i]);
		free(argv->v[i + 1]);
		argv->v[i] = xstrdup(name);
		memmove(&argv->v[i + 1], &argv->v[i + 2], (argv->n - i - 2) * sizeof(void *));
		argv->n--;
		return;
	}
}

static bool has_arg(const struct ptrvec *argv, const char *arg)
{
	return argv && pv_has_string(argv, arg);
}

/* The last path component of the command's program. */
static const char *program_name(const struct ptrvec *argv)
{
	const char *slash = strrchr(argv->v[0], '/');
	return slash ? slash + 1 : argv->v[0];
}

static bool write_text(const char *dir, const char *name, const char *text)
{
	char *p = path_join(dir, name);
	bool ok = write_file(p, text, strlen(text));
	free(p);
	return ok;
}

static bool write_argv(const char *dir, const char *name, const struct ptrvec *argv)
{
	struct strbuf b;
	sb_init(&b);
	sb_puts(&b, argv_header);
	for (size_t i = 0; argv && i < argv->n; i++) {
		sb_puts(&b, argv->v[i]);
		sb_putc(&b, '\n');
	}
	bool ok = write_text(dir, name, b.s);
	sb_free(&b);
	return ok;
}

/* A command file written by write_argv; false with *why if it is not that,
 * or not ours alone. */
static bool read_argv(const char *dir, const char *name, struct ptrvec *argv, char **why)
{
	char *path = path_join(dir, name);
	char *text = read_private_file(path, NULL, why);
	size_t n = strlen(argv_header);
	if (text && strncmp(text, argv_header, n))
		*why = xasprintf("%s is not a command file of this stap", path);
	for (char *p = text && !*why ? text + n : NULL, *nl; p && (nl = strchr(p, '\n')); p = nl + 1)
		pv_push(argv, xstrndup(p, (size_t)(nl - p)));
	free(text);
	free(path);
	return !*why;
}

/* make -C KBUILD_DIR M=DIR -jN [-k] TARGETS... (NULL-terminated), which
 * (kbuild) writes into dir. */
static int run_make(const char *kbuild_dir, const char *dir, const char *const targets[],
		    bool keep_going, char **output)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	char *m = xasprintf("M=%s", dir);
	char *jobs = xasprintf("-j%ld", ncpu > 0 ? ncpu : 1);
	size_t ntargets = 0;
	while (targets[ntargets])
		ntargets++;
	const char **argv = xcalloc(ntargets + 7, sizeof *argv);
	size_t n = 0;
	argv[n++] = "make";
	argv[n++] = "-C";
	argv[n++] = kbuild_dir;
	argv[n++] = m;
	argv[n++] = jobs;
	if (keep_going)
		argv[n++] = "-k";
	for (size_t i = 0; i < ntargets; i++)
		argv[n++] = targets[i];
	int rc = run_command(argv, NULL, output);
	free(argv);
	free(m);
	free(jobs);
	return rc;
}

static void show_tail(const char *output, int lines)
{
	if (!output)
		return;
	const char *p = output + strlen(output);
	int n = 0;
	while (p > output && n <= lines)
		if (*--p == '\n')
			n++;
	fprintf(stderr, "%s\n", p);
}

/*
 * A probe that uses a kernel function needs it exported to modules too
 * (stack_trace_save_tsk is on 6.12, not on 6.1), which compiling cannot
 * tell: its "needs export: NAME" lines name those Module.symvers must list.
 */
static bool exports_present(const char *source, const char *kbuild_dir)
{
	char *text = read_file(source, NULL);
	if (!text)
		return false;
	char *symvers_path = path_join(kbuild_dir, "Module.symvers");
	char *symvers = NULL;
	bool ok = true;
	for (const char *p = strstr(text, "needs export: "); p && ok;
	     p = strstr(p + 1, "needs export: ")) {
		char name[128], want[160];
		if (sscanf(p + strlen("needs export: "), "%127[A-Za-z0-9_]", name) != 1)
			continue;
		if (!symvers && !(symvers = read_file(symvers_path, NULL))) {
			ok = false;
			break;
		}
		snprintf(want, sizeof want, "\t%s\t", name);
		ok = strstr(symvers, want) != NULL;
	}
	free(symvers);
	free(symvers_path);
	free(text);
	return ok;
}

/* Step 2: which feature probes compile. */
static bool probe_features(struct session *s, const char *dir, const struct ptrvec *files,
			   const char *kbuild_dir)
{
	char *fdir = path_join(dir, "features");
	mkdir_p(fdir, 0700);
	struct strbuf kbuild, header;
	struct ptrvec targets = { 0 };
	sb_init(&kbuild);
	sb_init(&header);
	struct ptrvec names = { 0 };
	for (size_t i = 0; i < files->n; i++) {
		const char *rel = files->v[i];
		if (!starts_with(rel, "compat/probes/"))
			continue;
		char *base = xstrdup(rel + strlen("compat/probes/"));
		base[strlen(base) - 2] = 0;
		char *from = path_join(s->runtime_dir, rel);
		char *to = xasprintf("%s/%s.c", fdir, base);
		copy_file(from, to, 0644);
		free(from);
		free(to);
		sb_printf(&kbuild, "obj-m += %s.o\n", base);
		pv_push(&targets, xasprintf("%s.o", base));
		pv_push(&names, base);
	}
	write_text(fdir, "Kbuild", kbuild.s ? kbuild.s : "");
	char *out = NULL;
	if (names.n) {
		pv_push(&targets, NULL);
		run_make(kbuild_dir, fdir, (const char *const *)targets.v, true, &out);
	}
	sb_puts(&header, "/* Generated by stap from runtime/compat/probes when the stub was built. */\n");
	bool ok = true;
	for (size_t i = 0; i < names.n; i++) {
		char *obj = xasprintf("%s/%s.o", fdir, (char *)names.v[i]);
		char *src = xasprintf("%s/%s.c", fdir, (char *)names.v[i]);
		bool have = file_exists(obj) && exports_present(src, kbuild_dir);
		free(obj);
		free(src);
		if (!strcmp(names.v[i], "control")) {
			if (!have) {
				fprintf(stderr, "stap: the kernel build tree %s cannot compile even an "
						"empty module source:\n",
					kbuild_dir);
				show_tail(out, 30);
				ok = false;
			}
			free(names.v[i]);
			continue;
		}
		for (char *c = names.v[i]; *c; c++)
			*c = (char)(*c >= 'a' && *c <= 'z' ? *c - 32 : *c);
		if (have)
			sb_printf(&header, "#define RT_HAVE_%s 1\n", (char *)names.v[i]);
		else
			sb_printf(&header, "/* RT_HAVE_%s: not available */\n", (char *)names.v[i]);
		if (s->verbose > 1)
			fprintf(stderr, "stub: feature %s: %s\n", (char *)names.v[i], have ? "yes" : "no");
		free(names.v[i]);
	}
	free(out);
	ok = ok && write_text(dir, "features.h", header.s);
	pv_free(&names);
	sb_free(&kbuild);
	pv_free_all(&targets);
	sb_free(&header);
	free(fdir);
	return ok;
}

/* Step 3: imports.c, from the kernel's Module.symvers. */
static bool write_imports(const char *dir, const char *kbuild_dir)
{
	char *symvers_path = path_join(kbuild_dir, "Module.symvers");
	char *symvers = read_file(symvers_path, NULL);
	free(symvers_path);
	if (!symvers)
		return false;
	struct strbuf b;
	sb_init(&b);
	sb_puts(&b, "/* Generated by stap: symbols compiled code may call without naming them.\n"
		    " * Referencing them here gives each a CRC in the stub's __versions. */\n"
		    "asm(\".pushsection .rodata.tapline_imports, \\\"a\\\"\\n\"\n");
	for (size_t i = 0; i < ARRAY_SIZE(compiler_symbols); i++) {
		char *needle = xasprintf("\t%s\t", compiler_symbols[i]);
		if (strstr(symvers, needle))
			sb_printf(&b, "    \".quad %s\\n\"\n", compiler_symbols[i]);
		free(needle);
	}
	sb_puts(&b, "    \".popsection\\n\");\n");
	bool ok = write_text(dir, "imports.c", b.s);
	sb_free(&b);
	free(symvers);
	return ok;
}

/* The runtime's objects as kbuild compiled them, before objtool: linked
 * into one (runtime-unchecked.o) with the module's partial link command,
 * so that objtool can check each module's code and the runtime's together,
 * once, as kbuild does on kernels with IBT. The objects are those of the
 * stub's .mod file. */
static bool link_unchecked_runtime(struct session *s, const char *dir, const struct ptrvec *partial,
				   const char *kbuild_dir)
{
	char *list_path = xasprintf("%s/%s.mod", dir, STUB_MODULE_NAME);
	char *list = read_file(list_path, NULL);
	char *out = path_join(dir, "runtime-unchecked.o");
	struct ptrvec argv = { 0 }, objs = { 0 };
	for (char *tok = list ? strtok(list, " \n") : NULL; tok; tok = strtok(NULL, " \n"))
		pv_push(&objs, tok);
	bool ok = objs.n > 0;
	for (size_t i = 0; ok && i < partial->n; i++) {
		const char *a = partial->v[i];
		if (!strcmp(a, "@IN@"))
			for (size_t k = 0; k < objs.n; k++)
				pv_push(&argv, objs.v[k]);
		else
			pv_push(&argv, (void *)(strcmp(a, "@OUT@") ? a : out));
	}
	char *output = NULL;
	if (ok) {
		pv_push(&argv, NULL);
		ok = run_command((const char *const *)argv.v, kbuild_dir, &output) == 0;
	}
	if (!ok) {
		fprintf(stderr, "stap: cannot link the runtime's objects for objtool (%s)\n", list_path);
		show_tail(output, 20);
	} else if (s->verbose > 1) {
		fprintf(stderr, "stub: objtool runs at each module's link; runtime in %s\n", out);
	}
	free(output);
	pv_free(&argv);
	pv_free(&objs);
	free(list);
	free(list_path);
	free(out);
	return ok;
}

/* Steps 1-4 in dir; false (reported) on failure. */
static bool build_stub(struct session *s, const char *dir, const struct ptrvec *files,
		       const char *kbuild_dir)
{
	mkdir_p(dir, 0700);
	for (const char *const *sub = (const char *const[]){ "compat", "contract", "probes", NULL };
	     *sub; sub++) {
		char *d = path_join(dir, *sub);
		mkdir_p(d, 0700);
		free(d);
	}
	struct strbuf objs;
	sb_init(&objs);
	for (size_t i = 0; i < files->n; i++) {
		const char *rel = files->v[i];
		if (starts_with(rel, "compat/probes/"))
			continue;
		char *from = source_path(s->runtime_dir, rel);
		char *to = path_join(dir, rel);
		bool ok = copy_file(from, to, 0644);
		free(from);
		free(to);
		if (!ok) {
			fprintf(stderr, "stap: cannot copy the runtime file %s: %s\n", rel,
				strerror(errno));
			return false;
		}
		size_t n = strlen(rel);
		/* The stub's objects: the runtime's files, its families' (probes/)
		 * and the contract's. */
		if ((!strchr(rel, '/') || starts_with(rel, "probes/") ||
		     starts_with(rel, "contract/")) &&
		    rel[n - 1] == 'c')
			sb_printf(&objs, " %.*s.o", (int)(n - 2), rel);
	}
	if (!probe_features(s, dir, files, kbuild_dir) || !write_imports(dir, kbuild_dir)) {
		fprintf(stderr, "stap: cannot prepare the runtime stub in %s\n", dir);
		return false;
	}
	char *kbuild = xasprintf("# Generated by stap: the Tapline runtime stub.\n"
				 "obj-m := %s.o\n%s-y :=%s imports.o\nccflags-y := -I$(src)\n",
				 STUB_MODULE_NAME, STUB_MODULE_NAME, objs.s);
	write_text(dir, "Kbuild", kbuild);
	free(kbuild);
	sb_free(&objs);

	char *out = NULL;
	uint64_t t0 = now_ns();
	static const char *const modules[] = { "modules", NULL };
	int rc = run_make(kbuild_dir, dir, modules, false, &out);
	if (rc != 0) {
		fprintf(stderr, "stap: building the runtime stub for kernel %s failed:\n",
			s->kernel->release);
		show_tail(out, 40);
		fprintf(stderr, "stap: the stub's build directory is %s\n", dir);
		free(out);
		return false;
	}
	free(out);
	if (s->verbose)
		fprintf(stderr, "Built the runtime stub for %s in %llu ms (%s)\n", s->kernel->release,
			(unsigned long long)((now_ns() - t0) / 1000000), dir);

	/* The compile and objtool commands, from one runtime object's .cmd
	 * file; the link command from the module's. */
	char *cc_file = path_join(dir, ".lifecycle.o.cmd");
	char *ld_file = xasprintf("%s/.%s.ko.cmd", dir, STUB_MODULE_NAME);
	struct ptrvec cc_cmds = { 0 }, ld_cmds = { 0 };
	bool ok = kbuild_commands(cc_file, &cc_cmds) && kbuild_commands(ld_file, &ld_cmds);
	struct ptrvec *cc = ok ? cc_cmds.v[0] : NULL;
	struct ptrvec *objtool = cc_cmds.n > 1 ? cc_cmds.v[1] : NULL;
	struct ptrvec *ld = ok ? ld_cmds.v[0] : NULL; /* "; true" and the like after it */

	char *obj = path_join(dir, "lifecycle.o");
	char *src = path_join(dir, "lifecycle.c");
	char *ko = xasprintf("%s/%s.ko", dir, STUB_MODULE_NAME);
	char *o = xasprintf("%s/%s.o", dir, STUB_MODULE_NAME);
	char *mod_o = xasprintf("%s/%s.mod.o", dir, STUB_MODULE_NAME);
	/* Where the objects went unchecked, the composite's link runs objtool. */
	struct ptrvec multi_cmds = { 0 };
	struct ptrvec *partial = NULL;
	if (ok && !objtool) {
		char *multi_file = xasprintf("%s/.%s.o.cmd", dir, STUB_MODULE_NAME);
		char *mod_list = xasprintf("@%s/%s.mod", dir, STUB_MODULE_NAME);
		ok = kbuild_commands(multi_file, &multi_cmds);
		if (ok && multi_cmds.n == 2) {
			partial = multi_cmds.v[0];
			objtool = multi_cmds.v[1];
			templatize(partial, NULL, (const char *[]){ o, mod_list },
				   (const char *[]){ "@OUT@", "@IN@" }, 2);
			templatize(objtool, NULL, (const char *[]){ o }, (const char *[]){ "@OBJ@" },
				   1);
			ok = has_arg(partial, "@OUT@") && has_arg(partial, "@IN@") &&
			     link_unchecked_runtime(s, dir, partial, kbuild_dir);
		}
		free(multi_file);
		free(mod_list);
	}
	if (ok) {
		/* -Wp,-MMD,FILE: the dependency file, for kbuild alone. */
		templatize(cc, "-Wp,-MMD,", (const char *[]){ obj, src },
			   (const char *[]){ "@OBJ@", "@SRC@" }, 2);
		if (objtool)
			templatize(objtool, NULL, (const char *[]){ obj }, (const char *[]){ "@OBJ@" }, 1);
		join_pair(ld, o, mod_o, "@IN@");
		templatize(ld, NULL, (const char *[]){ ko }, (const char *[]){ "@OUT@" }, 1);
	}
	/* Only the compile command and objtool's run for an object; every
	 * placeholder is there. */
	bool shaped = has_arg(cc, "@SRC@") && has_arg(cc, "@OBJ@") && has_arg(ld, "@IN@") &&
		      has_arg(ld, "@OUT@") && cc_cmds.n <= 2 &&
		      (!objtool || (!strcmp(program_name(objtool), "objtool") &&
				    has_arg(objtool, "@OBJ@")));
	if (ok && !shaped) {
		fprintf(stderr, "stap: the stub's kbuild commands have an unexpected shape (%s)\n",
			dir);
		ok = false;
	}
	ok = ok && write_argv(dir, "cc.argv", cc) && write_argv(dir, "objtool.argv", objtool) &&
	     write_argv(dir, "partial.argv", partial) && write_argv(dir, "ld.argv", ld);
	free(obj);
	free(src);
	free(ko);
	free(o);
	free(mod_o);
	free(cc_file);
	free(ld_file);
	shell_free(&cc_cmds);
	shell_free(&ld_cmds);
	shell_free(&multi_cmds);
	return ok;
}

static void free_stub(struct stub *st)
{
	free(st->dir);
	free(st->kbuild_dir);
	pv_free_all(&st->cc);
	pv_free_all(&st->objtool);
	pv_free_all(&st->partial);
	pv_free_all(&st->ld);
	free(st->runtime_obj);
	free(st->mod_obj);
	free(st);
}

/* The stub in dir, or NULL with *why: it must be ours alone, every file
 * in it, since its commands run and its objects go into modules. */
static struct stub *load_stub(const char *dir, const char *kbuild_dir, char **why)
{
	*why = private_tree_problem(dir);
	if (*why)
		return NULL;
	struct stub *st = xcalloc(1, sizeof *st);
	st->dir = xstrdup(dir);
	st->kbuild_dir = xstrdup(kbuild_dir);
	st->mod_obj = xasprintf("%s/%s.mod.o", dir, STUB_MODULE_NAME);
	bool read = read_argv(dir, "cc.argv", &st->cc, why) &&
		    read_argv(dir, "objtool.argv", &st->objtool, why) &&
		    read_argv(dir, "partial.argv", &st->partial, why) &&
		    read_argv(dir, "ld.argv", &st->ld, why);
	st->runtime_obj = st->partial.n ? path_join(dir, "runtime-unchecked.o")
					: xasprintf("%s/%s.o", dir, STUB_MODULE_NAME);
	if (read && st->partial.n && !st->objtool.n)
		*why = xstrdup("it links objects for objtool but has no objtool command");
	if (read && (!st->cc.n || !st->ld.n))
		*why = xstrdup("a command file is empty");
	else if (read && (!file_exists(st->runtime_obj) || !file_exists(st->mod_obj)))
		*why = xstrdup("an object is missing");
	if (*why) {
		free_stub(st);
		return NULL;
	}
	return st;
}

uint64_t stub_runtime_hash(const char *runtime_dir)
{
	struct ptrvec files = { 0 };
	list_runtime(runtime_dir, &files);
	uint64_t h = runtime_hash(runtime_dir, &files);
	for (size_t i = 0; i < files.n; i++)
		free(files.v[i]);
	pv_free(&files);
	return h;
}

struct stub *stub_get(struct session *s)
{
	const struct kernel *k = s->kernel;
	/* objtool reads the architecture from kbuild's environment (6.12). */
	setenv("SRCARCH", "x86", 0);
	if (!k->build_dir) {
		fprintf(stderr, "stap: no build tree /lib/modules/%s/build for kernel %s", k->release,
			k->release);
		/* Only a kernel installed from a Debian package has a headers package. */
		if (k->vmlinuz)
			fprintf(stderr, "; install the package linux-headers-%s\n", k->release);
		else {
			char *hint = kernel_installed_hint();
			fprintf(stderr, ", which is not installed here (no /boot/vmlinuz-%s)%s\n",
				k->release, hint);
			free(hint);
		}
		/* A production machine rarely has headers: build elsewhere, run here. */
		if (k->running)
			fprintf(stderr,
				"stap: or build the module on a machine that has the headers of %s "
				"(stap -r %s -p4 -m NAME SCRIPT) and run it here with staprun NAME.ko\n",
				k->release, k->release);
		return NULL;
	}
	struct ptrvec files = { 0 };
	list_runtime(s->runtime_dir, &files);
	if (!files.n) {
		fprintf(stderr, "stap: no runtime sources in %s\n", s->runtime_dir);
		return NULL;
	}
	uint64_t h = runtime_hash(s->runtime_dir, &files);
	char *root = cache_dir("stub");
	char *name = xasprintf("%s-%.16s-%016llx", k->release, k->build_id, (unsigned long long)h);
	char *dir = path_join(root, name);
	char *ready = path_join(dir, "ready");
	struct stub *st = NULL;
	char *why = NULL;

	if (file_exists(ready)) {
		st = load_stub(dir, k->build_dir, &why);
		goto done;
	}
	/* One builder at a time per stub; the others wait, then find it ready. */
	char *lock_path = xasprintf("%s/.%s.lock", root, name);
	int lock = open(lock_path, O_CREAT | O_RDWR | O_CLOEXEC | O_NOFOLLOW, 0600);
	free(lock_path);
	if (lock >= 0)
		flock(lock, LOCK_EX);
	if (file_exists(ready)) {
		st = load_stub(dir, k->build_dir, &why);
	} else {
		if (s->verbose)
			fprintf(stderr, "Building the runtime stub for kernel %s (once per kernel)\n",
				k->release);
		remove_tree(dir);
		/* A half-built stub is not left behind by an interruption. */
		remove_on_signal(dir);
		/* What kbuild writes is ours alone too, whatever the user's umask. */
		mode_t mask = umask(077);
		if (build_stub(s, dir, &files, k->build_dir)) {
			write_text(dir, "ready", "");
			st = load_stub(dir, k->build_dir, &why);
		}
		umask(mask);
		forget_temp(dir);
	}
	if (lock >= 0)
		close(lock);
done:
	/* (A failed build has said why.) */
	if (!st && why)
		fprintf(stderr, "stap: the runtime stub in %s is unusable: %s; remove it to rebuild\n",
			dir, why);
	free(why);
	for (size_t i = 0; i < files.n; i++)
		free(files.v[i]);
	pv_free(&files);
	free(root);
	free(name);
	free(dir);
	free(ready);
	return st;
}
