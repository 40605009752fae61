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

int main(void)
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
	return 0;
}
