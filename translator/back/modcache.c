// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The compiled-module cache: a script run again unchanged goes from pass 1
 * straight to pass 5 with the module built last time.
 *
 * An entry is found by a key computed right after pass 1, from everything
 * that decides the module and is cheap to know then: the translator (its
 * version, its executable, the runtime's sources), every source parsed
 * (the script, and the tapset files it needed, by content), the command
 * line but for the options that only decide how it runs or what is
 * printed, the working directory (relative paths), the environment the
 * translator reads, the target kernel's build-id, and the state of the
 * kernel's modules and debug information (modules.dep, the debug files'
 * sizes and times). What pass 2 alone finds out, the user-space files the
 * probes are placed in, is written in the entry (`deps`: each file's
 * device, inode, size and time) and checked at every hit: a program
 * rebuilt since is a miss.
 *
 * The cache is private like every other (private.h): an entry not ours
 * alone, a module whose checksum does not match it, or anything else
 * amiss is a miss, never loaded, and the entry is built again. Nothing in
 * an entry is run. Entries are made in a temporary directory and renamed
 * into place, so a reader never sees half of one. Past the size cap
 * (TAPLINE_CACHE_MB, 256 MiB by default) the least recently used entries
 * go.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "back/back.h"
#include "debuginfo/kernel.h"
#include "front/diag.h"
#include "front/source.h"
#include "private.h"
#include "contract/module.h"
#include "contract/sha256.h"

/* Bump when the key's inputs or an entry's layout change. */
#define MODCACHE_FORMAT 1
#define MODCACHE_DEFAULT_MB 256


static void hash_str(struct sha256 *h, const char *tag, const char *s)
{
	sha256_update(h, tag, strlen(tag) + 1);
	if (s)
		sha256_update(h, s, strlen(s) + 1);
	else
		sha256_update(h, "", 0);
}

/* A file's identity and state as stat() gives them, the same text for
 * the key, an entry's deps and its module's stamp: "DEVICE INODE SIZE
 * SECONDS.NANOSECONDS"; NULL when it cannot be stat'ed. */
static char *stat_text(const char *path)
{
	struct stat st;
	if (stat(path, &st) < 0)
		return NULL;
	return xasprintf("%llu %llu %lld %lld.%09ld", (unsigned long long)st.st_dev,
			 (unsigned long long)st.st_ino, (long long)st.st_size,
			 (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
}

/* A file's identity and state, or its absence, into the key. */
static void hash_stat(struct sha256 *h, const char *path)
{
	char *t = stat_text(path);
	hash_str(h, path, t ? t : "absent");
	free(t);
}

/* Options that only decide how the module runs or what stap prints
 * (their argument, if any, is skipped with them). Anything else counts. */
static int run_only_option(const char *a)
{
	static const char *const with_arg[] = { "-p", "-o", "-S", "--vm-timeout", "--vm-file",
						"--vm-net", "--vm-module" };
	static const char *const alone[] = { "-v", "-vv", "-vvv", "-vvvv", "-k", "-q", "-w",
					     "-F", "--vm", "--disable-cache" };
	for (size_t i = 0; i < ARRAY_SIZE(alone); i++)
		if (!strcmp(a, alone[i]))
			return 1;
	for (size_t i = 0; i < ARRAY_SIZE(with_arg); i++) {
		size_t n = strlen(with_arg[i]);
		if (!strncmp(a, with_arg[i], n)) {
			if (!a[n])
				return 2; /* the argument follows */
			if (a[n] == '=' || (with_arg[i][1] != '-' && a[n]))
				return 1; /* -p4, --vm-file=X */
		}
	}
	return 0;
}

/* Files whose time and size stand for what pass 2 may read of a kernel:
 * its modules (depmod rewrites modules.dep when any is added or rebuilt)
 * and its debug information, installed or not. */
static void hash_kernel_files(struct sha256 *h, const char *release, const char *build_id)
{
	/* Each path is the pair's first part, the release, its second. */
	static const char *const parts[][2] = {
		{ "/lib/modules/", "/modules.dep" },
		{ "/usr/lib/debug/boot/vmlinux-", "" },
		{ "/usr/lib/debug/lib/modules/", "/vmlinux" },
		{ "/usr/lib/debug/lib/modules/", "" },
		{ "/usr/lib/debug/lib/modules/", "/debug.a" },
		{ "/lib/modules/", "/debug.a" },
		{ "/lib/modules/", "/build/vmlinux" },
		{ "/boot/vmlinux-", "" },
	};
	for (size_t i = 0; i < ARRAY_SIZE(parts); i++) {
		char *p = xasprintf("%s%s%s", parts[i][0], release, parts[i][1]);
		hash_stat(h, p);
		free(p);
	}
	char *p = xasprintf("/usr/lib/debug/.build-id/%.2s/%s.debug", build_id, build_id + 2);
	hash_stat(h, p);
	free(p);
}

struct modcache {
	struct sha256 partial;  /* the key but for the kernel */
	char key[SHA256_HEX];   /* "": not known yet (the kernel's build-id was not) */
	char *build_id;         /* the kernel's, in the key */
	char *root;             /* the cache's compiled/ directory */
	char *entry;            /* root/key */
};

/* The key, once the kernel's build-id is known. */
static void finish_key(struct modcache *c, const char *release, const char *build_id)
{
	struct sha256 h = c->partial;
	unsigned char digest[SHA256_BYTES];
	hash_str(&h, "kernel", build_id);
	hash_kernel_files(&h, release, build_id);
	sha256_final(&h, digest);
	sha256_to_hex(digest, c->key);
	free(c->build_id);
	c->build_id = xstrdup(build_id);
	free(c->entry);
	c->entry = path_join(c->root, c->key);
}

struct modcache *modcache_open(struct session *s)
{
	const char *off = getenv("TAPLINE_DISABLE_CACHE");
	if (s->disable_cache || (off && *off && strcmp(off, "0")) || s->last_pass < 4 || s->list)
		return NULL;
	struct sha256 h;
	sha256_init(&h);
	char fmt[32];
	snprintf(fmt, sizeof fmt, "%d", MODCACHE_FORMAT);
	hash_str(&h, "format", fmt);
	hash_str(&h, "version", TAPLINE_VERSION);
	hash_stat(&h, "/proc/self/exe");
	char *exe = realpath("/proc/self/exe", NULL);
	if (exe)
		hash_stat(&h, exe);
	free(exe);
	char runtime[32];
	snprintf(runtime, sizeof runtime, "%016llx", (unsigned long long)stub_runtime_hash(s->runtime_dir));
	hash_str(&h, "runtime", runtime);
	/* Every source parsed, by content: the script, -T's, the tapsets. */
	for (int i = 0; i < src_count(); i++) {
		const struct source *src = src_get(i);
		hash_str(&h, "source", src->name);
		sha256_update(&h, src->text, src->len);
	}
	/* The options (and the script's file name), then the script's own
	 * arguments, whatever they look like. */
	int nopts = s->argc - s->nscript_args;
	for (int i = 1; i < nopts; i++) {
		int skip = run_only_option(s->argv[i]);
		if (skip) {
			i += skip - 1;
			continue;
		}
		hash_str(&h, "option", s->argv[i]);
	}
	for (int i = nopts > 1 ? nopts : 1; i < s->argc; i++)
		hash_str(&h, "script argument", s->argv[i]);
	char *cwd = getcwd(NULL, 0);
	hash_str(&h, "cwd", cwd);
	free(cwd);
	static const char *const env[] = { "PATH", "DEBUGINFOD_URLS", "TAPLINE_DATADIR",
					   "TAPLINE_BUILD_WITH_KBUILD", "TAPLINE_NO_SYSTEM_DEBUGINFO",
					   "TAPLINE_NO_SYSTEM_SIGNING_KEY", "TAPLINE_NO_DWSCAN",
					   "TAPLINE_CHECK_DECL_FILE", "SRCARCH" };
	for (size_t i = 0; i < ARRAY_SIZE(env); i++)
		hash_str(&h, env[i], getenv(env[i]));
	hash_str(&h, "release", s->release);
	/* A signature is made with these: a new key is a new module. */
	if (s->sign_key)
		hash_stat(&h, s->sign_key);
	if (s->sign_cert)
		hash_stat(&h, s->sign_cert);

	struct modcache *c = xcalloc(1, sizeof *c);
	c->partial = h;
	c->root = cache_dir("compiled");
	/* Known without reading the kernel image, or after pass 2 read it. */
	char *build_id = kernel_known_build_id(s->release);
	if (build_id)
		finish_key(c, s->release, build_id);
	free(build_id);
	return c;
}

void modcache_free(struct modcache *c)
{
	if (!c)
		return;
	free(c->root);
	free(c->entry);
	free(c->build_id);
	free(c);
}

/* A regular file's stat_text as a line, or NULL. */
static char *file_stamp(const char *path)
{
	struct stat st;
	if (lstat(path, &st) < 0 || !S_ISREG(st.st_mode))
		return NULL;
	char *t = stat_text(path), *line = t ? xasprintf("%s\n", t) : NULL;
	free(t);
	return line;
}

/* Why the entry's deps no longer hold (NULL: they do). */
static char *deps_problem(const char *deps)
{
	char *why = NULL;
	const char *line = deps;
	while (!why && line && *line) {
		const char *nl = strchr(line, '\n');
		size_t n = nl ? (size_t)(nl - line) : strlen(line);
		char *l = xstrndup(line, n);
		/* "STAT_TEXT PATH": the path starts at the first '/'. */
		char *path = strchr(l, '/');
		if (!path || path == l || path[-1] != ' ') {
			why = xstrdup("its list of files is damaged");
		} else {
			path[-1] = 0;
			char *now = stat_text(path);
			if (!now)
				why = xasprintf("%s is gone", path);
			else if (strcmp(now, l))
				why = xasprintf("%s changed since the module was built", path);
			free(now);
		}
		free(l);
		line = nl ? nl + 1 : NULL;
	}
	return why;
}

/* Why module image (len bytes) is not a whole Tapline module of its own
 * checksum (NULL: it is). */
static char *module_problem(const unsigned char *image, size_t len, const char *path)
{
	struct sr_modinfo mi;
	char err[SR_ERR_MAX];
	uint64_t at = 0;
	size_t content = 0, sig = 0;
	if (sr_signature_split(image, len, &content, &sig, path, err, sizeof err))
		return xstrdup(err);
	memset(&mi, 0, sizeof mi);
	bool ok = !sr_modinfo_parse(image, content, path, &mi, err, sizeof err) &&
		  !sr_checksum_locate(&mi, &at, path, err, sizeof err);
	sr_modinfo_free(&mi);
	if (!ok)
		return xstrdup(err);
	if (!sr_checksum_matches(image, content, at))
		return xasprintf("%s does not match its checksum", path);
	return NULL;
}

bool modcache_lookup(struct modcache *c, struct session *s)
{
	if (!c)
		return false;
	if (!c->key[0]) {
		if (s->verbose)
			fprintf(stderr, "Pass 1: module cache: miss: kernel %s's build-id is not known "
					"before pass 2 reads its image (next time it is)\n",
				s->release);
		return false;
	}
	char *why = NULL, *name = NULL, *deps = NULL, *stamp = NULL;
	char *ko_path = path_join(c->entry, "module.ko");
	char *stamp_path = path_join(c->entry, "stamp");
	char *name_path = path_join(c->entry, "name");
	char *deps_path = path_join(c->entry, "deps");
	bool hit = false;

	if (!is_dir(c->entry)) {
		if (s->verbose)
			fprintf(stderr, "Pass 1: module cache: miss: no module built for this script, "
					"these options and kernel %s yet\n",
				s->release);
		goto out;
	}
	if ((why = private_tree_problem(c->entry)))
		goto bad;
	name = read_private_file(name_path, NULL, &why);
	if (!why)
		deps = read_private_file(deps_path, NULL, &why);
	if (!why)
		stamp = read_private_file(stamp_path, NULL, &why);
	if (!why && (why = private_entry_problem(ko_path)) == NULL) {
		/* The module as it was kept (its whole checksum is staprun's to
		 * check, as it reads the module to load it). */
		char *now = file_stamp(ko_path);
		if (!now || strcmp(now, stamp))
			why = xstrdup("the module changed since it was kept");
		free(now);
	}
	if (why)
		goto bad;
	name[strcspn(name, "\n")] = 0;
	if (!*name || strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") !=
			      strlen(name) ||
	    (s->module_name && strcmp(name, s->module_name))) {
		why = xstrdup("its module name is damaged");
		goto bad;
	}
	if ((why = deps_problem(deps))) {
		/* Not damaged: out of date. Built again, and replaced. */
		if (s->verbose)
			fprintf(stderr, "Pass 1: module cache: miss: %s\n", why);
		goto out;
	}
	if (!s->module_name)
		s->module_name = xstrdup(name);
	if (!s->tmpdir)
		s->tmpdir = make_temp_dir("tapline");
	/* Used as it is: staprun reads it once, whole, and checks it. */
	utimensat(AT_FDCWD, c->entry, NULL, 0);
	s->ko_file = ko_path;
	ko_path = NULL;
	hit = true;
	if (s->verbose)
		fprintf(stderr, "Pass 1: module cache: hit: %s (passes 2 to 4 skipped)\n", c->entry);
	goto out;
bad:
	/* Damaged or not ours alone: never used; built again in its place. */
	fprintf(stderr, "stap: warning: the cached module %s is not used: %s; building it again\n",
		c->entry, why);
out:
	free(why);
	free(name);
	free(deps);
	free(stamp);
	free(ko_path);
	free(stamp_path);
	free(name_path);
	free(deps_path);
	return hit;
}

static unsigned long long tree_bytes(const char *dir)
{
	unsigned long long n = 0;
	DIR *d = opendir(dir);
	struct dirent *e;
	while (d && (e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		char *p = path_join(dir, e->d_name);
		struct stat st;
		if (lstat(p, &st) == 0)
			n += S_ISDIR(st.st_mode) ? tree_bytes(p) : (unsigned long long)st.st_blocks * 512;
		free(p);
	}
	if (d)
		closedir(d);
	return n;
}

struct aged {
	char *path;
	struct timespec used;
	unsigned long long bytes;
};

static int older_first(const void *a, const void *b)
{
	const struct aged *x = a, *y = b;
	if (x->used.tv_sec != y->used.tv_sec)
		return x->used.tv_sec < y->used.tv_sec ? -1 : 1;
	return x->used.tv_nsec < y->used.tv_nsec ? -1 : x->used.tv_nsec > y->used.tv_nsec;
}

/* Past the cap, the least recently used entries go (keep: the one just
 * made, whatever its size). */
static void trim(const char *root, const char *keep, bool verbose)
{
	const char *env = getenv("TAPLINE_CACHE_MB");
	unsigned long long cap = (unsigned long long)(env && *env ? strtoull(env, NULL, 10)
								  : MODCACHE_DEFAULT_MB) << 20;
	struct aged *all = NULL;
	size_t n = 0;
	unsigned long long total = 0;
	DIR *d = opendir(root);
	struct dirent *e;
	while (d && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		char *p = path_join(root, e->d_name);
		struct stat st;
		if (lstat(p, &st) < 0 || !S_ISDIR(st.st_mode)) {
			free(p);
			continue;
		}
		all = xrealloc(all, (n + 1) * sizeof *all);
		all[n] = (struct aged){ p, st.st_mtim, tree_bytes(p) };
		total += all[n].bytes;
		n++;
	}
	if (d)
		closedir(d);
	qsort(all, n, sizeof *all, older_first);
	for (size_t i = 0; i < n; i++) {
		if (total > cap && strcmp(all[i].path, keep)) {
			if (verbose)
				fprintf(stderr, "Pass 4: module cache: over %llu MiB: removing the least "
						"recently used %s\n",
					cap >> 20, all[i].path);
			remove_tree(all[i].path);
			total -= all[i].bytes;
		}
		free(all[i].path);
	}
	free(all);
}

/* The user-space files pass 2 placed probes in, as deps lines. */
static char *deps_of(const struct session *s)
{
	struct strbuf b;
	sb_init(&b);
	struct ptrvec seen = { 0 };
	for (size_t i = 0; i < s->prog.probes.n; i++) {
		const struct probe *p = s->prog.probes.v[i];
		const char *path = p->user_file;
		bool dup = false;
		if (!path || path[0] != '/')
			continue;
		for (size_t j = 0; j < seen.n && !dup; j++)
			dup = !strcmp(seen.v[j], path);
		if (dup)
			continue;
		pv_push(&seen, (void *)path);
		char *t = stat_text(path);
		if (t)
			sb_printf(&b, "%s %s\n", t, path);
		free(t);
	}
	pv_free(&seen);
	return b.s ? sb_detach(&b) : xstrdup("");
}

void modcache_store(struct modcache *c, struct session *s)
{
	if (!c || !s->ko_file || !s->kernel || !s->kernel->build_id)
		return;
	/* (The build-id pass 2 read is the one that counts.) */
	if (!c->key[0] || strcmp(c->build_id, s->kernel->build_id))
		finish_key(c, s->release, s->kernel->build_id);
	/* A run that warned is not repeated silently: its warnings would be
	 * lost with passes 2 to 4. */
	if (diag_warnings()) {
		if (s->verbose)
			fprintf(stderr, "Pass 4: module cache: not kept: the script had warnings\n");
		return;
	}
	/* A path with a newline cannot be a line of deps. */
	for (size_t i = 0; i < s->prog.probes.n; i++) {
		const struct probe *p = s->prog.probes.v[i];
		if (p->user_file && strchr(p->user_file, '\n'))
			return;
	}
	char *tmp = xasprintf("%s/.new-%s-%ld", c->root, c->key, (long)getpid());
	char *deps = deps_of(s);
	remove_tree(tmp);
	bool ok = mkdir(tmp, 0700) == 0;
	char *ko = path_join(tmp, "module.ko"), *name = path_join(tmp, "name"),
	     *deps_path = path_join(tmp, "deps");
	char *name_line = xasprintf("%s\n", s->module_name);
	char *stamp_path = path_join(tmp, "stamp"), *stamp = NULL;
	ok = ok && copy_file(s->ko_file, ko, 0600) && (stamp = file_stamp(ko)) &&
	     write_file(stamp_path, stamp, strlen(stamp)) &&
	     write_file(name, name_line, strlen(name_line)) && write_file(deps_path, deps, strlen(deps));
	free(stamp);
	free(stamp_path);
	if (ok) {
		/* An older entry for the key (out of date or damaged) is replaced. */
		remove_tree(c->entry);
		ok = rename(tmp, c->entry) == 0;
	}
	if (!ok) {
		if (s->verbose)
			fprintf(stderr, "Pass 4: module cache: cannot keep the module: %s\n",
				strerror(errno));
		remove_tree(tmp);
	} else {
		if (s->verbose)
			fprintf(stderr, "Pass 4: module cache: kept as %s\n", c->entry);
		trim(c->root, c->entry, s->verbose > 0);
	}
	free(tmp);
	free(deps);
	free(ko);
	free(name);
	free(deps_path);
	free(name_line);
}

bool modcache_after_failure(struct modcache *c, struct session *s)
{
	(void)s;
	if (!c)
		return false;
	char *ko_path = path_join(c->entry, "module.ko"), *why = NULL;
	size_t len = 0;
	unsigned char *image = (unsigned char *)read_private_file(ko_path, &len, &why);
	char *problem = image ? module_problem(image, len, ko_path) : NULL;
	if (problem) {
		/* Never to be tried again: the next run builds it afresh. */
		fprintf(stderr, "stap: the cached module %s was damaged (%s): removed; building it "
				"afresh\n",
			c->entry, problem);
		remove_tree(c->entry);
	}
	bool damaged = problem != NULL;
	free(problem);
	free(why);
	free(image);
	free(ko_path);
	return damaged;
}

int modcache_clean(bool verbose)
{
	char *root = cache_dir("compiled");
	int n = 0;
	DIR *d = opendir(root);
	struct dirent *e;
	while (d && (e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		char *p = path_join(root, e->d_name);
		remove_tree(p);
		free(p);
		n++;
	}
	if (d)
		closedir(d);
	if (verbose)
		fprintf(stderr, "stap: removed %d cached module%s from %s\n", n, n == 1 ? "" : "s",
			root);
	free(root);
	return 0;
}
