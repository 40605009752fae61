/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Compiling the regular expressions of =~ and !~ at translation time, into
 * the program contract/rematch.h describes (pass 3 writes it out as a
 * constant). The syntax is POSIX extended (egrep): . [] [^] [:class:] ^ $
 * ( ) | * + ? {n} {n,} {n,m}, and \ before any character for the character
 * itself. Back-references are not supported.
 */
#ifndef TAPLINE_REGCOMP_H
#define TAPLINE_REGCOMP_H

#include <stddef.h>

#include "contract/rematch.h" /* the program's instructions, which the runtime runs */

struct regex {
	char *pattern;
	struct rt_re_insn *prog;
	int nprog;
	unsigned char (*classes)[32];
	int nclasses;
	int ngroups;
};

/* The compiled pattern, or NULL with *err (malloced) and the byte offset
 * in the pattern it is about. */
struct regex *regex_compile(const char *pattern, char **err, size_t *err_off);
void regex_free(struct regex *re);

#endif
