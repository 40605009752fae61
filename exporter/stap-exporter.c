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
 * One request at a time, each bounded (8 KiB of request, 5 s to send it,
 * 1 MiB of metrics): a scrape every few seconds needs no more, and a slow
 * client cannot keep others waiting longer than that.
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#define PROC_DIR "/proc/systemtap"
#define MAX_REQUEST 8192
#define MAX_METRICS (1 << 20)
#define MAX_STARTED 64

static const char *scripts_dir;
static bool verbose;
static volatile sig_atomic_t stopping;

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
	int fd = open(path, O_RDONLY | O_CLOEXEC);
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

/* A scripts directory, and each script in it, must be root's and
 * writable by no one else: the exporter runs as root and runs them. */
static bool trusted(const char *path, char **why)
{
	struct stat st;

	if (stat(path, &st) < 0) {
		*why = strerror(errno);
		return false;
	}
	if (st.st_uid != 0 || (st.st_mode & 022)) {
		*why = "not root's, or writable by others";
		return false;
	}
	return true;
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

/* Starts DIR/NAME.stp unless it is running; what to tell the client. */
static const char *start_script(const char *name)
{
	char path[4096], *why;
	int slot = -1;

	snprintf(path, sizeof path, "%s/%s.stp", scripts_dir, name);
	if (access(path, R_OK) < 0)
		return NULL;
	for (int i = 0; i < MAX_STARTED; i++) {
		if (started[i].pid && !strcmp(started[i].name, name))
			return "starting\n";
		if (!started[i].pid && slot < 0)
			slot = i;
	}
	if (slot < 0)
		return "too many scripts started\n";
	if (!trusted(scripts_dir, &why) || !trusted(path, &why)) {
		fprintf(stderr, "stap-exporter: not running %s: %s\n", path, why);
		return "the script is not trusted (see the exporter's messages)\n";
	}
	pid_t pid = fork();
	if (pid < 0)
		return "cannot start the script\n";
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);
		if (null >= 0) {
			dup2(null, 0);
			dup2(null, 1);
		}
		execlp("stap", "stap", "-m", name, path, (char *)NULL);
		fprintf(stderr, "stap-exporter: cannot run stap: %s\n", strerror(errno));
		_exit(127);
	}
	say("started %s (pid %d)", path, (int)pid);
	started[slot].pid = pid;
	snprintf(started[slot].name, sizeof started[slot].name, "%s", name);
	return "starting\n";
}

static void send_all(int fd, const char *p, size_t n)
{
	while (n > 0) {
		ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
		if (w <= 0)
			return;
		p += w;
		n -= (size_t)w;
	}
}

static void respond(int fd, int code, const char *reason, const char *type, const char *body,
		    size_t len, bool head)
{
	char hdr[512];
	int n = snprintf(hdr, sizeof hdr,
			 "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n"
			 "%sConnection: close\r\n\r\n",
			 code, reason, type, len, code == 503 ? "Retry-After: 5\r\n" : "");
	send_all(fd, hdr, (size_t)n);
	if (!head)
		send_all(fd, body, len);
}

static void respond_text(int fd, int code, const char *reason, const char *text, bool head)
{
	respond(fd, code, reason, "text/plain; charset=utf-8", text, strlen(text), head);
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

static void serve(int fd)
{
	char req[MAX_REQUEST + 1];
	size_t n = 0;
	struct timeval tv = { .tv_sec = 5 };

	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
	while (n < MAX_REQUEST) {
		ssize_t r = recv(fd, req + n, MAX_REQUEST - n, 0);
		if (r <= 0)
			break;
		n += (size_t)r;
		req[n] = 0;
		if (strstr(req, "\r\n\r\n") || strstr(req, "\n\n"))
			break;
	}
	req[n] = 0;
	char method[8], target[256];
	if (sscanf(req, "%7s %255s", method, target) != 2) {
		respond_text(fd, 400, "Bad Request", "bad request\n", false);
		return;
	}
	bool head = !strcmp(method, "HEAD");
	if (strcmp(method, "GET") && !head) {
		respond_text(fd, 405, "Method Not Allowed", "only GET and HEAD\n", false);
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
		respond(fd, 200, "OK", "text/plain; charset=utf-8", out.p ? out.p : "", out.n, head);
	} else if (!strcmp(name, "metrics")) {
		list_modules(&out, true);
		respond(fd, 200, "OK", "text/plain; version=0.0.4; charset=utf-8", out.p ? out.p : "",
			out.n, head);
	} else if (!valid_name(name)) {
		respond_text(fd, 404, "Not Found", "no such script\n", head);
	} else if (read_metrics(name, &out)) {
		respond(fd, 200, "OK", "text/plain; version=0.0.4; charset=utf-8", out.p, out.n, head);
	} else {
		const char *why = scripts_dir ? start_script(name) : NULL;
		if (why)
			respond_text(fd, 503, "Service Unavailable", why, head);
		else
			respond_text(fd, 404, "Not Found", "no running script has that name\n", head);
	}
	free(out.p);
}

static void on_stop(int sig)
{
	(void)sig;
	stopping = 1;
}

static void usage(FILE *f)
{
	fputs("Usage: stap-exporter [-p PORT] [-a ADDRESS] [-s SCRIPTS-DIR] [-v]\n"
	      "Serve running Tapline scripts' Prometheus metrics over HTTP.\n\n"
	      "  -p PORT     listen on PORT (default 9900)\n"
	      "  -a ADDRESS  listen on this IPv4 address (default 127.0.0.1; 0.0.0.0 for all)\n"
	      "  -s DIR      GET /NAME starts DIR/NAME.stp (stap -m NAME) when it is not\n"
	      "              running; DIR and its scripts must be root's, writable by no one else\n"
	      "  -v          say each request and each script started on standard error\n"
	      "  -h, --help  show this and exit\n\n"
	      "GET /NAME answers with /proc/systemtap/NAME/__prometheus (a script's\n"
	      "`probe prometheus`), GET /metrics with every running script's, GET / lists them.\n",
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
			scripts_dir = optarg;
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
	int ls = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1;
	setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
	if (ls < 0 || bind(ls, (struct sockaddr *)&sa, sizeof sa) < 0 || listen(ls, 16) < 0) {
		fprintf(stderr, "stap-exporter: cannot listen on %s:%d: %s\n", address, port,
			strerror(errno));
		return 1;
	}
	struct sigaction act = { .sa_handler = on_stop };
	sigaction(SIGTERM, &act, NULL);
	sigaction(SIGINT, &act, NULL);
	say("listening on %s:%d", address, port);
	while (!stopping) {
		int fd = accept4(ls, NULL, NULL, SOCK_CLOEXEC);
		reap();
		if (fd < 0)
			continue;
		serve(fd);
		close(fd);
	}
	/* The scripts it started stop with it (stap unloads them on SIGTERM). */
	for (int i = 0; i < MAX_STARTED; i++)
		if (started[i].pid)
			kill(started[i].pid, SIGTERM);
	while (wait(NULL) > 0)
		;
	return 0;
}
