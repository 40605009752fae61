/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Source files held in memory for the whole run, so that any later pass can
 * quote the line a diagnostic points at. A location is a file index plus a
 * 1-based line and column.
 */
#ifndef TAPLINE_SOURCE_H
#define TAPLINE_SOURCE_H

#include <stdbool.h>
#include <stddef.h>

struct loc {
	int file; /* index into the source table; -1: no location */
	int line; /* 1-based */
	int col;  /* 1-based, in bytes */
};

#define NO_LOC ((struct loc){ -1, 0, 0 })

struct source {
	char *name;     /* as given: "script.stp", "<input>", a tapset path */
	char *text;     /* NUL-terminated contents */
	size_t len;
	bool is_tapset; /* part of the library, not the user's script */
	size_t *line_start; /* offset of each line, built on first use by src_line() */
	size_t nlines;
};

/* Register a file's contents (takes ownership of text); returns its index. */
int src_add(const char *name, char *text, size_t len, bool is_tapset);
/* Read a file and register it; -1 if it cannot be read (errno set). */
int src_load(const char *path, bool is_tapset);
const struct source *src_get(int file);
int src_count(void);
/* The text of line LINE of FILE (no newline), its length in *len; NULL if out of range. */
const char *src_line(int file, int line, size_t *len);
/* Forget every file (for the fuzzer, which parses many scripts in one process). */
void src_reset(void);

#endif
