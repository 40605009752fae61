// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for the shell-word splitter (translator/back/shellwords.c):
 * kbuild's quoting comes out as sh would leave it, and whatever only a
 * shell would interpret is refused rather than passed on as text.
 */
#include <stdlib.h>
#include <string.h>

#include "back/shellwords.h"
#include "tap.h"

/* The commands of line, each as its words joined by '|', joined by " ; ". */
static char *split(const char *line, char **why)
{
	struct ptrvec cmds = { 0 };
	if (!shell_split(line, &cmds, why))
		return NULL;
	struct strbuf b;
	sb_init(&b);
	for (size_t i = 0; i < cmds.n; i++) {
		const struct ptrvec *w = cmds.v[i];
		if (i)
			sb_puts(&b, " ; ");
		for (size_t k = 0; k < w->n; k++) {
			if (k)
				sb_putc(&b, '|');
			sb_puts(&b, w->v[k]);
		}
	}
	shell_free(&cmds);
	return sb_detach(&b);
}

static void splits(const char *line, const char *want)
{
	char *why = NULL, *got = split(line, &why);
	if (!tap_check(got && !strcmp(got, want), "%s", line))
		printf("# got %s, want %s\n", got ? got : why, want);
	free(got);
	free(why);
}

static void refused(const char *line, const char *what)
{
	char *why = NULL, *got = split(line, &why);
	char *shown = str_replace_all(line, "\n", "\\n");
	if (!tap_check(!got && why && strstr(why, what), "refused: %s", shown))
		printf("# got %s, want an error with \"%s\"\n", got ? got : why, what);
	free(shown);
	free(got);
	free(why);
}

static void cmd_line(const char *text, const char *want)
{
	static int n;
	char *got = kbuild_cmd_line(text);
	if (!tap_check(want ? got && !strcmp(got, want) : !got, ".cmd file %d: %s", ++n,
		       want ? want : "no command"))
		printf("# got %s, want %s\n", got ? got : "(none)", want ? want : "(none)");
	free(got);
}

int main(void)
{
	splits("gcc -c -o a.o a.c", "gcc|-c|-o|a.o|a.c");
	splits("  gcc\t -O2  ", "gcc|-O2");
	splits("gcc -DKBUILD_MODNAME='\"stub\"' -c", "gcc|-DKBUILD_MODNAME=\"stub\"|-c");
	splits("cc -DX=\"a b\" -DY=\"q\\\"\\\\\\$\\n\"", "cc|-DX=a b|-DY=q\"\\$\\n");
	splits("echo a\\ b \\' ''", "echo|a b|'|");
	splits("echo 'it'\\''s ok'", "echo|it's ok");
	splits("gcc -c -o x.o x.c   ; ./tools/objtool/objtool --module x.o",
	       "gcc|-c|-o|x.o|x.c ; ./tools/objtool/objtool|--module|x.o");
	splits("ld -r -o a.ko a.o;  true", "ld|-r|-o|a.ko|a.o ; true");
	splits("a;;b;", "a ; b");
	splits("gcc -fmacro-prefix-map=/usr/src/x/= a#b c~d", "gcc|-fmacro-prefix-map=/usr/src/x/=|a#b|c~d");
	splits("gcc 'a;b' \"c|d\" e\\&f '$(x)'", "gcc|a;b|c|d|e&f|$(x)");
	splits("", "");

	refused("gcc a.c | tee log", "unquoted '|'");
	refused("gcc a.c && touch x", "unquoted '&'");
	refused("gcc a.c > log", "unquoted '>'");
	refused("gcc a.c < in", "unquoted '<'");
	refused("gcc $(touch x)", "unquoted '$'");
	refused("gcc `touch x`", "unquoted '`'");
	refused("gcc \"$(touch x)\"", "'$' in double quotes");
	refused("gcc \"`touch x`\"", "'`' in double quotes");
	refused("gcc (x)", "unquoted '('");
	refused("gcc *.c", "unquoted '*'");
	refused("gcc a?.c", "unquoted '?'");
	refused("gcc [ab].c", "unquoted '['");
	refused("gcc a.c # comment", "unquoted '#'");
	refused("gcc ~/x.c", "unquoted '~'");
	refused("CC=gcc make", "variable assignment");
	refused("a; X=1", "variable assignment");
	refused("gcc 'a.c", "unterminated '");
	refused("gcc \"a.c", "unterminated \"");
	refused("gcc a.c\\", "backslash at the end");
	refused("gcc a.c\ntouch x", "newline");
	refused("gcc a.c; touch x; rm -rf $HOME", "character 26");

	/* A .cmd file's command line: kbuild wrote cmd_ until 6.2, savedcmd_ since. */
	cmd_line("cmd_/s/a.o := gcc -c -o /s/a.o /s/a.c\n\nsource_/s/a.o := /s/a.c\n",
		 "gcc -c -o /s/a.o /s/a.c");
	cmd_line("savedcmd_/s/a.o := gcc -c -o /s/a.o /s/a.c\n\nsource_/s/a.o := /s/a.c\n",
		 "gcc -c -o /s/a.o /s/a.c");
	cmd_line("savedcmd_a.ko := ld -r -o a.ko a.o a.mod.o", "ld -r -o a.ko a.o a.mod.o");
	cmd_line("source_a.o := a.c\ndeps_a.o := \\\ncmd_a.o := cc a.c\n", "cc a.c");
	cmd_line("deps_a.o := a.h\n", NULL);
	cmd_line("cmd_a.o = cc a.c\n", NULL);
	cmd_line("", NULL);
	return tap_done();
}
