// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The session: module load and unload, the state machine that staprun
 * drives through `ctl` (doc/protocol.md), and the wrapper every probe hit
 * runs through. The wrapper is where safety lives: one hit per CPU at a
 * time (a nested hit is skipped and counted), interrupts off (except in
 * begin and end, which run alone), the script's
 * globals locked, a statement budget, and errors that stop the script
 * instead of the kernel.
 *
 * A failure in a hit is kept with the hit (a try's catch may take it);
 * one that no catch took is reported when the hit ends and counted, and
 * the script stops once more than MAXERRORS were.
 */
#include <linux/module.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/vmalloc.h>

#include <linux/delay.h>
#include <linux/math64.h>
#include <linux/mm.h>
#include <linux/sched/clock.h>

#include "hit.h"
#include "runtime.h"
#include "stats.h"

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Tapline script module");

struct rt_session rt_sess;
struct rt_map **rt_maps;
struct rt_stats **rt_stats;
static atomic_t rt_errors;
static atomic_t rt_errors_suppressed; /* --suppress-handler-errors */

/*
 * Error and warning lines for `ctl`. A probe can fire anywhere, even while
 * its own CPU is inside this code, so adding a line never waits: the first
 * error has a slot of its own, claimed without a lock, and the other lines
 * go to a buffer only if its lock is free at once (else they are counted
 * as lost).
 */
#define RT_MESSAGE_LEN 256
#define RT_MESSAGES_SIZE 4096
static char rt_first_error[RT_MESSAGE_LEN];
static atomic_t rt_first_error_state; /* 0 free, 1 being written, 2 written */
/* Where the first error goes among the other lines: what the buffer held
 * when it happened (always a line's end), so messages come out in order. */
static size_t rt_first_error_at;
static char rt_messages[RT_MESSAGES_SIZE];
static size_t rt_messages_len;
static atomic_t rt_messages_lost;
static DEFINE_SPINLOCK(rt_messages_lock);
static atomic_t rt_skip_limit_hit;

int rt_state(void)
{
	return atomic_read(&rt_sess.state);
}

void rt_message(const char *kind, const char *fmt, ...)
{
	unsigned long flags;
	char line[RT_MESSAGE_LEN];
	va_list ap;
	int i, n;

	va_start(ap, fmt);
	n = vscnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	/* One message, one line: script text must not forge `ctl` lines. */
	for (i = 0; i < n; i++)
		if ((unsigned char)line[i] < ' ' || line[i] == 0x7f)
			line[i] = ' ';
	if (!strcmp(kind, "error") && atomic_cmpxchg(&rt_first_error_state, 0, 1) == 0) {
		memcpy(rt_first_error, line, n + 1);
		rt_first_error_at = READ_ONCE(rt_messages_len);
		atomic_set_release(&rt_first_error_state, 2);
		return;
	}
	if (!spin_trylock_irqsave(&rt_messages_lock, flags)) {
		atomic_inc(&rt_messages_lost);
		return;
	}
	if (rt_messages_len + strlen(kind) + n + 2 < RT_MESSAGES_SIZE)
		rt_messages_len += scnprintf(rt_messages + rt_messages_len,
					     RT_MESSAGES_SIZE - rt_messages_len, "%s %s\n", kind,
					     line);
	else
		atomic_inc(&rt_messages_lost);
	spin_unlock_irqrestore(&rt_messages_lock, flags);
}

static void rt_timing_show(struct seq_file *m);

void rt_session_show(struct seq_file *m)
{
	static const char *const names[] = { "loaded", "running", "stopping", "stopped" };
	unsigned long flags;
	char *copy = kmalloc(RT_MESSAGES_SIZE, GFP_KERNEL);
	size_t len = 0;
	int lost;

	seq_printf(m, "state %s\n", names[atomic_read(&rt_sess.state)]);
	seq_printf(m, "exit_status %d\n", rt_sess.exit_status);
	seq_printf(m, "orphaned %d\n", rt_sess.orphaned);
	seq_printf(m, "skipped %lld\n", (long long)atomic64_read(&rt_sess.skipped));
	seq_printf(m, "skipped_locked %lld\n", (long long)atomic64_read(&rt_sess.skipped_locked));
	seq_printf(m, "skipped_unsafe %lld\n", (long long)atomic64_read(&rt_sess.skipped_unsafe));
	if (copy) {
		spin_lock_irqsave(&rt_messages_lock, flags);
		len = rt_messages_len;
		memcpy(copy, rt_messages, len);
		spin_unlock_irqrestore(&rt_messages_lock, flags);
	}
	if (atomic_read_acquire(&rt_first_error_state) == 2) {
		size_t at = min(rt_first_error_at, len);

		if (at)
			seq_write(m, copy, at);
		seq_printf(m, "error %s\n", rt_first_error);
		if (len > at)
			seq_write(m, copy + at, len - at);
	} else if (len) {
		seq_write(m, copy, len);
	}
	kfree(copy);
	if (atomic_read(&rt_skip_limit_hit))
		seq_printf(m,
			   "error skipped too many probe hits (MAXSKIPPED = %lld): %lld found another hit running on the same CPU, %lld found a global still locked after MAXTRYLOCK = %lld attempts, %lld were where RCU is not watching; raise the limit with -D MAXSKIPPED=N (or -D MAXTRYLOCK=N)\n",
			   rt_script.maxskipped,
			   (long long)(atomic64_read(&rt_sess.skipped) -
				       atomic64_read(&rt_sess.skipped_locked) -
				       atomic64_read(&rt_sess.skipped_unsafe)),
			   (long long)atomic64_read(&rt_sess.skipped_locked), rt_script.maxtrylock,
			   (long long)atomic64_read(&rt_sess.skipped_unsafe));
	rt_timing_show(m);
	if (atomic_read(&rt_errors_suppressed))
		seq_printf(m, "warning %d failed probe hits were skipped (--suppress-handler-errors)\n",
			   atomic_read(&rt_errors_suppressed));
	lost = atomic_read(&rt_messages_lost);
	if (lost)
		seq_printf(m, "warning %d more error or warning messages were lost\n", lost);
}

/* exit(), an error, or MAXSKIPPED: no more hits; staprun then sends `stop`. */
void rt_request_stop(int exit_status)
{
	if (exit_status) {
		rt_sess.exit_status = exit_status;
		rt_sess.failed = 1;
	}
	atomic_cmpxchg(&rt_sess.state, RT_RUNNING, RT_STOPPING);
	atomic_cmpxchg(&rt_sess.state, RT_LOADED, RT_STOPPING);
}

static bool rt_is_begin_end(const struct rt_probe *p)
{
	return p->kind == RT_BEGIN || p->kind == RT_END || p->kind == RT_ERROR;
}

void rt_count_skip(atomic64_t *reason)
{
	s64 n;

	if (reason)
		atomic64_inc(reason);
	n = atomic64_inc_return(&rt_sess.skipped);

	/* Only flags here: a message is composed when `ctl` is read. */
	if (n == rt_script.maxskipped + 1) {
		atomic_set(&rt_skip_limit_hit, 1);
		rt_request_stop(1);
	}
}

/*
 * begin, end and error: in process context while no other probe is
 * placed, kept on this CPU (its state is per CPU) but preemptible, so a
 * long one cannot stall the CPU and its output may wait for memory
 * (transport.c). MAXACTION_INTERRUPTIBLE bounds them, not MAXHITTIME.
 */
void rt_run_begin_end(const struct rt_probe *p)
{
	unsigned long flags;
	struct rt_cpu *cpu;
	rt_long actions, reserve;

	migrate_disable();
	local_irq_save(flags);
	cpu = this_cpu_ptr(rt_sess.cpus);
	if (cpu->busy) {
		rt_count_skip(NULL);
		local_irq_restore(flags);
		goto out;
	}
	cpu->busy = 1;
	local_irq_restore(flags);
	cpu->process_context = true;
	rt_budget_split(rt_script.maxaction_interruptible, &actions, &reserve);
	rt_hit_begin(cpu, p, NULL, actions);
	cpu->actions_reserve = reserve;
	cpu->reserve_of = cpu->hit_start;
	rt_hit_body(cpu, p->handler);
	cpu->process_context = false;
	cpu->probe = NULL;
	barrier();
	cpu->busy = 0;
out:
	migrate_enable();
}

/* An uncaught failure: reported, and counted against MAXERRORS. */
void rt_report_error(struct rt_cpu *cpu)
{
	int n;

	/* --suppress-handler-errors: as if each handler caught its own
	 * failure; one no catch could take (a hit over MAXHITTIME) still
	 * stops the script. */
	if (rt_script.suppress_errors && !cpu->fatal) {
		atomic_inc(&rt_errors_suppressed);
		return;
	}
	n = atomic_inc_return(&rt_errors);

	rt_message("error", "%s (probe %s)%s%s", cpu->error, cpu->probe ? cpu->probe->pp : "?",
		   cpu->hint[0] ? "; " : "", cpu->hint);
	cpu->fatal = false;
	if (n > rt_script.maxerrors)
		rt_request_stop(1);
	else
		rt_sess.exit_status = 1;
	if (n == rt_script.maxerrors + 1 && rt_script.maxerrors > 0)
		rt_message("error", "%d errors, more than MAXERRORS = %lld: stopping; raise the limit with -D MAXERRORS=N",
			   n, rt_script.maxerrors);
}

/* --- the API for generated code: failing and stopping --- */

void rt_failf(struct rt_context *c, const char *loc, const char *hint, const char *fmt, ...)
{
	struct rt_cpu *cpu = container_of(c, struct rt_cpu, c);
	va_list ap;
	int n;

	if (c->error)
		return;
	va_start(ap, fmt);
	n = vscnprintf(cpu->error, sizeof(cpu->error), fmt, ap);
	va_end(ap);
	if (loc)
		scnprintf(cpu->error + n, sizeof(cpu->error) - n, " at %s", loc);
	strscpy(cpu->hint, hint ? hint : "", sizeof(cpu->hint));
	c->error = cpu->error;
}

void rt_fail(struct rt_context *c, const char *msg, const char *loc)
{
	rt_failf(c, loc, NULL, "%s", msg);
}

void rt_fail_limit(struct rt_context *c, const char *limit, rt_long value, const char *loc)
{
	char hint[64];

	scnprintf(hint, sizeof(hint), "raise the limit with -D %s=N", limit);
	rt_failf(c, loc, hint, "%s (%lld) exceeded", limit, value);
}

static void rt_fail_actions(struct rt_context *c, const char *loc)
{
	const struct rt_probe *p = container_of(c, struct rt_cpu, c)->probe;

	rt_cpu_of(c)->fatal = true;
	if (p && rt_is_begin_end(p))
		rt_fail_limit(c, "MAXACTION_INTERRUPTIBLE", rt_script.maxaction_interruptible, loc);
	else
		rt_fail_limit(c, "MAXACTION", rt_script.maxaction, loc);
}

struct rt_clock rt_clock = { .window = RT_ACTION_WINDOW };

/* Cycles per millisecond: the TSC's rate, or measured against local_clock(). */
void rt_clock_init(void)
{
	u64 c0, t0, ns;

	rt_clock.per_ms = tsc_khz;
	if (!rt_clock.per_ms) {
		c0 = rt_cycles();
		t0 = local_clock();
		mdelay(2);
		ns = max_t(u64, local_clock() - t0, 1);
		rt_clock.per_ms = max_t(u64, div64_u64((rt_cycles() - c0) * NSEC_PER_MSEC, ns), 1);
	}
	rt_clock.hit_limit = div64_u64((u64)rt_script.maxhittime_us * rt_clock.per_ms, USEC_PER_MSEC);
	rt_clock.ov_interval = div64_u64((u64)rt_script.overload_interval_ns * rt_clock.per_ms,
					 NSEC_PER_MSEC);
	rt_clock.ov_threshold = div64_u64((u64)rt_script.overload_threshold_ns * rt_clock.per_ms,
					  NSEC_PER_MSEC);
	if (!rt_clock.ov_interval)
		rt_clock.ov_threshold = U64_MAX; /* STP_NO_OVERLOAD */
	rt_clock.ov_limit = rt_clock.ov_threshold;
	if (rt_script.timing)
		rt_clock.ov_threshold = 0;
	/* 256 statements of 512-byte strings between two looks at the clock;
	 * with 64 KiB strings, two (a statement of those took half a
	 * millisecond in the guest, and MAXHITTIME was overrun by 50 ms). */
	rt_clock.window = clamp_t(rt_long, RT_ACTION_WINDOW * 512 / rt_script.maxstringlen, 1,
				  RT_ACTION_WINDOW);
	rt_budget_split(rt_script.maxaction, &rt_clock.hit_actions, &rt_clock.hit_reserve);
}

static u64 rt_cycles_to_us(u64 cycles)
{
	return div64_u64(cycles * USEC_PER_MSEC, rt_clock.per_ms);
}

bool rt_hit_overtime(struct rt_context *c, const char *loc)
{
	struct rt_cpu *cpu = rt_cpu_of(c);
	u64 ran = rt_cycles() - cpu->hit_start;

	if (cpu->fatal)
		return true;
	/* begin and end are preemptible: MAXACTION_INTERRUPTIBLE bounds them. */
	if (likely(ran <= rt_clock.hit_limit) || cpu->process_context)
		return false;
	/* Not catchable: a catch would let the hit go on. */
	cpu->fatal = true;
	rt_failf(c, loc, "raise the limit with -D MAXHITTIME=MICROSECONDS (at most 1000000)",
		 "the probe hit ran for %llu us, more than MAXHITTIME = %lld us",
		 (unsigned long long)rt_cycles_to_us(ran), rt_script.maxhittime_us);
	return true;
}

int rt_actions_refill(struct rt_context *c, const char *loc)
{
	struct rt_cpu *cpu = rt_cpu_of(c);
	rt_long *reserve = rt_actions_reserve(cpu);
	rt_long left = *reserve + c->actions;

	if (left < 0) {
		rt_fail_actions(c, loc);
		return 1;
	}
	if (rt_hit_overtime(c, loc))
		return 1;
	c->actions = min_t(rt_long, left, rt_clock.window);
	*reserve = left - c->actions;
	return 0;
}

/*
 * Handlers took more than threshold ns of one CPU's last interval ns
 * (SystemTap's STP_OVERLOAD_THRESHOLD and _INTERVAL): the script stops,
 * as the machine is spending itself on tracing.
 */
static atomic_t rt_overloaded;

static void rt_overload(struct rt_cpu *cpu, u64 now)
{
	if (atomic_cmpxchg(&rt_overloaded, 0, 1) == 0)
		rt_message("error",
			   "probe overhead exceeded threshold: handlers took %llu ms of CPU %d's last %llu ms (%llu%%), more than STP_OVERLOAD_THRESHOLD / STP_OVERLOAD_INTERVAL = %lld%%; raise them with -D STP_OVERLOAD_THRESHOLD=NS -D STP_OVERLOAD_INTERVAL=NS, or turn the check off with -D STP_NO_OVERLOAD",
			   (unsigned long long)rt_cycles_to_us(cpu->ov_used) / USEC_PER_MSEC,
			   smp_processor_id(),
			   (unsigned long long)rt_cycles_to_us(now - cpu->ov_start) / USEC_PER_MSEC,
			   (unsigned long long)div64_u64(cpu->ov_used * 100, max_t(u64, now - cpu->ov_start, 1)),
			   rt_script.overload_threshold_ns * 100 / rt_script.overload_interval_ns);
	rt_request_stop(1);
	cpu->ov_start = now;
	cpu->ov_used = 0;
}

/*
 * This CPU's handlers have used more than the threshold since ov_start.
 * Within one interval that is an overload; over a longer time it is not,
 * and a new interval begins with the hit that crossed it. The hot path
 * then only adds and compares, and an overload is still caught within an
 * interval and a threshold of it beginning.
 */
void rt_overload_check(struct rt_cpu *cpu, u64 now, u64 used)
{
	if (rt_script.timing && cpu->timing && cpu->probe) {
		struct rt_timing *t = &cpu->timing[cpu->probe - rt_script.probes];

		t->min = t->hits && t->min < used ? t->min : used;
		t->max = max(t->max, used);
		t->hits++;
		t->cycles += used;
		if (cpu->ov_used <= rt_clock.ov_limit)
			return;
	}
	if (now - cpu->ov_start >= rt_clock.ov_interval) {
		cpu->ov_start = now - used;
		cpu->ov_used = used;
		if (used <= rt_clock.ov_limit)
			return;
	}
	rt_overload(cpu, now);
}

/* -t: every probe that ran, with its hits and cycles on all CPUs, as
 * "report" lines of the status (staprun prints them at the end). */
static void rt_timing_show(struct seq_file *m)
{
	int i, k;

	if (!rt_script.timing || !rt_sess.cpus)
		return;
	seq_puts(m, "report ----- probe hit report:\n");
	for (i = 0; i < rt_script.nprobes; i++) {
		struct rt_timing sum = { 0 };

		for_each_possible_cpu(k) {
			const struct rt_timing *t = per_cpu_ptr(rt_sess.cpus, k)->timing;

			if (!t || !t[i].hits)
				continue;
			sum.min = sum.hits && sum.min < t[i].min ? sum.min : t[i].min;
			sum.max = max(sum.max, t[i].max);
			sum.hits += t[i].hits;
			sum.cycles += t[i].cycles;
		}
		if (sum.hits)
			seq_printf(m, "report %s, hits: %llu, cycles: %llumin/%lluavg/%llumax, index: %d\n",
				   rt_script.probes[i].pp, sum.hits, sum.min,
				   div64_u64(sum.cycles, sum.hits), sum.max, i);
	}
}

void rt_frame_overflow(struct rt_context *c, rt_size size, unsigned long frame, const char *loc)
{
	if (c->depth >= c->maxnesting || size > (rt_size)(c->sp_end - c->sp)) {
		rt_fail_limit(c, "MAXNESTING", c->maxnesting, loc);
		return;
	}
	rt_failf(c, loc, NULL,
		 "script functions nest too deeply for the kernel stack (%lu bytes used, more than %d)",
		 c->stack_base - frame, RT_STACK_BUDGET);
}

void rt_user_error(struct rt_context *c, const char *msg)
{
	rt_failf(c, NULL, NULL, "%s", msg);
}

int rt_catch(struct rt_context *c, char *buf, rt_size size)
{
	struct rt_cpu *cpu = container_of(c, struct rt_cpu, c);

	if (cpu->fatal)
		return 1;
	if (buf && size) {
		strscpy(buf, cpu->error, size);
		if (cpu->hint[0]) {
			rt_strcat(buf, "; ", size);
			rt_strcat(buf, cpu->hint, size);
		}
	}
	c->error = NULL;
	return 0;
}

rt_size rt_cpu_iter_room(struct rt_context *c)
{
	return rt_script.iter_slots;
}

void *rt_cpu_iter_slots(struct rt_context *c)
{
	return container_of(c, struct rt_cpu, c)->iter_slots;
}

struct rt_stat *rt_stat_scratch(struct rt_context *c)
{
	return container_of(c, struct rt_cpu, c)->stat_scratch;
}

void rt_warn(struct rt_context *c, const char *msg)
{
	rt_message("warning", "%s", msg);
}

void rt_exit(struct rt_context *c)
{
	rt_request_stop(0);
}

/* --- load, start, stop, unload --- */

static void rt_free_cpus(void)
{
	int i;

	if (!rt_sess.cpus)
		return;
	for_each_possible_cpu(i) {
		struct rt_cpu *cpu = per_cpu_ptr(rt_sess.cpus, i);

		rt_free_big(cpu->c.stack);
		rt_free_big(cpu->out);
		kfree(cpu->stat_scratch);
		rt_free_big(cpu->iter_slots);
		rt_free_big(cpu->re_scratch);
		rt_free_big(cpu->timing);
		kfree(cpu->re_subject);
		kfree(cpu->tok_str);
		rt_free_big(cpu->ustack);
		kfree(cpu->c.counters);
	}
	free_percpu(rt_sess.cpus);
	rt_sess.cpus = NULL;
}

/* A counted global's value: what it started with and every CPU's count
 * (each written only by hits on its own CPU). */
rt_long rt_count_sum(rt_long base, int slot)
{
	unsigned long sum = (unsigned long)base;
	int i;

	for_each_possible_cpu(i)
		sum += (unsigned long)READ_ONCE(per_cpu_ptr(rt_sess.cpus, i)->c.counters[slot]);
	return (rt_long)sum;
}

/* The largest statistic of the script, for merging CPUs' copies into. */
size_t rt_stat_scratch_bytes(void)
{
	size_t n = sizeof(struct rt_stat);
	int i;

	for (i = 0; i < rt_script.nstats; i++)
		n = max(n, rt_stat_size(&rt_script.stats[i]));
	for (i = 0; i < rt_script.nmaps; i++)
		if (rt_script.maps[i].value_kind == RT_STATS)
			n = max(n, rt_stat_size(&rt_script.maps[i].stat));
	return n;
}

static int rt_alloc_cpus(void)
{
	size_t scratch = rt_stat_scratch_bytes();
	int i;

	rt_sess.cpus = alloc_percpu(struct rt_cpu);
	if (!rt_sess.cpus)
		return -ENOMEM;
	for_each_possible_cpu(i) {
		struct rt_cpu *cpu = per_cpu_ptr(rt_sess.cpus, i);

		cpu->c.stack = rt_alloc_big(rt_script.frame_size ? rt_script.frame_size : 16);
		cpu->c.sp_end = cpu->c.stack ? cpu->c.stack + rt_script.frame_size : NULL;
		cpu->c.maxnesting = (int)rt_script.maxnesting;
		cpu->out = rt_alloc_big(RT_STAGING_SIZE);
		cpu->stat_scratch = kzalloc(scratch, GFP_KERNEL);
		cpu->re_subject = kzalloc(rt_script.maxstringlen, GFP_KERNEL);
		cpu->tok_str = kzalloc(rt_script.maxstringlen, GFP_KERNEL);
		if (!cpu->c.stack || !cpu->out || !cpu->stat_scratch || !cpu->re_subject ||
		    !cpu->tok_str)
			return -ENOMEM;
		if (rt_script.ncounters) {
			cpu->c.counters = kcalloc(rt_script.ncounters, sizeof(rt_long), GFP_KERNEL);
			if (!cpu->c.counters)
				return -ENOMEM;
		}
		if (rt_script.iter_slots) {
			cpu->iter_slots = rt_alloc_big(array_size(rt_script.iter_slots, 2 * sizeof(u64)));
			if (!cpu->iter_slots)
				return -ENOMEM;
		}
		if (rt_script.regex_prog) {
			cpu->re_scratch = rt_alloc_big(RT_RE_SCRATCH(rt_script.regex_prog));
			if (!cpu->re_scratch)
				return -ENOMEM;
		}
		if (rt_script.maxustack) {
			cpu->ustack = rt_alloc_big(rt_script.maxustack);
			if (!cpu->ustack)
				return -ENOMEM;
		}
		if (rt_script.timing) {
			cpu->timing = rt_alloc_big(array_size(rt_script.nprobes, sizeof(struct rt_timing)));
			if (!cpu->timing)
				return -ENOMEM;
		}
	}
	return 0;
}

static void rt_free_data(void)
{
	int i;

	if (rt_maps)
		for (i = 0; i < rt_script.nmaps; i++)
			rt_map_free(rt_maps[i]);
	if (rt_stats)
		for (i = 0; i < rt_script.nstats; i++)
			rt_stats_free(rt_stats[i]);
	kfree(rt_maps);
	kfree(rt_stats);
	rt_maps = NULL;
	rt_stats = NULL;
}

/* Every array and statistic, whole, before any probe can fire. */
static int rt_alloc_data(void)
{
	int i;

	rt_maps = kcalloc(max(rt_script.nmaps, 1), sizeof(*rt_maps), GFP_KERNEL);
	rt_stats = kcalloc(max(rt_script.nstats, 1), sizeof(*rt_stats), GFP_KERNEL);
	if (!rt_maps || !rt_stats)
		return -ENOMEM;
	for (i = 0; i < rt_script.nmaps; i++) {
		rt_maps[i] = rt_map_new(&rt_script.maps[i]);
		if (!rt_maps[i]) {
			rt_message("error", "no memory for array '%s' (%d entries, %zu KiB)",
				   rt_script.maps[i].name, rt_script.maps[i].capacity,
				   rt_map_bytes(&rt_script.maps[i]) >> 10);
			return -ENOMEM;
		}
	}
	for (i = 0; i < rt_script.nstats; i++) {
		rt_stats[i] = rt_stats_new(&rt_script.stats[i]);
		if (!rt_stats[i])
			return -ENOMEM;
	}
	return 0;
}

static DEFINE_MUTEX(rt_ctl_mutex);
static bool rt_started, rt_stopped, rt_allocated, rt_probes_stopped;

/* Everything the script needs, once its total is known to be bearable. */
static int rt_alloc_all(void)
{
	int rc = rt_memory_check();

	if (!rc)
		rc = rt_alloc_cpus();
	if (!rc)
		rc = rt_alloc_data();
	if (!rc)
		rc = rt_transport_alloc();
	if (!rc)
		rc = rt_ustack_alloc();
	if (rc == -ENOMEM && atomic_read(&rt_first_error_state) == 0)
		rt_message("error", "not enough kernel memory to start the script");
	return rc;
}

int rt_ctl_start(void)
{
	int rc = 0;

	mutex_lock(&rt_ctl_mutex);
	if (rt_started || rt_stopped) {
		mutex_unlock(&rt_ctl_mutex);
		return -EINVAL;
	}
	rt_started = true;
	rc = rt_alloc_all();
	if (rc) {
		rt_request_stop(1);
		mutex_unlock(&rt_ctl_mutex);
		return rc;
	}
	rt_allocated = true;
	rt_clock_init();
	atomic_set(&rt_sess.state, RT_RUNNING);
	rc = rt_probes_prepare();
	if (rc) {
		rt_message("error", "not enough kernel memory for the probe table (%d probes)",
			   rt_script.nprobes);
		rt_request_stop(1);
		mutex_unlock(&rt_ctl_mutex);
		return rc;
	}
	rt_probes_run_all(RT_BEGIN);
	if (atomic_read(&rt_sess.state) == RT_RUNNING)
		rc = rt_probes_start();
	if (rt_sess.exit_status)
		rc = -EIO;
	rt_wake_readers();
	mutex_unlock(&rt_ctl_mutex);
	return rc;
}

int rt_ctl_stop(void)
{
	mutex_lock(&rt_ctl_mutex);
	rt_sess.stop_requested = true;
	if (!rt_stopped) {
		rt_stopped = true;
		rt_request_stop(0);
		if (rt_started && rt_allocated) {
			if (!rt_probes_stopped) {
				rt_probes_stop();
				synchronize_rcu();
			} else
				rt_ustack_final_fold();
			rt_ustack_stop();
			rt_probes_stopped = true;
			atomic_set(&rt_sess.state, RT_STOPPING);
			/* As in SystemTap: after an error, the error probes instead. */
			rt_probes_run_all(rt_sess.failed ? RT_ERROR : RT_END);
		}
		atomic_set(&rt_sess.state, RT_STOPPED);
	}
	rt_wake_readers();
	mutex_unlock(&rt_ctl_mutex);
	return 0;
}

/*
 * The probes stop, and the end probes wait for `stop`: staprun first
 * unwinds the last user stacks and sends their aliases, so that the end
 * probes walk arrays folded by stack.
 */
int rt_ctl_quiesce(void)
{
	mutex_lock(&rt_ctl_mutex);
	if (rt_started && rt_allocated && !rt_stopped && !rt_probes_stopped) {
		rt_request_stop(0);
		rt_probes_stop();
		/* A hit that passed its state check before the probes went
		 * (a perf event's) is over once an RCU grace period is. */
		synchronize_rcu();
		/* The worker still sends the last samples' mappings: the
		 * output does not end before they are in it. */
		WRITE_ONCE(rt_probes_stopped, true);
		atomic_set(&rt_sess.state, RT_STOPPING);
	}
	rt_wake_readers();
	mutex_unlock(&rt_ctl_mutex);
	return 0;
}

/* After `quiesce` and before `stop`: no probe runs. */
bool rt_quiesced(void)
{
	return READ_ONCE(rt_probes_stopped) && !READ_ONCE(rt_stopped) && READ_ONCE(rt_allocated);
}

/*
 * staprun went away without `stop` (kill -9, a crash): nothing would ever
 * stop the probes, so stop them now; the end probes still run (their
 * output has no reader). staprun's guardian, or the next staprun to start
 * (of any script), unloads it (ctl says "orphaned 1"); until then the
 * arrays and statistics, most of what a script holds, are given back:
 * nothing reads them once the end probes have run, and the OOM killer,
 * which may be what took staprun, wants the memory now.
 */
void rt_ctl_orphan(void)
{
	mutex_lock(&rt_ctl_mutex);
	if (!rt_sess.stop_requested) {
		rt_sess.orphaned = true;
		pr_warn(RT_PREFIX "%s: its reader went away without stopping it: stopping now\n",
			THIS_MODULE->name);
	}
	mutex_unlock(&rt_ctl_mutex);
	if (!rt_sess.orphaned)
		return;
	rt_ctl_stop();
	mutex_lock(&rt_ctl_mutex);
	rt_free_data();
	mutex_unlock(&rt_ctl_mutex);
}

int rt_ctl_set_target(pid_t pid, bool children)
{
	int rc = -EINVAL;

	mutex_lock(&rt_ctl_mutex);
	if (rt_state() == RT_LOADED) {
		rt_sess.target = pid;
		rt_sess.target_children = children;
		rc = 0;
	}
	mutex_unlock(&rt_ctl_mutex);
	return rc;
}

static int __init rt_init(void)
{
	int rc;

	if (rt_script.api_version != RT_API_VERSION) {
		pr_err(RT_PREFIX "%s was built for runtime API %d, not %d\n", THIS_MODULE->name,
		       rt_script.api_version, RT_API_VERSION);
		return -EINVAL;
	}
	atomic_set(&rt_sess.state, RT_LOADED);
	/* Only the control files now: what the script needs is allocated at
	 * `start`, after its total is checked, so that a refusal reaches the
	 * user through ctl. */
	rc = rt_transport_init(THIS_MODULE->name);
	return rc;
}

static void __exit rt_cleanup(void)
{
	/* staprun was killed, or someone ran rmmod: stop cleanly anyway. */
	rt_ctl_stop();
	rt_transport_exit();
	rt_ustack_free();
	rt_free_data();
	rt_free_cpus();
}

module_init(rt_init);
module_exit(rt_cleanup);
