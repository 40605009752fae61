// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Finding debug files (debugfind.h). Archives are listed through libelf's
 * archive reader (member names only: nothing is decompressed or parsed);
 * loose files by walking their directories once.
 */
#include <dirent.h>
#include <elfutils/debuginfod.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <gelf.h>
#include <libelf.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "debuginfo/debugfind.h"
#include "debuginfo/kernel.h"
#include "private.h"

char *debugfind_module_name(const char *file)
{
	const char *base = strrchr(file, '/');
	base = base ? base + 1 : file;
	char *name = xstrdup(base);
	static const char *const suffixes[] = { ".xz", ".zst", ".gz", ".debug", ".ko" };
	for (size_t i = 0; i < ARRAY_SIZE(suffixes); i++) {
		size_t n = strlen(name), k = strlen(suffixes[i]);
		if (n > k && !strcmp(name + n - k, suffixes[i]))
			name[n - k] = 0;
	}
	for (char *p = name; *p; p++)
		if (*p == '-')
			*p = '_';
	/* The kernel's own debug file is vmlinux (or vmlinux-RELEASE). */
	if (!strncmp(name, "vmlinux", 7)) {
		free(name);
		name = xstrdup("kernel");
	}
	return name;
}

/* Every place of a module is kept, in the order found: the first is the
 * one used, the others are what dw.c falls back to (debugfind_next). */
static struct debug_file *add_file(struct debug_index *ix, size_t *cap, const char *module,
				   const char *path, const char *member)
{
	if (ix->n == *cap) {
		*cap = *cap ? 2 * *cap : 64;
		ix->files = xrealloc(ix->files, *cap * sizeof *ix->files);
	}
	ix->files[ix->n++] = (struct debug_file){ xstrdup(module), xstrdup(path),
						  member ? xstrdup(member) : NULL, 0, 0 };
	return &ix->files[ix->n - 1];
}

static void looked(struct debug_index *ix, const char *path, const char *what)
{
	pv_push(&ix->looked, xasprintf("%s (%s)", path, what));
}

/*
 * While an index is made, what it read is written down for the cache
 * (debugindex/): each place's stamp (an archive's size and time, each
 * directory's time, which a file added or removed there changes), and the
 * warnings said, to be said again when the cache answers. Walking Debian's
 * -dbg tree (some 400 directories) and an archive's 4,000 member headers
 * took 20 ms of every DWARF script's pass 2; checking the stamps, under one.
 */
static struct strbuf *record;

static void stamp_line(struct strbuf *b, const char *path)
{
	struct stat st;
	if (stat(path, &st) == 0)
		sb_printf(b, "S %lld %lld.%09ld %s\n", (long long)st.st_size, (long long)st.st_mtim.tv_sec,
			  st.st_mtim.tv_nsec, path);
	else
		sb_printf(b, "S - - %s\n", path);
}

static void stamp(const char *path)
{
	if (record)
		stamp_line(record, path);
}

static void warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void warn(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *msg = xvasprintf(fmt, ap);
	va_end(ap);
	fputs(msg, stderr);
	if (record) {
		sb_puts(record, "W ");
		sb_puts(record, msg);
	}
	free(msg);
}

static void add_archive(struct debug_index *ix, size_t *cap, const char *path, const char *dep,
			bool verbose)
{
	struct stat st, dst;
	stamp(path);
	if (dep)
		stamp(dep);
	if (stat(path, &st) != 0) {
		looked(ix, path, "no such archive");
		return;
	}
	if (dep && stat(dep, &dst) == 0 && st.st_mtime < dst.st_mtime) {
		warn("stap: warning: skipping the debug archive %s: it is older than %s, so "
		     "the modules may have changed since it was made\n",
		     path, dep);
		warn("stap: hint: remake it with eu-make-debug-archive --kernel --force\n");
		looked(ix, path, "stale: older than modules.dep");
		return;
	}
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Elf *ar = fd >= 0 ? elf_begin(fd, ELF_C_READ, NULL) : NULL;
	if (!ar || elf_kind(ar) != ELF_K_AR) {
		warn("stap: warning: skipping the debug archive %s: not an ar archive (%s)\n", path,
		     fd < 0 ? "cannot open it" : elf_errmsg(-1));
		looked(ix, path, "not an ar archive");
		if (ar)
			elf_end(ar);
		if (fd >= 0)
			close(fd);
		return;
	}
	size_t before = ix->n;
	Elf_Cmd cmd = ELF_C_READ;
	Elf *m;
	while ((m = elf_begin(fd, cmd, ar)) != NULL) {
		Elf_Arhdr *h = elf_getarhdr(m);
		/* "/" and "//" are the archive's own symbol and name tables. */
		if (h && h->ar_name[0] != '/') {
			char *name = debugfind_module_name(h->ar_name);
			struct debug_file *f = add_file(ix, cap, name, path, h->ar_name);
			/* The member's bytes follow its 60-byte header. */
			f->member_off = (long long)elf_getaroff(m) + 60;
			f->member_size = (size_t)h->ar_size;
			free(name);
		}
		cmd = elf_next(m);
		elf_end(m);
	}
	elf_end(ar);
	close(fd);
	looked(ix, path, "an archive");
	if (verbose)
		fprintf(stderr, "Debug archive %s: %zu modules\n", path, ix->n - before);
}

static bool is_module_file(const char *name)
{
	size_t n = strlen(name);
	return (n > 3 && !strcmp(name + n - 3, ".ko")) ||
	       (n > 9 && !strcmp(name + n - 9, ".ko.debug")) || !strcmp(name, "vmlinux");
}

static void walk(struct debug_index *ix, size_t *cap, const char *dir, int depth)
{
	stamp(dir);
	DIR *d = opendir(dir);
	if (!d)
		return;
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		char *path = path_join(dir, e->d_name);
		if (e->d_type == DT_DIR || (e->d_type == DT_UNKNOWN && is_dir(path))) {
			if (depth < 12)
				walk(ix, cap, path, depth + 1);
		} else if (is_module_file(e->d_name)) {
			char *name = debugfind_module_name(e->d_name);
			add_file(ix, cap, name, path, NULL);
			free(name);
		}
		free(path);
	}
	closedir(d);
}

static void add_dir(struct debug_index *ix, size_t *cap, const char *dir)
{
	if (!is_dir(dir)) {
		stamp(dir);
		looked(ix, dir, "no such directory");
		return;
	}
	size_t before = ix->n;
	walk(ix, cap, dir, 0);
	char *what = xasprintf("%zu module files", ix->n - before);
	looked(ix, dir, what);
	free(what);
}

static int file_cmp(const void *a, const void *b)
{
	return strcmp(((const struct debug_file *)a)->module, ((const struct debug_file *)b)->module);
}

/* By name, then by place: the first of a name is the one that wins. */
static int place_cmp(const void *a, const void *b)
{
	const struct debug_file *x = *(const struct debug_file *const *)a;
	const struct debug_file *y = *(const struct debug_file *const *)b;
	int c = strcmp(x->module, y->module);
	return c ? c : (x > y) - (x < y);
}

/* The places in module order, each module's in the order they were
 * found (which one is tried first); the cache keeps them so, and sorting
 * them again was a third of reading it. */
static void sort_by_name(struct debug_index *ix)
{
	bool sorted = true;
	for (size_t i = 1; sorted && i < ix->n; i++)
		sorted = strcmp(ix->files[i - 1].module, ix->files[i].module) <= 0;
	ix->by_name = xcalloc(ix->n + 1, sizeof *ix->by_name);
	for (size_t i = 0; i < ix->n; i++)
		ix->by_name[i] = &ix->files[i];
	if (!sorted) {
		qsort(ix->by_name, ix->n, sizeof *ix->by_name, place_cmp);
		struct debug_file *files = xmalloc((ix->n + 1) * sizeof *files);
		for (size_t i = 0; i < ix->n; i++)
			files[i] = *ix->by_name[i];
		free(ix->files);
		ix->files = files;
		for (size_t i = 0; i < ix->n; i++)
			ix->by_name[i] = &ix->files[i];
	}
	size_t k = 0;
	for (size_t i = 0; i < ix->n; i++)
		if (!k || strcmp(ix->by_name[k - 1]->module, ix->by_name[i]->module))
			ix->by_name[k++] = ix->by_name[i];
	ix->nmodules = k;
}

static int name_key_cmp(const void *key, const void *elem)
{
	return strcmp(key, (*(const struct debug_file *const *)elem)->module);
}

const struct debug_file *debugfind(const struct debug_index *ix, const char *module)
{
	struct debug_file **f =
		bsearch(module, ix->by_name, ix->nmodules, sizeof *ix->by_name, name_key_cmp);
	return f ? *f : NULL;
}

const struct debug_file *debugfind_next(const struct debug_index *ix, const struct debug_file *f)
{
	for (size_t i = (size_t)(f - ix->files) + 1; i < ix->n; i++)
		if (!strcmp(ix->files[i].module, f->module))
			return &ix->files[i];
	return NULL;
}

static void make_index(struct debug_index *ix, const char *release, const struct ptrvec *dirs,
		       const char *archive, bool verbose)
{
	size_t cap = 0;
	elf_version(EV_CURRENT);
	/* The test suite's results must not depend on what this machine has
	 * installed (linux-image-R-dbg): it looks only where it is told. */
	if (getenv("TAPLINE_NO_SYSTEM_DEBUGINFO")) {
		if (archive)
			add_archive(ix, &cap, archive, NULL, verbose);
		for (size_t i = 0; dirs && i < dirs->n; i++)
			add_dir(ix, &cap, dirs->v[i]);
		pv_push(&ix->looked, xstrdup("(the system's debug information: not used, "
					     "TAPLINE_NO_SYSTEM_DEBUGINFO is set)"));
		return;
	}
	char *dep = xasprintf("/lib/modules/%s/modules.dep", release);
	char *a1 = xasprintf("/lib/modules/%s/debug.a", release);
	char *a2 = xasprintf("/usr/lib/debug/lib/modules/%s/debug.a", release);
	add_archive(ix, &cap, a1, dep, verbose);
	add_archive(ix, &cap, a2, dep, verbose);
	if (archive)
		add_archive(ix, &cap, archive, NULL, verbose);
	for (size_t i = 0; dirs && i < dirs->n; i++)
		add_dir(ix, &cap, dirs->v[i]);
	char *loose = xasprintf("/usr/lib/debug/lib/modules/%s", release);
	add_dir(ix, &cap, loose);
	free(loose);
	/* Debian's linux-image-RELEASE-dbg puts the kernel's here. */
	char *vmlinux = xasprintf("/usr/lib/debug/boot/vmlinux-%s", release);
	stamp(vmlinux);
	if (file_exists(vmlinux))
		add_file(ix, &cap, "kernel", vmlinux, NULL);
	else
		looked(ix, vmlinux, "no such file");
	free(vmlinux);
	free(a1);
	free(a2);
	free(dep);
}

#define INDEX_CACHE_FORMAT 2

/* Every field of a place, tab-separated; false if one holds a tab or a
 * newline (then nothing is saved). */
static bool put_place(struct strbuf *b, const struct debug_file *f)
{
	const char *fields[] = { f->module, f->path, f->member ? f->member : "" };
	for (size_t i = 0; i < ARRAY_SIZE(fields); i++)
		if (strpbrk(fields[i], "\t\n"))
			return false;
	sb_printf(b, "E %s\t%s\t%s\t%lld\t%zu\n", f->module, f->path, f->member ? f->member : "",
		  f->member_off, f->member_size);
	return true;
}

static void save_index(const struct debug_index *ix, const char *path, struct strbuf *rec)
{
	struct strbuf b;
	sb_init(&b);
	sb_printf(&b, "tapline-debugindex %d\n", INDEX_CACHE_FORMAT);
	sb_add(&b, rec->s, rec->len);
	bool ok = true;
	for (size_t i = 0; ok && i < ix->looked.n; i++) {
		ok = !strchr(ix->looked.v[i], '\n');
		sb_printf(&b, "L %s\n", (char *)ix->looked.v[i]);
	}
	for (size_t i = 0; ok && i < ix->n; i++)
		ok = put_place(&b, &ix->files[i]);
	if (ok)
		write_sealed_file(path, &b);
	sb_free(&b);
}

/* The index the cache file at path holds, if every place it read is as it
 * was (then its warnings are said again); false otherwise. */
static bool load_index(struct debug_index *ix, const char *path)
{
	size_t len;
	char *text = read_sealed_file(path, &len);
	char *head = xasprintf("tapline-debugindex %d\n", INDEX_CACHE_FORMAT);
	bool ok = text && len >= strlen(head) && !strncmp(text, head, strlen(head));
	free(head);
	char *last = ok ? text + len : NULL;
	struct strbuf now, warnings;
	sb_init(&now);
	sb_init(&warnings);
	size_t cap = 0;
	for (char *p = ok ? strchr(text, '\n') + 1 : NULL, *nl; ok && p < last; p = nl + 1) {
		nl = strchr(p, '\n');
		*nl = 0;
		if (p[0] == 'S' && p[1] == ' ') {
			/* The same stamp, taken now? "S SIZE TIME PATH" */
			char *sp1 = strchr(p + 2, ' '), *sp2 = sp1 ? strchr(sp1 + 1, ' ') : NULL;
			ok = sp2 != NULL;
			if (ok) {
				now.len = 0;
				stamp_line(&now, sp2 + 1);
				ok = now.len == (size_t)(nl - p) + 1 && !strncmp(now.s, p, (size_t)(nl - p));
			}
		} else if (p[0] == 'W' && p[1] == ' ') {
			sb_printf(&warnings, "%s\n", p + 2);
		} else if (p[0] == 'L' && p[1] == ' ') {
			pv_push(&ix->looked, xstrdup(p + 2));
		} else if (p[0] == 'E' && p[1] == ' ') {
			char *f[5] = { p + 2 };
			for (int i = 1; i < 5 && ok; i++) {
				char *tab = strchr(f[i - 1], '\t');
				ok = tab != NULL;
				if (ok) {
					*tab = 0;
					f[i] = tab + 1;
				}
			}
			if (ok) {
				struct debug_file *e = add_file(ix, &cap, f[0], f[1], *f[2] ? f[2] : NULL);
				e->member_off = strtoll(f[3], NULL, 10);
				e->member_size = (size_t)strtoull(f[4], NULL, 10);
			}
		} else {
			ok = false;
		}
	}
	if (ok && warnings.len)
		fputs(warnings.s, stderr);
	if (!ok) {
		/* As if never read: the index is made afresh. */
		for (size_t i = 0; i < ix->n; i++) {
			free(ix->files[i].module);
			free(ix->files[i].path);
			free(ix->files[i].member);
		}
		free(ix->files);
		ix->files = NULL;
		ix->n = 0;
		pv_free_all(&ix->looked);
	}
	sb_free(&now);
	sb_free(&warnings);
	free(text);
	return ok;
}

struct debug_index *debugfind_index(const char *release, const struct ptrvec *dirs,
				    const char *archive, bool verbose)
{
	struct debug_index *ix = xcalloc(1, sizeof *ix);
	ix->release = xstrdup(release);
	elf_version(EV_CURRENT);
	/* The system's places (and an archive named) are cached, one file per
	 * release and archive; directories named (--debuginfo-path, often a
	 * build's own) are walked each time. */
	char *path = NULL;
	if (!getenv("TAPLINE_NO_INDEX_CACHE") && !getenv("TAPLINE_NO_SYSTEM_DEBUGINFO") &&
	    !(dirs && dirs->n)) {
		uint64_t h = hash_bytes(HASH_INIT, release, strlen(release) + 1);
		h = hash_bytes(h, archive ? archive : "", archive ? strlen(archive) + 1 : 1);
		char *dir = cache_dir("debugindex");
		path = xasprintf("%s/%016llx", dir, (unsigned long long)h);
		free(dir);
	}
	if (path && load_index(ix, path)) {
		if (verbose)
			fprintf(stderr, "Debug index: %zu places, from the cache (%s)\n", ix->n, path);
	} else {
		struct strbuf rec;
		sb_init(&rec);
		record = &rec;
		make_index(ix, release, dirs, archive, verbose);
		record = NULL;
		sort_by_name(ix);
		if (path)
			save_index(ix, path, &rec);
		sb_free(&rec);
	}
	free(path);
	if (!ix->by_name)
		sort_by_name(ix);
	return ix;
}

/* modules.dep lines are "kernel/fs/ext4/ext4.ko: DEPS...": read once. */
static void read_installed(struct debug_index *ix)
{
	ix->installed_read = true;
	char *dep = xasprintf("/lib/modules/%s/modules.dep", ix->release);
	FILE *f = fopen(dep, "re");
	free(dep);
	if (!f)
		return;
	char *line = NULL;
	size_t cap = 0, n = 0;
	while (getline(&line, &cap, f) > 0) {
		char *colon = strchr(line, ':');
		if (!colon)
			continue;
		*colon = 0;
		if (ix->ninstalled == n) {
			n = n ? 2 * n : 1024;
			ix->installed = xrealloc(ix->installed, n * sizeof *ix->installed);
		}
		ix->installed[ix->ninstalled++] = (struct debug_file){
			.module = debugfind_module_name(line),
			.path = line[0] == '/' ? xstrdup(line)
					       : xasprintf("/lib/modules/%s/%s", ix->release, line),
		};
	}
	free(line);
	fclose(f);
	qsort(ix->installed, ix->ninstalled, sizeof *ix->installed, file_cmp);
}

static bool is_compressed(const char *path)
{
	size_t n = strlen(path);
	return (n > 3 && !strcmp(path + n - 3, ".xz")) || (n > 4 && !strcmp(path + n - 4, ".zst")) ||
	       (n > 3 && !strcmp(path + n - 3, ".gz"));
}

/*
 * An installed module compressed as its kernel ships them (6.12: .ko.xz),
 * unpacked once into the private cache (modules/RELEASE/NAME.ko), where
 * every reader of ELF files can open it; redone when the module is newer.
 * NULL if it cannot be read.
 */
static char *plain_copy(const struct debug_index *ix, const char *path, const char *module)
{
	char *sub = xasprintf("modules/%s", ix->release);
	char *dir = cache_dir(sub);
	char *copy = xasprintf("%s/%s.ko", dir, module);
	struct stat src, dst;
	free(sub);
	free(dir);
	if (stat(path, &src) < 0) {
		free(copy);
		return NULL;
	}
	if (stat(copy, &dst) == 0 && dst.st_mtime >= src.st_mtime)
		return copy;
	size_t n = 0, len = 0;
	char *packed = read_file(path, &n);
	char *elf = packed ? kimage_decompress((unsigned char *)packed, n, &len) : NULL;
	bool ok = elf && write_file(copy, elf, len);
	if (!ok)
		fprintf(stderr, "stap: warning: cannot unpack the module %s: %s\n", path,
			strerror(errno ? errno : EINVAL));
	free(packed);
	free(elf);
	if (!ok) {
		free(copy);
		return NULL;
	}
	return copy;
}

const char *debugfind_installed(struct debug_index *ix, const char *module)
{
	if (!ix->installed_read)
		read_installed(ix);
	if (!ix->ninstalled)
		return NULL;
	struct debug_file key = { .module = (char *)module };
	struct debug_file *f = bsearch(&key, ix->installed, ix->ninstalled, sizeof key, file_cmp);
	if (!f)
		return NULL;
	if (is_compressed(f->path)) {
		char *plain = plain_copy(ix, f->path, f->module);
		if (!plain)
			return NULL;
		free(f->path);
		f->path = plain;
	}
	return f->path;
}

void debugfind_installed_each(struct debug_index *ix,
			       void (*fn)(const char *module, const char *path, void *ctx), void *ctx)
{
	if (!ix->installed_read)
		read_installed(ix);
	for (size_t i = 0; i < ix->ninstalled; i++)
		fn(ix->installed[i].module, ix->installed[i].path, ctx);
}

void debugfind_installed_matching(struct debug_index *ix, const char *pattern,
				  struct ptrvec *names)
{
	if (!ix->installed_read)
		read_installed(ix);
	for (size_t i = 0; i < ix->ninstalled; i++)
		if (fnmatch(pattern, ix->installed[i].module, 0) == 0 &&
		    (i == 0 || strcmp(ix->installed[i].module, ix->installed[i - 1].module)))
			pv_push(names, ix->installed[i].module);
}

/* The GNU build-id note of an ELF file (lowercase hex), or NULL. */
char *debugfind_build_id(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	elf_version(EV_CURRENT);
	Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
	char *id = NULL;
	for (Elf_Scn *scn = elf ? elf_nextscn(elf, NULL) : NULL; scn && !id;
	     scn = elf_nextscn(elf, scn)) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		Elf_Data *data = elf_getdata(scn, NULL);
		size_t off = 0, name_off, desc_off;
		GElf_Nhdr nh;
		while (data && (off = gelf_getnote(data, off, &nh, &name_off, &desc_off)) > 0) {
			if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
			    !memcmp((char *)data->d_buf + name_off, "GNU", 4)) {
				const unsigned char *d = (const unsigned char *)data->d_buf + desc_off;
				id = hex_string(d, nh.n_descsz);
				break;
			}
		}
	}
	if (elf)
		elf_end(elf);
	close(fd);
	return id;
}

/* Does the ELF file carry DWARF (.debug_info)? */
bool debugfind_has_dwarf(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	elf_version(EV_CURRENT);
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	size_t shstrndx;
	bool has = false;
	if (elf && elf_getshdrstrndx(elf, &shstrndx) == 0) {
		for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn && !has; scn = elf_nextscn(elf, scn)) {
			GElf_Shdr sh;
			const char *name;
			has = gelf_getshdr(scn, &sh) && sh.sh_type != SHT_NOBITS &&
			      (name = elf_strptr(elf, shstrndx, sh.sh_name)) &&
			      !strcmp(name, ".debug_info");
		}
	}
	if (elf)
		elf_end(elf);
	close(fd);
	return has;
}

static int progress(debuginfod_client *client, long done, long total)
{
	const char *what = debuginfod_get_user_data(client);
	if (total > 0)
		fprintf(stderr, "\rstap: downloading the debug information of %s: %ld of %ld KiB", what,
			done / 1024, total / 1024);
	else
		fprintf(stderr, "\rstap: downloading the debug information of %s: %ld KiB", what,
			done / 1024);
	return 0;
}

char *debugfind_debuginfod(struct debug_index *ix, const char *build_id, const char *what)
{
	const char *urls = getenv("DEBUGINFOD_URLS");
	if (!urls || !*urls) {
		pv_push(&ix->looked, xstrdup("debuginfod (DEBUGINFOD_URLS is not set)"));
		return NULL;
	}
	debuginfod_client *client = debuginfod_begin();
	if (!client)
		return NULL;
	debuginfod_set_user_data(client, (void *)what);
	if (isatty(2))
		debuginfod_set_progressfn(client, progress);
	char *path = NULL;
	int fd = debuginfod_find_debuginfo(client, (const unsigned char *)build_id, 0, &path);
	if (isatty(2))
		fputc('\n', stderr);
	char *note = fd >= 0 ? xasprintf("debuginfod %s (found build-id %s)", urls, build_id)
			     : xasprintf("debuginfod %s (build-id %s: %s)", urls, build_id,
					 strerror(-fd));
	pv_push(&ix->looked, note);
	if (fd >= 0)
		close(fd);
	else {
		free(path);
		path = NULL;
	}
	debuginfod_end(client);
	return path;
}
