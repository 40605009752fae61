/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * DWARF through elfutils' libdwfl (dw.c and its dw-*.c parts are the only
 * files that include it): the functions of a module's debug file as probe
 * sites of the target model (target.h), and their variables and types,
 * read lazily.
 */
#ifndef TAPLINE_DW_H
#define TAPLINE_DW_H

#include "debuginfo/debugfind.h"
#include "debuginfo/kernel.h"
#include "debuginfo/target.h"

struct dw;

/* Debug information from the files ix found (and debuginfod), for the
 * kernel (its release, build-id and function symbols; NULL: none);
 * nothing is opened yet. */
struct dw *dw_begin(struct debug_index *ix, const struct kernel *kernel, bool verbose);

/* What to look for: functions named by a shell pattern, optionally
 * declared in a file matching a pattern (its last components), at a line
 * (0: any). */
struct dw_query {
	const char *function;
	const char *file;
	int line;
	int line_last; /* statements: the last line of a range from line (0: line alone) */
	bool at_entry; /* user functions: at the entry even in unoptimized code (.return) */
};

/* The directories (--debuginfo-path) where user files' debug files may
 * be, besides libdwfl's own places. */
void dw_user_debug_dirs(struct dw *d, const struct ptrvec *dirs);

/*
 * A module is named as the kernel names it, "kernel" for vmlinux, or by
 * the absolute path of a user-space program or library (is_user sites).
 *
 * The functions of module (as the kernel names it, or "kernel" for vmlinux; module_file: the
 * module's file when it was named by path, else NULL) that q matches, as
 * probe sites appended to sites. Returns how many; -1 when the module's
 * debug information cannot be used (*why: a sentence, malloced). Functions
 * only in init text (freed after loading) are counted in *left_out.
 */
int dw_functions(struct dw *d, const char *module, const char *module_file,
		 const struct dw_query *q, struct ptrvec *sites, size_t *left_out, char **why);
/* The statements at q's file and line (both required) in functions q
 * matches: one site per function, at the line's first address. */
int dw_statements(struct dw *d, const char *module, const char *module_file,
		  const struct dw_query *q, struct ptrvec *sites, size_t *left_out, char **why);
/* The type written type ("struct file", "tt_point", "char *") in module's
 * DWARF, or NULL with *why. */
struct ctype *dw_find_type(struct dw *d, const char *module, const char *type, char **why);
/* Close the files (the sites and types made stay). */
void dw_end(struct dw *d);
/* A wildcard over modules is done with module: its files are closed
 * (opened again if asked for; the sites and types made stay). */
void dw_release(struct dw *d, const char *module);
/* For a statement probe that matched nothing: the nearest lines before and
 * after q->line where a statement of a matching function begins (0: none). */
void dw_statement_lines_near(struct dw *d, const char *module, const char *module_file,
			     const struct dw_query *q, int *below, int *above);
/* The global or static variable name of module, in a unit whose file
 * matches file (NULL: any, and then it must be the only one), or in the
 * unit of the DIE at in_unit_of (a probe site's src_key) when not 0.
 * NULL with *why. */
struct tvar *dw_global(struct dw *d, const char *module, const char *name, const char *file,
		       uint64_t in_unit_of, char **why);
/* The inlined copies of the functions q matches (.inline): one site at
 * each copy's first address. */
int dw_inlines(struct dw *d, const char *module, const char *module_file,
	       const struct dw_query *q, struct ptrvec *sites, size_t *left_out, char **why);
/* A call a function makes to a function the compiler knew (DWARF's call
 * sites; calls through pointers are not there). */
struct dw_call {
	char *callee;        /* the function called */
	char *callee_file;   /* where it is declared; NULL: unknown */
	struct tstatic *ret; /* a call: its return address, what the callee finds on its stack */
	bool tail;           /* a jump: the callee returns to the caller's caller */
	struct probe_site *inlined; /* a copy inlined into the caller instead: where it begins */
};
/* The calls made by the function or inlined copy of the DWARF site caller
 * (copies inlined into it among them, not what those call), appended to
 * calls (struct dw_call *); how many, or -1 with *why. */
int dw_call_sites(const struct probe_site *caller, struct ptrvec *calls, char **why);
/* Frees the call but not its ret, which the caller keeps or drops. */
void dw_call_free(struct dw_call *call);
/* The labels matching pattern in the function (not an inlined copy) of
 * the DWARF site func: a statement site at each, label set. How many, or
 * -1 when func's DWARF cannot be read again. */
int dw_labels(const struct probe_site *func, const char *pattern, struct ptrvec *sites);
/* Every function name of module, for "did you mean". */
void dw_each_function(struct dw *d, const char *module, void (*fn)(const char *name, void *ctx),
		      void *ctx);

/* The kernel's line table (contract/linetable.h) from its DWARF, kept in
 * the cache by build-id: the cache file's path (the table, then a seal
 * of 8 bytes, which the module carries too: staprun reads the rows the
 * header counts), or NULL with *why. */
char *dw_kernel_line_table(struct dw *d, char **why);

#endif
