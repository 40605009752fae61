// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What a probe hit can ask about where it is: the task, the CPU, the probe,
 * the time, the return value. All of it must be safe in any context a probe
 * can fire in (interrupts, inside the scheduler or timekeeping), so only
 * lockless, NMI-safe sources are used.
 */
#include <linux/cred.h>
#include <linux/module.h>
#include <linux/jiffies.h>
#include <linux/mm_types.h>
#include <linux/uaccess.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <linux/sched/loadavg.h>
#include <linux/sched/task_stack.h>
#include <linux/pid.h>
#include <linux/percpu.h>
#include <linux/prandom.h>
#include <linux/timex.h>
#include <linux/string.h>
#include <linux/timekeeping.h>

#include "runtime.h"

/*
 * The task a hit is about: the current one, except in process and thread
 * begin and end probes, which tasks.c runs for a task that is not running
 * (a new child at fork, a process found at start).
 */
DEFINE_PER_CPU(struct task_struct *, rt_task_override);

static __always_inline struct task_struct *rt_hit_task(void)
{
	struct task_struct *t = this_cpu_read(rt_task_override);

	return t ? t : current;
}

/* Script strings hold at least 16 bytes (MAXSTRINGLEN >= 16): comm fits whole. */
static_assert(TASK_COMM_LEN == 16);

void rt_execname(struct rt_context *c, char *buf, rt_size size)
{
	/* comm can change under us; a torn name is acceptable, a long one is
	 * not. Two word copies, no string functions: this is on hot paths. */
	memcpy(buf, rt_hit_task()->comm, TASK_COMM_LEN);
	buf[TASK_COMM_LEN - 1] = 0;
}

rt_long rt_execname_is(struct rt_context *c, const struct rt_comm *name)
{
	u64 comm[2];

	/* Two word loads (comm need not be aligned); name is zero-padded to
	 * 16 bytes, and mask covers its length and the NUL after it. */
	memcpy(comm, rt_hit_task()->comm, sizeof(comm));
	return ((comm[0] ^ name->w[0]) & name->mask[0]) == 0 &&
	       ((comm[1] ^ name->w[1]) & name->mask[1]) == 0;
}

rt_long rt_pid(struct rt_context *c)
{
	return task_tgid_nr(rt_hit_task());
}

rt_long rt_tid(struct rt_context *c)
{
	return task_pid_nr(rt_hit_task());
}

rt_long rt_ppid(struct rt_context *c)
{
	rt_long pid;

	rcu_read_lock();
	pid = task_tgid_nr(rcu_dereference(rt_hit_task()->real_parent));
	rcu_read_unlock();
	return pid;
}

rt_long rt_uid(struct rt_context *c)
{
	return from_kuid_munged(&init_user_ns, task_uid(rt_hit_task()));
}

rt_long rt_cpu(struct rt_context *c)
{
	return smp_processor_id();
}

void rt_probefunc(struct rt_context *c, char *buf, rt_size size)
{
	const struct rt_probe *p = rt_cpu_of(c)->probe;
	struct pt_regs *regs = c->regs;

	/* A sampled hit is in whatever it interrupted: the kernel function
	 * there, or "" in user space. */
	if (p && (p->kind == RT_PROFILE || p->kind == RT_PERF || p->kind == RT_TIMER ||
		  p->kind == RT_HWBKPT)) {
		if (regs && !user_mode(regs))
			rt_symname(c, buf, size, (rt_long)instruction_pointer(regs));
		else
			buf[0] = 0;
		return;
	}
	strscpy(buf, p && p->function ? p->function : p && p->symbol ? p->symbol : "", size);
}

/* Where the hit is: the instruction a sampled hit (timer, perf)
 * interrupted, or a kernel function probe's own address. */
rt_long rt_addr(struct rt_context *c)
{
	const struct rt_probe *p = rt_cpu_of(c)->probe;
	struct pt_regs *regs = c->regs;

	if (p && p->kind == RT_KPROBE)
		return rt_probe_addr(p);
	return p && regs ? (rt_long)instruction_pointer(regs) : 0;
}

rt_long rt_uaddr(struct rt_context *c)
{
	struct pt_regs *regs = c->regs;

	if (regs && user_mode(regs))
		return (rt_long)instruction_pointer(regs);
	if (!current->mm || (current->flags & PF_KTHREAD))
		return 0;
	return (rt_long)instruction_pointer(task_pt_regs(current));
}

rt_long rt_get_cycles(struct rt_context *c)
{
	return (rt_long)get_cycles();
}

/* A monotonic clock any context may read, NMI too (the kernel's fast
 * accessor: ktime_get_ns() may spin on its sequence count). */
rt_long rt_ktime_get_ns(struct rt_context *c)
{
	return (rt_long)ktime_get_mono_fast_ns();
}

void rt_probe_type(struct rt_context *c, char *buf, rt_size size)
{
	const struct rt_probe *p = rt_cpu_of(c)->probe;
	const char *t = "begin_end";

	switch (p ? p->kind : RT_BEGIN) {
	case RT_BEGIN:
	case RT_END:
	case RT_ERROR:
		break;
	case RT_TIMER:
		t = "hrtimer";
		break;
	case RT_KPROBE:
		t = "kprobe";
		break;
	case RT_KRETPROBE:
		t = "kretprobe";
		break;
	case RT_TRACEPOINT:
		t = "tracepoint";
		break;
	case RT_PROFILE:
		t = "profile_timer";
		break;
	case RT_PERF:
	case RT_PERF_COUNTER:
		t = "perf_event";
		break;
	case RT_UPROBE:
		t = "uprobe";
		break;
	case RT_URETPROBE:
		t = "uretprobe";
		break;
	case RT_PROCESS_BEGIN:
	case RT_PROCESS_END:
	case RT_THREAD_BEGIN:
	case RT_THREAD_END:
		t = "utrace";
		break;
	case RT_PROCFS_READ:
	case RT_PROCFS_WRITE:
		t = "procfs";
		break;
	case RT_NETFILTER:
		t = "netfilter";
		break;
	case RT_HWBKPT:
		t = "hw_breakpoint";
		break;
	case RT_SYSCALL:
	case RT_SYSCALL_RETURN:
		t = "utrace_syscall";
		break;
	}
	strscpy(buf, t, size);
}

rt_long rt_registers_valid(struct rt_context *c)
{
	return c->regs != NULL;
}

rt_long rt_stack_size(struct rt_context *c)
{
	return THREAD_SIZE;
}

/* Bytes below the top of the current task's kernel stack at the hit's
 * start; -1 when the hit runs on another stack. */
static long rt_stack_depth(struct rt_context *c)
{
	unsigned long base = (unsigned long)task_stack_page(current);

	if (!base || c->stack_base < base || c->stack_base >= base + THREAD_SIZE)
		return -1;
	return (long)(base + THREAD_SIZE - c->stack_base);
}

rt_long rt_stack_used(struct rt_context *c)
{
	long d = rt_stack_depth(c);

	return d < 0 ? 0 : d;
}

rt_long rt_stack_unused(struct rt_context *c)
{
	long d = rt_stack_depth(c);

	return d < 0 ? 0 : THREAD_SIZE - d;
}

/* Each CPU's own generator: plain arithmetic, safe in any context (an NMI
 * that interrupts it can only repeat a number), seeded at its first use. */
static DEFINE_PER_CPU(struct rnd_state, rt_rnd);

rt_long rt_randint(struct rt_context *c, rt_long n, const char *what, const char *loc)
{
	struct rnd_state *s = this_cpu_ptr(&rt_rnd);

	if (n < 0 || n > RT_RANDINT_MAX) {
		rt_failf(c, loc, NULL, "%s: the range %lld is outside 0 to %d", what, n, RT_RANDINT_MAX);
		return 0;
	}
	if (!s->s1)
		prandom_seed_state(s, get_cycles() ^ ((u64)smp_processor_id() << 32) ^ (u64)jiffies);
	return n ? (rt_long)(((u64)prandom_u32_state(s) * (u64)n) >> 32) : 0;
}

/* The task is not held: a script may read it (fault-safe) while it lives. */
rt_long rt_pid2task(struct rt_context *c, rt_long pid)
{
	struct task_struct *t;

	if (pid <= 0 || pid > INT_MAX)
		return 0;
	/* Global pid numbers, as pid() and target() give them; find_vpid()
	 * would look in the current task's namespace, which an exiting thread
	 * no longer has. */
	rcu_read_lock();
	t = pid_task(find_pid_ns((pid_t)pid, &init_pid_ns), PIDTYPE_PID);
	rcu_read_unlock();
	return (rt_long)(unsigned long)t;
}

/* Whether the hit interrupted user space (timer.profile, perf). */
rt_long rt_user_mode(struct rt_context *c)
{
	struct pt_regs *regs = c->regs;

	return regs && user_mode(regs);
}

void rt_pp(struct rt_context *c, char *buf, rt_size size)
{
	const struct rt_probe *p = rt_cpu_of(c)->probe;

	strscpy(buf, p ? p->pp : "", size);
}

void rt_pn(struct rt_context *c, char *buf, rt_size size)
{
	const struct rt_probe *p = rt_cpu_of(c)->probe;

	strscpy(buf, p ? (p->pn ? p->pn : p->pp) : "", size);
}

void rt_module_name(struct rt_context *c, char *buf, rt_size size)
{
	strscpy(buf, THIS_MODULE->name, size);
}

rt_long rt_target(struct rt_context *c)
{
	return rt_run.target;
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

rt_long rt_cpu_clock_ns(struct rt_context *c, rt_long cpu)
{
	if (cpu < 0 || cpu >= nr_cpu_ids || !cpu_possible((int)cpu)) {
		rt_failf(c, NULL, NULL, "cpu_clock_ns(%lld): no such CPU (this machine has %u)", cpu,
			 nr_cpu_ids);
		return 0;
	}
	return sched_clock_cpu((int)cpu);
}

rt_long rt_jiffies(struct rt_context *c)
{
	return jiffies;
}

rt_long rt_return_value(struct rt_context *c)
{
	struct pt_regs *regs = c->regs;

	return regs ? regs_return_value(regs) : 0;
}

rt_long rt_gid(struct rt_context *c)
{
	return from_kgid_munged(&init_user_ns, task_cred_xxx(rt_hit_task(), gid));
}

rt_long rt_euid(struct rt_context *c)
{
	return from_kuid_munged(&init_user_ns, task_euid(rt_hit_task()));
}

rt_long rt_egid(struct rt_context *c)
{
	return from_kgid_munged(&init_user_ns, task_cred_xxx(rt_hit_task(), egid));
}

void rt_pexecname(struct rt_context *c, char *buf, rt_size size)
{
	rcu_read_lock();
	memcpy(buf, rcu_dereference(rt_hit_task()->real_parent)->comm, TASK_COMM_LEN);
	rcu_read_unlock();
	buf[TASK_COMM_LEN - 1] = 0;
}

rt_long rt_task_current(struct rt_context *c)
{
	return (rt_long)(unsigned long)rt_hit_task();
}

rt_long rt_hz(struct rt_context *c)
{
	return HZ;
}

void rt_probemod(struct rt_context *c, char *buf, rt_size size)
{
	const struct rt_probe *p = rt_cpu_of(c)->probe;

	strscpy(buf, p && p->module ? p->module : "kernel", size);
}

rt_long rt_is_return(struct rt_context *c)
{
	const struct rt_probe *p = rt_cpu_of(c)->probe;

	return p && p->kind == RT_KRETPROBE;
}

rt_long rt_stp_pid(struct rt_context *c)
{
	return rt_run.staprun_pid;
}

/*
 * Arguments first..last (last < 0: to the end) of the current process's
 * command line, joined by delim; "" for a kernel thread or when the
 * arguments cannot be read now (a page that is not present: no waiting in
 * a probe). At most RT_CMDLINE_SCAN bytes of the arguments are looked at:
 * a hit runs with interrupts off.
 */
#define RT_CMDLINE_SCAN (4 * PAGE_SIZE)
void rt_cmdline_args(struct rt_context *c, char *buf, rt_size size, rt_long first, rt_long last,
		     const char *delim)
{
	struct mm_struct *mm = current->mm;
	unsigned long start, end;
	char chunk[64];
	rt_size out = 0, dlen = strlen(delim);
	rt_long arg = 0;
	bool in_range = first == 0;

	buf[0] = 0;
	if (!mm || (current->flags & PF_KTHREAD) || first < 0)
		return;
	start = READ_ONCE(mm->arg_start);
	end = READ_ONCE(mm->arg_end);
	if (end > start + RT_CMDLINE_SCAN)
		end = start + RT_CMDLINE_SCAN;
	/* The arguments are NUL-terminated strings one after another. */
	while (start < end && out + 1 < size) {
		/* Within one page: a chunk across into a missing one would fail whole. */
		rt_size n = min3((rt_size)(end - start), (rt_size)sizeof(chunk),
				 (rt_size)(PAGE_SIZE - offset_in_page(start))), i;

		if (copy_from_user_nofault(chunk, (const void __user *)start, n)) {
			buf[0] = 0;
			return;
		}
		for (i = 0; i < n && out + 1 < size; i++) {
			if (chunk[i]) {
				if (in_range)
					buf[out++] = chunk[i];
				continue;
			}
			arg++;
			if (last >= 0 && arg > last) {
				buf[out] = 0;
				return;
			}
			in_range = arg >= first;
			/* A delimiter between two arguments in range. */
			if (in_range && arg > first && start + i + 1 < end) {
				rt_size k;

				for (k = 0; k < dlen && out + 1 < size; k++)
					buf[out++] = delim[k];
			}
		}
		start += n;
	}
	buf[out] = 0;
}

void rt_cmdline_str(struct rt_context *c, char *buf, rt_size size)
{
	rt_cmdline_args(c, buf, size, 0, -1, " ");
}

rt_long rt_addr_to_node(struct rt_context *c, rt_long addr)
{
	if (!virt_addr_valid((void *)(unsigned long)addr)) {
		rt_failf(c, NULL, NULL, "addr_to_node(0x%llx): not an address of the kernel's direct map",
			 (unsigned long long)addr);
		return 0;
	}
	return page_to_nid(virt_to_page((void *)(unsigned long)addr));
}

/* The registers of the probed code, as the kernel's oops report lays them
 * out; a probe without them (a timer, a tracepoint's made-up ones aside)
 * says so instead. */
void rt_print_regs(struct rt_context *c)
{
	const struct pt_regs *r = c->regs;
	char buf[512];
	int n;

	if (!r) {
		rt_print_str(c, "no registers are available in this probe\n");
		return;
	}
	n = scnprintf(buf, sizeof(buf),
		      "RIP: %04lx:%016lx\nRSP: %04lx:%016lx EFLAGS: %08lx\n"
		      "RAX: %016lx RBX: %016lx RCX: %016lx\n"
		      "RDX: %016lx RSI: %016lx RDI: %016lx\n"
		      "RBP: %016lx R08: %016lx R09: %016lx\n"
		      "R10: %016lx R11: %016lx R12: %016lx\n"
		      "R13: %016lx R14: %016lx R15: %016lx\n",
		      r->cs & 0xffff, r->ip, r->ss & 0xffff, r->sp, r->flags, r->ax, r->bx, r->cx,
		      r->dx, r->si, r->di, r->bp, r->r8, r->r9, r->r10, r->r11, r->r12, r->r13,
		      r->r14, r->r15);
	rt_out_write(rt_cpu_of(c), buf, n);
}

/* The load averages (1, 5 and 15 minutes), rounded to hundredths as
 * /proc/loadavg shows them. */
static unsigned long rt_load(int i)
{
	return READ_ONCE(avenrun[i]) + FIXED_1 / 200;
}

rt_long rt_get_loadavg_index(struct rt_context *c, rt_long i, const char *what,
			     const char *loc)
{
	if (i < 0 || i > 2) {
		rt_failf(c, loc, NULL, "%s: the index is 0, 1 or 2 (1, 5 and 15 minutes), not %lld",
			 what, (long long)i);
		return 0;
	}
	return LOAD_INT(rt_load((int)i));
}

void rt_sprint_loadavg(struct rt_context *c, char *buf, rt_size size)
{
	unsigned long a = rt_load(0), b = rt_load(1), d = rt_load(2);

	scnprintf(buf, size, "%lu.%02lu %lu.%02lu %lu.%02lu\n", LOAD_INT(a), LOAD_FRAC(a),
		  LOAD_INT(b), LOAD_FRAC(b), LOAD_INT(d), LOAD_FRAC(d));
}

/* A line into the kernel's own trace buffer (/sys/kernel/tracing/trace),
 * as trace_puts() writes it: no trace_printk() buffers are set up, so the
 * kernel prints no debugging banner. */
void rt_ftrace(struct rt_context *c, const char *msg)
{
	__trace_puts(_THIS_IP_, msg, strlen(msg));
}
