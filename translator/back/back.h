/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Passes 3 and 4, the back end: the checked program becomes C (codegen.c),
 * and the C becomes NAME.ko (build.c) by compiling it against the runtime
 * API and linking it with the prebuilt runtime stub (stub.c), without a
 * kbuild run. link.c knows the few ELF facts of a finished module.
 */
#ifndef TAPLINE_BACK_H
#define TAPLINE_BACK_H

#include "session.h"

/* Pass 3: the generated C file's text. */
char *cg_translate(struct session *s);

/* Pass 4: compile, link; sets s->ko_file. Returns the number of errors. */
int build_module(struct session *s);

/*
 * The runtime built once per target kernel, with the commands that
 * compile and link a script against it (taken from its kbuild run).
 */
struct stub {
	char *dir;          /* the stub's own directory (api.h) */
	char *kbuild_dir;   /* the kernel's build tree; commands run there */
	/* The commands, as arguments (char *), run without a shell; the
	 * placeholders are whole arguments, @IN@ standing for several. */
	struct ptrvec cc;      /* compile command; @SRC@ and @OBJ@ to fill in */
	struct ptrvec objtool; /* objtool command (none: empty); @OBJ@ */
	/* Kernels with IBT (CONFIG_X86_KERNEL_IBT) run objtool once, on the
	 * module's objects linked together: then partial links them (@OUT@,
	 * @IN@), objtool checks the result, and runtime_obj is unchecked. */
	struct ptrvec partial;
	struct ptrvec ld;      /* link command; @OUT@ and @IN@ */
	char *runtime_obj;  /* the runtime, one relocatable object */
	char *mod_obj;      /* module metadata: this_module, __versions, .modinfo */
};

/* The stub for the session's kernel, built and cached on first use; NULL on failure (reported). */
struct stub *stub_get(struct session *s);

/* A hash of the runtime's sources in runtime_dir (and Tapline's version). */
uint64_t stub_runtime_hash(const char *runtime_dir);

/*
 * The compiled-module cache (modcache.c): the key for this run, after pass
 * 1 (NULL: not looked in, -v says why); a module found for it (true: s->ko_file
 * is the entry's module, s->module_name set); the module pass 4 built,
 * kept; and --clean-cache.
 */
struct modcache;
struct modcache *modcache_open(struct session *s);
bool modcache_lookup(struct modcache *c, struct session *s);
void modcache_store(struct modcache *c, struct session *s);
/* A cached module staprun would not run: removed when it is damaged (true). */
bool modcache_after_failure(struct modcache *c, struct session *s);
void modcache_free(struct modcache *c);
int modcache_clean(bool verbose);

/* The module name the stub is built with, replaced in each script's module. */
#define STUB_MODULE_NAME "tapline_stub_name_placeholder_padded_to_55_characters__"

/* link.c: give the linked module its name (in this_module and .modinfo). */
bool link_set_module_name(const char *ko, const char *name, char **why);
/* link.c: every symbol the module imports must have a CRC in __versions. */
bool link_check_imports(const char *ko, char **why);
/* link.c: the finished module's SHA-256, over the zeros left for it in .modinfo. */
bool link_write_checksum(const char *ko, char **why);

/* sign.c: sign the finished module, with the session's key or one found
 * the way kbuild finds one; errors are reported. Returns the number of errors. */
int sign_module(struct session *s, const struct stub *st, const char *ko);

#endif
