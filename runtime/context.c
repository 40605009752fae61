// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What a probe hit can ask about where it is: the task, the CPU, the probe,
 * the time, the return value. All of it must be safe in any context a probe
 * can fire in (interrupts, inside the scheduler or timekeeping), so only
 * lockless, NMI-safe sources are used.
 */
#include <linux/cred.h>
#include <linux/jiffies.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <linux/string.h>
#include <linux/timekeeping.h>

#include "runtime.h"

/* Script strings hold at least 16 bytes (MAXSTRINGLEN >= 16): comm fits whole. */
static_assert(TASK_COMM_LEN == 16);

void rt_execname(struct rt_context *c, char *buf, rt_size size)
{
	/* comm can change under us; a torn name is acceptable, a long one is
	 * not. Two word copies, no string functions: this is on hot paths. */
	memcpy(buf, current->comm, TASK_COMM_LEN);
	buf[TASK_COMM_LEN - 1] = 0;
}

rt_long rt_execname_is(struct rt_context *c, const struct rt_comm *name)
{
	u64 comm[2];

	/* Two word loads (comm need not be aligned); name is zero-padded to
	 * 16 bytes, and mask covers its length and the NUL after it. */
	memcpy(comm, current->comm, sizeof(comm));
	return ((comm[0] ^ name->w[0]) & name->mask[0]) == 0 &&
	       ((comm[1] ^ name->w[1]) & name->mask[1]) == 0;
}

rt_long rt_pid(struct rt_context *c)
{
	return task_tgid_nr(current);
}

rt_long rt_tid(struct rt_context *c)
{
	return task_pid_nr(current);
}

rt_long rt_ppid(struct rt_context *c)
{
	rt_long pid;

	rcu_read_lock();
	pid = task_tgid_nr(rcu_dereference(current->real_parent));
	rcu_read_unlock();
	return pid;
}

rt_long rt_uid(struct rt_context *c)
{
	return from_kuid_munged(&init_user_ns, current_uid());
}

rt_long rt_cpu(struct rt_context *c)
{
	return smp_processor_id();
}

void rt_probefunc(struct rt_context *c, char *buf, rt_size size)
{
	const struct rt_probe *p = rt_cpu_of(c)->probe;

	strscpy(buf, p && p->function ? p->function : p && p->symbol ? p->symbol : "", size);
}

void rt_pp(struct rt_context *c, char *buf, rt_size size)
{
	const struct rt_probe *p = rt_cpu_of(c)->probe;

	strscpy(buf, p ? p->pp : "", size);
}

rt_long rt_target(struct rt_context *c)
{
	return rt_sess.target;
}

rt_long rt_gettimeofday_ns(struct rt_context *c)
{
	/* The _fast_ variant never waits on the timekeeping seqlock, which a
	 * probe inside timekeeping could otherwise deadlock on. */
	return ktime_get_real_fast_ns();
}

rt_long rt_local_clock_ns(struct rt_context *c)
{
	return local_clock();
}

rt_long rt_jiffies(struct rt_context *c)
{
	return jiffies;
}

rt_long rt_return_value(struct rt_context *c)
{
	struct pt_regs *regs = rt_cpu_of(c)->regs;

	return regs ? regs_return_value(regs) : 0;
}
