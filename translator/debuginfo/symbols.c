// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Symbol tables: the text symbols of a kallsyms-format file
 * (/proc/kallsyms, System.map): "ADDRESS TYPE NAME [MODULE]" per line.
 */
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

char **symbols_text_names(const char *path, size_t *n)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return NULL;
	struct ptrvec names = { 0 };
	char line[512];
	while (fgets(line, sizeof line, f)) {
		char type, name[256];
		/* Module symbols ("[ext4]") are not the kernel's own. */
		if (sscanf(line, "%*s %c %255s", &type, name) != 2 || strchr(line, '['))
			continue;
		if (type == 't' || type == 'T' || type == 'w' || type == 'W')
			pv_push(&names, xstrdup(name));
	}
	fclose(f);
	*n = symbols_sort_unique((char **)names.v, names.n);
	return (char **)names.v;
}
