// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Shell command lines as argument vectors; see shellwords.h. Only the
 * quoting a shell removes is undone here; everything a shell would expand,
 * redirect or run is refused, because without a shell it would not happen
 * and the command would not be the one kbuild ran.
 */
#include "back/shellwords.h"

#include <stdlib.h>
#include <string.h>

/* Characters that make sh do something besides splitting words. */
static const char shell_specials[] = "|&<>$`()*?[\n";

struct splitter {
	struct ptrvec *commands;
	struct ptrvec *words; /* the command being read */
	struct strbuf word;
	bool in_word;         /* even an empty '' is a word */
};

/* "VAR=value cmd" sets a variable for cmd in sh; here it would be run. */
static bool is_assignment(const char *w)
{
	size_t n = strspn(w, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_0123456789");
	return n && !(w[0] >= '0' && w[0] <= '9') && w[n] == '=';
}

static bool end_word(struct splitter *sp)
{
	if (!sp->in_word)
		return true;
	char *w = sb_detach(&sp->word);
	sp->in_word = false;
	if (!sp->words->n && is_assignment(w)) {
		free(w);
		return false;
	}
	pv_push(sp->words, w);
	return true;
}

static void end_command(struct splitter *sp)
{
	if (sp->words->n) {
		pv_push(sp->commands, sp->words);
		sp->words = xcalloc(1, sizeof *sp->words);
	}
}

bool shell_split(const char *line, struct ptrvec *commands, char **why)
{
	struct splitter sp = { .commands = commands, .words = xcalloc(1, sizeof *sp.words) };
	size_t had = commands->n;
	sb_init(&sp.word);
	*why = NULL;
	const char *p;
	for (p = line; *p && !*why; p++) {
		size_t at = (size_t)(p - line) + 1;
		if (*p == ' ' || *p == '\t' || *p == ';') {
			if (!end_word(&sp))
				*why = xasprintf("a variable assignment before character %zu", at);
			else if (*p == ';')
				end_command(&sp);
		} else if (*p == '\'') {
			const char *close = strchr(p + 1, '\'');
			if (!close) {
				*why = xasprintf("an unterminated ' at character %zu", at);
				break;
			}
			sb_add(&sp.word, p + 1, (size_t)(close - p - 1));
			sp.in_word = true;
			p = close;
		} else if (*p == '"') {
			sp.in_word = true;
			for (p++; *p && *p != '"' && !*why; p++) {
				if (*p == '$' || *p == '`')
					*why = xasprintf("a '%c' in double quotes at character %zu", *p,
							 (size_t)(p - line) + 1);
				else if (*p == '\\' && p[1] && strchr("$`\"\\", p[1]))
					p++;
				sb_putc(&sp.word, *p);
			}
			if (!*p && !*why)
				*why = xasprintf("an unterminated \" at character %zu", at);
			if (!*p)
				break;
		} else if (*p == '\\') {
			if (!p[1]) {
				*why = xasprintf("a backslash at the end");
				break;
			}
			sb_putc(&sp.word, *++p);
			sp.in_word = true;
		} else if (strchr(shell_specials, *p) || (!sp.in_word && (*p == '#' || *p == '~'))) {
			if (*p == '\n')
				*why = xasprintf("a newline at character %zu", at);
			else
				*why = xasprintf("an unquoted '%c' at character %zu", *p, at);
		} else {
			sb_putc(&sp.word, *p);
			sp.in_word = true;
		}
	}
	if (!*why && !end_word(&sp))
		*why = xasprintf("a variable assignment at the end");
	if (!*why)
		end_command(&sp);
	pv_free_all(sp.words);
	free(sp.words);
	sb_free(&sp.word);
	if (*why) {
		char *full = xasprintf("%s, which only a shell would interpret", *why);
		free(*why);
		*why = full;
		while (commands->n > had) {
			struct ptrvec *words = commands->v[--commands->n];
			pv_free_all(words);
			free(words);
		}
	}
	return !*why;
}

void shell_free(struct ptrvec *commands)
{
	for (size_t i = 0; i < commands->n; i++) {
		pv_free_all(commands->v[i]);
		free(commands->v[i]);
	}
	pv_free(commands);
}

static bool begins(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

char *kbuild_cmd_line(const char *text)
{
	for (const char *line = text; line && *line;) {
		const char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line);
		if (begins(line, "cmd_") || begins(line, "savedcmd_")) {
			const char *eq = strstr(line, " := ");
			return eq && eq < line + len ? xstrndup(eq + 4, len - (size_t)(eq + 4 - line))
						     : NULL;
		}
		line = nl ? nl + 1 : NULL;
	}
	return NULL;
}
