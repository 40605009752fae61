// SPDX-License-Identifier: GPL-2.0-or-later
/* Diagnostics with source lines and carets; see diag.h. */
#include "front/diag.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

static const char *const code_names[] = {
#define DIAG(id, name) [id] = name,
#include "front/diag-codes.h"
#undef DIAG
};

static int nerrors;
static bool warnings_on = true;
static bool quiet;
/* Warnings shown and held back, per code. */
static int nwarnings[D_NCODES], nsuppressed[D_NCODES];
static bool warnings_are_errors; /* -W */
/* Notes and hints of a suppressed warning are suppressed with it. */
static bool last_shown = true;
/* Instead of exit(1) after too many errors (the fuzzer's). */
static void (*stop_hook)(void);

const char *diag_code_name(enum diag_code code)
{
	return code < D_NCODES ? code_names[code] : "?";
}

void diag_set_warnings(int enabled)
{
	warnings_on = enabled;
}

void diag_reset(void)
{
	nerrors = 0;
	memset(nwarnings, 0, sizeof nwarnings);
	memset(nsuppressed, 0, sizeof nsuppressed);
	last_shown = true;
}

void diag_set_stop(void (*stop)(void))
{
	stop_hook = stop;
}

int diag_warnings(void)
{
	int n = 0;
	for (int i = 0; i < D_NCODES; i++)
		n += nwarnings[i];
	return n;
}

int diag_errors(void)
{
	return nerrors;
}

void diag_summary(void)
{
	for (int code = 0; code < D_NCODES; code++) {
		if (!nsuppressed[code])
			continue;
		fprintf(stderr, "stap: %d more [%s] warning%s not shown (the first %d were)\n",
			nsuppressed[code], code_names[code], nsuppressed[code] == 1 ? "" : "s",
			DIAG_MAX_WARNINGS);
		nsuppressed[code] = 0;
	}
}

/*
 * Every piece of text a diagnostic prints goes through here: messages quote
 * the user's text (a format directive, a file name), which may hold control
 * characters. They are shown escaped ('\n', '\x1b'), so a diagnostic stays
 * one line and cannot drive the terminal.
 */
static void put_text(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == '\n')
			fputs("\\n", stderr);
		else if (c == '\t')
			fputs("\\t", stderr);
		else if (c == '\r')
			fputs("\\r", stderr);
		else if (c < 32 || c == 127)
			fprintf(stderr, "\\x%02x", c);
		else
			fputc(c, stderr);
	}
}

static void put_vformat(const char *fmt, va_list ap)
{
	char *text = NULL;
	int n = vasprintf(&text, fmt, ap);
	if (n < 0)
		fatal("out of memory");
	put_text(text, (size_t)n);
	free(text);
}

/* Lines longer than this are shown as a window of it around the caret. */
#define DIAG_LINE_WINDOW 100

static void show_line(struct loc loc)
{
	size_t len;
	const char *line = src_line(loc.file, loc.line, &len);
	if (!line)
		return;
	size_t caret = loc.col > 0 ? (size_t)loc.col - 1 : 0;
	if (caret > len)
		caret = len;
	size_t from = 0, to = len;
	if (len > DIAG_LINE_WINDOW) {
		from = caret > DIAG_LINE_WINDOW / 2 ? caret - DIAG_LINE_WINDOW / 2 : 0;
		to = from + DIAG_LINE_WINDOW < len ? from + DIAG_LINE_WINDOW : len;
		if (to - from < DIAG_LINE_WINDOW)
			from = to - DIAG_LINE_WINDOW;
	}
	const char *pre = from ? "..." : "", *post = to < len ? "..." : "";
	fprintf(stderr, "    %s", pre);
	/* One column per byte, so the caret lines up: a control character other
	 * than a tab is shown as '?'. */
	for (size_t i = from; i < to; i++) {
		unsigned char c = (unsigned char)line[i];
		fputc(c == '\t' || (c >= 32 && c != 127) ? c : '?', stderr);
	}
	fprintf(stderr, "%s\n    %*s", post, (int)strlen(pre), "");
	/* Keep tabs so the caret lines up under the same column. */
	for (size_t i = from; i < caret; i++)
		fputc(line[i] == '\t' ? '\t' : ' ', stderr);
	fputs("^\n", stderr);
}

static void print_loc(struct loc loc)
{
	const struct source *s = src_get(loc.file);
	if (s) {
		put_text(s->name, strlen(s->name));
		fprintf(stderr, ":%d:%d: ", loc.line, loc.col);
	}
	else
		fputs("stap: ", stderr);
}

static void report(const char *kind, struct loc loc, enum diag_code code, const char *fmt,
		   va_list ap)
{
	fflush(stdout);
	print_loc(loc);
	fprintf(stderr, "%s: ", kind);
	put_vformat(fmt, ap);
	fprintf(stderr, " [%s]\n", diag_code_name(code));
	show_line(loc);
}

void diag_set_quiet(bool on)
{
	quiet = on;
}

/*
 * Has this very message been given at this place already? A body copied
 * for each site of a wildcard, or each PLT entry, meets the same fault
 * once per copy: it is said once (and still counted).
 */
#define DIAG_SEEN_MAX 4096
static uint64_t seen[DIAG_SEEN_MAX];
static size_t nseen;
/* Errors said (the repeats are counted in nerrors, not here). */
static int nshown;

static bool said_before(struct loc loc, enum diag_code code, const char *fmt, va_list ap)
{
	char *text = NULL;
	va_list copy;
	va_copy(copy, ap);
	int n = vasprintf(&text, fmt, copy);
	va_end(copy);
	if (n < 0)
		return false;
	uint64_t h = hash_bytes(HASH_INIT, &loc, sizeof loc);
	h = hash_bytes(h, &code, sizeof code);
	h = hash_bytes(h, text, (size_t)n);
	free(text);
	for (size_t i = 0; i < nseen; i++)
		if (seen[i] == h)
			return true;
	if (nseen < DIAG_SEEN_MAX)
		seen[nseen++] = h;
	return false;
}

void diag_error(struct loc loc, enum diag_code code, const char *fmt, ...)
{
	if (quiet) {
		last_shown = false;
		return;
	}
	va_list ap;
	va_start(ap, fmt);
	if (loc.file >= 0 && said_before(loc, code, fmt, ap)) {
		va_end(ap);
		last_shown = false;
		nerrors++;
		return;
	}
	report("error", loc, code, fmt, ap);
	va_end(ap);
	last_shown = true;
	nerrors++;
	if (++nshown >= DIAG_MAX_ERRORS) {
		fprintf(stderr, "stap: too many errors (%d), stopping\n", nshown);
		if (stop_hook)
			stop_hook();
		exit(1);
	}
}

void diag_set_warnings_are_errors(bool on)
{
	warnings_are_errors = on;
}

void diag_warning(struct loc loc, enum diag_code code, const char *fmt, ...)
{
	if (warnings_are_errors && warnings_on) {
		/* -W: reported and counted as the error it now is (unless -w
		 * silenced warnings, as SystemTap's -wW does). */
		last_shown = !quiet;
		nerrors++;
		if (quiet)
			return;
		va_list ap;
		va_start(ap, fmt);
		report("error", loc, code, fmt, ap);
		va_end(ap);
		return;
	}
	last_shown = !quiet && warnings_on && nwarnings[code] < DIAG_MAX_WARNINGS;
	if (quiet)
		return;
	if (!warnings_on)
		return;
	if (!last_shown) {
		nsuppressed[code]++;
		return;
	}
	va_list ap;
	va_start(ap, fmt);
	if (loc.file >= 0 && said_before(loc, code, fmt, ap)) {
		va_end(ap);
		last_shown = false;
		return;
	}
	nwarnings[code]++;
	report("warning", loc, code, fmt, ap);
	va_end(ap);
}

void diag_note(struct loc loc, const char *fmt, ...)
{
	if (!last_shown)
		return;
	va_list ap;
	print_loc(loc);
	fputs("note: ", stderr);
	va_start(ap, fmt);
	put_vformat(fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	show_line(loc);
}

void diag_hint(const char *fmt, ...)
{
	if (!last_shown)
		return;
	va_list ap;
	fputs("hint: ", stderr);
	va_start(ap, fmt);
	put_vformat(fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* Damerau-Levenshtein (optimal string alignment) distance, capped at cap+1. */
static int edit_distance(const char *a, const char *b, int cap)
{
	int la = (int)strlen(a), lb = (int)strlen(b);
	if (abs(la - lb) > cap)
		return cap + 1;
	int *prev2 = xcalloc((size_t)lb + 1, sizeof(int));
	int *prev = xcalloc((size_t)lb + 1, sizeof(int));
	int *cur = xcalloc((size_t)lb + 1, sizeof(int));
	for (int j = 0; j <= lb; j++)
		prev[j] = j;
	for (int i = 1; i <= la; i++) {
		cur[0] = i;
		int rowmin = cur[0];
		for (int j = 1; j <= lb; j++) {
			int cost = a[i - 1] != b[j - 1];
			int d = prev[j] + 1;
			if (cur[j - 1] + 1 < d)
				d = cur[j - 1] + 1;
			if (prev[j - 1] + cost < d)
				d = prev[j - 1] + cost;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    prev2[j - 2] + 1 < d)
				d = prev2[j - 2] + 1;
			cur[j] = d;
			if (d < rowmin)
				rowmin = d;
		}
		int *t = prev2;
		prev2 = prev;
		prev = cur;
		cur = t;
		if (rowmin > cap)
			break;
	}
	/* A row whose minimum passed the cap can only grow: stop early. */
	int d = la > 0 && prev[0] != la ? cap + 1 : prev[lb];
	free(prev2);
	free(prev);
	free(cur);
	return d > cap ? cap + 1 : d;
}

void suggest_init(struct suggest *s, const char *want)
{
	memset(s, 0, sizeof *s);
	s->want = want;
}

void suggest_offer(struct suggest *s, const char *candidate)
{
	if (!strcmp(candidate, s->want))
		return;
	/* Allow about one edit per three characters: "pirntf" finds "printf",
	 * but short names do not match everything. */
	int cap = (int)strlen(s->want) / 3;
	if (cap < 1)
		cap = 1;
	if (cap > 4)
		cap = 4;
	int d = edit_distance(s->want, candidate, cap);
	if (d > cap)
		return;
	for (int i = 0; i < 3; i++) {
		if (s->best[i] && !strcmp(s->best[i], candidate))
			return;
	}
	for (int i = 0; i < 3; i++) {
		if (!s->best[i] || d < s->dist[i] ||
		    (d == s->dist[i] && strcmp(candidate, s->best[i]) < 0)) {
			for (int k = 2; k > i; k--) {
				s->best[k] = s->best[k - 1];
				s->dist[k] = s->dist[k - 1];
			}
			s->best[i] = candidate;
			s->dist[i] = d;
			return;
		}
	}
}

int suggest_hint(const struct suggest *s, const char *what)
{
	int n = 0;
	while (n < 3 && s->best[n])
		n++;
	if (n == 0)
		return 0;
	struct strbuf b;
	sb_init(&b);
	for (int i = 0; i < n; i++) {
		if (i)
			sb_puts(&b, i == n - 1 ? " or " : ", ");
		sb_printf(&b, "'%s'", s->best[i]);
	}
	diag_hint("did you mean %s%s%s?", what ? what : "", what ? " " : "", b.s);
	sb_free(&b);
	return n;
}
