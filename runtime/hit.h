/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A probe hit, the hot path: inline in each placement's callback
 * (probes/) so a hit costs no more calls than it must. One hit per CPU at
 * a time (a nested one is skipped and counted), interrupts off, the
 * script's globals locked, a statement budget and a time limit (a hit must
 * never hold its CPU long enough to stall it), errors that stop the script
 * instead of the kernel, and the overload check: handlers that take more
 * than a share of a CPU end the script. begin and end probes, which run in process
 * context, go through rt_run_begin_end() (lifecycle.c) instead.
 */
#ifndef TAPLINE_HIT_H
#define TAPLINE_HIT_H

#include "runtime.h"

/* The statement budget, handed out rt_clock.window at a time
 * (rt_actions_refill): the first window and what is left beyond it. */
static inline void rt_budget_split(rt_long budget, rt_long *window, rt_long *reserve)
{
	*window = min_t(rt_long, budget, rt_clock.window);
	*reserve = budget - *window;
}

/* The context a hit starts with. What never changes (stack, sp_end,
 * maxnesting) was set when the CPU's state was made; what a hit leaves
 * behind is put back by whoever changed it (c.error by rt_hit_body,
 * entry_data by rt_run_hit), the statement budget's reserve is renewed
 * when first needed (rt_actions_reserve), and the script-function and
 * foreach state is set by the generated handlers that use them
 * (rt_handler_frame): a counting handler pays for none. */
static __always_inline void rt_hit_begin(struct rt_cpu *cpu, const struct rt_probe *p,
					 struct pt_regs *regs, rt_long actions)
{
	cpu->probe = p;
	cpu->c.regs = regs;
	cpu->hit_start = rt_cycles();
	cpu->c.actions = actions;
}

/* The body (which takes its own locks), then its error and output. Still
 * busy while committing: a hit in an interrupt must not write this CPU's
 * buffer too. Nonzero when the body did not run to its end (skipped or
 * failed). */
static __always_inline int rt_hit_body(struct rt_cpu *cpu, int (*body)(struct rt_context *c))
{
	int ok = !body(&cpu->c);

	if (unlikely(cpu->c.error)) {
		rt_report_error(cpu);
		cpu->c.error = NULL;
		ok = 0;
	}
	if (cpu->out_len)
		rt_out_commit(cpu);
	return !ok;
}

/* The overload check: this hit's time added to its CPU's since ov_start;
 * only past the threshold does rt_overload_check() look at how long that
 * took (rt_clock.ov_threshold is the largest u64 when the check is off,
 * 0 with -t: every hit is then timed there). */
static __always_inline void rt_overload_account(struct rt_cpu *cpu, u64 now)
{
	u64 used = now - cpu->hit_start;

	cpu->ov_used += used;
	if (unlikely(cpu->ov_used > rt_clock.ov_threshold))
		rt_overload_check(cpu, now, used);
}

/*
 * Every hit but begin and end, with interrupts off throughout: body is
 * the probe's handler, or a return probe's entry part; data is the call's
 * entry data for those. Nonzero when the body did not run to its end.
 * task_context: the caller runs where it may sleep (uprobe handlers), so
 * interrupts are on and need not be saved, only turned off and on.
 * check_rcu: the caller (an ftrace callback) may run where RCU does not
 * watch (idle and entry code), and such a hit is skipped and counted.
 */
static __always_inline int rt_run_hit_in(const struct rt_probe *p,
					 int (*body)(struct rt_context *c), struct pt_regs *regs,
					 char *data, bool task_context, bool check_rcu)
{
	unsigned long flags = 0;
	struct rt_cpu *cpu;
	int failed;

	if (atomic_read(&rt_run.state) != RT_RUNNING)
		return 1;
	if (task_context) {
		lockdep_assert_irqs_enabled();
		local_irq_disable();
	} else {
		local_irq_save(flags);
	}
	if (check_rcu && unlikely(!rt_rcu_watching())) {
		rt_count_skip(&rt_run.skipped_unsafe);
		failed = 1;
		goto out;
	}
	cpu = this_cpu_ptr(rt_run.cpus);
	if (unlikely(cpu->busy)) {
		rt_count_skip(NULL);
		failed = 1;
		goto out;
	}
	cpu->busy = 1;
	rt_hit_begin(cpu, p, regs, rt_clock.hit_actions);
	if (data)
		cpu->entry_data = data;
	failed = rt_hit_body(cpu, body);
	rt_overload_account(cpu, rt_cycles());
	if (data)
		cpu->entry_data = NULL;
	barrier();
	cpu->busy = 0;
out:
	if (task_context)
		local_irq_enable();
	else
		local_irq_restore(flags);
	return failed;
}

static __always_inline int rt_run_hit(const struct rt_probe *p, int (*body)(struct rt_context *c),
				      struct pt_regs *regs, char *data)
{
	return rt_run_hit_in(p, body, regs, data, false, false);
}

/* A hit from an ftrace callback (check_rcu above). */
static __always_inline int rt_run_hit_ftrace(const struct rt_probe *p,
					     int (*body)(struct rt_context *c),
					     struct pt_regs *regs, char *data)
{
	return rt_run_hit_in(p, body, regs, data, false, true);
}

static __always_inline void rt_run_probe(const struct rt_probe *p, struct pt_regs *regs)
{
	rt_run_hit(p, p->handler, regs, NULL);
}

#endif
