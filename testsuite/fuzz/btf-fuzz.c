// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target for the readers BTF mode relies on: each input is a
 * module file whose .BTF sits on the kernel's (seeded with small stock
 * modules, then mutated), read as `stap -L 'module("m").function("*")'`
 * and $param->member would read it; or, when it starts with "HdrS!", a
 * kernel image to unpack. Nothing may crash or trip a sanitizer; errors
 * are fine. The kernel's BTF comes from the translator's cache
 * (TAPLINE_FUZZ_KERNEL_BTF, else /sys/kernel/btf/vmlinux).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "debuginfo/btf.h"
#include "debuginfo/kernel.h"
#include "util.h"

static char *dir, *file;
static struct btf_source *kernel;

static void walk_type(struct ctype *t, int depth)
{
	if (!t || depth > 4)
		return;
	ctype_complete(t);
	if (t->target)
		walk_type(t->target, depth + 1);
	for (size_t i = 0; i < t->nmembers; i++)
		walk_type(t->members[i].type, depth + 1);
}

static void each(const char *name, void *names)
{
	pv_push(names, (void *)name);
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
