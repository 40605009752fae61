// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Kernel symbols and call chains for a probe hit: symname(), symdata(),
 * backtrace() and its printed forms. Names come from kallsyms (lockless
 * for the kernel, RCU for modules), call chains from the kernel's own
 * unwinder (ORC on x86-64), both safe in any context a probe fires in.
 *
 * Source lines are not known in the kernel: symfileline() and the frames
 * of print_backtrace_fileline() write a token with the address, which
 * staprun names from the kernel's line table the module file carries
 * (contract/linetable.h).
 *
 * A chain starts at the probed code: from the hit's registers when they
 * are the probed code's (kprobes, timers that interrupted the kernel);
 * else (a tracepoint, whose registers the runtime made up, or an entry
 * probe through ftrace, which has none) from the hit's own frame, leaving
 * out the runtime's frames.
 */
#include <asm/unwind.h>
#include <linux/kallsyms.h>
#include <linux/module.h>
#include <linux/pid.h>
#include <linux/sched.h>
#include <linux/stacktrace.h>

#include "runtime.h"
#include "contract/ustack-records.h"

/* Frames a backtrace goes through at most: MAXBACKTRACE (the translator
 * keeps it within 1..RT_MAXBACKTRACE, the room kept on the stack). */
#define RT_MAXBACKTRACE 64

static int rt_frames_max(void)
{
	return clamp_t(int, rt_script.maxbacktrace, 1, RT_MAXBACKTRACE);
}

static int rt_callchain(struct rt_context *c, unsigned long *addrs, int max)
{
	struct rt_cpu *cpu = rt_cpu_of(c);
	struct pt_regs *regs = cpu->c.regs;
	struct unwind_state state;
	bool own_regs = regs && cpu->probe && cpu->probe->kind != RT_TRACEPOINT &&
			cpu->probe->kind != RT_SYSCALL && cpu->probe->kind != RT_SYSCALL_RETURN;
	int n = 0;

	if (own_regs && user_mode(regs))
		return 0;
	if (own_regs) {
		/* An entry or statement probe's own address: a kprobe's handler
		 * sees the address after its breakpoint, ftrace's after its call. */
		addrs[n++] = cpu->probe->kind == RT_KPROBE ? (unsigned long)rt_probe_addr(cpu->probe)
							   : instruction_pointer(regs);
		unwind_start(&state, current, regs, NULL);
	} else {
		unwind_start(&state, current, NULL, (unsigned long *)c->stack_base);
	}
	for (; !unwind_done(&state) && n < max; unwind_next_frame(&state)) {
		unsigned long addr = unwind_get_return_address(&state);

		if (!addr)
			break;
		if (!own_regs && within_module(addr, THIS_MODULE))
			continue;
		addrs[n++] = addr;
	}
	return n;
}

/* sym: "name+0xoff/0xsize [module]", with [kernel] for the kernel's. */
static void rt_name_addr(struct rt_cpu *cpu, unsigned long addr, bool with_offset)
{
	char *sym = cpu->sym;
	char *mod;

	if (with_offset)
		sprint_symbol(sym, addr);
	else
		sprint_symbol_no_offset(sym, addr);
	/* kallsyms gives the bare address when it knows no symbol there. */
	if (sym[0] == '0' && sym[1] == 'x') {
		sym[0] = 0;
		return;
	}
	mod = strchr(sym, ' ');
	if (!with_offset && mod)
		*mod = 0;
	else if (with_offset && !mod)
		strlcat(sym, " [kernel]", RT_SYM_LEN);
}

void rt_symname(struct rt_context *c, char *buf, rt_size size, rt_long addr)
{
	struct rt_cpu *cpu = rt_cpu_of(c);

	rt_name_addr(cpu, (unsigned long)addr, false);
	strscpy(buf, cpu->sym, size);
}

void rt_symdata(struct rt_context *c, char *buf, rt_size size, rt_long addr)
{
	struct rt_cpu *cpu = rt_cpu_of(c);

	rt_name_addr(cpu, (unsigned long)addr, true);
	strscpy(buf, cpu->sym, size);
}

/* addrs as backtrace() gives them: hex, separated by spaces, whole ones only. */
static void rt_hex_chain(char *buf, rt_size size, const unsigned long *addrs, int n)
{
	rt_size len = 0;
	int i;

	buf[0] = 0;
	for (i = 0; i < n && len + 20 < size; i++)
		len += scnprintf(buf + len, size - len, "%s0x%lx", i ? " " : "", addrs[i]);
}

void rt_backtrace(struct rt_context *c, char *buf, rt_size size)
{
	unsigned long addrs[RT_MAXBACKTRACE];

	rt_hex_chain(buf, size, addrs, rt_callchain(c, addrs, rt_frames_max()));
}

/*
 * task_backtrace(task): another task's kernel stack, as backtrace() gives
 * the hit's. The pointer comes from the script: only a task that is
 * alive now (found again by its pid) is read, by the kernel's own walker
 * (which holds the stack while it reads); a task running on another CPU
 * at that moment gives whatever its stack held.
 */
void rt_task_backtrace(struct rt_context *c, char *buf, rt_size size, rt_long task,
		       const char *what, const char *loc)
{
	unsigned long addrs[RT_MAXBACKTRACE];
	struct task_struct *t = (struct task_struct *)(unsigned long)task;
	unsigned int n = 0;
	pid_t pid;

	buf[0] = 0;
	if (in_nmi()) {
		rt_failf(c, loc, NULL, "%s: another task's stack cannot be read in an NMI", what);
		return;
	}
	if (copy_from_kernel_nofault(&pid, &t->pid, sizeof(pid))) {
		rt_failf(c, loc, NULL, "%s: 0x%llx is not a task", what, (unsigned long long)task);
		return;
	}
	rcu_read_lock();
	if (pid > 0 && pid_task(find_pid_ns(pid, &init_pid_ns), PIDTYPE_PID) == t)
		n = rt_stack_trace_save_tsk(t, addrs, rt_frames_max());
	else
		pid = 0;
	rcu_read_unlock();
	if (n == (unsigned int)-1) {
		rt_failf(c, loc, NULL, "%s: this kernel does not let modules read another task's stack safely (stack_trace_save_tsk is not exported)",
			 what);
		return;
	}
	if (!pid) {
		rt_failf(c, loc, NULL, "%s: 0x%llx is not a live task", what, (unsigned long long)task);
		return;
	}
	rt_hex_chain(buf, size, addrs, (int)n);
}

/* A kernel-line token for addr (contract/ustack-records.h). */
static void rt_k_token(char *buf, rt_size size, char kind, unsigned long addr, int flags)
{
	if (size > RT_US_TOKEN_LEN)
		snprintf(buf, RT_US_TOKEN_LEN + 1, "%c%c%016lx%02x00", RT_US_MARK, kind, addr, flags);
	else if (size)
		buf[0] = 0;
}

void rt_symfileline(struct rt_context *c, char *buf, rt_size size, rt_long addr)
{
	rt_k_token(buf, size, RT_K_FILELINE, (unsigned long)addr, 0);
}

void rt_symfile(struct rt_context *c, char *buf, rt_size size, rt_long addr)
{
	rt_k_token(buf, size, RT_K_FILE, (unsigned long)addr, 0);
}

void rt_symline(struct rt_context *c, char *buf, rt_size size, rt_long addr)
{
	rt_k_token(buf, size, RT_K_LINE, (unsigned long)addr, 0);
}

/* One line per address, as SystemTap prints them, into buf or the output;
 * with lines, " at file:line" after the symbol (a token for staprun). The
 * first address is the probed code's own; the others are return addresses. */
static void rt_stack_lines(struct rt_context *c, const unsigned long *addrs, int n, char *buf,
			   rt_size size, bool lines)
{
	struct rt_cpu *cpu = rt_cpu_of(c);
	rt_size len = 0;
	int i;

	if (buf)
		buf[0] = 0;
	for (i = 0; i < n; i++) {
		rt_name_addr(cpu, addrs[i], true);
		if (buf)
			len += scnprintf(buf + len, size - len, " 0x%lx : %s\n", addrs[i],
					 cpu->sym[0] ? cpu->sym : "?");
		else {
			char head[32], tok[RT_US_TOKEN_LEN + 1];
			char *mod = strchr(cpu->sym, ' ');

			scnprintf(head, sizeof(head), " 0x%lx : ", addrs[i]);
			rt_print_str(c, head);
			if (mod)
				*mod = 0;
			rt_print_str(c, cpu->sym[0] ? cpu->sym : "?");
			if (lines) {
				rt_k_token(tok, sizeof(tok), RT_K_AT, addrs[i], i ? RT_K_RETURN : 0);
				rt_print_str(c, tok);
			}
			if (mod) {
				*mod = ' ';
				rt_print_str(c, mod);
			}
			rt_print_str(c, "\n");
		}
	}
}

void rt_print_backtrace(struct rt_context *c)
{
	unsigned long addrs[RT_MAXBACKTRACE];

	rt_stack_lines(c, addrs, rt_callchain(c, addrs, rt_frames_max()), NULL, 0, false);
}

void rt_print_backtrace_fileline(struct rt_context *c)
{
	unsigned long addrs[RT_MAXBACKTRACE];

	rt_stack_lines(c, addrs, rt_callchain(c, addrs, rt_frames_max()), NULL, 0, true);
}

void rt_sprint_backtrace(struct rt_context *c, char *buf, rt_size size)
{
	unsigned long addrs[RT_MAXBACKTRACE];

	rt_stack_lines(c, addrs, rt_callchain(c, addrs, rt_frames_max()), buf, size, false);
}

void rt_print_stack(struct rt_context *c, const char *text)
{
	unsigned long addrs[RT_MAXBACKTRACE];
	int n = 0;

	while (*text && n < rt_frames_max()) {
		char *end;

		addrs[n] = simple_strtoul(text, &end, 16);
		if (end == text)
			break;
		n++;
		text = end;
		while (*text == ' ')
			text++;
	}
	rt_stack_lines(c, addrs, n, NULL, 0, false);
}

/* The deepest .callees(N) the runtime checks: the translator refuses more. */
#define RT_MAXCALLEE_DEPTH 8

/*
 * The return addresses come from the kernel's unwinder, started at the
 * hit's registers (which it steps past at once, to the probed function's
 * caller): it also sees through a return probe's trampoline, which a
 * kretprobe on the same function leaves on top of the stack instead.
 */
bool rt_called_through(const struct rt_probe *p, struct pt_regs *regs)
{
	unsigned long frames[RT_MAXCALLEE_DEPTH];
	struct unwind_state state;
	int depth = p->callers_depth, n, row, k;

	if (!regs || user_mode(regs) || depth < 1 || depth > RT_MAXCALLEE_DEPTH)
		return false;
	unwind_start(&state, current, regs, NULL);
	for (n = 0; n < depth; n++, unwind_next_frame(&state)) {
		if (unwind_done(&state))
			return false;
		frames[n] = unwind_get_return_address(&state);
		if (!frames[n])
			return false;
	}
	for (row = 0; row < p->ncallers; row++) {
		const rt_size *want = p->callers + (rt_size)row * depth;

		for (k = 0; k < depth; k++)
			if (READ_ONCE(rt_script.statics[want[k]].addr) != frames[k])
				break;
		if (k == depth)
			return true;
	}
	return false;
}
