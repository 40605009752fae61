// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What bounds a hit, and the machine's share of them: the cycle clock the
 * limits are converted to at start, the statement budget refilled window
 * by window, MAXHITTIME, and the overload check (STP_OVERLOAD_THRESHOLD
 * of a CPU's STP_OVERLOAD_INTERVAL), with -t's per-probe report.
 */
#include <linux/delay.h>
#include <linux/math64.h>
#include <linux/sched/clock.h>
#include <linux/seq_file.h>

#include "hit.h"
#include "runtime.h"

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
void rt_timing_show(struct seq_file *m)
{
	int i, k;

	if (!rt_script.timing || !rt_run.cpus)
		return;
	seq_puts(m, "report ----- probe hit report:\n");
	for (i = 0; i < rt_script.nprobes; i++) {
		struct rt_timing sum = { 0 };

		for_each_possible_cpu(k) {
			const struct rt_timing *t = per_cpu_ptr(rt_run.cpus, k)->timing;

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
