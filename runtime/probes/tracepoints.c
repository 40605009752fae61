// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * kernel.trace: a callback per tracepoint taking exactly its arguments.
 */
#include <asm/irq_regs.h>
#include <linux/hrtimer.h>
#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/namei.h>
#include <linux/sched/mm.h>
#include <linux/netfilter.h>
#include <linux/perf_event.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/tracepoint.h>

#include "hit.h"
#include "runtime.h"
#include "probes/probes.h"

/*
 * The kernel calls a tracepoint's probes as f(data, its arguments). Each
 * rt_tp_hitN takes exactly the N arguments its tracepoint passes (the
 * translator gives N from the tracepoint's prototype) and lays them out
 * as a function's would be at its entry, data first: in registers, then on
 * a stack above a return address; the translator's locations for the
 * arguments are those of such a call. A callback taking more arguments
 * than passed would read past its caller's frame: at the top of an
 * interrupt stack, off the stack.
 */
#define RT_TP_MAX_ARGS 12

/* The registers a call of the handler's function would have: see above. */
static notrace void rt_tp_run_regs(struct rt_placed *pl, const unsigned long *a, int n)
{
	unsigned long stack[1 + RT_TP_MAX_ARGS - 5] = { 0 };
	struct pt_regs regs = { 0 };
	int i;

	regs.di = (unsigned long)pl;
	regs.si = n > 0 ? a[0] : 0;
	regs.dx = n > 1 ? a[1] : 0;
	regs.cx = n > 2 ? a[2] : 0;
	regs.r8 = n > 3 ? a[3] : 0;
	regs.r9 = n > 4 ? a[4] : 0;
	for (i = 5; i < n; i++)
		stack[1 + i - 5] = a[i];
	regs.sp = (unsigned long)stack;
	rt_run_probe(pl->p, &regs);
}

/* ", unsigned long a1, ..., unsigned long aN", "a1, ..., aN" and ", a1, ..., aN" */
#define RT_TP_ARGS0
#define RT_TP_ARGS1 , unsigned long a1
#define RT_TP_ARGS2 RT_TP_ARGS1, unsigned long a2
#define RT_TP_ARGS3 RT_TP_ARGS2, unsigned long a3
#define RT_TP_ARGS4 RT_TP_ARGS3, unsigned long a4
#define RT_TP_ARGS5 RT_TP_ARGS4, unsigned long a5
#define RT_TP_ARGS6 RT_TP_ARGS5, unsigned long a6
#define RT_TP_ARGS7 RT_TP_ARGS6, unsigned long a7
#define RT_TP_ARGS8 RT_TP_ARGS7, unsigned long a8
#define RT_TP_ARGS9 RT_TP_ARGS8, unsigned long a9
#define RT_TP_ARGS10 RT_TP_ARGS9, unsigned long a10
#define RT_TP_ARGS11 RT_TP_ARGS10, unsigned long a11
#define RT_TP_ARGS12 RT_TP_ARGS11, unsigned long a12
#define RT_TP_VALS0 0
#define RT_TP_VALS1 a1
#define RT_TP_VALS2 RT_TP_VALS1, a2
#define RT_TP_VALS3 RT_TP_VALS2, a3
#define RT_TP_VALS4 RT_TP_VALS3, a4
#define RT_TP_VALS5 RT_TP_VALS4, a5
#define RT_TP_VALS6 RT_TP_VALS5, a6
#define RT_TP_VALS7 RT_TP_VALS6, a7
#define RT_TP_VALS8 RT_TP_VALS7, a8
#define RT_TP_VALS9 RT_TP_VALS8, a9
#define RT_TP_VALS10 RT_TP_VALS9, a10
#define RT_TP_VALS11 RT_TP_VALS10, a11
#define RT_TP_VALS12 RT_TP_VALS11, a12
#define RT_TP_PASS0
#define RT_TP_PASS1 , a1
#define RT_TP_PASS2 RT_TP_PASS1, a2
#define RT_TP_PASS3 RT_TP_PASS2, a3
#define RT_TP_PASS4 RT_TP_PASS3, a4
#define RT_TP_PASS5 RT_TP_PASS4, a5
#define RT_TP_PASS6 RT_TP_PASS5, a6
#define RT_TP_PASS7 RT_TP_PASS6, a7
#define RT_TP_PASS8 RT_TP_PASS7, a8
#define RT_TP_PASS9 RT_TP_PASS8, a9
#define RT_TP_PASS10 RT_TP_PASS9, a10
#define RT_TP_PASS11 RT_TP_PASS10, a11
#define RT_TP_PASS12 RT_TP_PASS11, a12
/*
 * A handler that reads no argument gets no registers (as an entry probe
 * through the plain ftrace_ops): its hit lays out and clears nothing, and
 * has no array on the stack (which would cost it the stack protector's
 * check too).
 */
#define RT_TP_HIT(n)                                                        \
	static noinline notrace void rt_tp_regs##n(void *data RT_TP_ARGS##n) \
	{                                                                   \
		const unsigned long a[] = { RT_TP_VALS##n };                \
		rt_tp_run_regs(data, a, n);                                 \
	}                                                                   \
	static notrace void rt_tp_hit##n(void *data RT_TP_ARGS##n)          \
	{                                                                   \
		const struct rt_placed *pl = data;                          \
		if (likely(!pl->p->needs_regs))                             \
			rt_run_probe(pl->p, NULL);                          \
		else                                                        \
			rt_tp_regs##n(data RT_TP_PASS##n);                  \
	}
RT_TP_HIT(0)
RT_TP_HIT(1)
RT_TP_HIT(2)
RT_TP_HIT(3)
RT_TP_HIT(4)
RT_TP_HIT(5)
RT_TP_HIT(6)
RT_TP_HIT(7)
RT_TP_HIT(8)
RT_TP_HIT(9)
RT_TP_HIT(10)
RT_TP_HIT(11)
RT_TP_HIT(12)

static void *const rt_tp_hits[RT_TP_MAX_ARGS + 1] = {
	rt_tp_hit0, rt_tp_hit1, rt_tp_hit2, rt_tp_hit3, rt_tp_hit4, rt_tp_hit5, rt_tp_hit6,
	rt_tp_hit7, rt_tp_hit8, rt_tp_hit9, rt_tp_hit10, rt_tp_hit11, rt_tp_hit12,
};

/* The callback of pl's tracepoint: the one taking exactly its arguments. */
static void *rt_tp_callback(const struct rt_placed *pl)
{
	return rt_tp_hits[pl->p->nargs];
}

struct rt_tp_search {
	const char *name;
	struct tracepoint *found;
};

static void rt_tp_match(struct tracepoint *tp, void *priv)
{
	struct rt_tp_search *s = priv;

	if (!s->found && !strcmp(tp->name, s->name))
		s->found = tp;
}

/* A module's tracepoint by name, from the module's own table of them (as
 * the kernel's tracepoint code reads it); NULL if the module is not loaded
 * or has none by that name. A module still coming counts only from the
 * module notifier (rt_module_coming, after the kernel's jump labels have
 * taken in its sites): one caught half-loaded at start waits for it. */
static struct tracepoint *rt_module_tracepoint(const char *module, const char *name)
{
	struct tracepoint *found = NULL;
	struct module *mod;
	unsigned int i;

	preempt_disable();
	mod = rt_find_module(module);
	if (mod && mod->state != MODULE_STATE_LIVE &&
	    !(mod->state == MODULE_STATE_COMING && rt_module_coming_now))
		mod = NULL;
	for (i = 0; mod && i < mod->num_tracepoints && !found; i++) {
		struct tracepoint *tp = tracepoint_ptr_deref(mod->tracepoints_ptrs + i);

		if (!strcmp(tp->name, name))
			found = tp;
	}
	preempt_enable();
	return found;
}

/* A module's tracepoint is placed when the module is loaded (its probe
 * waits until then: -ENOENT) and removed when it leaves (place.c); the
 * module cannot go in between, since the module notifier and placing
 * both hold rt_placing. */
int rt_tracepoint_place(struct rt_placed *pl)
{
	struct rt_tp_search s = { pl->p->symbol, NULL };

	if (pl->p->nargs < 0 || pl->p->nargs > RT_TP_MAX_ARGS)
		return -EINVAL;
	if (pl->p->module)
		s.found = rt_module_tracepoint(pl->p->module, pl->p->symbol);
	else
		for_each_kernel_tracepoint(rt_tp_match, &s);
	if (!s.found)
		return -ENOENT;
	pl->tp = s.found;
	return tracepoint_probe_register(s.found, rt_tp_callback(pl), pl);
}

/* Its hits may still run: the caller waits for them once for all
 * (tracepoint_synchronize_unregister) before the handlers go. */
void rt_tracepoint_remove(struct rt_placed *pl)
{
	tracepoint_probe_unregister(pl->tp, rt_tp_callback(pl), pl);
}

/*
 * process.syscall: raw_syscalls' sys_enter(regs, id) and sys_exit(regs,
 * ret) for the threads the probe names. The filter comes before anything
 * else, as most system calls are not the ones asked for: the -c/-x
 * target, the process id, the program by its executable's inode. The
 * current task's mm and its exe_file cannot go while it is in a system
 * call; the file is read under RCU as the kernel's own readers do.
 */
static notrace bool rt_syscall_wanted(const struct rt_placed *pl)
{
	const struct rt_probe *p = pl->p;
	struct task_struct *t = current;
	struct mm_struct *mm;
	struct file *exe;
	bool ok;

	if (p->offset && task_tgid_nr(t) != p->offset)
		return false;
	if (!rt_is_target(t))
		return false;
	if (!pl->sys.inode)
		return true;
	mm = t->mm;
	if (!mm || (t->flags & PF_KTHREAD))
		return false;
	rcu_read_lock();
	exe = rcu_dereference(mm->exe_file);
	ok = exe && file_inode(exe) == pl->sys.inode;
	rcu_read_unlock();
	return ok;
}

static notrace void rt_syscall_hit(void *data, unsigned long a1, unsigned long a2)
{
	const struct rt_placed *pl = data;

	if (!rt_syscall_wanted(pl))
		return;
	if (likely(!pl->p->needs_regs))
		rt_run_probe(pl->p, NULL);
	else
		rt_tp_regs2(data, a1, a2);
}

int rt_syscall_place(struct rt_placed *pl)
{
	const char *name = pl->p->kind == RT_SYSCALL ? "sys_enter" : "sys_exit";
	struct rt_tp_search s = { name, NULL };
	int rc;

	for_each_kernel_tracepoint(rt_tp_match, &s);
	if (!s.found)
		return -ENOENT;
	pl->sys.tp = s.found;
	pl->sys.inode = NULL;
	if (pl->p->symbol) {
		rc = kern_path(pl->p->symbol, LOOKUP_FOLLOW, &pl->sys.prog);
		if (rc)
			return rc;
		pl->sys.inode = d_real_inode(pl->sys.prog.dentry);
	}
	rc = tracepoint_probe_register(s.found, rt_syscall_hit, pl);
	if (rc && pl->sys.inode) {
		path_put(&pl->sys.prog);
		pl->sys.inode = NULL;
	}
	return rc;
}

void rt_syscall_remove(struct rt_placed *pl)
{
	tracepoint_probe_unregister(pl->sys.tp, rt_syscall_hit, pl);
}

void rt_syscall_release(struct rt_placed *pl)
{
	if (pl->sys.inode)
		path_put(&pl->sys.prog);
	pl->sys.inode = NULL;
}
