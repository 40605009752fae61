// SPDX-License-Identifier: GPL-2.0-or-later
/* The table of source files; see source.h. */
#include "front/source.h"

#include <stdlib.h>
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

/* Where each line starts, so that finding one is O(1) however often a
 * long script is quoted. */
static void index_lines(struct source *s)
{
	size_t n = 1;
	for (size_t i = 0; i < s->len; i++)
		n += s->text[i] == '\n';
	s->line_start = xmalloc(n * sizeof(size_t));
	s->line_start[0] = 0;
	s->nlines = 1;
	for (size_t i = 0; i < s->len; i++)
		if (s->text[i] == '\n')
			s->line_start[s->nlines++] = i + 1;
}

const char *src_line(int file, int line, size_t *len)
{
	if (file < 0 || (size_t)file >= sources.n || line < 1)
		return NULL;
	struct source *s = sources.v[file];
	if (!s->line_start)
		index_lines(s);
	if ((size_t)line > s->nlines)
		return NULL;
	const char *p = s->text + s->line_start[line - 1], *end = s->text + s->len;
	const char *nl = memchr(p, '\n', (size_t)(end - p));
	*len = (size_t)((nl ? nl : end) - p);
	return p;
}

void src_reset(void)
{
	for (size_t i = 0; i < sources.n; i++) {
		struct source *s = sources.v[i];
		free(s->name);
		free(s->text);
		free(s->line_start);
		free(s);
	}
	pv_free(&sources);
}
