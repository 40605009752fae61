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
 *
 * The code column says what pass 3 makes of a call (back/cg-builtins.c),
 * the arguments evaluated left to right:
 *   VALUE(fn)     the expression fn(c, args...)
 *   STRING(fn)    fn(c, result, MAXSTRINGLEN, args...) fills a string
 *   DO(fn)        the statement fn(c, args...); the call's value is 0
 *   KREAD(n, s)   n bytes at a kernel address, signed if s (rt_kread)
 *   UREAD(n, s)   the same at a user address (rt_uread)
 *   ARG(n, s)     argument N by the calling convention, n bytes (rt_arg)
 *   KWRITE(n)     n bytes of the second argument at a kernel address (rt_kwrite)
 *   UWRITE(n)     the same at a user address (rt_uwrite)
 *   CHECK(fn)     the expression fn(c, args..., what, loc): fn may fail the
 *                 hit, naming the call (what) and where it is (loc)
 *   CHECK_DO(fn)  the statement fn(c, args..., what, loc) likewise
 *   OWN           code of its own in cg-builtins.c
 *
 * builtin_guru_reason() names those that need guru mode.
 */
#ifndef TAPLINE_BUILTINS_H
#define TAPLINE_BUILTINS_H

#include "front/ast.h"

#define BUILTINS(X)                                                                         \
	/* output */ \
	X(B_PRINT, "print", "v:*.", false, OWN, "Print each argument, with no separator.") \
	X(B_PRINTLN, "println", "v:.", false, OWN, "Print each argument, then a newline.") \
	X(B_PRINTD, "printd", "v:s*.", false, OWN, "Print the arguments after the first, separated by the first.") \
	X(B_PRINTDLN, "printdln", "v:s*.", false, OWN, "Print the arguments after the first, separated by the first, then a newline.") \
	X(B_PRINTF, "printf", "v:s.", false, OWN, "Print the arguments as the format (the first) says.") \
	X(B_SPRINT, "sprint", "s:*.", false, OWN, "The arguments as print() would print them.") \
	X(B_AUTOPRINT_VALUE, "__autoprint_value", "s:*", false, OWN, "A value as the end-of-run printing of unread globals shows it: a number in decimal, a string quoted.") \
	X(B_SPRINTLN, "sprintln", "s:.", false, OWN, "The arguments as println() would print them.") \
	X(B_SPRINTD, "sprintd", "s:s*.", false, OWN, "The arguments as printd() would print them.") \
	X(B_SPRINTDLN, "sprintdln", "s:s*.", false, OWN, "The arguments as printdln() would print them.") \
	X(B_SPRINTF, "sprintf", "s:s.", false, OWN, "The arguments as printf() would print them.") \
	/* control */ \
	X(B_EXIT, "exit", "v:", false, DO(rt_exit), "Stop the script once this probe hit ends: the end probes run.") \
	X(B_ABORT, "abort", "v:", false, CHECK_DO(rt_abort), "Stop the script at once: this probe hit ends here (no catch takes it) and the end probes do not run.") \
	X(B_ERROR, "error", "v:s", false, OWN, "End the script with this message: the error probes run.") \
	X(B_WARN, "warn", "v:s", false, OWN, "Print this warning on stderr; the script goes on.") \
	X(B_ADDR_TO_NODE, "addr_to_node", "l:l", true, OWN, "The NUMA node of the memory at a kernel address (of the direct map: kmalloc, page addresses); an error for others.") \
	X(B_SYSTEM, "system", "v:s", false, DO(rt_system), "Run this command with /bin/sh, in the background, as the user running staprun, soon after this hit (at most 1023 bytes).") \
	X(B_PRINTK, "printk", "v:ls", false, DO(rt_printk), "Guru mode: print the message and a newline in the kernel log at a level, 0 (KERN_EMERG) to 7 (KERN_DEBUG).") \
	/* context */ \
	X(B_EXECNAME, "execname", "s:", true, STRING(rt_execname), "The name of the current process.") \
	X(B_PID, "pid", "l:", true, VALUE(rt_pid), "The current process id (its thread group id).") \
	X(B_PN, "pn", "s:", false, STRING(rt_pn), "The probe's name as the script wrote it: its alias (syscall.read), else the probe point.") \
	X(B_MODULE_NAME, "module_name", "s:", false, STRING(rt_module_name), "The name of the script's kernel module (stap -m, else stap_...).") \
	X(B_TID, "tid", "l:", true, VALUE(rt_tid), "The current thread id.") \
	X(B_PPID, "ppid", "l:", true, VALUE(rt_ppid), "The parent process's id.") \
	X(B_UID, "uid", "l:", true, VALUE(rt_uid), "The current process's user id.") \
	X(B_CPU, "cpu", "l:", true, VALUE(rt_cpu), "The CPU the probe hit runs on.") \
	X(B_PROBEFUNC, "probefunc", "s:", true, STRING(rt_probefunc), "The probed function.") \
	X(B_PP, "pp", "s:", true, STRING(rt_pp), "The probe point that fired, as a probe point.") \
	X(B_TARGET, "target", "l:", false, VALUE(rt_target), "The process id given with -x, or of the command of -c.") \
	X(B_GETTIMEOFDAY_NS, "gettimeofday_ns", "l:", false, VALUE(rt_gettimeofday_ns), "Nanoseconds since the epoch.") \
	X(B_KTIME_NS, "local_clock_ns", "l:", false, VALUE(rt_local_clock_ns), "Nanoseconds from this CPU's clock: monotonic on one CPU, cheap.") \
	X(B_CPU_CLOCK_NS, "cpu_clock_ns", "l:l", false, OWN, "Nanoseconds from CPU N's clock (the scheduler's, as local_clock_ns() reads its own).") \
	X(B_JIFFIES, "jiffies", "l:", false, VALUE(rt_jiffies), "The kernel's jiffies counter.") \
	X(B_GID, "gid", "l:", true, VALUE(rt_gid), "The current process's group id.") \
	X(B_EUID, "euid", "l:", true, VALUE(rt_euid), "The current process's effective user id.") \
	X(B_EGID, "egid", "l:", true, VALUE(rt_egid), "The current process's effective group id.") \
	X(B_PEXECNAME, "pexecname", "s:", true, STRING(rt_pexecname), "The name of the current process's parent.") \
	X(B_TASK_CURRENT, "task_current", "l:", true, VALUE(rt_task_current), "The current task, a struct task_struct pointer for the task_*() functions.") \
	X(B_HZ, "HZ", "l:", false, VALUE(rt_hz), "The kernel's timer ticks per second.") \
	X(B_PROBEMOD, "probemod", "s:", true, STRING(rt_probemod), "The module of the probe point that fired, or \"kernel\".") \
	X(B_PPFUNC, "ppfunc", "s:", true, STRING(rt_probefunc), "The function (or tracepoint) the probe point that fired names.") \
	X(B_IS_RETURN, "is_return", "l:", true, VALUE(rt_is_return), "Whether the probe that fired is a return probe.") \
	X(B_STP_PID, "stp_pid", "l:", false, VALUE(rt_stp_pid), "The process id of the staprun running the script.") \
	X(B_CMDLINE_STR, "cmdline_str", "s:", true, STRING(rt_cmdline_str), "The current process's command line, its arguments separated by spaces.") \
	X(B_CMDLINE_ARGS, "cmdline_args", "s:lls", true, OWN, "Arguments N to M (-1: the last) of the current process's command line, separated by DELIM.") \
	X(B_CMDLINE_ARG, "cmdline_arg", "s:l", true, OWN, "Argument N of the current process's command line (0: the program).") \
	X(B_ADDR, "addr", "l:", true, VALUE(rt_addr), "Where the hit is: a kernel function probe's address, or the instruction timer.profile or perf interrupted.") \
	X(B_USER_MODE, "user_mode", "l:", true, VALUE(rt_user_mode), "Whether timer.profile or perf interrupted user space (else the kernel).") \
	X(B_UADDR, "uaddr", "l:", true, VALUE(rt_uaddr), "The user-space address the current process would return to (its saved instruction pointer), 0 in a kernel thread.") \
	X(B_GET_LOADAVG_INDEX, "get_loadavg_index", "l:l", false, CHECK(rt_get_loadavg_index), "The whole part of the 1-, 5- or 15-minute load average (index 0, 1 or 2).") \
	X(B_SPRINT_LOADAVG, "sprint_loadavg", "s:", false, STRING(rt_sprint_loadavg), "The three load averages as /proc/loadavg shows them, \"0.42 0.30 0.12\\n\".") \
	X(B_MODULE_SIZE, "module_size", "s:", false, STRING(rt_module_size), "The script's module sizes as SystemTap words them: \"Ndata/Ntext/Nctx/Nnet/Nalloc kb\" (its data, its code, the per-CPU state, 0, all the kernel memory it took).") \
	X(B_PRINT_REGS, "print_regs", "v:", true, DO(rt_print_regs), "Print the probed code's registers (RIP, RSP, EFLAGS and the general ones).") \
	X(B_FTRACE, "ftrace", "v:s", false, DO(rt_ftrace), "Write a message into the kernel's trace buffer (/sys/kernel/tracing/trace).") \
	X(B_GET_CYCLES, "get_cycles", "l:", false, VALUE(rt_get_cycles), "The CPU's cycle counter (its time-stamp counter on x86-64).") \
	X(B_PID2TASK, "pid2task", "l:l", false, VALUE(rt_pid2task), "The struct task_struct of process PID (0 if there is none), for the task_*() functions.") \
	X(B_ERRNO_STR, "errno_str", "s:l", false, STRING(rt_errno_str), "The name of an error code, \"ENOENT\" for -2 or 2 (\"\" if none).") \
	X(B_TZ_GMTOFF, "tz_gmtoff", "l:", false, OWN, "The translating machine's time zone offset, in seconds west of UTC.") \
	X(B_TZ_NAME, "tz_name", "s:", false, OWN, "The translating machine's time zone name.") \
	/* kernel symbols and call chains */ \
	X(B_SYMNAME, "symname", "s:l", false, STRING(rt_symname), "The name of the kernel function or object at an address.") \
	X(B_SYMDATA, "symdata", "s:l", false, STRING(rt_symdata), "The symbol at an address with offset, size and module: \"vfs_read+0x10/0x1a0 [kernel]\".") \
	X(B_USYMNAME, "usymname", "s:l", true, STRING(rt_usymname), "The name of the function or object at a user-space address of the current process, in a file the script probes (else the address in hex).") \
	X(B_USYMDATA, "usymdata", "s:l", true, STRING(rt_usymdata), "The user-space symbol at an address with offset, size and file: \"main+0x10/0x80 [/usr/bin/prog]\".") \
	X(B_UMODADDR, "umodaddr", "l:l", true, CHECK(rt_umodaddr), "A user-space address of the current process as an offset into the file mapped there (from where the file's first byte is mapped).") \
	X(B_UMODBUILDID, "umodbuildid", "s:l", true, CHECK_STRING(rt_umodbuildid), "The build-id (hex) of the file the script probes that is mapped at a user-space address of the current process.") \
	X(B_UMODNAME, "umodname", "s:l", true, STRING(rt_umodname), "The file (program or library) mapped at a user-space address of the current process (\"\" if none).") \
	X(B_BACKTRACE, "backtrace", "s:", true, STRING(rt_backtrace), "The kernel call chain of the hit, innermost first, as hex addresses.") \
	X(B_TASK_BACKTRACE, "task_backtrace", "s:l", false, CHECK_STRING(rt_task_backtrace), "Another task's kernel call chain (a task_struct pointer, as pid2task() gives), innermost first, as hex addresses; an error when it is no live task.") \
	X(B_PRINT_BACKTRACE, "print_backtrace", "v:", true, DO(rt_print_backtrace), "Print the kernel call chain of the hit, one symbolized line per frame.") \
	X(B_SPRINT_BACKTRACE, "sprint_backtrace", "s:", true, STRING(rt_sprint_backtrace), "The kernel call chain as print_backtrace() prints it.") \
	X(B_PRINT_BACKTRACE_FILELINE, "print_backtrace_fileline", "v:", true, DO(rt_print_backtrace_fileline), "Print the kernel call chain as print_backtrace() does, with each frame's source file and line (\" at file:line\"), named by staprun from the kernel's line table.") \
	X(B_SYMFILELINE, "symfileline", "s:l", false, STRING(rt_symfileline), "The source file and line (\"file:line\") of a kernel address, else the address in hex; named by staprun from the kernel's line table, which the module carries.") \
	X(B_SYMFILE, "symfile", "s:l", false, STRING(rt_symfile), "The source file of a kernel address, else the address in hex; named by staprun.") \
	X(B_SYMLINE, "symline", "s:l", false, STRING(rt_symline), "The source line number of a kernel address, else the address in hex; named by staprun.") \
	X(B_PRINT_STACK, "print_stack", "v:s", false, DO(rt_print_stack), "Print a backtrace() string, one symbolized line per address.") \
	X(B_UBACKTRACE, "ubacktrace", "s:", true, STRING(rt_ubacktrace), "The current task's user stack, innermost first: a token that prints as hex addresses, unwound by staprun; arrays keyed by it merge equal stacks.") \
	X(B_UCALLERS, "ucallers", "s:l", true, STRING(rt_ucallers), "The first N callers in the current task's user stack (ubacktrace() without the innermost frame).") \
	X(B_PRINT_UBACKTRACE, "print_ubacktrace", "v:", true, DO(rt_print_ubacktrace), "Print the current task's user stack, one symbolized line per frame (inline frames too).") \
	X(B_SPRINT_UBACKTRACE, "sprint_ubacktrace", "s:", true, STRING(rt_sprint_ubacktrace), "The current task's user stack as \"sym+off [file]\" lines (a token staprun expands where it is printed).") \
	X(B_PRINT_UBACKTRACE_FILELINE, "print_ubacktrace_fileline", "v:", true, DO(rt_print_ubacktrace_fileline), "Print the current task's user stack as print_ubacktrace() does, with each frame's source file and line.") \
	X(B_PRINT_UBACKTRACE_BRIEF, "print_ubacktrace_brief", "v:", true, DO(rt_print_ubacktrace_brief), "Print the current task's user stack as \"sym+off\" lines, one per frame (a frame without a symbol as its address).") \
	X(B_USYMFILELINE, "usymfileline", "s:l", true, STRING(rt_usymfileline), "The source file and line (\"file:line\") of a user-space address of the current process, else the address in hex; named by staprun.") \
	X(B_USYMLINE, "usymline", "s:l", true, STRING(rt_usymline), "The source line number of a user-space address of the current process, else the address in hex; named by staprun.") \
	X(B_USYMFILE, "usymfile", "s:l", true, STRING(rt_usymfile), "The source file of a user-space address of the current process, else the address in hex; named by staprun.") \
	X(B_PRINT_USTACK, "print_ustack", "v:s", false, DO(rt_print_ustack), "Print a ubacktrace() string, one symbolized line per frame.") \
	X(B_SPRINT_USTACK, "sprint_ustack", "s:s", false, STRING(rt_sprint_ustack), "A ubacktrace() string as sprint_ubacktrace() gives it.") \
	X(B_SPRINT_USTACK_FOLDED, "sprint_ustack_folded", "s:s", false, STRING(rt_sprint_ustack_folded), "A ubacktrace() string as one line of folded frames, outermost first, separated by ';' (for flame graphs).") \
	/* kernel memory, read fault-safe */ \
	X(B_KERNEL_STRING, "kernel_string", "s:l", false, OWN, "The NUL-terminated string at a kernel address.") \
	X(B_KERNEL_STRING2, "kernel_string2", "s:ls", false, OWN, "The string at a kernel address, or the second argument if it cannot be read.") \
	X(B_KERNEL_STRING_N, "kernel_string_n", "s:ll", false, OWN, "At most N bytes of the string at a kernel address.") \
	X(B_KERNEL_LONG, "kernel_long", "l:l", false, KREAD(8, true), "The long at a kernel address.") \
	X(B_KERNEL_INT, "kernel_int", "l:l", false, KREAD(4, true), "The int at a kernel address.") \
	X(B_KERNEL_SHORT, "kernel_short", "l:l", false, KREAD(2, true), "The short at a kernel address.") \
	X(B_KERNEL_CHAR, "kernel_char", "l:l", false, KREAD(1, true), "The char at a kernel address.") \
	X(B_KERNEL_POINTER, "kernel_pointer", "l:l", false, KREAD(8, false), "The pointer at a kernel address.") \
	/* the current process's memory, read without waiting for pages (the \
	 * numbers' names end in _error: they fail the hit on a fault, where \
	 * tapsets/uconversions.stp's user_int() and so on give 0); \
	 * user_string to user_string_n2 kept together: codegen takes them as \
	 * a range */ \
	X(B_USER_LONG, "user_long_error", "l:l", true, UREAD(8, true), "The long at a user address of the current process; a fault fails the hit.") \
	X(B_USER_ULONG, "user_ulong_error", "l:l", true, UREAD(8, false), "The unsigned long at a user address.") \
	X(B_USER_INT, "user_int_error", "l:l", true, UREAD(4, true), "The int at a user address.") \
	X(B_USER_UINT32, "user_uint32_error", "l:l", true, UREAD(4, false), "The unsigned 32-bit number at a user address.") \
	X(B_USER_SHORT, "user_short_error", "l:l", true, UREAD(2, true), "The short at a user address.") \
	X(B_USER_USHORT, "user_ushort_error", "l:l", true, UREAD(2, false), "The unsigned short at a user address.") \
	X(B_USER_CHAR, "user_char_error", "l:l", true, UREAD(1, true), "The char at a user address.") \
	X(B_USER_INT8, "user_int8_error", "l:l", true, UREAD(1, true), "The signed byte at a user address.") \
	X(B_USER_UINT8, "user_uint8_error", "l:l", true, UREAD(1, false), "The unsigned byte at a user address.") \
	X(B_USER_INT16, "user_int16_error", "l:l", true, UREAD(2, true), "The signed 16-bit number at a user address.") \
	X(B_USER_UINT16, "user_uint16_error", "l:l", true, UREAD(2, false), "The unsigned 16-bit number at a user address.") \
	X(B_USER_INT32, "user_int32_error", "l:l", true, UREAD(4, true), "The signed 32-bit number at a user address.") \
	X(B_USER_INT64, "user_int64_error", "l:l", true, UREAD(8, true), "The signed 64-bit number at a user address.") \
	X(B_USER_UINT64, "user_uint64_error", "l:l", true, UREAD(8, false), "The unsigned 64-bit number at a user address.") \
	X(B_USER_STRING, "user_string", "s:l", true, OWN, "The NUL-terminated string at a user address of the current process.") \
	X(B_USER_STRING2, "user_string2", "s:ls", true, OWN, "The string at a user address, or the second argument if it cannot be read.") \
	X(B_USER_STRING_N, "user_string_n", "s:ll", true, OWN, "At most N bytes of the string at a user address.") \
	X(B_USER_STRING_N2, "user_string_n2", "s:lls", true, OWN, "At most N bytes of it, or the third argument if it cannot be read.") \
	X(B_USER_STRING_QUOTED, "user_string_quoted", "s:l", true, OWN, "The string at a user address, quoted; \"NULL\" for 0, the address in hex if it cannot be read.") \
	/* arguments by position at a function's entry, and its return value: no \
	 * debug information needed (the x86-64 calling convention); kept together, \
	 * int_arg first and returnval last: elaborate.c takes them as a range */ \
	X(B_INT_ARG, "int_arg", "l:l", true, ARG(4, true), "Argument N of the probed function as an int (by the calling convention).") \
	X(B_UINT_ARG, "uint_arg", "l:l", true, ARG(4, false), "Argument N as an unsigned int.") \
	X(B_S32_ARG, "s32_arg", "l:l", true, ARG(4, true), "Argument N as a signed 32-bit number.") \
	X(B_U32_ARG, "u32_arg", "l:l", true, ARG(4, false), "Argument N as an unsigned 32-bit number.") \
	X(B_LONG_ARG, "long_arg", "l:l", true, ARG(8, false), "Argument N as a long.") \
	X(B_ULONG_ARG, "ulong_arg", "l:l", true, ARG(8, false), "Argument N as an unsigned long.") \
	X(B_LONGLONG_ARG, "longlong_arg", "l:l", true, ARG(8, false), "Argument N as a long long.") \
	X(B_ULONGLONG_ARG, "ulonglong_arg", "l:l", true, ARG(8, false), "Argument N as an unsigned long long.") \
	X(B_S64_ARG, "s64_arg", "l:l", true, ARG(8, false), "Argument N as a signed 64-bit number.") \
	X(B_U64_ARG, "u64_arg", "l:l", true, ARG(8, false), "Argument N as an unsigned 64-bit number.") \
	X(B_POINTER_ARG, "pointer_arg", "l:l", true, ARG(8, false), "Argument N as a pointer.") \
	X(B_KREGISTER, "__kregister", "l:l", true, OWN, "DWARF register N at a kernel probe (what @kregister(N) expands to).") \
	X(B_UREGISTER, "__uregister", "l:l", true, OWN, "DWARF register N of the current user task (what @uregister(N) expands to).") \
	X(B_PERF_READ, "__perf_read", "l:s", true, OWN, "The current thread's count of the counter probe perf....counter(NAME) (what @perf(NAME) expands to); 0 where it does not count.") \
	X(B_RETURNVAL, "returnval", "l:", true, OWN, "The probed function's return value (in a return probe).") \
	X(B_ASMLINKAGE, "asmlinkage", "v:", false, OWN, "Nothing on x86-64: arguments are always where the calling convention puts them.") \
	/* strings */ \
	X(B_STRLEN, "strlen", "l:s", false, OWN, "The length of a string.") \
	X(B_SUBSTR, "substr", "s:sll", false, OWN, "The part of a string from START, LENGTH bytes long.") \
	X(B_ISINSTR, "isinstr", "l:ss", false, OWN, "Whether the second string occurs in the first.") \
	X(B_STRPOS, "strpos", "l:ss", false, OWN, "Where the second string first occurs in the first, or -1.") \
	X(B_TOKENIZE, "tokenize", "s:ss", false, OWN, "The next token of a string, split at any of the delimiters; an empty string goes on with the last one.") \
	X(B_STR_REPLACE, "str_replace", "s:sss", false, OWN, "A string with every occurrence of the second replaced by the third.") \
	X(B_TEXT_STR, "text_str", "s:s", false, OWN, "A string with non-printing characters escaped.") \
	X(B_TEXT_STRN, "text_strn", "s:sll", false, OWN, "The same, at most N bytes, quoted if Q is not 0.") \
	X(B_STRING_QUOTED, "string_quoted", "s:s", false, OWN, "A string quoted, its non-printing characters escaped.") \
	X(B_STRTOL, "strtol", "l:sl", false, OWN, "A string as a number in base BASE.") \
	X(B_STRINGAT, "stringat", "l:sl", false, OWN, "The character at position N of a string, as a number.") \
	X(B_TOUPPER, "toupper", "s:s", false, OWN, "A string in upper case.") \
	X(B_TOLOWER, "tolower", "s:s", false, OWN, "A string in lower case.") \
	X(B_ISDIGIT, "isdigit", "l:s", false, OWN, "Whether a string starts with a digit.") \
	X(B_MATCHED, "matched", "s:l", false, OWN, "Sub-expression N of the last regular expression match.") \
	X(B_MATCHED_STR, "matched_str", "s:", false, OWN, "The whole of the last regular expression match.") \
	X(B_NGROUPS, "ngroups", "l:", false, OWN, "How many sub-expressions the last regular expression match had.") \
	/* numbers */ \
	X(B_ABS, "abs", "l:l", false, OWN, "The absolute value of a number.") \
	X(B_MAX, "max", "l:ll", false, OWN, "The larger of two numbers.") \
	X(B_MIN, "min", "l:ll", false, OWN, "The smaller of two numbers.") \
	X(B_RANDINT, "randint", "l:l", false, CHECK(rt_randint), "A random number from 0 to N - 1 (N at most 1048576); not for cryptography.") \
	X(B_KTIME_GET_NS, "ktime_get_ns", "l:", false, VALUE(rt_ktime_get_ns), "Nanoseconds of the kernel's monotonic clock (since boot, not counting suspend).") \
	X(B_PROBE_TYPE, "probe_type", "s:", true, STRING(rt_probe_type), "The kind of the probe that fired, as SystemTap names it: \"kprobe\", \"kretprobe\", \"uprobe\", \"tracepoint\", \"hrtimer\", \"perf_event\", \"begin_end\", ...") \
	X(B_REGISTERS_VALID, "registers_valid", "l:", true, VALUE(rt_registers_valid), "Whether the probe that fired has the probed code's registers (register() and the like read them).") \
	X(B_STACK_SIZE, "stack_size", "l:", false, VALUE(rt_stack_size), "The size of a task's kernel stack, in bytes.") \
	X(B_STACK_USED, "stack_used", "l:", true, VALUE(rt_stack_used), "The bytes of the current task's kernel stack in use where the probe hit began (0 on an interrupt stack).") \
	X(B_STACK_UNUSED, "stack_unused", "l:", true, VALUE(rt_stack_unused), "The bytes of it still free (0 on an interrupt stack).") \
	/* floating point: IEEE 754 binary64 values kept bit for bit in a \
	 * long, computed in integers (runtime/softfloat.c) */ \
	X(B_FP_TO_STRING, "fp_to_string", "s:ll", false, STRING(rt_fp_to_string), "A floating-point number (IEEE 754 binary64 bits in a long) in decimal with the second argument's digits after the point, the last rounded half away from zero: \"3.14000\" (0 digits: no point; \"inf\", \"nan\" as C prints them).") \
	X(B_STRING_TO_FP, "string_to_fp", "l:s", false, CHECK(rt_string_to_fp), "A decimal number (\"3.14\", \"-2.5e3\") as the nearest floating-point number; any other text is an error (\"invalid format\").") \
	X(B_LONG_TO_FP, "long_to_fp", "l:l", false, VALUE(rt_long_to_fp), "A number as a floating-point number (rounded to nearest-even past 2^53).") \
	X(B_FP_TO_LONG, "fp_to_long", "l:lll", false, VALUE(rt_fp_to_long), "A floating-point number as a number, rounded as the second argument says: 0 to nearest (ties to even), 1 toward zero, 2 down, 3 up, 4 to nearest (ties away from zero), 6 to odd, others toward zero; a NaN gives 0, a value out of range the nearest limit. The third (SystemTap's exact flag) changes nothing.") \
	X(B_FP_ADD, "fp_add", "l:ll", false, VALUE(rt_fp_add), "The sum of two floating-point numbers, rounded to nearest-even as IEEE 754 adds.") \
	X(B_FP_SUB, "fp_sub", "l:ll", false, VALUE(rt_fp_sub), "The first floating-point number minus the second.") \
	X(B_FP_MUL, "fp_mul", "l:ll", false, VALUE(rt_fp_mul), "The product of two floating-point numbers.") \
	X(B_FP_DIV, "fp_div", "l:ll", false, VALUE(rt_fp_div), "The first floating-point number divided by the second (by zero: an infinity, or NaN for 0/0).") \
	X(B_FP_REM, "fp_rem", "l:ll", false, VALUE(rt_fp_rem), "IEEE 754's remainder of two floating-point numbers: the first minus N times the second, N the integer nearest their quotient (the even one on a tie).") \
	X(B_FP_SQRT, "fp_sqrt", "l:l", false, VALUE(rt_fp_sqrt), "The square root of a floating-point number (NaN below zero).") \
	X(B_FP_EQ, "fp_eq", "l:ll", false, VALUE(rt_fp_eq), "Whether two floating-point numbers are equal (-0 equals 0; a NaN equals nothing).") \
	X(B_FP_LE, "fp_le", "l:ll", false, VALUE(rt_fp_le), "Whether the first floating-point number is less than or equal to the second (0 if either is a NaN).") \
	X(B_FP_LT, "fp_lt", "l:ll", false, VALUE(rt_fp_lt), "Whether the first floating-point number is less than the second (0 if either is a NaN).") \
	X(B_FP32_TO_FP64, "fp32_to_fp64", "l:l", false, VALUE(rt_fp32_to_fp64), "The IEEE 754 binary32 (float) value in the low 32 bits of a number, as a floating-point number (binary64).") \
	/* guru mode: writes to memory and registers, fault-safe, and the machine */ \
	X(B_SET_KERNEL_LONG, "set_kernel_long", "v:ll", false, KWRITE(8), "Guru mode: write a long at a kernel address (a bad or read-only address is an error).") \
	X(B_SET_KERNEL_INT, "set_kernel_int", "v:ll", false, KWRITE(4), "Guru mode: write an int at a kernel address.") \
	X(B_SET_KERNEL_SHORT, "set_kernel_short", "v:ll", false, KWRITE(2), "Guru mode: write a short at a kernel address.") \
	X(B_SET_KERNEL_CHAR, "set_kernel_char", "v:ll", false, KWRITE(1), "Guru mode: write a char at a kernel address.") \
	X(B_SET_KERNEL_POINTER, "set_kernel_pointer", "v:ll", false, KWRITE(8), "Guru mode: write a pointer at a kernel address.") \
	X(B_SET_KERNEL_STRING, "set_kernel_string", "v:ls", false, CHECK_DO(rt_set_kernel_string), "Guru mode: write a string and its NUL at a kernel address.") \
	X(B_SET_KERNEL_STRING_N, "set_kernel_string_n", "v:lls", false, CHECK_DO(rt_set_kernel_string_n), "Guru mode: write at most N bytes of a string, then a NUL, at a kernel address.") \
	X(B_SET_USER_LONG, "set_user_long", "v:ll", true, UWRITE(8), "Guru mode: write a long at a user address of the current process.") \
	X(B_SET_USER_INT, "set_user_int", "v:ll", true, UWRITE(4), "Guru mode: write an int at a user address.") \
	X(B_SET_USER_SHORT, "set_user_short", "v:ll", true, UWRITE(2), "Guru mode: write a short at a user address.") \
	X(B_SET_USER_CHAR, "set_user_char", "v:ll", true, UWRITE(1), "Guru mode: write a char at a user address.") \
	X(B_SET_USER_POINTER, "set_user_pointer", "v:ll", true, UWRITE(8), "Guru mode: write a pointer at a user address.") \
	X(B_SET_USER_STRING, "set_user_string", "v:ls", true, CHECK_DO(rt_set_user_string), "Guru mode: write a string and its NUL at a user address.") \
	X(B_SET_USER_STRING_N, "set_user_string_n", "v:lls", true, CHECK_DO(rt_set_user_string_n), "Guru mode: write at most N bytes of a string, then a NUL, at a user address.") \
	X(B_SET_USER_STRING_ARG, "set_user_string_arg", "v:ls", true, CHECK_DO(rt_set_user_string), "Guru mode: the same as set_user_string (for a string argument's address).") \
	X(B_SET_INT_ARG, "set_int_arg", "v:ll", true, CHECK_DO(rt_set_arg), "Guru mode: set argument N (1 to 6) of the probed function, at its entry.") \
	X(B_SET_UINT_ARG, "set_uint_arg", "v:ll", true, CHECK_DO(rt_set_arg), "Guru mode: the same for an unsigned int argument.") \
	X(B_SET_S32_ARG, "set_s32_arg", "v:ll", true, CHECK_DO(rt_set_arg), "Guru mode: the same for a signed 32-bit argument.") \
	X(B_SET_U32_ARG, "set_u32_arg", "v:ll", true, CHECK_DO(rt_set_arg), "Guru mode: the same for an unsigned 32-bit argument.") \
	X(B_SET_LONG_ARG, "set_long_arg", "v:ll", true, CHECK_DO(rt_set_arg), "Guru mode: the same for a long argument.") \
	X(B_SET_ULONG_ARG, "set_ulong_arg", "v:ll", true, CHECK_DO(rt_set_arg), "Guru mode: the same for an unsigned long argument.") \
	X(B_SET_LONGLONG_ARG, "set_longlong_arg", "v:ll", true, CHECK_DO(rt_set_arg), "Guru mode: the same for a long long argument.") \
	X(B_SET_ULONGLONG_ARG, "set_ulonglong_arg", "v:ll", true, CHECK_DO(rt_set_arg), "Guru mode: the same for an unsigned long long argument.") \
	X(B_SET_S64_ARG, "set_s64_arg", "v:ll", true, CHECK_DO(rt_set_arg), "Guru mode: the same for a signed 64-bit argument.") \
	X(B_SET_U64_ARG, "set_u64_arg", "v:ll", true, CHECK_DO(rt_set_arg), "Guru mode: the same for an unsigned 64-bit argument.") \
	X(B_SET_POINTER_ARG, "set_pointer_arg", "v:ll", true, CHECK_DO(rt_set_arg), "Guru mode: the same for a pointer argument.") \
	X(B_SET_RETURNVAL, "set_returnval", "v:l", true, CHECK_DO(rt_set_returnval), "Guru mode: set the probed function's return value (in a return probe).") \
	X(B_RAISE, "raise", "v:l", true, CHECK_DO(rt_raise), "Guru mode: send a signal to the current task (an error where its signal lock is held).") \
	X(B_MDELAY, "mdelay", "v:l", false, CHECK_DO(rt_mdelay), "Guru mode: busy-wait N milliseconds (at most 100).") \
	X(B_UDELAY, "udelay", "v:l", false, CHECK_DO(rt_udelay), "Guru mode: busy-wait N microseconds (at most 100000).") \
	X(B_DUMP_STACK, "dump_stack", "v:", false, DO(rt_dump_stack), "Guru mode: print the kernel stack of the hit into the kernel log.") \
	X(B_PANIC, "panic", "v:s", false, DO(rt_panic), "Guru mode: panic the kernel with this message.")

enum builtin_id {
#define X(id, name, sig, ctx, code, doc) id,
	BUILTINS(X)
#undef X
};

struct builtin {
	enum builtin_id id;
	const char *name;
	const char *sig;
	bool probe_context;        /* meaningful only inside a probe hit */
	const char *doc;           /* one line, for stap --dump-functions */
};

/* NULL when name is not a built-in function. */
const struct builtin *builtin_find(const char *name);
/* Why a built-in needs guru mode (a sentence fragment), NULL if it does not. */
const char *builtin_guru_reason(enum builtin_id id);
/* For "did you mean": call fn on every built-in name. */
void builtin_each_name(void (*fn)(const char *name, void *ctx), void *ctx);
/* Every built-in, in table order. */
void builtin_each(void (*fn)(const struct builtin *b, void *ctx), void *ctx);

/* From the signature: the result type, and the type of argument i (T_UNKNOWN
 * for '*'), or T_VOID when there is no argument i. */
enum type builtin_result(const struct builtin *b);
enum type builtin_arg(const struct builtin *b, int i);
/* The fewest arguments, and the most (-1: any number). */
int builtin_min_args(const struct builtin *b);
int builtin_max_args(const struct builtin *b);

#endif
