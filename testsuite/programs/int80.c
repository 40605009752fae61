// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * int80: system calls made as a 32-bit process makes them (int $0x80, the
 * i386 numbers, arguments in ebx, ecx, edx, ...), from a 64-bit program,
 * for the tests of the 32-bit system call probes (IA32 emulation). Its
 * buffers are below 4 GiB (MAP_32BIT), where 32-bit pointers reach.
 * Prints each call's result.
 */
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

static long int80(long nr, long a, long b, long c)
{
	long ret;

	__asm__ volatile("int $0x80" : "=a"(ret) : "a"(nr), "b"(a), "c"(b), "d"(c) : "memory");
	return ret;
}

static long int80_4(long nr, long a, long b, long c, long d)
{
	long ret;

	__asm__ volatile("int $0x80" : "=a"(ret) : "a"(nr), "b"(a), "c"(b), "d"(c), "S"(d) : "memory");
	return ret;
}

int main(int argc, char **argv)
{
	char *low = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT,
			 -1, 0);

	if (low == MAP_FAILED)
		return 1;
	strcpy(low, "/proc/version");
	long fd = int80(5, (long)low, 0, 0);         /* open(path, O_RDONLY) */
	long got = int80(3, fd, (long)low + 64, 7);  /* read(fd, buf, 7) */
	long nice = int80(34, 0, 0, 0);              /* nice(0) */
	long closed = int80(6, fd, 0, 0);            /* close(fd) */
	printf("open %ld read %ld nice %ld close %ld\n", fd, got, nice, closed);
	if (argc > 1 && !strcmp(argv[1], "time32")) {
		/* the calls SystemTap names compat_*: nanosleep_time32 of 1 us
		 * (two 32-bit words), and rt_sigaction asking SIGUSR1's action */
		int *ts = (int *)(low + 128);
		ts[0] = 0;
		ts[1] = 1000;
		long slept = int80(162, (long)ts, 0, 0);
		long act = int80_4(174, 10, 0, (long)low + 256, 8);
		printf("nanosleep %ld rt_sigaction %ld\n", slept, act);
	}
	if (argc > 1 && !strcmp(argv[1], "socketcall")) {
		/* socketcall(SYS_SOCKETPAIR), then SYS_SEND of "hello" on one
		 * end and SYS_RECV of it on the other: 32-bit argument words */
		unsigned *w = (unsigned *)(low + 512), *fds = (unsigned *)(low + 640);
		w[0] = 1; /* AF_UNIX */
		w[1] = 1; /* SOCK_STREAM */
		w[2] = 0;
		w[3] = (unsigned)(long)fds;
		long pair = int80(102, 8, (long)w, 0);
		strcpy(low + 768, "hello");
		w[0] = fds[0];
		w[1] = (unsigned)(long)(low + 768);
		w[2] = 5;
		w[3] = 0;
		long sent = int80(102, 9, (long)w, 0);
		w[0] = fds[1];
		w[1] = (unsigned)(long)(low + 896);
		long got = int80(102, 10, (long)w, 0);
		printf("socketpair %ld send %ld recv %ld\n", pair, sent, got);
	}
	return 0;
}
