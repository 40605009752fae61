// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The tapset library's documentation, for stap --dump-functions and
 * --dump-probe-aliases and the manual page made from them: each function
 * and probe alias a tapset file defines, as declared, with the comment
 * right above it. Read from the files' text (comments are not in the
 * syntax tree), without preprocessing: what every branch of a %( %)
 * condition defines is listed.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "front/front.h"

static int entry_cmp(const void *a, const void *b)
{
	const struct tapdoc *x = *(struct tapdoc *const *)a, *y = *(struct tapdoc *const *)b;
	return strcmp(x->name, y->name);
}

/* The comment ending just before line (which starts at text + at), as one
 * line of text; NULL if the line before is not a comment. */
static char *comment_before(const char *text, size_t at)
{
	/* The previous line's end. */
	if (at == 0)
		return NULL;
	size_t end = at - 1;
	while (end > 0 && (text[end - 1] == ' ' || text[end - 1] == '\t'))
		end--;
	struct strbuf b;
	sb_init(&b);
	if (end >= 2 && text[end - 1] == '/' && text[end - 2] == '*') {
		/* A block comment: back to its start. */
		size_t close = end - 2, open = close;
		while (open >= 2 && !(text[open - 2] == '/' && text[open - 1] == '*'))
			open--;
		if (open < 2)
			return NULL;
		for (size_t i = open; i < close; i++) {
			char c = text[i];
			if (c == '\n') {
				/* Continuation lines' leading " * ". */
				while (i + 1 < close && (text[i + 1] == ' ' || text[i + 1] == '\t'))
					i++;
				if (i + 1 < close && text[i + 1] == '*' && !(i + 2 < close && text[i + 2] == '/'))
					i++;
				c = ' ';
			}
			sb_putc(&b, c);
		}
	} else {
		/* "//" lines, the nearest last. */
		size_t line_end = end;
		struct ptrvec lines = { 0 };
		for (;;) {
			size_t start = line_end;
			while (start > 0 && text[start - 1] != '\n')
				start--;
			const char *p = text + start;
			while (*p == ' ' || *p == '\t')
				p++;
			if (strncmp(p, "//", 2))
				break;
			pv_push(&lines, xstrndup(p + 2, (size_t)(text + line_end - p - 2)));
			if (start == 0)
				break;
			line_end = start - 1;
		}
		for (size_t i = lines.n; i-- > 0;)
			sb_printf(&b, "%s ", (char *)lines.v[i]);
		pv_free_all(&lines);
	}
	if (!b.s) {
		sb_free(&b);
		return NULL;
	}
	/* One line, spaces collapsed. */
	char *s = sb_detach(&b), *w = s;
	for (const char *r = s; *r; r++)
		if (!isspace((unsigned char)*r) || (w > s && w[-1] != ' '))
			*w++ = isspace((unsigned char)*r) ? ' ' : *r;
	while (w > s && w[-1] == ' ')
		w--;
	*w = 0;
	if (!*s) {
		free(s);
		return NULL;
	}
	return s;
}

static void add(struct ptrvec *out, char *name, char *decl, char *doc)
{
	struct tapdoc *d = xcalloc(1, sizeof *d);
	d->name = name;
	d->decl = decl;
	d->doc = doc;
	pv_push(out, d);
}

/* "function NAME[:TYPE] (ARGS)" at p, as "NAME:TYPE (ARGS)". */
static void read_function(const char *text, size_t line, const char *p, struct ptrvec *out)
{
	const char *name = p;
	while (isalnum((unsigned char)*p) || *p == '_')
		p++;
	if (p == name)
		return;
	char *n = xstrndup(name, (size_t)(p - name));
	char *type = NULL;
	while (*p == ' ')
		p++;
	if (*p == ':') {
		const char *t = ++p;
		while (isalpha((unsigned char)*p))
			p++;
		type = xstrndup(t, (size_t)(p - t));
	}
	while (*p == ' ')
		p++;
	const char *args = p, *close = *p == '(' ? strchr(p, ')') : NULL;
	char *decl = xasprintf("%s%s%s %.*s", n, type ? ":" : "", type ? type : "",
			       close ? (int)(close - args + 1) : 2, close ? args : "()");
	free(type);
	add(out, n, decl, comment_before(text, line));
}

/* "probe NAME[, NAME...] = " or "+=" at p: each NAME is an alias. */
static void read_alias(const char *text, size_t line, const char *p, struct ptrvec *out)
{
	const char *eq = p;
	while (*eq && *eq != '\n' && *eq != '{' && *eq != '=')
		eq++;
	if (*eq != '=' && !(eq[0] == '+' && eq[1] == '='))
		return;
	if (eq > p && eq[-1] == '+')
		eq--;
	char *doc = comment_before(text, line);
	char *names = xstrndup(p, (size_t)(eq - p));
	for (char *save = NULL, *tok = strtok_r(names, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		while (*tok == ' ' || *tok == '\t')
			tok++;
		size_t len = strlen(tok);
		while (len && (tok[len - 1] == ' ' || tok[len - 1] == '\t'))
			len--;
		if (len)
			add(out, xstrndup(tok, len), xstrndup(tok, len), doc ? xstrdup(doc) : NULL);
	}
	free(names);
	free(doc);
}

static void read_file_docs(const char *path, struct ptrvec *functions, struct ptrvec *aliases)
{
	char *text = read_file(path, NULL);
	if (!text)
		return;
	for (const char *line = text; *line;) {
		const char *p = line;
		while (*p == ' ' || *p == '\t')
			p++;
		/* Private names are the file's own: not the library's. */
		if (!strncmp(p, "private ", 8))
			p = "";
		if (!strncmp(p, "function ", 9))
			read_function(text, (size_t)(line - text), p + 9, functions);
		else if (!strncmp(p, "probe ", 6))
			read_alias(text, (size_t)(line - text), p + 6, aliases);
		const char *nl = strchr(line, '\n');
		if (!nl)
			break;
		line = nl + 1;
	}
	free(text);
}

void tapdoc_read(const struct ptrvec *paths, struct ptrvec *functions, struct ptrvec *aliases)
{
	for (size_t i = 0; i < paths->n; i++)
		read_file_docs(paths->v[i], functions, aliases);
	qsort(functions->v, functions->n, sizeof *functions->v, entry_cmp);
	qsort(aliases->v, aliases->n, sizeof *aliases->v, entry_cmp);
}
