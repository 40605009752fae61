/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The runtime's own declarations, shared by its files (never by generated
 * code, which sees only api.h). Kernel headers are fine here: the runtime is
 * compiled once per target kernel, with feature probes (compat/).
 */
#ifndef TAPLINE_RUNTIME_H
#define TAPLINE_RUNTIME_H

#include <linux/atomic.h>
#include <linux/kallsyms.h>
#include <linux/kernel.h>
#include <linux/percpu.h>
#include <linux/ptrace.h>
#include <linux/timex.h>
#include <linux/types.h>

#include "api.h"
#include "compat/compat.h"
#include "contract/rematch.h"

#define RT_PREFIX "tapline: "

/*
 * The script's description and its globals' locks are defined by the
 * generated code, which is linked in per script; the stub itself is built
 * without them, so here the references are weak (modpost accepts an
 * undefined weak symbol).
 */
extern const struct rt_script rt_script __attribute__((weak));
extern int rt_global_locks[] __attribute__((weak));

/* The run's state, as `ctl` shows it (doc/protocol.md). */
enum rt_state { RT_LOADED, RT_RUNNING, RT_STOPPING, RT_STOPPED };

/* A failure's message: what a catch receives is text, then "; " and hint. */
#define RT_ERROR_LEN 256
#define RT_HINT_LEN 160
#define RT_SYM_LEN KSYM_SYMBOL_LEN

/* Per-CPU: the context of the hit running on this CPU, if any. */
struct rt_cpu {
	struct rt_context c;
	int busy;                     /* a hit is running: a nested one is skipped */
	const struct rt_probe *probe;
	char *entry_data;             /* a return probe's per-call data (rt_entry_data) */
	char *out;                    /* this hit's output, committed at its end */
	size_t out_len;
	char error[RT_ERROR_LEN];     /* the failure c->error points to */
	char hint[RT_HINT_LEN];       /* how to avoid it, or "" */
	struct rt_stat *stat_scratch; /* a statistic merged from every CPU's copy */
	void *iter_slots;             /* sorted foreach snapshots (maps.c) */
	void *re_scratch;             /* the regex matcher's threads */
	int re_caps[RT_RE_SLOTS];     /* the last match, for matched() */
	int re_ngroups, re_matched;
	char *re_subject;             /* the string it matched */
	char *tok_str;                /* what tokenize() goes on with */
	size_t tok_pos;
	char sym[RT_SYM_LEN];         /* a symbol being named (stack.c) */
	char *ustack;                 /* a user stack being copied (ustack.c), MAXUSTACK bytes */
	/* When the hit began, in cycles of rt_cycles(); the statement budget
	 * beyond the current window (c->actions), valid for the hit that
	 * began at reserve_of (rt_actions_reserve). */
	u64 hit_start;
	rt_long actions_reserve;
	u64 reserve_of;
	/* Work done in walks and searches (rt_work): the time is checked
	 * whenever RT_WORK_QUANTUM more is done, across calls and hits. */
	unsigned long work, work_checked;
	bool fatal;                   /* the failure may not be caught (rt_catch) */
	bool aborting;                /* the failure is abort(): the stop, not an error */
	bool process_context;         /* a begin, end or error probe: may sleep */
	/* The overload check: handler time in the interval that began at ov_start. */
	u64 ov_start, ov_used;
	struct rt_timing *timing;     /* -t: per probe, on this CPU (rt_script.timing) */
};

/* -t: one probe's hits on one CPU and the cycles they took. */
struct rt_timing {
	u64 hits, cycles, min, max;
};

struct rt_run {
	atomic_t state;
	bool stop_requested;        /* `stop` was written: the reader waits for `stopped` */
	bool orphaned;              /* the reader went away without a stop: stopped alone */
	int exit_status;
	int failed;                 /* an error stopped the script: error probes, not end */
	bool aborted;               /* abort() stopped it: neither end nor error probes */
	pid_t target;
	bool target_children;       /* -c: the target's descendants are targets too */
	pid_t staprun_pid;          /* who started the script (stp_pid()) */
	atomic64_t skipped;         /* all skipped hits */
	atomic64_t skipped_locked;  /* of those: a global stayed locked (MAXTRYLOCK) */
	atomic64_t skipped_unsafe;  /* of those: where RCU was not watching */
	struct rt_cpu __percpu *cpus;
};

extern struct rt_run rt_run;

static inline struct rt_cpu *rt_cpu_of(struct rt_context *c)
{
	return container_of(c, struct rt_cpu, c);
}

/* Size of a hit's staging buffer; larger output is committed in pieces. */
#define RT_STAGING_SIZE 8192

/* Statements a hit runs between two checks of its time, at most (with
 * long strings, fewer: rt_clock.window). */
#define RT_ACTION_WINDOW 256

/* lifecycle.c: load, start, stop, unload */
/* A begin or end probe (the others: rt_run_probe() in hit.h). */
void rt_run_begin_end(const struct rt_probe *p);
static inline bool rt_is_begin_end(const struct rt_probe *p)
{
	return p->kind == RT_BEGIN || p->kind == RT_END || p->kind == RT_ERROR;
}
/* This CPU's sorted-foreach room, in slots, and the slots themselves. */
rt_size rt_cpu_iter_room(struct rt_context *c);
void *rt_cpu_iter_slots(struct rt_context *c);
int rt_state(void);
/* `ctl` commands; start and stop run in process context, serialised. */
int rt_ctl_start(void);
int rt_ctl_stop(void);
/* -c/-x: only before `start` (probes are placed knowing it); -EINVAL after. */
int rt_ctl_set_target(pid_t pid, bool children);

/* budget.c: what bounds a hit */
/*
 * Time for bounding and accounting hits: the CPU's cycle counter, a few
 * instructions where local_clock() takes some sixty, twice a hit. The
 * limits, converted once at start (rt_clock_init): MAXHITTIME, and the
 * overload check's interval and threshold (interval 0: no check).
 */
static inline u64 rt_cycles(void)
{
	return get_cycles();
}
struct rt_clock {
	u64 per_ms;
	/* ov_limit: the overload threshold in cycles (the largest u64 when the
	 * check is off); ov_threshold: what a hit's sum is compared with, the
	 * same, or 0 with -t so that every hit goes to rt_overload_check(). */
	u64 hit_limit, ov_interval, ov_threshold, ov_limit;
	/* Statements between two checks of the time (rt_budget_split):
	 * fewer when strings are long, since each may then copy MAXSTRINGLEN
	 * bytes a few times over */
	rt_long window;
	/* MAXACTION as a hit's first window and the rest (rt_budget_split) */
	rt_long hit_actions, hit_reserve;
};
extern struct rt_clock rt_clock;
void rt_clock_init(void);

/* The statement budget beyond this hit's window: set at its first use in
 * a hit (begin and end set theirs when they start), so that a hit that
 * never needs it does not pay for it. */
static inline rt_long *rt_actions_reserve(struct rt_cpu *cpu)
{
	if (cpu->reserve_of != cpu->hit_start) {
		cpu->reserve_of = cpu->hit_start;
		cpu->actions_reserve = rt_clock.hit_reserve;
	}
	return &cpu->actions_reserve;
}

/* Has the hit run past MAXHITTIME? If so it fails (at loc, may be NULL).
 * Loops in the runtime whose length a script controls call it now and then. */
bool rt_hit_overtime(struct rt_context *c, const char *loc);

/* About one unit per byte compared or copied, or per entry visited. */
#define RT_WORK_QUANTUM 65536

/*
 * units more work for the hit: true (and the hit failed) when the hit has
 * run too long. A walk or search whose cost a script controls calls it as
 * it goes, so that no call, however large its arguments, and no number of
 * small calls between two statements' checks, runs far past MAXHITTIME.
 */
static inline bool rt_work(struct rt_context *c, unsigned long units)
{
	struct rt_cpu *cpu = rt_cpu_of(c);

	cpu->work += units;
	if (likely(cpu->work - cpu->work_checked < RT_WORK_QUANTUM))
		return false;
	cpu->work_checked = cpu->work;
	return rt_hit_overtime(c, NULL);
}
/* The handlers on cpu used more than the overload threshold since its
 * interval began (hit.h): stop the script if that was within an interval. */
void rt_overload_check(struct rt_cpu *cpu, u64 now, u64 used);
struct seq_file;
/* -t: the "report" lines of each probe's hits and cycles, for `ctl`. */
void rt_timing_show(struct seq_file *m);

/* failures.c: messages, failures, stopping */
/* A skipped hit, counted (and its reason: &rt_run.skipped_locked, ...). */
void rt_count_skip(atomic64_t *reason);
/* An uncaught failure of the hit on cpu: reported, counted against MAXERRORS. */
struct rt_cpu;
void rt_report_error(struct rt_cpu *cpu);
/* The hit spent its statement budget (MAXACTION, or in begin and end
 * MAXACTION_INTERRUPTIBLE): a failure no catch can take. */
void rt_fail_actions(struct rt_context *c, const char *loc);
void rt_request_stop(int exit_status);
/* Record an "error" or "warning" line for `ctl`. Safe in any context. */
void rt_message(const char *kind, const char *fmt, ...) __printf(2, 3);
/* Has an error line been recorded? */
bool rt_has_error(void);
/* `ctl` status lines: state, exit status, skipped hits, messages. */
void rt_status_show(struct seq_file *m);

/* probes/place.c: the probes' lifecycle (each family in its own file of probes/). */
/* The bytes the probe table takes (rt_probes_prepare allocates it). */
size_t rt_probes_bytes(void);
int rt_probes_prepare(void);
int rt_probes_start(void);
/* probes/uprobes.c: probes on user-space files (place.c places them in turn). */
int rt_uprobes_prepare(void);
int rt_uprobe_place(int i, const char **why);
void rt_uprobes_stop(void);
/* tasks.c: process and thread begin and end probes; the -c/-x filter. */
int rt_tasks_start(void);
/* probes/procfs.c: the procfs probes' files, made at start, removed at stop. */
int rt_procfs_start(void);
void rt_procfs_stop(void);
/* What the files' opens may allocate at most (PROCFS_MAXOPEN buffers each). */
size_t rt_procfs_bytes(void);
void rt_tasks_stop(void);
bool rt_task_is_target(struct task_struct *t);
/* The program (an index) probe names, -1: any (or not a task probe). */
int rt_task_program(int probe);
/* counters.c: @perf's per-thread counters, kept up by tasks.c. */
int rt_counters_start(void);
void rt_counters_initial(u64 (*programs_of)(struct task_struct *));
void rt_counters_exec(u64 progs);
void rt_counters_fork(struct task_struct *child, u64 progs);
void rt_counters_exit(void);
void rt_counters_stop(void);
size_t rt_counters_bytes(void);
/* With a target: the same, without a call when the task is the target. */
static __always_inline bool rt_task_in_target(struct task_struct *t)
{
	return t->tgid == READ_ONCE(rt_run.target) || rt_task_is_target(t);
}

/* The same, without a call when there is no target (-c, -x). */
static __always_inline bool rt_is_target(struct task_struct *t)
{
	return !READ_ONCE(rt_run.target) || rt_task_in_target(t);
}
void rt_probes_stop(void);
/* Run every probe of this kind (begin or end) in order, in process context. */
void rt_probes_run_all(enum rt_probe_kind kind);

/* probes/uprobes.c: where a user file's static object is in the current
 * process, from the file's mapping there (0, the hit failed, if none). */
unsigned long rt_ustatic_addr(struct rt_context *c, const struct rt_static *st, const char *what,
			      const char *loc);

/* alloc.c: large zeroed areas, failing (not retrying, not warning) when
 * memory is short; and the check of the script's total against MAXMEMORY. */
void *rt_alloc_big(size_t size);
void rt_free_big(void *p);
int rt_memory_check(void);
/* lifecycle.c: the largest statistic, which each CPU keeps a scratch copy of. */
size_t rt_stat_scratch_bytes(void);
/* The reader closed `out`: unless `stop` was written, stop alone. */
void rt_ctl_orphan(void);
/* `quiesce`: the probes stop, the end probes wait for `stop`. */
int rt_ctl_quiesce(void);
bool rt_quiesced(void);
/* maps.c: every array with string keys folded by the user-stack aliases,
 * and the sample ids their keys name (no probe may run). */
void rt_maps_fold_all(void);
size_t rt_maps_tokens(u64 *ids, size_t cap);

/* stack.c: whether a call into a .callee probe's function came through
 * one of the probe's chains of call sites (regs: at the function's entry). */
bool rt_called_through(const struct rt_probe *p, struct pt_regs *regs);

/* ustack.c: the aliases staprun sends for user stacks kept as array keys */
size_t rt_ustack_bytes(void);
int rt_ustack_alloc(void);
void rt_ustack_free(void);
ssize_t rt_ustack_write(const char __user *ubuf, size_t count);
ssize_t rt_ustack_read(char __user *ubuf, size_t count, loff_t *ppos);
/* `ctl`: the cookie user-stack records carry. */
void rt_ustack_show(struct seq_file *m);
/* After quiesce, before the end probes: every array folded by the
 * aliases staprun gave for the samples their keys name. */
void rt_ustack_final_fold(void);
/* From the 20 ms wake timer: start the worker that reads the mappings of
 * processes sampled in the kernel, when any wait. */
void rt_ustack_tick(void);
/* The worker has mappings to send: the output has not ended yet. */
bool rt_ustack_pending(void);
/* At stop, once no probe runs: the worker's last requests served here, or
 * dropped when the output has no room; it runs no more. */
void rt_ustack_stop(void);
/* The sample ids of the tokens in key s: how many, the first cap into ids. */
int rt_ustack_key_tokens(const char *s, size_t max, u64 *ids, size_t cap);
/* Bumped by every batch of aliases: arrays fold again when it changed. */
u32 rt_ustack_alias_gen(void);
/* Rewrite the tokens in a key to their stack's first sample (change false:
 * only say whether any would change). */
bool rt_ustack_fold_key(char *s, size_t max, bool change);

/* transport.c */
/* The /proc files, at load; the buffers, at start (bytes: rt_transport_bytes). */
int rt_transport_init(const char *dir_name);
int rt_transport_alloc(void);
size_t rt_transport_bytes(void);
void rt_transport_exit(void);
/* Append to this hit's output, committing the staged part when full. */
void rt_out_write(struct rt_cpu *cpu, const char *data, size_t len);
/* Move this hit's staged output into the CPU's buffer as one record. */
void rt_out_commit(struct rt_cpu *cpu);
bool rt_out_record(struct rt_cpu *cpu, const void *a, size_t alen, const void *b, size_t blen);
void rt_out_write_whole(struct rt_cpu *cpu, const char *data, size_t len);
size_t rt_out_room(struct rt_cpu *cpu);
size_t rt_out_space(size_t len);
bool rt_out_fits(struct rt_cpu *cpu, size_t space);
size_t rt_out_set_max(void);
/* Readers of `out` notice new data or a state change. */
void rt_wake_readers(void);
/* `ctl` status lines about output: dropped records and bytes. */
void rt_transport_show(struct seq_file *m);

/* probes/place.c: where kernel function probe p is placed (0: not placed). */
rt_long rt_probe_addr(const struct rt_probe *p);

/* maps.c */
struct rt_stat;
/* The bytes rt_map_new(d) allocates. */
size_t rt_map_bytes(const struct rt_map_desc *d);
struct rt_map *rt_map_new(const struct rt_map_desc *d);
void rt_map_free(struct rt_map *m);
const struct rt_stat_desc *rt_map_stat_desc(const struct rt_map *m);
/* An element of a statistics array merged from every CPU's copy into this
 * CPU's scratch statistic (all zero when absent). */
struct rt_stat *rt_map_merged_stat(struct rt_context *c, struct rt_map *m,
				   const struct rt_key *k, const struct rt_stat_desc **d,
				   const char *loc);

#endif
