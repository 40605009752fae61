// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Finding the target kernel and what it offers; see kernel.h. Anything
 * missing is reported with the Debian package that provides it.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>

#include "debuginfo/kernel.h"
#include "private.h"
#include "contract/module.h"
#include "util.h"

/* Bump when what the cache holds changes. */
#define KERNEL_CACHE_FORMAT 5

static const char *const why_texts[] = {
#define X(id, text) [id] = text,
	KFUNC_REASONS(X)
#undef X
};

const char *kfunc_why_text(enum kfunc_why why)
{
	return why < KF_NREASONS ? why_texts[why] : "?";
}

const char *kernel_running_release(void)
{
	static struct utsname u;
	if (!u.release[0] && uname(&u) < 0)
		return "";
	return u.release;
}

char *kernel_installed_hint(void)
{
	DIR *d = opendir("/boot");
	struct strbuf b;
	sb_init(&b);
	int n = 0;
	struct dirent *e;
	while (d && (e = readdir(d))) {
		if (strncmp(e->d_name, "vmlinuz-", 8))
			continue;
		sb_printf(&b, "%s%s", n++ ? ", " : "", e->d_name + 8);
	}
	if (d)
		closedir(d);
	char *hint = n ? xasprintf("; build for an installed kernel with -r RELEASE (installed: %s)",
				   b.s)
		       : xstrdup("; install a kernel and its headers (linux-image-amd64 and "
				 "linux-headers-amd64)");
	sb_free(&b);
	return hint;
}

static char *existing(char *path)
{
	if (file_exists(path))
		return path;
	free(path);
	return NULL;
}

static int cmp_kfunc(const void *a, const void *b)
{
	return strcmp(((const struct kfunc *)a)->name, ((const struct kfunc *)b)->name);
}

static int cmp_key(const void *key, const void *elem)
{
	return strcmp(key, ((const struct kfunc *)elem)->name);
}

const struct kfunc *kernel_function(const struct kernel *k, const char *name)
{
	return bsearch(name, k->funcs, k->nfuncs, sizeof(struct kfunc), cmp_key);
}

/* Every function's start, copies included, by address (kernel_function_at). */
struct kfunc_start {
	uint64_t offset;
	const struct kfunc *f;
	enum kfunc_why why;
};

/* The same answer as the index gives, by looking at every function: the
 * last start at or below offset, in the index's order (by address, then
 * as the functions are listed). */
static const struct kfunc *function_at_by_scan(const struct kernel *k, uint64_t offset,
					       enum kfunc_why *why)
{
	const struct kfunc *best = NULL;
	uint64_t best_off = 0;
	for (size_t i = 0; i < k->nfuncs; i++) {
		const struct kfunc *f = &k->funcs[i];
		for (unsigned c = 0; c < (f->copies > 1 ? f->copies : 1); c++) {
			uint64_t off = f->copies > 1 ? f->offsets[c] : f->offset;
			if (off && off <= offset && off >= best_off) {
				best = f;
				best_off = off;
				*why = f->copies > 1 ? (enum kfunc_why)f->whys[c] : f->why;
			}
		}
	}
	return best;
}

const struct kfunc *kernel_function_at(const struct kernel *kc, uint64_t offset,
				       enum kfunc_why *why)
{
	struct kernel *k = (struct kernel *)kc; /* its index is made once */
	/* A script asks a few times (its inlined copies and statements):
	 * sorting 70,000 starts costs more than that many scans. */
	if (!k->starts && k->scans_left) {
		k->scans_left--;
		return function_at_by_scan(k, offset, why);
	}
	if (!k->starts) {
		size_t n = 0, cap = 0;
		struct kfunc_start *starts = NULL;
		for (size_t i = 0; i < k->nfuncs; i++) {
			const struct kfunc *f = &k->funcs[i];
			for (unsigned c = 0; c < (f->copies > 1 ? f->copies : 1); c++) {
				uint64_t off = f->copies > 1 ? f->offsets[c] : f->offset;
				if (!off)
					continue;
				if (n == cap) {
					cap = cap ? 2 * cap : 4096;
					starts = xrealloc(starts, cap * sizeof *starts);
				}
				starts[n++] = (struct kfunc_start){
					off, f, f->copies > 1 ? (enum kfunc_why)f->whys[c] : f->why };
			}
		}
		sort_by_key(starts, n, sizeof *starts, offsetof(struct kfunc_start, offset));
		k->starts = starts ? starts : xcalloc(1, sizeof *starts);
		k->nstarts = n;
	}
	const struct kfunc_start *starts = k->starts;
	size_t n = k->nstarts;
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (starts[mid].offset <= offset)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	*why = starts[lo - 1].why;
	return starts[lo - 1].f;
}

/*
 * --- the cache ---
 * What an image says is kept per build-id, in kernel/BUILD-ID/: "functions"
 * ("NAME OFFSET WHY COPIES [OFFSET:WHY per copy]" per function), the raw
 * "vmlinux.btf", and "complete" ("FORMAT BUILD-ID"), written last so that
 * a partly written entry is never read. kernel/RELEASE/image says which
 * build-id the image of that name held when it had this size and mtime, so
 * that the image is unpacked once; the running kernel is found by its
 * build-id alone, even once its image is gone.
 */

static char *id_dir(const char *build_id)
{
	char *sub = xasprintf("kernel/%s", build_id);
	char *dir = cache_dir(sub);
	free(sub);
	return dir;
}

static bool write_cache(const struct kernel *k, const char *btf, size_t btf_size)
{
	char *dir = id_dir(k->build_id);
	struct strbuf b;
	sb_init(&b);
	sb_printf(&b, "%s\n%d\n%s\n", k->build_id, k->classified, k->funcs_from);
	for (size_t i = 0; i < k->nfuncs; i++) {
		const struct kfunc *f = &k->funcs[i];
		sb_printf(&b, "%s %" PRIx64 " %d %u", f->name, f->offset, (int)f->why, f->copies);
		for (unsigned c = 0; f->offsets && c < f->copies; c++)
			sb_printf(&b, " %" PRIx64 ":%d", f->offsets[c], f->whys[c]);
		sb_puts(&b, "\n");
	}
	char *p = path_join(dir, "functions");
	bool ok = write_file(p, b.s, b.len);
	free(p);
	sb_free(&b);
	if (btf) {
		p = path_join(dir, "vmlinux.btf");
		ok = ok && write_file(p, btf, btf_size);
		free(p);
	}
	p = path_join(dir, "complete");
	char *mark = xasprintf("%d %s\n", KERNEL_CACHE_FORMAT, k->build_id);
	ok = ok && write_file(p, mark, strlen(mark));
	free(mark);
	free(p);
	free(dir);
	return ok;
}

static char *next_line(char **p)
{
	char *line = *p;
	if (!line || !*line)
		return NULL;
	char *nl = strchr(line, '\n');
	if (nl) {
		*nl = 0;
		*p = nl + 1;
	} else {
		*p = line + strlen(line);
	}
	return line;
}

/*
 * One number of a cache line, after optional blanks, in base 10 or 16;
 * false if there is none or it overflows. By hand, not sscanf: the file has
 * one line per kernel function (50,000), and every translation reads it.
 */
static bool take_number(const char **p, int base, uint64_t *out)
{
	const char *s = *p;
	while (*s == ' ')
		s++;
	uint64_t v = 0;
	const char *start = s;
	for (;; s++) {
		unsigned d;
		if (*s >= '0' && *s <= '9')
			d = (unsigned)(*s - '0');
		else if (base == 16 && *s >= 'a' && *s <= 'f')
			d = (unsigned)(*s - 'a' + 10);
		else
			break;
		v = v * (unsigned)base + d;
	}
	/* 16 hex or 19 decimal digits cannot overflow. */
	if (s == start || s - start > (base == 16 ? 16 : 19))
		return false;
	*p = s;
	*out = v;
	return true;
}

/* What the cache holds for build_id; false if nothing (complete). */
static bool read_cache(struct kernel *k, const char *build_id)
{
	if (!build_id || strspn(build_id, "0123456789abcdef") != strlen(build_id))
		return false;
	char *dir = id_dir(build_id);
	char *p = path_join(dir, "complete");
	char *mark = read_file(p, NULL);
	free(p);
	char *want = xasprintf("%d %s\n", KERNEL_CACHE_FORMAT, build_id);
	bool complete = mark && !strcmp(mark, want);
	free(mark);
	free(want);
	char *text = NULL;
	if (complete) {
		p = path_join(dir, "functions");
		text = read_file(p, NULL);
		free(p);
	}
	char *cur = text, *id = next_line(&cur), *classified = next_line(&cur),
	     *from = next_line(&cur);
	if (!id || !classified || !from || strcmp(id, build_id)) {
		free(text);
		free(dir);
		return false;
	}
	size_t cap = 4096, n = 0;
	struct kfunc *funcs = xmalloc(cap * sizeof *funcs);
	for (char *line; (line = next_line(&cur));) {
		char *name = line;
		const char *rest = line + strcspn(line, " ");
		uint64_t offset, why, copies;
		if (!*rest || rest == name || rest - name > 255)
			continue;
		*(char *)rest++ = 0;
		if (!take_number(&rest, 16, &offset) || !take_number(&rest, 10, &why) ||
		    !take_number(&rest, 10, &copies) || why >= KF_NREASONS || copies > 4096)
			continue;
		if (n == cap) {
			cap *= 2;
			funcs = xrealloc(funcs, cap * sizeof *funcs);
		}
		struct kfunc *f = &funcs[n++];
		*f = (struct kfunc){ xstrdup(name), offset, (enum kfunc_why)why, (unsigned)copies, NULL,
				     NULL };
		if (copies > 1) {
			f->offsets = xcalloc(copies, sizeof *f->offsets);
			f->whys = xcalloc(copies, sizeof *f->whys);
			unsigned c = 0;
			uint64_t w;
			while (c < copies && take_number(&rest, 16, &f->offsets[c]) && *rest == ':' &&
			       (rest++, take_number(&rest, 10, &w)) && w < KF_NREASONS)
				f->whys[c++] = (unsigned char)w;
			if (c != copies) { /* an older line: the first copy only */
				free(f->offsets);
				free(f->whys);
				f->offsets = NULL;
				f->whys = NULL;
			}
		}
	}
	k->build_id = xstrdup(id);
	k->classified = classified[0] == '1';
	k->funcs_from = xstrdup(from);
	k->funcs = funcs;
	k->nfuncs = n;
	free(text);
	k->btf_path = existing(path_join(dir, "vmlinux.btf"));
	free(dir);
	return true;
}

/* When the kallsyms tables do not decode: BTF's function names, unchecked. */
static bool funcs_from_btf(struct kernel *k, const char *btf, size_t btf_size)
{
	size_t n;
	char **names = btf_function_names(btf, btf_size, &n);
	if (!names)
		return false;
	/*
	 * BTF lacks the entry points of syscalls without arguments: x86's
	 * SYSCALL_DEFINE0 makes __x64_sys_NAME an alias of __do_sys_NAME.
	 */
	size_t base = n;
	for (size_t i = 0; i < base; i++) {
		if (strncmp(names[i], "__do_sys_", 9))
			continue;
		names = xrealloc(names, (n + 1) * sizeof(char *));
		names[n++] = xasprintf("__x64_sys_%s", names[i] + 9);
	}
	n = symbols_sort_unique(names, n);
	k->funcs = xcalloc(n ? n : 1, sizeof *k->funcs);
	for (size_t i = 0; i < n; i++)
		k->funcs[i] = (struct kfunc){ names[i], 0, KF_OK, 1, NULL, NULL };
	k->nfuncs = n;
	free(names);
	return true;
}

static bool from_image(struct kernel *k, bool verbose)
{
	uint64_t t0 = now_ns();
	size_t len;
	char *elf = kimage_extract_vmlinux(k->vmlinuz, &len);
	if (!elf) {
		fprintf(stderr, "stap: cannot unpack the kernel image %s: %s\n", k->vmlinuz,
			errno == ENOTSUP  ? "its payload is not xz, zstd, gzip or lz4"
			: errno == EINVAL ? "its header points past its end (truncated?)"
			: errno == EBADMSG ? "its compressed payload is corrupted"
			: errno == ENOEXEC ? "it is not a bzImage"
					    : strerror(errno));
		return false;
	}
	k->build_id = kimage_elf_build_id(elf, len);
	if (!k->build_id) {
		fprintf(stderr, "stap: the kernel image %s has no build-id note\n", k->vmlinuz);
		free(elf);
		return false;
	}
	size_t btf_size = 0;
	const char *btf = kimage_elf_section(elf, len, ".BTF", &btf_size);
	char *why = NULL;
	size_t nsyms = 0;
	struct ksym *syms = kallsyms_decode(elf, len, &nsyms, &why);
	bool ok = true;
	if (syms) {
		k->funcs = kfuncs_from_image(elf, len, syms, nsyms, &k->nfuncs);
		k->classified = true;
		k->funcs_from = xasprintf("the kallsyms tables in %s", k->vmlinuz);
		symbols_free(syms, nsyms);
	} else {
		fprintf(stderr, "stap: warning: cannot decode the symbol table in %s: %s; using "
				"the function names in its BTF instead\n",
			k->vmlinuz, why);
		if (!btf || !funcs_from_btf(k, btf, btf_size)) {
			fprintf(stderr, "stap: the kernel image %s has no readable BTF either, so its "
					"functions are unknown\n",
				k->vmlinuz);
			ok = false;
		}
		k->funcs_from = xasprintf("the BTF in %s", k->vmlinuz);
	}
	free(why);
	if (ok) {
		qsort(k->funcs, k->nfuncs, sizeof *k->funcs, cmp_kfunc);
		if (write_cache(k, btf, btf_size) && btf) {
			char *dir = id_dir(k->build_id);
			k->btf_path = existing(path_join(dir, "vmlinux.btf"));
			free(dir);
		}
		if (verbose)
			fprintf(stderr, "Read %zu functions and build-id %s from %s in %llu ms\n",
				k->nfuncs, k->build_id, k->vmlinuz,
				(unsigned long long)((now_ns() - t0) / 1000000));
	}
	free(elf);
	return ok;
}

static char *running_build_id(void)
{
	size_t len;
	char *notes = read_file("/sys/kernel/notes", &len);
	char hex[256], err[256];
	char *id = NULL;
	if (notes && sr_notes_build_id(notes, len, hex, sizeof hex, err, sizeof err) == 0)
		id = xstrdup(hex);
	free(notes);
	return id;
}

static bool from_running(struct kernel *k, bool verbose)
{
	k->build_id = running_build_id();
	size_t nsyms = 0;
	struct ksym *syms = symbols_read_kallsyms("/proc/kallsyms", &nsyms);
	if (!k->build_id || !syms || nsyms == 0) {
		fprintf(stderr, "stap: cannot read the running kernel's %s\n",
			k->build_id ? "/proc/kallsyms" : "build-id from /sys/kernel/notes");
		free(syms);
		return false;
	}
	bool complete;
	k->funcs = kfuncs_from_running(syms, nsyms, &k->nfuncs, &complete);
	k->classified = complete;
	symbols_free(syms, nsyms);
	qsort(k->funcs, k->nfuncs, sizeof *k->funcs, cmp_kfunc);
	k->funcs_from = xstrdup("/proc/kallsyms");
	k->btf_path = existing(xstrdup("/sys/kernel/btf/vmlinux"));
	if (verbose && !complete)
		fprintf(stderr, "stap: note: the kernel's kprobe blacklist or list of traceable "
				"functions is not readable here (mount debugfs and tracefs, run as "
				"root); wildcards may match functions the kernel then refuses\n");
	return true;
}

static bool image_cached(struct kernel *k, bool verbose)
{
	struct stat st;
	if (stat(k->vmlinuz, &st) < 0) {
		fprintf(stderr, "stap: cannot read %s: %s\n", k->vmlinuz, strerror(errno));
		return false;
	}
	char *stamp = xasprintf("%d %lld %lld\n", KERNEL_CACHE_FORMAT, (long long)st.st_size,
				(long long)st.st_mtime);
	char *sub = xasprintf("kernel/%s", k->release);
	char *dir = cache_dir(sub);
	free(sub);
	char *p = path_join(dir, "image");
	char *seen = read_file(p, NULL);
	/* "STAMP\nBUILD-ID\n": the build-id this image held when it had that stamp. */
	size_t n = strlen(stamp);
	bool ok = false;
	if (seen && !strncmp(seen, stamp, n)) {
		char *id = xstrndup(seen + n, strcspn(seen + n, "\n"));
		ok = read_cache(k, id);
		free(id);
	}
	if (!ok && (ok = from_image(k, verbose))) {
		char *text = xasprintf("%s%s\n", stamp, k->build_id);
		write_file(p, text, strlen(text));
		free(text);
	}
	free(seen);
	free(p);
	free(dir);
	free(stamp);
	return ok;
}

static void kernel_reset(struct kernel *k)
{
	for (size_t i = 0; i < k->nfuncs; i++) {
		free(k->funcs[i].name);
		free(k->funcs[i].offsets);
		free(k->funcs[i].whys);
	}
	free(k->funcs);
	free(k->starts);
	k->starts = NULL;
	k->nstarts = 0;
	free(k->build_id);
	free(k->funcs_from);
	free(k->btf_path);
	k->btf_path = NULL;
	k->funcs = NULL;
	k->nfuncs = 0;
	k->build_id = k->funcs_from = NULL;
	k->classified = false;
}

char *kernel_known_build_id(const char *release)
{
	if (!strcmp(release, kernel_running_release()) && file_exists("/sys/kernel/notes"))
		return running_build_id();
	/* The build-id an earlier run found in the image, while the image is
	 * the one it read (image_cached's stamp). */
	char *vmlinuz = xasprintf("/boot/vmlinuz-%s", release);
	struct stat st;
	char *id = NULL;
	if (stat(vmlinuz, &st) == 0) {
		char *stamp = xasprintf("%d %lld %lld\n", KERNEL_CACHE_FORMAT, (long long)st.st_size,
					(long long)st.st_mtime);
		char *sub = xasprintf("kernel/%s", release);
		char *dir = cache_dir(sub);
		char *p = path_join(dir, "image");
		char *seen = read_file(p, NULL);
		size_t n = strlen(stamp);
		if (seen && !strncmp(seen, stamp, n))
			id = xstrndup(seen + n, strcspn(seen + n, "\n"));
		free(seen);
		free(p);
		free(dir);
		free(sub);
		free(stamp);
	}
	free(vmlinuz);
	if (id && (!*id || strspn(id, "0123456789abcdef") != strlen(id))) {
		free(id);
		id = NULL;
	}
	return id;
}

struct kernel *kernel_open(const char *release, bool verbose)
{
	struct kernel *k = xcalloc(1, sizeof *k);
	k->release = xstrdup(release);
	k->scans_left = 16;
	k->running = !strcmp(release, kernel_running_release());
	k->vmlinuz = existing(xasprintf("/boot/vmlinuz-%s", release));
	k->build_dir = existing(xasprintf("/lib/modules/%s/build", release));
	if (k->running && file_exists("/sys/kernel/notes")) {
		/* The image says more than /proc/kallsyms, if it is this very kernel:
		 * what it said before, by build-id, or the image itself. */
		char *id = running_build_id();
		if (read_cache(k, id)) {
			free(id);
			return k;
		}
		kernel_reset(k);
		if (k->vmlinuz && id && image_cached(k, verbose) && !strcmp(k->build_id, id)) {
			free(id);
			return k;
		}
		free(id);
		kernel_reset(k);
		return from_running(k, verbose) ? k : NULL;
	}
	if (!k->vmlinuz) {
		fprintf(stderr,
			"stap: no kernel image /boot/vmlinuz-%s; install the package "
			"linux-image-%s\n",
			release, release);
		return NULL;
	}
	return image_cached(k, verbose) ? k : NULL;
}
