// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rt-run PRIO COMMAND [ARG]...: run COMMAND at real-time priority PRIO
 * (SCHED_FIFO), as latency-sensitive programs run. Such a thread keeps
 * its CPU from everything of lower priority, kernel workers included,
 * until it sleeps: the guest tests use it to show that what the runtime
 * does for a thread is done before the thread runs, not by a worker
 * some time later. busybox has no chrt. Static, libc only.
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct sched_param sp;

	if (argc < 3 || (sp.sched_priority = atoi(argv[1])) <= 0) {
		fprintf(stderr, "usage: rt-run PRIO COMMAND [ARG]...\n");
		return 2;
	}
	if (sched_setscheduler(0, SCHED_FIFO, &sp)) {
		fprintf(stderr, "rt-run: SCHED_FIFO %d: %s\n", sp.sched_priority, strerror(errno));
		return 126;
	}
	execvp(argv[2], argv + 2);
	fprintf(stderr, "rt-run: %s: %s\n", argv[2], strerror(errno));
	return 127;
}
