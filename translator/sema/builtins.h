/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Functions the translator knows itself: output (print, printf, ...),
 * exit(), the context functions (execname(), pid(), ...) and the string
 * and number library. Each maps to runtime API calls in the generated C.
 * Functions that can be written in the script language live in tapsets/
 * instead.
 *
 * A signature is written "R:ARGS": R the result ('l' long, 's' string, 'v'
 * nothing), ARGS one letter per argument ('l', 's', '*' any value, a
 * histogram too where printing takes one), and a final '.' for any number
 * more like the letter before it ("v:*." is one or more of anything).
 */
#ifndef TAPLINE_BUILTINS_H
#define TAPLINE_BUILTINS_H

#include "front/ast.h"

#define BUILTINS(X)                                                                         \
	/* output */                                                                        \
	X(B_PRINT, "print", "v:*.", false)                                                  \
	X(B_PRINTLN, "println", "v:.", false)                                               \
	X(B_PRINTD, "printd", "v:s*.", false)                                               \
	X(B_PRINTDLN, "printdln", "v:s*.", false)                                           \
	X(B_PRINTF, "printf", "v:s.", false)                                                \
	X(B_SPRINT, "sprint", "s:*.", false)                                                \
	X(B_SPRINTLN, "sprintln", "s:.", false)                                             \
	X(B_SPRINTD, "sprintd", "s:s*.", false)                                             \
	X(B_SPRINTDLN, "sprintdln", "s:s*.", false)                                         \
	X(B_SPRINTF, "sprintf", "s:s.", false)                                              \
	/* control */                                                                       \
	X(B_EXIT, "exit", "v:", false)                                                      \
	X(B_ERROR, "error", "v:s", false)                                                   \
	X(B_WARN, "warn", "v:s", false)                                                     \
	/* context */                                                                       \
	X(B_EXECNAME, "execname", "s:", true)                                               \
	X(B_PID, "pid", "l:", true)                                                         \
	X(B_TID, "tid", "l:", true)                                                         \
	X(B_PPID, "ppid", "l:", true)                                                       \
	X(B_UID, "uid", "l:", true)                                                         \
	X(B_CPU, "cpu", "l:", true)                                                         \
	X(B_PROBEFUNC, "probefunc", "s:", true)                                             \
	X(B_PP, "pp", "s:", true)                                                           \
	X(B_TARGET, "target", "l:", false)                                                  \
	X(B_GETTIMEOFDAY_NS, "gettimeofday_ns", "l:", false)                                \
	X(B_KTIME_NS, "local_clock_ns", "l:", false)                                        \
	X(B_JIFFIES, "jiffies", "l:", false)                                                \
	/* kernel memory, read fault-safe */                                                \
	X(B_KERNEL_STRING, "kernel_string", "s:l", false)                                   \
	X(B_KERNEL_STRING2, "kernel_string2", "s:ls", false)                                \
	X(B_KERNEL_STRING_N, "kernel_string_n", "s:ll", false)                              \
	X(B_KERNEL_LONG, "kernel_long", "l:l", false)                                       \
	X(B_KERNEL_INT, "kernel_int", "l:l", false)                                         \
	X(B_KERNEL_SHORT, "kernel_short", "l:l", false)                                     \
	X(B_KERNEL_CHAR, "kernel_char", "l:l", false)                                       \
	X(B_KERNEL_POINTER, "kernel_pointer", "l:l", false)                                 \
	/* arguments by position at a function's entry, and its return value: no        \
	 * debug information needed (the x86-64 calling convention); kept together,      \
	 * int_arg first and returnval last: elaborate.c takes them as a range */          \
	X(B_INT_ARG, "int_arg", "l:l", true)                                                \
	X(B_UINT_ARG, "uint_arg", "l:l", true)                                              \
	X(B_S32_ARG, "s32_arg", "l:l", true)                                                \
	X(B_U32_ARG, "u32_arg", "l:l", true)                                                \
	X(B_LONG_ARG, "long_arg", "l:l", true)                                              \
	X(B_ULONG_ARG, "ulong_arg", "l:l", true)                                            \
	X(B_LONGLONG_ARG, "longlong_arg", "l:l", true)                                      \
	X(B_ULONGLONG_ARG, "ulonglong_arg", "l:l", true)                                    \
	X(B_S64_ARG, "s64_arg", "l:l", true)                                                \
	X(B_U64_ARG, "u64_arg", "l:l", true)                                                \
	X(B_POINTER_ARG, "pointer_arg", "l:l", true)                                        \
	X(B_RETURNVAL, "returnval", "l:", true)                                             \
	X(B_ASMLINKAGE, "asmlinkage", "v:", false)                                          \
	/* strings */                                                                       \
	X(B_STRLEN, "strlen", "l:s", false)                                                 \
	X(B_SUBSTR, "substr", "s:sll", false)                                               \
	X(B_ISINSTR, "isinstr", "l:ss", false)                                              \
	X(B_STRPOS, "strpos", "l:ss", false)                                                \
	X(B_TOKENIZE, "tokenize", "s:ss", false)                                            \
	X(B_STR_REPLACE, "str_replace", "s:sss", false)                                     \
	X(B_TEXT_STR, "text_str", "s:s", false)                                             \
	X(B_TEXT_STRN, "text_strn", "s:sll", false)                                         \
	X(B_STRING_QUOTED, "string_quoted", "s:s", false)                                   \
	X(B_STRTOL, "strtol", "l:sl", false)                                                \
	X(B_STRINGAT, "stringat", "l:sl", false)                                            \
	X(B_TOUPPER, "toupper", "s:s", false)                                               \
	X(B_TOLOWER, "tolower", "s:s", false)                                               \
	X(B_ISDIGIT, "isdigit", "l:s", false)                                               \
	X(B_MATCHED, "matched", "s:l", false)                                               \
	X(B_MATCHED_STR, "matched_str", "s:", false)                                        \
	X(B_NGROUPS, "ngroups", "l:", false)                                                \
	/* numbers */                                                                       \
	X(B_ABS, "abs", "l:l", false)                                                       \
	X(B_MAX, "max", "l:ll", false)                                                      \
	X(B_MIN, "min", "l:ll", false)

enum builtin_id {
#define X(id, name, sig, ctx) id,
	BUILTINS(X)
#undef X
};

struct builtin {
	enum builtin_id id;
	const char *name;
	const char *sig;
	bool probe_context;        /* meaningful only inside a probe hit */
};

/* NULL when name is not a built-in function. */
const struct builtin *builtin_find(const char *name);
/* For "did you mean": call fn on every built-in name. */
void builtin_each_name(void (*fn)(const char *name, void *ctx), void *ctx);

/* From the signature: the result type, and the type of argument i (T_UNKNOWN
 * for '*'), or T_VOID when there is no argument i. */
enum type builtin_result(const struct builtin *b);
enum type builtin_arg(const struct builtin *b, int i);
/* The fewest arguments, and the most (-1: any number). */
int builtin_min_args(const struct builtin *b);
int builtin_max_args(const struct builtin *b);

#endif
