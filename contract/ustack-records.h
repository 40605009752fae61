/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * User stacks in the output stream (doc/protocol.md, "User stacks"): what
 * the runtime writes and staprun reads, shared by both. Only a module
 * built with user-stack functions writes these (its .modinfo says
 * `tapline_ustack`), and staprun takes them out of the text it relays.
 *
 * A record is its own output record, never split: a header, then payload.
 * A token is 22 bytes inside the script's text, where a string returned
 * by ubacktrace() and the like is printed; staprun replaces it with the
 * unwound stack in the form its kind names.
 */
#ifndef TAPLINE_USTACK_RECORDS_H
#define TAPLINE_USTACK_RECORDS_H

#ifdef __KERNEL__
#include <linux/types.h>
#else
#include <stdint.h>
typedef uint8_t u8;
typedef uint32_t u32;
typedef uint64_t u64;
#endif

/* First byte of a record and of a token: ASCII "record separator". */
#define RT_US_MARK 0x1e

/* Record kinds. */
#define RT_US_SAMPLE 's'
#define RT_US_MAP 'm'

struct rt_us_header {
	u8 mark, kind;
	u8 unused[2];
	u32 len;                /* payload bytes after this header */
	/* The module's secret (`ctl` says it: ustack_cookie): text the
	 * script prints, from anyone's data, cannot pass for a record. */
	u64 cookie;
};

/* x86-64 registers in DWARF order: rax rdx rcx rbx rsi rdi rbp rsp r8-r15, rip. */
#define RT_US_NREGS 17

/* A sample: the user registers and the top of the user stack. */
struct rt_us_sample {
	u64 id;                 /* the number tokens name it by */
	u32 tgid, tid;
	u32 gen;                /* the process's mappings as of map records of this gen; 0: none sent */
	u32 flags;
	u64 regs[RT_US_NREGS];
	u32 stack_len;          /* bytes copied from regs[7] (sp) up, after this struct */
	u32 stack_max;          /* bytes asked for (MAXUSTACK) */
};
#define RT_US_CUT 1             /* a page of the stack was not present: the copy is short */
#define RT_US_ADDR 2            /* one address (regs[16]) to name, not a stack */
#define RT_US_PENDING 4         /* the map records of gen come later (a worker reads them) */

/* One executable file mapping of a process; the first of a gen has
 * RT_US_FIRST, and a record with no path and RT_US_LAST ends it. */
struct rt_us_map {
	u32 tgid, gen;
	u32 flags;
	u32 path_len;           /* bytes of path after this struct, no terminator */
	u64 start, end;         /* the mapping */
	u64 offset;             /* file offset at start */
	u64 dev, ino;           /* the file, as stat() gives it (dev: its device's) */
	u64 size;               /* its size when mapped */
};
#define RT_US_FIRST 1
#define RT_US_LAST 2

/*
 * A token: mark, kind, 16 hex digits of the sample id, 2 of the frames to
 * skip from the innermost, 2 of the frames to give at most (00: all).
 */
#define RT_US_TOKEN_LEN 22
#define RT_US_ADDRS 'u'         /* "0x... 0x..." (ubacktrace, ucallers) */
#define RT_US_LINES 'p'         /* " 0x... : sym+off/size [file]\n" each (print_ustack) */
#define RT_US_BRIEF 'q'         /* "sym+off [file]\n" each (sprint_ustack) */
#define RT_US_FOLDED 'f'        /* "outer;...;inner" (sprint_ustack_folded) */
#define RT_US_FILELINES 'P'     /* the 'p' lines with " at file:line" (print_ubacktrace_fileline) */
#define RT_US_FILELINE 'l'      /* "file:line" of the innermost frame (usymfileline) */
#define RT_US_FILE 'F'          /* its source file (usymfile) */
#define RT_US_LINE 'n'          /* its line number (usymline) */
#define RT_US_NAMES 'b'         /* "sym+off\n" each (print_ubacktrace_brief) */

/*
 * Kernel source lines (symfileline() and the like), from the line table
 * the module carries (contract/linetable.h): the same 22 bytes, the 16
 * hex digits a kernel address, the next 2 RT_K_RETURN or 0; staprun
 * names its line (a return address: the call's, the byte before it).
 * Only a module whose .modinfo says `tapline_klines` makes these.
 */
#define RT_K_FILELINE 'k'       /* "file:line", else the address in hex */
#define RT_K_FILE 'e'           /* its file, else the address in hex */
#define RT_K_LINE 'i'           /* its line, else the address in hex */
#define RT_K_AT 'a'             /* " at file:line", else nothing (print_backtrace_fileline) */
#define RT_K_RETURN 1

static inline int rt_k_token_kind(char k)
{
	return k == RT_K_FILELINE || k == RT_K_FILE || k == RT_K_LINE || k == RT_K_AT;
}

/* Whether k is one of the user-stack kinds above: the runtime makes only
 * these, staprun expands only these. */
static inline int rt_us_token_kind(char k)
{
	return k == RT_US_ADDRS || k == RT_US_LINES || k == RT_US_BRIEF || k == RT_US_FOLDED ||
	       k == RT_US_FILELINES || k == RT_US_FILELINE || k == RT_US_FILE || k == RT_US_LINE ||
	       k == RT_US_NAMES;
}

#endif
