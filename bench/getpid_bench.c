// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * getpid_bench N: make N raw getpid system calls (syscall(SYS_getpid), which
 * no libc can answer from a cache) and print
 *
 *     getpid_bench calls N ns T
 *
 * where T is the elapsed CLOCK_MONOTONIC time of the loop. bench/hitcost runs
 * it in a guest booted with -icount shift=0, where a guest nanosecond is one
 * guest instruction, so T / N is the instructions per call. Linked statically
 * so the guest needs no libc; the process name must stay getpid_bench (the
 * execname() filter of bench/hitcost compares with it).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	long n, i;
	char *end;
	long long t0, t1;

	if (argc != 2 || (n = strtol(argv[1], &end, 10)) <= 0 || *end) {
		fprintf(stderr, "usage: getpid_bench N\n");
		return 2;
	}
	t0 = now_ns();
	for (i = 0; i < n; i++)
		syscall(SYS_getpid);
	t1 = now_ns();
	printf("getpid_bench calls %ld ns %lld\n", n, t1 - t0);
	return 0;
}
