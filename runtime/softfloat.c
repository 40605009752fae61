// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * SystemTap's floating-point functions (its tapset floatingpoint.stp):
 * IEEE 754 binary64 values kept bit for bit in a script's 64-bit numbers,
 * computed in integers, since kernel code may not touch the FPU.
 *
 * Every operation rounds as the hardware does by default (to nearest,
 * ties to even) and handles zeros of either sign, subnormals, infinities
 * and NaNs as IEEE 754 says: the results are bit for bit those of an
 * x86-64 CPU's SSE2 arithmetic, except which NaN an invalid operation
 * gives (0x7ff8000000000000, SystemTap's default NaN, where x86 gives
 * 0xfff8000000000000) and which of two NaN operands is passed on
 * (quieted: a signaling one before a quiet one, else the first, where
 * x86 takes the first): SystemTap's SoftFloat's choices, so the bits are
 * SystemTap's too. testsuite/unit/softfloat-test.c checks it all against
 * the host's hardware.
 *
 * Conversions to and from text follow SystemTap's behaviour where it is
 * sane; where SystemTap's own code gives garbage or its comments promise
 * something else, the comment on each function says what is done here.
 *
 * This file is compiled both into the kernel runtime and into a host unit
 * test: it includes nothing but api.h (itself free of kernel and C library
 * headers), uses no floating point, no recursion, no static mutable state
 * and at most a few hundred bytes of stack.
 */
#include "api.h"

typedef unsigned long long fp_u64;
typedef unsigned int fp_u32;

#define FP_SIGN 0x8000000000000000ULL
#define FP_INF 0x7ff0000000000000ULL
#define FP_QUIET 0x0008000000000000ULL
#define FP_FRAC ((1ULL << 52) - 1)
#define FP_HIDDEN (1ULL << 52)
/* What an invalid operation gives (0/0, inf - inf, sqrt(-1), ...). */
#define FP_DEFAULT_NAN 0x7ff8000000000000ULL

static int fp_is_nan(fp_u64 a)
{
	return (a & ~FP_SIGN) > FP_INF;
}

static int fp_is_inf(fp_u64 a)
{
	return (a & ~FP_SIGN) == FP_INF;
}

static int fp_is_zero(fp_u64 a)
{
	return !(a & ~FP_SIGN);
}

static int fp_is_signaling(fp_u64 a)
{
	return fp_is_nan(a) && !(a & FP_QUIET);
}

/* The result of an operation with a NaN operand, as SoftFloat chooses it:
 * a signaling NaN before a quiet one, else the first, quieted. */
static fp_u64 fp_nan_of(fp_u64 a, fp_u64 b)
{
	if (fp_is_signaling(a) || fp_is_signaling(b))
		return (fp_is_signaling(a) ? a : b) | FP_QUIET;
	return (fp_is_nan(a) ? a : b) | FP_QUIET;
}

/* x shifted right n bits, any bit shifted out kept in bit 0 ("sticky"),
 * so that rounding still sees that the value was above the truncation. */
static fp_u64 fp_shift_right_sticky(fp_u64 x, int n)
{
	if (n <= 0)
		return x;
	if (n >= 64)
		return x != 0;
	return (x >> n) | ((x << (64 - n)) != 0);
}

/*
 * The internal form of a finite nonzero value: a significand sig and an
 * exponent e with value = sig * 2^(e - 1085). A normalized sig has its
 * leading one at bit 62: then e is the biased exponent field the value
 * would have, sig's bits 61..10 its fraction, and bits 9..0 (with bit 0
 * also standing for anything lower) what rounding looks at.
 */

/* Round sig (leading one at bit 62, or lower for a value that may be
 * subnormal) to nearest-even and pack it; e may be out of range. */
static fp_u64 fp_round_pack(int sign, int e, fp_u64 sig)
{
	fp_u64 rest, m;

	if (e >= 0x7ff)
		return (sign ? FP_SIGN : 0) | FP_INF;
	if (e <= 0) {
		/* Subnormal: scaled to exponent 1, encoded with field 0. */
		sig = fp_shift_right_sticky(sig, 1 - e);
		e = 1;
	}
	rest = sig & 0x3ff;
	m = sig >> 10;
	if (rest > 0x200 || (rest == 0x200 && (m & 1)))
		m++;
	/* m's bit 52 (the hidden one) adds 1 to the field e - 1; rounding up
	 * into bit 53 carries into the next exponent, up to infinity, and a
	 * subnormal rounding up to 2^52 becomes the smallest normal. */
	return (sign ? FP_SIGN : 0) + ((fp_u64)(e - 1) << 52) + m;
}

/* The same for any sig: normalized first (0 gives a zero of that sign). */
static fp_u64 fp_norm_round_pack(int sign, int e, fp_u64 sig)
{
	int lead;

	if (!sig)
		return sign ? FP_SIGN : 0;
	lead = 63 - __builtin_clzll(sig);
	if (lead == 63)
		return fp_round_pack(sign, e + 1, fp_shift_right_sticky(sig, 1));
	return fp_round_pack(sign, e - (62 - lead), sig << (62 - lead));
}

/* A finite nonzero value's exponent field and 53-bit significand (bit 52
 * set), a subnormal's normalized: value = m * 2^(e - 1075). */
static void fp_unpack(fp_u64 a, int *e, fp_u64 *m)
{
	int field = (int)((a >> 52) & 0x7ff);
	fp_u64 frac = a & FP_FRAC;

	if (field) {
		*e = field;
		*m = frac | FP_HIDDEN;
	} else {
		int s = __builtin_clzll(frac) - 11;

		*e = 1 - s;
		*m = frac << s;
	}
}

/* The 128-bit product of a and b. */
static void fp_mul64(fp_u64 a, fp_u64 b, fp_u64 *hi, fp_u64 *lo)
{
	fp_u64 al = (fp_u32)a, ah = a >> 32, bl = (fp_u32)b, bh = b >> 32;
	fp_u64 ll = al * bl, lh = al * bh, hl = ah * bl, hh = ah * bh;
	fp_u64 mid = (ll >> 32) + (fp_u32)lh + (fp_u32)hl;

	*lo = (mid << 32) | (fp_u32)ll;
	*hi = hh + (lh >> 32) + (hl >> 32) + (mid >> 32);
}

static fp_u64 fp_add_bits(fp_u64 a, fp_u64 b)
{
	int sa, sb, ea, eb;
	fp_u64 ma, mb, siga, sigb;

	if (fp_is_nan(a) || fp_is_nan(b))
		return fp_nan_of(a, b);
	sa = (int)(a >> 63);
	sb = (int)(b >> 63);
	if (fp_is_inf(a))
		return fp_is_inf(b) && sa != sb ? FP_DEFAULT_NAN : a;
	if (fp_is_inf(b))
		return b;
	if (fp_is_zero(a))
		return fp_is_zero(b) ? (sa && sb ? FP_SIGN : 0) : b;
	if (fp_is_zero(b))
		return a;
	fp_unpack(a, &ea, &ma);
	fp_unpack(b, &eb, &mb);
	if (ea < eb || (ea == eb && ma < mb)) {
		/* The larger magnitude first: its sign is the result's. */
		int t = ea;
		fp_u64 u = ma;

		ea = eb;
		eb = t;
		ma = mb;
		mb = u;
		t = sa;
		sa = sb;
		sb = t;
	}
	siga = ma << 10;
	/* The smaller aligned, with 10 guard bits and a sticky bit: a
	 * difference then cancels at most one bit where bits were lost, and
	 * rounds as the exact one would. */
	sigb = fp_shift_right_sticky(mb << 10, ea - eb);
	if (sa == sb)
		return fp_norm_round_pack(sa, ea, siga + sigb);
	if (siga == sigb)
		return 0; /* x - x is +0 when rounding to nearest */
	return fp_norm_round_pack(sa, ea, siga - sigb);
}

static fp_u64 fp_mul_bits(fp_u64 a, fp_u64 b)
{
	int sign = (int)((a ^ b) >> 63), ea, eb;
	fp_u64 ma, mb, hi, lo;

	if (fp_is_nan(a) || fp_is_nan(b))
		return fp_nan_of(a, b);
	if (fp_is_inf(a) || fp_is_inf(b)) {
		if (fp_is_zero(a) || fp_is_zero(b))
			return FP_DEFAULT_NAN;
		return (sign ? FP_SIGN : 0) | FP_INF;
	}
	if (fp_is_zero(a) || fp_is_zero(b))
		return sign ? FP_SIGN : 0;
	fp_unpack(a, &ea, &ma);
	fp_unpack(b, &eb, &mb);
	/* 2^104 <= ma * mb < 2^106: its top 64 bits (from bit 42) with the
	 * rest as the sticky bit, value = that * 2^(ea + eb - 2108). */
	fp_mul64(ma, mb, &hi, &lo);
	return fp_norm_round_pack(sign, ea + eb - 1023,
				  (hi << 22) | (lo >> 42) | ((lo & ((1ULL << 42) - 1)) != 0));
}

static fp_u64 fp_div_bits(fp_u64 a, fp_u64 b)
{
	int sign = (int)((a ^ b) >> 63), ea, eb, e, i;
	fp_u64 ma, mb, r, q = 0;

	if (fp_is_nan(a) || fp_is_nan(b))
		return fp_nan_of(a, b);
	if (fp_is_inf(a))
		return fp_is_inf(b) ? FP_DEFAULT_NAN : (sign ? FP_SIGN : 0) | FP_INF;
	if (fp_is_inf(b))
		return sign ? FP_SIGN : 0;
	if (fp_is_zero(b))
		return fp_is_zero(a) ? FP_DEFAULT_NAN : (sign ? FP_SIGN : 0) | FP_INF;
	if (fp_is_zero(a))
		return sign ? FP_SIGN : 0;
	fp_unpack(a, &ea, &ma);
	fp_unpack(b, &eb, &mb);
	e = ea - eb + 1023;
	r = ma;
	if (r < mb) {
		r <<= 1;
		e--;
	}
	/* mb <= r < 2 mb: 63 quotient bits, the first one set. */
	for (i = 62; i >= 0; i--) {
		if (r >= mb) {
			r -= mb;
			q |= 1ULL << i;
		}
		r <<= 1;
	}
	return fp_round_pack(sign, e, q | (r != 0));
}

static fp_u64 fp_sqrt_bits(fp_u64 a)
{
	int e, x, bit;
	fp_u64 m, root = 0, hi, lo, nhi;

	if (fp_is_nan(a))
		return a | FP_QUIET;
	if (fp_is_zero(a))
		return a;
	if (a & FP_SIGN)
		return FP_DEFAULT_NAN;
	if (fp_is_inf(a))
		return a;
	fp_unpack(a, &e, &m);
	x = e - 1075; /* a = m * 2^x */
	if (x & 1) {
		m <<= 1;
		x--;
	}
	/* N = m * 2^72 (m < 2^54, so N's high word is m << 8, its low 0):
	 * floor(sqrt(N)) has its leading one at bit 62; the root is found a
	 * bit at a time, and an inexact one gets the sticky bit. */
	nhi = m << 8;
	for (bit = 62; bit >= 0; bit--) {
		fp_u64 t = root | (1ULL << bit);

		fp_mul64(t, t, &hi, &lo);
		if (hi < nhi || (hi == nhi && lo == 0))
			root = t;
	}
	fp_mul64(root, root, &hi, &lo);
	/* sqrt(a) = sqrt(N) * 2^(x/2 - 36) */
	return fp_round_pack(0, x / 2 + 1049, root | (hi != nhi || lo != 0));
}

/* IEEE 754's remainder: a - n * b with n the integer nearest a / b (the
 * even one on a tie), always exact; C's remainder(), SoftFloat's f64_rem. */
static fp_u64 fp_rem_bits(fp_u64 a, fp_u64 b)
{
	int sa = (int)(a >> 63), ea, eb, d, odd, flip = 0;
	fp_u64 ma, mb, r;

	if (fp_is_nan(a) || fp_is_nan(b))
		return fp_nan_of(a, b);
	if (fp_is_inf(a) || fp_is_zero(b))
		return FP_DEFAULT_NAN;
	if (fp_is_inf(b) || fp_is_zero(a))
		return a;
	fp_unpack(a, &ea, &ma);
	fp_unpack(b, &eb, &mb);
	d = ea - eb;
	if (d < -1)
		return a; /* |a| < |b| / 2: n is 0 */
	if (d == -1) {
		/* a / b = ma / (2 mb), in [1/4, 1): n is 1 when it is above 1/2. */
		if (ma <= mb)
			return a;
		return fp_norm_round_pack(!sa, eb + 9, 2 * mb - ma);
	}
	/* r = (ma * 2^d) mod mb, a bit at a time; odd: the quotient's parity. */
	r = ma;
	odd = 0;
	if (r >= mb) {
		r -= mb;
		odd = 1;
	}
	while (d-- > 0) {
		r <<= 1;
		odd = r >= mb;
		if (odd)
			r -= mb;
	}
	if (2 * r > mb || (2 * r == mb && odd)) {
		r = mb - r;
		flip = 1;
	}
	if (!r)
		return sa ? FP_SIGN : 0;
	return fp_norm_round_pack(sa ^ flip, eb + 10, r);
}

rt_long rt_fp_add(struct rt_context *c, rt_long a, rt_long b)
{
	return (rt_long)fp_add_bits((fp_u64)a, (fp_u64)b);
}

rt_long rt_fp_sub(struct rt_context *c, rt_long a, rt_long b)
{
	fp_u64 ub = (fp_u64)b;

	/* a - b is a + (-b); a NaN b is passed on as it is. */
	return (rt_long)fp_add_bits((fp_u64)a, fp_is_nan(ub) ? ub : ub ^ FP_SIGN);
}

rt_long rt_fp_mul(struct rt_context *c, rt_long a, rt_long b)
{
	return (rt_long)fp_mul_bits((fp_u64)a, (fp_u64)b);
}

rt_long rt_fp_div(struct rt_context *c, rt_long a, rt_long b)
{
	return (rt_long)fp_div_bits((fp_u64)a, (fp_u64)b);
}

rt_long rt_fp_rem(struct rt_context *c, rt_long a, rt_long b)
{
	return (rt_long)fp_rem_bits((fp_u64)a, (fp_u64)b);
}

rt_long rt_fp_sqrt(struct rt_context *c, rt_long a)
{
	return (rt_long)fp_sqrt_bits((fp_u64)a);
}

/* Comparisons: a NaN is unordered, every one of them false; -0 == +0. */
rt_long rt_fp_eq(struct rt_context *c, rt_long a, rt_long b)
{
	fp_u64 ua = (fp_u64)a, ub = (fp_u64)b;

	if (fp_is_nan(ua) || fp_is_nan(ub))
		return 0;
	return ua == ub || !((ua | ub) << 1);
}

rt_long rt_fp_lt(struct rt_context *c, rt_long a, rt_long b)
{
	fp_u64 ua = (fp_u64)a, ub = (fp_u64)b;

	if (fp_is_nan(ua) || fp_is_nan(ub))
		return 0;
	if ((ua ^ ub) & FP_SIGN)
		return (ua & FP_SIGN) && ((ua | ub) << 1);
	return ua & FP_SIGN ? ua > ub : ua < ub;
}

rt_long rt_fp_le(struct rt_context *c, rt_long a, rt_long b)
{
	fp_u64 ua = (fp_u64)a, ub = (fp_u64)b;

	if (fp_is_nan(ua) || fp_is_nan(ub))
		return 0;
	if ((ua ^ ub) & FP_SIGN)
		return (ua & FP_SIGN) || !((ua | ub) << 1);
	return ua & FP_SIGN ? ua >= ub : ua <= ub;
}

/* n, rounded to nearest-even where it has more than 53 significant bits. */
rt_long rt_long_to_fp(struct rt_context *c, rt_long n)
{
	int sign = n < 0;
	fp_u64 mag = sign ? 0 - (fp_u64)n : (fp_u64)n;

	return (rt_long)fp_norm_round_pack(sign, 1085, mag);
}

/* The low 32 bits as a binary32 value, widened (always exactly). */
rt_long rt_fp32_to_fp64(struct rt_context *c, rt_long n)
{
	fp_u32 x = (fp_u32)n;
	int sign = (int)(x >> 31), field = (int)((x >> 23) & 0xff);
	fp_u64 frac = x & 0x7fffff;

	if (field == 0xff) {
		if (!frac)
			return (rt_long)((sign ? FP_SIGN : 0) | FP_INF);
		/* A NaN keeps its sign and payload, quieted. */
		return (rt_long)((sign ? FP_SIGN : 0) | FP_DEFAULT_NAN | (frac << 29));
	}
	if (!field)
		return (rt_long)fp_norm_round_pack(sign, 936, frac); /* frac * 2^-149 */
	return (rt_long)fp_norm_round_pack(sign, field + 935, frac | 0x800000);
}

/*
 * fp_to_long(infp, roundingMode, exact): SystemTap's (SoftFloat's) modes
 * are 0 to nearest, ties to even; 1 toward zero; 2 down; 3 up; 4 to
 * nearest, ties away from zero; 6 to odd (an inexact result's magnitude
 * made odd, as SystemTap documents; its build leaves SoftFloat's round to
 * odd out, so 6 truncates there). Any other mode truncates, as in
 * SystemTap. As SystemTap's: a NaN gives 0, a value out of range (an
 * infinity too) the nearest of -2^63 and 2^63 - 1. exact only makes
 * SoftFloat raise its inexact flag, which nothing reads: it changes
 * nothing.
 */
rt_long rt_fp_to_long(struct rt_context *c, rt_long infp, rt_long mode, rt_long exact)
{
	fp_u64 a = (fp_u64)infp, m, ipart, rem = 0, half = 0, limit;
	int sign = (int)(a >> 63), field = (int)((a >> 52) & 0x7ff), shift, up = 0;

	if (fp_is_nan(a))
		return 0;
	limit = sign ? FP_SIGN : FP_SIGN - 1;
	if (field == 0x7ff)
		return (rt_long)limit;
	m = (a & FP_FRAC) | (field ? FP_HIDDEN : 0);
	shift = 1075 - (field ? field : 1); /* |a| = m / 2^shift */
	if (shift <= 0) {
		if (shift < -11)
			return (rt_long)limit;
		ipart = m << -shift;
	} else if (shift >= 64) {
		ipart = 0;
		rem = m; /* below 2^-11: never half or more */
	} else {
		ipart = m >> shift;
		rem = m & ((1ULL << shift) - 1);
		half = 1ULL << (shift - 1);
	}
	switch (mode) {
	case 0:
		up = half && (rem > half || (rem == half && (ipart & 1)));
		break;
	case 2:
		up = sign && rem;
		break;
	case 3:
		up = !sign && rem;
		break;
	case 4:
		up = half && rem >= half;
		break;
	case 6:
		if (rem)
			ipart |= 1;
		break;
	default:
		break;
	}
	ipart += up;
	if (ipart > limit)
		return (rt_long)limit;
	return (rt_long)(sign ? 0 - ipart : ipart);
}

/*
 * Big natural numbers for the decimal conversions: 32-bit limbs, least
 * significant first. The largest needed (see rt_string_to_fp) has 1273
 * bits; anything past FP_BIG_LIMBS would be dropped, which the callers'
 * bounds rule out.
 */
#define FP_BIG_LIMBS 42

struct fp_big {
	int n; /* limbs in use: w[n - 1] is not 0, n is 0 for 0 */
	fp_u32 w[FP_BIG_LIMBS];
};

static void big_set(struct fp_big *b, fp_u64 v)
{
	b->n = 0;
	while (v) {
		b->w[b->n++] = (fp_u32)v;
		v >>= 32;
	}
}

static void big_trim(struct fp_big *b)
{
	while (b->n && !b->w[b->n - 1])
		b->n--;
}

/* b = b * mul + add */
static void big_mul_add(struct fp_big *b, fp_u32 mul, fp_u32 add)
{
	fp_u64 carry = add;
	int i;

	for (i = 0; i < b->n; i++) {
		fp_u64 t = (fp_u64)b->w[i] * mul + carry;

		b->w[i] = (fp_u32)t;
		carry = t >> 32;
	}
	if (carry && b->n < FP_BIG_LIMBS)
		b->w[b->n++] = (fp_u32)carry;
}

static const fp_u32 fp_pow10[10] = { 1,	 10,	  100,	    1000,      10000,
				     100000, 1000000, 10000000, 100000000, 1000000000 };

/* b = b * 10^k */
static void big_mul_pow10(struct fp_big *b, int k)
{
	for (; k >= 9; k -= 9)
		big_mul_add(b, fp_pow10[9], 0);
	if (k)
		big_mul_add(b, fp_pow10[k], 0);
}

static int big_bits(const struct fp_big *b)
{
	return b->n ? 32 * b->n - __builtin_clz(b->w[b->n - 1]) : 0;
}

static void big_shift_left(struct fp_big *b, int s)
{
	int limbs = s / 32, bits = s % 32, i, n;

	if (!b->n || s <= 0)
		return;
	n = b->n + limbs + 1;
	if (n > FP_BIG_LIMBS)
		n = FP_BIG_LIMBS;
	for (i = n - 1; i >= 0; i--) {
		int from = i - limbs;
		fp_u64 hi = from >= 0 && from < b->n ? b->w[from] : 0;
		fp_u64 lo = from - 1 >= 0 && from - 1 < b->n ? b->w[from - 1] : 0;

		b->w[i] = (fp_u32)(((hi << 32 | lo) << bits) >> 32);
	}
	b->n = n;
	big_trim(b);
}

static void big_shift_right1(struct fp_big *b)
{
	int i;

	for (i = 0; i < b->n; i++)
		b->w[i] = (b->w[i] >> 1) | (i + 1 < b->n ? b->w[i + 1] << 31 : 0);
	big_trim(b);
}

static int big_cmp(const struct fp_big *a, const struct fp_big *b)
{
	int i;

	if (a->n != b->n)
		return a->n < b->n ? -1 : 1;
	for (i = a->n - 1; i >= 0; i--)
		if (a->w[i] != b->w[i])
			return a->w[i] < b->w[i] ? -1 : 1;
	return 0;
}

/* a = a - b, for a >= b */
static void big_sub(struct fp_big *a, const struct fp_big *b)
{
	fp_u64 borrow = 0;
	int i;

	for (i = 0; i < a->n; i++) {
		fp_u64 t = (fp_u64)a->w[i] - (i < b->n ? b->w[i] : 0) - borrow;

		a->w[i] = (fp_u32)t;
		borrow = (t >> 32) & 1;
	}
	big_trim(a);
}

/* b = b / d; the remainder */
static fp_u32 big_div_small(struct fp_big *b, fp_u32 d)
{
	fp_u64 rem = 0;
	int i;

	for (i = b->n - 1; i >= 0; i--) {
		fp_u64 t = rem << 32 | b->w[i];

		b->w[i] = (fp_u32)(t / d);
		rem = t % d;
	}
	big_trim(b);
	return (fp_u32)rem;
}

/* The first 64 bits of b (its leading one at bit 63) and the exponent
 * that scales them back: b = that * 2^*scale, plus the bits below, whose
 * being nonzero is kept in bit 0. */
static fp_u64 big_top64(const struct fp_big *b, int *scale)
{
	int bits = big_bits(b), i, lowest;
	fp_u64 top = 0, sticky = 0;

	if (bits <= 64) {
		for (i = b->n - 1; i >= 0; i--)
			top = top << 32 | b->w[i];
		*scale = bits - 64;
		return top << (64 - bits);
	}
	/* Bits bits-64 .. bits-1: limbs lowest .. n-1, shifted. */
	lowest = (bits - 64) / 32;
	for (i = b->n - 1; i >= lowest; i--) {
		int pos = 32 * i - (bits - 64); /* where limb i's bit 0 lands */

		if (pos >= 0)
			top |= (fp_u64)b->w[i] << pos;
		else {
			top |= (fp_u64)b->w[i] >> -pos;
			sticky |= b->w[i] & ((1U << -pos) - 1);
		}
	}
	for (i = 0; i < lowest; i++)
		sticky |= b->w[i];
	*scale = bits - 64;
	return top | (sticky != 0);
}

/*
 * string_to_fp(str), as SystemTap reads it: an optional sign, digits, an
 * optional '.' and more digits, an optional exponent ('e' or 'E', an
 * optional sign, digits), and nothing else: no spaces, no "inf" or "nan",
 * no hexadecimal. Like SystemTap, a string without digits ("", ".", "-")
 * reads as a zero, and "1e" as 1. Anything else fails the hit with
 * "invalid format", as SystemTap's does.
 *
 * The result is the nearest double (ties to even; beyond the range,
 * infinity or a zero of the sign), correctly rounded for any input of at
 * most FP_DIGITS significant digits, where SystemTap's repeated
 * multiplications lose a bit or more on many inputs. Digits past the
 * first FP_DIGITS only count as "something more": a longer input whose
 * value lies within 10^-40 (relative) of a point halfway between two
 * doubles may round the wrong way (glibc's strtod would use them all).
 */
#define FP_DIGITS 40

/* 1: s parsed into *out; 0: not a decimal number. */
static int fp_from_decimal(const char *s, fp_u64 *out)
{
	struct fp_big d, v;
	int neg = 0, ndigits = 0, dexp = 0, exp_part = 0, exp_neg = 0, sticky = 0, point = 0;
	int chunk_len = 0, scale, shift;
	fp_u32 chunk = 0;
	fp_u64 sig;
	const char *p = s;

	if (*p == '-' || *p == '+')
		neg = *p++ == '-';
	big_set(&d, 0);
	/* Digits before and after the point: the first FP_DIGITS significant
	 * ones into d, value = d * 10^dexp (and a little more if sticky). */
	for (;; p++) {
		if (*p == '.' && !point) {
			point = 1;
			continue;
		}
		if (*p < '0' || *p > '9')
			break;
		if (*p == '0' && !ndigits) {
			/* A leading zero: after the point it moves the scale. */
			dexp -= point;
			continue;
		}
		if (ndigits < FP_DIGITS) {
			chunk = chunk * 10 + (fp_u32)(*p - '0');
			if (++chunk_len == 9) {
				big_mul_add(&d, fp_pow10[9], chunk);
				chunk = 0;
				chunk_len = 0;
			}
			ndigits++;
			dexp -= point;
		} else {
			sticky |= *p != '0';
			dexp += !point;
		}
	}
	big_mul_add(&d, fp_pow10[chunk_len], chunk);
	if (*p == 'e' || *p == 'E') {
		p++;
		if (*p == '-' || *p == '+')
			exp_neg = *p++ == '-';
		for (; *p >= '0' && *p <= '9'; p++)
			if (exp_part < 100000) /* far past any double's range */
				exp_part = exp_part * 10 + (*p - '0');
	}
	if (*p)
		return 0;
	dexp += exp_neg ? -exp_part : exp_part;
	if (!d.n) {
		*out = neg ? FP_SIGN : 0;
		return 1;
	}
	/* value < 10^(ndigits + dexp); at least 10^(ndigits - 1 + dexp) */
	if (ndigits + dexp > 310) {
		*out = (neg ? FP_SIGN : 0) | FP_INF;
		return 1;
	}
	if (ndigits + dexp < -324) {
		/* below 10^-325, less than half the smallest subnormal */
		*out = neg ? FP_SIGN : 0;
		return 1;
	}
	if (dexp >= 0) {
		/* d * 10^dexp < 10^310: at most 1030 bits. */
		big_mul_pow10(&d, dexp);
		sig = big_top64(&d, &scale);
		*out = fp_norm_round_pack(neg, 1085 + scale, sig | (fp_u64)sticky);
		return 1;
	}
	/* d / 10^k, k = -dexp <= FP_DIGITS + 324 = 364, so 10^k has at most
	 * 1210 bits. The quotient q = d * 2^shift / 10^k is made to fall in
	 * [2^62, 2^64): the numerator then has at most 1273 bits, as has the
	 * divisor shifted left 63 for the long division. */
	big_set(&v, 1);
	big_mul_pow10(&v, -dexp);
	shift = big_bits(&v) - big_bits(&d) + 63;
	if (shift > 0)
		big_shift_left(&d, shift);
	else
		big_shift_left(&v, -shift);
	big_shift_left(&v, 63);
	sig = 0;
	for (scale = 63; scale >= 0; scale--) {
		if (big_cmp(&d, &v) >= 0) {
			big_sub(&d, &v);
			sig |= 1ULL << scale;
		}
		big_shift_right1(&v);
	}
	/* value = (sig + remainder) * 2^-shift */
	*out = fp_norm_round_pack(neg, 1085 - shift, sig | (d.n != 0) | (fp_u64)sticky);
	return 1;
}

rt_long rt_string_to_fp(struct rt_context *c, const char *s, const char *what, const char *loc)
{
	fp_u64 v;

	if (!fp_from_decimal(s, &v)) {
		rt_failf(c, loc, 0, "invalid format: %s wants a decimal number", what);
		return 0;
	}
	return (rt_long)v;
}

/* Text written into a bounded buffer: what does not fit is dropped. */
struct fp_out {
	char *buf;
	rt_size size, pos;
	int full; /* something was dropped */
};

static void out_put(struct fp_out *o, char ch)
{
	if (o->pos + 1 < o->size)
		o->buf[o->pos++] = ch;
	else
		o->full = 1;
}

static void out_str(struct fp_out *o, const char *s)
{
	while (*s)
		out_put(o, *s++);
}

/* Nine digits of a chunk, or all of it without leading zeros (pad 0). */
static void out_chunk(struct fp_out *o, fp_u32 v, int pad)
{
	char tmp[10];
	int n = 0;

	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v || (pad && n < 9));
	while (n)
		out_put(o, tmp[--n]);
}

/* Adds one to the last digit written, from buf[from] on, carrying left
 * past the point; a carry out of the first digit puts a '1' before it. */
static void out_round_up(struct fp_out *o, rt_size from)
{
	rt_size i = o->pos;

	while (i > from) {
		char *ch = &o->buf[--i];

		if (*ch == '.')
			continue;
		if (*ch != '9') {
			(*ch)++;
			return;
		}
		*ch = '0';
	}
	/* All nines: "99.9" becomes "100.0", the last character dropped if
	 * there is no room for one more. */
	if (o->pos + 1 < o->size)
		o->pos++;
	for (i = o->pos - 1; i > from; i--)
		o->buf[i] = o->buf[i - 1];
	o->buf[from] = '1';
}

/*
 * fp_to_string(infp, precision): "-" for a negative value (a negative
 * zero too), the integer part in full, and with precision > 0 a '.' and
 * precision digits, the last rounded half away from zero on the exact
 * binary value: 2.5 is "3" with precision 0, 0.125 "0.13" with 2, 1/3
 * "0.33333" with 5, -0.0 "-0.00" with 2. SystemTap 4.8 prints the same
 * for the values its code handles (|x| from about 2^-8 to 2^53, precision
 * 1 and up, no carry out of the last digit); outside them it prints
 * garbage (0.99999 with precision 4 is "0.99910" there), where this gives
 * the correctly rounded text: "1.0000", every digit of a large or tiny
 * value, "inf", "-inf", "nan" or "-nan". Precision 0 or less means no
 * point and no fraction (C's %.0f, SystemTap still printing one digit
 * after a point). The digits asked for are cut to what fits in the
 * string (MAXSTRINGLEN), the value being rounded where the text ends.
 */
void rt_fp_to_string(struct rt_context *c, char *buf, rt_size size, rt_long infp,
		     rt_long precision)
{
	struct fp_out o = { buf, size, 0, 0 };
	fp_u64 a = (fp_u64)infp, m, frac;
	int field = (int)((a >> 52) & 0x7ff), x, k, limbs, i, round_up = 0;
	rt_size digits_from, want, room;
	struct fp_big b;
	fp_u32 chunks[36];
	int nchunks = 0;

	if (!size)
		return;
	if (a & FP_SIGN)
		out_put(&o, '-');
	if (field == 0x7ff) {
		out_str(&o, a & FP_FRAC ? "nan" : "inf");
		buf[o.pos] = 0;
		return;
	}
	digits_from = o.pos;
	m = (a & FP_FRAC) | (field ? FP_HIDDEN : 0);
	x = (field ? field : 1) - 1075; /* |a| = m * 2^x */
	k = x < 0 ? -x : 0;             /* bits after the point */
	/* The integer part, in chunks of nine digits, lowest first. */
	if (k >= 64)
		big_set(&b, 0);
	else
		big_set(&b, m >> k);
	if (!k)
		big_shift_left(&b, x); /* m * 2^x < 2^1024 */
	do
		chunks[nchunks++] = big_div_small(&b, 1000000000);
	while (b.n && nchunks < 36);
	out_chunk(&o, chunks[nchunks - 1], 0);
	for (i = nchunks - 2; i >= 0; i--)
		out_chunk(&o, chunks[i], 1);
	if (o.full) {
		buf[o.pos] = 0;
		return;
	}
	/* Room for the point, the digits and one more for a carry ("9.9" to
	 * "10.0"). */
	room = o.size - 1 - o.pos;
	want = precision > 0 ? (rt_size)precision : 0;
	if (want && want + 2 > room)
		want = room > 2 ? room - 2 : 0;
	if (want)
		out_put(&o, '.');
	if (k) {
		/* The fraction, as a fixed-point number of limbs limbs with its
		 * point above the top limb: each multiplication by 10 carries
		 * out the next digit. */
		frac = k >= 64 ? m : m & ((1ULL << k) - 1);
		limbs = (k + 31) / 32;
		big_set(&b, frac);
		big_shift_left(&b, 32 * limbs - k);
		for (i = b.n; i < limbs; i++)
			b.w[i] = 0;
		while (want) {
			fp_u64 carry = 0;
			fp_u32 any = 0;

			for (i = 0; i < limbs; i++) {
				fp_u64 t = (fp_u64)b.w[i] * 10 + carry;

				b.w[i] = (fp_u32)t;
				any |= b.w[i];
				carry = t >> 32;
			}
			out_put(&o, (char)('0' + carry));
			want--;
			if (!any)
				break; /* the rest are zeros */
		}
		/* Half or more left: up (half away from zero, as SystemTap). */
		round_up = (int)(b.w[limbs - 1] >> 31);
	}
	while (want-- > 0 && !o.full)
		out_put(&o, '0');
	if (round_up)
		out_round_up(&o, digits_from);
	buf[o.pos] = 0;
}
