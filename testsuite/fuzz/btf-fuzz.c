// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target for the readers the modes without DWARF rely on: each
 * input is a module file whose .BTF sits on the kernel's (seeded with small
 * stock modules, then mutated), read as `stap -L 'module("m").function("*")'`
 * and $param->member would read it; or, by its first five bytes, "HdrS!": a
 * kernel image to unpack; "KSYM!": a vmlinux whose kallsyms tables to
 * decode (seeded by `kallsyms-test --seed`); "SITE!": the body of a probe
 * cache file (debuginfo/sitecache.c), given the header and checksum it
 * needs to be parsed at all. Nothing may crash or trip a sanitizer; errors
 * are fine. The kernel's BTF comes from the translator's cache
 * (TAPLINE_FUZZ_KERNEL_BTF, else /sys/kernel/btf/vmlinux).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "debuginfo/btf.h"
#include "debuginfo/kernel.h"
#include "debuginfo/sitecache.h"
#include "util.h"
#include "walk-type.h"

static char *dir, *file;
static struct btf_source *kernel;

static void each(const char *name, void *names)
{
	pv_push(names, (void *)name);
}

/* A probe cache file around body, read back and its types walked. */
static void fuzz_site_file(const uint8_t *body, size_t n)
{
	static const char head[] = "tapline-sites 1 build-id \"00\" key \"k\"\n";
	struct strbuf b;
	sb_init(&b);
	sb_add(&b, head, sizeof head - 1);
	sb_add(&b, (const char *)body, n);
	sb_printf(&b, "sum %016llx\n",
		  (unsigned long long)hash_bytes(0xcbf29ce484222325ULL, b.s, b.len));
	char *path = path_join(dir, "fuzz.sites");
	if (write_file(path, b.s, b.len)) {
		struct ptrvec sites = { 0 };
		char *why = NULL;
		if (sitecache_read(path, "00", "k", &sites, &why))
			for (size_t i = 0; i < sites.n; i++) {
				struct probe_site *s = sites.v[i];
				for (size_t k = 0; k < s->nvars; k++)
					walk_type(s->vars[k].type, 0);
				walk_type(s->return_type, 0);
			}
		pv_free(&sites);
		free(why);
		sitecache_free_all();
	}
	free(path);
	sb_free(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!dir) {
		dir = make_temp_dir("tapline-btf-fuzz");
		file = path_join(dir, "fuzzmod.ko");
		const char *kpath = getenv("TAPLINE_FUZZ_KERNEL_BTF");
		char *why = NULL;
		kernel = btf_open(kpath ? kpath : "/sys/kernel/btf/vmlinux", &why);
		if (!kernel) {
			fprintf(stderr, "btf-fuzz: %s\n", why);
			exit(1);
		}
	}
	if (size > 5 && !memcmp(data, "HdrS!", 5)) {
		size_t len;
		free(kimage_unpack(data + 5, size - 5, &len));
		return 0;
	}
	if (size > 5 && !memcmp(data, "KSYM!", 5)) {
		size_t n = 0;
		char *why = NULL;
		struct ksym *syms = kallsyms_decode((const char *)data + 5, size - 5, &n, &why);
		if (syms)
			symbols_free(syms, n);
		free(why);
		return 0;
	}
	if (size > 5 && !memcmp(data, "SITE!", 5)) {
		fuzz_site_file(data + 5, size - 5);
		return 0;
	}
	if (!write_file(file, data, size))
		return 0;
	char *why = NULL;
	struct btf_source *m = btf_open_module(file, kernel, &why);
	free(why);
	if (!m)
		return 0;
	struct ptrvec names = { 0 };
	btf_each_function(m, "*", each, &names);
	for (size_t i = 0; i < names.n && i < 200; i++) {
		struct probe_site *s = btf_function_site(m, names.v[i]);
		for (size_t k = 0; s && k < s->nvars; k++)
			walk_type(s->vars[k].type, 0);
		if (s)
			walk_type(s->return_type, 0);
	}
	pv_free(&names);
	why = NULL;
	walk_type(btf_find_type(m, "struct sk_buff", &why), 0);
	free(why);
	btf_close(m);
	return 0;
}
