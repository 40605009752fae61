/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Statistics inside the runtime: one statistic's numbers (struct rt_stat,
 * followed by its histogram buckets), what stats.c does with them, and the
 * histogram text. Scalar statistics keep one per CPU; arrays of statistics
 * keep one per CPU per element (maps.c).
 */
#ifndef RT_STATS_H
#define RT_STATS_H

#include <linux/types.h>

#include "api.h"

struct rt_stat {
	s64 count, sum, min, max;
	u64 sq_lo, sq_hi; /* the sum of squares, for @variance, 128 bits */
	s64 buckets[];    /* the histogram's, when the statistic has one */
};

/* The buckets of a statistic's histogram (0: none). */
int rt_stat_nbuckets(const struct rt_stat_desc *d);
size_t rt_stat_size(const struct rt_stat_desc *d);

void rt_stat_clear(const struct rt_stat_desc *d, struct rt_stat *st);
/* The sum of squares and the histogram, for the statistics that keep them. */
void rt_stat_add_more(const struct rt_stat_desc *d, struct rt_stat *st, s64 v);

/* One value into a statistic: inline, since every '<<<' comes here. */
static inline void rt_stat_add_value(const struct rt_stat_desc *d, struct rt_stat *st, s64 v)
{
	if (st->count == 0) {
		st->min = st->max = v;
	} else {
		if (v < st->min)
			st->min = v;
		if (v > st->max)
			st->max = v;
	}
	st->count++;
	st->sum = (s64)((u64)st->sum + (u64)v);
	if (unlikely((d->ops & RT_STAT_VARIANCE) || d->hist))
		rt_stat_add_more(d, st, v);
}
/* Add what from holds into into (merging CPUs). */
void rt_stat_merge(const struct rt_stat_desc *d, struct rt_stat *into, const struct rt_stat *from);
/* An aggregate of a merged statistic; fails the hit for @min and the like of
 * an empty one (what: "empty aggregate" or "aggregate element not found"). */
s64 rt_stat_value(struct rt_context *c, const struct rt_stat_desc *d, const struct rt_stat *st,
		  enum rt_agg agg, const char *what, const char *loc);
/* The same for sorting: no failure, 0 for an empty one. */
s64 rt_stat_sort_value(const struct rt_stat *st, enum rt_agg agg);

/* The histogram as SystemTap draws it, written through out(ctx, text, len). */
void rt_stat_draw(const struct rt_stat_desc *d, const struct rt_stat *st,
		  void (*out)(void *ctx, const char *text, size_t len), void *ctx);

/* Per-CPU scalar statistics. */
struct rt_stats *rt_stats_new(const struct rt_stat_desc *d);
void rt_stats_free(struct rt_stats *s);
/* This CPU's scratch statistic, big enough to merge any of the script's into. */
struct rt_stat *rt_stat_scratch(struct rt_context *c);

#endif
