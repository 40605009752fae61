/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Every diagnostic the translator can give, with a stable name. The name is
 * printed after the message ("[unknown-function]") and each one is explained
 * in doc/diagnostics.md; tests match on it. Add new codes at the end of their
 * group; never reuse a name for a different meaning.
 *
 * DIAG(enum name, printed name)
 */
/* pass 1: reading and parsing */
DIAG(D_SYNTAX, "syntax")
DIAG(D_BAD_CHAR, "bad-char")
DIAG(D_BAD_STRING, "bad-string")
DIAG(D_BAD_NUMBER, "bad-number")
DIAG(D_UNTERMINATED_COMMENT, "unterminated-comment")
DIAG(D_UNSUPPORTED, "unsupported")
DIAG(D_TOO_DEEP, "too-deep")
DIAG(D_SCRIPT_ARGUMENT, "script-argument")
DIAG(D_MACRO, "macro")
DIAG(D_PREPROCESSOR, "preprocessor")
/* pass 2: names */
DIAG(D_REDEFINED, "redefined")
DIAG(D_UNKNOWN_FUNCTION, "unknown-function")
DIAG(D_NEVER_ASSIGNED, "never-assigned")
DIAG(D_UNUSED, "unused")
DIAG(D_NOT_GLOBAL, "not-global")
/* pass 2: types */
DIAG(D_TYPE_MISMATCH, "type-mismatch")
DIAG(D_TYPE_UNKNOWN, "type-unknown")
DIAG(D_WRONG_ARGS, "wrong-arguments")
DIAG(D_BAD_FORMAT, "bad-format")
DIAG(D_NOT_ASSIGNABLE, "not-assignable")
DIAG(D_VOID_VALUE, "void-value")
DIAG(D_ARRAY_KEYS, "array-keys")
DIAG(D_BAD_HISTOGRAM, "bad-statistic")
DIAG(D_BAD_REGEX, "bad-regex")
DIAG(D_FOREACH, "bad-foreach")
/* pass 2: control flow */
DIAG(D_MISPLACED, "misplaced-statement")
DIAG(D_MODIFIED_IN_FOREACH, "modified-in-foreach")
/* pass 2: probe points */
DIAG(D_NO_PROBES, "no-probes")
DIAG(D_UNKNOWN_PROBE, "unknown-probe-point")
DIAG(D_BAD_PROBE_ARG, "bad-probe-argument")
DIAG(D_UNKNOWN_KERNEL_FUNCTION, "unknown-kernel-function")
DIAG(D_TARGET_VARIABLE, "target-variable")
DIAG(D_UNPROBEABLE, "unprobeable-function")
DIAG(D_NO_DEBUGINFO, "no-debuginfo")
DIAG(D_NO_PROGRAM, "no-program")
DIAG(D_UNKNOWN_COUNTER, "unknown-counter")
DIAG(D_UNKNOWN_USER_FUNCTION, "unknown-user-function")
DIAG(D_UNKNOWN_MARK, "unknown-mark")
/* pass 2: guru mode */
DIAG(D_NEEDS_GURU, "needs-guru")
