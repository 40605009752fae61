// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The printf formatter shared by the kernel runtime and the translator.
 *
 * rt_fmt_next() splits a format into literal text and directives;
 * rt_fmt_format() uses it to format SystemTap-style arguments (64-bit
 * numbers and strings) into a bounded buffer.  This file is compiled both
 * into kernel modules and into host programs, so it includes nothing but
 * its own header, uses no floating point, no recursion, no static mutable
 * state and little stack: it may run on many CPUs at once, in interrupt
 * context.
 *
 * The conversions follow C's printf, except where SystemTap prints
 * something else: scripts are expected to print what they print under
 * SystemTap.  SystemTap formats every integer with number() in its
 * runtime/vsprintf.c, both in _stp_vsnprintf() and in the printf functions
 * its translator compiles (translate.cxx, emit_compiled_printfs()), so:
 *  - An integer has at least one digit: %.0d of 0 prints "0" (C prints
 *    nothing), likewise %.0u, %.0o and %.0x.
 *  - '#' with %x or %X always adds "0x" or "0X", so %#x of 0 prints "0x0"
 *    (C: "0").
 *  - '#' with %o always puts a "0" before the digits, which a precision
 *    has already padded: %#o of 0 prints "00" and %#.3o of 8 "0010" (C:
 *    "0" and "010").  %#o of 8 is "010" in both.
 *  - The '0' flag pads with zeros (after any sign or "0x") even when a
 *    precision is given: %08.3d of 5 prints "00000005" (C: "     005").
 *    '-' still overrides '0'.
 *  - %p is SystemTap's "%p == %#x since 1.3" on the 64-bit value: "0x"
 *    and at least one hex digit, always.  A width pads the whole "0x..."
 *    with spaces (or zeros after the "0x" with the '0' flag); a precision
 *    is the minimum number of digits after "0x".  Source: vsprintf.c (case
 *    'p' sets the '#' flag, base 16 and a 64-bit argument) and
 *    testsuite/systemtap.printf/ptr-1.3.exp, e.g. "%p" of 0 is "0x0",
 *    "%20p" of 1 is 17 spaces and "0x1", "%.8p" of 1 is "0x00000001".
 *  - %#c escapes a character that is not printable ASCII, or is a quote
 *    or backslash, as C would write it in a character literal (\n, \',
 *    \\, else \ and three octal digits), as SystemTap's runtime does.
 *  - The '0' flag pads only numbers; %s and %c are padded with spaces.
 *  - "%%" must be exactly that; flags or a width between the two '%' are
 *    an error, so the translator can report them (SystemTap's parser,
 *    string_to_components() in staptree.cxx, rejects them too).
 * What still differs from SystemTap, all outside the integer formatting:
 *  - SystemTap's %0s (any '0' flag on %s) writes a NUL byte after the
 *    field (_stp_vsprint_memory()); Tapline writes none.
 *  - A negative '*' precision is no precision here, as in C; SystemTap
 *    clamps it to 0, so %.*s with -1 prints nothing there.  A negative
 *    '*' width left-justifies, as in C and _stp_vsnprintf(); SystemTap's
 *    compiled printf clamps it to 0 instead.
 *  - SystemTap's parser takes at most one flag (so "%+05d" is '+' with
 *    width 5, and "%-#x" is an error), only 'l' as a length modifier, and
 *    a lone '.' as no precision; this one takes any flags, h, hh, l, ll,
 *    j, z and L, and a lone '.' as precision 0 (as C).
 *  - SystemTap clamps widths and precisions to the room left in its print
 *    buffer; this clamps them to RT_FMT_WIDTH_MAX.
 */
#include "format.h"

/* Where output goes: bytes past the end of buf are counted, not stored. */
struct rt_fmt_out {
	char *buf;
	unsigned long size;
	unsigned long pos;	/* length of the whole output so far */
};

/* Emit n copies of c; costs at most the room left, not n. */
static void rt_fmt_fill(struct rt_fmt_out *o, char c, unsigned long n)
{
	while (n > 0 && o->pos + 1 < o->size) {
		o->buf[o->pos++] = c;
		n--;
	}
	o->pos += n;
}

/* Emit the n bytes at s, likewise. */
static void rt_fmt_copy(struct rt_fmt_out *o, const char *s, unsigned long n)
{
	while (n > 0 && o->pos + 1 < o->size) {
		o->buf[o->pos++] = *s++;
		n--;
	}
	o->pos += n;
}

static int rt_fmt_isdigit(char c)
{
	return c >= '0' && c <= '9';
}

/*
 * Read a decimal width or precision at *q.  Accumulation stops once the
 * value passes RT_FMT_WIDTH_MAX, so a long run of digits cannot overflow;
 * the caller rejects any value above RT_FMT_WIDTH_MAX.
 */
static int rt_fmt_atoi(const char **q)
{
	int v = 0;

	while (rt_fmt_isdigit(**q)) {
		if (v <= RT_FMT_WIDTH_MAX)
			v = v * 10 + (**q - '0');
		(*q)++;
	}
	return v;
}

int rt_fmt_next(const char **p, struct rt_fmt_spec *spec)
{
	const char *s = *p;
	const char *q;
	int bad = 0;

	spec->start = s;
	spec->flags = 0;
	spec->width = RT_FMT_NONE;
	spec->precision = RT_FMT_NONE;
	spec->conv = RT_FMT_LITERAL;
	spec->len = 0;
	if (!*s)
		return 0;

	if (*s != '%') {
		for (q = s; *q && *q != '%'; q++)
			;
		spec->len = q - s;
		*p = q;
		return 1;
	}

	q = s + 1;
	if (*q == '%') {
		spec->conv = RT_FMT_PERCENT;
		spec->len = 2;
		*p = q + 1;
		return 1;
	}

	for (;; q++) {
		if (*q == '-')
			spec->flags |= RT_FMT_LEFT;
		else if (*q == '+')
			spec->flags |= RT_FMT_PLUS;
		else if (*q == ' ')
			spec->flags |= RT_FMT_SPACE;
		else if (*q == '#')
			spec->flags |= RT_FMT_ALT;
		else if (*q == '0')
			spec->flags |= RT_FMT_ZERO;
		else
			break;
	}

	if (*q == '*') {
		spec->width = RT_FMT_STAR;
		q++;
	} else if (rt_fmt_isdigit(*q)) {
		spec->width = rt_fmt_atoi(&q);
		bad |= spec->width > RT_FMT_WIDTH_MAX;
	}

	if (*q == '.') {
		q++;
		if (*q == '*') {
			spec->precision = RT_FMT_STAR;
			q++;
		} else {
			/* A lone '.' means precision 0, as in C. */
			spec->precision = rt_fmt_atoi(&q);
			bad |= spec->precision > RT_FMT_WIDTH_MAX;
		}
	}

	/* Numbers are always 64-bit, so a length modifier changes nothing. */
	if (*q == 'h' || *q == 'l') {
		if (q[1] == q[0])
			q++;
		q++;
	} else if (*q == 'j' || *q == 'z' || *q == 'L') {
		q++;
	}

	switch (*q) {
	case 'd':
	case 'i':
		spec->conv = RT_FMT_SIGNED;
		break;
	case 'u':
		spec->conv = RT_FMT_UNSIGNED;
		break;
	case 'o':
		spec->conv = RT_FMT_OCTAL;
		break;
	case 'x':
		spec->conv = RT_FMT_HEX;
		break;
	case 'X':
		spec->conv = RT_FMT_HEX_UPPER;
		break;
	case 's':
		spec->conv = RT_FMT_STRING;
		break;
	case 'c':
		spec->conv = RT_FMT_CHAR;
		break;
	case 'p':
		spec->conv = RT_FMT_POINTER;
		break;
	case 'b':
		/* The width is the number of bytes: 1, 2, 4 or 8 (the default). */
		spec->conv = RT_FMT_BINARY;
		bad |= spec->width != RT_FMT_NONE && spec->width != 1 &&
		       spec->width != 2 && spec->width != 4 && spec->width != 8;
		bad |= spec->precision != RT_FMT_NONE;
		break;
	case 'm':
		spec->conv = RT_FMT_MEMORY;
		bad |= spec->precision > RT_FMT_MEMORY_MAX;
		break;
	case 'M':
		spec->conv = RT_FMT_MEMORY_HEX;
		bad |= spec->precision > RT_FMT_MEMORY_MAX;
		break;
	default:
		bad = 1;
		break;
	}
	/* Cover the offending byte too, unless it is the terminating NUL. */
	if (*q)
		q++;
	if (bad)
		spec->conv = RT_FMT_ERROR;
	spec->len = q - s;
	*p = q;
	return 1;
}

int rt_fmt_nargs(const struct rt_fmt_spec *spec)
{
	switch (spec->conv) {
	case RT_FMT_LITERAL:
	case RT_FMT_PERCENT:
	case RT_FMT_ERROR:
		return 0;
	case RT_FMT_SIGNED:
	case RT_FMT_UNSIGNED:
	case RT_FMT_OCTAL:
	case RT_FMT_HEX:
	case RT_FMT_HEX_UPPER:
	case RT_FMT_STRING:
	case RT_FMT_CHAR:
	case RT_FMT_POINTER:
	case RT_FMT_BINARY:
	case RT_FMT_MEMORY:
	case RT_FMT_MEMORY_HEX:
		break;
	}
	return 1 + (spec->width == RT_FMT_STAR) +
	       (spec->precision == RT_FMT_STAR);
}

/*
 * Divide *v by 10 and return the remainder.  Shifts and adds rather than
 * '/', because a 64-bit division on a 32-bit kernel would call libgcc's
 * __udivdi3, which the kernel does not provide.  q starts as a slight
 * underestimate of v / 10 (every shift rounds down) and is then corrected.
 */
static unsigned int rt_fmt_div10(unsigned long long *v)
{
	unsigned long long n = *v;
	unsigned long long q, r;

	q = (n >> 1) + (n >> 2);
	q += q >> 4;
	q += q >> 8;
	q += q >> 16;
	q += q >> 32;
	q >>= 3;
	r = n - ((q << 3) + (q << 1));
	while (r > 9) {
		q++;
		r -= 10;
	}
	*v = q;
	return (unsigned int)r;
}

/*
 * Format one number.  v is the magnitude; neg says a %d value was
 * negative.  flags, width and precision are the directive's, with '*'
 * already resolved.
 */
static void rt_fmt_number(struct rt_fmt_out *o, enum rt_fmt_conv conv,
			  int flags, int width, int precision,
			  unsigned long long v, int neg)
{
	static const char lower[] = "0123456789abcdef";
	static const char upper[] = "0123456789ABCDEF";
	const char *digits = conv == RT_FMT_HEX_UPPER ? upper : lower;
	char tmp[24];		/* 2^64 needs 22 octal digits */
	char prefix[2];
	unsigned long nd = 0, np = 0, zeros = 0, body, pad = 0;
	/* At least one digit, even for 0 with precision 0, as SystemTap. */
	int mindigits = precision < 1 ? 1 : precision;
	int zero_pad;

	if (conv == RT_FMT_SIGNED || conv == RT_FMT_UNSIGNED) {
		while (v)
			tmp[nd++] = (char)('0' + rt_fmt_div10(&v));
	} else if (conv == RT_FMT_OCTAL) {
		for (; v; v >>= 3)
			tmp[nd++] = '0' + (v & 7);
	} else {
		for (; v; v >>= 4)
			tmp[nd++] = digits[v & 15];
	}
	if ((unsigned long)mindigits > nd)
		zeros = mindigits - nd;

	if (conv == RT_FMT_SIGNED) {
		if (neg)
			prefix[np++] = '-';
		else if (flags & RT_FMT_PLUS)
			prefix[np++] = '+';
		else if (flags & RT_FMT_SPACE)
			prefix[np++] = ' ';
	} else if (conv == RT_FMT_POINTER ||
		   ((conv == RT_FMT_HEX || conv == RT_FMT_HEX_UPPER) &&
		    (flags & RT_FMT_ALT))) {
		/* "0x" even for 0, unlike C. */
		prefix[np++] = '0';
		prefix[np++] = conv == RT_FMT_HEX_UPPER ? 'X' : 'x';
	} else if (conv == RT_FMT_OCTAL && (flags & RT_FMT_ALT)) {
		/* A "0" before the digits, always, not only if needed as C. */
		prefix[np++] = '0';
	}

	body = np + zeros + nd;
	if (width > 0 && (unsigned long)width > body)
		pad = width - body;
	/* Unlike C, a precision does not turn the '0' flag off. */
	zero_pad = (flags & RT_FMT_ZERO) && !(flags & RT_FMT_LEFT);

	if (!(flags & RT_FMT_LEFT) && !zero_pad)
		rt_fmt_fill(o, ' ', pad);
	rt_fmt_copy(o, prefix, np);
	if (zero_pad)
		rt_fmt_fill(o, '0', pad);
	rt_fmt_fill(o, '0', zeros);
	while (nd > 0)
		rt_fmt_fill(o, tmp[--nd], 1);
	if (flags & RT_FMT_LEFT)
		rt_fmt_fill(o, ' ', pad);
}

/* The escape for c under %#c, into e; returns its length (1 if none). */
static unsigned long rt_fmt_escape(unsigned char c, char *e)
{
	static const char from[] = "\a\b\f\n\r\t\v'\\";
	static const char to[] = "abfnrtv'\\";
	int i;

	for (i = 0; from[i]; i++) {
		if (c == (unsigned char)from[i]) {
			e[0] = '\\';
			e[1] = to[i];
			return 2;
		}
	}
	if (c >= 0x20 && c < 0x7f) {
		e[0] = c;
		return 1;
	}
	e[0] = '\\';
	e[1] = '0' + ((c >> 6) & 3);
	e[2] = '0' + ((c >> 3) & 7);
	e[3] = '0' + (c & 7);
	return 4;
}

/* Emit len bytes of s padded to width with spaces. */
static void rt_fmt_padded(struct rt_fmt_out *o, int flags, int width,
			  const char *s, unsigned long len)
{
	unsigned long pad = 0;

	if (width > 0 && (unsigned long)width > len)
		pad = width - len;
	if (!(flags & RT_FMT_LEFT))
		rt_fmt_fill(o, ' ', pad);
	rt_fmt_copy(o, s, len);
	if (flags & RT_FMT_LEFT)
		rt_fmt_fill(o, ' ', pad);
}

/* Emit the character c, escaped under '#'. */
static void rt_fmt_char(struct rt_fmt_out *o, int flags, int width,
			unsigned char c)
{
	char e[4];
	unsigned long len = 1;

	if (flags & RT_FMT_ALT)
		len = rt_fmt_escape(c, e);
	else
		e[0] = c;
	rt_fmt_padded(o, flags, width, e, len);
}

/* Emit s, at most precision bytes of it if precision >= 0. */
static void rt_fmt_string(struct rt_fmt_out *o, int flags, int width,
			  int precision, const char *s)
{
	unsigned long len = 0;

	/* Script strings are never NULL; embedded C might pass one. */
	if (!s)
		s = "<NULL>";
	while (s[len] && (precision < 0 || len < (unsigned long)precision))
		len++;
	rt_fmt_padded(o, flags, width, s, len);
}

/* %b: the number's low width bytes, in memory order. */
static void rt_fmt_binary(struct rt_fmt_out *o, int width, long long n)
{
	unsigned long long v = (unsigned long long)n;
	char bytes[8];
	int i, len = width > 0 ? width : 8;

	/* Little-endian, as the value lies in memory on the supported targets. */
	for (i = 0; i < 8; i++, v >>= 8)
		bytes[i] = (char)(v & 0xff);
	rt_fmt_copy(o, bytes, (unsigned long)len);
}

/* %m and %M: len bytes at addr, raw or as hex digits, in a field of width. */
static int rt_fmt_memory(struct rt_fmt_out *o, const struct rt_fmt_mem *mem, int hex,
			 int flags, int width, unsigned long len, unsigned long long addr)
{
	static const char digits[] = "0123456789abcdef";
	unsigned char chunk[64];
	char text[128];
	unsigned long out_len = hex ? 2 * len : len, pad = 0, done, i, k;

	if (!mem || !mem->read)
		return -1;
	if (width > 0 && (unsigned long)width > out_len)
		pad = width - out_len;
	if (!(flags & RT_FMT_LEFT))
		rt_fmt_fill(o, ' ', pad);
	for (done = 0; done < len; done += k) {
		k = len - done < sizeof(chunk) ? len - done : sizeof(chunk);
		if (mem->read(mem->ctx, chunk, addr + done, k))
			return -1;
		if (!hex) {
			rt_fmt_copy(o, (const char *)chunk, k);
			continue;
		}
		for (i = 0; i < k; i++) {
			text[2 * i] = digits[chunk[i] >> 4];
			text[2 * i + 1] = digits[chunk[i] & 15];
		}
		rt_fmt_copy(o, text, 2 * k);
	}
	if (flags & RT_FMT_LEFT)
		rt_fmt_fill(o, ' ', pad);
	return 0;
}

/* Take a '*' value: a number, clamped to what a literal could say. */
static int rt_fmt_star(long long n)
{
	if (n > RT_FMT_WIDTH_MAX)
		return RT_FMT_WIDTH_MAX;
	if (n < -RT_FMT_WIDTH_MAX)
		return -RT_FMT_WIDTH_MAX;
	return (int)n;
}

long rt_fmt_format(char *buf, unsigned long size, const char *fmt,
		   const struct rt_fmt_arg *args, int nargs)
{
	return rt_fmt_format_mem(buf, size, fmt, args, nargs, 0);
}

long rt_fmt_format_mem(char *buf, unsigned long size, const char *fmt,
		       const struct rt_fmt_arg *args, int nargs,
		       const struct rt_fmt_mem *mem)
{
	struct rt_fmt_out o;
	struct rt_fmt_spec spec;
	const struct rt_fmt_arg *a;
	int ai = 0;
	int flags, width, precision;
	long long n;

	o.buf = buf;
	o.size = buf ? size : 0;
	o.pos = 0;
	while (rt_fmt_next(&fmt, &spec)) {
		if (spec.conv == RT_FMT_ERROR)
			goto fail;
		if (spec.conv == RT_FMT_LITERAL) {
			rt_fmt_copy(&o, spec.start, spec.len);
			continue;
		}
		if (spec.conv == RT_FMT_PERCENT) {
			rt_fmt_fill(&o, '%', 1);
			continue;
		}
		if (rt_fmt_nargs(&spec) > nargs - ai)
			goto fail;

		flags = spec.flags;
		width = spec.width;
		precision = spec.precision;
		if (width == RT_FMT_STAR) {
			if (args[ai].is_str)
				goto fail;
			width = rt_fmt_star(args[ai++].n);
			/* A negative '*' width means '-', as in C. */
			if (width < 0) {
				flags |= RT_FMT_LEFT;
				width = -width;
			}
		}
		if (precision == RT_FMT_STAR) {
			if (args[ai].is_str)
				goto fail;
			precision = rt_fmt_star(args[ai++].n);
			/* A negative '*' precision means none, as in C. */
			if (precision < 0)
				precision = RT_FMT_NONE;
		}

		a = &args[ai++];
		if ((a->is_str != 0) != (spec.conv == RT_FMT_STRING))
			goto fail;
		n = a->n;

		switch (spec.conv) {
		case RT_FMT_SIGNED:
			/* 0 - n in unsigned arithmetic also handles LLONG_MIN. */
			if (n < 0)
				rt_fmt_number(&o, spec.conv, flags, width,
					      precision,
					      0ULL - (unsigned long long)n, 1);
			else
				rt_fmt_number(&o, spec.conv, flags, width,
					      precision, n, 0);
			break;
		case RT_FMT_UNSIGNED:
		case RT_FMT_OCTAL:
		case RT_FMT_HEX:
		case RT_FMT_HEX_UPPER:
		case RT_FMT_POINTER:
			rt_fmt_number(&o, spec.conv, flags, width, precision,
				      (unsigned long long)n, 0);
			break;
		case RT_FMT_CHAR:
			rt_fmt_char(&o, flags, width, (unsigned char)n);
			break;
		case RT_FMT_STRING:
			rt_fmt_string(&o, flags, width, precision, a->s);
			break;
		case RT_FMT_BINARY:
			rt_fmt_binary(&o, width, n);
			break;
		case RT_FMT_MEMORY:
		case RT_FMT_MEMORY_HEX:
			if (precision > RT_FMT_MEMORY_MAX)
				precision = RT_FMT_MEMORY_MAX;
			if (rt_fmt_memory(&o, mem, spec.conv == RT_FMT_MEMORY_HEX, flags, width,
					  precision < 0 ? 1 : (unsigned long)precision,
					  (unsigned long long)n))
				goto fail;
			break;
		case RT_FMT_LITERAL:
		case RT_FMT_PERCENT:
		case RT_FMT_ERROR:
			break;
		}
	}
	if (ai != nargs)
		goto fail;

	if (o.size > 0)
		buf[o.pos < o.size ? o.pos : o.size - 1] = '\0';
	return (long)o.pos;

fail:
	if (o.size > 0)
		buf[0] = '\0';
	return -1;
}
