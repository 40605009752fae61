/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Pass 1, the front end: source text to syntax tree. The lexer (lexer.l),
 * the preprocessor (preproc.c) and the grammar (parser.y) turn one file
 * into its top-level declarations; tapset.c finds the tapset library.
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
/* Read a .stpm file: its @define macros become public. */
int parse_macro_file(int file, struct pp_env *env);

/* Parse every *.stp under dir (sorted, recursively), as tapset files, after
 * its *.stpm macro files. Returns the number of .stp files parsed, or -1
 * when dir cannot be read. */
int tapset_load_dir(const char *dir, struct pp_env *env, struct ptrvec *decls);

#endif
