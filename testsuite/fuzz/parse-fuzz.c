// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target for pass 1: each input is a script, parsed the way
 * `stap -p1 SCRIPT` parses it (translator/main.c, pass1_parse): the tapset
 * directory first (its .stpm macros, then its .stp files), then the script,
 * through the lexer, the preprocessor (conditionals, @define, $1/@1) and
 * the grammar. The input is used as a file's bytes, NULs included.
 *
 * Besides the sanitizers, one more check: a script that parses without
 * errors is printed as `stap -p1` prints it, and the printed text must
 * parse without errors and print the same again.
 *
 * The environment is the newest kernel in /boot (its version and .config,
 * as with -r), arch x86_64, and the script arguments "42" and "two words".
 * An input whose first line is "#@args A|B|..." gets those arguments
 * instead (the line is a comment to the lexer).
 *
 * With TAPLINE_FUZZ_PASS=2 the inputs that parse also go through pass 2
 * (sema_elaborate) against that kernel, opened once.
 *
 * Diagnostics go to /dev/null unless TAPLINE_FUZZ_VERBOSE is set (then a
 * single input shows what stap would print). The process stays up across
 * inputs, so: every allocation of one input is freed after it (see
 * fuzz-alloc.h), the diagnostic counts and the source table are reset, and
 * "too many errors" returns here instead of exiting.
 */
#include <dirent.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "front/ast.h"
#include "front/diag.h"
#include "front/front.h"
#include "front/source.h"
#include "util.h"
#ifdef FUZZ_PASS2
#include "debuginfo/kernel.h"
#include "debuginfo/tracepoints.h"
#include "debuginfo/userelf.h"
#include "private.h"
#include "sema/sema.h"
#include "session.h"
#endif

/* This file implements fuzz-alloc.h's functions with the real allocator. */
#undef malloc
#undef calloc
#undef realloc
#undef free
#undef vasprintf

#ifndef __SANITIZE_ADDRESS__
/* util.c says the same under gcc's macro only: the tree is never freed, and
 * neither is what the warm-up in LLVMFuzzerInitialize keeps. */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
	return "detect_leaks=0";
}
#endif

/* --- what one input allocated: an open-addressing set of pointers --- */

/* Not instrumented for coverage: the fuzzer should not take the allocator's
 * branches for new behaviour of the translator. */
#define UNTRACED __attribute__((no_sanitize("coverage"), noinline))

static uintptr_t *slots;
static size_t nslots, nlive; /* nslots: a power of two */
static bool tracking;

UNTRACED static size_t slot_of(uintptr_t p)
{
	return (size_t)((p >> 4) * 0x9E3779B97F4A7C15ull) & (nslots - 1);
}

UNTRACED static void track_add(void *p);

UNTRACED static void track_grow(void)
{
	uintptr_t *old = slots;
	size_t n = nslots;
	nslots = n ? n * 2 : 1 << 12;
	slots = calloc(nslots, sizeof *slots);
	nlive = 0;
	for (size_t i = 0; i < n; i++)
		if (old[i])
			track_add((void *)old[i]);
	free(old);
}

UNTRACED static void track_add(void *p)
{
	if (!p)
		return;
	if (2 * (nlive + 1) > nslots)
		track_grow();
	size_t i = slot_of((uintptr_t)p);
	while (slots[i])
		i = (i + 1) & (nslots - 1);
	slots[i] = (uintptr_t)p;
	nlive++;
}

/* Remove p; false if it was not there (allocated outside an input). */
UNTRACED static bool track_remove(void *p)
{
	if (!p || !nlive)
		return false;
	size_t i = slot_of((uintptr_t)p);
	while (slots[i] && slots[i] != (uintptr_t)p)
		i = (i + 1) & (nslots - 1);
	if (!slots[i])
		return false;
	/* Backward-shift deletion keeps every probe sequence unbroken. */
	size_t hole = i;
	for (size_t j = (i + 1) & (nslots - 1); slots[j]; j = (j + 1) & (nslots - 1)) {
		size_t home = slot_of(slots[j]);
		if (((j - home) & (nslots - 1)) >= ((j - hole) & (nslots - 1))) {
			slots[hole] = slots[j];
			hole = j;
		}
	}
	slots[hole] = 0;
	nlive--;
	return true;
}

UNTRACED static void track_free_all(void)
{
	for (size_t i = 0; i < nslots; i++) {
		if (slots[i])
			free((void *)slots[i]);
		slots[i] = 0;
	}
	nlive = 0;
}

UNTRACED void *fz_malloc(size_t n)
{
	void *p = malloc(n);
	if (tracking)
		track_add(p);
	return p;
}

UNTRACED void *fz_calloc(size_t n, size_t size)
{
	void *p = calloc(n, size);
	if (tracking)
		track_add(p);
	return p;
}

/* A block keeps its kind: one allocated before the input stays. */
UNTRACED void *fz_realloc(void *p, size_t n)
{
	bool tracked = p ? track_remove(p) : tracking;
	void *q = realloc(p, n);
	if (tracked)
		track_add(q ? q : p);
	return q;
}

UNTRACED void fz_free(void *p)
{
	track_remove(p);
	free(p);
}

UNTRACED int fz_vasprintf(char **s, const char *fmt, va_list ap)
{
	va_list aq;
	va_copy(aq, ap);
	int n = vsnprintf(NULL, 0, fmt, aq);
	va_end(aq);
	if (n < 0)
		return -1;
	*s = fz_malloc((size_t)n + 1);
	if (!*s)
		return -1;
	return vsnprintf(*s, (size_t)n + 1, fmt, ap);
}

/* --- the environment --- */

static const char *tapset_dir = TAPLINE_SRCDIR "/tapsets";
static char *release, *config_path;
static char *default_args[] = { "42", "two words" };
static bool verbose, roundtrip = true;
static FILE *quiet, *report; /* report: the real stderr */
static jmp_buf stop_jmp;
#ifdef FUZZ_PASS2
static struct kernel *kernel;
#endif

static void stop(void)
{
	longjmp(stop_jmp, 1);
}

/* The newest kernel with an image in /boot, as the golden tests choose it. */
static char *newest_release(void)
{
	DIR *d = opendir("/boot");
	char *best = NULL;
	struct dirent *e;
	while (d && (e = readdir(d))) {
		if (strncmp(e->d_name, "vmlinuz-", 8))
			continue;
		const char *r = e->d_name + 8;
		if (!best || strverscmp(r, best) > 0) {
			free(best);
			best = strdup(r);
		}
	}
	if (d)
		closedir(d);
	return best;
}

static void init_env(struct pp_env *env)
{
	memset(env, 0, sizeof *env);
	env->release = release;
	env->arch = "x86_64";
	env->config_path = config_path;
	env->argv = default_args;
	env->argc = 2;
}

/* "#@args A|B|C" on the first line: the script's arguments (malloced). */
static void input_args(const char *text, struct pp_env *env)
{
	if (strncmp(text, "#@args", 6))
		return;
	const char *p = text + 6, *eol = strchr(p, '\n');
	size_t len = eol ? (size_t)(eol - p) : strlen(p);
	char *line = xstrndup(p, len);
	char **argv = NULL;
	int argc = 0;
	for (char *s = line, *bar;; s = bar + 1) {
		bar = strchr(s, '|');
		if (bar)
			*bar = 0;
		argv = xrealloc(argv, (size_t)(argc + 1) * sizeof *argv);
		argv[argc++] = *s == ' ' ? s + 1 : s;
		if (!bar)
			break;
	}
	env->argv = argv;
	env->argc = argc;
}

/* Pass 1 as main.c runs it; the number of errors, -1 after too many. */
static int pass1(struct pp_env *env, const char *name, const char *text, size_t len,
		 struct ptrvec *decls, int *user_file)
{
	if (setjmp(stop_jmp))
		return -1;
	if (!is_dir(tapset_dir)) {
		fprintf(report, "parse-fuzz: no tapset directory %s\n", tapset_dir);
		abort();
	}
	struct ptrvec dirs = { 0 };
	pv_push(&dirs, (void *)tapset_dir);
	struct tapset_lib *lib = tapset_open(&dirs, env);
	pv_free(&dirs);
	char *copy = xmalloc(len + 1);
	memcpy(copy, text, len);
	copy[len] = 0;
	*user_file = src_add(name, copy, len, false);
	parse_file(*user_file, env, decls);
	/* The tapset files the script refers to, as main.c pulls them in. */
	int nfiles = 0;
	tapset_load_needed(lib, env, decls, 0, &nfiles);
	return diag_errors();
}

/* What `stap -p1` prints: the script's own declarations (malloced). */
static char *print_decls(const struct ptrvec *decls, int file)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);
	for (size_t i = 0; i < decls->n; i++) {
		const struct node *d = decls->v[i];
		if (d->loc.file == file)
			ast_print_decl(f, d);
	}
	fclose(f);
	return out;
}

static void check_roundtrip(struct pp_env *env, const char *printed)
{
	struct ptrvec decls = { 0 };
	int file;
	diag_reset();
	int errors = pass1(env, "<printed>", printed, strlen(printed), &decls, &file);
	char *again = errors ? NULL : print_decls(&decls, file);
	if (errors || strcmp(printed, again)) {
		fprintf(report, "parse-fuzz: stap -p1 output %s:\n--- printed\n%s--- printed again\n%s---\n",
			errors ? "does not parse again" : "is not a fixed point", printed,
			again ? again : "(errors)\n");
		abort();
	}
	free(again);
}

#ifdef FUZZ_PASS2
static void pass2(struct pp_env *env, struct ptrvec *decls, int user_file)
{
	struct session s = { 0 };
	s.last_pass = 2;
	s.release = release;
	s.tapset_dir = (char *)tapset_dir;
	s.runtime_dir = (char *)TAPLINE_SRCDIR "/runtime";
	s.kernel = kernel;
	s.prog.env = *env;
	s.prog.decls = *decls;
	s.prog.user_file = user_file;
	if (setjmp(stop_jmp))
		return;
	sema_elaborate(&s);
	if (verbose && !diag_errors())
		sema_print(&s, stdout);
}
#endif

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	verbose = getenv("TAPLINE_FUZZ_VERBOSE") != NULL;
	const char *rt = getenv("TAPLINE_FUZZ_ROUNDTRIP");
	roundtrip = !rt || strcmp(rt, "0");
	if (getenv("TAPLINE_FUZZ_TAPSETS"))
		tapset_dir = getenv("TAPLINE_FUZZ_TAPSETS");
	release = newest_release();
	if (release) {
		config_path = xasprintf("/boot/config-%s", release);
		if (access(config_path, R_OK)) {
			free(config_path);
			config_path = xasprintf("/lib/modules/%s/build/.config", release);
		}
	}
	report = stderr;
	if (!verbose) {
		quiet = fopen("/dev/null", "w");
		stderr = quiet;
	}
	diag_set_stop(stop);
	/* The preprocessor reads .config at its first CONFIG_ test and keeps
	 * it: read it now, outside any input's allocations. */
	struct pp_env env;
	init_env(&env);
	struct ptrvec decls = { 0 };
	int file;
	const char *warm = "%( CONFIG_TAPLINE_FUZZ == \"y\" %? %)\n";
	pass1(&env, "<warm-up>", warm, strlen(warm), &decls, &file);
	src_reset();
	diag_reset();
#ifdef FUZZ_PASS2
	/* The cache of inlined functions' indexes remembers the directories
	 * it checked for the process's life: every input's allocations are
	 * freed after it. */
	setenv("TAPLINE_NO_INLINE_CACHE", "1", 1);
	const char *p = getenv("TAPLINE_FUZZ_PASS");
	if (p && !strcmp(p, "2")) {
		kernel = kernel_open(release, false);
		if (!kernel)
			abort();
		/* Its index by address, made once and kept: now, outside any
		 * input's allocations. */
		enum kfunc_why why;
		kernel_function_at(kernel, 0, &why);
	}
#endif
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	tracking = true;
	char *text = xmalloc(size + 1);
	memcpy(text, data, size);
	text[size] = 0;
	struct pp_env env;
	init_env(&env);
	input_args(text, &env);
	struct ptrvec decls = { 0 };
	int file;
	int errors = pass1(&env, "<input>", text, size, &decls, &file);
	diag_summary();
	if (!errors) {
		char *printed = print_decls(&decls, file);
		if (verbose) {
			fputs(printed, stdout);
			fflush(stdout);
		}
#ifdef FUZZ_PASS2
		if (kernel)
			pass2(&env, &decls, file);
#endif
		if (roundtrip) {
			struct pp_env env2;
			init_env(&env2);
			check_roundtrip(&env2, printed);
		}
		free(printed);
	}
	src_reset();
	diag_reset();
	/* What the translator keeps for the process's life, made during the
	 * input, is freed with its allocations: forgotten too. */
	user_elf_forget_all();
	private_dirs_forget();
	tracepoints_forget_classes();
	track_free_all();
	tracking = false;
	return 0;
}
