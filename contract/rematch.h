/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Regular expressions, shared by the translator and the runtime. The
 * translator compiles each =~ pattern (POSIX extended syntax, without
 * back-references) into a small program of these instructions, emitted as
 * a constant array in the generated C; the runtime runs it with
 * rt_re_match(), a Pike VM: every possible match is followed at once, one
 * input byte at a time, so the time is bounded by length x program size
 * and nothing recurses. The match is leftmost-longest overall; subgroups
 * take the first alternative that leads to it.
 *
 * Freestanding (no libc, no kernel headers), like format.c.
 */
#ifndef RT_REMATCH_H
#define RT_REMATCH_H

enum rt_re_op {
	RT_RE_CHAR,   /* x: the byte */
	RT_RE_ANY,    /* any byte */
	RT_RE_CLASS,  /* x: index of a 256-bit set */
	RT_RE_SPLIT,  /* go on at x and at y (x preferred) */
	RT_RE_JMP,    /* go on at x */
	RT_RE_SAVE,   /* x: capture slot to set to the position */
	RT_RE_BOL,    /* at the start of the string */
	RT_RE_EOL,    /* at the end of the string */
	RT_RE_MATCH,
};

struct rt_re_insn {
	unsigned char op;
	unsigned short x, y;
};

/* Limits the translator enforces, so the matcher's work and scratch
 * memory stay small. */
#define RT_RE_MAX_PROG 512
#define RT_RE_MAX_GROUPS 9
#define RT_RE_SLOTS (2 * (RT_RE_MAX_GROUPS + 1))

struct rt_regex {
	const struct rt_re_insn *prog;
	int nprog;
	const unsigned char (*classes)[32];
	int ngroups; /* parenthesized groups */
};

/* Scratch memory rt_re_match needs for a program of nprog instructions. */
/* Two thread lists of nprog, a stack of 2 * nprog + 1 (each program
 * counter expands once per position, into at most two), and marks. */
#define RT_RE_SCRATCH(nprog) \
	((unsigned long)(4 * (nprog) + 1) * sizeof(int) * (1 + RT_RE_SLOTS) + \
	 (unsigned long)(nprog) * sizeof(int))

/*
 * Match re against the NUL-terminated s (at most len bytes are read).
 * Returns 1 and fills caps[0 .. 2 * (ngroups + 1) - 1] with byte offsets
 * (-1 for a group that took no part), or 0. *steps grows by the work done.
 * If stop is not NULL, it is asked about every 1024 steps whether to go on
 * (the work can be long: length x program size); when it says stop (not
 * 0), the match gives up and returns -1.
 */
int rt_re_match(const struct rt_regex *re, const char *s, unsigned long len, int *caps,
		void *scratch, unsigned long *steps, int (*stop)(void *arg, unsigned long steps),
		void *arg);

#endif
