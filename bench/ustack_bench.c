// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ustack_bench DEPTH N: recurse DEPTH frames (each holding 128 bytes of
 * stack), then make N calls of ub_work(a, b) from the innermost one, and
 * print
 *
 *     ustack_bench calls N ns T
 *
 * where T is the loop's elapsed CLOCK_MONOTONIC time. bench/ustack runs it
 * in a guest booted with -icount shift=0 (a guest nanosecond is one guest
 * instruction) with a uprobe on ub_work that takes a user stack or not:
 * DEPTH 0 leaves the few hundred bytes of main's frames and the start of
 * the process above ub_work, DEPTH 64 more stack than MAXUSTACK (8 KiB)
 * copies. Static, so the guest needs no libraries.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench-program.h"

static long loop(long n)
{
	long long t0, t1;
	long i, s = 0;

	t0 = now_ns();
	for (i = 0; i < n; i++)
		s += ub_work(i, 1);
	t1 = now_ns();
	printf("ustack_bench calls %ld ns %lld\n", n, t1 - t0);
	return s;
}

/* Each level keeps a frame of its own (the buffer, and work after the
 * call: no tail call). */
__attribute__((noinline)) static long deep(int depth, long n)
{
	volatile char pad[128];
	long s;

	memset((char *)pad, depth, sizeof(pad));
	s = depth > 0 ? deep(depth - 1, n) : loop(n);
	return s + pad[depth % sizeof(pad)];
}

int main(int argc, char **argv)
{
	long n, depth;
	char *end;

	if (argc != 3 || (depth = strtol(argv[1], &end, 10)) < 0 || *end || depth > 10000 ||
	    (n = strtol(argv[2], &end, 10)) <= 0 || *end) {
		fprintf(stderr, "usage: ustack_bench DEPTH N\n");
		return 2;
	}
	return deep((int)depth, n) == 42; /* keeps the sum alive */
}
