/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Kbuild's .cmd files record shell command lines. stap keeps the commands
 * it takes from them as argument vectors and runs them with execvp, never
 * through a shell, so that nothing in a cache is ever interpreted by one.
 */
#ifndef TAPLINE_SHELLWORDS_H
#define TAPLINE_SHELLWORDS_H

#include <stdbool.h>

#include "util.h"

/*
 * Cut line into commands at ';' and each command into words as sh would:
 * 'single quotes', "double quotes" (where a backslash escapes $ ` " \),
 * and a backslash escaping the next character. Anything else a shell
 * would interpret (| & < > $ ` ( ), globs, comments, ~, a VAR=value
 * prefix) means something without a shell that it cannot mean here: false,
 * with *why (malloced) saying what and where. Otherwise each command is
 * pushed to *commands as a struct ptrvec * of malloced words.
 */
bool shell_split(const char *line, struct ptrvec *commands, char **why);
/* Free what shell_split pushed. */
void shell_free(struct ptrvec *commands);

/* The command line a kbuild .cmd file's text records: its first
 * "cmd_TARGET := COMMAND" line, written "savedcmd_TARGET := COMMAND" since
 * Linux 6.3 (malloced; NULL if it has neither). */
char *kbuild_cmd_line(const char *text);

#endif
