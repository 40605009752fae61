// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * stap-exporter: serves the Prometheus metrics of running Tapline scripts
 * over HTTP, as SystemTap's exporter does. A script that says
 * `probe prometheus { @prometheus_dump_array1(...) }` has the file
 * /proc/systemtap/MODULE/__prometheus; GET /MODULE answers with it, and
 * GET /metrics with every running script's. With -s DIR, GET /NAME also
 * starts DIR/NAME.stp (stap -m NAME) when it is not running and answers
 * 503 until its metrics are there, so Prometheus's next scrape has them.
 *
 * Clients are served side by side, from one poll() loop, each bounded:
 * 8 KiB of request, 5 s from its connection for the whole of it, 10 s to
 * take the answer, 1 MiB of metrics a script; at most 64 at once, those
 * past that answered 503 at once. A slow client, or many, holds only its
 * own connection, for no longer than that.
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PROC_DIR "/proc/systemtap"
#define MAX_REQUEST 8192
#define MAX_METRICS (1 << 20)
#define MAX_STARTED 64
#define MAX_SCRIPT (1 << 20)
#define MAX_CLIENTS 64
#define FD_RESERVE 16
#define REQUEST_MS 5000
#define ANSWER_MS 10000

static const char *scripts_dir;
static bool verbose;
static volatile sig_atomic_t stopping;
/* The signal mask to run stap with, and to wait in ppoll() with. */
static sigset_t unblocked;

/* Scripts this exporter started, to stop them when it stops. */
static struct {
	pid_t pid;
	char name[65];
} started[MAX_STARTED];

static void say(const char *fmt, ...)
{
	va_list ap;

	if (!verbose)
		return;
	va_start(ap, fmt);
	fputs("stap-exporter: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

/* A module name as stap -m makes them: letters, digits and '_', so that a
 * request can never name a path outside /proc/systemtap or DIR. */
static bool valid_name(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n > 64)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!(s[i] == '_' || (s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
		      (s[i] >= '0' && s[i] <= '9')))
			return false;
	return true;
}

struct buf {
	char *p;
	size_t n, cap;
};

static void buf_add(struct buf *b, const char *s, size_t n)
{
	if (b->n + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 4096;
		while (cap < b->n + n + 1)
			cap *= 2;
		char *p = realloc(b->p, cap);
		if (!p) {
			perror("stap-exporter");
			exit(1);
		}
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->n, s, n);
	b->n += n;
	b->p[b->n] = 0;
}

/* Appends a module's metrics; false when it has none (not running, or no
 * `probe prometheus`). A procfs read returns the whole text in one go. */
static bool read_metrics(const char *module, struct buf *out)
{
	char path[256], chunk[8192];
	snprintf(path, sizeof path, PROC_DIR "/%s/__prometheus", module);
	/* O_NONBLOCK: no read may hold the loop that serves every client
	 * (these files answer at once). */
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return false;
	ssize_t n;
	size_t total = 0;
	while ((n = read(fd, chunk, sizeof chunk)) > 0 && total < MAX_METRICS) {
		buf_add(out, chunk, (size_t)n);
		total += (size_t)n;
	}
	close(fd);
	if (!out->p)
		buf_add(out, "", 0);
	return n >= 0;
}

/* What the exporter runs as root must be root's alone: a file or directory
 * owned by root and writable by no one else. */
static bool root_only(const struct stat *st)
{
	return st->st_uid == 0 && !(st->st_mode & 022);
}

enum script_found { SCRIPT_MISSING, SCRIPT_REFUSED, SCRIPT_READ };

/* The script being read, DIR/NAME.stp (or DIR alone, checked at the start),
 * for messages, and the first thing found wrong on the way to it: what is
 * wrong with the first LEN bytes of that path (a directory on the way, or
 * the whole path). */
static char script_path[PATH_MAX + 80];
struct wrong {
	size_t len;
	char what[80]; /* "" while nothing is */
};

static void found_wrong(struct wrong *w, size_t len, const char *what)
{
	if (!w->what[0]) {
		w->len = len;
		snprintf(w->what, sizeof w->what, "%s", what);
	}
}

static enum script_found refuse(const char *refusing, const struct wrong *w)
{
	if (w->len >= strlen(script_path))
		fprintf(stderr, "stap-exporter: %s %s: %s\n", refusing, script_path, w->what);
	else
		fprintf(stderr, "stap-exporter: %s %s: %.*s: %s\n", refusing, script_path,
			(int)w->len, script_path, w->what);
	return SCRIPT_REFUSED;
}

/* What is wrong with a directory or script that is not root's alone. */
static const char *not_root_only(const struct stat *st)
{
	static char why[64];

	if (st->st_uid)
		snprintf(why, sizeof why, "owned by uid %u, not root", (unsigned)st->st_uid);
	else
		snprintf(why, sizeof why, "writable by group or others (mode %04o)",
			 (unsigned)st->st_mode & 07777);
	return why;
}

/*
 * Opens DIR, walking from "/" one name at a time: each directory is opened
 * with O_NOFOLLOW and checked through its descriptor, and the next one is
 * opened from it, so the directories checked are the ones used. Checking
 * paths and then opening a path (stat, then stap opening DIR/NAME.stp) let
 * another user swap a directory in between. Every directory on the way must
 * be root's alone, sticky ones such as /tmp too: anyone may create a name
 * there. Past one that is not, the walk goes on unchecked, only to tell a
 * script that is not there (a 404) from one that is not trusted. A
 * descriptor of DIR, or -1 when there is none to go on from.
 */
static int open_scripts_dir(struct wrong *wrong)
{
	const char *p = scripts_dir;
	struct stat st;
	int dir = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (dir < 0 || fstat(dir, &st) < 0) {
		found_wrong(wrong, 1, strerror(errno));
		goto fail;
	}
	if (!root_only(&st))
		found_wrong(wrong, 1, not_root_only(&st));
	while (*p) {
		char name[NAME_MAX + 1];
		size_t len;

		while (*p == '/')
			p++;
		len = strcspn(p, "/");
		if (len == 0)
			break;
		size_t upto = (size_t)(p - scripts_dir) + len;
		if (len > NAME_MAX) {
			found_wrong(wrong, upto, "name too long");
			goto fail;
		}
		memcpy(name, p, len);
		name[len] = 0;
		p += len;
		if (!strcmp(name, "."))
			continue;
		if (!strcmp(name, "..")) {
			found_wrong(wrong, upto, "'..' is not followed (name DIR without it)");
			goto fail;
		}
		int next = openat(dir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (next < 0) {
			/* O_DIRECTORY | O_NOFOLLOW says ENOTDIR for a link. */
			int err = errno;
			bool link = fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
				    S_ISLNK(st.st_mode);
			if (err != ENOENT)
				found_wrong(wrong, upto,
					    link ? "a symbolic link (not followed)" : strerror(err));
			goto fail;
		}
		close(dir);
		dir = next;
		if (fstat(dir, &st) < 0) {
			found_wrong(wrong, upto, strerror(errno));
			goto fail;
		}
		if (!root_only(&st))
			found_wrong(wrong, upto, not_root_only(&st));
	}
	return dir;
fail:
	if (dir >= 0)
		close(dir);
	return -1;
}

/*
 * Reads DIR/NAME.stp into TEXT, once: stap is given these bytes, never the
 * path, so what runs is what was checked. The script is opened with
 * O_NOFOLLOW (a link is refused) and O_NONBLOCK (a FIFO put there cannot
 * hold the exporter), then checked through its descriptor.
 */
static enum script_found read_script(const char *name, struct buf *text)
{
	struct wrong wrong = { 0 };
	size_t whole = sizeof script_path;
	char file[80], chunk[8192];
	struct stat st;
	ssize_t n;

	snprintf(file, sizeof file, "%s.stp", name);
	snprintf(script_path, sizeof script_path, "%s/%s", scripts_dir, file);
	int dir = open_scripts_dir(&wrong);
	if (dir < 0)
		return wrong.what[0] ? refuse("not running", &wrong) : SCRIPT_MISSING;
	if (wrong.what[0]) {
		/* Whether it is there, without opening it. */
		bool there = fstatat(dir, file, &st, AT_SYMLINK_NOFOLLOW) == 0 || errno != ENOENT;
		close(dir);
		return there ? refuse("not running", &wrong) : SCRIPT_MISSING;
	}
	int fd = openat(dir, file, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	int err = errno;
	close(dir);
	if (fd < 0) {
		if (err == ENOENT)
			return SCRIPT_MISSING;
		found_wrong(&wrong, whole,
			    err == ELOOP ? "a symbolic link (not followed)" : strerror(err));
	} else if (fstat(fd, &st) < 0) {
		found_wrong(&wrong, whole, strerror(errno));
	} else if (!S_ISREG(st.st_mode)) {
		found_wrong(&wrong, whole, "not a regular file");
	} else if (!root_only(&st)) {
		found_wrong(&wrong, whole, not_root_only(&st));
	}
	while (fd >= 0 && !wrong.what[0] && (n = read(fd, chunk, sizeof chunk)) != 0) {
		if (n < 0)
			found_wrong(&wrong, whole, strerror(errno));
		else if (text->n + (size_t)n > MAX_SCRIPT)
			found_wrong(&wrong, whole, "larger than 1 MiB");
		else
			buf_add(text, chunk, (size_t)n);
	}
	if (fd >= 0)
		close(fd);
	return wrong.what[0] ? refuse("not running", &wrong) : SCRIPT_READ;
}

/* The script's text as stap's standard input (stap -m NAME -): a sealed
 * memfd, which no one can change and which needs no writer. -1 on failure. */
static int script_input(const char *name, const struct buf *text)
{
	int fd = memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING);

	if (fd < 0)
		return -1;
	for (size_t done = 0; done < text->n;) {
		ssize_t w = write(fd, text->p + done, text->n - done);
		if (w <= 0) {
			close(fd);
			return -1;
		}
		done += (size_t)w;
	}
	if (fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) < 0 ||
	    lseek(fd, 0, SEEK_SET) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

static void reap(void)
{
	pid_t pid;
	int status;

	while ((pid = waitpid(-1, &status, WNOHANG)) > 0)
		for (int i = 0; i < MAX_STARTED; i++)
			if (started[i].pid == pid) {
				say("%s ended (status %d)", started[i].name, status);
				started[i].pid = 0;
			}
}

/* Starts DIR/NAME.stp unless it is running; what to tell the client, or
 * NULL when there is no such script. */
static const char *start_script(const char *name)
{
	int slot = -1;

	for (int i = 0; i < MAX_STARTED; i++) {
		if (started[i].pid && !strcmp(started[i].name, name))
			return "starting\n";
		if (!started[i].pid && slot < 0)
			slot = i;
	}
	struct buf text = { 0 };
	enum script_found found = read_script(name, &text);
	if (found != SCRIPT_READ) {
		free(text.p);
		return found == SCRIPT_MISSING
			       ? NULL
			       : "the script is not trusted (see the exporter's messages)\n";
	}
	if (slot < 0) {
		free(text.p);
		return "too many scripts started\n";
	}
	int input = script_input(name, &text);
	free(text.p);
	if (input < 0) {
		fprintf(stderr, "stap-exporter: cannot start %s: %s\n", script_path, strerror(errno));
		return "cannot start the script\n";
	}
	pid_t pid = fork();
	if (pid < 0) {
		close(input);
		return "cannot start the script\n";
	}
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);
		sigprocmask(SIG_SETMASK, &unblocked, NULL); /* a blocked mask outlives exec */
		dup2(input, 0);
		if (null >= 0)
			dup2(null, 1);
		/* "-": the text checked, not the path, which may have changed. */
		execlp("stap", "stap", "-m", name, "-", (char *)NULL);
		fprintf(stderr, "stap-exporter: cannot run stap: %s\n", strerror(errno));
		_exit(127);
	}
	close(input);
	say("started %s (pid %d)", script_path, (int)pid);
	started[slot].pid = pid;
	snprintf(started[slot].name, sizeof started[slot].name, "%s", name);
	return "starting\n";
}

static void respond(struct buf *out, int code, const char *reason, const char *type,
		    const char *body, size_t len, bool head)
{
	char hdr[512];
	int n = snprintf(hdr, sizeof hdr,
			 "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n"
			 "%sConnection: close\r\n\r\n",
			 code, reason, type, len, code == 503 ? "Retry-After: 5\r\n" : "");
	buf_add(out, hdr, (size_t)n);
	if (!head)
		buf_add(out, body, len);
}

static void respond_text(struct buf *out, int code, const char *reason, const char *text,
			 bool head)
{
	respond(out, code, reason, "text/plain; charset=utf-8", text, strlen(text), head);
}

/* The running scripts that have metrics, one a line: GET /'s answer. */
static void list_modules(struct buf *out, bool with_metrics)
{
	DIR *d = opendir(PROC_DIR);
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d))) {
		if (!valid_name(e->d_name))
			continue;
		if (with_metrics) {
			read_metrics(e->d_name, out);
		} else {
			char path[512];
			snprintf(path, sizeof path, PROC_DIR "/%s/__prometheus", e->d_name);
			if (access(path, R_OK) == 0) {
				buf_add(out, "/", 1);
				buf_add(out, e->d_name, strlen(e->d_name));
				buf_add(out, "\n", 1);
			}
		}
	}
	closedir(d);
}

/* The answer to a whole request, REQ. */
static void answer(char *req, struct buf *reply)
{
	char method[8], target[256];
	if (sscanf(req, "%7s %255s", method, target) != 2) {
		respond_text(reply, 400, "Bad Request", "bad request\n", false);
		return;
	}
	bool head = !strcmp(method, "HEAD");
	if (strcmp(method, "GET") && !head) {
		respond_text(reply, 405, "Method Not Allowed", "only GET and HEAD\n", false);
		return;
	}
	char *q = strchr(target, '?');
	if (q)
		*q = 0;
	char *name = target[0] == '/' ? target + 1 : target;
	size_t len = strlen(name);
	if (len > 4 && !strcmp(name + len - 4, ".stp"))
		name[len - 4] = 0; /* SystemTap's /NAME.stp form */
	say("%s %s", method, target);

	struct buf out = { 0 };
	if (!*name) {
		list_modules(&out, false);
		respond(reply, 200, "OK", "text/plain; charset=utf-8", out.p ? out.p : "", out.n, head);
	} else if (!strcmp(name, "metrics")) {
		list_modules(&out, true);
		respond(reply, 200, "OK", "text/plain; version=0.0.4; charset=utf-8",
			out.p ? out.p : "", out.n, head);
	} else if (!valid_name(name)) {
		respond_text(reply, 404, "Not Found", "no such script\n", head);
	} else if (read_metrics(name, &out)) {
		respond(reply, 200, "OK", "text/plain; version=0.0.4; charset=utf-8", out.p, out.n, head);
	} else {
		const char *why = scripts_dir ? start_script(name) : NULL;
		if (why)
			respond_text(reply, 503, "Service Unavailable", why, head);
		else
			respond_text(reply, 404, "Not Found", "no running script has that name\n", head);
	}
	free(out.p);
}

/*
 * A client's connection: its request as it comes in, then the answer as it
 * goes out, each within a deadline for the whole of it, not for each
 * recv(): a client sending a byte every few seconds kept the exporter,
 * which served one request at a time, from everyone else for hours.
 */
struct client {
	int fd; /* -1: a free slot */
	bool answering;
	long long deadline; /* ms, CLOCK_MONOTONIC */
	size_t n, sent;
	struct buf out;
	char req[MAX_REQUEST + 1];
};
static struct client clients[MAX_CLIENTS];
static int max_clients = MAX_CLIENTS;

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

static void drop(struct client *c)
{
	close(c->fd);
	free(c->out.p);
	c->out = (struct buf){ 0 };
	c->fd = -1;
}

/* Sends what the socket takes now; true once the connection is done with
 * (all sent, or the client gone). */
static bool send_some(struct client *c)
{
	while (c->sent < c->out.n) {
		ssize_t w = send(c->fd, c->out.p + c->sent, c->out.n - c->sent,
				 MSG_NOSIGNAL | MSG_DONTWAIT);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return false;
		if (w <= 0)
			return true;
		c->sent += (size_t)w;
	}
	return true;
}

static void start_answer(struct client *c, long long now)
{
	c->answering = true;
	c->deadline = now + ANSWER_MS;
	if (send_some(c))
		drop(c);
}

/* Takes what has come of a request; answers once it is whole (a blank
 * line ends its headers), the client has stopped sending, or it fills
 * MAX_REQUEST. */
static void read_request(struct client *c, long long now)
{
	for (;;) {
		ssize_t r = recv(c->fd, c->req + c->n, MAX_REQUEST - c->n, MSG_DONTWAIT);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return;
		if (r < 0) {
			drop(c);
			return;
		}
		size_t from = c->n > 3 ? c->n - 3 : 0;
		c->n += (size_t)r;
		c->req[c->n] = 0;
		if (r == 0 || c->n == MAX_REQUEST || strstr(c->req + from, "\r\n\r\n") ||
		    strstr(c->req + from, "\n\n"))
			break;
	}
	answer(c->req, &c->out);
	start_answer(c, now);
}

/* Past its deadline, a request is answered 408 (if the socket takes it at
 * once) and an answer is given up. */
static void expire(struct client *c)
{
	if (!c->answering) {
		say("a request took over %d s", REQUEST_MS / 1000);
		respond_text(&c->out, 408, "Request Timeout", "the whole request must come in 5 s\n",
			     false);
		send_some(c);
	}
	drop(c);
}

/* Past the cap, a new connection is told at once to come back later
 * rather than left in the backlog while others hold every slot. */
static void refuse_busy(int fd)
{
	struct buf busy = { 0 };

	respond_text(&busy, 503, "Service Unavailable", "too many connections\n", false);
	send(fd, busy.p, busy.n, MSG_NOSIGNAL | MSG_DONTWAIT);
	close(fd);
	free(busy.p);
}

/* Takes the connections waiting; until when to stop taking them, when
 * there is no descriptor left to take one with (accept() would fail again
 * at once, and poll() say the socket is ready: a busy loop). */
static long long accept_clients(int ls, long long now)
{
	/* A bounded number a round, so the clients already in get their turn. */
	for (int round = 0; round < MAX_CLIENTS; round++) {
		int fd = accept4(ls, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
		if (fd < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS ||
			    errno == ENOMEM) {
				say("cannot take a connection: %s", strerror(errno));
				return now + 100;
			}
			return 0;
		}
		struct client *c = NULL;
		for (int i = 0; i < max_clients && !c; i++)
			if (clients[i].fd < 0)
				c = &clients[i];
		if (!c) {
			refuse_busy(fd);
			continue;
		}
		*c = (struct client){ .fd = fd, .deadline = now + REQUEST_MS };
		c->req[0] = 0;
	}
	return 0;
}

/*
 * Each client holds a descriptor, and FD_RESERVE more are the exporter's
 * own (standard streams, the listening socket, a connection being refused,
 * the walk to a script, a procfs file). The cap comes down to what the
 * limit on open files allows, so that accept() does not fail for want of
 * a descriptor.
 */
static void fit_clients_to_limit(void)
{
	struct rlimit rl;
	rlim_t want = MAX_CLIENTS + FD_RESERVE;

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur >= want)
		return;
	rl.rlim_cur = rl.rlim_max < want ? rl.rlim_max : want;
	setrlimit(RLIMIT_NOFILE, &rl);
	if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur >= want)
		return;
	max_clients = rl.rlim_cur > FD_RESERVE + 1 ? (int)(rl.rlim_cur - FD_RESERVE) : 1;
	fprintf(stderr,
		"stap-exporter: %llu open files at most: serving %d clients at once, not %d\n",
		(unsigned long long)rl.rlim_cur, max_clients, MAX_CLIENTS);
}

/* DIR as an absolute path without a trailing '/': the walk to it starts at
 * "/", and the messages name the directories it passes. */
static bool set_scripts_dir(const char *arg)
{
	static char path[PATH_MAX];
	char cwd[PATH_MAX];
	int n;

	if (arg[0] == '/')
		n = snprintf(path, sizeof path, "%s", arg);
	else if (getcwd(cwd, sizeof cwd))
		n = snprintf(path, sizeof path, "%s%s%s", cwd, cwd[1] ? "/" : "", arg);
	else
		return false;
	if (n < 0 || (size_t)n >= sizeof path) {
		errno = ENAMETOOLONG;
		return false;
	}
	while (n > 0 && path[n - 1] == '/')
		path[--n] = 0;
	scripts_dir = path;
	return true;
}

/* An untrusted DIR is said at the start, not only at the first request
 * for one of its scripts. */
static void check_scripts_dir(void)
{
	struct wrong wrong = { 0 };

	snprintf(script_path, sizeof script_path, "%s", *scripts_dir ? scripts_dir : "/");
	int dir = open_scripts_dir(&wrong);
	if (wrong.what[0])
		refuse("-s: no script will be run from", &wrong);
	else if (dir < 0)
		fprintf(stderr, "stap-exporter: -s %s: no such directory (yet)\n", script_path);
	if (dir >= 0)
		close(dir);
}

static void on_stop(int sig)
{
	(void)sig;
	stopping = 1;
}

/* Only to wake ppoll(), so that reap() runs. */
static void on_child(int sig)
{
	(void)sig;
}

static void usage(FILE *f)
{
	fputs("Usage: stap-exporter [-p PORT] [-a ADDRESS] [-s SCRIPTS-DIR] [-v]\n"
	      "Serve running Tapline scripts' Prometheus metrics over HTTP.\n\n"
	      "  -p PORT     listen on PORT (default 9900)\n"
	      "  -a ADDRESS  listen on this IPv4 address (default 127.0.0.1; 0.0.0.0 for all)\n"
	      "  -s DIR      GET /NAME starts DIR/NAME.stp (stap -m NAME, the text on its\n"
	      "              standard input) when it is not running; the script and every\n"
	      "              directory from / down to DIR (sticky ones such as /tmp too) must\n"
	      "              be root's and writable by no one else, and none a symbolic link\n"
	      "  -v          say each request and each script started on standard error\n"
	      "  -h, --help  show this and exit\n\n"
	      "GET /NAME answers with /proc/systemtap/NAME/__prometheus (a script's\n"
	      "`probe prometheus`), GET /metrics with every running script's, GET / lists them.\n"
	      "Up to 64 clients are served at once (more get 503), each given 5 s for its\n"
	      "whole request (then 408) and 10 s to take the answer.\n",
	      f);
}

int main(int argc, char **argv)
{
	int port = 9900, opt;
	const char *address = "127.0.0.1";

	static const struct option longopts[] = { { "help", no_argument, NULL, 'h' }, { 0 } };

	while ((opt = getopt_long(argc, argv, "p:a:s:vh", longopts, NULL)) != -1) {
		switch (opt) {
		case 'p':
			port = atoi(optarg);
			if (port <= 0 || port > 65535) {
				fprintf(stderr, "stap-exporter: bad port '%s'\n", optarg);
				return 1;
			}
			break;
		case 'a':
			address = optarg;
			break;
		case 's':
			if (!set_scripts_dir(optarg)) {
				fprintf(stderr, "stap-exporter: -s %s: %s\n", optarg, strerror(errno));
				return 1;
			}
			break;
		case 'v':
			verbose = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 1;
		}
	}
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((unsigned short)port) };
	if (inet_pton(AF_INET, address, &sa.sin_addr) != 1) {
		fprintf(stderr, "stap-exporter: bad address '%s'\n", address);
		return 1;
	}
	int ls = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0), one = 1;
	setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
	if (ls < 0 || bind(ls, (struct sockaddr *)&sa, sizeof sa) < 0 || listen(ls, SOMAXCONN) < 0) {
		fprintf(stderr, "stap-exporter: cannot listen on %s:%d: %s\n", address, port,
			strerror(errno));
		return 1;
	}
	if (scripts_dir)
		check_scripts_dir();
	fit_clients_to_limit();
	for (int i = 0; i < MAX_CLIENTS; i++)
		clients[i].fd = -1;
	/* The signals come only while ppoll() waits, so that one arriving just
	 * before it cannot be missed. */
	sigset_t handled;
	sigemptyset(&handled);
	sigaddset(&handled, SIGTERM);
	sigaddset(&handled, SIGINT);
	sigaddset(&handled, SIGCHLD);
	sigprocmask(SIG_BLOCK, &handled, &unblocked);
	struct sigaction act = { .sa_handler = on_stop }, child = { .sa_handler = on_child };
	sigaction(SIGTERM, &act, NULL);
	sigaction(SIGINT, &act, NULL);
	child.sa_flags = SA_NOCLDSTOP;
	sigaction(SIGCHLD, &child, NULL);
	say("listening on %s:%d", address, port);

	struct pollfd fds[1 + MAX_CLIENTS];
	struct client *polled[1 + MAX_CLIENTS];
	long long paused_until = 0;
	while (!stopping) {
		reap();
		long long now = now_ms(), wake = now + 60 * 1000;
		int n = 0;
		bool accepting = now >= paused_until;
		if (accepting)
			fds[n++] = (struct pollfd){ .fd = ls, .events = POLLIN };
		else
			wake = paused_until;
		for (int i = 0; i < max_clients; i++) {
			struct client *c = &clients[i];
			if (c->fd < 0)
				continue;
			if (now >= c->deadline) {
				expire(c);
				continue;
			}
			if (c->deadline < wake)
				wake = c->deadline;
			polled[n] = c;
			short events = c->answering ? POLLOUT : POLLIN;
			fds[n++] = (struct pollfd){ .fd = c->fd, .events = events };
		}
		long long wait_ms = wake - now;
		struct timespec ts = { .tv_sec = wait_ms / 1000,
				       .tv_nsec = wait_ms % 1000 * 1000000 };
		if (ppoll(fds, (nfds_t)n, &ts, &unblocked) <= 0)
			continue; /* a signal, or a deadline */
		now = now_ms();
		/* The clients first: one done leaves room for a new one. */
		for (int i = accepting; i < n; i++) {
			struct client *c = polled[i];
			if (!fds[i].revents)
				continue;
			if (!c->answering)
				read_request(c, now);
			else if (send_some(c))
				drop(c);
		}
		if (accepting && fds[0].revents)
			paused_until = accept_clients(ls, now);
	}
	for (int i = 0; i < MAX_CLIENTS; i++)
		if (clients[i].fd >= 0)
			drop(&clients[i]);
	/* The scripts it started stop with it (stap unloads them on SIGTERM). */
	for (int i = 0; i < MAX_STARTED; i++)
		if (started[i].pid)
			kill(started[i].pid, SIGTERM);
	while (wait(NULL) > 0)
		;
	return 0;
}
