/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the unit tests print: one "ok N - what" or "not ok N - what" line per
 * check (details follow a failure as "#" lines), counted, and a summary.
 * testsuite/run-tests counts the lines.
 */
#ifndef TAPLINE_TAP_H
#define TAPLINE_TAP_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

static int tap_checks, tap_failed;

/* Report one check; returns ok, so a caller can add "#" lines on failure. */
static bool tap_check(bool ok, const char *fmt, ...) __attribute__((format(printf, 2, 3), unused));
static bool tap_check(bool ok, const char *fmt, ...)
{
	va_list ap;

	tap_checks++;
	if (!ok)
		tap_failed++;
	printf("%s %d - ", ok ? "ok" : "not ok", tap_checks);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	return ok;
}

/* A check that cannot run here; it counts as passed. */
static void tap_skip(const char *why) __attribute__((unused));
static void tap_skip(const char *why)
{
	printf("ok %d # SKIP %s\n", ++tap_checks, why);
}

/* A deterministic generator (xorshift64), so that a failing run of a
 * test that makes random inputs can be repeated. */
static uint64_t tap_rand_state = 0x9e3779b97f4a7c15ull;
static uint64_t tap_rand(void) __attribute__((unused));
static uint64_t tap_rand(void)
{
	tap_rand_state ^= tap_rand_state << 13;
	tap_rand_state ^= tap_rand_state >> 7;
	tap_rand_state ^= tap_rand_state << 17;
	return tap_rand_state;
}

/* Print the summary; the exit status for main(). */
static int tap_done(void) __attribute__((unused));
static int tap_done(void)
{
	printf("# %d checks, %d failed\n", tap_checks, tap_failed);
	return tap_failed ? 1 : 0;
}

#endif
