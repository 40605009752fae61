// SPDX-License-Identifier: GPL-2.0-or-later
/* Private directories for caches and temporary files; see private.h. */
#include "private.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util.h"

/* Symbolic links followed on one path at most, as the kernel's limit. */
#define MAX_LINKS 40

/*
 * What lets another user change what is in a directory, or NULL. A
 * directory on the way may be root's, and may be writable by others if it
 * is sticky; our own private directory must be ours and writable by us
 * alone.
 */
static char *dir_problem(const struct stat *st, bool ours)
{
	unsigned me = (unsigned)geteuid(), owner = (unsigned)st->st_uid;
	unsigned mode = (unsigned)st->st_mode & 07777;
	if (!S_ISDIR(st->st_mode))
		return xstrdup("not a directory");
	if (owner != me && (ours || owner != 0))
		return ours ? xasprintf("owned by uid %u, not by you (uid %u)", owner, me)
			    : xasprintf("owned by uid %u", owner);
	if ((mode & (S_IWGRP | S_IWOTH)) && (ours || !(mode & S_ISVTX)))
		return xasprintf("writable by %s (mode %04o)%s",
				 (mode & S_IWOTH) ? "others" : "its group", mode,
				 ours ? "" : " and not sticky");
	return NULL;
}

/*
 * Follow path from / as the kernel would, checking every directory on the
 * way with dir_problem(st, false) and every symbolic link (which must be
 * root's or ours: the directory holding it has been checked, so then
 * nobody else can change it). Returns what is wrong, with *where the
 * offending path and *itself whether that is where path leads; or NULL,
 * with *end the stat of where it leads (for the caller to check), or
 * *found false if it does not exist.
 */
static char *walk(const char *path, char **where, bool *itself, struct stat *end, bool *found)
{
	char *cwd = path[0] == '/' ? NULL : getcwd(NULL, 0);
	char *todo = cwd ? path_join(cwd, path) : xstrdup(path);
	free(cwd);
	struct strbuf cur; /* the real path so far; empty: / */
	sb_init(&cur);
	sb_puts(&cur, "");
	char *why = NULL;
	int links = 0;
	*found = true;
	*itself = false;
	if (lstat("/", end) < 0)
		why = xasprintf("unreadable (%s)", strerror(errno));
	else
		why = dir_problem(end, false);
	if (why)
		*where = xstrdup("/");
	const char *p = todo;
	while (!why && *found) {
		while (*p == '/')
			p++;
		if (!*p)
			break;
		size_t n = strcspn(p, "/");
		char *name = xstrndup(p, n);
		p += n;
		if (!strcmp(name, ".") || !strcmp(name, "..")) {
			char *slash = strrchr(cur.s, '/');
			if (name[1] && slash)
				cur.s[cur.len = (size_t)(slash - cur.s)] = 0;
			free(name);
			lstat(cur.len ? cur.s : "/", end);
			continue;
		}
		size_t len_before = cur.len;
		sb_putc(&cur, '/');
		sb_puts(&cur, name);
		free(name);
		if (lstat(cur.s, end) < 0) {
			if (errno == ENOENT)
				*found = false;
			else
				why = xasprintf("unreadable (%s)", strerror(errno));
		} else if (S_ISLNK(end->st_mode)) {
			char target[4096];
			ssize_t len = readlink(cur.s, target, sizeof target - 1);
			if (end->st_uid != 0 && end->st_uid != geteuid())
				why = xasprintf("a symbolic link owned by uid %u", (unsigned)end->st_uid);
			else if (len < 0)
				why = xasprintf("unreadable (%s)", strerror(errno));
			else if (++links > MAX_LINKS)
				why = xstrdup("a symbolic link in a loop");
			if (!why) {
				target[len] = 0;
				char *more = xasprintf("%s/%s", target, p);
				free(todo);
				p = todo = more;
				cur.s[cur.len = target[0] == '/' ? 0 : len_before] = 0;
			}
		} else if (p[strspn(p, "/")]) {
			why = dir_problem(end, false);
		}
		if (why) {
			*where = xstrdup(cur.s);
			*itself = !p[strspn(p, "/")];
		}
	}
	free(todo);
	sb_free(&cur);
	return why;
}

static struct ptrvec checked; /* directories found private already */

void private_dir(const char *dir, bool create, const char *what, const char *elsewhere)
{
	if (pv_has_string(&checked, dir))
		return;
	if (create && !mkdir_p(dir, 0700))
		fatal("cannot create %s %s: %s; %s", what, dir, strerror(errno), elsewhere);
	char *where = NULL;
	struct stat st;
	bool found, itself;
	char *why = walk(dir, &where, &itself, &st, &found);
	if (!why && !found)
		return;
	if (!why && !S_ISDIR(st.st_mode))
		fatal("cannot use %s %s: it is not a directory; %s", what, dir, elsewhere);
	if (!why) {
		why = dir_problem(&st, true);
		itself = true;
	}
	if (why) {
		/* The directory itself may already hold what someone else put
		 * there: it goes. One on its path is someone else's business. */
		if (itself)
			fatal("cannot use %s %s: it is %s, so another user could change what stap "
			      "reads and runs from it; remove it (stap makes a new one, private), or %s",
			      what, dir, why, elsewhere);
		fatal("cannot use %s %s: %s on its path is %s, so another user could replace it; %s",
		      what, dir, where, why, elsewhere);
	}
	pv_push(&checked, xstrdup(dir));
}

/* $HOME, or the home directory the password database gives (HOME may be
 * unset under sudo, cron, systemd); never a name in a shared /tmp, which
 * another user could create first. */
static char *cache_root(void)
{
	const char *xdg = getenv("XDG_CACHE_HOME");
	/* The XDG specification: a relative path is to be ignored. */
	if (xdg && xdg[0] == '/')
		return path_join(xdg, "tapline");
	const char *home = getenv("HOME");
	if (!home || home[0] != '/') {
		struct passwd *pw = getpwuid(geteuid());
		home = pw && pw->pw_dir && pw->pw_dir[0] == '/' ? pw->pw_dir : NULL;
	}
	if (!home)
		fatal("no cache directory: HOME is not set and uid %u has no home directory in the "
		      "password database; set XDG_CACHE_HOME or HOME to a directory of your own",
		      (unsigned)geteuid());
	return path_join(home, ".cache/tapline");
}

void private_dirs_forget(void)
{
	checked = (struct ptrvec){ 0 };
}

char *cache_dir(const char *sub)
{
	static const char what[] = "the cache directory";
	static const char elsewhere[] = "set XDG_CACHE_HOME to a directory of your own";
	char *dir = cache_root();
	private_dir(dir, true, what, elsewhere);
	/* Each level: stap reads back what is in each of them. */
	char *copy = sub ? xstrdup(sub) : NULL, *save = NULL;
	for (char *c = copy ? strtok_r(copy, "/", &save) : NULL; c; c = strtok_r(NULL, "/", &save)) {
		char *next = path_join(dir, c);
		free(dir);
		dir = next;
		private_dir(dir, true, what, elsewhere);
	}
	free(copy);
	return dir;
}

const char *temp_parent(void)
{
	static char *parent;
	if (parent)
		return parent;
	const char *tmp = getenv("TMPDIR");
	if (!tmp || !*tmp)
		tmp = "/tmp";
	/* Absolute: compilers run in the kernel's build tree. */
	char *cwd = tmp[0] == '/' ? NULL : getcwd(NULL, 0);
	parent = cwd ? path_join(cwd, tmp) : xstrdup(tmp);
	free(cwd);
	char *where = NULL;
	struct stat st;
	bool found, itself;
	char *why = walk(parent, &where, &itself, &st, &found);
	if (!why && found && (why = dir_problem(&st, false)))
		where = xstrdup(parent);
	if (why)
		fatal("cannot make temporary files in %s: %s is %s, so another user could replace "
		      "them; set TMPDIR to a directory of your own, or unset it",
		      parent, where, why);
	return parent;
}

char *private_entry_problem(const char *path)
{
	struct stat st;
	if (lstat(path, &st) < 0)
		return xasprintf("%s cannot be read: %s", path, strerror(errno));
	unsigned mode = (unsigned)st.st_mode & 07777;
	if (S_ISLNK(st.st_mode))
		return xasprintf("%s is a symbolic link", path);
	if (st.st_uid != geteuid())
		return xasprintf("%s is owned by uid %u", path, (unsigned)st.st_uid);
	if (mode & (S_IWGRP | S_IWOTH))
		return xasprintf("%s is writable by %s (mode %04o)", path,
				 (mode & S_IWOTH) ? "others" : "its group", mode);
	return NULL;
}

char *private_tree_problem(const char *dir)
{
	char *why = private_entry_problem(dir);
	if (why || !is_dir(dir))
		return why;
	DIR *d = opendir(dir);
	if (!d)
		return xasprintf("%s cannot be read: %s", dir, strerror(errno));
	struct dirent *e;
	while (!why && (e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		char *sub = path_join(dir, e->d_name);
		why = private_tree_problem(sub);
		free(sub);
	}
	closedir(d);
	return why;
}

void write_sealed_file(const char *path, struct strbuf *b)
{
	sb_printf(b, "end %016llx\n", (unsigned long long)hash_words(HASH_INIT, b->s, b->len));
	char *tmp = xasprintf("%s.%d", path, (int)getpid());
	if (!write_file(tmp, b->s, b->len) || rename(tmp, path) != 0)
		unlink(tmp);
	free(tmp);
}

/* The file at path open for reading if it is ours alone (a regular
 * file, not a symbolic link, owned by us, written by no one else); -1
 * with *why (malloced) otherwise. */
static int open_private(const char *path, struct stat *st, char **why)
{
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	*why = NULL;
	if (fd < 0)
		*why = errno == ELOOP ? xasprintf("%s is a symbolic link", path)
				      : xasprintf("%s cannot be read: %s", path, strerror(errno));
	else if (fstat(fd, st) < 0 || !S_ISREG(st->st_mode))
		*why = xasprintf("%s is not a regular file", path);
	else if (st->st_uid != geteuid())
		*why = xasprintf("%s is owned by uid %u", path, (unsigned)st->st_uid);
	else if (st->st_mode & (S_IWGRP | S_IWOTH))
		*why = xasprintf("%s is writable by %s (mode %04o)", path,
				 (st->st_mode & S_IWOTH) ? "others" : "its group",
				 (unsigned)st->st_mode & 07777);
	if (*why && fd >= 0) {
		close(fd);
		fd = -1;
	}
	return fd;
}

char *read_private_file(const char *path, size_t *len, char **why)
{
	struct stat st;
	int fd = open_private(path, &st, why);
	if (fd < 0)
		return NULL;
	char *text = read_fd(fd, len);
	if (!text)
		*why = xasprintf("%s cannot be read: %s", path, strerror(errno));
	close(fd);
	return text;
}

/* The length of text's lines before a matching seal, 0 when it has none. */
static size_t sealed_length(const char *text, size_t len)
{
	if (len < 2 || text[len - 1] != '\n')
		return 0;
	const char *last = text + len - 1;
	char *end;
	while (last > text && last[-1] != '\n')
		last--;
	if (last == text || strncmp(last, "end ", 4) ||
	    strtoull(last + 4, &end, 16) != hash_words(HASH_INIT, text, (size_t)(last - text)) ||
	    *end != '\n')
		return 0;
	return (size_t)(last - text);
}

char *read_sealed_file(const char *path, size_t *len)
{
	char *why = NULL;
	char *text = file_exists(path) ? read_private_file(path, len, &why) : NULL;
	free(why);
	size_t n = text ? sealed_length(text, *len) : 0;
	if (!n) {
		free(text);
		return NULL;
	}
	/* Kept by callers as long as what they make of it: no larger than
	 * it is (read_fd's buffer may be twice the file, and a wildcard
	 * reads thousands). */
	*len = n;
	text = xrealloc(text, n + 1);
	text[n] = 0;
	return text;
}

const char *map_sealed_file(const char *path, size_t *len, size_t *map_len)
{
	char *why = NULL;
	struct stat st;
	int fd = file_exists(path) ? open_private(path, &st, &why) : -1;
	free(why);
	if (fd < 0)
		return NULL;
	void *m = st.st_size > 0 ? mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0)
				 : MAP_FAILED;
	close(fd);
	if (m == MAP_FAILED)
		return NULL;
	size_t n = sealed_length(m, (size_t)st.st_size);
	if (!n) {
		munmap(m, (size_t)st.st_size);
		return NULL;
	}
	*len = n;
	*map_len = (size_t)st.st_size;
	return m;
}
