// SPDX-License-Identifier: GPL-2.0-or-later
/* The table of source files; see source.h. */
#include "front/source.h"

#include <string.h>

#include "util.h"

static struct ptrvec sources;

int src_add(const char *name, char *text, size_t len, bool is_tapset)
{
	struct source *s = xcalloc(1, sizeof *s);
	s->name = xstrdup(name);
	s->text = text;
	s->len = len;
	s->is_tapset = is_tapset;
	pv_push(&sources, s);
	return (int)sources.n - 1;
}

int src_load(const char *path, bool is_tapset)
{
	size_t len;
	char *text = read_file(path, &len);
	if (!text)
		return -1;
	return src_add(path, text, len, is_tapset);
}

const struct source *src_get(int file)
{
	if (file < 0 || (size_t)file >= sources.n)
		return NULL;
	return sources.v[file];
}

int src_count(void)
{
	return (int)sources.n;
}

const char *src_line(int file, int line, size_t *len)
{
	const struct source *s = src_get(file);
	if (!s || line < 1)
		return NULL;
	const char *p = s->text, *end = s->text + s->len;
	for (int l = 1; l < line; l++) {
		p = memchr(p, '\n', (size_t)(end - p));
		if (!p)
			return NULL;
		p++;
	}
	const char *nl = memchr(p, '\n', (size_t)(end - p));
	*len = (size_t)((nl ? nl : end) - p);
	return p;
}
