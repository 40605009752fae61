/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Types from C headers (headers.c): what @cast(p, "type", "<sys/un.h>")
 * reads its type from.
 */
#ifndef TAPLINE_HEADERS_H
#define TAPLINE_HEADERS_H

/* A shared library (its path, malloced) whose DWARF holds the types of
 * headers ("<sys/un.h><netinet/in.h>"), compiled once and cached; NULL
 * with *why (malloced) when they cannot be compiled. */
char *headers_library(const char *headers, char **why);

#endif
