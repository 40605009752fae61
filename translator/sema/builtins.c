// SPDX-License-Identifier: GPL-2.0-or-later
/* The table of built-in functions; see builtins.h. */
#include "sema/builtins.h"

#include <string.h>

static const struct builtin builtins[] = {
	{ B_PRINT, "print", T_VOID, 1, -1, { T_UNKNOWN }, false },
	{ B_PRINTLN, "println", T_VOID, 0, -1, { T_UNKNOWN }, false },
	{ B_PRINTF, "printf", T_VOID, 1, -1, { T_STRING }, false },
	{ B_SPRINTF, "sprintf", T_STRING, 1, -1, { T_STRING }, false },
	{ B_EXIT, "exit", T_VOID, 0, 0, { T_UNKNOWN }, false },
	{ B_ERROR, "error", T_VOID, 1, 1, { T_STRING }, false },
	{ B_WARN, "warn", T_VOID, 1, 1, { T_STRING }, false },
	{ B_EXECNAME, "execname", T_STRING, 0, 0, { T_UNKNOWN }, true },
	{ B_PID, "pid", T_LONG, 0, 0, { T_UNKNOWN }, true },
	{ B_TID, "tid", T_LONG, 0, 0, { T_UNKNOWN }, true },
	{ B_PPID, "ppid", T_LONG, 0, 0, { T_UNKNOWN }, true },
	{ B_UID, "uid", T_LONG, 0, 0, { T_UNKNOWN }, true },
	{ B_CPU, "cpu", T_LONG, 0, 0, { T_UNKNOWN }, true },
	{ B_PROBEFUNC, "probefunc", T_STRING, 0, 0, { T_UNKNOWN }, true },
	{ B_PP, "pp", T_STRING, 0, 0, { T_UNKNOWN }, true },
	{ B_TARGET, "target", T_LONG, 0, 0, { T_UNKNOWN }, false },
	{ B_GETTIMEOFDAY_NS, "gettimeofday_ns", T_LONG, 0, 0, { T_UNKNOWN }, false },
	{ B_KTIME_NS, "local_clock_ns", T_LONG, 0, 0, { T_UNKNOWN }, false },
	{ B_JIFFIES, "jiffies", T_LONG, 0, 0, { T_UNKNOWN }, false },
	{ B_STRLEN, "strlen", T_LONG, 1, 1, { T_STRING }, false },
};

const struct builtin *builtin_find(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(builtins); i++)
		if (!strcmp(builtins[i].name, name))
			return &builtins[i];
	return NULL;
}

void builtin_each_name(void (*fn)(const char *, void *), void *ctx)
{
	for (size_t i = 0; i < ARRAY_SIZE(builtins); i++)
		fn(builtins[i].name, ctx);
}
