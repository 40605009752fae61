// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The flight recorder in memory (stap -F without -o, staprun -D): the
 * background staprun keeps relaying, so the kernel side always has its
 * reader (a module whose reader goes away stops itself), and its output
 * goes into a ring in a keeper process, the last SIZE bytes of it.
 * `staprun -A NAME` attaches over a Unix socket in a directory only root
 * can enter: it gets the ring, then what comes; Ctrl-C there stops the
 * script, whose last output (the end probes') it still shows.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "staprun.h"

#define SR_RECORDER_DIR "/run/tapline"

static void sr_socket_path(const char *name, struct sockaddr_un *a)
{
	memset(a, 0, sizeof(*a));
	a->sun_family = AF_UNIX;
	snprintf(a->sun_path, sizeof(a->sun_path), SR_RECORDER_DIR "/%s.sock", name);
}

struct sr_ring {
	char *buf;
	size_t size, start, len;
};

static void sr_ring_add(struct sr_ring *r, const char *p, size_t n)
{
	size_t i;

	if (n >= r->size) {
		p += n - r->size;
		n = r->size;
	}
	for (i = 0; i < n; i++) {
		r->buf[(r->start + r->len) % r->size] = p[i];
		if (r->len < r->size)
			r->len++;
		else
			r->start = (r->start + 1) % r->size;
	}
}

/* The ring to fd, oldest first; once it has wrapped, from the first whole line. */
static int sr_ring_send(const struct sr_ring *r, int fd, int wrapped)
{
	size_t skip = 0, first;

	if (wrapped) {
		while (skip < r->len && r->buf[(r->start + skip) % r->size] != '\n')
			skip++;
		skip = skip < r->len ? skip + 1 : 0;
	}
	first = r->start + skip;
	if (first % r->size + (r->len - skip) <= r->size)
		return sr_write_all(fd, r->buf + first % r->size, r->len - skip);
	if (sr_write_all(fd, r->buf + first % r->size, r->size - first % r->size))
		return -1;
	return sr_write_all(fd, r->buf, r->len - skip - (r->size - first % r->size));
}

/* Only root, or the user the recorder runs as, may attach. */
static int sr_peer_allowed(int fd)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len))
		return 0;
	return cred.uid == 0 || cred.uid == getuid();
}

static void sr_keeper(int in, int lfd, size_t size, pid_t staprun)
{
	struct sr_ring ring = { .buf = malloc(size), .size = size };
	int client = -1, wrapped = 0;
	char buf[65536];

	signal(SIGINT, SIG_IGN);	/* staprun stops, then closes our input */
	signal(SIGTERM, SIG_IGN);
	signal(SIGPIPE, SIG_IGN);
	if (!ring.buf)
		_exit(1);
	for (;;) {
		struct pollfd p[3] = { { .fd = in, .events = POLLIN },
				       { .fd = lfd, .events = POLLIN },
				       { .fd = client, .events = POLLIN } };
		ssize_t n;

		if (poll(p, client >= 0 ? 3 : 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (p[0].revents) {
			n = read(in, buf, sizeof(buf));
			if (n <= 0)
				break;	/* staprun is done */
			wrapped |= ring.len + (size_t)n > ring.size;
			sr_ring_add(&ring, buf, (size_t)n);
			if (client >= 0 && sr_write_all(client, buf, (size_t)n)) {
				close(client);
				client = -1;
			}
		}
		if (p[1].revents) {
			int c = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);

			if (c >= 0 && (!sr_peer_allowed(c) || client >= 0)) {
				static const char busy[] = "staprun: another staprun -A is attached\n";
				static const char denied[] = "staprun: only root may attach\n";

				if (sr_write_all(c, client >= 0 ? busy : denied,
						 client >= 0 ? sizeof(busy) - 1 : sizeof(denied) - 1)) {
					/* it went away: nothing to tell */
				}
				close(c);
			} else if (c >= 0) {
				client = c;
				if (sr_ring_send(&ring, client, wrapped)) {
					close(client);
					client = -1;
				}
			}
		}
		if (client >= 0 && p[2].revents) {
			char cmd[16];

			n = read(client, cmd, sizeof(cmd));
			if (n > 0 && !memcmp(cmd, "stop", 4))
				kill(staprun, SIGTERM);
			else if (n <= 0) {
				close(client);	/* detached; the script goes on */
				client = -1;
			}
		}
	}
	if (client >= 0)
		close(client);
	_exit(0);
}

int sr_recorder_start(const char *name, size_t size, pid_t *keeper)
{
	struct sockaddr_un a;
	int p[2], lfd;
	pid_t pid;

	sr_socket_path(name, &a);
	/* /run is there on any system with a service manager; a bare one
	 * (an initramfs) may lack it. */
	if ((mkdir("/run", 0755) && errno != EEXIST) ||
	    (mkdir(SR_RECORDER_DIR, 0700) && errno != EEXIST))
		return -1;
	/* Ours alone: a directory someone else made or opened up is refused. */
	struct stat st;
	if (lstat(SR_RECORDER_DIR, &st) || !S_ISDIR(st.st_mode) || st.st_uid != getuid() ||
	    (st.st_mode & 077)) {
		errno = EPERM;
		return -1;
	}
	lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (lfd < 0)
		return -1;
	/* A socket left by a recorder that died: the module cannot be loaded
	 * twice, so none of this name is live. */
	unlink(a.sun_path);
	if (bind(lfd, (struct sockaddr *)&a, sizeof(a)) || listen(lfd, 4) ||
	    pipe2(p, O_CLOEXEC)) {
		close(lfd);
		return -1;
	}
	pid = fork();
	if (pid < 0) {
		close(lfd);
		close(p[0]);
		close(p[1]);
		return -1;
	}
	if (pid == 0) {
		close(p[1]);
		sr_keeper(p[0], lfd, size, getppid());
	}
	close(p[0]);
	close(lfd);
	*keeper = pid;
	return p[1];
}

void sr_recorder_done(const char *name, int fd, pid_t keeper)
{
	struct sockaddr_un a;
	int null = open("/dev/null", O_WRONLY | O_CLOEXEC);

	/* stderr went to the keeper too (-D): its end of file is ours. */
	if (null >= 0) {
		dup2(null, STDERR_FILENO);
		close(null);
	}
	close(fd);
	while (waitpid(keeper, NULL, 0) < 0 && errno == EINTR)
		;
	sr_socket_path(name, &a);
	unlink(a.sun_path);
}

static volatile sig_atomic_t sr_attach_interrupted;

static void sr_attach_signal(int sig)
{
	(void)sig;
	sr_attach_interrupted = 1;
}

int sr_attach(const char *name)
{
	struct sockaddr_un a;
	char buf[65536];
	int fd, asked = 0;

	sr_socket_path(name, &a);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof(a))) {
		fprintf(stderr,
			"staprun: no script %s runs in the background with its output kept in memory (stap -F without -o): %s\n",
			name, strerror(errno));
		if (fd >= 0)
			close(fd);
		return 1;
	}
	signal(SIGINT, sr_attach_signal);
	signal(SIGTERM, sr_attach_signal);
	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		ssize_t n;

		if (sr_attach_interrupted && !asked) {
			/* The script stops; its end probes' output still comes. */
			asked = 1;
			if (sr_write_all(fd, "stop\n", 5))
				break;
		}
		if (poll(&p, 1, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		n = read(fd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		if (sr_write_all(STDOUT_FILENO, buf, (size_t)n))
			break;
	}
	close(fd);
	return 0;
}
