// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit test of the printf formatter in contract/format.c.
 *
 * Integer and string conversions are compared with the host C library's
 * snprintf over tables of flags, widths, precisions and values, except
 * where SystemTap's runtime prints something else than C (see the comment
 * at the top of format.c; stap_differs() below says exactly where): those
 * combinations must differ from C, and explicit expected strings check
 * what they print instead.  What C does not define (%p, %#c, argument
 * checks, malformed formats, the pieces rt_fmt_next returns) is compared
 * with explicit expected strings too.  Output
 * is TAP-like: "ok N - what" or "not ok N - what" followed by "#" lines
 * with the expected and actual results.  Exits 1 if any check failed.
 */
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "contract/format.h"
#include "tap.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Bytes after the buffer given to rt_fmt_format, which must stay intact. */
#define CANARY 0x5a
#define BUF_MAX 1024


static struct rt_fmt_arg num(long long n)
{
	struct rt_fmt_arg a = { 0, n, NULL };

	return a;
}

static struct rt_fmt_arg str(const char *s)
{
	struct rt_fmt_arg a = { 1, 0, s };

	return a;
}

/* Print len bytes of s as a C string literal, so NULs and tabs show. */
static void show(const char *label, const char *s, long len)
{
	long i;

	printf("#   %-10s\"", label);
	for (i = 0; i < len; i++) {
		unsigned char c = s[i];

		if (c == '"' || c == '\\')
			printf("\\%c", c);
		else if (c >= 0x20 && c < 0x7f)
			putchar(c);
		else
			printf("\\%03o", c);
	}
	printf("\"\n");
}


/*
 * Format into a buffer of size bytes (NULL when size is 0) followed by
 * canary bytes.  Returns the result; *intact says the canary survived and,
 * for size > 0, the output is NUL-terminated within the buffer.
 */
static long run(char *out, unsigned long size, const char *fmt,
		const struct rt_fmt_arg *args, int nargs, int *intact)
{
	static char space[BUF_MAX + 16];
	unsigned long i;
	long ret;

	memset(space, CANARY, sizeof(space));
	ret = rt_fmt_format(size ? space : NULL, size, fmt, args, nargs);
	*intact = 1;
	for (i = size; i < sizeof(space); i++)
		if ((unsigned char)space[i] != CANARY)
			*intact = 0;
	if (size > 0 && !memchr(space, '\0', size))
		*intact = 0;
	memcpy(out, space, size);
	return ret;
}

/*
 * The common check: format with a large buffer and with none, and compare
 * with want (want_len bytes; want_len -1 expects an error and an empty
 * buffer).  Returns 1 on success; on failure prints what differs.
 */
static int same(const char *fmt, const struct rt_fmt_arg *args, int nargs,
		const char *want, long want_len, char *why, size_t whylen)
{
	char out[BUF_MAX];
	int intact;
	long ret, ret0;

	ret0 = run(out, 0, fmt, args, nargs, &intact);
	ret = run(out, BUF_MAX, fmt, args, nargs, &intact);
	if (!intact) {
		snprintf(why, whylen, "wrote past the buffer or no NUL");
		return 0;
	}
	if (ret != want_len || ret0 != want_len) {
		snprintf(why, whylen, "returned %ld (%ld with no buffer), want %ld",
			 ret, ret0, want_len);
		return 0;
	}
	if (want_len < 0)
		want_len = 0;
	if (memcmp(out, want, want_len) != 0 || out[want_len] != '\0') {
		snprintf(why, whylen, "output differs");
		return 0;
	}
	return 1;
}

static void explain(const char *why, const char *want, long want_len,
		    const char *fmt, const struct rt_fmt_arg *args, int nargs)
{
	char out[BUF_MAX];
	int intact;
	long ret = run(out, BUF_MAX, fmt, args, nargs, &intact);

	printf("#   %s\n", why);
	show("format:", fmt, strlen(fmt));
	show("expected:", want, want_len < 0 ? 0 : want_len);
	show("actual:", out, ret < 0 ? (long)strlen(out) :
			     ret < BUF_MAX ? ret : BUF_MAX - 1);
}

/* One check with an explicit expected string (NULL: expect -1). */
static void expect_len(const char *what, const char *fmt,
		       const struct rt_fmt_arg *args, int nargs,
		       const char *want, long want_len)
{
	char why[128];

	if (!tap_check(same(fmt, args, nargs, want ? want : "", want_len, why,
			 sizeof(why)), "%s", what))
		explain(why, want ? want : "", want_len, fmt, args, nargs);
}

static void expect(const char *what, const char *fmt,
		   const struct rt_fmt_arg *args, int nargs, const char *want)
{
	expect_len(what, fmt, args, nargs, want, want ? (long)strlen(want) : -1);
}

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
/* The C library's rendering of a C format with one 64-bit argument. */
static int c_num(char *buf, size_t size, const char *cfmt, int is_signed,
		 long long v)
{
	if (is_signed)
		return snprintf(buf, size, cfmt, v);
	return snprintf(buf, size, cfmt, (unsigned long long)v);
}

static int c_str(char *buf, size_t size, const char *cfmt, const char *s)
{
	return snprintf(buf, size, cfmt, s);
}

static int c_star(char *buf, size_t size, const char *cfmt, int n1, int n2,
		  int is_str, long long v, const char *s)
{
	if (is_str)
		return n2 == INT_MIN ? snprintf(buf, size, cfmt, n1, s) :
		       snprintf(buf, size, cfmt, n1, n2, s);
	return n2 == INT_MIN ? snprintf(buf, size, cfmt, n1, v) :
	       snprintf(buf, size, cfmt, n1, n2, v);
}
#pragma GCC diagnostic pop

static const long long values[] = {
	0, 1, -1, 7, 8, 10, 42, -42, 255, 4096, 65535, 1000000007LL,
	-1000000007LL, 0x12345678abcdef00LL, 9000000000000LL,
	999999999999999999LL, 1000000000000000000LL,
	LLONG_MAX, LLONG_MIN, LLONG_MIN + 1,
};

static const char *const flag_sets[] = {
	"", "-", "+", " ", "#", "0", "-0", "+0", " 0", "#0", "-#", "+ ",
	"-+ #0",
};

/* Width and precision; any letters are length modifiers, not given to C. */
static const char *const width_precs[] = {
	"", "1", "5", "25", ".0", ".1", ".3", ".22", "8.3", "12l", "0.0",
	"30.25", ".hh",
};

/* cfmt: fmt without the length modifiers, plus "ll" (or nothing). */
static void c_format(char *cfmt, size_t size, const char *fmt,
		     const char *mod)
{
	size_t i = 0;

	for (; *fmt && i + 4 < size; fmt++) {
		if (fmt[1] == '\0') {
			while (*mod)
				cfmt[i++] = *mod++;
		} else if (strchr("hljzL", *fmt)) {
			continue;
		}
		cfmt[i++] = *fmt;
	}
	cfmt[i] = '\0';
}

/*
 * Flags (RT_FMT_* bits), width and precision (-1: none) of an integer
 * directive, read here rather than with rt_fmt_next, which is under test.
 */
static void parse_directive(const char *fmt, int *flags, int *width,
			    int *prec)
{
	static const char fl[] = "-+ #0";
	static const int bits[] = { RT_FMT_LEFT, RT_FMT_PLUS, RT_FMT_SPACE,
				    RT_FMT_ALT, RT_FMT_ZERO };
	const char *p = strchr(fmt, '%') + 1;

	*flags = 0;
	*width = -1;
	*prec = -1;
	for (; *p && strchr(fl, *p); p++)
		*flags |= bits[strchr(fl, *p) - fl];
	if (*p >= '0' && *p <= '9')
		*width = (int)strtol(p, (char **)&p, 10);
	if (*p == '.') {
		p++;
		*prec = (int)strtol(p, (char **)&p, 10);
	}
}

/*
 * Whether SystemTap's runtime (number() in its runtime/vsprintf.c) prints
 * v under this integer directive differently from C.  conv is one of
 * "diuoxX"; width and precision are -1 when not given.
 */
static int stap_differs(char conv, int flags, int width, int prec,
			long long v)
{
	int is_signed = conv == 'd' || conv == 'i';
	unsigned base = conv == 'o' ? 8 : conv == 'x' || conv == 'X' ? 16 : 10;
	unsigned long long m = is_signed && v < 0 ?
			       0ULL - (unsigned long long)v :
			       (unsigned long long)v;
	unsigned long long t;
	int alt = (flags & RT_FMT_ALT) != 0;
	int nd = 0, len;

	for (t = m; t; t /= base)
		nd++;
	/* C prints no digit for 0 with precision 0; SystemTap prints "0". */
	if (m == 0 && prec == 0)
		return 1;
	/* C's '#' adds no "0x" to 0; SystemTap's does. */
	if (alt && base == 16 && m == 0)
		return 1;
	/*
	 * C's '#' adds a 0 to octal only if the digits lack one, but when
	 * '0' pads 0 to two or more places, both print only zeros.
	 */
	if (alt && base == 8 && (m == 0 || prec > nd))
		return !(prec < 0 && (flags & RT_FMT_ZERO) &&
			 !(flags & RT_FMT_LEFT) && width >= 2);
	/* With a precision, C pads with spaces despite '0'; SystemTap not. */
	if ((flags & RT_FMT_ZERO) && !(flags & RT_FMT_LEFT) && prec >= 0) {
		len = nd > prec ? nd : prec;
		if (is_signed && (v < 0 || (flags & (RT_FMT_PLUS | RT_FMT_SPACE))))
			len++;
		if (alt && base == 16)
			len += 2;
		if (alt && base == 8)
			len++;
		return width > len;
	}
	return 0;
}

/*
 * One value of a comparison table: like C's output, or, where SystemTap
 * differs from C, unlike it (test_stap_integers checks what instead).
 * Returns 1 on success; on failure reports it under what.
 */
static int like_c_unless_stap(const char *what, const char *fmt,
			      const struct rt_fmt_arg *args, int nargs,
			      const char *want, int n, int differs)
{
	char why[128];

	if (!differs) {
		if (same(fmt, args, nargs, want, n, why, sizeof(why)))
			return 1;
	} else {
		if (!same(fmt, args, nargs, want, n, why, sizeof(why)))
			return 1;
		snprintf(why, sizeof(why),
			 "prints what C does where SystemTap differs");
	}
	tap_check(0, "%s", what);
	explain(why, want, n, fmt, args, nargs);
	return 0;
}

/*
 * Integers against the C library: one check per conversion, flags, width;
 * the values where SystemTap differs from C must differ from C.
 */
static void test_integers_vs_libc(void)
{
	static const char convs[] = "diuoxX";
	size_t c, f, w, v;
	int total_differ = 0, total;

	for (c = 0; c < sizeof(convs) - 1; c++) {
		for (f = 0; f < ARRAY_SIZE(flag_sets); f++) {
			for (w = 0; w < ARRAY_SIZE(width_precs); w++) {
				char fmt[32], cfmt[32], want[BUF_MAX], what[160];
				int is_signed = convs[c] == 'd' || convs[c] == 'i';
				int flags, width, prec, n_differ = 0;
				int ok = 1;

				snprintf(fmt, sizeof(fmt), "%%%s%s%c", flag_sets[f],
					 width_precs[w], convs[c]);
				c_format(cfmt, sizeof(cfmt), fmt, "ll");
				parse_directive(fmt, &flags, &width, &prec);
				for (v = 0; v < ARRAY_SIZE(values); v++)
					n_differ += stap_differs(convs[c], flags,
								 width, prec,
								 values[v]);
				total_differ += n_differ;
				snprintf(what, sizeof(what),
					 "%s like C's %s for %d values (%d where SystemTap is not)",
					 fmt, cfmt, (int)ARRAY_SIZE(values),
					 n_differ);
				for (v = 0; v < ARRAY_SIZE(values) && ok; v++) {
					struct rt_fmt_arg a = num(values[v]);
					int n = c_num(want, sizeof(want), cfmt,
						      is_signed, values[v]);

					ok = like_c_unless_stap(
						what, fmt, &a, 1, want, n,
						stap_differs(convs[c], flags,
							     width, prec,
							     values[v]));
					if (!ok)
						printf("#   value %lld\n", values[v]);
				}
				if (ok)
					tap_check(1, "%s", what);
			}
		}
	}
	/* Guard the predicate itself: it must leave most of the table. */
	total = (int)((sizeof(convs) - 1) * ARRAY_SIZE(flag_sets) *
		      ARRAY_SIZE(width_precs) * ARRAY_SIZE(values));
	tap_check(total_differ > 0 && total_differ < total / 10,
	       "SystemTap differs from C in %d of %d table cases, under a tenth",
	       total_differ, total);
}

/*
 * Where SystemTap's number() (runtime/vsprintf.c) prints integers other
 * than C does, explicit expected strings.
 */
static void test_stap_integers(void)
{
	static const struct {
		const char *fmt;
		int nargs;
		long long a[3];
		const char *want;
	} t[] = {
		/* '#' with %x/%X adds "0x"/"0X" to 0 too (C: "0"). */
		{ "%#x", 1, { 0 }, "0x0" },
		{ "%#X", 1, { 0 }, "0X0" },
		{ "%#lx", 1, { 0 }, "0x0" },
		{ "%#5x|", 1, { 0 }, "  0x0|" },
		{ "%-#6X|", 1, { 0 }, "0X0   |" },
		{ "%#06x", 1, { 0 }, "0x0000" },
		{ "%#.3x", 1, { 0 }, "0x000" },
		{ "%#.0X", 1, { 0 }, "0X0" },
		{ "%#8.3X|", 1, { 0 }, "   0X000|" },
		{ "%+ #x", 1, { 0 }, "0x0" },
		{ "%#*x|", 2, { -5, 0 }, "0x0  |" },
		{ "%#x", 1, { 1 }, "0x1" },
		{ "%#X", 1, { 42 }, "0X2A" },
		{ "%#x", 1, { -1 }, "0xffffffffffffffff" },
		/* '#' with %o always puts a 0 before the digits. */
		{ "%#o", 1, { 0 }, "00" },
		{ "%#lo", 1, { 0 }, "00" },
		{ "%#.0o", 1, { 0 }, "00" },
		{ "%#.3o", 1, { 0 }, "0000" },
		{ "%#4o|", 1, { 0 }, "  00|" },
		{ "%#.3o", 1, { 8 }, "0010" },
		{ "%#.5o", 1, { 1 }, "000001" },
		{ "%#.25o", 1, { 8 }, "00000000000000000000000010" },
		{ "%#6.3o|", 1, { 8 }, "  0010|" },
		{ "%-#6.3o|", 1, { 8 }, "0010  |" },
		{ "%#.*o", 2, { 4, 8 }, "00010" },
		{ "%#o", 1, { 8 }, "010" },
		{ "%#o", 1, { 1 }, "01" },
		{ "%#o", 1, { 42 }, "052" },
		{ "%#.2o", 1, { 8 }, "010" },
		{ "%#06o", 1, { 8 }, "000010" },
		{ "%#o", 1, { -1 }, "01777777777777777777777" },
		/* An integer has at least one digit: precision 0 prints 0. */
		{ "%.0d", 1, { 0 }, "0" },
		{ "%.0i", 1, { 0 }, "0" },
		{ "%.0u", 1, { 0 }, "0" },
		{ "%.0o", 1, { 0 }, "0" },
		{ "%.0x", 1, { 0 }, "0" },
		{ "%.0X", 1, { 0 }, "0" },
		{ "%.d", 1, { 0 }, "0" },
		{ "%5.0d|", 1, { 0 }, "    0|" },
		{ "%-5.0d|", 1, { 0 }, "0    |" },
		{ "%+.0d", 1, { 0 }, "+0" },
		{ "% .0d", 1, { 0 }, " 0" },
		{ "%3.0u|", 1, { 0 }, "  0|" },
		{ "%.*d", 2, { 0, 0 }, "0" },
		{ "%.0d", 1, { 5 }, "5" },
		{ "%.0d", 1, { -5 }, "-5" },
		/* The '0' flag still pads when a precision is given. */
		{ "%08.3d", 1, { 5 }, "00000005" },
		{ "%08.3d", 1, { -5 }, "-0000005" },
		{ "%+08.3d", 1, { 5 }, "+0000005" },
		{ "% 08.3d", 1, { 5 }, " 0000005" },
		{ "%08.3i", 1, { 1234 }, "00001234" },
		{ "%08.3u", 1, { 42 }, "00000042" },
		{ "%08.3o", 1, { 8 }, "00000010" },
		{ "%#08.4o", 1, { 8 }, "00000010" },
		{ "%08.3x", 1, { 0x1f }, "0000001f" },
		{ "%08.3X", 1, { 0x1f }, "0000001F" },
		{ "%#08.3x", 1, { 1 }, "0x000001" },
		{ "%010.0d", 1, { 0 }, "0000000000" },
		{ "%024.20d", 1, { -1 }, "-00000000000000000000001" },
		{ "%0*.*d", 3, { 8, 3, 5 }, "00000005" },
		{ "%0*.*x", 3, { 6, 0, 0 }, "000000" },
		{ "%05.8d", 1, { 42 }, "00000042" },
		{ "%03.1d", 1, { 12345 }, "12345" },
		{ "%0.0d", 1, { 0 }, "0" },
		{ "%-08.3d|", 1, { 5 }, "005     |" },
		{ "%0*.*d|", 3, { -8, 3, 5 }, "005     |" },
		{ "%08.3d", 1, { LLONG_MIN }, "-9223372036854775808" },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(t); i++) {
		char what[96];
		struct rt_fmt_arg a[3];
		int k;

		for (k = 0; k < t[i].nargs; k++)
			a[k] = num(t[i].a[k]);
		snprintf(what, sizeof(what), "as SystemTap: %s of %lld%s", t[i].fmt,
			 t[i].a[t[i].nargs - 1], t[i].nargs > 1 ? " (with '*')" : "");
		expect(what, t[i].fmt, a, t[i].nargs, t[i].want);
	}
}

/* Length modifiers change nothing: numbers are always 64-bit. */
static void test_length_modifiers(void)
{
	static const char *const mods[] = { "l", "ll", "h", "hh", "j", "z", "L" };
	size_t m;

	for (m = 0; m < ARRAY_SIZE(mods); m++) {
		char fmt[32], what[64];
		struct rt_fmt_arg a[3] = { num(-1), num(LLONG_MIN),
					   str("str") };

		snprintf(fmt, sizeof(fmt), "%%%sx %%%sd %%%ss", mods[m],
			 mods[m], mods[m]);
		snprintf(what, sizeof(what), "length modifier %s is ignored",
			 mods[m]);
		expect(what, fmt, a, 3,
		       "ffffffffffffffff -9223372036854775808 str");
	}
}

/* A division-free decimal conversion, checked on many values. */
static void test_decimal_sweep(void)
{
	unsigned long long x = 0x9e3779b97f4a7c15ULL;
	unsigned long long p10 = 1;
	int round, i, ok;

	for (round = 0; round < 8; round++) {
		char want[64], why[128];
		struct rt_fmt_arg a;
		long long v = 0;

		ok = 1;
		for (i = 0; i < 20000 && ok; i++) {
			/* xorshift64, shifted so all magnitudes occur */
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			v = (long long)(x >> (i % 64));
			if (round & 1)
				v = -v;
			a = num(v);
			ok = same("%d|%u", (struct rt_fmt_arg[]){ a, a }, 2,
				  want,
				  snprintf(want, sizeof(want), "%lld|%llu", v,
					   (unsigned long long)v),
				  why, sizeof(why));
		}
		if (!tap_check(ok, "%%d and %%u like C's on 20000 random values (%d)",
			    round))
			printf("#   value %lld: %s\n", v, why);
	}

	/* Each power of ten and its neighbours, where carries happen. */
	ok = 1;
	for (i = 0; i < 20 && ok; i++, p10 *= 10) {
		unsigned long long d;

		for (d = p10 - 1; d <= p10 + 1 && ok; d++) {
			char want[64], why[128];
			struct rt_fmt_arg a = num((long long)d);

			ok = same("%u", &a, 1, want,
				  snprintf(want, sizeof(want), "%llu", d), why,
				  sizeof(why));
			if (!ok)
				printf("#   value %llu: %s\n", d, why);
		}
	}
	tap_check(ok, "%%u like C's around every power of ten");
}

static const char *const strings[] = {
	"", "a", "hello", "hello, world!", "tab\there", "0123456789abcdef",
};

/* Strings against the C library. */
static void test_strings_vs_libc(void)
{
	static const char *const sflags[] = { "", "-", "+", " ", "#", "0",
					      "-0" };
	static const char *const swp[] = { "", "0", "1", "4", "20", ".0",
					   ".1", ".5", "10.3", "7l",
					   "3.20", "." };
	size_t f, w, s;

	for (f = 0; f < ARRAY_SIZE(sflags); f++) {
		for (w = 0; w < ARRAY_SIZE(swp); w++) {
			char fmt[32], cfmt[32], want[BUF_MAX], why[128];
			int ok = 1;

			/* C would take "%ls" as a wide string. */
			snprintf(fmt, sizeof(fmt), "%%%s%ss", sflags[f], swp[w]);
			c_format(cfmt, sizeof(cfmt), fmt, "");
			for (s = 0; s < ARRAY_SIZE(strings) && ok; s++) {
				struct rt_fmt_arg a = str(strings[s]);
				int n = c_str(want, sizeof(want), cfmt,
					      strings[s]);

				ok = same(fmt, &a, 1, want, n, why, sizeof(why));
				if (!ok) {
					tap_check(0, "%s like C's %s for %d strings",
					       fmt, cfmt, (int)ARRAY_SIZE(strings));
					explain(why, want, n, fmt, &a, 1);
				}
			}
			if (ok)
				tap_check(1, "%s like C's %s for %d strings", fmt,
				       cfmt, (int)ARRAY_SIZE(strings));
		}
	}
}

/* '*' width and precision against the C library (C takes them as int). */
static void test_star_vs_libc(void)
{
	static const int stars[] = { -12, -3, -1, 0, 1, 4, 9, 30 };
	static const char *const sfmts[] = {
		"%*d", "%-*d", "%0*d", "%.*d", "%*.*d", "%0*.*x", "%#*.*o",
		"%*s", "%-*s", "%.*s", "%*.*s", "%+*.*i",
	};
	size_t f, i, j;

	for (f = 0; f < ARRAY_SIZE(sfmts); f++) {
		const char *fmt = sfmts[f];
		int is_str = fmt[strlen(fmt) - 1] == 's';
		int two = strstr(fmt, "*.*") != NULL;
		char cfmt[32], want[BUF_MAX], why[128];
		const char *conv = fmt + strlen(fmt) - 1;
		int ok = 1, n_differ = 0;

		snprintf(cfmt, sizeof(cfmt), "%.*s%s%s", (int)(conv - fmt), fmt,
			 is_str ? "" : "ll", conv);
		for (i = 0; i < ARRAY_SIZE(stars) && ok; i++) {
			for (j = 0; j < (two ? ARRAY_SIZE(stars) : 1) && ok;
			     j++) {
				struct rt_fmt_arg a[3];
				int n2 = two ? stars[j] : INT_MIN;
				int k = 0, n, flags, width, prec, differs = 0;

				a[k++] = num(stars[i]);
				if (two)
					a[k++] = num(n2);
				a[k++] = is_str ? str("abcdef") : num(-1234);
				n = c_star(want, sizeof(want), cfmt, stars[i], n2,
					   is_str, -1234, "abcdef");
				if (!is_str) {
					/* The '*' values, as C takes them. */
					parse_directive(fmt, &flags, &width, &prec);
					if (fmt[1] != '.' || two)
						width = stars[i];
					if (width < 0) {
						flags |= RT_FMT_LEFT;
						width = -width;
					}
					if (two || fmt[1] == '.')
						prec = two ? n2 : stars[i];
					if (prec < 0)
						prec = -1;
					differs = stap_differs(*conv, flags, width,
							       prec, -1234);
					n_differ += differs;
				}
				if (differs) {
					ok = !same(fmt, a, k, want, n, why,
						   sizeof(why));
					snprintf(why, sizeof(why),
						 "prints what C does where SystemTap differs");
				} else {
					ok = same(fmt, a, k, want, n, why,
						  sizeof(why));
				}
				if (!ok) {
					printf("#   star values %d %d\n", stars[i],
					       n2);
					explain(why, want, n, fmt, a, k);
				}
			}
		}
		tap_check(ok, "%s like C's %s over '*' values (%d where SystemTap is not)",
		       fmt, cfmt, n_differ);
	}
}

/* %p, as SystemTap's testsuite/systemtap.printf/ptr-1.3.exp shows it. */
static void test_pointer(void)
{
	static const long long pv[] = { 0, 1, 0x12345678,
					0x12345678abcdef00LL };
	static const struct {
		const char *fmt;
		const char *want[4];
	} t[] = {
		{ "%p", { "0x0", "0x1", "0x12345678", "0x12345678abcdef00" } },
		{ "%20pX", { "                 0x0X", "                 0x1X",
			     "          0x12345678X", "  0x12345678abcdef00X" } },
		{ "%-20pX", { "0x0                 X", "0x1                 X",
			      "0x12345678          X", "0x12345678abcdef00  X" } },
		{ "%.20pX", { "0x00000000000000000000X",
			      "0x00000000000000000001X",
			      "0x00000000000012345678X",
			      "0x000012345678abcdef00X" } },
		{ "%20.8pX", { "          0x00000000X", "          0x00000001X",
			       "          0x12345678X",
			       "  0x12345678abcdef00X" } },
		{ "%-20.8pX", { "0x00000000          X", "0x00000001          X",
				"0x12345678          X",
				"0x12345678abcdef00  X" } },
		{ "%8p", { "     0x0", "     0x1", "0x12345678",
			   "0x12345678abcdef00" } },
		{ "%-8pX", { "0x0     X", "0x1     X", "0x12345678X",
			     "0x12345678abcdef00X" } },
		{ "%.8p", { "0x00000000", "0x00000001", "0x12345678",
			    "0x12345678abcdef00" } },
		{ "%8.20p", { "0x00000000000000000000", "0x00000000000000000001",
			      "0x00000000000012345678",
			      "0x000012345678abcdef00" } },
		{ "%-8.20pX", { "0x00000000000000000000X",
				"0x00000000000000000001X",
				"0x00000000000012345678X",
				"0x000012345678abcdef00X" } },
		/* Not in SystemTap's tests: as %#x but with 0x on 0, too. */
		{ "%020p", { "0x000000000000000000", "0x000000000000000001",
			     "0x000000000012345678", "0x0012345678abcdef00" } },
		{ "%-020pX", { "0x0                 X", "0x1                 X",
			       "0x12345678          X",
			       "0x12345678abcdef00  X" } },
		{ "%.0p", { "0x0", "0x1", "0x12345678", "0x12345678abcdef00" } },
		{ "%+ #p", { "0x0", "0x1", "0x12345678", "0x12345678abcdef00" } },
		{ "%lp", { "0x0", "0x1", "0x12345678", "0x12345678abcdef00" } },
	};
	size_t i, j;

	for (i = 0; i < ARRAY_SIZE(t); i++) {
		for (j = 0; j < ARRAY_SIZE(pv); j++) {
			char what[64];
			struct rt_fmt_arg a = num(pv[j]);

			snprintf(what, sizeof(what), "%s of 0x%llx", t[i].fmt,
				 (unsigned long long)pv[j]);
			expect(what, t[i].fmt, &a, 1, t[i].want[j]);
		}
	}
	{
		struct rt_fmt_arg a = num(-1);

		expect("%p of -1 is all 64 bits", "%p", &a, 1,
		       "0xffffffffffffffff");
	}
}

static void test_char(void)
{
	static const struct {
		const char *fmt;
		long long n;
		const char *want;
		long len;
	} t[] = {
		{ "%c", 'A', "A", 1 },
		{ "%3c", 'A', "  A", 3 },
		{ "%-3c|", 'A', "A  |", 4 },
		{ "%03c", 'A', "  A", 3 },
		{ "%.0c", 'A', "A", 1 },
		{ "%lc", 'z', "z", 1 },
		{ "[%c]", 0, "[\0]", 3 },
		{ "%c", 256 + 'A', "A", 1 },
		{ "%c", -1, "\377", 1 },
		{ "%c", 0x80, "\200", 1 },
		{ "%#c", 'a', "a", 1 },
		{ "%#c", ' ', " ", 1 },
		{ "%#c", '\n', "\\n", 2 },
		{ "%#c", '\t', "\\t", 2 },
		{ "%#c", '\a', "\\a", 2 },
		{ "%#c", '\b', "\\b", 2 },
		{ "%#c", '\f', "\\f", 2 },
		{ "%#c", '\r', "\\r", 2 },
		{ "%#c", '\v', "\\v", 2 },
		{ "%#c", '\'', "\\'", 2 },
		{ "%#c", '\\', "\\\\", 2 },
		{ "%#c", '"', "\"", 1 },
		{ "%#c", 0, "\\000", 4 },
		{ "%#c", 1, "\\001", 4 },
		{ "%#c", 0x7f, "\\177", 4 },
		{ "%#c", 0xff, "\\377", 4 },
		{ "%#6c|", '\n', "    \\n|", 7 },
		{ "%-#6c|", 1, "\\001  |", 7 },
	};
	size_t i;
	int c, ok = 1;

	for (i = 0; i < ARRAY_SIZE(t); i++) {
		char what[64];
		struct rt_fmt_arg a = num(t[i].n);

		snprintf(what, sizeof(what), "%s of %lld", t[i].fmt, t[i].n);
		expect_len(what, t[i].fmt, &a, 1, t[i].want, t[i].len);
	}

	/* Every printable character against the C library. */
	for (c = 0x20; c < 0x7f && ok; c++) {
		char want[16], why[128];
		struct rt_fmt_arg a = num(c);

		ok = same("%-2c|%2c", (struct rt_fmt_arg[]){ a, a }, 2, want,
			  snprintf(want, sizeof(want), "%-2c|%2c", c, c), why,
			  sizeof(why));
		if (!ok)
			printf("#   character %d: %s\n", c, why);
	}
	tap_check(ok, "%%-2c|%%2c like C's for every printable character");
}

static void test_misc(void)
{
	struct rt_fmt_arg a[4];

	expect("empty format", "", NULL, 0, "");
	expect("literal only", "hello, world\n", NULL, 0, "hello, world\n");
	expect("%% alone", "%%", NULL, 0, "%");
	expect("%% between text", "100%% sure", NULL, 0, "100% sure");
	expect("%%%% is two", "%%%%", NULL, 0, "%%");
	a[0] = num(5);
	expect("%% next to a directive", "%d%%%%d", a, 1, "5%%d");
	a[0] = str("x");
	a[1] = num(-3);
	a[2] = str("yz");
	a[3] = num(255);
	expect("mixed directives", "<%s|%d|%5s|%#X>", a, 4, "<x|-3|   yz|0XFF>");
	a[0] = str(NULL);
	expect("NULL string prints <NULL>", "[%s]", a, 1, "[<NULL>]");
	a[0] = str("é");
	expect("UTF-8 bytes pass through", "é%s", a, 1, "éé");
	a[0] = num(LLONG_MAX);
	a[1] = str("abc");
	expect("'*' precision LLONG_MAX clamped", "%.*s", a, 2, "abc");
	a[0] = num(-5);
	a[1] = num(3);
	expect("negative '*' width means '-'", "%*d|", a, 2, "3    |");
	a[0] = num(-5);
	a[1] = num(3);
	expect("negative '*' precision means none", "%.*d|", a, 2, "3|");
}

/* Huge widths: only their length can be compared, not a buffer. */
static void test_huge_widths(void)
{
	static const struct {
		const char *fmt;
		int nargs;
		struct rt_fmt_arg a[2];
		long want;
	} t[] = {
		{ "%*d", 2, { { 0, 1000000, NULL }, { 0, 7, NULL } },
		  RT_FMT_WIDTH_MAX },
		{ "%*d", 2, { { 0, LLONG_MIN, NULL }, { 0, 7, NULL } },
		  RT_FMT_WIDTH_MAX },
		{ "%*d", 2, { { 0, LLONG_MAX, NULL }, { 0, 7, NULL } },
		  RT_FMT_WIDTH_MAX },
		{ "%.*d", 2, { { 0, 1000000, NULL }, { 0, 7, NULL } },
		  RT_FMT_WIDTH_MAX },
		{ "%65535d", 1, { { 0, 7, NULL } }, 65535 },
		{ "%.65535x|%-65535s|", 2, { { 0, 7, NULL }, { 1, 0, "s" } },
		  65535 * 2 + 2 },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(t); i++) {
		char out[8];
		int intact;
		long ret;

		ret = run(out, sizeof(out), t[i].fmt, t[i].a, t[i].nargs,
			  &intact);
		if (!tap_check(ret == t[i].want && intact && strlen(out) == 7,
			    "%s (first argument %lld) has length %ld, truncated to 7",
			    t[i].fmt, t[i].a[0].n, t[i].want))
			printf("#   returned %ld, intact %d, kept %zu bytes\n",
			       ret, intact, strlen(out));
	}
}

/* Truncation: the return value is the full length; output NUL-ended. */
static void test_truncation(void)
{
	static const struct {
		const char *fmt;
		struct rt_fmt_arg a;
		const char *full;
	} t[] = {
		{ "hello %s", { 1, 0, "world" }, "hello world" },
		{ "%10d|", { 0, 7, NULL }, "         7|" },
		{ "%-10d|", { 0, 7, NULL }, "7         |" },
		{ "%#.5x", { 0, 7, NULL }, "0x00007" },
		{ "%%%s%%", { 1, 0, "world" }, "%world%" },
		{ "%#c%#c", { 0, 1, NULL }, "\\001\\001" },
	};
	static const unsigned long sizes[] = { 0, 1, 2, 3, 5, 7, 8, 11, 12, 13,
					       40 };
	size_t i, j;

	for (i = 0; i < ARRAY_SIZE(t); i++) {
		for (j = 0; j < ARRAY_SIZE(sizes); j++) {
			unsigned long size = sizes[j];
			unsigned long len = strlen(t[i].full);
			unsigned long keep = size == 0 ? 0 :
					     size - 1 < len ? size - 1 : len;
			struct rt_fmt_arg a[2] = { t[i].a, t[i].a };
			int nargs = strstr(t[i].fmt + 1, "%#c") ? 2 : 1;
			char out[64];
			int intact;
			long ret = run(out, size, t[i].fmt, a, nargs, &intact);
			int ok = ret == (long)len && intact &&
				 (size == 0 || (memcmp(out, t[i].full, keep) == 0 &&
						out[keep] == '\0'));

			if (!tap_check(ok, "\"%s\" into %lu bytes keeps %lu of %lu",
				    t[i].fmt, size, keep, len)) {
				printf("#   returned %ld, intact %d\n", ret, intact);
				show("expected:", t[i].full, keep);
				if (size > 0)
					show("actual:", out, strlen(out));
			}
		}
	}
}

/* Arguments that do not match the format give -1 and an empty buffer. */
static void test_bad_args(void)
{
	static const struct {
		const char *what;
		const char *fmt;
		int nargs;
		struct rt_fmt_arg a[3];
	} t[] = {
		{ "%d given a string", "%d", 1, { { 1, 0, "s" } } },
		{ "%x given a string", "%x", 1, { { 1, 0, "s" } } },
		{ "%c given a string", "%c", 1, { { 1, 0, "s" } } },
		{ "%p given a string", "%p", 1, { { 1, 0, "s" } } },
		{ "%s given a number", "%s", 1, { { 0, 1, NULL } } },
		{ "%d given nothing", "%d", 0, { { 0 } } },
		{ "%s%s given one", "%s%s", 1, { { 1, 0, "s" } } },
		{ "%d given two", "%d", 2, { { 0, 1, NULL }, { 0, 2, NULL } } },
		{ "text given one", "text", 1, { { 0, 1, NULL } } },
		{ "%% given one", "%%", 1, { { 0, 1, NULL } } },
		{ "'*' width given a string", "%*d", 2,
		  { { 1, 0, "5" }, { 0, 1, NULL } } },
		{ "'*' precision given a string", "%.*s", 2,
		  { { 1, 0, "5" }, { 1, 0, "abc" } } },
		{ "%*.*d given two", "%*.*d", 2,
		  { { 0, 1, NULL }, { 0, 2, NULL } } },
		{ "%*d given the value only", "%*d", 1, { { 0, 1, NULL } } },
		{ "second directive mismatched", "%d %s", 2,
		  { { 0, 1, NULL }, { 0, 2, NULL } } },
		{ "negative nargs", "", -1, { { 0 } } },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(t); i++)
		expect(t[i].what, t[i].fmt, t[i].a, t[i].nargs, NULL);

	/* The buffer is emptied, even when output had been written. */
	{
		char out[32];
		int intact;
		struct rt_fmt_arg a = num(1);
		long ret = run(out, sizeof(out), "abc%d%s", &a, 1, &intact);

		if (!tap_check(ret == -1 && intact && out[0] == '\0',
			    "error after output leaves an empty buffer"))
			printf("#   returned %ld, buffer \"%s\"\n", ret, out);
	}
}

/* Malformed directives: where rt_fmt_next says they are, and -1. */
static void test_malformed(void)
{
	static const struct {
		const char *fmt;
		int at;
		int len;
	} t[] = {
		{ "%q", 0, 2 },
		{ "abc%", 3, 1 },
		{ "%", 0, 1 },
		{ "x %-", 2, 2 },
		{ "%5%", 0, 3 },
		{ "% %", 0, 3 },
		{ "%-5.3%|", 0, 6 },
		{ "%llld", 0, 4 },
		{ "%hhhd", 0, 4 },
		{ "%lhd", 0, 3 },
		{ "%jjd", 0, 3 },
		{ "%Lq", 0, 3 },
		{ "%.5", 0, 3 },
		{ "%5.3.2d", 0, 5 },
		{ "%*", 0, 2 },
		{ "%.*", 0, 3 },
		{ "%**d", 0, 3 },
		{ "%d%", 2, 1 },
		{ "ok %d then %z!", 11, 3 },
		{ "%65536d", 0, 7 },
		{ "%.65536d", 0, 8 },
		{ "%99999999999999999999d", 0, 22 },
		{ "%f", 0, 2 },
		{ "%e", 0, 2 },
		{ "%n", 0, 2 },
		{ "%3b", 0, 3 },
		{ "%.2b", 0, 4 },
		{ "%.1025m", 0, 7 },
		{ "%D", 0, 2 },
		{ "%5-d", 0, 3 },
		{ "%\n", 0, 2 },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(t); i++) {
		const char *p = t[i].fmt;
		struct rt_fmt_spec spec;
		int found = -1, flen = -1, more = 0;
		struct rt_fmt_arg a[2] = { num(1), num(2) };
		char out[32];
		int intact;
		long ret;

		while (rt_fmt_next(&p, &spec)) {
			if (spec.conv == RT_FMT_ERROR && found < 0) {
				found = spec.start - t[i].fmt;
				flen = (int)spec.len;
				more = rt_fmt_nargs(&spec);
			}
		}
		ret = run(out, sizeof(out), t[i].fmt, a, 0, &intact);
		if (!tap_check(found == t[i].at && flen == t[i].len && more == 0 &&
			    ret == -1 && intact && out[0] == '\0',
			    "malformed \"%s\": error at %d length %d, -1",
			    t[i].fmt[1] == '\n' ? "%\\n" : t[i].fmt, t[i].at,
			    t[i].len))
			printf("#   error at %d length %d nargs %d; returned %ld\n",
			       found, flen, more, ret);
		/* Also with the arguments the rest would take. */
		ret = run(out, sizeof(out), t[i].fmt, a, 1, &intact);
		if (!tap_check(ret == -1 && out[0] == '\0',
			    "malformed \"%s\" with an argument is -1 too",
			    t[i].fmt[1] == '\n' ? "%\\n" : t[i].fmt))
			printf("#   returned %ld\n", ret);
	}
}

/* Piece by piece through a mixed format. */
static void test_next(void)
{
	static const char fmt[] =
		"pid %-8d: %s%%\tcpu=%*.*lx%c end%+05.3i%#o% .0u%-#10X%p%hhd";
	static const struct {
		enum rt_fmt_conv conv;
		int at, len, flags, width, precision, nargs;
	} want[] = {
		{ RT_FMT_LITERAL, 0, 4, 0, -1, -1, 0 },
		{ RT_FMT_SIGNED, 4, 4, RT_FMT_LEFT, 8, -1, 1 },
		{ RT_FMT_LITERAL, 8, 2, 0, -1, -1, 0 },
		{ RT_FMT_STRING, 10, 2, 0, -1, -1, 1 },
		{ RT_FMT_PERCENT, 12, 2, 0, -1, -1, 0 },
		{ RT_FMT_LITERAL, 14, 5, 0, -1, -1, 0 },
		{ RT_FMT_HEX, 19, 6, 0, RT_FMT_STAR, RT_FMT_STAR, 3 },
		{ RT_FMT_CHAR, 25, 2, 0, -1, -1, 1 },
		{ RT_FMT_LITERAL, 27, 4, 0, -1, -1, 0 },
		{ RT_FMT_SIGNED, 31, 7, RT_FMT_PLUS | RT_FMT_ZERO, 5, 3, 1 },
		{ RT_FMT_OCTAL, 38, 3, RT_FMT_ALT, -1, -1, 1 },
		{ RT_FMT_UNSIGNED, 41, 5, RT_FMT_SPACE, -1, 0, 1 },
		{ RT_FMT_HEX_UPPER, 46, 6, RT_FMT_LEFT | RT_FMT_ALT, 10, -1, 1 },
		{ RT_FMT_POINTER, 52, 2, 0, -1, -1, 1 },
		{ RT_FMT_SIGNED, 54, 4, 0, -1, -1, 1 },
	};
	const char *p = fmt;
	struct rt_fmt_spec spec;
	size_t i;
	int r;

	for (i = 0; i < ARRAY_SIZE(want); i++) {
		int ok;

		r = rt_fmt_next(&p, &spec);
		ok = r == 1 && spec.conv == want[i].conv &&
		     spec.start == fmt + want[i].at &&
		     spec.len == (unsigned long)want[i].len &&
		     spec.flags == want[i].flags &&
		     spec.width == want[i].width &&
		     spec.precision == want[i].precision &&
		     rt_fmt_nargs(&spec) == want[i].nargs &&
		     p == spec.start + spec.len;
		if (!tap_check(ok, "rt_fmt_next piece %zu: \"%.*s\"", i,
			    want[i].len, fmt + want[i].at)) {
			printf("#   expected: conv %d at %d len %d flags %#x width %d precision %d nargs %d\n",
			       want[i].conv, want[i].at, want[i].len,
			       want[i].flags, want[i].width, want[i].precision,
			       want[i].nargs);
			printf("#   actual:   conv %d at %ld len %lu flags %#x width %d precision %d nargs %d (returned %d)\n",
			       spec.conv, (long)(spec.start - fmt), spec.len,
			       spec.flags, spec.width, spec.precision,
			       rt_fmt_nargs(&spec), r);
		}
	}
	r = rt_fmt_next(&p, &spec);
	tap_check(r == 0 && *p == '\0', "rt_fmt_next returns 0 at the end");
	r = rt_fmt_next(&p, &spec);
	tap_check(r == 0 && *p == '\0', "rt_fmt_next stays at the end");

	{
		struct rt_fmt_arg a[] = {
			num(42), str("sh"), num(6), num(4), num(0xab), num('!'),
			num(7), num(8), num(0), num(255), num(0x10), num(-1),
		};

		expect("the mixed format formatted", fmt, a, ARRAY_SIZE(a),
		       "pid 42      : sh%\tcpu=  00ab! end+000701000XFF      0x10-1");
	}
}

/* %m and %M read memory through the caller's reader; here, a test buffer. */
static const char test_memory[] = "Tapline\x01\xff";

static int read_test_memory(void *ctx, void *dst, unsigned long long addr, unsigned long len)
{
	(void)ctx;
	if (addr < 0x1000 || addr - 0x1000 + len > sizeof(test_memory))
		return -1;
	memcpy(dst, test_memory + (addr - 0x1000), len);
	return 0;
}

static void expect_mem(const char *what, const char *fmt, long long addr, const char *want,
		       long want_len)
{
	struct rt_fmt_mem mem = { read_test_memory, NULL };
	struct rt_fmt_arg a = num(addr);
	char out[64];
	long n = rt_fmt_format_mem(out, sizeof(out), fmt, &a, 1, &mem);
	int ok = n == want_len && (want_len < 0 || memcmp(out, want, (size_t)want_len) == 0);

	if (!tap_check(ok, "%s", what))
		printf("#   returned %ld\n", n);
}

static void test_binary_and_memory(void)
{
	struct rt_fmt_arg a = num(0x0102030405060708LL);

	expect_len("%b writes the 8 bytes of the number, least significant first", "%b", &a, 1,
		   "\x08\x07\x06\x05\x04\x03\x02\x01", 8);
	expect_len("%1b writes one byte", "%1b", &a, 1, "\x08", 1);
	expect_len("%2b writes two bytes", "<%2b>", &a, 1, "<\x08\x07>", 4);
	expect_len("%4b writes four bytes", "%4b", &a, 1, "\x08\x07\x06\x05", 4);
	a = num(0);
	expect_len("%b of 0 writes NUL bytes", "%2b", &a, 1, "\0\0", 2);

	expect_mem("%m reads one byte by default", "%m", 0x1000, "T", 1);
	expect_mem("%.7m reads seven bytes", "[%.7m]", 0x1000, "[Tapline]", 9);
	expect_mem("%.2M shows bytes in hex", "%.2M", 0x1007, "01ff", 4);
	expect_mem("%6.2M pads on the left", "%6.2M", 0x1007, "  01ff", 6);
	expect_mem("%-6.2M pads on the right", "%-6.2M|", 0x1007, "01ff  |", 7);
	expect_mem("%m of an unreadable address fails the format", "%.4m", 0x10, NULL, -1);
	expect_mem("%m past the readable bytes fails", "%.20m", 0x1000, NULL, -1);
	expect("%m without a memory reader fails", "%m", &a, 1, NULL);
}

int main(void)
{
	test_integers_vs_libc();
	test_stap_integers();
	test_length_modifiers();
	test_decimal_sweep();
	test_strings_vs_libc();
	test_star_vs_libc();
	test_pointer();
	test_char();
	test_misc();
	test_huge_widths();
	test_truncation();
	test_bad_args();
	test_malformed();
	test_binary_and_memory();
	test_next();

	return tap_done();
}
