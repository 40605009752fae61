// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Finding the target kernel and what it offers; see kernel.h. Anything
 * missing is reported with the Debian package that provides it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>

#include "debuginfo/kernel.h"
#include "staprun.h"
#include "util.h"

const char *kernel_running_release(void)
{
	static struct utsname u;
	if (!u.release[0] && uname(&u) < 0)
		return "";
	return u.release;
}

static char *existing(char *path)
{
	if (file_exists(path))
		return path;
	free(path);
	return NULL;
}

static char *load_names(const char *path, size_t *n)
{
	size_t len;
	char *text = read_file(path, &len);
	if (!text)
		return NULL;
	*n = 0;
	for (size_t i = 0; i < len; i++)
		if (text[i] == '\n')
			(*n)++;
	return text;
}

/* Split the newline-separated text (kept alive) into a name array. */
static char **split_lines(char *text, size_t n)
{
	char **names = xcalloc(n + 1, sizeof(char *));
	size_t i = 0;
	for (char *p = text; *p && i < n; i++) {
		char *nl = strchr(p, '\n');
		names[i] = p;
		if (!nl)
			break;
		*nl = 0;
		p = nl + 1;
	}
	return names;
}

static bool from_cache(struct kernel *k, const char *dir, const char *stamp)
{
	char *p = path_join(dir, "stamp");
	char *old = read_file(p, NULL);
	free(p);
	bool fresh = old && !strcmp(old, stamp);
	free(old);
	if (!fresh)
		return false;
	p = path_join(dir, "build-id");
	k->build_id = read_file(p, NULL);
	free(p);
	p = path_join(dir, "functions");
	size_t n = 0;
	char *text = load_names(p, &n);
	free(p);
	if (!k->build_id || !text) {
		free(text);
		return false;
	}
	k->funcs = split_lines(text, n);
	k->nfuncs = n;
	return true;
}

static bool from_image(struct kernel *k, const char *dir, const char *stamp, bool verbose)
{
	uint64_t t0 = now_ns();
	size_t len;
	char *elf = kimage_extract_vmlinux(k->vmlinuz, &len);
	if (!elf) {
		fprintf(stderr, "stap: cannot unpack the kernel image %s: %s\n", k->vmlinuz,
			errno == ENOTSUP ? "its compression is not xz" : strerror(errno));
		return false;
	}
	k->build_id = kimage_elf_build_id(elf, len);
	size_t btf_size = 0;
	const char *btf = kimage_elf_section(elf, len, ".BTF", &btf_size);
	if (!k->build_id) {
		fprintf(stderr, "stap: the kernel image %s has no build-id note\n", k->vmlinuz);
		free(elf);
		return false;
	}
	if (!btf) {
		fprintf(stderr,
			"stap: the kernel image %s has no BTF, so its function names are unknown\n",
			k->vmlinuz);
		free(elf);
		return false;
	}
	k->funcs = btf_function_names(btf, btf_size, &k->nfuncs);
	if (!k->funcs) {
		fprintf(stderr, "stap: cannot read the BTF of %s\n", k->vmlinuz);
		free(elf);
		return false;
	}
	/*
	 * BTF lacks the entry points of syscalls without arguments: x86's
	 * SYSCALL_DEFINE0 makes __x64_sys_NAME an alias of __do_sys_NAME, which
	 * is in BTF. Add the aliases. A real System.map (Debian ships a stub)
	 * adds every other text symbol.
	 */
	size_t n = k->nfuncs;
	for (size_t i = 0; i < n; i++) {
		if (strncmp(k->funcs[i], "__do_sys_", 9))
			continue;
		k->funcs = xrealloc(k->funcs, (k->nfuncs + 1) * sizeof(char *));
		k->funcs[k->nfuncs++] = xasprintf("__x64_sys_%s", k->funcs[i] + 9);
	}
	k->nfuncs = symbols_sort_unique(k->funcs, k->nfuncs);
	char *sysmap = xasprintf("/boot/System.map-%s", k->release);
	size_t nsyms = 0;
	char **syms = symbols_text_names(sysmap, &nsyms);
	free(sysmap);
	if (syms) {
		k->funcs = xrealloc(k->funcs, (k->nfuncs + nsyms) * sizeof(char *));
		memcpy(k->funcs + k->nfuncs, syms, nsyms * sizeof(char *));
		k->nfuncs = symbols_sort_unique(k->funcs, k->nfuncs + nsyms);
		free(syms);
	}
	/* Cache for the next run; the stamp goes last so a partial write is stale. */
	char *p = path_join(dir, "vmlinux.btf");
	write_file(p, btf, btf_size);
	free(p);
	p = path_join(dir, "build-id");
	write_file(p, k->build_id, strlen(k->build_id));
	free(p);
	struct strbuf b;
	sb_init(&b);
	for (size_t i = 0; i < k->nfuncs; i++)
		sb_printf(&b, "%s\n", k->funcs[i]);
	p = path_join(dir, "functions");
	write_file(p, b.s, b.len);
	free(p);
	sb_free(&b);
	p = path_join(dir, "stamp");
	write_file(p, stamp, strlen(stamp));
	free(p);
	free(elf);
	if (verbose)
		fprintf(stderr, "Read %zu function names and build-id %s from %s in %llu ms\n",
			k->nfuncs, k->build_id, k->vmlinuz,
			(unsigned long long)((now_ns() - t0) / 1000000));
	return true;
}

static bool from_running(struct kernel *k)
{
	size_t len;
	char *notes = read_file("/sys/kernel/notes", &len);
	char hex[256];
	char err[256];
	if (notes && sr_notes_build_id(notes, len, hex, sizeof hex, err, sizeof err) == 0)
		k->build_id = xstrdup(hex);
	free(notes);
	k->funcs = symbols_text_names("/proc/kallsyms", &k->nfuncs);
	if (!k->build_id || !k->funcs || k->nfuncs == 0) {
		fprintf(stderr, "stap: cannot read the running kernel's %s\n",
			k->build_id ? "/proc/kallsyms" : "build-id from /sys/kernel/notes");
		return false;
	}
	k->funcs_from = xstrdup("/proc/kallsyms");
	return true;
}

/* Bump when what the cache holds changes. */
#define KERNEL_CACHE_FORMAT 2

struct kernel *kernel_open(const char *release, bool verbose)
{
	struct kernel *k = xcalloc(1, sizeof *k);
	k->release = xstrdup(release);
	k->running = !strcmp(release, kernel_running_release());
	k->vmlinuz = existing(xasprintf("/boot/vmlinuz-%s", release));
	k->build_dir = existing(xasprintf("/lib/modules/%s/build", release));
	if (k->running && file_exists("/sys/kernel/notes")) {
		if (from_running(k))
			return k;
		return NULL;
	}
	if (!k->vmlinuz) {
		fprintf(stderr,
			"stap: no kernel image /boot/vmlinuz-%s; install the package "
			"linux-image-%s\n",
			release, release);
		return NULL;
	}
	struct stat st;
	if (stat(k->vmlinuz, &st) < 0) {
		fprintf(stderr, "stap: cannot read %s: %s\n", k->vmlinuz, strerror(errno));
		return NULL;
	}
	struct stat map;
	char *sysmap = xasprintf("/boot/System.map-%s", release);
	if (stat(sysmap, &map) < 0)
		memset(&map, 0, sizeof map);
	free(sysmap);
	char *stamp = xasprintf("%d %lld %lld %lld %lld\n", KERNEL_CACHE_FORMAT, (long long)st.st_size,
				(long long)st.st_mtime, (long long)map.st_size, (long long)map.st_mtime);
	char *sub = xasprintf("kernel/%s", release);
	char *dir = cache_dir(sub);
	free(sub);
	bool ok = from_cache(k, dir, stamp) || from_image(k, dir, stamp, verbose);
	free(dir);
	free(stamp);
	if (!ok)
		return NULL;
	k->funcs_from = xasprintf("the BTF in %s and /boot/System.map-%s", k->vmlinuz, release);
	return k;
}

static int cmp_key(const void *key, const void *elem)
{
	return strcmp(key, *(char *const *)elem);
}

bool kernel_has_function(const struct kernel *k, const char *name)
{
	return bsearch(name, k->funcs, k->nfuncs, sizeof(char *), cmp_key) != NULL;
}
