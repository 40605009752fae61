/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Pass 1, the front end: source text to syntax tree. The lexer (lexer.l),
 * the preprocessor (preproc.c) and the grammar (parser.y) turn one file
 * into its top-level declarations, which syntax.c checks; tapset.c finds
 * the tapset library.
 */
#ifndef TAPLINE_FRONT_H
#define TAPLINE_FRONT_H

#include "front/ast.h"
#include "front/preproc.h"
#include "util.h"

/* Parse source FILE (an index from source.h); append its declarations
 * (N_PROBE, N_ALIAS, N_GLOBAL, N_FUNCTION, N_EMBEDDED) to decls. Returns
 * the number of errors. */
int parse_file(int file, struct pp_env *env, struct ptrvec *decls);
/* syntax.c: the rules the grammar does not state, on the declarations
 * decls[first..] that parse_file read from file (guru: stap -g). */
void syntax_check(int file, bool guru, struct ptrvec *decls, size_t first);
/* autoprint.c: an end probe (script text) printing the globals that the
 * declarations decls[first..first+count) write and never read, as
 * SystemTap does at the end of a run; NULL if there are none. */
char *autoprint_text(const struct ptrvec *decls, size_t first, size_t count);
/* Read a .stpm file: its @define macros become public. */
int parse_macro_file(int file, struct pp_env *env);

/* The tapset library under dirs (directories the caller checked; sorted,
 * recursively): reads every *.stpm (public macros) and indexes what each
 * *.stp defines (tapset.c). */
struct tapset_lib;
struct tapset_lib *tapset_open(const struct ptrvec *dirs, struct pp_env *env);
/* Parse the tapset files that decls[from..] refer to (functions, globals,
 * probe aliases), and those the new ones refer to, appending their
 * declarations to decls; *nfiles counts the files parsed. Returns errors. */
int tapset_load_needed(struct tapset_lib *lib, struct pp_env *env, struct ptrvec *decls,
		       size_t from, int *nfiles);
/* Every public name the library defines: kind 'f' function, 'g' global, 'a' alias. */
void tapset_each_name(const struct tapset_lib *lib,
		      void (*fn)(const char *name, char kind, void *ctx), void *ctx);
/* The *.stp files under dirs, each directory's sorted (char *, malloced). */
struct ptrvec tapset_paths(const struct ptrvec *dirs);

/* tapdoc.c: each function and probe alias the files at paths define, by
 * name (struct tapdoc *), for stap --dump-functions and --dump-probe-aliases. */
struct tapdoc {
	char *name;
	char *decl;   /* "task_pid:long (task:long)", or the alias's name */
	char *doc;    /* the comment above it, as one line; NULL: none */
};
void tapdoc_read(const struct ptrvec *paths, struct ptrvec *functions, struct ptrvec *aliases);

#endif
