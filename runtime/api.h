/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The runtime API: everything generated C may use, and the only header it
 * includes. It includes no kernel header, so a script compiles in tens of
 * milliseconds against any kernel, and a kernel's internal changes can only
 * break the runtime (which is built and feature-tested per kernel), never
 * the generated code.
 *
 * Generated C defines one `const struct rt_script rt_script` describing its
 * probes and limits; the runtime (the prebuilt stub) does the rest.
 */
#ifndef TAPLINE_API_H
#define TAPLINE_API_H

#include "contract/format.h" /* struct rt_fmt_arg: printf arguments */
#include "contract/rematch.h" /* struct rt_regex: compiled =~ patterns */

#define RT_API_VERSION 20

typedef long long rt_long;
typedef unsigned long rt_size;

/*
 * One probe hit's state, per CPU. Generated code reads and writes these
 * fields directly; the runtime keeps more state around them.
 */
struct pt_regs;

struct rt_context {
	const char *error;      /* set when the hit failed: the code unwinds (to a catch) */
	struct pt_regs *regs;   /* the probed code's registers at the hit; 0: none */
	rt_long actions;        /* statements this hit may still execute */
	char *stack;            /* the per-CPU stack that holds script locals */
	char *sp, *sp_end;      /* its free part, its end */
	int depth;              /* nested script function calls */
	int maxnesting;
	unsigned long stack_base; /* kernel stack address when the hit began */
	rt_size iter_top;       /* sorted foreach snapshots in use (rt_iter) */
	/* This CPU's counts of the globals only ever added to
	 * (rt_script.ncounters): a hit adds to its own CPU's, with no lock. */
	rt_long *counters;
};

/* Kernel stack that nested script functions may use in one hit. */
#define RT_STACK_BUDGET 4096

enum rt_probe_kind { RT_BEGIN, RT_END, RT_ERROR, RT_TIMER, RT_KPROBE, RT_KRETPROBE, RT_TRACEPOINT,
		     RT_PROFILE, RT_PERF, RT_UPROBE, RT_URETPROBE,
		     /* symbol: the program's path (0: any); offset: a process id (0: any) */
		     RT_PROCESS_BEGIN, RT_PROCESS_END, RT_THREAD_BEGIN, RT_THREAD_END,
		     /* symbol: the file's name under /proc/systemtap/MODULE/ */
		     RT_PROCFS_READ, RT_PROCFS_WRITE,
		     RT_NETFILTER,
		     /* a hardware watchpoint on every CPU: at offset, or at text_offset
		      * from _text; perf_type HW_BREAKPOINT_W or _RW, perf_config its length */
		     RT_HWBKPT,
		     /* perf.*.counter("NAME"): a counting event per thread of the
		      * program symbol names (0: the -c/-x target), for @perf */
		     RT_PERF_COUNTER,
		     /* process[(PATH|PID)].syscall[.return]: raw_syscalls' sys_enter or
		      * sys_exit (called as RT_TRACEPOINT with nargs 2), for the threads
		      * of the program symbol names (0: any) or process offset (0: any),
		      * within the -c/-x target */
		     RT_SYSCALL, RT_SYSCALL_RETURN };

struct rt_probe {
	enum rt_probe_kind kind;
	const char *pp;          /* the probe point as written */
	const char *pn;          /* the name the script used: its alias (syscall.read), else pp */
	const char *symbol;      /* RT_KPROBE, RT_KRETPROBE: where the kernel finds it;
				  * RT_TRACEPOINT: the tracepoint's name;
				  * RT_UPROBE, RT_URETPROBE: the file's path */
	const char *function;    /* the probed function's name (probefunc()); 0: symbol */
	const char *module;      /* the module symbol is in; 0: the kernel */
	const char *module_build_id; /* that module's (RT_UPROBE, RT_URETPROBE: the file's), as
				      * the translator saw it (hex); 0: unknown */
	rt_long offset;          /* from symbol; negative: before it */
	rt_size text_offset;     /* RT_KPROBE, RT_KRETPROBE: the function's offset from _text; 0: unknown */
	rt_long period_ns;       /* RT_TIMER */
	rt_long spread_ns;       /* RT_TIMER: each period is period_ns plus -spread_ns..spread_ns */
	/* RT_PERF: the perf event (perf_event_attr's type and config; RT_HWBKPT:
	 * its bp_type and bp_len) and how
	 * many of its events make one hit, or -N for N hits a second (RT_PROFILE
	 * needs nothing: every CPU, every tick). */
	rt_long perf_type, perf_config, perf_sample;
	/* The body: 0 when it ran, nonzero when it was skipped because a
	 * global it uses stayed locked (it takes its locks itself, rt_lock_*). */
	int (*handler)(struct rt_context *c);
	int optional;            /* written with '?': failing to place it is fine */
	int from_wildcard;       /* one of a wildcard's matches: failing to place it warns */
	/* 1 + the script's probe point this is one site of, when it has
	 * several (0: the only one): the start fails only when none of them
	 * could be placed. */
	int point;
	int needs_regs;          /* the handler reads registers: ftrace saves them for it */
	/* RT_KRETPROBE: run at the function's entry, saving what the return
	 * body reads into entry_size bytes per call (rt_entry_data). */
	int (*entry)(struct rt_context *c);
	/* The same when all it saves are registers (arguments, parameters
	 * kept in one): it cannot fail, so a kernel return probe calls it
	 * directly at entry instead of running entry as a second hit. */
	void (*entry_regs)(const struct pt_regs *regs, char *data);
	rt_size entry_size;
	rt_long maxactive;       /* RT_KRETPROBE: ".maxactive(N)"; 0: rt_script.maxactive */
	/* RT_KPROBE, RT_KRETPROBE at a function's entry (.callee, .callees):
	 * a call counts only when the return addresses on the stack are one
	 * of ncallers rows of callers_depth static objects (rt_script.statics
	 * indices, the innermost call first): the call sites it came through. */
	const rt_size *callers;
	int ncallers, callers_depth;
	int nargs;               /* RT_TRACEPOINT: the arguments it passes (after its data) */
	/* RT_UPROBE, RT_URETPROBE: where in the file, and a marker's
	 * semaphore (0: none), as file offsets. RT_URETPROBE uses entry and
	 * entry_size as RT_KRETPROBE does. */
	rt_size file_offset, sem_offset;
	/* RT_PROCFS_READ, RT_PROCFS_WRITE: .umask(N), and .maxsize(N): the
	 * bytes $value holds (0: MAXSTRINGLEN). */
	rt_long procfs_umask, procfs_maxsize;
	/* RT_NETFILTER: the hook (NF_INET_PRE_ROUTING, ...), the protocol
	 * family (NFPROTO_IPV4, ...) and the priority, in the initial network
	 * namespace. */
	rt_long nf_hook, nf_pf, nf_priority;
};

/*
 * A static object of the probed code (a global, a function's static
 * variable): in the kernel at an offset from _text; in a module, at an
 * offset from a symbol unique there. Its address is filled in while its
 * module is loaded.
 */
struct rt_static {
	const char *module;          /* 0: the kernel */
	const char *module_build_id; /* hex, as the translator saw it; 0: unknown */
	const char *symbol;          /* a module's symbol */
	rt_long offset;              /* from symbol */
	rt_size text_offset;         /* the kernel: from _text */
	unsigned long addr;          /* run time; 0: not known now */
	/* A user file's object: 1 + its index in rt_script.uobjects (0: not
	 * one), and its distance from where the file's first page is mapped
	 * in the process the hit is in. */
	int uobject;
	rt_size uoffset;
};

/* A user-space file probes are in, and its symbols for usymname() and the
 * like, by file offset (what a mapping of the file gives at run time). */
struct rt_usym {
	rt_size offset, size;
	rt_size name;            /* in the object's names */
};

struct rt_uobject {
	const char *path;
	const struct rt_usym *syms; /* sorted by offset */
	rt_size nsyms;
	const char *names;
	const char *build_id;    /* hex, as the translator read it; 0: none */
	void *inode;             /* run time: its inode while the script runs */
};

struct rt_script {
	int api_version;
	const struct rt_probe *probes; /* begin probes first, end probes last */
	int nprobes;
	int nglobals;
	rt_size frame_size;      /* bytes of script locals one CPU may need */
	rt_size maxstringlen;
	rt_long maxaction;
	rt_long maxaction_interruptible; /* for begin and end probes */
	rt_long maxnesting;
	rt_long maxtrylock;
	rt_long trylockdelay;    /* microseconds between two attempts */
	rt_long hist_elision;    /* empty histogram rows kept around data; -1: all */
	rt_long maxskipped;
	rt_long maxactive;       /* 0: chosen from the CPU count */
	rt_size buffer_size;     /* output bytes per CPU */
	rt_long maxerrors;       /* uncaught run-time errors the script survives */
	const struct rt_map_desc *maps; /* the arrays */
	int nmaps;
	const struct rt_stat_desc *stats; /* the scalar statistics */
	int nstats;
	rt_size iter_slots;      /* entries sorted foreach snapshots may hold at once */
	int regex_prog;          /* instructions of the largest regular expression */
	rt_size printk_offset;   /* _printk's offset from _text, to find _text; 0: unknown */
	struct rt_static *statics; /* the static objects the script reads */
	rt_size nstatics;
	rt_long maxhittime_us;   /* a probe hit running longer fails (not begin and end) */
	/* The overload check: handlers on one CPU may take at most threshold
	 * ns of any interval ns (STP_OVERLOAD_*); interval 0: no check. */
	rt_long overload_interval_ns, overload_threshold_ns;
	rt_long maxmemory_kb;    /* kernel memory the script may take; 0: a quarter of RAM */
	struct rt_uobject *uobjects; /* the user-space files probes are in */
	rt_size nuobjects;
	rt_long maxbacktrace;    /* frames a backtrace shows */
	int suppress_errors;     /* --suppress-handler-errors: a failed hit is only counted */
	int timing;              /* -t: each probe's hits and time, reported at the end */
	rt_size maxustack;       /* user stack bytes a sample copies; 0: no user stacks */
	int ustack_keys;         /* user-stack strings may key arrays: fold them by staprun's aliases */
	int ncounters;           /* globals only ever added to: each CPU counts in c->counters */
	rt_long procfs_maxopen;  /* opens of one procfs file at once (the last one root's) */
};

extern const struct rt_script rt_script;

/* --- failing and stopping --- */

/*
 * A failure ends the hit, or jumps to the enclosing try's catch: the
 * message is kept with the hit, and only an error no catch took is
 * reported (and counted against MAXERRORS) when the hit ends.
 */
/* Fail with "MSG at LOC". */
void rt_fail(struct rt_context *c, const char *msg, const char *loc);
/* Fail with a formatted message "TEXT at LOC" (loc may be NULL) and a hint
 * for the user (NULL: none); guru-mode C uses it through STAP_ERROR. */
void rt_failf(struct rt_context *c, const char *loc, const char *hint, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* A limit ran out: names the limit and the -D that raises it. */
void rt_fail_limit(struct rt_context *c, const char *limit, rt_long value, const char *loc);
/*
 * c->actions went below 0. The budget (MAXACTION, or MAXACTION_INTERRUPTIBLE
 * in begin/end) is handed out in windows, and between two the runtime
 * checks that the hit has not run too long (MAXHITTIME): returns 0 with a
 * new window, or nonzero after failing the hit.
 */
int rt_actions_refill(struct rt_context *c, const char *loc);
/* A script function frame does not fit: past MAXNESTING, the frame stack
 * is full, or the calls used more than RT_STACK_BUDGET of the kernel stack
 * (frame: the caller's frame address). Fails the hit. */
void rt_frame_overflow(struct rt_context *c, rt_size size, unsigned long frame, const char *loc);
/* error("..."), warn("..."), exit() */
void rt_user_error(struct rt_context *c, const char *msg);
void rt_warn(struct rt_context *c, const char *msg);
/* The NUMA node of the memory at a kernel (direct map) address; a failure
 * for any other address. */
rt_long rt_addr_to_node(struct rt_context *c, rt_long addr);
/* system(): staprun runs cmd with /bin/sh, as its user, after this hit. */
void rt_system(struct rt_context *c, const char *cmd);
/* printk() (guru mode): msg and a newline in the kernel log, at level 0-7
 * (KERN_EMERG .. KERN_DEBUG; others: the default level). */
void rt_printk(struct rt_context *c, rt_long level, const char *msg);
void rt_exit(struct rt_context *c);
void rt_abort(struct rt_context *c, const char *what, const char *loc);
void rt_print_regs(struct rt_context *c);
void rt_module_size(struct rt_context *c, char *buf, rt_size size);
rt_long rt_get_loadavg_index(struct rt_context *c, rt_long i, const char *what,
			     const char *loc);
void rt_sprint_loadavg(struct rt_context *c, char *buf, rt_size size);
void rt_ftrace(struct rt_context *c, const char *msg);
/* In a catch: the failure's message into buf, and the failure forgotten:
 * 0. A failure no catch may take (MAXACTION, MAXHITTIME, as in SystemTap)
 * stays: nonzero, and the catch passes it on. */
int rt_catch(struct rt_context *c, char *buf, rt_size size);

/* --- output --- */

void rt_print_str(struct rt_context *c, const char *s);
void rt_print_long(struct rt_context *c, rt_long v);
void rt_printf(struct rt_context *c, const char *fmt, const struct rt_fmt_arg *args, int nargs);
void rt_sprintf(struct rt_context *c, char *buf, rt_size size, const char *fmt,
		const struct rt_fmt_arg *args, int nargs);
/* --- strings (size: the destination's size; results are always terminated) --- */

void rt_strcpy(char *dst, const char *src, rt_size size);
/* v as "0x..." */
void rt_hex_str(char *dst, rt_size size, rt_long v);
void rt_strcat(char *dst, const char *src, rt_size size);
void rt_strcat_long(char *dst, rt_long v, rt_size size); /* v in decimal */
int rt_strcmp(const char *a, const char *b);
rt_long rt_strlen(const char *s);
void rt_substr(char *dst, rt_size size, const char *s, rt_long start, rt_long len);
/* These two search in time that grows with both lengths: they count their
 * work against the hit's time, and a hit that runs too long fails. */
rt_long rt_strpos(struct rt_context *c, const char *s, const char *needle); /* -1: not found */
void rt_str_replace(struct rt_context *c, char *dst, rt_size size, const char *s, const char *from,
		    const char *to);
void rt_text_str(char *dst, rt_size size, const char *s, rt_long max, int quoted);
void rt_toupper(char *dst, rt_size size, const char *s);
void rt_tolower(char *dst, rt_size size, const char *s);
rt_long rt_isdigit(const char *s);
rt_long rt_strtol(struct rt_context *c, const char *s, rt_long base, const char *loc);
rt_long rt_stringat(struct rt_context *c, const char *s, rt_long pos, const char *loc);
/* tokenize(s, delim): s "" goes on with the previous string. */
void rt_tokenize(struct rt_context *c, char *dst, rt_size size, const char *s, const char *delim);

/* --- floating point (softfloat.c) --- */

/*
 * SystemTap's fp_* functions: IEEE 754 binary64 values held bit for bit in
 * a number, computed in integers (no FPU in the kernel), rounded to
 * nearest-even, with NaNs, infinities, signed zeros and subnormals as
 * IEEE 754 has them: the results are the hardware's, bit for bit (an
 * invalid operation's NaN is 0x7ff8000000000000). The comparisons give 1
 * or 0, and 0 where a NaN is involved.
 */
rt_long rt_fp_add(struct rt_context *c, rt_long a, rt_long b);
rt_long rt_fp_sub(struct rt_context *c, rt_long a, rt_long b);
rt_long rt_fp_mul(struct rt_context *c, rt_long a, rt_long b);
rt_long rt_fp_div(struct rt_context *c, rt_long a, rt_long b);
/* IEEE 754's remainder: a - n * b, n the integer nearest a / b (ties even). */
rt_long rt_fp_rem(struct rt_context *c, rt_long a, rt_long b);
rt_long rt_fp_sqrt(struct rt_context *c, rt_long a);
rt_long rt_fp_eq(struct rt_context *c, rt_long a, rt_long b);
rt_long rt_fp_lt(struct rt_context *c, rt_long a, rt_long b);
rt_long rt_fp_le(struct rt_context *c, rt_long a, rt_long b);
rt_long rt_long_to_fp(struct rt_context *c, rt_long n);
/* The low 32 bits as a binary32 value, widened. */
rt_long rt_fp32_to_fp64(struct rt_context *c, rt_long n);
/* mode: 0 nearest-even, 1 toward zero, 2 down, 3 up, 4 nearest (ties away
 * from zero), 6 to odd, others toward zero; a NaN gives 0, a value out of
 * range -2^63 or 2^63 - 1; exact changes nothing (SystemTap's flag). */
rt_long rt_fp_to_long(struct rt_context *c, rt_long fp, rt_long mode, rt_long exact);
/* A decimal number ("-2.5e3") to the nearest double; anything else fails
 * the hit ("invalid format"). */
rt_long rt_string_to_fp(struct rt_context *c, const char *s, const char *what, const char *loc);
/* fp in decimal with precision digits after the point, the last rounded
 * half away from zero ("0.33333"; precision 0: no point). */
void rt_fp_to_string(struct rt_context *c, char *buf, rt_size size, rt_long fp,
		     rt_long precision);

/* --- regular expressions --- */

/* s =~ re; a match is kept for matched(). */
rt_long rt_regex_match(struct rt_context *c, const struct rt_regex *re, const char *s);
void rt_matched(struct rt_context *c, char *buf, rt_size size, rt_long n, const char *loc);
rt_long rt_ngroups(struct rt_context *c, const char *loc);

/* --- arrays and statistics --- */

enum rt_kind { RT_LONG, RT_STRING, RT_STATS };

/* What a statistic keeps: the extractors and histogram the script uses. */
#define RT_STAT_VARIANCE 1
struct rt_stat_desc {
	const char *name;
	int ops;                 /* RT_STAT_* */
	int hist;                /* 0, RT_HIST_LINEAR or RT_HIST_LOG */
	rt_long start, stop, interval; /* linear */
	int global;              /* the global's index, for messages */
};
#define RT_HIST_LINEAR 1
#define RT_HIST_LOG 2

struct rt_map_desc {
	const char *name;
	int nkeys;
	unsigned char key_kinds[9];
	unsigned char value_kind;
	int capacity;            /* entries */
	int declared;            /* the capacity was declared (global m[N]), not MAXMAPENTRIES */
	int wrap;                /* declared with '%': the oldest entry makes room */
	struct rt_stat_desc stat; /* value_kind RT_STATS */
};

/* One key (n for RT_LONG, s for RT_STRING). */
struct rt_key {
	rt_long n;
	const char *s;
};

/* Which aggregate, for @count and the like, and for sorting. */
enum rt_agg { RT_AGG_COUNT, RT_AGG_SUM, RT_AGG_MIN, RT_AGG_MAX, RT_AGG_AVG, RT_AGG_VARIANCE };

struct rt_map;
struct rt_stats;
/* The script's arrays and scalar statistics, by number, made at load time. */
extern struct rt_map **rt_maps;
extern struct rt_stats **rt_stats;

rt_long rt_map_get_long(struct rt_context *c, struct rt_map *m, const struct rt_key *k);
void rt_map_get_str(struct rt_context *c, struct rt_map *m, const struct rt_key *k, char *buf,
		    rt_size size);
void rt_map_set_long(struct rt_context *c, struct rt_map *m, const struct rt_key *k, rt_long v,
		     const char *loc);
void rt_map_set_str(struct rt_context *c, struct rt_map *m, const struct rt_key *k,
		    const char *v, const char *loc);
/* The value slot, made if absent (for ++ and +=); NULL when the array is full. */
rt_long *rt_map_ref_long(struct rt_context *c, struct rt_map *m, const struct rt_key *k,
			 const char *loc);
char *rt_map_ref_str(struct rt_context *c, struct rt_map *m, const struct rt_key *k,
		     const char *loc);
/* [keys] in m; star: bit i set means key i is '*'. */
rt_long rt_map_exists(struct rt_context *c, struct rt_map *m, const struct rt_key *k, int star);
/* delete m[keys] (star as above), delete m. */
void rt_map_delete(struct rt_context *c, struct rt_map *m, const struct rt_key *k, int star);
void rt_map_clear(struct rt_context *c, struct rt_map *m);
/* m[keys] <<< v */
void rt_map_add(struct rt_context *c, struct rt_map *m, const struct rt_key *k, rt_long v,
		const char *loc);
/* @agg(m[keys]); an absent element has count 0 and fails the others. */
rt_long rt_map_stat(struct rt_context *c, struct rt_map *m, const struct rt_key *k,
		    enum rt_agg agg, const char *loc);

void rt_stats_add(struct rt_context *c, struct rt_stats *s, rt_long v);
rt_long rt_stats_get(struct rt_context *c, struct rt_stats *s, enum rt_agg agg, const char *loc);
void rt_stats_clear(struct rt_context *c, struct rt_stats *s);

/* A histogram, of a scalar statistic (m NULL) or of an array element. */
struct rt_hist_src {
	struct rt_stats *stats;
	struct rt_map *map;
	const struct rt_key *keys;
};
void rt_hist_print(struct rt_context *c, const struct rt_hist_src *h);
void rt_hist_sprint(struct rt_context *c, char *buf, rt_size size, const struct rt_hist_src *h);
rt_long rt_hist_bucket(struct rt_context *c, const struct rt_hist_src *h, rt_long bucket,
		       const char *loc);
rt_long rt_hist_buckets(struct rt_context *c, const struct rt_hist_src *h);

/*
 * foreach. The array's entries in order, sorted on request: sort_by -1 by
 * the value (agg for statistics), 0..8 by that key; dir 1 ascending, -1
 * descending, 0 unsorted (the order of insertion). A slice gives keys and
 * a star mask (bit i: key i is '*'); limit < 0 means none. The iterator
 * lives in the frame; a sorted one holds room on this CPU until
 * rt_iter_end (or the hit's end; functions restore c->iter_top on leaving).
 */
struct rt_iter {
	struct rt_map *map;
	void *table;             /* the table walked */
	void *slots;             /* a sorted snapshot, or NULL */
	long pos, count;         /* sorted: the next slot, and how many */
	int next;                /* unsorted: the next entry */
	void *entry;             /* the current entry */
	rt_long left;            /* entries the limit still allows, or -1 */
	const struct rt_key *slice;
	int star;
	rt_size mark;            /* c->iter_top before this loop */
};
void rt_iter_begin(struct rt_context *c, struct rt_iter *it, struct rt_map *m, int sort_by,
		   int dir, enum rt_agg agg, const struct rt_key *slice, int star, rt_long limit,
		   const char *loc);
int rt_iter_next(struct rt_context *c, struct rt_iter *it);
void rt_iter_end(struct rt_context *c, struct rt_iter *it);
rt_long rt_iter_key_long(const struct rt_iter *it, int i);
const char *rt_iter_key_str(const struct rt_iter *it, int i);
rt_long rt_iter_value_long(const struct rt_iter *it);
const char *rt_iter_value_str(const struct rt_iter *it);

/* --- context of the hit --- */

void rt_execname(struct rt_context *c, char *buf, rt_size size);
/* pn(): the probe's name as the script wrote it (its alias's). */
void rt_pn(struct rt_context *c, char *buf, rt_size size);
/* The script's module's name. */
void rt_module_name(struct rt_context *c, char *buf, rt_size size);
/* execname() == "literal" without copying the name: the literal (at most
 * 15 bytes) zero-padded to two words, and which bytes to compare (its own
 * and the NUL after it). */
struct rt_comm {
	unsigned long long w[2], mask[2];
};
rt_long rt_execname_is(struct rt_context *c, const struct rt_comm *name);
rt_long rt_pid(struct rt_context *c);
rt_long rt_tid(struct rt_context *c);
rt_long rt_ppid(struct rt_context *c);
rt_long rt_uid(struct rt_context *c);
rt_long rt_cpu(struct rt_context *c);
void rt_probefunc(struct rt_context *c, char *buf, rt_size size);
void rt_pp(struct rt_context *c, char *buf, rt_size size);
rt_long rt_target(struct rt_context *c);
rt_long rt_gettimeofday_ns(struct rt_context *c);
rt_long rt_local_clock_ns(struct rt_context *c);
/* CPU cpu's clock; a CPU that does not exist fails the hit. */
rt_long rt_cpu_clock_ns(struct rt_context *c, rt_long cpu);
rt_long rt_jiffies(struct rt_context *c);
rt_long rt_return_value(struct rt_context *c);
rt_long rt_gid(struct rt_context *c);
rt_long rt_euid(struct rt_context *c);
rt_long rt_egid(struct rt_context *c);
void rt_pexecname(struct rt_context *c, char *buf, rt_size size);
rt_long rt_task_current(struct rt_context *c);
rt_long rt_hz(struct rt_context *c);
/* The probed module's name, or "kernel". */
void rt_probemod(struct rt_context *c, char *buf, rt_size size);
rt_long rt_is_return(struct rt_context *c);
/* The process id of the staprun that started the script. */
rt_long rt_stp_pid(struct rt_context *c);
/* The current process's command line, its arguments joined by spaces ("" for
 * a kernel thread, or when its pages are not present). */
void rt_cmdline_str(struct rt_context *c, char *buf, rt_size size);
rt_long rt_addr(struct rt_context *c);
rt_long rt_user_mode(struct rt_context *c);
rt_long rt_uaddr(struct rt_context *c);
rt_long rt_get_cycles(struct rt_context *c);
rt_long rt_ktime_get_ns(struct rt_context *c);
void rt_probe_type(struct rt_context *c, char *buf, rt_size size);
rt_long rt_registers_valid(struct rt_context *c);
/* The current task's kernel stack: its size, and the bytes in use (or
 * free) where the hit began; 0 when the hit is not on it (an IRQ stack). */
rt_long rt_stack_size(struct rt_context *c);
rt_long rt_stack_used(struct rt_context *c);
rt_long rt_stack_unused(struct rt_context *c);
/* A random number from 0 to n - 1, n at most RT_RANDINT_MAX (as SystemTap's randint). */
#define RT_RANDINT_MAX (1024 * 1024)
rt_long rt_randint(struct rt_context *c, rt_long n, const char *what, const char *loc);
rt_long rt_pid2task(struct rt_context *c, rt_long pid);
void rt_cmdline_args(struct rt_context *c, char *buf, rt_size size, rt_long first, rt_long last,
		     const char *delim);
/* @perf("NAME"): the current thread's count of the counter probe at
 * index probe (perf.*.counter("NAME")); 0 for a thread it does not count. */
rt_long rt_counter_read(struct rt_context *c, int probe);
/* "ENOENT" for 2 or -2; "" for a number that is no error code. */
void rt_errno_str(struct rt_context *c, char *buf, rt_size size, rt_long err);

/* --- kernel symbols and call chains (stack.c) --- */

/* The name of the function or object at addr ("" if none), and the same
 * with offset, size and module: "vfs_read+0x10/0x1a0 [kernel]". */
void rt_symname(struct rt_context *c, char *buf, rt_size size, rt_long addr);
void rt_symdata(struct rt_context *c, char *buf, rt_size size, rt_long addr);
/* The hit's kernel call chain, innermost first, as hex addresses separated
 * by spaces; and printed (or written into buf) one symbolized line each. */
void rt_backtrace(struct rt_context *c, char *buf, rt_size size);
void rt_task_backtrace(struct rt_context *c, char *buf, rt_size size, rt_long task,
		       const char *what, const char *loc);
void rt_print_backtrace(struct rt_context *c);
void rt_sprint_backtrace(struct rt_context *c, char *buf, rt_size size);
void rt_print_backtrace_fileline(struct rt_context *c);
void rt_symfileline(struct rt_context *c, char *buf, rt_size size, rt_long addr);
void rt_symfile(struct rt_context *c, char *buf, rt_size size, rt_long addr);
void rt_symline(struct rt_context *c, char *buf, rt_size size, rt_long addr);
/* Each address of a backtrace() string, symbolized, one line each. */
void rt_print_stack(struct rt_context *c, const char *addrs);
/*
 * User stacks (ustack.c): each takes a sample of the current task's user
 * stack (0 frames outside user context) and gives a token staprun turns
 * into the unwound frames where it is printed (doc/ustack.md).
 */
void rt_ubacktrace(struct rt_context *c, char *buf, rt_size size);
void rt_ucallers(struct rt_context *c, char *buf, rt_size size, rt_long n);
void rt_sprint_ubacktrace(struct rt_context *c, char *buf, rt_size size);
void rt_print_ubacktrace(struct rt_context *c);
void rt_print_ubacktrace_fileline(struct rt_context *c);
/* An address of the current process: its source file and line, its file. */
void rt_usymfileline(struct rt_context *c, char *buf, rt_size size, rt_long addr);
void rt_usymfile(struct rt_context *c, char *buf, rt_size size, rt_long addr);
void rt_print_ubacktrace_brief(struct rt_context *c);
void rt_usymline(struct rt_context *c, char *buf, rt_size size, rt_long addr);
/* A ubacktrace() string printed, or given, in another form. */
void rt_print_ustack(struct rt_context *c, const char *stk);
void rt_sprint_ustack(struct rt_context *c, char *buf, rt_size size, const char *stk);
void rt_sprint_ustack_folded(struct rt_context *c, char *buf, rt_size size, const char *stk);

/* The same for user-space addresses of the current process, in the files
 * the script probes (probes/uprobes.c); umodname: the file mapped there. */
void rt_usymname(struct rt_context *c, char *buf, rt_size size, rt_long addr);
void rt_usymdata(struct rt_context *c, char *buf, rt_size size, rt_long addr);
void rt_umodname(struct rt_context *c, char *buf, rt_size size, rt_long addr);
rt_long rt_umodaddr(struct rt_context *c, rt_long addr, const char *what, const char *loc);
void rt_umodbuildid(struct rt_context *c, char *buf, rt_size size, rt_long addr,
		    const char *what, const char *loc);

/* --- the probed code's state (target variables) --- */

/* The value of DWARF register regno (x86-64: 0 rax, 1 rdx, 2 rcx, 3 rbx,
 * 4 rsi, 5 rdi, 6 rbp, 7 rsp, 8-15 r8-r15, 16 rip) at the probe. what:
 * the script expression, for the error when the hit has no registers. */
unsigned long rt_reg(struct rt_context *c, int regno, const char *what, const char *loc);
/*
 * The same, inline, for a constant regno: x86-64's struct pt_regs has one
 * layout in every kernel (r15 first, ..., ax at word 10, ip at 16, sp at
 * 19; memory.c asserts it when the runtime is built), so the word is read
 * directly, and only a hit without registers calls rt_reg() to fail.
 */
/* DWARF register regno's word in pt_regs (memory.c asserts the layout). */
static const unsigned char rt_regs_word[17] = { 10, 12, 11, 5, 13, 14, 4, 19, 9, 8, 7, 6, 3, 2, 1, 0, 16 };

static inline unsigned long rt_regval(struct rt_context *c, int regno, const char *what,
				      const char *loc)
{
	if (__builtin_expect(!c->regs || regno < 0 || regno > 16, 0))
		return rt_reg(c, regno, what, loc);
	return ((const unsigned long *)c->regs)[rt_regs_word[regno]];
}

/* The same in a probe that always has registers (a uprobe's, which are
 * the user's), for regno 0..16 (the translator checks): cannot fail. */
static inline unsigned long rt_uregval(struct rt_context *c, int regno)
{
	return ((const unsigned long *)c->regs)[rt_regs_word[regno]];
}
/* For an entry part that saves only registers (rt_probe.entry_regs),
 * where the registers are always there: DWARF register regno's low size
 * bytes, sign- or zero-extended, and argument n (1-6) likewise (the
 * translator checks both ranges). */
static inline rt_long rt_regs_value(const struct pt_regs *regs, int regno, int size, int is_signed)
{
	unsigned long v = ((const unsigned long *)regs)[rt_regs_word[regno]];

	if (size >= 8)
		return (rt_long)v;
	if (is_signed)
		return (rt_long)((unsigned long long)v << (64 - 8 * size)) >> (64 - 8 * size);
	return (rt_long)(v & ((1UL << (8 * size)) - 1));
}

static inline rt_long rt_regs_arg(const struct pt_regs *regs, int n, int size, int is_signed)
{
	static const unsigned char arg_regno[6] = { 5, 4, 1, 2, 8, 9 }; /* rdi rsi rdx rcx r8 r9 */

	return rt_regs_value(regs, arg_regno[n - 1], size, is_signed);
}

/* DWARF register regno as @kregister (user 0) or @uregister (user 1) reads
 * it; a register the hit cannot have fails it. */
rt_long rt_register(struct rt_context *c, rt_long regno, int user, const char *what,
		    const char *loc);
/* Argument n (1, 2, ...) of the probed function at its entry, by the
 * x86-64 calling convention (registers, then the stack), size 4 (sign- or
 * zero-extended) or 8 bytes. */
rt_long rt_arg(struct rt_context *c, rt_long n, int size, int is_signed, const char *what,
	       const char *loc);
/* The address of rt_script.statics[i], or a failure naming what when its
 * module is not loaded. */
unsigned long rt_static_addr(struct rt_context *c, rt_size i, const char *what, const char *loc);
/* size (1, 2, 4, 8) bytes at addr, sign- or zero-extended; a bad address
 * fails the hit ("cannot read N bytes at 0xADDR for WHAT") and gives 0. */
rt_long rt_kread(struct rt_context *c, unsigned long addr, int size, int is_signed,
		 const char *what, const char *loc);
/* size bytes at addr into dst: 0, or -1 after failing the hit. */
int rt_kread_bytes(struct rt_context *c, void *dst, unsigned long addr, rt_size size,
		   const char *what, const char *loc);
/* The string at addr into dst, at most max bytes (max < 0: any) and
 * MAXSTRINGLEN - 1, always terminated: 0, or -1 for a bad address, which
 * fails the hit unless what is NULL. */
int rt_kread_string(struct rt_context *c, char *dst, unsigned long addr, rt_long max,
		    const char *what, const char *loc);
/* The same for the current task's user memory; a page that is not
 * present fails too (probes cannot wait for it). */
rt_long rt_uread(struct rt_context *c, unsigned long addr, int size, int is_signed,
		 const char *what, const char *loc);
int rt_uread_string(struct rt_context *c, char *dst, unsigned long addr, rt_long max,
		    const char *what, const char *loc);
int rt_uread_bytes(struct rt_context *c, void *dst, unsigned long addr, rt_size size,
		   const char *what, const char *loc);
/* In a return probe and its entry part: this call's saved bytes. */
char *rt_entry_data(struct rt_context *c);
/* procfs probes: $value (a string of up to .maxsize bytes), set or
 * appended to (cut at .maxsize). */
const char *rt_procfs_value(struct rt_context *c);
/* netfilter probes: $verdict, and (guru mode) setting it: NF_DROP (0) or
 * NF_ACCEPT (1); any other fails the hit, as the kernel would need more
 * (a stolen packet must be freed, a queued one needs a queue). */
rt_long rt_nf_verdict(struct rt_context *c);
void rt_nf_set_verdict(struct rt_context *c, rt_long v, const char *loc);
void rt_procfs_set(struct rt_context *c, const char *s, int append);
/* Guru mode: write DWARF register regno (not rsp or rip) of the probed
 * code (the user's, in a uprobe: the same pt_regs), or size bytes of v at addr (fault-safe:
 * a bad or read-only address fails the hit). */
void rt_regset(struct rt_context *c, int regno, unsigned long v, const char *what, const char *loc);
void rt_kwrite(struct rt_context *c, unsigned long addr, int size, rt_long v, const char *what,
	       const char *loc);
void rt_uwrite(struct rt_context *c, unsigned long addr, int size, rt_long v, const char *what,
	       const char *loc);
/* Guru mode: a string and its NUL (at most n bytes of it) at a kernel or
 * user address, byte by byte as rt_kwrite; an argument register (1 to 6)
 * or the return value's (in a return probe) through rt_regset. */
void rt_set_kernel_string(struct rt_context *c, rt_long addr, const char *s, const char *what,
			  const char *loc);
void rt_set_kernel_string_n(struct rt_context *c, rt_long addr, rt_long n, const char *s,
			    const char *what, const char *loc);
void rt_set_user_string(struct rt_context *c, rt_long addr, const char *s, const char *what,
			const char *loc);
void rt_set_user_string_n(struct rt_context *c, rt_long addr, rt_long n, const char *s,
			  const char *what, const char *loc);
void rt_set_arg(struct rt_context *c, rt_long n, rt_long v, const char *what, const char *loc);
void rt_set_returnval(struct rt_context *c, rt_long v, const char *what, const char *loc);
/* Guru mode (guru.c): signal the current task, busy-wait (at most 100 ms
 * a call), the kernel stack into the log, panic. */
void rt_raise(struct rt_context *c, rt_long sig, const char *what, const char *loc);
void rt_mdelay(struct rt_context *c, rt_long ms, const char *what, const char *loc);
void rt_udelay(struct rt_context *c, rt_long us, const char *what, const char *loc);
void rt_dump_stack(struct rt_context *c);
void rt_panic(struct rt_context *c, const char *msg);

/* --- helpers the generated code inlines --- */

#define rt_unlikely(x) __builtin_expect(!!(x), 0)

/*
 * The globals' locks: one word each, 0 free, -1 a writer, n > 0 that many
 * readers. A handler takes the locks of the globals it (or a function it
 * calls) uses in index order as its first act, the order the translator
 * fixed, and releases them as its last. The first attempt is inline (a
 * hit pays one atomic instruction per lock); after it, rt_lock_wait (the
 * runtime) tries again TRYLOCKDELAY apart, up to MAXTRYLOCK / nlocks
 * times, so a hit waits at most MAXTRYLOCK steps whatever it locks. False:
 * the hit is skipped (rt_locks_skipped) after releasing what it holds.
 * Interrupts are off in a hit, and x86-64's atomics are what the kernel's
 * are, so the builtins below do what atomic_t's acquire/release do.
 */
/* Defined by the generated code (one word per global, at least one) so
 * that a handler reaches its locks at a fixed address. */
extern int rt_global_locks[];
int rt_lock_wait(int global, int write, int nlocks);
int rt_locks_skipped(void);

static inline int rt_lock_write(int global, int nlocks)
{
	int free_word = 0;

	return __atomic_compare_exchange_n(&rt_global_locks[global], &free_word, -1, 0,
					   __ATOMIC_ACQUIRE, __ATOMIC_RELAXED) ||
	       rt_lock_wait(global, 1, nlocks);
}

static inline int rt_lock_read(int global, int nlocks)
{
	int v = __atomic_load_n(&rt_global_locks[global], __ATOMIC_RELAXED);

	/* Another reader coming or going is no reason to wait: v is reloaded. */
	while (v >= 0)
		if (__atomic_compare_exchange_n(&rt_global_locks[global], &v, v + 1, 0,
						__ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
			return 1;
	return rt_lock_wait(global, 0, nlocks);
}

static inline void rt_unlock_write(int global)
{
	__atomic_store_n(&rt_global_locks[global], 0, __ATOMIC_RELEASE);
}

static inline void rt_unlock_read(int global)
{
	__atomic_fetch_sub(&rt_global_locks[global], 1, __ATOMIC_RELEASE);
}

/* Generated handlers are not traced (a hit must not recurse through
 * ftrace) and skip ftrace's call site. */
#define rt_notrace __attribute__((__no_instrument_function__))

/*
 * A probe handler's first act: its frame, at the bottom of the locals
 * stack (the runtime reserved room for the largest). A handler whose code
 * calls anything (script functions, builtins), walks a foreach or has a
 * try (calls != 0) also starts the state those use: the free stack above
 * its frame, no nesting, where the kernel stack was (RT_STACK_BUDGET
 * counts from here), no foreach snapshot. One that only counts pays for
 * none of it.
 */
static inline __attribute__((always_inline)) void *rt_handler_frame(struct rt_context *c,
								    rt_size size, int calls)
{
	char *p = c->stack;

	if (calls) {
		c->sp = p + ((size + 15) & ~(rt_size)15);
		c->depth = 0;
		c->stack_base = (unsigned long)__builtin_frame_address(0);
		c->iter_top = 0;
	}
	return p;
}

/*
 * Take the next script function frame; NULL (and the hit fails) past
 * MAXNESTING, or when the C calls themselves have used too much of the
 * kernel stack (a probe may already run deep in an interrupt stack).
 */
static inline void *rt_frame_push(struct rt_context *c, rt_size size, const char *loc)
{
	char *p = c->sp;
	unsigned long frame = (unsigned long)__builtin_frame_address(0);
	/* One out-of-line call for every failure keeps each function small for
	 * gcc; returning NULL here (not its result) lets gcc see that nothing
	 * the caller holds must survive that call. */
	if (rt_unlikely(c->depth >= c->maxnesting || size > (rt_size)(c->sp_end - c->sp) ||
			c->stack_base - frame > RT_STACK_BUDGET)) {
		rt_frame_overflow(c, size, frame, loc);
		return (void *)0;
	}
	c->depth++;
	c->sp += (size + 15) & ~(rt_size)15;
	return p;
}

static inline void rt_frame_pop(struct rt_context *c, rt_size size)
{
	c->depth--;
	c->sp -= (size + 15) & ~(rt_size)15;
}

/* A global only ever added to (rt_context.counters): its initial value
 * base plus every CPU's count in slot. */
rt_long rt_count_sum(rt_long base, int slot);

/* Arithmetic without undefined behaviour: wrapping, and shifts outside 0..63 give 0 or the sign. */
static inline rt_long rt_neg(rt_long a)
{
	return (rt_long)(0ULL - (unsigned long long)a);
}

static inline rt_long rt_add(rt_long a, rt_long b)
{
	return (rt_long)((unsigned long long)a + (unsigned long long)b);
}

static inline rt_long rt_sub(rt_long a, rt_long b)
{
	return (rt_long)((unsigned long long)a - (unsigned long long)b);
}

static inline rt_long rt_mul(rt_long a, rt_long b)
{
	return (rt_long)((unsigned long long)a * (unsigned long long)b);
}

/* Callers check b != 0 first; LLONG_MIN / -1 would trap. */
static inline rt_long rt_div(rt_long a, rt_long b)
{
	return b == -1 ? rt_neg(a) : a / b;
}

static inline rt_long rt_mod(rt_long a, rt_long b)
{
	return b == -1 ? 0 : a % b;
}

static inline rt_long rt_shl(rt_long a, rt_long b)
{
	return b < 0 || b > 63 ? 0 : (rt_long)((unsigned long long)a << b);
}

static inline rt_long rt_shr(rt_long a, rt_long b)
{
	return b < 0 || b > 63 ? (a < 0 ? -1 : 0) : a >> b;
}

/* >>>: the bits shifted as unsigned. */
static inline rt_long rt_ushr(rt_long a, rt_long b)
{
	return b < 0 || b > 63 ? 0 : (rt_long)((unsigned long long)a >> b);
}

#endif
