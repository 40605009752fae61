// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit test of runtime/softfloat.c, the integer-only IEEE 754 binary64
 * arithmetic behind SystemTap's fp_* functions, against the host's
 * hardware (x86-64 SSE2, rounding to nearest-even) and C library.
 *
 * Each operation runs on many operands drawn from a deterministic
 * generator that favours the hard cases (zeros of both signs,
 * subnormals, infinities, NaNs, the largest and smallest exponents,
 * operands close to each other or far apart, significands with few bits
 * set, which make exact results and ties), and its result must be bit
 * for bit the hardware's (fp_rem's: the x87's FPREM1); where the result
 * is a NaN, any NaN will do, and which NaN is checked apart, against
 * SystemTap's SoftFloat's choices. The conversions are checked likewise:
 * long_to_fp against the C cast, fp32_to_fp64 against float to double,
 * fp_to_long against nearbyint() in each rounding mode (round(), trunc()
 * and a round to odd for the others) with SystemTap's results for NaN
 * and out of range, string_to_fp against glibc's strtod, fp_to_string
 * against an exact "%.1100f" expansion rounded half away from zero as
 * text. One "ok" line per operation and kind of input; a failure shows
 * its first mismatches as "#" lines.
 */
#include <fenv.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/api.h"
#include "tap.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define SIGN 0x8000000000000000ULL
#define INF 0x7ff0000000000000ULL
#define FRAC ((1ULL << 52) - 1)
#define ROUNDS 200000

/* rt_string_to_fp's failure goes here. */
static int failures;
static char failure[256];

void rt_failf(struct rt_context *c, const char *loc, const char *hint, const char *fmt, ...)
{
	va_list ap;

	failures++;
	va_start(ap, fmt);
	vsnprintf(failure, sizeof(failure), fmt, ap);
	va_end(ap);
}

static double dbl(uint64_t u)
{
	double d;

	memcpy(&d, &u, sizeof(d));
	return d;
}

static uint64_t bits(double d)
{
	uint64_t u;

	memcpy(&u, &d, sizeof(u));
	return u;
}

static int is_nan(uint64_t u)
{
	return (u & ~SIGN) > INF;
}

/* The same result: bit for bit, or both NaN. */
static int same(uint64_t got, uint64_t want)
{
	return got == want || (is_nan(got) && is_nan(want));
}

static const uint64_t specials[] = {
	0, SIGN, INF, INF | SIGN,
	0x7ff8000000000000ULL, 0xfff8000000000000ULL, /* quiet NaNs */
	0x7ff0000000000001ULL, 0x7ff4000000000000ULL, /* signaling */
	0x7fffffffffffffffULL,
	1, SIGN | 1, FRAC, SIGN | FRAC,   /* smallest and largest subnormals */
	1ULL << 52, (1ULL << 52) | SIGN,  /* smallest normal */
	0x7fefffffffffffffULL, 0xffefffffffffffffULL, /* largest */
	0x3ff0000000000000ULL, 0xbff0000000000000ULL, /* +-1 */
	0x3ff0000000000001ULL, 0x3fefffffffffffffULL, /* 1 + ulp, 1 - ulp/2 */
	0x4000000000000000ULL, 0x3fe0000000000000ULL, /* 2, 0.5 */
	0x4008000000000000ULL, 0x3fd5555555555555ULL, /* 3, 1/3 */
	0x43e0000000000000ULL, 0xc3e0000000000000ULL, /* +-2^63 */
	0x43dfffffffffffffULL, 0xc3dfffffffffffffULL,
	0x4340000000000000ULL, 0x4330000000000000ULL, /* 2^53, 2^52 */
};

/* A double's bits, hard cases favoured. */
static uint64_t gen(void)
{
	uint64_t r = tap_rand(), sign = tap_rand() & SIGN;
	int e;

	switch (tap_rand() % 16) {
	case 0:
	case 1:
		return specials[tap_rand() % ARRAY_SIZE(specials)];
	case 2:
		return sign | (r & FRAC); /* subnormal (or zero) */
	case 3:
		return sign | INF | (tap_rand() % 4 ? 0 : r & FRAC); /* inf or NaN */
	case 4:
		e = 1023 + (int)(tap_rand() % 64) - 32;
		return sign | (uint64_t)e << 52 | (r & FRAC);
	case 5:
		e = 2046 - (int)(tap_rand() % 4);
		return sign | (uint64_t)e << 52 | (r & FRAC);
	case 6:
		e = 1 + (int)(tap_rand() % 4);
		return sign | (uint64_t)e << 52 | (r & FRAC);
	case 7:
		return bits((double)(int64_t)(r % 2001) - 1000.0);
	case 8:
	case 9:
		/* few significant bits: exact results, ties */
		e = (int)(tap_rand() % 2047);
		return sign | (uint64_t)e << 52 | (r & FRAC & ~((1ULL << (tap_rand() % 53)) - 1));
	default:
		return r;
	}
}

/* A second operand for a: often near it, for cancellation and ties. */
static uint64_t gen_near(uint64_t a)
{
	uint64_t r = tap_rand();
	int e;

	switch (tap_rand() % 8) {
	case 0:
		return a ^ (r & ((1ULL << (r % 20)) - 1)); /* a few ulps away */
	case 1:
		return a ^ SIGN ^ (r >> 60); /* nearly -a */
	case 2:
		/* the same significand, exponent moved */
		e = (int)((a >> 52) & 0x7ff) + (int)(r % 130) - 65;
		if (e < 0 || e > 2046)
			return gen();
		return (a & ~(0x7ffULL << 52)) | (uint64_t)e << 52 | (r & SIGN);
	case 3:
		return a;
	default:
		return gen();
	}
}

struct tally {
	long n, bad;
};

static void mismatch(struct tally *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void mismatch(struct tally *t, const char *fmt, ...)
{
	va_list ap;

	if (t->bad++ >= 5)
		return;
	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

enum op { ADD, SUB, MUL, DIV, REM, NOPS };
static const char *const op_names[] = { "fp_add", "fp_sub", "fp_mul", "fp_div", "fp_rem" };

static uint64_t soft(enum op op, uint64_t a, uint64_t b)
{
	switch (op) {
	case ADD:
		return (uint64_t)rt_fp_add(NULL, (rt_long)a, (rt_long)b);
	case SUB:
		return (uint64_t)rt_fp_sub(NULL, (rt_long)a, (rt_long)b);
	case MUL:
		return (uint64_t)rt_fp_mul(NULL, (rt_long)a, (rt_long)b);
	case DIV:
		return (uint64_t)rt_fp_div(NULL, (rt_long)a, (rt_long)b);
	default:
		return (uint64_t)rt_fp_rem(NULL, (rt_long)a, (rt_long)b);
	}
}

/* IEEE 754's remainder by the x87's FPREM1, which reduces the exponent
 * difference by up to 63 bits a step. (glibc's remainder() gives a zero
 * result the sign of -x in some cases where the exponents are far apart,
 * where IEEE 754 wants x's: 0x062fd42152c34ca1 rem the smallest subnormal
 * is +0, glibc says -0.) */
static double x87_remainder(double x, double y)
{
	long double r = x, d = y;

	__asm__("1: fprem1\n\tfnstsw %%ax\n\ttestw $0x400, %%ax\n\tjnz 1b"
		: "+t"(r)
		: "u"(d)
		: "ax", "cc");
	return (double)r;
}

static uint64_t hard(enum op op, uint64_t a, uint64_t b)
{
	volatile double x = dbl(a), y = dbl(b);

	switch (op) {
	case ADD:
		return bits(x + y);
	case SUB:
		return bits(x - y);
	case MUL:
		return bits(x * y);
	case DIV:
		return bits(x / y);
	default:
		return bits(x87_remainder(x, y));
	}
}

static void check_binary(enum op op)
{
	struct tally t = { 0, 0 };

	for (int i = 0; i < ROUNDS; i++) {
		uint64_t a = gen(), b = i % 2 ? gen_near(a) : gen();
		uint64_t got, want;

		if (i % 3 == 0) {
			uint64_t s = a; /* the near one first too */
			a = b;
			b = s;
		}
		got = soft(op, a, b);
		want = hard(op, a, b);
		t.n++;
		if (!same(got, want))
			mismatch(&t, "%s(%#018llx, %#018llx) = %#018llx, hardware %#018llx",
				 op_names[op], (unsigned long long)a, (unsigned long long)b,
				 (unsigned long long)got, (unsigned long long)want);
	}
	/* Every pair of special values, both ways. */
	for (size_t i = 0; i < ARRAY_SIZE(specials); i++)
		for (size_t j = 0; j < ARRAY_SIZE(specials); j++) {
			uint64_t a = specials[i], b = specials[j];
			uint64_t got = soft(op, a, b), want = hard(op, a, b);

			t.n++;
			if (!same(got, want))
				mismatch(&t, "%s(%#018llx, %#018llx) = %#018llx, hardware %#018llx",
					 op_names[op], (unsigned long long)a, (unsigned long long)b,
					 (unsigned long long)got, (unsigned long long)want);
		}
	tap_check(!t.bad, "%s: %ld operand pairs bit-identical to the hardware (%ld differ)",
		  op_names[op], t.n, t.bad);
}

static void check_sqrt(void)
{
	struct tally t = { 0, 0 };

	for (int i = 0; i < ROUNDS + (int)ARRAY_SIZE(specials); i++) {
		uint64_t a = i < (int)ARRAY_SIZE(specials) ? specials[i] : gen();
		volatile double x = dbl(a);
		uint64_t got = (uint64_t)rt_fp_sqrt(NULL, (rt_long)a), want = bits(sqrt(x));

		t.n++;
		if (!same(got, want))
			mismatch(&t, "fp_sqrt(%#018llx) = %#018llx, hardware %#018llx",
				 (unsigned long long)a, (unsigned long long)got,
				 (unsigned long long)want);
	}
	/* Exact squares and their neighbours. */
	for (int i = 0; i < ROUNDS / 4; i++) {
		int drop = 37 + (int)(tap_rand() % 27);
		uint64_t m = tap_rand() >> drop;
		volatile double x = (double)m * (double)m;
		uint64_t a = bits(x) + (tap_rand() % 3) - 1;
		uint64_t got = (uint64_t)rt_fp_sqrt(NULL, (rt_long)a);
		uint64_t want = bits(sqrt(dbl(a)));

		t.n++;
		if (!same(got, want))
			mismatch(&t, "fp_sqrt(%#018llx) = %#018llx, hardware %#018llx",
				 (unsigned long long)a, (unsigned long long)got,
				 (unsigned long long)want);
	}
	tap_check(!t.bad, "fp_sqrt: %ld operands bit-identical to the hardware (%ld differ)", t.n,
		  t.bad);
}

static void check_compare(void)
{
	struct tally t = { 0, 0 };

	for (int i = 0; i < ROUNDS; i++) {
		uint64_t a = gen(), b = i % 2 ? gen_near(a) : gen();
		volatile double x = dbl(a), y = dbl(b);
		int eq = (int)rt_fp_eq(NULL, (rt_long)a, (rt_long)b);
		int le = (int)rt_fp_le(NULL, (rt_long)a, (rt_long)b);
		int lt = (int)rt_fp_lt(NULL, (rt_long)a, (rt_long)b);

		t.n++;
		if (eq != (x == y) || le != (x <= y) || lt != (x < y))
			mismatch(&t, "%#018llx vs %#018llx: eq %d le %d lt %d, hardware %d %d %d",
				 (unsigned long long)a, (unsigned long long)b, eq, le, lt, x == y,
				 x <= y, x < y);
	}
	tap_check(!t.bad, "fp_eq, fp_le, fp_lt: %ld operand pairs as the hardware compares (%ld differ)",
		  t.n, t.bad);
}

static void check_long_to_fp(void)
{
	struct tally t = { 0, 0 };
	static const int64_t edges[] = { 0, 1, -1, INT64_MAX, INT64_MIN, INT64_MIN + 1,
					 (1LL << 53) + 1, -(1LL << 53) - 1, (1LL << 54) + 2,
					 (1LL << 54) + 6, 0x7ffffffffffffdffLL, 0x7ffffffffffffc00LL };

	for (int i = 0; i < ROUNDS + (int)ARRAY_SIZE(edges); i++) {
		int drop = (int)(tap_rand() % 64);
		int64_t n = i < (int)ARRAY_SIZE(edges) ? edges[i] : (int64_t)(tap_rand() >> drop);
		volatile int64_t vn = i % 2 ? -n : n;
		uint64_t got = (uint64_t)rt_long_to_fp(NULL, vn), want = bits((double)vn);

		t.n++;
		if (got != want)
			mismatch(&t, "long_to_fp(%lld) = %#018llx, C %#018llx", (long long)vn,
				 (unsigned long long)got, (unsigned long long)want);
	}
	tap_check(!t.bad, "long_to_fp: %ld numbers bit-identical to the C conversion (%ld differ)",
		  t.n, t.bad);
}

static void check_fp32(void)
{
	struct tally t = { 0, 0 };

	for (int i = 0; i < ROUNDS; i++) {
		uint32_t u = (uint32_t)tap_rand();
		volatile float f;
		float tmp;
		uint64_t got, want;

		switch (i % 4) {
		case 0:
			u &= 0x807fffff; /* subnormal */
			break;
		case 1:
			u |= 0x7f800000; /* inf, NaN */
			if (i % 8 == 1)
				u &= 0xff800000;
			break;
		default:
			break;
		}
		memcpy(&tmp, &u, sizeof(tmp));
		f = tmp;
		/* The high 32 bits of the number are ignored. */
		got = (uint64_t)rt_fp32_to_fp64(NULL, (rt_long)(tap_rand() << 32 | u));
		want = bits((double)f);
		t.n++;
		if (!same(got, want))
			mismatch(&t, "fp32_to_fp64(%#010x) = %#018llx, C %#018llx", u,
				 (unsigned long long)got, (unsigned long long)want);
	}
	tap_check(!t.bad, "fp32_to_fp64: %ld binary32 values bit-identical to float to double (%ld differ)",
		  t.n, t.bad);
}

/* fp_to_long's result by the C library: mode's rounding, then SystemTap's
 * NaN and out-of-range results. */
static int64_t ref_to_long(uint64_t a, int mode)
{
	double x = dbl(a), r;

	if (isnan(x))
		return 0;
	switch (mode) {
	case 0:
		r = nearbyint(x); /* FE_TONEAREST */
		break;
	case 2:
		fesetround(FE_DOWNWARD);
		r = nearbyint(x);
		fesetround(FE_TONEAREST);
		break;
	case 3:
		fesetround(FE_UPWARD);
		r = nearbyint(x);
		fesetround(FE_TONEAREST);
		break;
	case 4:
		r = round(x);
		break;
	case 6:
		r = trunc(x);
		if (r != x && fmod(r, 2.0) == 0)
			r += x > 0 ? 1.0 : -1.0;
		break;
	default:
		r = trunc(x);
		break;
	}
	if (r >= 9223372036854775808.0)
		return INT64_MAX;
	if (r < -9223372036854775808.0)
		return INT64_MIN;
	return (int64_t)r;
}

static void check_to_long(void)
{
	static const int modes[] = { 0, 1, 2, 3, 4, 5, 6, 7, -1 };
	struct tally t = { 0, 0 }, hw = { 0, 0 };

	for (int i = 0; i < ROUNDS; i++) {
		uint64_t a;
		int mode = modes[i % ARRAY_SIZE(modes)];
		int64_t got, want;

		switch (tap_rand() % 4) {
		case 0:
			/* halves and near halves */
			a = bits((double)(int64_t)(tap_rand() % 2001 - 1000) / 2.0) +
			    tap_rand() % 3 - 1;
			break;
		case 1:
			/* around 2^63 */
			a = (uint64_t)(1085 + tap_rand() % 3 - 1) << 52;
			a |= tap_rand() & (SIGN | FRAC);
			break;
		default:
			a = gen();
			break;
		}
		got = rt_fp_to_long(NULL, (rt_long)a, mode, (rt_long)(i & 1));
		want = ref_to_long(a, mode);
		t.n++;
		if (got != want)
			mismatch(&t, "fp_to_long(%#018llx, %d) = %lld, expected %lld",
				 (unsigned long long)a, mode, (long long)got, (long long)want);
		/* Where the result is in range, llrint() (the CPU's cvtsd2si)
		 * agrees in modes 0-3. */
		if (mode >= 0 && mode <= 3 && want != INT64_MAX && want != INT64_MIN &&
		    !isnan(dbl(a))) {
			static const int fe[] = { FE_TONEAREST, FE_TOWARDZERO, FE_DOWNWARD,
						  FE_UPWARD };
			volatile double x = dbl(a);
			long long l;

			fesetround(fe[mode]);
			l = llrint(x);
			fesetround(FE_TONEAREST);
			hw.n++;
			if (l != got)
				mismatch(&hw, "fp_to_long(%#018llx, %d) = %lld, llrint %lld",
					 (unsigned long long)a, mode, (long long)got, l);
		}
	}
	tap_check(!t.bad, "fp_to_long: %ld values in modes 0-7 and -1 as nearbyint/round/trunc round (%ld differ)",
		  t.n, t.bad);
	tap_check(!hw.bad, "fp_to_long: %ld in-range values in modes 0-3 as the CPU's llrint (%ld differ)",
		  hw.n, hw.bad);
	tap_check(rt_fp_to_long(NULL, (rt_long)0x7ff8000000000000ULL, 0, 0) == 0 &&
			  rt_fp_to_long(NULL, (rt_long)INF, 0, 0) == INT64_MAX &&
			  rt_fp_to_long(NULL, (rt_long)(INF | SIGN), 0, 0) == INT64_MIN &&
			  rt_fp_to_long(NULL, (rt_long)bits(1e19), 1, 0) == INT64_MAX &&
			  rt_fp_to_long(NULL, (rt_long)bits(-9223372036854775808.0), 0, 1) == INT64_MIN &&
			  rt_fp_to_long(NULL, (rt_long)bits(-2.5), 6, 0) == -3 &&
			  rt_fp_to_long(NULL, (rt_long)bits(3.14), 0, 0) == 3,
		  "fp_to_long: NaN 0, infinities and out of range the nearest limit, 3.14 is 3, "
		  "-2.5 to odd is -3");
}

/* string_to_fp of s against strtod; valid: whether it must parse. */
static void one_string(struct tally *t, const char *s)
{
	int before = failures;
	uint64_t got = (uint64_t)rt_string_to_fp(NULL, s, "string_to_fp(s)", "here");
	uint64_t want = bits(strtod(s, NULL));

	t->n++;
	if (failures != before)
		mismatch(t, "string_to_fp(\"%s\") failed: %s", s, failure);
	else if (got != want)
		mismatch(t, "string_to_fp(\"%s\") = %#018llx (%.17g), strtod %#018llx (%.17g)", s,
			 (unsigned long long)got, dbl(got), (unsigned long long)want, dbl(want));
}

static void check_string_to_fp(void)
{
	struct tally t = { 0, 0 }, r = { 0, 0 }, h = { 0, 0 }, x = { 0, 0 };
	char s[1300];

	/* Shortest round trips and printf's forms of random doubles. */
	for (int i = 0; i < ROUNDS; i++) {
		uint64_t a = gen();

		if (is_nan(a) || (a & ~SIGN) == INF)
			continue;
		switch (i % 4) {
		case 0:
			snprintf(s, sizeof(s), "%.17g", dbl(a));
			break;
		case 1:
			snprintf(s, sizeof(s), "%.*e", (int)(tap_rand() % 30), dbl(a));
			break;
		case 2:
			snprintf(s, sizeof(s), "%.*E", (int)(tap_rand() % 18), dbl(a));
			break;
		default:
			snprintf(s, sizeof(s), "%.*f", (int)(tap_rand() % 25), dbl(a));
			break;
		}
		one_string(&t, s);
	}
	tap_check(!t.bad, "string_to_fp: %ld %%g, %%e, %%E and %%f texts of doubles as strtod reads them (%ld differ)",
		  t.n, t.bad);

	/* Random digit strings: up to 40 significant digits, a point
	 * anywhere, exponents across the whole range and past it. */
	for (int i = 0; i < ROUNDS; i++) {
		int n = 1 + (int)(tap_rand() % 40), point = (int)(tap_rand() % (n + 2)), len = 0;

		if (tap_rand() % 2)
			s[len++] = tap_rand() % 2 ? '-' : '+';
		if (tap_rand() % 4 == 0)
			for (int z = (int)(tap_rand() % 5); z > 0; z--)
				s[len++] = '0';
		for (int k = 0; k < n; k++) {
			if (k == point)
				s[len++] = '.';
			s[len++] = (char)('0' + tap_rand() % 10);
		}
		if (tap_rand() % 4) {
			s[len++] = tap_rand() % 2 ? 'e' : 'E';
			len += snprintf(s + len, sizeof(s) - len, "%d", (int)(tap_rand() % 720) - 360);
		}
		s[len] = 0;
		one_string(&r, s);
	}
	tap_check(!r.bad, "string_to_fp: %ld random decimal strings (1-40 digits, exponents to +-360) as strtod reads them (%ld differ)",
		  r.n, r.bad);

	/* Points halfway between two doubles (ties go to the even one), and
	 * a little above and below them, for doubles from 2^53 to 2^63 whose
	 * halfway points are integers. */
	for (int i = 0; i < ROUNDS / 4; i++) {
		int e = 53 + (int)(tap_rand() % 10);
		uint64_t m = (1ULL << 52) | (tap_rand() & FRAC);
		unsigned long long mid = (m << (e - 52)) + (1ULL << (e - 53));

		snprintf(s, sizeof(s), "%llu", mid);
		one_string(&h, s);
		snprintf(s, sizeof(s), "%llu.000000000000000000001", mid);
		one_string(&h, s);
		snprintf(s, sizeof(s), "%llu.99999999999999999999", mid - 1);
		one_string(&h, s);
		snprintf(s, sizeof(s), "%llue-300", mid);
		one_string(&h, s);
	}
	tap_check(!h.bad, "string_to_fp: %ld halfway points and their neighbours rounded as strtod rounds them (%ld differ)",
		  h.n, h.bad);

	/* Every digit of doubles' exact values, hundreds of them, leading
	 * zeros included: read back as the same double. */
	for (int i = 0; i < 2000; i++) {
		uint64_t a = gen();

		if (is_nan(a) || (a & ~SIGN) == INF)
			continue;
		snprintf(s, sizeof(s), "%.1100f", dbl(a));
		one_string(&x, s);
	}
	tap_check(!x.bad, "string_to_fp: %ld exact expansions (up to 1100 digits) of doubles read back exactly (%ld differ)",
		  x.n, x.bad);

	static const struct {
		const char *s;
		uint64_t want;
	} quirks[] = {
		{ "3.14", 0x40091eb851eb851fULL }, /* SystemTap's example */
		{ "11.21", 4622500287032611308ULL },
		{ "", 0 }, { ".", 0 }, { "-", SIGN }, { "+.5", 0x3fe0000000000000ULL },
		{ "1e", 0x3ff0000000000000ULL }, { "5.", 0x4014000000000000ULL },
		{ "e5", 0 }, { "-0", SIGN }, { "1e400", INF }, { "-1e400", INF | SIGN },
		{ "1e-400", 0 }, { "-1e-400", SIGN }, { "4.9406564584124654e-324", 1 },
		{ "2.4703282292062328e-324", 1 }, { "2.4703282292062327e-324", 0 },
		{ "1.7976931348623158e308", 0x7fefffffffffffffULL },
		{ "1.7976931348623159e308", INF }, { "1e99999999999", INF },
		{ "0.000000000000000000000000000000000000000000000001e48", 0x3ff0000000000000ULL },
	};
	int bad = 0;
	for (size_t i = 0; i < ARRAY_SIZE(quirks); i++) {
		int before = failures;
		uint64_t got = (uint64_t)rt_string_to_fp(NULL, quirks[i].s, "string_to_fp(s)", "here");

		if (failures != before || got != quirks[i].want) {
			bad++;
			printf("# string_to_fp(\"%s\") = %#018llx%s, expected %#018llx\n", quirks[i].s,
			       (unsigned long long)got, failures != before ? " (failed)" : "",
			       (unsigned long long)quirks[i].want);
		}
	}
	tap_check(!bad, "string_to_fp: SystemTap's grammar's edges (\"\", \".\", \"-\", \"1e\", \"e5\"), "
		  "overflow, underflow and the smallest subnormal's halfway point");

	static const char *const invalid[] = { "deadbeef", "1.2.3", "1e5x", " 1", "1 ", "0x10",
					       "inf", "nan", "--1", "1e+-2", "1,5", "+-1" };
	bad = 0;
	for (size_t i = 0; i < ARRAY_SIZE(invalid); i++) {
		int before = failures;

		rt_string_to_fp(NULL, invalid[i], "string_to_fp(s)", "here");
		if (failures != before + 1 || strncmp(failure, "invalid format", 14)) {
			bad++;
			printf("# string_to_fp(\"%s\") did not fail with \"invalid format\"\n",
			       invalid[i]);
		}
	}
	tap_check(!bad, "string_to_fp: %zu malformed strings fail with \"invalid format\"",
		  ARRAY_SIZE(invalid));
}

/* The exact decimal value of x: "%.1100f" shows every digit of a double. */
static void exact_digits(double x, char *out, size_t size)
{
	snprintf(out, size, "%.1100f", x);
}

/* What fp_to_string must give for x, whose exact digits are exact: them
 * rounded half away from zero at precision digits, as text. */
static void ref_to_string(double x, const char *exact, int precision, char *out)
{
	const char *p = exact, *point;
	char *o = out, digits[1500];
	int carry;
	long nint, i;

	if (isnan(x) || isinf(x)) {
		snprintf(out, 8, "%s%s", signbit(x) ? "-" : "", isnan(x) ? "nan" : "inf");
		return;
	}
	if (*p == '-')
		*o++ = *p++;
	point = strchr(p, '.');
	nint = point - p;
	/* digits: the integer part then precision fraction digits */
	memcpy(digits, p, (size_t)nint);
	memcpy(digits + nint, point + 1, (size_t)precision);
	carry = point[1 + precision] >= '5';
	for (i = nint + precision - 1; i >= 0 && carry; i--) {
		if (digits[i] == '9') {
			digits[i] = '0';
		} else {
			digits[i]++;
			carry = 0;
		}
	}
	if (carry)
		*o++ = '1';
	memcpy(o, digits, (size_t)nint);
	o += nint;
	if (precision > 0) {
		*o++ = '.';
		memcpy(o, digits + nint, (size_t)precision);
		o += precision;
	}
	*o = 0;
}

static void check_to_string(void)
{
	struct tally t = { 0, 0 }, c = { 0, 0 }, cut = { 0, 0 };
	char got[4096], want[4096], libc[4096];

	for (int i = 0; i < ROUNDS / 2; i++) {
		uint64_t a = gen();
		int precision = i % 50 == 0 ? (int)(tap_rand() % 1100) : (int)(tap_rand() % 25);
		char exact[1500];
		const char *point;

		rt_fp_to_string(NULL, got, sizeof(got), (rt_long)a, precision);
		exact_digits(dbl(a), exact, sizeof(exact));
		ref_to_string(dbl(a), exact, precision, want);
		t.n++;
		if (strcmp(got, want))
			mismatch(&t, "fp_to_string(%#018llx, %d) = \"%s\", expected \"%s\"",
				 (unsigned long long)a, precision, got, want);
		/* C's %.*f gives the same but for exact ties (C: to even) and
		 * NaN's sign. */
		if (is_nan(a))
			continue;
		point = strchr(exact, '.');
		if (point && point[1 + precision] == '5' &&
		    strspn(point + 2 + precision, "0") == strlen(point + 2 + precision))
			continue; /* a tie */
		snprintf(libc, sizeof(libc), "%.*f", precision, dbl(a));
		c.n++;
		if (strcmp(got, libc))
			mismatch(&c, "fp_to_string(%#018llx, %d) = \"%s\", printf \"%s\"",
				 (unsigned long long)a, precision, got, libc);
	}
	tap_check(!t.bad, "fp_to_string: %ld values at precision 0-1099 as their exact digits rounded half away from zero (%ld differ)",
		  t.n, t.bad);
	tap_check(!c.bad, "fp_to_string: the %ld of them that are no exact tie as printf's %%.*f (%ld differ)",
		  c.n, c.bad);

	/* A string too short for the digits asked for: as many as fit, with
	 * room for a carry, rounded there. */
	for (int i = 0; i < ROUNDS / 10; i++) {
		uint64_t a = gen();
		size_t size = 16 + tap_rand() % 48;
		const char *point;
		int shown;

		if (is_nan(a) || (a & ~SIGN) == INF || ((a >> 52) & 0x7ff) > 1023 + 30)
			continue;
		memset(got, 'x', sizeof(got));
		rt_fp_to_string(NULL, got, size, (rt_long)a, 200);
		cut.n++;
		if (strlen(got) >= size || got[size] != 'x') {
			mismatch(&cut, "fp_to_string(%#018llx, 200) in %zu bytes overflowed", (unsigned long long)a, size);
			continue;
		}
		point = strchr(got, '.');
		shown = point ? (int)strlen(point + 1) : 0;
		exact_digits(dbl(a), libc, sizeof(libc));
		ref_to_string(dbl(a), libc, shown, want);
		if (strcmp(got, want) || strlen(got) + 2 < size - 1)
			mismatch(&cut, "fp_to_string(%#018llx, 200) in %zu bytes = \"%s\", expected \"%s\" (and longer)",
				 (unsigned long long)a, size, got, want);
	}
	tap_check(!cut.bad, "fp_to_string: %ld values in strings of 16-63 bytes cut to the digits that fit, rounded there (%ld wrong)",
		  cut.n, cut.bad);

	static const struct {
		uint64_t a;
		int precision;
		const char *want;
	} table[] = {
		{ 4614253070214989087ULL, 5, "3.14000" }, /* SystemTap's buildok */
		{ 0x4005bf0a8b145769ULL, 5, "2.71828" },  /* e */
		{ 0x4000000000000000ULL, 5, "2.00000" },
		{ 0x3fd5555555555555ULL, 5, "0.33333" },
		{ 0x4004000000000000ULL, 0, "3" }, /* 2.5 */
		{ 0xc004000000000000ULL, 0, "-3" },
		{ 0x3fc0000000000000ULL, 2, "0.13" }, /* 0.125 */
		{ SIGN, 2, "-0.00" },
		{ 0, 0, "0" },
		{ 0x3fefffeb074a771dULL, 4, "1.0000" }, /* 0.99999 */
		{ 0xc023f0a3d70a3d71ULL, 1, "-10.0" },  /* -9.97 */
		{ 0x3ff0000000000000ULL, -3, "1" },
		{ INF, 3, "inf" }, { INF | SIGN, 3, "-inf" },
		{ 0x7ff8000000000000ULL, 3, "nan" }, { 0xfff8000000000000ULL, 3, "-nan" },
		{ 0x4330000000000001ULL, 1, "4503599627370497.0" },
		{ 1, 4, "0.0000" },
		{ 0x3f1a36e2eb1c432dULL, 5, "0.00010" }, /* 0.0001 */
	};
	int bad = 0;
	for (size_t i = 0; i < ARRAY_SIZE(table); i++) {
		rt_fp_to_string(NULL, got, sizeof(got), (rt_long)table[i].a, table[i].precision);
		if (strcmp(got, table[i].want)) {
			bad++;
			printf("# fp_to_string(%#018llx, %d) = \"%s\", expected \"%s\"\n",
			       (unsigned long long)table[i].a, table[i].precision, got, table[i].want);
		}
	}
	tap_check(!bad, "fp_to_string: %zu fixed cases (SystemTap's examples, ties, carries, "
		  "signed zero, infinities, NaNs, the smallest subnormal)", ARRAY_SIZE(table));
}

/* Which NaN: SoftFloat's (SystemTap's) choices, where the hardware only
 * promises some NaN. */
static void check_nans(void)
{
	const uint64_t q1 = 0x7ff8000000000123ULL, q2 = 0xfff8000000000456ULL;
	const uint64_t s1 = 0x7ff0000000000789ULL, one = 0x3ff0000000000000ULL;
	static const uint64_t dflt = 0x7ff8000000000000ULL;
	struct {
		const char *what;
		uint64_t got, want;
	} cases[] = {
		{ "inf - inf", (uint64_t)rt_fp_sub(NULL, (rt_long)INF, (rt_long)INF), dflt },
		{ "inf + -inf", (uint64_t)rt_fp_add(NULL, (rt_long)INF, (rt_long)(INF | SIGN)), dflt },
		{ "0 * -inf", (uint64_t)rt_fp_mul(NULL, 0, (rt_long)(INF | SIGN)), dflt },
		{ "0 / 0", (uint64_t)rt_fp_div(NULL, 0, 0), dflt },
		{ "inf / inf", (uint64_t)rt_fp_div(NULL, (rt_long)INF, (rt_long)INF), dflt },
		{ "rem(inf, 1)", (uint64_t)rt_fp_rem(NULL, (rt_long)INF, (rt_long)one), dflt },
		{ "rem(1, 0)", (uint64_t)rt_fp_rem(NULL, (rt_long)one, 0), dflt },
		{ "sqrt(-1)", (uint64_t)rt_fp_sqrt(NULL, (rt_long)(one | SIGN)), dflt },
		{ "q1 + q2", (uint64_t)rt_fp_add(NULL, (rt_long)q1, (rt_long)q2), q1 },
		{ "q2 * q1", (uint64_t)rt_fp_mul(NULL, (rt_long)q2, (rt_long)q1), q2 },
		{ "q1 - s1", (uint64_t)rt_fp_sub(NULL, (rt_long)q1, (rt_long)s1), s1 | 1ULL << 51 },
		{ "1 / s1", (uint64_t)rt_fp_div(NULL, (rt_long)one, (rt_long)s1), s1 | 1ULL << 51 },
		{ "rem(q2, 1)", (uint64_t)rt_fp_rem(NULL, (rt_long)q2, (rt_long)one), q2 },
		{ "sqrt(s1)", (uint64_t)rt_fp_sqrt(NULL, (rt_long)s1), s1 | 1ULL << 51 },
		{ "sqrt(q2)", (uint64_t)rt_fp_sqrt(NULL, (rt_long)q2), q2 },
		{ "fp32 0xff800001", (uint64_t)rt_fp32_to_fp64(NULL, 0xff800001), 0xfff8000020000000ULL },
	};
	int bad = 0;

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++)
		if (cases[i].got != cases[i].want) {
			bad++;
			printf("# %s = %#018llx, expected %#018llx\n", cases[i].what,
			       (unsigned long long)cases[i].got, (unsigned long long)cases[i].want);
		}
	tap_check(!bad, "%zu NaN results as SystemTap's SoftFloat gives them (its default NaN "
		  "0x7ff8000000000000; a signaling operand before a quiet one, else the first, "
		  "quieted)", ARRAY_SIZE(cases));
}

int main(void)
{
	for (int op = 0; op < NOPS; op++)
		check_binary((enum op)op);
	check_sqrt();
	check_nans();
	check_compare();
	check_long_to_fp();
	check_fp32();
	check_to_long();
	check_string_to_fp();
	check_to_string();
	return tap_done();
}
