// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * timer.*: an hrtimer per probe; timer.profile: one pinned to each CPU.
 */
#include <asm/irq_regs.h>
#include <linux/hrtimer.h>
#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/netfilter.h>
#include <linux/perf_event.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/tracepoint.h>

#include "hit.h"
#include "runtime.h"
#include "probes/probes.h"

/* The shortest period a timer fires at: a shorter one would keep a CPU
 * in the handler (the translator refuses a shorter period itself). */
#define RT_MIN_TIMER_NS 100000

/* A timer's next period: randomize(M) adds a uniform -M..M to each, M up
 * to the period; a draw below the minimum is raised to it. */
static ktime_t rt_timer_period(const struct rt_probe *p)
{
	u64 span, r;
	s64 ns;

	if (p->spread_ns <= 0)
		return ns_to_ktime(p->period_ns);
	span = 2 * (u64)p->spread_ns + 1;
	r = get_random_u32();
	if (span > U32_MAX)
		r = r << 32 | get_random_u32();
	ns = p->period_ns - p->spread_ns + (s64)(r % span);
	return ns_to_ktime(max_t(s64, ns, RT_MIN_TIMER_NS));
}

static notrace enum hrtimer_restart rt_timer_fn(struct hrtimer *t)
{
	struct rt_placed *pl = container_of(t, struct rt_placed, timer);

	if (rt_state() != RT_RUNNING)
		return HRTIMER_NORESTART;
	rt_run_probe(pl->p, get_irq_regs());
	hrtimer_forward_now(t, rt_timer_period(pl->p));
	return HRTIMER_RESTART;
}

/* timer.profile: on every CPU at each tick, in the interrupted context. */
static notrace enum hrtimer_restart rt_profile_fn(struct hrtimer *t)
{
	struct rt_cpu_timer *ct = container_of(t, struct rt_cpu_timer, timer);

	if (rt_state() != RT_RUNNING)
		return HRTIMER_NORESTART;
	rt_run_probe(ct->pl->p, get_irq_regs());
	hrtimer_forward_now(t, ns_to_ktime(TICK_NSEC));
	return HRTIMER_RESTART;
}

/* Run on each CPU (on_each_cpu): start that CPU's timer, pinned to it. */
static void rt_profile_start_here(void *arg)
{
	struct rt_placed *pl = arg;
	struct rt_cpu_timer *ct = &pl->cpu_timers[smp_processor_id()];

	ct->pl = pl;
	rt_hrtimer_setup(&ct->timer, rt_profile_fn, CLOCK_MONOTONIC, HRTIMER_MODE_REL_PINNED);
	hrtimer_start(&ct->timer, ns_to_ktime(TICK_NSEC), HRTIMER_MODE_REL_PINNED);
	ct->started = true;
}

int rt_profile_place(struct rt_placed *pl)
{
	pl->cpu_timers = kcalloc(nr_cpu_ids, sizeof(*pl->cpu_timers), GFP_KERNEL);
	if (!pl->cpu_timers)
		return -ENOMEM;
	/* CPUs that come online later get none (they are not watched). */
	on_each_cpu(rt_profile_start_here, pl, 1);
	return 0;
}

void rt_profile_remove(struct rt_placed *pl)
{
	unsigned int cpu;

	for (cpu = 0; cpu < nr_cpu_ids; cpu++)
		if (pl->cpu_timers[cpu].started)
			hrtimer_cancel(&pl->cpu_timers[cpu].timer);
	kfree(pl->cpu_timers);
	pl->cpu_timers = NULL;
}

int rt_timer_place(struct rt_placed *pl)
{
	rt_hrtimer_setup(&pl->timer, rt_timer_fn, CLOCK_MONOTONIC, HRTIMER_MODE_REL);
	hrtimer_start(&pl->timer, rt_timer_period(pl->p), HRTIMER_MODE_REL);
	return 0;
}

void rt_timer_remove(struct rt_placed *pl)
{
	hrtimer_cancel(&pl->timer);
}
