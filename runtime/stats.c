// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Statistics: what '<<<' adds to. A statistic keeps a count, sum, minimum
 * and maximum, the sum of squares only when @variance is used, and the
 * buckets of its one histogram when it has one. Each CPU adds to its own
 * copy under a shared lock; reading one merges the copies (under the
 * exclusive lock), so adding never contends between CPUs.
 *
 * @variance is exact (from the 128-bit sum of squares), truncated to an
 * integer; SystemTap's incremental integer estimate can differ from it by
 * a few units, and its bit-shift argument, which buys that estimate
 * precision, is accepted and not needed here.
 *
 * Histograms are drawn as SystemTap draws them: the same buckets, the same
 * 50-column bars, the same elision of long zero runs, so output can be
 * compared line by line.
 */
#include <linux/math64.h>
#include <linux/percpu.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "runtime.h"
#include "stats.h"

#define RT_HIST_LOG_BUCKETS 128
#define RT_HIST_LOG_ZERO 64 /* the bucket of 0: negative values below, positive above */
#define RT_HIST_WIDTH 50
#define RT_HIST_MARGIN 2    /* empty rows shown before and after the data */

int rt_stat_nbuckets(const struct rt_stat_desc *d)
{
	switch (d->hist) {
	case RT_HIST_LINEAR:
		/* One below start and one at or above stop, too. */
		return (int)div64_s64(d->stop - d->start, d->interval) + 3;
	case RT_HIST_LOG:
		return RT_HIST_LOG_BUCKETS;
	}
	return 0;
}

size_t rt_stat_size(const struct rt_stat_desc *d)
{
	return sizeof(struct rt_stat) + rt_stat_nbuckets(d) * sizeof(s64);
}

void rt_stat_clear(const struct rt_stat_desc *d, struct rt_stat *st)
{
	memset(st, 0, rt_stat_size(d));
}

/* 64 + the bit length of v for v > 0, 64 - that of -v for v < 0. */
static int rt_log_bucket(s64 v)
{
	u64 mag;
	int len;

	if (v == 0)
		return RT_HIST_LOG_ZERO;
	mag = v < 0 ? 0 - (u64)v : (u64)v;
	len = 64 - __builtin_clzll(mag);
	if (v > 0)
		return min(RT_HIST_LOG_ZERO + len, RT_HIST_LOG_BUCKETS - 1);
	return RT_HIST_LOG_ZERO - len;
}

/* The smallest value a log bucket holds (its label). */
static s64 rt_log_bucket_value(int b)
{
	if (b == RT_HIST_LOG_ZERO)
		return 0;
	if (b > RT_HIST_LOG_ZERO)
		return (s64)(1ULL << (b - RT_HIST_LOG_ZERO - 1));
	return (s64)(~0ULL << (63 - b)); /* bucket 63 holds -1, 62 holds -3..-2, ... */
}

static int rt_linear_bucket(const struct rt_stat_desc *d, s64 v, int nbuckets)
{
	u64 off;

	if (v < d->start)
		return 0;
	off = div64_u64((u64)v - (u64)d->start, (u64)d->interval) + 1;
	return off >= (u64)nbuckets - 1 ? nbuckets - 1 : (int)off;
}

void rt_stat_add_more(const struct rt_stat_desc *d, struct rt_stat *st, s64 v)
{
	if (d->ops & RT_STAT_VARIANCE) {
		u64 mag = v < 0 ? 0 - (u64)v : (u64)v;
		unsigned __int128 acc = ((unsigned __int128)st->sq_hi << 64 | st->sq_lo) +
					(unsigned __int128)mag * mag;

		st->sq_lo = (u64)acc;
		st->sq_hi = (u64)(acc >> 64);
	}
	if (d->hist == RT_HIST_LOG)
		st->buckets[rt_log_bucket(v)]++;
	else if (d->hist == RT_HIST_LINEAR)
		st->buckets[rt_linear_bucket(d, v, rt_stat_nbuckets(d))]++;
}

void rt_stat_merge(const struct rt_stat_desc *d, struct rt_stat *into, const struct rt_stat *from)
{
	int i, n = rt_stat_nbuckets(d);
	unsigned __int128 a, b;

	if (from->count == 0)
		return;
	if (into->count == 0) {
		into->min = from->min;
		into->max = from->max;
	} else {
		into->min = min(into->min, from->min);
		into->max = max(into->max, from->max);
	}
	into->count += from->count;
	into->sum = (s64)((u64)into->sum + (u64)from->sum);
	a = (unsigned __int128)into->sq_hi << 64 | into->sq_lo;
	b = (unsigned __int128)from->sq_hi << 64 | from->sq_lo;
	a += b;
	into->sq_lo = (u64)a;
	into->sq_hi = (u64)(a >> 64);
	for (i = 0; i < n; i++)
		into->buckets[i] += from->buckets[i];
}

/* n / d in 128 bits (d > 0), by long division: the kernel has no __udivti3. */
static unsigned __int128 rt_div128(unsigned __int128 n, u64 d, u64 *rem)
{
	unsigned __int128 q = 0, r = 0;
	int i;

	for (i = 127; i >= 0; i--) {
		r = r << 1 | ((n >> i) & 1);
		if (r >= d) {
			r -= d;
			q |= (unsigned __int128)1 << i;
		}
	}
	*rem = (u64)r;
	return q;
}

/* The sample variance, (sum of squares - sum^2 / n) / (n - 1), truncated. */
static s64 rt_variance(const struct rt_stat *st)
{
	unsigned __int128 sq = (unsigned __int128)st->sq_hi << 64 | st->sq_lo;
	u64 n = (u64)st->count, mag = st->sum < 0 ? 0 - (u64)st->sum : (u64)st->sum, rem;
	unsigned __int128 s2, q;

	if (st->count < 2)
		return 0;
	s2 = (unsigned __int128)mag * mag;
	q = rt_div128(s2, n, &rem);
	/* floor(sq - s2 / n) = sq - ceil(s2 / n) */
	q += rem != 0;
	if (q > sq)
		return 0;
	q = rt_div128(sq - q, n - 1, &rem);
	return q > (unsigned __int128)S64_MAX ? S64_MAX : (s64)q;
}

s64 rt_stat_sort_value(const struct rt_stat *st, enum rt_agg agg)
{
	switch (agg) {
	case RT_AGG_COUNT:
		return st->count;
	case RT_AGG_SUM:
		return st->sum;
	case RT_AGG_MIN:
		return st->count ? st->min : 0;
	case RT_AGG_MAX:
		return st->count ? st->max : 0;
	case RT_AGG_AVG:
		return st->count ? div64_s64(st->sum, st->count) : 0;
	case RT_AGG_VARIANCE:
		return rt_variance(st);
	}
	return 0;
}

s64 rt_stat_value(struct rt_context *c, const struct rt_stat_desc *d, const struct rt_stat *st,
		  enum rt_agg agg, const char *what, const char *loc)
{
	/* As in SystemTap, only @count means something for no values. */
	if (st->count == 0 && agg != RT_AGG_COUNT) {
		rt_fail(c, what, loc);
		return 0;
	}
	return rt_stat_sort_value(st, agg);
}

/* --- drawing a histogram --- */

static int rt_digits(s64 v)
{
	u64 m = v < 0 ? 0 - (u64)v : (u64)v;
	int n = v < 0 ? 1 : 0;

	do {
		n++;
		m = div_u64(m, 10);
	} while (m);
	return n;
}

struct rt_draw {
	void (*out)(void *ctx, const char *text, size_t len);
	void *ctx;
};

static void rt_draw_printf(struct rt_draw *dr, const char *fmt, ...) __printf(2, 3);

static void rt_draw_printf(struct rt_draw *dr, const char *fmt, ...)
{
	char line[96];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vscnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	dr->out(dr->ctx, line, n);
}

static void rt_draw_fill(struct rt_draw *dr, char ch, int n)
{
	char run[RT_HIST_WIDTH];

	memset(run, ch, sizeof(run));
	while (n > 0) {
		int k = min_t(int, n, sizeof(run));

		dr->out(dr->ctx, run, k);
		n -= k;
	}
}

static s64 rt_bucket_label(const struct rt_stat_desc *d, int b, int nbuckets, const char **prefix)
{
	*prefix = "";
	if (d->hist == RT_HIST_LOG)
		return rt_log_bucket_value(b);
	if (b == 0) {
		*prefix = "<";
		return d->start;
	}
	if (b == nbuckets - 1) {
		*prefix = ">";
		return d->start + (s64)(b - 2) * d->interval;
	}
	return d->start + (s64)(b - 1) * d->interval;
}

void rt_stat_draw(const struct rt_stat_desc *d, const struct rt_stat *st,
		  void (*out)(void *ctx, const char *text, size_t len), void *ctx)
{
	struct rt_draw dr = { out, ctx };
	int nb = rt_stat_nbuckets(d), low = -1, high = 0, i, k, val_space, cnt_space;
	int under = 0, over = 0, eliding = 0;
	/* HIST_ELISION: empty rows kept next to data; negative keeps them all. */
	int elision = (int)min_t(s64, rt_script.hist_elision, nb);
	s64 peak = 0, scale;

	for (i = 0; i < nb; i++) {
		if (st->buckets[i] > 0) {
			if (low < 0)
				low = i;
			high = i;
		}
		peak = max(peak, st->buckets[i]);
	}
	if (low < 0) {
		/* Nothing recorded: the header alone. */
		rt_draw_printf(&dr, "%5s |", "value");
		rt_draw_fill(&dr, '-', RT_HIST_WIDTH);
		rt_draw_printf(&dr, " count\n\n");
		return;
	}
	/* Up to two empty rows on each side of the data; a log histogram
	 * goes below 0 only when it holds negative values. */
	for (i = 0; i < RT_HIST_MARGIN; i++) {
		if (low > 0 && (d->hist != RT_HIST_LOG || low != RT_HIST_LOG_ZERO))
			low--;
		if (high < nb - 1)
			high++;
	}
	if (d->hist == RT_HIST_LINEAR) {
		/* The under- and overflow rows only when they hold something. */
		if (low == 0 && st->buckets[0] == 0)
			low++;
		if (high == nb - 1 && st->buckets[high] == 0)
			high--;
		under = low == 0;
		over = high == nb - 1;
	}
	scale = peak <= RT_HIST_WIDTH ? 1 : div64_s64(peak + RT_HIST_WIDTH - 1, RT_HIST_WIDTH);
	cnt_space = rt_digits(peak);
	if (d->hist == RT_HIST_LINEAR)
		val_space = max(rt_digits(d->start) + under,
				rt_digits(d->start + d->interval * high) + over);
	else
		val_space = max(rt_digits(rt_log_bucket_value(high)),
				rt_digits(rt_log_bucket_value(low)));
	val_space = max(val_space, 5); /* as wide as "value" */

	rt_draw_printf(&dr, "%*s |", val_space, "value");
	rt_draw_fill(&dr, '-', RT_HIST_WIDTH);
	rt_draw_printf(&dr, " count\n");
	for (i = low; i <= high; i++) {
		int from = max(low, i - elision), to = min(high, i + elision);
		int empty = elision >= 0, bar;
		const char *prefix;
		s64 label;

		/* A zero row whose neighbours are zero too is left out, and the
		 * gap marked with '~' before the next row shown. */
		for (k = from; empty && k <= to; k++)
			if (st->buckets[k])
				empty = 0;
		if (empty) {
			eliding = 1;
			continue;
		}
		if (eliding) {
			rt_draw_printf(&dr, "%*s ~\n", val_space, "");
			eliding = 0;
		}
		label = rt_bucket_label(d, i, nb, &prefix);
		rt_draw_printf(&dr, "%*s%lld |", val_space - rt_digits(label), prefix, label);
		bar = (int)div64_s64(st->buckets[i], scale);
		rt_draw_fill(&dr, '@', bar);
		rt_draw_printf(&dr, "%*lld\n", RT_HIST_WIDTH - bar + 1 + cnt_space, st->buckets[i]);
	}
	rt_draw_printf(&dr, "\n");
}

/* --- scalar statistics, one copy per CPU --- */

struct rt_stats {
	const struct rt_stat_desc *d;
	void __percpu *cpu;
};

struct rt_stats *rt_stats_new(const struct rt_stat_desc *d)
{
	struct rt_stats *s = kzalloc(sizeof(*s), GFP_KERNEL);

	if (!s)
		return NULL;
	s->d = d;
	s->cpu = __alloc_percpu(rt_stat_size(d), 8);
	if (!s->cpu) {
		kfree(s);
		return NULL;
	}
	return s;
}

void rt_stats_free(struct rt_stats *s)
{
	if (!s)
		return;
	free_percpu(s->cpu);
	kfree(s);
}

void rt_stats_add(struct rt_context *c, struct rt_stats *s, rt_long v)
{
	rt_stat_add_value(s->d, this_cpu_ptr(s->cpu), v);
}

/* Every CPU's copy merged into this CPU's scratch statistic. */
static struct rt_stat *rt_stats_merged(struct rt_context *c, struct rt_stats *s)
{
	struct rt_stat *sum = rt_stat_scratch(c);
	int cpu;

	rt_stat_clear(s->d, sum);
	for_each_possible_cpu(cpu)
		rt_stat_merge(s->d, sum, per_cpu_ptr(s->cpu, cpu));
	return sum;
}

rt_long rt_stats_get(struct rt_context *c, struct rt_stats *s, enum rt_agg agg, const char *loc)
{
	return rt_stat_value(c, s->d, rt_stats_merged(c, s), agg, "empty aggregate", loc);
}

void rt_stats_clear(struct rt_context *c, struct rt_stats *s)
{
	int cpu;

	for_each_possible_cpu(cpu)
		rt_stat_clear(s->d, per_cpu_ptr(s->cpu, cpu));
}

/* --- histograms: printing and buckets --- */

/* The statistic a histogram draws: merged, or NULL (and the hit failed). */
static struct rt_stat *rt_hist_stat(struct rt_context *c, const struct rt_hist_src *h,
				    const struct rt_stat_desc **d, const char *loc)
{
	if (h->map)
		return rt_map_merged_stat(c, h->map, h->keys, d, loc);
	*d = h->stats->d;
	return rt_stats_merged(c, h->stats);
}

static void rt_hist_out(void *ctx, const char *text, size_t len)
{
	rt_out_write(ctx, text, len);
}

void rt_hist_print(struct rt_context *c, const struct rt_hist_src *h)
{
	const struct rt_stat_desc *d;
	struct rt_stat *st = rt_hist_stat(c, h, &d, "histogram");

	if (st)
		rt_stat_draw(d, st, rt_hist_out, container_of(c, struct rt_cpu, c));
}

struct rt_sbuf {
	char *buf;
	size_t size, len;
};

static void rt_sbuf_out(void *ctx, const char *text, size_t len)
{
	struct rt_sbuf *b = ctx;
	size_t room = b->size - 1 - b->len;

	if (len > room)
		len = room;
	memcpy(b->buf + b->len, text, len);
	b->len += len;
	b->buf[b->len] = 0;
}

void rt_hist_sprint(struct rt_context *c, char *buf, rt_size size, const struct rt_hist_src *h)
{
	const struct rt_stat_desc *d;
	struct rt_sbuf b = { buf, size, 0 };
	struct rt_stat *st;

	buf[0] = 0;
	st = rt_hist_stat(c, h, &d, "histogram");
	if (st)
		rt_stat_draw(d, st, rt_sbuf_out, &b);
}

rt_long rt_hist_bucket(struct rt_context *c, const struct rt_hist_src *h, rt_long bucket,
		       const char *loc)
{
	const struct rt_stat_desc *d;
	struct rt_stat *st = rt_hist_stat(c, h, &d, loc);
	int n;

	if (!st)
		return 0;
	n = rt_stat_nbuckets(d);
	if (bucket < 0 || bucket >= n) {
		rt_failf(c, loc, NULL, "histogram bucket %lld is out of range (0 to %d)", bucket, n - 1);
		return 0;
	}
	return st->buckets[bucket];
}

rt_long rt_hist_buckets(struct rt_context *c, const struct rt_hist_src *h)
{
	const struct rt_stat_desc *d = h->map ? rt_map_stat_desc(h->map) : h->stats->d;

	return rt_stat_nbuckets(d);
}
