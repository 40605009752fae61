// SPDX-License-Identifier: GPL-2.0-or-later
/* The table of built-in functions; see builtins.h. */
#include "sema/builtins.h"

#include <string.h>

static const struct builtin builtins[] = {
#define X(id, name, sig, ctx, code, doc) { id, name, sig, ctx, doc },
	BUILTINS(X)
#undef X
};

const struct builtin *builtin_find(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(builtins); i++)
		if (!strcmp(builtins[i].name, name))
			return &builtins[i];
	return NULL;
}

const char *builtin_guru_reason(enum builtin_id id)
{
	if (id == B_PRINTK || id == B_DUMP_STACK)
		return "writing to the kernel log from a probe can hold its CPU on a slow console";
	if (id >= B_SET_KERNEL_LONG && id <= B_SET_RETURNVAL)
		return "a write changes what the probed code sees";
	if (id == B_RAISE)
		return "a signal changes what the process does";
	if (id == B_MDELAY || id == B_UDELAY)
		return "busy-waiting in a probe stalls its CPU";
	if (id == B_PANIC)
		return "it stops the machine";
	return NULL;
}

void builtin_each_name(void (*fn)(const char *, void *), void *ctx)
{
	for (size_t i = 0; i < ARRAY_SIZE(builtins); i++)
		fn(builtins[i].name, ctx);
}

void builtin_each(void (*fn)(const struct builtin *b, void *ctx), void *ctx)
{
	for (size_t i = 0; i < ARRAY_SIZE(builtins); i++)
		fn(&builtins[i], ctx);
}

static enum type letter_type(char c)
{
	switch (c) {
	case 'l':
		return T_LONG;
	case 's':
		return T_STRING;
	case 'v':
		return T_VOID;
	default:
		return T_UNKNOWN;
	}
}

enum type builtin_result(const struct builtin *b)
{
	return letter_type(b->sig[0]);
}

/* The argument letters, after "R:". */
static const char *args_of(const struct builtin *b)
{
	return b->sig + 2;
}

enum type builtin_arg(const struct builtin *b, int i)
{
	const char *a = args_of(b);
	size_t n = strlen(a);
	bool more = n && a[n - 1] == '.';
	size_t fixed = more ? n - 1 : n;
	if ((size_t)i < fixed)
		return letter_type(a[i]);
	if (more)
		/* "." alone repeats '*'; otherwise it repeats the letter before it. */
		return fixed ? letter_type(a[fixed - 1]) : T_UNKNOWN;
	return T_VOID;
}

int builtin_min_args(const struct builtin *b)
{
	const char *a = args_of(b);
	size_t n = strlen(a);
	return (int)(n && a[n - 1] == '.' ? n - 1 : n);
}

int builtin_max_args(const struct builtin *b)
{
	const char *a = args_of(b);
	size_t n = strlen(a);
	return n && a[n - 1] == '.' ? -1 : (int)n;
}
