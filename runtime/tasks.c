// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Processes and threads coming and going: process.begin/.end and
 * process.thread.begin/.end, of any program, of one (by path), or of one
 * process id, through the scheduler's fork, exec and exit tracepoints.
 *
 * A begin probe runs for the new task: at fork, from the parent's
 * context, with the task the hit is about (context.c: rt_hit_task) set to the
 * child, so pid(), tid() and execname() are the child's; a program's
 * begin also when a process execs it, and, at start, for each process
 * already running it. An end runs in the exiting task itself. Processes
 * are matched to a program by the inode of their executable; since an
 * exiting task has already dropped its memory map (and with it its
 * executable) when the exit tracepoint fires, the processes seen running
 * a program are tracked by process id until they exit or exec another.
 * With -c or -x, only the target (and for -c its descendants) counts.
 * The same events give @perf's counters (counters.c) their threads.
 */
#include <linux/fs.h>
#include <linux/mm_types.h>
#include <linux/namei.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/tracepoint.h>

#include "hit.h"
#include "runtime.h"

DECLARE_PER_CPU(struct task_struct *, rt_task_override);

/* The programs probes name (up to 64), each by its executable's inode. */
#define RT_MAX_PROGRAMS 64
static struct path rt_prog_paths[RT_MAX_PROGRAMS];
static struct inode *rt_prog_inodes[RT_MAX_PROGRAMS];
static int rt_nprogs;
static signed char *rt_prog_of; /* by probe index: its program, -1: any */

/* Processes running a named program: tgid and a mask of programs. */
#define RT_MAX_TRACKED 4096
struct rt_tracked {
	pid_t tgid;
	u64 progs;
};
static struct rt_tracked *rt_tracked;
static DEFINE_RAW_SPINLOCK(rt_tracked_lock);
static atomic64_t rt_tracked_lost;

static struct tracepoint *rt_tp_fork, *rt_tp_exec, *rt_tp_exit;
static bool rt_tasks_on;

static bool rt_is_task_probe(const struct rt_probe *p)
{
	return p->kind == RT_PROCESS_BEGIN || p->kind == RT_PROCESS_END ||
	       p->kind == RT_THREAD_BEGIN || p->kind == RT_THREAD_END ||
	       p->kind == RT_PERF_COUNTER;
}

int rt_task_program(int probe)
{
	return rt_prog_of ? rt_prog_of[probe] : -1;
}

bool rt_task_is_target(struct task_struct *t)
{
	bool ok = false;
	int depth;

	if (!rt_run.target || task_tgid_nr(t) == rt_run.target)
		return true;
	if (!rt_run.target_children)
		return false;
	rcu_read_lock();
	for (depth = 0; depth < 64 && !ok; depth++) {
		struct task_struct *parent = rcu_dereference(t->real_parent);

		if (!parent || parent == t)
			break;
		t = parent;
		ok = task_tgid_nr(t) == rt_run.target;
	}
	rcu_read_unlock();
	return ok;
}

/* The programs (a mask) whose executable the task runs; its mm is read
 * under the task lock, which keeps it from going. */
static u64 rt_programs_of(struct task_struct *t)
{
	struct file *exe;
	u64 mask = 0;
	int i;

	task_lock(t);
	rcu_read_lock();
	exe = t->mm ? rcu_dereference(t->mm->exe_file) : NULL;
	for (i = 0; exe && i < rt_nprogs; i++)
		if (file_inode(exe) == rt_prog_inodes[i])
			mask |= 1ULL << i;
	rcu_read_unlock();
	task_unlock(t);
	return mask;
}

static u64 rt_tracked_get(pid_t tgid, bool remove)
{
	unsigned long flags;
	u64 mask = 0;
	int i;

	raw_spin_lock_irqsave(&rt_tracked_lock, flags);
	for (i = 0; i < RT_MAX_TRACKED; i++)
		if (rt_tracked[i].tgid == tgid) {
			mask = rt_tracked[i].progs;
			if (remove)
				rt_tracked[i].tgid = 0;
			break;
		}
	raw_spin_unlock_irqrestore(&rt_tracked_lock, flags);
	return mask;
}

static void rt_tracked_set(pid_t tgid, u64 mask)
{
	unsigned long flags;
	int i, free = -1;

	raw_spin_lock_irqsave(&rt_tracked_lock, flags);
	for (i = 0; i < RT_MAX_TRACKED; i++) {
		if (rt_tracked[i].tgid == tgid) {
			free = i;
			break;
		}
		if (free < 0 && !rt_tracked[i].tgid)
			free = i;
	}
	if (free >= 0) {
		rt_tracked[free].tgid = mask ? tgid : 0;
		rt_tracked[free].progs = mask;
	} else if (mask) {
		atomic64_inc(&rt_tracked_lost);
	}
	raw_spin_unlock_irqrestore(&rt_tracked_lock, flags);
}

/* Run the probes of kind for task t, running a mask of programs (only
 * those naming one of them if named_only). */
static void rt_task_hits(enum rt_probe_kind kind, struct task_struct *t, u64 progs,
			 bool named_only)
{
	struct task_struct *other = t == current ? NULL : t;
	unsigned long flags;
	int i;

	if (!rt_task_is_target(t))
		return;
	for (i = 0; i < rt_script.nprobes; i++) {
		const struct rt_probe *p = &rt_script.probes[i];
		int prog = rt_prog_of[i];

		if (p->kind != kind || (prog >= 0 && !(progs & (1ULL << prog))) ||
		    (named_only && prog < 0) ||
		    (p->offset && task_tgid_nr(t) != p->offset))
			continue;
		local_irq_save(flags);
		this_cpu_write(rt_task_override, other);
		rt_run_probe(p, NULL);
		this_cpu_write(rt_task_override, NULL);
		local_irq_restore(flags);
	}
}

static void rt_on_fork(void *data, struct task_struct *parent, struct task_struct *child)
{
	bool thread = child->tgid != child->pid;
	u64 progs = rt_nprogs ? rt_tracked_get(task_tgid_nr(parent), false) : 0;

	if (!thread && progs)
		rt_tracked_set(task_tgid_nr(child), progs);
	rt_counters_fork(child, progs);
	rt_task_hits(thread ? RT_THREAD_BEGIN : RT_PROCESS_BEGIN, child, progs, false);
}

static void rt_on_exec(void *data, struct task_struct *p, pid_t old_pid, void *bprm)
{
	u64 progs = rt_nprogs ? rt_programs_of(current) : 0, before = 0;

	if (rt_nprogs) {
		before = rt_tracked_get(task_tgid_nr(current), false);
		rt_tracked_set(task_tgid_nr(current), progs);
	}
	rt_counters_exec(progs);
	/* A program's begin: a process that starts running it. One that ran
	 * it already (its begin came when it was forked) and execs it again
	 * is the same process, as in SystemTap: no second begin. */
	if (progs & ~before)
		rt_task_hits(RT_PROCESS_BEGIN, current, progs & ~before, true);
}

/*
 * Does the current thread's exit end its process? signal->live says how
 * many threads have not yet begun to exit, but the exit tracepoint comes
 * after the count: two threads exiting at once (pthread_join returns
 * before the joined thread's tracepoint, and main then exits) can both
 * see 0. So the threads of a group that others (not yet past
 * exit_notify()) outlive are noted as they pass, and the process ends
 * with the one that sees live 0 after all the others passed. Groups of
 * more than 64 threads, or more than 16 groups exiting at once, fall back
 * to live alone.
 */
#define RT_ENDING_GROUPS 16
#define RT_ENDING_THREADS 16
#define RT_ENDING_GROUP_MAX 64
static struct rt_ending {
	pid_t tgid;
	int n;
	unsigned long since; /* jiffies: an entry left this long is stale */
	pid_t passed[RT_ENDING_THREADS + 1];
} rt_ending[RT_ENDING_GROUPS];
static DEFINE_RAW_SPINLOCK(rt_ending_lock);

static bool rt_pid_in(const pid_t *v, int n, pid_t pid)
{
	int i;

	for (i = 0; i < n; i++)
		if (v[i] == pid)
			return true;
	return false;
}

static bool rt_exit_ends_process(void)
{
	struct task_struct *me = current, *t;
	bool live0 = atomic_read(&me->signal->live) == 0, last = true;
	pid_t others[RT_ENDING_THREADS];
	struct rt_ending *e = NULL, *slot = NULL;
	unsigned long flags;
	int n = 0, i, k;

	if (get_nr_threads(me) > RT_ENDING_GROUP_MAX)
		return live0;
	/* The other threads still before exit_notify(). */
	rcu_read_lock();
	for_each_thread(me, t) {
		if (t == me || READ_ONCE(t->exit_state))
			continue;
		if (n == RT_ENDING_THREADS) {
			rcu_read_unlock();
			return live0;
		}
		others[n++] = t->pid;
	}
	rcu_read_unlock();
	raw_spin_lock_irqsave(&rt_ending_lock, flags);
	for (i = 0; i < RT_ENDING_GROUPS; i++) {
		struct rt_ending *x = &rt_ending[i];

		if (x->tgid == me->tgid)
			e = x;
		else if (!slot && (!x->tgid || time_after(jiffies, x->since + 10 * HZ)))
			slot = x;
	}
	if (e) {
		/* Forget those past exit_notify() now. */
		for (i = k = 0; i < e->n; i++)
			if (rt_pid_in(others, n, e->passed[i]))
				e->passed[k++] = e->passed[i];
		e->n = k;
	}
	for (i = 0; i < n && last; i++)
		last = e && rt_pid_in(e->passed, e->n, others[i]);
	if (!n || (last && live0)) {
		if (e)
			e->tgid = 0;
		raw_spin_unlock_irqrestore(&rt_ending_lock, flags);
		return live0;
	}
	if (!e && slot) {
		e = slot;
		e->tgid = me->tgid;
		e->n = 0;
	}
	if (!e) {
		raw_spin_unlock_irqrestore(&rt_ending_lock, flags);
		return live0;
	}
	e->since = jiffies;
	e->passed[e->n++] = me->pid;
	raw_spin_unlock_irqrestore(&rt_ending_lock, flags);
	return false;
}

static void rt_on_exit(void *data, struct task_struct *p)
{
	bool group_dead = rt_exit_ends_process();
	u64 progs = rt_nprogs ? rt_tracked_get(task_tgid_nr(current), group_dead) : 0;

	rt_task_hits(group_dead ? RT_PROCESS_END : RT_THREAD_END, current, progs, false);
	rt_counters_exit();
}

static void rt_tp_find(struct tracepoint *tp, void *priv)
{
	if (!strcmp(tp->name, "sched_process_fork"))
		rt_tp_fork = tp;
	else if (!strcmp(tp->name, "sched_process_exec"))
		rt_tp_exec = tp;
	else if (!strcmp(tp->name, "sched_process_exit"))
		rt_tp_exit = tp;
}

/* A path's program: its index, a new one if needed; -1 with rc. */
static int rt_program(const char *path, int *rc)
{
	struct inode *inode;
	int i;

	if (rt_nprogs == RT_MAX_PROGRAMS) {
		*rc = -E2BIG;
		return -1;
	}
	*rc = kern_path(path, LOOKUP_FOLLOW, &rt_prog_paths[rt_nprogs]);
	if (*rc)
		return -1;
	inode = d_real_inode(rt_prog_paths[rt_nprogs].dentry);
	for (i = 0; i < rt_nprogs; i++)
		if (rt_prog_inodes[i] == inode) {
			path_put(&rt_prog_paths[rt_nprogs]);
			return i;
		}
	rt_prog_inodes[rt_nprogs] = inode;
	return rt_nprogs++;
}

/* At start, before other probes: the begin probes of processes already running. */
static void rt_tasks_initial(void)
{
	struct task_struct *p, **found;
	int n = 0, i, max = 1024;

	found = kvcalloc(max, sizeof(*found), GFP_KERNEL);
	if (!found)
		return;
	rcu_read_lock();
	for_each_process(p) {
		if (n == max)
			break;
		if (p->flags & PF_KTHREAD)
			continue;
		get_task_struct(p);
		found[n++] = p;
	}
	rcu_read_unlock();
	for (i = 0; i < n; i++) {
		u64 progs = rt_nprogs ? rt_programs_of(found[i]) : 0;

		if (progs)
			rt_tracked_set(task_tgid_nr(found[i]), progs);
		if (rt_state() == RT_RUNNING)
			rt_task_hits(RT_PROCESS_BEGIN, found[i], progs, false);
		put_task_struct(found[i]);
	}
	kvfree(found);
}

int rt_tasks_start(void)
{
	int i, rc = 0;
	bool any = false;

	for (i = 0; i < rt_script.nprobes; i++)
		any |= rt_is_task_probe(&rt_script.probes[i]);
	if (!any)
		return 0;
	rt_prog_of = kcalloc(rt_script.nprobes, 1, GFP_KERNEL);
	rt_tracked = kvcalloc(RT_MAX_TRACKED, sizeof(*rt_tracked), GFP_KERNEL);
	if (!rt_prog_of || !rt_tracked)
		goto nomem;
	for (i = 0; i < rt_script.nprobes; i++) {
		const struct rt_probe *p = &rt_script.probes[i];

		rt_prog_of[i] = -1;
		if (!rt_is_task_probe(p) || !p->symbol)
			continue;
		rt_prog_of[i] = rt_program(p->symbol, &rc);
		if (rt_prog_of[i] < 0) {
			rt_message("error", "cannot place probe %s: %s (%d)", p->pp,
				   rc == -E2BIG ? "more than 64 programs" : "the program is not on this machine", rc);
			goto fail;
		}
	}
	memset(rt_ending, 0, sizeof(rt_ending));
	rc = rt_counters_start();
	if (rc)
		goto fail;
	for_each_kernel_tracepoint(rt_tp_find, NULL);
	if (!rt_tp_fork || !rt_tp_exec || !rt_tp_exit) {
		rt_message("error", "this kernel has no sched_process_fork, _exec or _exit tracepoint");
		rc = -ENOENT;
		goto fail;
	}
	rc = tracepoint_probe_register(rt_tp_fork, rt_on_fork, NULL);
	if (!rc) {
		rc = tracepoint_probe_register(rt_tp_exec, rt_on_exec, NULL);
		if (rc)
			tracepoint_probe_unregister(rt_tp_fork, rt_on_fork, NULL);
	}
	if (!rc) {
		rc = tracepoint_probe_register(rt_tp_exit, rt_on_exit, NULL);
		if (rc) {
			tracepoint_probe_unregister(rt_tp_exec, rt_on_exec, NULL);
			tracepoint_probe_unregister(rt_tp_fork, rt_on_fork, NULL);
		}
	}
	if (rc) {
		rt_message("error", "cannot watch processes start and end: tracepoint registration failed (%d)", rc);
		tracepoint_synchronize_unregister();
		goto fail;
	}
	rt_tasks_on = true;
	rt_counters_initial(rt_programs_of);
	rt_tasks_initial();
	return 0;
nomem:
	rc = -ENOMEM;
fail:
	rt_tasks_stop();
	return rc;
}

void rt_tasks_stop(void)
{
	int i;

	if (rt_tasks_on) {
		tracepoint_probe_unregister(rt_tp_exit, rt_on_exit, NULL);
		tracepoint_probe_unregister(rt_tp_exec, rt_on_exec, NULL);
		tracepoint_probe_unregister(rt_tp_fork, rt_on_fork, NULL);
		tracepoint_synchronize_unregister();
		rt_tasks_on = false;
	}
	rt_counters_stop();
	if (atomic64_read(&rt_tracked_lost))
		rt_message("warning", "%lld processes were not tracked (more than %d at once run the probed programs)",
			   (long long)atomic64_read(&rt_tracked_lost), RT_MAX_TRACKED);
	for (i = 0; i < rt_nprogs; i++)
		path_put(&rt_prog_paths[i]);
	rt_nprogs = 0;
	kfree(rt_prog_of);
	rt_prog_of = NULL;
	kvfree(rt_tracked);
	rt_tracked = NULL;
}
