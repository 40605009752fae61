/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The one structure the passes share: the options, the parsed script, what
 * pass 2 resolved, and the files later passes produce. Each pass reads what
 * earlier passes filled in and adds its own part; none reaches back.
 */
#ifndef TAPLINE_SESSION_H
#define TAPLINE_SESSION_H

#include <stdbool.h>

#include "debuginfo/target.h"
#include "front/ast.h"
#include "front/preproc.h"
#include "util.h"

/* Runtime limits, settable with -D NAME=VALUE (names as in SystemTap). */
#define LIMITS(X)                                                                           \
	X(MAXACTION, 1000, "statements one probe hit may execute")                            \
	X(MAXACTION_INTERRUPTIBLE, 10000, "statements a begin or end probe may execute")     \
	X(MAXNESTING, 10, "depth of nested function calls")                                   \
	X(MAXSTRINGLEN, 512, "bytes in a string, including its terminating NUL")             \
	X(MAXTRYLOCK, 100, "attempts to take a global's lock before a hit is skipped")       \
	X(TRYLOCKDELAY, 10, "microseconds to wait between two attempts to take a lock")       \
	X(MAXSKIPPED, 100, "skipped probe hits before the script is stopped")                \
	X(MAXMAPENTRIES, 2048, "entries in an array not declared with a size")                \
	X(MAXERRORS, 0, "run-time errors the script survives (the next one stops it)")       \
	X(MAXACTIVE, 0, "concurrent calls a return probe tracks (0: chosen by CPU count)")   \
	X(HIST_ELISION, 2, "empty histogram rows kept around data (0: none, -1: keep all)")  \
	X(BUFFER_KB, 1024, "output buffer per CPU, in KiB (-s sets it in MiB)")              \
	X(MAXWILDCARD, 100000, "probes one wildcard probe point may place (Tapline's own)")        \
	X(MAXHITTIME, 100000, "microseconds one probe hit may run (not begin and end; Tapline's)") \
	X(STP_OVERLOAD_INTERVAL, 1000000000, "ns over which the overload check measures handlers") \
	X(STP_OVERLOAD_THRESHOLD, 500000000, "ns of handler time per interval that stop the script") \
	X(STP_NO_OVERLOAD, 0, "1 (or -D STP_NO_OVERLOAD alone): no overload check")             \
	X(MAXMEMORY, 0, "KiB of kernel memory the script may take (0: a quarter of RAM)")     \
	X(MAXBACKTRACE, 32, "frames a backtrace shows (at most 64)") \
	X(MAXUSTACK, 8192, "bytes of user stack a user backtrace copies (64 to 65536)") \
	X(PROCFS_UMASK, 077, "permissions taken from every procfs file (0: SystemTap's, 0444/0200)") \
	X(PROCFS_MAXOPEN, 8, "opens of one procfs file at once, the last kept for root")

enum limit_id {
#define X(name, def, what) LIMIT_##name,
	LIMITS(X)
#undef X
	NLIMITS
};

enum probe_kind {
	PK_BEGIN, PK_END, PK_ERROR, PK_TIMER, PK_KPROBE, PK_KRETPROBE, PK_TRACEPOINT,
	PK_PROFILE, /* timer.profile: every CPU, every tick */
	PK_PERF,    /* perf.*: a perf counter's overflow on every CPU */
	PK_UPROBE,  /* a user-space program or library: a uprobe on its file */
	PK_URETPROBE,
	/* process[("PATH"|PID)][.thread].begin/.end: user_file is the program
	 * (NULL: any), offset the process id (0: any) */
	PK_PROCESS_BEGIN, PK_PROCESS_END, PK_THREAD_BEGIN, PK_THREAD_END,
	/* procfs[("NAME")][.umask(U)].read[.maxsize(N)] / .write: symbol is
	 * the file's name under /proc/systemtap/MODULE/ */
	PK_PROCFS_READ, PK_PROCFS_WRITE,
	PK_NETFILTER, /* netfilter.hook(H).pf(P)[.priority(N)]: a hook in the initial namespace */
	/* kernel.data(A).write|.rw: a hardware watchpoint on every CPU, at
	 * offset (an address) or text_offset (a variable's, from _text);
	 * perf_type the kind (HW_BREAKPOINT_W, _RW), perf_config its length */
	PK_HWBKPT,
	/* perf.*[.process("PATH")].counter("NAME"): symbol is NAME, user_file
	 * the program (NULL: the -c/-x target); read by @perf, never fires */
	PK_PERF_COUNTER,
	/* process[("PATH"|PID)].syscall[.return]: raw_syscalls' sys_enter or
	 * sys_exit for the threads of a program (user_file; NULL: any) or of
	 * a process id (offset; 0: any) */
	PK_SYSCALL, PK_SYSCALL_RETURN,
};

/*
 * One probe body; several probe points may share it. Through aliases, the
 * body is the probe's own within the aliases' prologues and epilogues, a
 * copy per chain of aliases; private names resolve in the file each node
 * comes from.
 */
struct handler {
	int index;
	struct node *decl;       /* the N_PROBE (or the tapset's) it comes from */
	struct node *body;       /* what runs */
	struct ptrvec aliases;   /* the chain of N_ALIAS it was derived through, outermost first */
	struct ptrvec vars;      /* its locals (struct symbol *) */
	struct ptrvec globals_rd, globals_wr; /* shared and exclusive locks, called functions' too */
	struct ptrvec calls;     /* functions it calls directly (struct symbol *) */
	bool uses_return;        /* reads $return */
	bool callees_read_registers; /* a function it calls, or theirs, reads registers */
	/* Target variables are read at one site: a handler that uses them
	 * belongs to one probe. */
	struct probe_site *site;
	bool is_return;          /* its probe is a .return */
	struct ptrvec entry_exprs; /* .return: evaluated at entry (struct node *, each with its access) */
	size_t entry_size;       /* bytes they take, per call */
	bool check_only;         /* a "never" probe's: checked, never placed */
};

/*
 * Pass 2's plan for one target expression ($var->a[2], @entry(...),
 * $$parms, ...), attached to its node: where the base value is, the steps
 * from it, and what the result is. Codegen follows it.
 */
enum tstep_kind {
	TS_DEREF,   /* the current value is a pointer: go to what it points to */
	TS_OFFSET,  /* k bytes further in the current object */
	TS_INDEX,   /* index * k bytes further */
};

struct tstep {
	enum tstep_kind kind;
	long long k;
	struct node *index;       /* TS_INDEX */
};

#define NO_SLOT ((size_t)-1)

enum taccess_result {
	TA_INT,        /* a number (integer, enum, pointer, bit-field) */
	TA_STRING,     /* a char array, read as a string */
	TA_ADDRESS,    /* &...: the object's address */
	TA_PRETTY,     /* $var$, $var$$: the value printed into a string */
	TA_VARLIST,    /* $$vars, $$parms, $$locals, $$return: name=value ... */
	TA_SAVED,      /* @entry(expr) in a .return: the value saved at entry */
	TA_CONSTANT,   /* a string known when translating: a marker's $$name, $$provider */
	TA_PROCFS,     /* a procfs probe's $value: the file's text (written in .read) */
	TA_NF_VERDICT, /* a netfilter probe's $verdict (written in guru mode) */
};

struct target_access {
	enum taccess_result result;
	char *text;               /* as written, for messages */
	const struct tloc *loc;   /* the base's location; NULL: saved at entry_off, or base_expr */
	struct node *base_expr;   /* @cast: the base's address is this expression's value */
	size_t entry_off;
	struct ctype *base_type;
	bool materialize;         /* the base is a value held in a register: copy it to memory */
	struct tstep *steps;
	size_t nsteps;
	struct ctype *type;       /* of the result's object */
	int bit_size, bit_offset; /* a bit-field */
	int pretty;               /* TA_PRETTY: 1 ($) or 2 ($$) */
	const struct tvar **vars; /* TA_VARLIST */
	size_t nvars;
	size_t *var_offs;         /* TA_VARLIST in a .return: each one's entry slot, or NO_SLOT */
	bool with_return;         /* TA_VARLIST: and return=... (type: the return type) */
	bool in_return;           /* TA_VARLIST in a .return: parameters come from var_offs */
	bool user;                /* the memory read is the current task's user memory */
	const char *value;        /* TA_CONSTANT: the string */
	int write_reg;            /* written by an assignment (guru mode): the DWARF register
				   * the object is in, or -1: it is in memory */
};

/* One resolved probe point. */
struct probe {
	enum probe_kind kind;
	struct node *pp;         /* the N_PROBE_POINT */
	char *pp_text;           /* the concrete point, for pp() and messages */
	struct handler *handler;
	char *symbol;            /* PK_KPROBE, PK_KRETPROBE: the kernel finds the probe by it;
				  * PK_TRACEPOINT: the tracepoint's name */
	char *module;            /* the module the symbol is in; NULL: the kernel */
	char *function;          /* the probed function when symbol is not it (_text + offset) */
	long long maxactive;     /* PK_KRETPROBE: calls tracked at once; 0: MAXACTIVE's */
	int64_t offset;          /* from symbol (negative: before it) */
	struct probe_site *site; /* resolved through debug information, else NULL */
	bool needs_regs;         /* its handler reads registers (target variables) */
	uint64_t text_offset;    /* PK_KPROBE: the function's offset from _text; 0: place by name */
	long long period_ns;     /* PK_TIMER */
	long long spread_ns;     /* PK_TIMER: each period is period_ns plus -spread_ns to spread_ns */
	long long perf_type, perf_config, perf_sample; /* PK_PERF: the event, events per hit */
	long long priority;      /* PK_BEGIN, PK_END, PK_ERROR: lower runs first */
	bool optional;
	bool from_wildcard;      /* one of a wildcard's matches: if the kernel refuses it, warn */
	/* PK_UPROBE, PK_URETPROBE: the file (its path), where in it, and a
	 * marker's semaphore (0: none), as file offsets. */
	char *user_file;
	uint64_t file_offset, sem_offset;
	long long procfs_umask, procfs_maxsize; /* PK_PROCFS_*: .umask(N), .maxsize(N) (0: none) */
	long long nf_hook, nf_pf, nf_priority;  /* PK_NETFILTER */
	/* .callee, .callees: a call counts only when it came through one of
	 * these chains of call sites (struct ptrvec * of struct tstatic *:
	 * return addresses, the innermost first), each callers_depth long. */
	struct ptrvec callers;
	int callers_depth;
};

struct program {
	struct pp_env env;       /* pass 1: what the preprocessor knows */
	struct ptrvec decls;     /* pass 1: every declaration of every file */
	/* pass 1: what the whole tapset library defines, parsed or not (char *) */
	struct ptrvec library_functions, library_globals, library_aliases;
	int user_file;           /* source index of the user's script */
	int ntapset_files;
	/* pass 2 */
	struct ptrvec all_globals;   /* every declared global (struct symbol *) */
	struct ptrvec all_functions; /* every declared function (struct symbol *) */
	struct ptrvec globals;   /* used globals (struct symbol *) */
	int ncounters;           /* of those, counted per CPU (symbol.is_counter) */
	struct ptrvec functions; /* reachable functions (struct symbol *) */
	struct ptrvec unused_functions; /* the script's own that nothing calls: checked, not generated */
	struct ptrvec handlers;  /* struct handler * */
	struct ptrvec probes;    /* struct probe * */
	struct ptrvec regexes;   /* compiled regular expressions (struct regex *, sema/regcomp.h) */
	struct ptrvec embedded;  /* top-level embedded C, in order (struct node *) */
	bool uses_embedded_c;    /* guru-mode C anywhere: built with the full kbuild */
	uint64_t printk_offset;  /* _printk's offset from _text (the runtime finds _text by it); 0: unknown */
	/* pass 2: the user-space files probes are placed in (const struct
	 * user_elf *), whose symbols usymname() and the like look up */
	struct ptrvec user_objects;
	/* pass 2: the kernel's line table file (contract/linetable.h), which
	 * the module carries when the script names kernel source lines
	 * (symfileline() and the like); NULL: none */
	char *kernel_lines;
};

struct kernel;
struct debug_index;
struct dw;

struct session {
	/* options */
	const char *script_file;  /* NULL with -e */
	const char *script_text;  /* -e */
	char **script_args;       /* the arguments after the script: $1, @1, ... */
	int nscript_args;
	int last_pass;            /* -p; 5 by default */
	int list;                 /* -l: 1, -L: 2 (pass 2 prints the probe points) */
	int verbose;
	bool keep_temps;
	const char *module_name;
	const char *release;      /* -r, or chosen in main.c */
	const char *output_file;
	const char *output_switch;   /* -S SIZE[,N] (staprun's) */
	bool background;             /* -F: staprun -D */
	const char *target_cmd;   /* -c */
	long target_pid;          /* -x, 0: none */
	bool vm;
	int vm_timeout;
	const char *vm_net;       /* --vm-net=HOSTPORT:GUESTPORT */
	struct ptrvec vm_files;   /* --vm-file=HOST[:GUEST] */
	struct ptrvec vm_modules; /* --vm-module=NAME|PATH, loaded before the script */
	bool no_warnings;
	bool warnings_are_errors; /* -W */
	bool quiet;               /* -q: no notes */
	bool unoptimized;         /* -u: alias variables nothing reads are kept */
	int exit_after_s;         /* -T: the script exits after this many seconds; 0: never */
	bool timing;              /* -t: each probe's hits and time, reported at the end */
	bool suppress_handler_errors; /* --suppress-handler-errors: a failing hit is skipped */
	bool skip_badvars;        /* --skip-badvars: a $var that cannot be read is 0 */
	bool suppress_time_limits; /* --suppress-time-limits (guru mode) */
	const char *compatible;   /* --compatible=VERSION: systemtap_v, and autocast from 2.6 */
	bool check_version;       /* --check-version: warn at each systemtap_v condition */
	struct ptrvec symbol_files; /* -d PATH (user files) and --ldd's libraries */
	bool ldd;                 /* --ldd */
	bool guru;                /* -g: guru mode */
	enum { DUMP_NONE, DUMP_FUNCTIONS, DUMP_PROBE_ALIASES, DUMP_PROBE_TYPES } dump; /* --dump-...: list and exit */
	struct ptrvec global_inits; /* -G NAME=VALUE (char *) */
	long long limits[NLIMITS];
	bool limit_set[NLIMITS];
	struct ptrvec include_dirs; /* -I */
	struct ptrvec cc_defines; /* -D NAME[=VALUE] Tapline has no use for: to the compiler */

	/* where Tapline's own files are */
	char *runtime_dir, *tapset_dir, *staprun_path;
	char *tmpdir;

	struct program prog;
	struct kernel *kernel;   /* pass 2 */
	struct debug_index *debug_ix; /* pass 2, made when a probe needs debug information */
	struct dw *dw;
	struct btf_source *kernel_btf; /* pass 2, opened when a probe needs it */
	bool kernel_btf_tried;
	struct ctype *task_struct;   /* pass 2: the kernel's, for task_current()->x */
	bool task_struct_tried;
	struct ptrvec module_btf_names, module_btfs; /* pass 2, @cast's modules' BTF (or NULL) */
	struct ptrvec debuginfo_dirs; /* --debuginfo-path */
	const char *debug_archive;   /* --debug-archive */
	bool force_btf;              /* --btf */
	bool force_symtab;           /* --symtab */
	struct tracepoint *tracepoints; /* pass 2, listed when a probe needs them */
	size_t ntracepoints;
	const char *tracepoint_systems_from; /* headers, tracefs, NULL: unknown */
	/* The installed modules' tracepoints, listed when a kernel.trace
	 * pattern matches none of the kernel's. */
	struct module_tracepoint *module_tracepoints;
	size_t nmodule_tracepoints;
	bool module_tracepoints_read;
	char *probe_cache;           /* --probe-cache: its directory; NULL: none */
	const char *sign_key;        /* --sign-key: the private key; NULL: one found as kbuild would */
	const char *sign_cert;       /* --sign-cert: its X.509 certificate */
	struct ptrvec probe_cache_pending; /* pass 2: entries to save (probecache.c) */
	int argc;                /* the command line, for the module cache's key */
	char **argv;
	bool disable_cache;      /* --disable-cache: no module from the cache, none kept */
	bool clean_cache;        /* --clean-cache */
	char *c_file;            /* pass 3 */
	char *ko_file;           /* pass 4 */
};

#endif
