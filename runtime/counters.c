// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * perf.*.process("PATH").counter("NAME") and @perf("NAME"): a counting
 * perf event for each thread of the processes running PATH (without a
 * PATH, of the -c or -x target), read by the thread's own probes.
 *
 * The events are inherited: a thread or process that a counted one starts
 * gets a copy from the kernel, counting from its first instruction. A
 * probe finds the current thread's event in the thread's own perf
 * context, by the counter probe it names (its overflow context, which
 * the copies inherit), never through a table of tasks: the scheduler
 * swaps the contexts of a parent and a child it cloned (inherit_stat
 * swaps their counts with them, so a thread's event always holds its
 * own count).
 *
 * Creating an event can sleep and the scheduler's tracepoints (tasks.c)
 * cannot: threads running at start get their events then; a process
 * that comes to run PATH by exec from one not counted (or a child of one
 * whose events were not made yet) gets them from a task work, which the
 * thread runs itself before it returns to user space, so that its first
 * instruction there is counted and no probe of it reads 0 (a worker made
 * them a little later, and a real-time thread, which keeps its CPU from
 * the worker until it sleeps, read 0 in every probe before that).
 * The module may not go while a task work is queued (its code is ours,
 * and the kernel exports no way to take it back): stop waits for every
 * one to have run. Our own events are released by a worker once they
 * stopped counting (their thread exited) and no copy is left, the rest
 * at stop (each takes its copies with it); the kernel frees events after
 * an RCU grace period, which a probe's read is inside.
 */
#include <linux/perf_event.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/task_work.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include "compat/compat.h"
#include "hit.h"
#include "runtime.h"

/* Events we made (not the kernel's copies). */
#define RT_OWN_MAX 4096
static struct perf_event **rt_own;
static int rt_nown;
static DEFINE_MUTEX(rt_own_mutex);

/* Task works that make a thread's events, from a fixed pool (the
 * tracepoints that queue them may not allocate: on PREEMPT_RT not even
 * atomically), linked through next when free. */
#define RT_PENDING_MAX 512
struct rt_twork {
	struct callback_head cb;
	u64 progs;
	int next;
};
static struct rt_twork *rt_tworks;
static int rt_twork_free;
static DEFINE_RAW_SPINLOCK(rt_twork_lock);
/* Queued and not yet finished; stop waits for none. */
static atomic_t rt_tworks_out = ATOMIC_INIT(0);
static bool rt_tworks_queued; /* any, since start */
static DECLARE_WAIT_QUEUE_HEAD(rt_tworks_done);

static atomic64_t rt_counted_lost;
static bool rt_initial_truncated; /* more threads at start than looked at */
static bool rt_counters_on;

/* One work item, always on one workqueue (a work item queued on two
 * can run twice at once, and cancelling waits for one of them). */
static void rt_counters_work(struct work_struct *w);
static DECLARE_DELAYED_WORK(rt_counters_worker, rt_counters_work);

/* Run the worker a little after an exit (the kernel marks the thread's
 * events done after the tracepoint). */
static void rt_counters_kick(unsigned long delay)
{
	queue_delayed_work(system_highpri_wq, &rt_counters_worker, delay);
}

static bool rt_is_counter(const struct rt_probe *p)
{
	return p->kind == RT_PERF_COUNTER;
}

size_t rt_counters_bytes(void)
{
	int i;

	for (i = 0; i < rt_script.nprobes; i++)
		if (rt_is_counter(&rt_script.probes[i]))
			return RT_OWN_MAX * sizeof(*rt_own) +
			       RT_PENDING_MAX * sizeof(struct rt_twork);
	return 0;
}

/* Never called: counting events have no sample period. The overflow
 * context it comes with is what marks the events (and their copies) as
 * counter probe p's. */
static void rt_counter_overflow(struct perf_event *event, struct perf_sample_data *data,
				struct pt_regs *regs)
{
}

/* t's event for counter probe p: ours or the kernel's copy; NULL if none.
 * Under rcu_read_lock(); t is current or does not run. */
static struct perf_event *rt_counter_of(struct task_struct *t, const struct rt_probe *p)
{
	struct perf_event_context *ctx[2];
	struct perf_event *e;
	int n, j;

	n = rt_task_perf_contexts(t, ctx);
	for (j = 0; j < n; j++) {
		if (!ctx[j])
			continue;
		list_for_each_entry_rcu(e, &ctx[j]->event_list, event_entry)
			if (READ_ONCE(e->overflow_handler_context) == (void *)p)
				return e;
	}
	return NULL;
}

/* The event's count now: brought up to date first when it runs on this
 * CPU (what perf_event_read_local() does, which modules cannot call). */
static u64 rt_event_count(struct perf_event *e)
{
	unsigned long flags;
	u64 v;

	local_irq_save(flags);
	if (READ_ONCE(e->oncpu) == smp_processor_id() && READ_ONCE(e->state) == PERF_EVENT_STATE_ACTIVE)
		e->pmu->read(e);
	v = local64_read(&e->count);
	local_irq_restore(flags);
	return v;
}

rt_long rt_counter_read(struct rt_context *c, int probe)
{
	struct perf_event *e;
	rt_long v = 0;

	(void)c;
	if (!READ_ONCE(rt_counters_on) || (current->flags & PF_KTHREAD) || probe < 0 ||
	    probe >= rt_script.nprobes)
		return 0;
	rcu_read_lock();
	e = rt_counter_of(current, &rt_script.probes[probe]);
	if (e)
		v = (rt_long)rt_event_count(e);
	rcu_read_unlock();
	return v;
}

/* Does counter probe i count thread t (of processes running progs)? */
static bool rt_counts(int i, struct task_struct *t, u64 progs)
{
	int prog = rt_task_program(i);

	if (prog >= 0)
		return (progs & (1ULL << prog)) && rt_task_is_target(t);
	return READ_ONCE(rt_run.target) && rt_task_is_target(t);
}

static bool rt_has_counter(struct task_struct *t, int i)
{
	bool has;

	rcu_read_lock();
	has = rt_counter_of(t, &rt_script.probes[i]) != NULL;
	rcu_read_unlock();
	return has;
}

/* Ours, done counting (the thread that held it last has exited: after a
 * context swap that may not be the one it was made for) and with every
 * copy gone. */
static bool rt_own_done(struct perf_event *e)
{
	bool alone;

	if (READ_ONCE(e->state) != PERF_EVENT_STATE_EXIT)
		return false;
	mutex_lock(&e->child_mutex);
	alone = list_empty(&e->child_list);
	mutex_unlock(&e->child_mutex);
	return alone;
}

static void rt_own_reap(void)
{
	int k = 0;

	lockdep_assert_held(&rt_own_mutex);
	while (k < rt_nown) {
		if (!rt_own_done(rt_own[k])) {
			k++;
			continue;
		}
		perf_event_release_kernel(rt_own[k]);
		rt_own[k] = rt_own[--rt_nown];
	}
}

/* Counter probe p's event: counting only; copied into the threads and
 * processes its thread starts, with the count following the task when the
 * scheduler swaps the contexts of the two. */
static void rt_counter_attr(const struct rt_probe *p, struct perf_event_attr *attr)
{
	memset(attr, 0, sizeof(*attr));
	attr->type = (u32)p->perf_type;
	attr->size = sizeof(*attr);
	attr->config = (u64)p->perf_config;
	attr->inherit = 1;
	attr->inherit_stat = 1;
}

/* Counter probe i's event for t, made here (process context), unless t
 * has one (its own, or a copy). */
static void rt_counter_add(int i, struct task_struct *t)
{
	const struct rt_probe *p = &rt_script.probes[i];
	struct perf_event_attr attr;
	struct perf_event *e;

	mutex_lock(&rt_own_mutex);
	if (rt_has_counter(t, i) || (READ_ONCE(t->flags) & PF_EXITING))
		goto out;
	if (rt_nown == RT_OWN_MAX)
		rt_own_reap();
	if (rt_nown == RT_OWN_MAX) {
		atomic64_inc(&rt_counted_lost);
		goto out;
	}
	rt_counter_attr(p, &attr);
	e = perf_event_create_kernel_counter(&attr, -1, t, rt_counter_overflow, (void *)p);
	if (IS_ERR(e)) {
		/* -ESRCH: t began to exit meanwhile. */
		if (PTR_ERR(e) != -ESRCH)
			atomic64_inc(&rt_counted_lost);
		goto out;
	}
	rt_own[rt_nown++] = e;
out:
	mutex_unlock(&rt_own_mutex);
}

static void rt_counters_add_all(struct task_struct *t, u64 progs)
{
	int i;

	for (i = 0; i < rt_script.nprobes; i++)
		if (rt_is_counter(&rt_script.probes[i]) && rt_counts(i, t, progs))
			rt_counter_add(i, t);
}

/* The worker: our events whose threads have exited, released. */
static void rt_counters_work(struct work_struct *w)
{
	mutex_lock(&rt_own_mutex);
	rt_own_reap();
	mutex_unlock(&rt_own_mutex);
}

/* The last thing a task work does. A thread preempted between this and
 * its return is still in our code: stop waits for an RCU Tasks grace
 * period after the count reaches 0, which no task passes while it is
 * preempted (it ends at a voluntary switch or in user space). */
static void rt_twork_finished(void)
{
	if (atomic_dec_and_test(&rt_tworks_out))
		wake_up(&rt_tworks_done);
}

static void rt_twork_release(struct rt_twork *w)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&rt_twork_lock, flags);
	w->next = rt_twork_free;
	rt_twork_free = (int)(w - rt_tworks);
	raw_spin_unlock_irqrestore(&rt_twork_lock, flags);
}

/* In the thread itself, before it returns to user space (or as it exits,
 * when it was killed first: then there is nothing to count). */
static void rt_counters_twork(struct callback_head *cb)
{
	struct rt_twork *w = container_of(cb, struct rt_twork, cb);
	u64 progs = w->progs;

	rt_twork_release(w);
	if (READ_ONCE(rt_counters_on) && !(current->flags & PF_EXITING))
		rt_counters_add_all(current, progs);
	rt_twork_finished();
}

/* From the scheduler's tracepoints (tasks.c), which cannot sleep: t runs
 * progs (it just exec'd, or is a child that has not run yet), and needs
 * the events of the counters that count it and that it has no copy of;
 * a task work makes them in t before t runs a user instruction. */
static void rt_counters_request(struct task_struct *t, u64 progs)
{
	struct rt_twork *w = NULL;
	unsigned long flags;
	int i;

	if (t->flags & PF_KTHREAD)
		return;
	/* Counted before looking at rt_counters_on: stop turns that off
	 * first, then waits for the count to reach 0. */
	atomic_inc(&rt_tworks_out);
	smp_mb__after_atomic();
	if (!READ_ONCE(rt_counters_on))
		goto done;
	for (i = 0; i < rt_script.nprobes; i++)
		if (rt_is_counter(&rt_script.probes[i]) && rt_counts(i, t, progs) &&
		    !rt_has_counter(t, i))
			break;
	if (i == rt_script.nprobes)
		goto done;
	raw_spin_lock_irqsave(&rt_twork_lock, flags);
	if (rt_twork_free >= 0) {
		w = &rt_tworks[rt_twork_free];
		rt_twork_free = w->next;
	}
	raw_spin_unlock_irqrestore(&rt_twork_lock, flags);
	if (!w) {
		atomic64_inc(&rt_counted_lost);
		goto done;
	}
	w->progs = progs;
	WRITE_ONCE(rt_tworks_queued, true);
	init_task_work(&w->cb, rt_counters_twork);
	if (!task_work_add(t, &w->cb, TWA_RESUME))
		return; /* rt_counters_twork() finishes it */
	rt_twork_release(w); /* t is exiting */
done:
	rt_twork_finished();
}

/* The current thread now runs progs (exec). */
void rt_counters_exec(u64 progs)
{
	rt_counters_request(current, progs);
}

/* A thread or process starts: it has copies of its parent's events,
 * unless the parent's were not made yet (just exec'd, or at start). */
void rt_counters_fork(struct task_struct *child, u64 progs)
{
	rt_counters_request(child, progs);
}

/* A counted thread exits: the worker may release what it kept alive. */
void rt_counters_exit(void)
{
	int i;

	if (!READ_ONCE(rt_counters_on))
		return;
	for (i = 0; i < rt_script.nprobes; i++)
		if (rt_is_counter(&rt_script.probes[i]) && rt_has_counter(current, i)) {
			rt_counters_kick(max(1UL, msecs_to_jiffies(20)));
			return;
		}
}

/* Before the tracepoints: each counter tried once on the starting task,
 * so that a CPU without it fails the start with a reason. */
int rt_counters_start(void)
{
	int i, n = 0;

	for (i = 0; i < rt_script.nprobes; i++) {
		const struct rt_probe *p = &rt_script.probes[i];
		struct perf_event_attr attr;
		struct perf_event *e;

		if (!rt_is_counter(p))
			continue;
		rt_counter_attr(p, &attr);
		e = perf_event_create_kernel_counter(&attr, -1, current, NULL, NULL);
		if (IS_ERR(e)) {
			long rc = PTR_ERR(e);

			rt_message("error", "cannot place probe %s: %s (%ld)", p->pp,
				   rc == -ENOENT || rc == -EOPNOTSUPP || rc == -EINVAL
					   ? "this CPU or kernel does not offer that perf counter"
					   : "the kernel refused the counter",
				   rc);
			return (int)rc;
		}
		perf_event_release_kernel(e);
		n++;
	}
	if (!n)
		return 0;
	rt_own = kvcalloc(RT_OWN_MAX, sizeof(*rt_own), GFP_KERNEL);
	rt_tworks = kvcalloc(RT_PENDING_MAX, sizeof(*rt_tworks), GFP_KERNEL);
	if (!rt_own || !rt_tworks) {
		kvfree(rt_own);
		kvfree(rt_tworks);
		rt_own = NULL;
		rt_tworks = NULL;
		return -ENOMEM;
	}
	rt_nown = 0;
	for (i = 0; i < RT_PENDING_MAX; i++)
		rt_tworks[i].next = i + 1 < RT_PENDING_MAX ? i + 1 : -1;
	rt_twork_free = 0;
	atomic64_set(&rt_counted_lost, 0);
	WRITE_ONCE(rt_counters_on, true);
	return 0;
}

/* At start, in process context: every thread already running that a
 * counter covers gets its events now (up to 4096 threads). */
void rt_counters_initial(u64 (*programs_of)(struct task_struct *))
{
	struct task_struct *p, *t, **found;
	int n = 0, i, max = 4096;

	if (!READ_ONCE(rt_counters_on))
		return;
	found = kvcalloc(max, sizeof(*found), GFP_KERNEL);
	if (!found)
		return;
	rcu_read_lock();
	for_each_process_thread(p, t) {
		if (n == max) {
			rt_initial_truncated = true;
			break;
		}
		if (t->flags & (PF_KTHREAD | PF_EXITING))
			continue;
		get_task_struct(t);
		found[n++] = t;
	}
	rcu_read_unlock();
	for (i = 0; i < n; i++) {
		rt_counters_add_all(found[i], programs_of(found[i]));
		put_task_struct(found[i]);
	}
	kvfree(found);
}

/* After the tracepoints are gone: every event goes (a probe still
 * reading a copy is inside the grace period before the kernel frees it). */
void rt_counters_stop(void)
{
	long long lost;
	int k;

	if (!rt_own)
		return;
	WRITE_ONCE(rt_counters_on, false);
	smp_mb();
	/* Every task work queued has run (a thread stopped by a debugger
	 * right after its exec holds this until it goes on). */
	while (!wait_event_timeout(rt_tworks_done, !atomic_read(&rt_tworks_out), 10 * HZ))
		pr_warn(RT_PREFIX "%s: waiting for %d threads to run their @perf setup before the script can stop (stopped by a debugger?)\n",
			THIS_MODULE->name, atomic_read(&rt_tworks_out));
	/* and left our code (rt_twork_finished) */
	if (READ_ONCE(rt_tworks_queued))
		synchronize_rcu_tasks();
	rt_tworks_queued = false;
	cancel_delayed_work_sync(&rt_counters_worker);
	mutex_lock(&rt_own_mutex);
	for (k = 0; k < rt_nown; k++)
		perf_event_release_kernel(rt_own[k]);
	rt_nown = 0;
	mutex_unlock(&rt_own_mutex);
	if (rt_initial_truncated)
		rt_message("warning", "more than 4096 threads ran when the script started: @perf counts only those seen first of them");
	rt_initial_truncated = false;
	lost = atomic64_read(&rt_counted_lost);
	if (lost)
		rt_message("warning", "%lld threads were not counted by @perf (more than %d at once, or the kernel refused)",
			   lost, RT_OWN_MAX);
	kvfree(rt_own);
	kvfree(rt_tworks);
	rt_own = NULL;
	rt_tworks = NULL;
}
