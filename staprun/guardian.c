// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The guardian: what stops and unloads the module when staprun itself is
 * killed (kill -9, the OOM killer, a crash) and can no longer do it.
 *
 * Right after the load, staprun forks this small process and keeps the
 * write end of a pipe to it. The guardian holds nothing else of staprun's
 * (no output, no /proc file), sits in a process group of its own (so that
 * Ctrl-C or a signal to staprun's group does not reach it) and waits on
 * the pipe, holding the module's `ctl` open so that whatever it does later
 * is done to this load of the module and no other. A normal staprun
 * writes "done" before it exits; if the pipe closes without that, staprun
 * died: the guardian kills the -c command (unless staprun had reaped it:
 * its pid may be another process's by then), makes sure the script is
 * stopped (the kernel side stops it by itself once staprun's `out` is
 * closed, doc/protocol.md) and unloads the module, all within about two
 * seconds. Its messages go to staprun's stderr and to the kernel log.
 */
#include "staprun.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static void sr_guardian_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void sr_guardian_log(const char *fmt, ...)
{
	char line[256];
	va_list ap;
	int fd, n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (n <= 0)
		return;
	fprintf(stderr, "staprun: %s\n", line);
	fd = open("/dev/kmsg", O_WRONLY | O_CLOEXEC);
	if (fd >= 0) {
		dprintf(fd, "<4>staprun guardian[%d]: %s\n", (int)getpid(), line);
		close(fd);
	}
}

static void sr_guardian_sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/*
 * staprun died: stop the script (if the kernel has not already) and unload.
 * ctl was opened when the guardian started, so it is this very load's:
 * once it no longer reads, the module is gone (a new staprun may have
 * unloaded what was left and loaded the module again under the same name;
 * that one is not ours).
 */
static void sr_guardian_clean_up(const char *name, int ctl, int child)
{
	struct sr_status st;
	int i, stopped = 0;

	if (child > 0)
		kill(child, SIGKILL);
	/* The kernel stops the script when out closes; give it 1 s before
	 * telling it staprun is gone (out was perhaps never opened). */
	for (i = 0; i < 20 && !stopped; i++) {
		if (sr_ctl_read_fd(ctl, &st))
			return;
		stopped = !strcmp(st.state, "stopped");
		sr_status_free(&st);
		if (!stopped)
			sr_guardian_sleep_ms(50);
	}
	if (!stopped && sr_write_all(ctl, "orphan", 6) < 0)
		return;
	for (i = 0; i < 20; i++) {
		if (sr_ctl_read_fd(ctl, &st))
			break; /* unloaded (by us, or by a new staprun) */
		sr_status_free(&st);
		if (syscall(SYS_delete_module, name, O_NONBLOCK) == 0) {
			sr_guardian_log("staprun died without unloading module %s: "
					"the guardian stopped and unloaded it", name);
			return;
		}
		sr_guardian_sleep_ms(50);
	}
	if (i == 20)
		sr_guardian_log("staprun died, and module %s could not be unloaded; "
				"unload it with `rmmod %s` (its probes are stopped)", name, name);
}

static void sr_guardian_run(const char *name, int in)
{
	static const int ignored[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE };
	char buf[64], line[64], path[128];
	size_t have = 0, i;
	int child = -1, fd, ctl;
	ssize_t n;

	signal(SIGCHLD, SIG_DFL);
	signal(SIGALRM, SIG_DFL);
	for (i = 0; i < sizeof(ignored) / sizeof(ignored[0]); i++)
		signal(ignored[i], SIG_IGN);
	setpgid(0, 0);
	/* The OOM killer, which may well take staprun, must leave the one
	 * that cleans up after it: the guardian holds a few pages. */
	fd = open("/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC);
	if (fd >= 0) {
		if (write(fd, "-1000", 5) != 5)
			sr_guardian_log("cannot keep the OOM killer away from the guardian: %s",
					strerror(errno));
		close(fd);
	}
	/* Hold none of staprun's files, stderr aside: above all not out, whose
	 * closing tells the kernel that staprun is gone. */
	for (fd = 3; fd < 1024; fd++)
		if (fd != in)
			close(fd);
	fd = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (fd >= 0) {
		dup2(fd, 0);
		dup2(fd, 1);
		if (fd > 2)
			close(fd);
	}
	snprintf(path, sizeof(path), SR_PROC_DIR "/tapline_%s/ctl", name);
	ctl = open(path, O_RDWR | O_CLOEXEC);
	/* Lines: "child PID", "reaped", "done". */
	for (;;) {
		n = read(in, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		for (i = 0; i < (size_t)n; i++) {
			if (buf[i] != '\n') {
				if (have < sizeof(line) - 1)
					line[have++] = buf[i];
				continue;
			}
			line[have] = 0;
			have = 0;
			if (!strcmp(line, "done"))
				_exit(0);
			if (!strcmp(line, "reaped"))
				child = -1;
			else if (!strncmp(line, "child ", 6))
				child = atoi(line + 6);
		}
	}
	if (ctl >= 0)
		sr_guardian_clean_up(name, ctl, child);
	else if (child > 0)
		kill(child, SIGKILL);
	_exit(0);
}

int sr_guardian_start(const char *name)
{
	int p[2];
	pid_t pid;

	if (pipe2(p, O_CLOEXEC) < 0)
		return -1;
	pid = fork();
	if (pid < 0) {
		close(p[0]);
		close(p[1]);
		return -1;
	}
	if (pid == 0) {
		int in = p[0];

		close(p[1]);
		/* Above stdio, which the guardian points at /dev/null. */
		if (in <= 2)
			in = fcntl(p[0], F_DUPFD_CLOEXEC, 3);
		sr_guardian_run(name, in);
	}
	close(p[0]);
	return p[1];
}

void sr_guardian_child(int fd, int pid)
{
	if (fd >= 0)
		dprintf(fd, "child %d\n", pid);
}

void sr_guardian_reaped(int fd)
{
	if (fd >= 0 && sr_write_all(fd, "reaped\n", 7) < 0) {
		/* It is gone already: nothing to tell. */
	}
}

void sr_guardian_done(int fd)
{
	if (fd < 0)
		return;
	if (sr_write_all(fd, "done\n", 5) < 0) {
		/* It is gone already: nothing to tell. */
	}
	close(fd);
}
