// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Symbol tables: the kernel's symbols as a name-sorted array of struct ksym,
 * read from a kallsyms-format file ("ADDRESS TYPE NAME [MODULE]" per line,
 * as /proc/kallsyms gives them) or decoded from an image (kallsyms.c).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "debuginfo/kernel.h"
#include "util.h"

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

size_t symbols_sort_unique(char **names, size_t n)
{
	if (n == 0)
		return 0;
	qsort(names, n, sizeof(char *), cmp_str);
	size_t out = 1;
	for (size_t i = 1; i < n; i++) {
		if (strcmp(names[i], names[out - 1]))
			names[out++] = names[i];
		else
			free(names[i]);
	}
	return out;
}

static int cmp_sym(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;
	int c = strcmp(x->name, y->name);
	if (c)
		return c;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

void symbols_sort(struct ksym *syms, size_t n)
{
	qsort(syms, n, sizeof *syms, cmp_sym);
}

struct ksym *symbols_read_kallsyms(const char *path, size_t *n)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return NULL;
	size_t cap = 1024, count = 0;
	struct ksym *syms = xmalloc(cap * sizeof *syms);
	char line[512];
	while (fgets(line, sizeof line, f)) {
		uint64_t addr;
		char type, name[256];
		/* Module symbols ("[ext4]") are not the kernel's own. */
		if (sscanf(line, "%" SCNx64 " %c %255s", &addr, &type, name) != 3 ||
		    strchr(line, '['))
			continue;
		if (count == cap) {
			cap *= 2;
			syms = xrealloc(syms, cap * sizeof *syms);
		}
		syms[count++] = (struct ksym){ xstrdup(name), addr, type };
	}
	fclose(f);
	symbols_sort(syms, count);
	*n = count;
	return syms;
}

const struct ksym *symbols_find(const struct ksym *syms, size_t n, const char *name)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (strcmp(syms[mid].name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && !strcmp(syms[lo].name, name) ? &syms[lo] : NULL;
}

void symbols_free(struct ksym *syms, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(syms[i].name);
	free(syms);
}
