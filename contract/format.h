/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The printf formatter shared by the kernel runtime and the translator.
 *
 * The translator walks a script's format string with rt_fmt_next() and
 * rt_fmt_nargs() to check argument counts and kinds at compile time and to
 * point at the offending directive; the runtime formats with
 * rt_fmt_format().  Both therefore agree on what a format means.  The
 * implementation is freestanding (no libc, no kernel headers) so that the
 * same object code runs in a module and on the host.
 *
 * Numbers are always 64-bit, as in SystemTap; length modifiers (l, ll, h,
 * hh, j, z, L) are accepted and ignored.
 */
#ifndef RT_FORMAT_H
#define RT_FORMAT_H

/* One printf argument. */
struct rt_fmt_arg {
	int is_str;		/* 1: s is used; 0: n is used */
	long long n;
	const char *s;		/* NUL-terminated; NULL prints "<NULL>" */
};

enum rt_fmt_conv {
	RT_FMT_LITERAL,		/* plain text, copied as is */
	RT_FMT_PERCENT,		/* %% */
	RT_FMT_SIGNED,		/* %d %i */
	RT_FMT_UNSIGNED,	/* %u */
	RT_FMT_OCTAL,		/* %o */
	RT_FMT_HEX,		/* %x */
	RT_FMT_HEX_UPPER,	/* %X */
	RT_FMT_STRING,		/* %s */
	RT_FMT_CHAR,		/* %c */
	RT_FMT_POINTER,		/* %p */
	RT_FMT_BINARY,		/* %b: the number's bytes (width 1, 2, 4 or 8) */
	RT_FMT_MEMORY,		/* %m: precision bytes of memory at the address */
	RT_FMT_MEMORY_HEX,	/* %M: the same, in hexadecimal */
	RT_FMT_ERROR,		/* malformed directive */
};

/* Flag bits of struct rt_fmt_spec.flags. */
#define RT_FMT_LEFT	0x01	/* '-' */
#define RT_FMT_PLUS	0x02	/* '+' */
#define RT_FMT_SPACE	0x04	/* ' ' */
#define RT_FMT_ALT	0x08	/* '#' */
#define RT_FMT_ZERO	0x10	/* '0' */

/* Values of width and precision that are not a number. */
#define RT_FMT_NONE	(-1)	/* not given */
#define RT_FMT_STAR	(-2)	/* '*': taken from the next argument */

/*
 * Largest width or precision.  A larger literal one makes the directive
 * RT_FMT_ERROR; a larger '*' value is clamped to it.  This bounds the
 * output length so it cannot overflow a 32-bit long.
 */
#define RT_FMT_WIDTH_MAX 65535

/* One piece of a format string. */
struct rt_fmt_spec {
	enum rt_fmt_conv conv;
	const char *start;	/* the piece's bytes in the format */
	unsigned long len;	/* (for literals: the text) */
	int flags;		/* RT_FMT_LEFT ... RT_FMT_ZERO */
	int width;		/* >= 0, RT_FMT_NONE or RT_FMT_STAR */
	int precision;		/* >= 0, RT_FMT_NONE or RT_FMT_STAR */
};

/*
 * Parse the next piece of the format at *p and advance *p past it.
 * Returns 0 at the end of the string, 1 otherwise.  For a malformed
 * directive, conv is RT_FMT_ERROR and start/len cover the bad directive
 * (from its '%' up to and including the offending byte, or to the end of
 * the string).
 */
int rt_fmt_next(const char **p, struct rt_fmt_spec *spec);

/*
 * How many arguments a directive consumes: 0 for literals, %% and errors;
 * otherwise 1 plus one per '*'.  The '*' arguments come first and are
 * numbers; the last is a string for RT_FMT_STRING, a number otherwise.
 */
int rt_fmt_nargs(const struct rt_fmt_spec *spec);

/*
 * Format into buf (size bytes; always NUL-terminated when size > 0,
 * truncating; buf may be NULL when size is 0).  Returns the length the
 * whole output would have had, like snprintf, or -1 (with buf emptied) if
 * the format is malformed or the arguments do not match it in count or
 * kind.  %b writes raw bytes, NULs included: use the length returned.
 */
long rt_fmt_format(char *buf, unsigned long size, const char *fmt,
		   const struct rt_fmt_arg *args, int nargs);

/* Largest %m or %M precision (bytes read). */
#define RT_FMT_MEMORY_MAX 1024

/*
 * How %m and %M read memory: read(ctx, dst, addr, len) copies len bytes
 * from addr and returns 0, or returns -1 when they cannot be read (the
 * whole format then fails).  Without a reader, %m and %M fail.
 */
struct rt_fmt_mem {
	int (*read)(void *ctx, void *dst, unsigned long long addr, unsigned long len);
	void *ctx;
};

long rt_fmt_format_mem(char *buf, unsigned long size, const char *fmt,
		       const struct rt_fmt_arg *args, int nargs,
		       const struct rt_fmt_mem *mem);

#endif /* RT_FORMAT_H */
