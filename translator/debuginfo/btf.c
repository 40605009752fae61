// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * BTF, the kernel's compact type format. This is the only file that uses
 * libbpf. For now Tapline needs only the list of functions; typed arguments
 * will come from here too.
 */
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <stdlib.h>

#include "debuginfo/kernel.h"
#include "util.h"

char **btf_function_names(const void *data, size_t size, size_t *n)
{
	struct btf *btf = btf__new(data, (__u32)size);
	if (!btf || libbpf_get_error(btf))
		return NULL;
	struct ptrvec names = { 0 };
	__u32 count = btf__type_cnt(btf);
	for (__u32 id = 1; id < count; id++) {
		const struct btf_type *t = btf__type_by_id(btf, id);
		if (!t || !btf_is_func(t))
			continue;
		const char *name = btf__name_by_offset(btf, t->name_off);
		if (name && *name)
			pv_push(&names, xstrdup(name));
	}
	btf__free(btf);
	*n = symbols_sort_unique((char **)names.v, names.n);
	return (char **)names.v;
}
