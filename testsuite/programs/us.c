// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The user-stack test program: built without frame pointers and with
 * asynchronous unwind tables (as Debian's libraries are), so only CFI
 * unwinds it. Modes:
 *   chain         main > us_one > us_lib_hop [libus.so] > us_three > us_four
 *                 (with us_inl inlined into it) > us_leaf, once
 *   spin MS       the same chain, us_leaf spinning for MS milliseconds
 *   late [MS]     the chain through us_late_hop of libus-late.so (dlopen),
 *                 then a sleep of MS milliseconds
 *   deep N        us_deep recursing N times, then us_leaf
 *   repeat N MS   the chain N times, MS milliseconds apart
 *   nocfi         main > us_nocfi (us-nocfi.c: no CFI, no frame pointer) > us_leaf
 *   say N         the chain N times, us_leaf writing "hop" to stderr each time
 *                 (a system call deep in a known chain), then exits at once
 *   socket        5 bytes written and read (write(2), read(2)) and 3 sent and
 *                 received (send(2), recv(2)) on a Unix socket pair
 */
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/socket.h>
#include <unistd.h>

#include "us.h"

static long us_spin_ms;
static int us_say;

static long us_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

__attribute__((noinline)) int us_leaf(int n)
{
	volatile long spins = 0;
	long end = us_spin_ms ? us_now_ms() + us_spin_ms : 0;

	/* The clock is read now and then: samples land here, not in the vDSO. */
	while (end && ((spins & 0xfffff) || us_now_ms() < end))
		spins++;
	if (us_say && write(2, "hop\n", 4) < 0)
		n = -n;
	__asm__ volatile("" ::: "memory");
	return n * 2;
}

static inline __attribute__((always_inline)) int us_inl(int n)
{
	int r = us_leaf(n);

	__asm__ volatile("" : "+r"(r));
	return r + 3;
}

__attribute__((noinline)) int us_four(int n)
{
	int r = us_inl(n + 1);

	__asm__ volatile("" : "+r"(r));
	return r - 1;
}

__attribute__((noinline)) int us_three(int n)
{
	int r = us_four(n);

	__asm__ volatile("" : "+r"(r));
	return r + 1;
}

__attribute__((noinline)) int us_one(int n)
{
	int r = us_lib_hop(n, us_three);

	__asm__ volatile("" : "+r"(r));
	return r + 1;
}

__attribute__((noinline)) int us_deep(int n)
{
	int r = n ? us_deep(n - 1) : us_leaf(n);

	__asm__ volatile("" : "+r"(r));
	return r + 1;
}

__attribute__((noinline)) int us_late(int n)
{
	char path[PATH_MAX];
	ssize_t len = readlink("/proc/self/exe", path, sizeof path - 32);
	int (*hop)(int, int (*)(int));
	void *h;

	if (len <= 0)
		return -1;
	path[len] = 0;
	strcpy(strrchr(path, '/') + 1, "libus-late.so");
	h = dlopen(path, RTLD_NOW);
	hop = h ? (int (*)(int, int (*)(int)))dlsym(h, "us_late_hop") : NULL;
	if (!hop) {
		fprintf(stderr, "us: %s\n", dlerror());
		return -1;
	}
	return hop(n, us_three);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "chain";
	int r = 0;

	if (!strcmp(mode, "chain")) {
		r = us_one(1);
	} else if (!strcmp(mode, "spin") && argc > 2) {
		us_spin_ms = atol(argv[2]);
		r = us_one(1);
	} else if (!strcmp(mode, "late")) {
		r = us_late(1);
		if (argc > 2)
			usleep(atoi(argv[2]) * 1000);
	} else if (!strcmp(mode, "repeat") && argc > 3) {
		int n = atoi(argv[2]);

		for (int i = 0; i < n; i++) {
			r = us_one(1);
			usleep(atoi(argv[3]) * 1000);
		}
	} else if (!strcmp(mode, "say") && argc > 2) {
		us_say = 1;
		for (int i = atoi(argv[2]); i > 0; i--)
			r = us_one(1);
	} else if (!strcmp(mode, "nocfi")) {
		r = us_nocfi(2, us_leaf);
	} else if (!strcmp(mode, "socket")) {
		/* write(2)/read(2) and send(2)/recv(2) on a socket pair */
		int sv[2];
		char buf[8];

		if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv))
			return 1;
		r = (int)write(sv[0], "hello", 5) + (int)read(sv[1], buf, 5);
		r += (int)send(sv[0], "abc", 3, 0) + (int)recv(sv[1], buf, 3, 0);
	} else if (!strcmp(mode, "deep") && argc > 2) {
		r = us_deep(atoi(argv[2]));
	} else {
		fprintf(stderr, "usage: us chain | spin MS | late [MS] | deep N | repeat N MS | nocfi | say N | socket\n");
		return 2;
	}
	printf("us %s %d\n", mode, r);
	return 0;
}
