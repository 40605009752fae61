// SPDX-License-Identifier: GPL-2.0-or-later
/* Helpers shared by every part of the translator; see util.h. */
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "private.h"

static const char *progname = "stap";

void util_set_progname(const char *name)
{
	progname = name;
}

void fatal(const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "%s: ", progname);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

#ifdef __SANITIZE_ADDRESS__
/* The syntax tree and what hangs off it live until exit by design
 * (ast.h): report memory errors, not those "leaks". */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
	return "detect_leaks=0";
}
#endif

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		fatal("out of memory");
	return p;
}

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);
	if (!p)
		fatal("out of memory");
	return p;
}

void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		fatal("out of memory");
	return p;
}

char *xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

char *xstrndup(const char *s, size_t n)
{
	char *p = xmalloc(n + 1);
	memcpy(p, s, n);
	p[n] = 0;
	return p;
}

char *xvasprintf(const char *fmt, va_list ap)
{
	char *s;
	if (vasprintf(&s, fmt, ap) < 0)
		fatal("out of memory");
	return s;
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *s = xvasprintf(fmt, ap);
	va_end(ap);
	return s;
}

char *hex_string(const unsigned char *p, size_t n)
{
	static const char digits[] = "0123456789abcdef";
	char *s = xmalloc(2 * n + 1);
	for (size_t i = 0; i < n; i++) {
		s[2 * i] = digits[p[i] >> 4];
		s[2 * i + 1] = digits[p[i] & 15];
	}
	s[2 * n] = 0;
	return s;
}

void sb_init(struct strbuf *b)
{
	b->s = NULL;
	b->len = b->cap = 0;
}

void sb_free(struct strbuf *b)
{
	free(b->s);
	sb_init(b);
}

static void sb_grow(struct strbuf *b, size_t extra)
{
	if (b->len + extra + 1 <= b->cap)
		return;
	size_t cap = b->cap ? b->cap : 64;
	while (cap < b->len + extra + 1)
		cap *= 2;
	b->s = xrealloc(b->s, cap);
	b->cap = cap;
}

void sb_add(struct strbuf *b, const char *s, size_t n)
{
	sb_grow(b, n);
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = 0;
}

void sb_puts(struct strbuf *b, const char *s)
{
	sb_add(b, s, strlen(s));
}

void sb_putc(struct strbuf *b, char c)
{
	sb_add(b, &c, 1);
}

void sb_vprintf(struct strbuf *b, const char *fmt, va_list ap)
{
	va_list ap2;
	va_copy(ap2, ap);
	int n = vsnprintf(NULL, 0, fmt, ap2);
	va_end(ap2);
	if (n < 0)
		return;
	sb_grow(b, (size_t)n);
	vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
	b->len += (size_t)n;
}

void sb_printf(struct strbuf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	sb_vprintf(b, fmt, ap);
	va_end(ap);
}

char *sb_detach(struct strbuf *b)
{
	char *s = b->s ? b->s : xstrdup("");
	sb_init(b);
	return s;
}

char *str_replace_all(const char *s, const char *from, const char *to)
{
	struct strbuf b;
	sb_init(&b);
	size_t n = strlen(from);
	const char *p;
	while ((p = strstr(s, from))) {
		sb_add(&b, s, (size_t)(p - s));
		sb_puts(&b, to);
		s = p + n;
	}
	sb_puts(&b, s);
	return sb_detach(&b);
}

void pv_push(struct ptrvec *pv, void *p)
{
	if (pv->n == pv->cap) {
		pv->cap = pv->cap ? pv->cap * 2 : 8;
		pv->v = xrealloc(pv->v, pv->cap * sizeof(void *));
	}
	pv->v[pv->n++] = p;
}

void pv_free(struct ptrvec *pv)
{
	free(pv->v);
	pv->v = NULL;
	pv->n = pv->cap = 0;
}

void pv_free_all(struct ptrvec *pv)
{
	for (size_t i = 0; i < pv->n; i++)
		free(pv->v[i]);
	pv_free(pv);
}

bool pv_has_string(const struct ptrvec *pv, const char *s)
{
	for (size_t i = 0; i < pv->n; i++)
		if (!strcmp(pv->v[i], s))
			return true;
	return false;
}

static uint64_t key_at(const char *elem, size_t key_off)
{
	uint64_t k;
	memcpy(&k, elem + key_off, sizeof k);
	return k;
}

void sort_by_key(void *base, size_t n, size_t size, size_t key_off)
{
	if (n < 2)
		return;
	/* Every byte's counts in one pass; a byte all keys share is skipped. */
	size_t (*count)[256] = xcalloc(8, sizeof *count);
	char *from = base;
	for (size_t i = 0; i < n; i++) {
		uint64_t k = key_at(from + i * size, key_off);
		for (int d = 0; d < 8; d++)
			count[d][(k >> (8 * d)) & 0xff]++;
	}
	char *to = xmalloc(n * size), *spare = to;
	for (int d = 0; d < 8; d++) {
		size_t pos[256], sum = 0;
		bool one_bucket = false;
		for (int v = 0; v < 256; v++) {
			one_bucket |= count[d][v] == n;
			pos[v] = sum;
			sum += count[d][v];
		}
		if (one_bucket)
			continue;
		for (size_t i = 0; i < n; i++) {
			const char *e = from + i * size;
			memcpy(to + pos[(key_at(e, key_off) >> (8 * d)) & 0xff]++ * size, e, size);
		}
		char *t = from;
		from = to;
		to = t;
	}
	if (from != base)
		memcpy(base, from, n * size);
	free(spare);
	free(count);
}

void sort_key_runs(void *base, size_t n, size_t size, size_t key_off, size_t key_len,
		   int (*cmp)(const void *, const void *))
{
	char *b = base;
	for (size_t i = 0, j; i < n; i = j) {
		for (j = i + 1; j < n && !memcmp(b + j * size + key_off, b + i * size + key_off, key_len); j++)
			;
		if (j - i > 1)
			qsort(b + i * size, j - i, size, cmp);
	}
}

uint64_t name_key(const char *s, size_t len)
{
	uint64_t k = 0;
	for (size_t i = 0; i < 8; i++) {
		unsigned char c = i < len ? (unsigned char)s[i] : 0;
		if (!c)
			len = i; /* a C string's end: NUL-padded from here */
		k = (k << 8) | c;
	}
	return k;
}

void names_keys(const char *s, size_t len, uint64_t key[2])
{
	size_t n = strnlen(s, len < 8 ? len : 8);
	key[0] = name_key(s, n);
	key[1] = n == 8 && len > 8 ? name_key(s + 8, len - 8) : 0;
}

void sort_by_name_keys(void *base, size_t n, size_t size, size_t key_off,
		       int (*cmp)(const void *, const void *))
{
	sort_by_key(base, n, size, key_off + sizeof(uint64_t));
	sort_by_key(base, n, size, key_off);
	sort_key_runs(base, n, size, key_off, 2 * sizeof(uint64_t), cmp);
}

char *read_fd(int fd, size_t *len)
{
	struct strbuf b;
	struct stat st;
	sb_init(&b);
	/* A file's size at once: growing by copies was most of reading a
	 * cache file of megabytes. */
	sb_grow(&b, fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0
			    ? (size_t)st.st_size + 1 : 4096);
	for (;;) {
		if (b.cap - b.len < 2)
			sb_grow(&b, 65536);
		ssize_t n = read(fd, b.s + b.len, b.cap - b.len - 1);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			int e = errno;
			sb_free(&b);
			errno = e;
			return NULL;
		}
		if (n == 0)
			break;
		b.len += (size_t)n;
	}
	b.s[b.len] = 0;
	if (len)
		*len = b.len;
	return b.s;
}

char *read_file(const char *path, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	char *text = read_fd(fd, len);
	int e = errno;
	close(fd);
	errno = e;
	return text;
}

bool write_file(const char *path, const void *data, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return false;
	const char *p = data;
	while (len) {
		ssize_t n = write(fd, p, len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			int e = errno;
			close(fd);
			errno = e;
			return false;
		}
		p += n;
		len -= (size_t)n;
	}
	return close(fd) == 0;
}

bool copy_file(const char *from, const char *to, int mode)
{
	size_t len;
	char *data = read_file(from, &len);
	if (!data)
		return false;
	bool ok = write_file(to, data, len) && chmod(to, (mode_t)mode) == 0;
	free(data);
	return ok;
}

bool file_exists(const char *path)
{
	return access(path, F_OK) == 0;
}

bool is_dir(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

bool mkdir_p(const char *path, int mode)
{
	char *p = xstrdup(path);
	for (char *s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = 0;
		if (mkdir(p, (mode_t)mode) < 0 && errno != EEXIST) {
			free(p);
			return false;
		}
		*s = '/';
	}
	bool ok = mkdir(p, (mode_t)mode) == 0 || errno == EEXIST;
	free(p);
	return ok;
}

void remove_tree(const char *path)
{
	forget_temp(path);
	DIR *d = opendir(path);
	if (!d) {
		unlink(path);
		return;
	}
	struct dirent *e;
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		char *sub = path_join(path, e->d_name);
		struct stat st;
		if (lstat(sub, &st) == 0 && S_ISDIR(st.st_mode))
			remove_tree(sub);
		else
			unlink(sub);
		free(sub);
	}
	closedir(d);
	rmdir(path);
}

/*
 * Interruption. make_temp_dir() records each directory until remove_tree()
 * removes it; a command's processes run in a process group of their own.
 * On SIGINT, SIGTERM or SIGHUP the handler stops the running command's
 * whole group (gcc's cc1 and as too) with SIGTERM, and the next checkpoint (the end of
 * run_command, or a pass boundary) removes the recorded directories and
 * exits with 128 + the signal. With no command running and nothing to
 * remove, the handler exits at once.
 */
static struct ptrvec temp_dirs;
static volatile sig_atomic_t caught_signal;
static volatile sig_atomic_t child_group;

void remove_on_signal(const char *path)
{
	pv_push(&temp_dirs, xstrdup(path));
}

void forget_temp(const char *path)
{
	for (size_t i = 0; i < temp_dirs.n; i++) {
		if (!strcmp(temp_dirs.v[i], path)) {
			free(temp_dirs.v[i]);
			temp_dirs.v[i] = temp_dirs.v[--temp_dirs.n];
			return;
		}
	}
}

static void on_stop_signal(int sig)
{
	if (!caught_signal)
		caught_signal = sig;
	/* SIGTERM: gcc then deletes its own temporary files. */
	if (child_group > 0)
		kill(-child_group, SIGTERM);
	else if (temp_dirs.n == 0)
		_exit(128 + sig);
}

void util_catch_signals(void)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_stop_signal;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < ARRAY_SIZE(sigs); i++)
		sigaction(sigs[i], &sa, NULL);
}

void util_check_signal(void)
{
	int sig = caught_signal;
	if (!sig)
		return;
	while (temp_dirs.n) {
		char *dir = xstrdup(temp_dirs.v[temp_dirs.n - 1]);
		remove_tree(dir);
		free(dir);
	}
	fprintf(stderr, "stap: interrupted by %s\n", strsignal(sig));
	exit(128 + sig);
}

char *make_temp_dir(const char *prefix)
{
	/* mkdtemp makes it 0700; temp_parent() checks that nobody else can
	 * replace it. */
	char *tmpl = xasprintf("%s/%s-XXXXXX", temp_parent(), prefix);
	if (!mkdtemp(tmpl))
		fatal("cannot create a temporary directory %s: %s", tmpl, strerror(errno));
	remove_on_signal(tmpl);
	return tmpl;
}

char *path_join(const char *a, const char *b)
{
	size_t n = strlen(a);
	return xasprintf("%s%s%s", a, n && a[n - 1] == '/' ? "" : "/", b);
}

const char *self_dir(void)
{
	static char dir[PATH_MAX];
	if (!dir[0]) {
		ssize_t n = readlink("/proc/self/exe", dir, sizeof dir - 1);
		if (n <= 0)
			return ".";
		dir[n] = 0;
		char *slash = strrchr(dir, '/');
		if (slash)
			*slash = 0;
	}
	return dir;
}

static int wait_status(pid_t pid)
{
	int st;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	if (WIFSIGNALED(st))
		return 128 + WTERMSIG(st);
	return -1;
}

int run_command(const char *const argv[], const char *cwd, char **output)
{
	const char *const *argvs[1] = { argv };
	int status;
	run_commands(argvs, 1, cwd, output, &status);
	return status;
}

void run_commands(const char *const *const argvs[], size_t n, const char *cwd, char **outputs,
		  int *statuses)
{
	util_check_signal();
	pid_t *pids = xcalloc(n, sizeof *pids);
	int *fds = xcalloc(n, sizeof *fds);
	struct strbuf *bufs = xcalloc(n, sizeof *bufs);
	struct pollfd *pfd = xcalloc(n, sizeof *pfd);
	pid_t group = 0;
	for (size_t i = 0; i < n; i++) {
		int pipefd[2] = { -1, -1 };
		fds[i] = -1;
		statuses[i] = -1;
		pids[i] = -1;
		if (outputs && pipe2(pipefd, O_CLOEXEC) < 0)
			continue;
		pid_t pid = fork();
		if (pid < 0) {
			if (outputs) {
				close(pipefd[0]);
				close(pipefd[1]);
			}
			continue;
		}
		if (pid == 0) {
			/* One group for all of them, of their own, which an
			 * interruption kills as a whole. */
			setpgid(0, group);
			if (outputs) {
				dup2(pipefd[1], 1);
				dup2(pipefd[1], 2);
			}
			if (cwd && chdir(cwd) < 0)
				_exit(127);
			execvp(argvs[i][0], (char *const *)argvs[i]);
			fprintf(stderr, "cannot run %s: %s\n", argvs[i][0], strerror(errno));
			_exit(127);
		}
		setpgid(pid, group);
		if (!group)
			group = pid;
		child_group = group;
		pids[i] = pid;
		if (outputs) {
			close(pipefd[1]);
			fds[i] = pipefd[0];
			sb_init(&bufs[i]);
		}
	}
	if (caught_signal && group)
		kill(-group, SIGTERM);
	/* Every output read as it comes, so that no command blocks on a full pipe. */
	for (;;) {
		size_t open = 0;
		for (size_t i = 0; i < n; i++)
			pfd[i] = (struct pollfd){ .fd = fds[i], .events = POLLIN }, open += fds[i] >= 0;
		if (!open)
			break;
		if (poll(pfd, n, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		for (size_t i = 0; i < n; i++) {
			if (fds[i] < 0 || !(pfd[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			char buf[8192];
			ssize_t got = read(fds[i], buf, sizeof buf);
			if (got < 0 && errno == EINTR)
				continue;
			if (got <= 0) {
				close(fds[i]);
				fds[i] = -1;
			} else {
				sb_add(&bufs[i], buf, (size_t)got);
			}
		}
	}
	for (size_t i = 0; i < n; i++) {
		if (fds[i] >= 0)
			close(fds[i]);
		if (outputs)
			outputs[i] = pids[i] > 0 ? sb_detach(&bufs[i]) : xstrdup("cannot start the command");
		if (pids[i] > 0)
			statuses[i] = wait_status(pids[i]);
	}
	child_group = 0;
	if (caught_signal && group) {
		/* The shell has gone; let the rest of its group finish cleaning up
		 * (2 s at most) so that nothing outlives stap. */
		for (int i = 0; i < 200 && kill(-group, 0) == 0; i++)
			usleep(10000);
		kill(-group, SIGKILL);
	}
	free(pids);
	free(fds);
	free(bufs);
	free(pfd);
	util_check_signal();
}

char *find_in_path(const char *name)
{
	if (strchr(name, '/'))
		return access(name, X_OK) == 0 ? xstrdup(name) : NULL;
	const char *path = getenv("PATH");
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin";
	char *copy = xstrdup(path), *save = NULL;
	for (char *dir = strtok_r(copy, ":", &save); dir; dir = strtok_r(NULL, ":", &save)) {
		char *p = path_join(dir, name);
		if (access(p, X_OK) == 0) {
			free(copy);
			return p;
		}
		free(p);
	}
	free(copy);
	return NULL;
}

uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

long rss_kb(void)
{
	char *s = read_file("/proc/self/status", NULL);
	long kb = 0;
	if (s) {
		char *p = strstr(s, "VmRSS:");
		if (p)
			kb = strtol(p + 6, NULL, 10);
		free(s);
	}
	return kb;
}

uint64_t hash_bytes(uint64_t h, const void *data, size_t len)
{
	const unsigned char *p = data;
	for (size_t i = 0; i < len; i++) {
		h ^= p[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

uint64_t hash_words(uint64_t h, const void *data, size_t len)
{
	const unsigned char *p = data;
	size_t i = 0;
	for (; i + 8 <= len; i += 8) {
		uint64_t w;
		memcpy(&w, p + i, sizeof w);
		h = (h ^ w) * 0x9e3779b97f4a7c15ULL;
		h ^= h >> 29;
	}
	return hash_bytes(h, p + i, len - i);
}
