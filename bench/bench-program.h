/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the benchmarks' user-space programs share: the function their
 * probes go on, and a clock.
 */
#ifndef TAPLINE_BENCH_PROGRAM_H
#define TAPLINE_BENCH_PROGRAM_H

#include <time.h>

/* The probed function: kept out of line, its argument kept live. */
__attribute__((noinline)) long ub_work(long a, long b)
{
	__asm__ volatile("" : "+r"(a));
	return a + b;
}

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

#endif
