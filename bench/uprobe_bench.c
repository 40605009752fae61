// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * uprobe_bench MODE N: N calls of a user function (MODE func) or N passes
 * over an SDT marker with two arguments (MODE mark), printing
 *
 *     uprobe_bench calls N ns T
 *
 * where T is the loop's elapsed CLOCK_MONOTONIC time. bench/uprobe-hitcost
 * runs it in a guest booted with -icount shift=0 (a guest nanosecond is
 * one guest instruction) with each kind of probe on ub_work or the marker.
 * Static, so the guest needs no libraries.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sdt.h>
#include <time.h>

#include "bench-program.h"

int main(int argc, char **argv)
{
	long n, i, s = 0;
	char *end;
	long long t0, t1;

	if (argc != 3 || (n = strtol(argv[2], &end, 10)) <= 0 || *end ||
	    (strcmp(argv[1], "func") && strcmp(argv[1], "mark"))) {
		fprintf(stderr, "usage: uprobe_bench func|mark N\n");
		return 2;
	}
	t0 = now_ns();
	if (!strcmp(argv[1], "func")) {
		for (i = 0; i < n; i++)
			s += ub_work(i, 1);
	} else {
		for (i = 0; i < n; i++) {
			STAP_PROBE2(ub, tick, i, s);
			s += i;
			__asm__ volatile("" : "+r"(s));
		}
	}
	t1 = now_ns();
	printf("uprobe_bench calls %ld ns %lld\n", n, t1 - t0);
	return s == 42; /* keeps s alive */
}
