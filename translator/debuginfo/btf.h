/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * BTF as a source of the target model (target.h): the kernel's compact,
 * de-duplicated C types, which Debian's kernel image carries without any
 * debuginfo installed. A function's prototype gives its parameters and
 * return type; at the function's entry the x86-64 calling convention says
 * where each parameter is. BTF has no locals, no source lines and no
 * inlined copies: those need DWARF.
 */
#ifndef TAPLINE_BTF_H
#define TAPLINE_BTF_H

#include <stddef.h>

#include "debuginfo/target.h"

struct btf_source;

/* The BTF in file path (raw BTF, as /sys/kernel/btf/vmlinux and the
 * translator's cache hold it); NULL with *why (malloced). */
struct btf_source *btf_open(const char *path, char **why);
/* The BTF of a module file (its .BTF section, split on top of the
 * kernel's); NULL with *why (malloced). */
struct btf_source *btf_open_module(const char *ko, struct btf_source *kernel, char **why);
/* Free b. The types and sites made from it stay, but no type of its may be
 * completed after (the fuzzer's loop; stap keeps every source open). */
void btf_close(struct btf_source *b);
/* Each function the BTF itself describes (not its base's), by name, once;
 * only those matching pattern (fnmatch) unless it is NULL. */
void btf_each_function(struct btf_source *b, const char *pattern,
		       void (*fn)(const char *name, void *ctx), void *ctx);
/* Each typedef of the BTF itself whose name starts with prefix: fn gets
 * the rest of its name ("btf_trace_" gives the kernel's tracepoints). */
void btf_each_typedef(struct btf_source *b, const char *prefix,
		      void (*fn)(const char *rest, void *ctx), void *ctx);
/* A site at the entry of the function name: its parameters (by the
 * calling convention) and return type. NULL if BTF has no such function.
 * The caller fills in object, anchor and offsets. */
struct probe_site *btf_function_site(struct btf_source *b, const char *name);
/* The same for a typedef of a pointer to a function (its parameters are
 * named arg1, arg2, ... where BTF names none). */
struct probe_site *btf_typedef_site(struct btf_source *b, const char *name);
/* The parameter types of function name, or of the function a typedef name
 * points to, after the first, as type ids ("12,57,"): equal strings mean
 * equal parameter types. NULL if there is neither. */
char *btf_signature(struct btf_source *b, const char *name);
/* A type by name ("struct file", "union u", "enum e", "int", a typedef
 * name); NULL with *why (malloced). */
struct ctype *btf_find_type(struct btf_source *b, const char *name, char **why);

#endif
