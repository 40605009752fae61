// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * perf.*: a perf event counter on each online CPU, a hit at each overflow;
 * kernel.data: a hardware breakpoint event on each online CPU (the
 * kernel's register_wide_hw_breakpoint() does the same), a hit at each
 * access it watches.
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

/* A perf event's counter overflowed on this CPU: one hit, with the
 * registers where it happened (an NMI for hardware counters). */
static notrace void rt_perf_fn(struct perf_event *event, struct perf_sample_data *data,
		       struct pt_regs *regs)
{
	struct rt_placed *pl = event->overflow_handler_context;

	rt_run_probe(pl->p, regs);
}

void rt_perf_remove(struct rt_placed *pl)
{
	unsigned int cpu;

	for (cpu = 0; cpu < nr_cpu_ids; cpu++)
		if (pl->events[cpu])
			perf_event_release_kernel(pl->events[cpu]);
	kfree(pl->events);
	pl->events = NULL;
}

/* One event on each online CPU; any that fails fails the probe. */
static int rt_events_place(struct rt_placed *pl, struct perf_event_attr *attr)
{
	unsigned int cpu;

	pl->events = kcalloc(nr_cpu_ids, sizeof(*pl->events), GFP_KERNEL);
	if (!pl->events)
		return -ENOMEM;
	/* No CPU hotplug lock around this: setting up some events (a
	 * tracepoint's) takes it again. A CPU going offline meanwhile is
	 * skipped (-ENODEV). */
	for_each_online_cpu(cpu) {
		struct perf_event *e = perf_event_create_kernel_counter(attr, cpu, NULL,
									rt_perf_fn, pl);

		if (IS_ERR(e) && PTR_ERR(e) == -ENODEV)
			continue;
		if (IS_ERR(e)) {
			rt_perf_remove(pl);
			return PTR_ERR(e);
		}
		pl->events[cpu] = e;
	}
	return 0;
}

int rt_perf_place(struct rt_placed *pl)
{
	const struct rt_probe *p = pl->p;
	/* Not pinned: a counter others need too is shared by time slices,
	 * where a pinned one could be left in an error state, never firing. */
	struct perf_event_attr attr = {
		.type = (u32)p->perf_type,
		.size = sizeof(attr),
		.config = (u64)p->perf_config,
		.sample_period = (u64)p->perf_sample,
	};

	/* .hz(N): N samples a second, as perf record -F N asks */
	if (p->perf_sample < 0) {
		attr.freq = 1;
		attr.sample_freq = (u64)-p->perf_sample;
	}
	return rt_events_place(pl, &attr);
}

/* A watchpoint: pinned (the debug registers are few, and one that cannot
 * have one should fail now, not watch nothing), every access a hit. */
int rt_hwbkpt_place(struct rt_placed *pl)
{
	const struct rt_probe *p = pl->p;
	unsigned long addr = p->text_offset ? (unsigned long)&_printk - rt_script.printk_offset +
						      p->text_offset
					    : (unsigned long)p->offset;
	struct perf_event_attr attr = {
		.type = PERF_TYPE_BREAKPOINT,
		.size = sizeof(attr),
		.pinned = 1,
		.sample_period = 1,
		.bp_addr = addr,
		.bp_type = (u32)p->perf_type,
		.bp_len = (u64)p->perf_config,
	};

	if (p->text_offset && !rt_script.printk_offset)
		return -ENOENT;
	return rt_events_place(pl, &attr);
}
