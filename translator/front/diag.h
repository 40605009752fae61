/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Diagnostics, GCC-style so editors can jump to them:
 *
 *   script.stp:3:9: error: unknown function 'pirntf' [unknown-function]
 *       pirntf("%d\n", x)
 *       ^
 *   hint: did you mean 'printf'?
 *
 * Every pass reports through here. Errors are counted; after DIAG_MAX_ERRORS
 * the run stops. After DIAG_MAX_WARNINGS warnings of one kind the rest are
 * counted, and diag_summary() says how many. Long source lines are shown as
 * a window around the caret. diag_note and diag_hint attach to the
 * diagnostic just given.
 */
#ifndef TAPLINE_DIAG_H
#define TAPLINE_DIAG_H

#include <stdbool.h>
#include <stddef.h>

#include "front/source.h"

enum diag_code {
#define DIAG(id, name) id,
#include "front/diag-codes.h"
#undef DIAG
	D_NCODES
};

#define DIAG_MAX_ERRORS 20
/* Warnings of one kind shown before the rest are only counted. */
#define DIAG_MAX_WARNINGS 10

void diag_error(struct loc loc, enum diag_code code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void diag_warning(struct loc loc, enum diag_code code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void diag_note(struct loc loc, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void diag_hint(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int diag_errors(void);
/* Warnings given so far (shown or not). */
int diag_warnings(void);
/* Say how many warnings of each kind were held back (and forget them). */
void diag_summary(void);
const char *diag_code_name(enum diag_code code);
/* Suppress warnings (-w). */
void diag_set_warnings(int enabled);
/* -W: every warning is an error (reported as one, and counted). */
void diag_set_warnings_are_errors(bool on);
/* Drop every diagnostic, uncounted, while on (scanning a file only to index it). */
void diag_set_quiet(bool quiet);

/* For the fuzzer, which runs many scripts in one process: forget every
 * count, and call stop (which must not return) instead of exiting when
 * the errors reach DIAG_MAX_ERRORS. */
void diag_reset(void);
void diag_set_stop(void (*stop)(void));

/*
 * "Did you mean" suggestions: offer each candidate name, then ask for the
 * best few (those within a small edit distance of the wanted name).
 */
struct suggest {
	const char *want;
	const char *best[3];
	int dist[3];
};
void suggest_init(struct suggest *s, const char *want);
void suggest_offer(struct suggest *s, const char *candidate);
/* Print "hint: did you mean 'a', 'b' or 'c'?" when there is a candidate; returns how many. */
int suggest_hint(const struct suggest *s, const char *what);

#endif
