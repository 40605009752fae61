/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Pass 1, the front end: source text to syntax tree. The lexer (lexer.l)
 * and the grammar (parser.y) turn one file into its top-level declarations;
 * tapset.c finds and parses the tapset library.
 */
#ifndef TAPLINE_FRONT_H
#define TAPLINE_FRONT_H

#include "front/ast.h"
#include "util.h"

/* Parse source FILE (an index from source.h); append its declarations
 * (N_PROBE, N_GLOBAL, N_FUNCTION) to decls. Returns the number of errors. */
int parse_file(int file, struct ptrvec *decls);

/* Parse every *.stp under dir (sorted, recursively), as tapset files.
 * Returns the number of files parsed, or -1 when dir cannot be read. */
int tapset_load_dir(const char *dir, struct ptrvec *decls);

#endif
