/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Forced into every file of the fuzz target (clang -include): the
 * translator's own allocations go through parse-fuzz.c, which frees what
 * one input allocated before the next. The syntax tree is never freed by
 * design (front/ast.h), so without this the fuzzer's memory would grow with
 * every input.
 */
#ifndef TAPLINE_FUZZ_ALLOC_H
#define TAPLINE_FUZZ_ALLOC_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void *fz_malloc(size_t n);
void *fz_calloc(size_t n, size_t size);
void *fz_realloc(void *p, size_t n);
void fz_free(void *p);
int fz_vasprintf(char **s, const char *fmt, va_list ap);

#define malloc fz_malloc
#define calloc fz_calloc
#define realloc fz_realloc
#define free fz_free
#define vasprintf fz_vasprintf

#endif
