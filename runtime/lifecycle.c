// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The script's run: module load and unload, the state machine that staprun
 * drives through `ctl` (doc/protocol.md), and the wrapper every probe hit
 * runs through. The wrapper is where safety lives: one hit per CPU at a
 * time (a nested hit is skipped and counted), interrupts off (except in
 * begin and end, which run alone), the script's
 * globals locked, a statement budget, and errors that stop the script
 * instead of the kernel.
 *
 * A failure in a hit is kept with the hit (a try's catch may take it);
 * one that no catch took is reported when the hit ends and counted, and
 * the script stops once more than MAXERRORS were (failures.c). What bounds
 * a hit's statements and time is in budget.c.
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

struct rt_run rt_run;
struct rt_map **rt_maps;
struct rt_stats **rt_stats;

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
	cpu = this_cpu_ptr(rt_run.cpus);
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

/* --- load, start, stop, unload --- */

static void rt_free_cpus(void)
{
	int i;

	if (!rt_run.cpus)
		return;
	for_each_possible_cpu(i) {
		struct rt_cpu *cpu = per_cpu_ptr(rt_run.cpus, i);

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
	free_percpu(rt_run.cpus);
	rt_run.cpus = NULL;
}

/* A counted global's value: what it started with and every CPU's count
 * (each written only by hits on its own CPU). */
rt_long rt_count_sum(rt_long base, int slot)
{
	unsigned long sum = (unsigned long)base;
	int i;

	for_each_possible_cpu(i)
		sum += (unsigned long)READ_ONCE(per_cpu_ptr(rt_run.cpus, i)->c.counters[slot]);
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

	rt_run.cpus = alloc_percpu(struct rt_cpu);
	if (!rt_run.cpus)
		return -ENOMEM;
	for_each_possible_cpu(i) {
		struct rt_cpu *cpu = per_cpu_ptr(rt_run.cpus, i);

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
	if (rc == -ENOMEM && !rt_has_error())
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
	atomic_set(&rt_run.state, RT_RUNNING);
	rc = rt_probes_prepare();
	if (rc) {
		rt_message("error", "not enough kernel memory for the probe table (%d probes)",
			   rt_script.nprobes);
		rt_request_stop(1);
		mutex_unlock(&rt_ctl_mutex);
		return rc;
	}
	rt_probes_run_all(RT_BEGIN);
	if (atomic_read(&rt_run.state) == RT_RUNNING)
		rc = rt_probes_start();
	if (rt_run.exit_status)
		rc = -EIO;
	rt_wake_readers();
	mutex_unlock(&rt_ctl_mutex);
	return rc;
}

int rt_ctl_stop(void)
{
	mutex_lock(&rt_ctl_mutex);
	rt_run.stop_requested = true;
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
			atomic_set(&rt_run.state, RT_STOPPING);
			/* As in SystemTap: after an error, the error probes instead. */
			if (!READ_ONCE(rt_run.aborted))
				rt_probes_run_all(rt_run.failed ? RT_ERROR : RT_END);
		}
		atomic_set(&rt_run.state, RT_STOPPED);
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
		atomic_set(&rt_run.state, RT_STOPPING);
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
	if (!rt_run.stop_requested) {
		rt_run.orphaned = true;
		pr_warn(RT_PREFIX "%s: its reader went away without stopping it: stopping now\n",
			THIS_MODULE->name);
	}
	mutex_unlock(&rt_ctl_mutex);
	if (!rt_run.orphaned)
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
		rt_run.target = pid;
		rt_run.target_children = children;
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
	atomic_set(&rt_run.state, RT_LOADED);
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
