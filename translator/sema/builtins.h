/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Functions the translator knows itself: output (print, printf, ...),
 * exit(), and the context functions (execname(), pid(), ...). Each maps to
 * one runtime API call in the generated C. Functions that can be written in
 * the script language live in tapsets/ instead.
 */
#ifndef TAPLINE_BUILTINS_H
#define TAPLINE_BUILTINS_H

#include "front/ast.h"

enum builtin_id {
	B_PRINT,
	B_PRINTLN,
	B_PRINTF,
	B_SPRINTF,
	B_EXIT,
	B_ERROR,
	B_WARN,
	B_EXECNAME,
	B_PID,
	B_TID,
	B_PPID,
	B_UID,
	B_CPU,
	B_PROBEFUNC,
	B_PP,
	B_TARGET,
	B_GETTIMEOFDAY_NS,
	B_KTIME_NS,
	B_JIFFIES,
	B_STRLEN,
};

struct builtin {
	enum builtin_id id;
	const char *name;
	enum type ret;
	int min_args, max_args;    /* max_args -1: any number */
	enum type arg_types[2];    /* of the first arguments; T_UNKNOWN: any type */
	bool probe_context;        /* meaningful only inside a probe hit */
};

/* NULL when name is not a built-in function. */
const struct builtin *builtin_find(const char *name);
/* For "did you mean": call fn on every built-in name. */
void builtin_each_name(void (*fn)(const char *name, void *ctx), void *ctx);

#endif
