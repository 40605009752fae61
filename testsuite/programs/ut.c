// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The program the process(...) tests probe: built -O2 -g (as Debian's
 * packages are), PIE and not, with a shared library (libut.so) it calls,
 * two static functions of one name in two files (ut-a.c, ut-b.c), a
 * function that changes a struct passed by pointer, recursion, and SDT
 * markers, one behind a semaphore (ut-sem.c).
 *
 *   ut run        each of those once
 *   ut loop N     N rounds, 0.1 s apart, each printing the semaphore
 *   ut fork       run, then the same in a child
 *   ut thread     run, then the same in a second thread
 *   ut dlopen     load libut-plugin.so (beside the program) and call it
 */
#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sdt.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ut.h"

__attribute__((noinline)) void ut_move(struct ut_point *p, int dx, int dy)
{
	p->x += dx;
	p->y += dy;
	p->sum = p->x + p->y;
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) int ut_fact(int n)
{
	int r = n <= 1 ? 1 : n * ut_fact(n - 1);
	__asm__ volatile("" : "+r"(r));
	return r;
}

#ifdef UT_OTHER_BUILD
/* Another build of the program (testsuite/programs/build: ut-rebuilt). */
const char ut_build[] = "other";
#endif

static void run_once(void)
{
	struct ut_point p = { 1, 2, 0, "origin" };
	long big = 1234567890123L;

	ut_move(&p, 3, 4);
	printf("moved %d %d %ld\n", p.x, p.y, p.sum);
	printf("helpers %d %d\n", ut_helper_a(10), ut_helper_b(20));
	printf("lib %ld\n", ut_lib_add(2, 3));
	printf("fact %d\n", ut_fact(5));
	STAP_PROBE2(ut, pair, 7, -9);
	STAP_PROBE3(ut, with_string, p.name, big, &p);
	printf("guarded %d\n", ut_guarded(5));
	fflush(stdout);
}

static void *thread_main(void *arg)
{
	run_once();
	return arg;
}

/* A struct local the compiler keeps in registers (ut locals: $$locals). */
struct ut_pair {
	int a, b;
};

__attribute__((noinline)) static struct ut_pair ut_make_pair(int a)
{
	struct ut_pair q = { a, a + 1 };

	__asm__ volatile("" : "+r"(q.a));
	return q;
}

__attribute__((noinline)) int ut_use_pair(int a)
{
	struct ut_pair q = ut_make_pair(a);
	int product = q.a * q.b;

	__asm__ volatile("" : "+r"(product));
	return product; /* ut_use_pair_return */
}

/* Here, not with the others: tests name lines above (ut.c:30, :88). */
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <fcntl.h>
#include <signal.h>

__attribute__((noinline)) int ut_touch(char *pages, int n)
{
	for (int i = 0; i < n; i++)
		pages[(size_t)i << 12] = 1;
	__asm__ volatile("" ::: "memory");
	return n;
}

__attribute__((noinline)) int ut_naps(int n)
{
	for (int i = 0; i < n; i++)
		usleep(5000);
	return n;
}

/* For the generic.fop and vfs.do_sync tapset test: PATH created and
 * written ("0123456789"), sought to offset 3, read (16 bytes asked, 7
 * there), mapped shared and unmapped (one page), and its 10 bytes sent to
 * /dev/null (sendfile, a splice read). */
static int ut_fops(const char *path)
{
	char buf[16];
	off_t off = 0;
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	int out = open("/dev/null", O_WRONLY);
	void *m;

	if (fd < 0 || out < 0 || write(fd, "0123456789", 10) != 10 || lseek(fd, 3, SEEK_SET) != 3 ||
	    read(fd, buf, sizeof buf) != 7)
		return 1;
	m = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED || munmap(m, 4096) || sendfile(out, fd, &off, 10) != 10)
		return 1;
	close(out);
	close(fd);
	return 0;
}

/* For signal.pending: SIGUSR1 blocked, raised (it stays pending) and
 * asked for with sigpending(2); the exit status says whether it was seen. */
static int ut_sigpending(void)
{
	sigset_t usr1, pending;

	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	if (sigprocmask(SIG_BLOCK, &usr1, NULL) || raise(SIGUSR1) || sigpending(&pending))
		return 1;
	return sigismember(&pending, SIGUSR1) == 1 ? 0 : 1;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "run";

	if (!strcmp(mode, "run")) {
		run_once();
	} else if (!strcmp(mode, "loop")) {
		int n = argc > 2 ? atoi(argv[2]) : 10;
		for (int i = 0; i < n; i++) {
			printf("sem %u\n", ut_guarded_semaphore_value());
			fflush(stdout);
			ut_guarded(i);
			usleep(100000);
		}
	} else if (!strcmp(mode, "fork")) {
		run_once();
		pid_t child = fork();
		if (child == 0) {
			run_once();
			_exit(0);
		}
		waitpid(child, NULL, 0);
	} else if (!strcmp(mode, "forkexec")) {
		/* a child that execs this program again: one process, one begin */
		pid_t child = fork();
		if (child == 0) {
			execl("/proc/self/exe", argv[0], "run", (char *)NULL);
			_exit(127);
		}
		waitpid(child, NULL, 0);
	} else if (!strcmp(mode, "thread")) {
		pthread_t t;
		run_once();
		pthread_create(&t, NULL, thread_main, NULL);
		pthread_join(t, NULL);
	} else if (!strcmp(mode, "dlopen")) {
		char path[PATH_MAX];
		ssize_t n = readlink("/proc/self/exe", path, sizeof path - 32);
		if (n <= 0)
			return 1;
		path[n] = 0;
		strcpy(strrchr(path, '/') + 1, "libut-plugin.so");
		void *h = dlopen(path, RTLD_NOW);
		int (*plugin)(int) = h ? (int (*)(int))dlsym(h, "ut_plugin") : NULL;
		if (!plugin) {
			fprintf(stderr, "ut: %s\n", dlerror());
			return 1;
		}
		printf("plugin %d\n", plugin(6));
	} else if (!strcmp(mode, "locals")) {
		printf("pair %d\n", ut_use_pair(6));
	} else if (!strcmp(mode, "mmap")) {
		/* a mapping made and unmapped, and the heap grown (brk), for
		 * the vm.* tapset test */
		void *m = mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		char *heap = malloc(64 << 10);
		if (m == MAP_FAILED || munmap(m, 1 << 20) || !heap)
			return 1;
		heap[0] = 1;
		free(heap);
	} else if (!strcmp(mode, "writev")) {
		/* one vectored write of 3 + 5 + 7 bytes to /dev/null, for
		 * vfs.writev */
		struct iovec v[3] = { { "abc", 3 }, { "defgh", 5 }, { "ijklmno", 7 } };
		int fd = open("/dev/null", O_WRONLY);
		if (fd < 0 || writev(fd, v, 3) != 15)
			return 1;
		close(fd);
	} else if (!strcmp(mode, "pread")) {
		/* a pread of 4 bytes at offset 3 and a pwrite of 2 at 5 on a
		 * fresh file, and a stat of it (newfstatat), for SystemTap's
		 * pread, pwrite and fstatat */
		char buf[4];
		struct stat st;
		int fd = open("/tmp/ut-pread", O_RDWR | O_CREAT | O_TRUNC, 0600);
		if (fd < 0 || write(fd, "0123456789", 10) != 10 || pread(fd, buf, 4, 3) != 4 ||
		    pwrite(fd, "xy", 2, 5) != 2 || close(fd) || stat("/tmp/ut-pread", &st))
			return 1;
	} else if (!strcmp(mode, "touch") && argc > 2) {
		/* N fresh pages written, one fault each (no huge pages), for @perf */
		int n = atoi(argv[2]);
		char *m = mmap(NULL, (size_t)n << 12, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (m == MAP_FAILED || madvise(m, (size_t)n << 12, MADV_NOHUGEPAGE))
			return 1;
		printf("touched %d\n", ut_touch(m, n));
	} else if (!strcmp(mode, "fops") && argc > 2) {
		return ut_fops(argv[2]);
	} else if (!strcmp(mode, "sigpending")) {
		return ut_sigpending();
	} else if (!strcmp(mode, "naps") && argc > 2) {
		/* N sleeps of 5 ms: a context switch each, for @perf */
		printf("napped %d\n", ut_naps(atoi(argv[2])));
	} else {
		fprintf(stderr, "usage: ut run | loop N | fork | forkexec | thread | dlopen | locals | mmap | writev | touch N | naps N | fops PATH | sigpending\n");
		return 2;
	}
	return 0;
}
