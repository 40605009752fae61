/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Kernel differences, decided by feature probes instead of version numbers.
 * Each file in compat/probes/ is compiled against the target's kbuild when
 * the stub is built; features.h (generated there) defines RT_HAVE_<NAME>
 * for each one that compiled. This header then offers the newest API, so
 * the rest of the runtime is written against one interface.
 *
 * This folder is the only place in the tree where kernel API differences may
 * be tested (testsuite/run-tests checks that).
 */
#ifndef TAPLINE_COMPAT_H
#define TAPLINE_COMPAT_H

#include <linux/ftrace.h>
#include <linux/hrtimer.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/proc_fs.h>
#include <linux/sched.h>
#include <linux/stacktrace.h>

#include "features.h"

/* proc_ops replaced file_operations for /proc files (probe: proc_ops.c). */
#ifdef RT_HAVE_PROC_OPS
#define RT_PROC_OPS(name, open_fn, read_fn, write_fn, llseek_fn, release_fn, poll_fn) \
	static const struct proc_ops name = {                                        \
		.proc_open = open_fn,                                                \
		.proc_read = read_fn,                                                \
		.proc_write = write_fn,                                              \
		.proc_lseek = llseek_fn,                                             \
		.proc_release = release_fn,                                          \
		.proc_poll = poll_fn,                                                \
	}
#else
#define RT_PROC_OPS(name, open_fn, read_fn, write_fn, llseek_fn, release_fn, poll_fn) \
	static const struct file_operations name = {                                 \
		.owner = THIS_MODULE,                                                \
		.open = open_fn,                                                     \
		.read = read_fn,                                                     \
		.write = write_fn,                                                   \
		.llseek = llseek_fn,                                                 \
		.release = release_fn,                                               \
		.poll = poll_fn,                                                     \
	}
#endif

/* hrtimer_setup() replaced hrtimer_init() + setting .function (probe: hrtimer_setup.c). */
static inline void rt_hrtimer_setup(struct hrtimer *t,
				    enum hrtimer_restart (*fn)(struct hrtimer *), clockid_t clock,
				    enum hrtimer_mode mode)
{
#ifdef RT_HAVE_HRTIMER_SETUP
	hrtimer_setup(t, fn, clock, mode);
#else
	hrtimer_init(t, clock, mode);
	t->function = fn;
#endif
}

/* A module's read-only data, where its build-id note is: mod->mem[]
 * replaced core_layout (probe: module_mem.c). */
static inline void rt_module_rodata(struct module *m, const char **base, size_t *size)
{
#ifdef RT_HAVE_MODULE_MEM
	*base = m->mem[MOD_RODATA].base;
	*size = m->mem[MOD_RODATA].size;
#else
	*base = (const char *)m->core_layout.base + m->core_layout.text_size;
	*size = m->core_layout.ro_size - m->core_layout.text_size;
#endif
}

/* Another task's kernel stack into store (at most size entries); -1
 * where the kernel does not export its walker (probe:
 * stack_trace_save_tsk.c). */
static inline unsigned int rt_stack_trace_save_tsk(struct task_struct *t, unsigned long *store,
						   unsigned int size)
{
#ifdef RT_HAVE_STACK_TRACE_SAVE_TSK
	return stack_trace_save_tsk(t, store, size, 0);
#else
	return (unsigned int)-1;
#endif
}

/* The bytes of module m's code, and of its data (read-only included). */
static inline void rt_module_sizes(struct module *m, size_t *text, size_t *data)
{
#ifdef RT_HAVE_MODULE_MEM
	*text = m->mem[MOD_TEXT].size;
	*data = m->mem[MOD_DATA].size + m->mem[MOD_RODATA].size + m->mem[MOD_RO_AFTER_INIT].size;
#else
	*text = m->core_layout.text_size;
	*data = m->core_layout.size - m->core_layout.text_size;
#endif
}

/* The address of module m's symbol name from the module's own symbol
 * table (probe: module_kallsyms.c); 0 if it has none by that name, or the
 * table cannot be read. Call with preemption disabled. */
static inline unsigned long rt_module_symbol(struct module *m, const char *name)
{
#ifdef RT_HAVE_MODULE_KALLSYMS
	struct mod_kallsyms *ks = rcu_dereference_sched(m->kallsyms);
	unsigned int i;

	for (i = 0; ks && i < ks->num_symtab; i++)
		if (ks->symtab[i].st_shndx != SHN_UNDEF &&
		    !strcmp(ks->strtab + ks->symtab[i].st_name, name))
			return ks->symtab[i].st_value;
#endif
	return 0;
}

/*
 * The loaded module named name, or NULL; call with preemption disabled
 * and use it only until it is enabled again. The kernel exports no
 * lookup, so the module list is walked from this module's own entry: its
 * head is the one entry outside the modules area (x86-64's
 * MODULES_VADDR..MODULES_END), where every struct module lives.
 */
static inline struct module *rt_find_module(const char *name)
{
	struct module *m;

	list_for_each_entry_rcu(m, &THIS_MODULE->list, list) {
		unsigned long at = (unsigned long)m;

		if (at < MODULES_VADDR || at >= MODULES_END || m->state == MODULE_STATE_UNFORMED)
			continue;
		if (!strcmp(m->name, name))
			return m;
	}
	return NULL;
}

/* get_kretprobe() replaced ri->rp (probe: get_kretprobe.c). */
static inline struct kretprobe *rt_get_kretprobe(struct kretprobe_instance *ri)
{
#ifdef RT_HAVE_GET_KRETPROBE
	return get_kretprobe(ri);
#else
	return ri->rp;
#endif
}

/*
 * Function entries through an ftrace_ops callback (probe: ftrace_regs.c):
 * cheaper than a kprobe, which goes through ftrace too and then looks
 * itself up. Without it the runtime places kprobes instead.
 */
#ifdef RT_HAVE_FTRACE_REGS
#define RT_FTRACE_ENTRY 1
#define RT_FTRACE_CALLBACK(name)                                                          \
	void name(unsigned long ip, unsigned long parent_ip, struct ftrace_ops *op,       \
		  struct ftrace_regs *fregs)

/* Add n addresses to an ftrace_ops filter (probe: ftrace_set_filter_ips.c). */
static inline int rt_ftrace_filter_ips(struct ftrace_ops *ops, unsigned long *ips, unsigned int n)
{
#ifdef RT_HAVE_FTRACE_SET_FILTER_IPS
	return ftrace_set_filter_ips(ops, ips, n, 0, 0);
#else
	unsigned int i;
	int rc = 0;

	for (i = 0; i < n && !rc; i++)
		rc = ftrace_set_filter_ip(ops, ips[i], 0, 0);
	return rc;
#endif
}
#else
#define RT_FTRACE_ENTRY 0
#endif

/*
 * Does RCU watch this CPU? Asked with preemption off (interrupts off in a
 * hit): the context-tracking state read inline where the kernel offers it
 * (probes: rcu_is_watching_curr_cpu.c, 6.12; rcu_dynticks_curr_cpu_in_eqs.c,
 * 6.1), else rcu_is_watching(), a call that costs a hit on ftrace about 30
 * instructions.
 */
#if defined(RT_HAVE_RCU_IS_WATCHING_CURR_CPU)
#include <linux/context_tracking.h>
#define rt_rcu_watching() rcu_is_watching_curr_cpu()
#elif defined(RT_HAVE_RCU_DYNTICKS_CURR_CPU_IN_EQS)
#include <linux/context_tracking.h>
#define rt_rcu_watching() (!rcu_dynticks_curr_cpu_in_eqs())
#else
#define rt_rcu_watching() rcu_is_watching()
#endif

/*
 * Return probes through one fprobe (probe: fprobe.c): its exit handler
 * runs from ftrace's return hook, with no kretprobe (and no kprobe) per
 * function. Without it, every return probe is a kretprobe.
 */
#ifdef RT_HAVE_FPROBE
#include <linux/fprobe.h>
#define RT_FPROBE_RETURN 1
#define RT_FPROBE_ENTRY(name)                                                             	int name(struct fprobe *fp, unsigned long entry_ip, unsigned long ret_ip,        		 struct pt_regs *regs, void *entry_data)
#define RT_FPROBE_EXIT(name)                                                              	void name(struct fprobe *fp, unsigned long entry_ip, unsigned long ret_ip,       		  struct pt_regs *regs, void *entry_data)
#else
#define RT_FPROBE_RETURN 0
#endif

/*
 * uprobes (probes: uprobes_refctr.c, the 6.1 API; uprobes_nosync.c, 6.12
 * and later; uprobe_handler_data.c, handlers with a data argument, 6.13).
 * rt_uprobe_register() places a consumer at a file offset of an inode,
 * with the kernel counting a marker's semaphore at ref (0: none);
 * rt_uprobe_unregister() removes it, and after any number of those
 * rt_uprobe_unregister_done() returns when none of their handlers runs.
 */
#if defined(RT_HAVE_UPROBES_NOSYNC) || defined(RT_HAVE_UPROBES_REFCTR)
#include <linux/err.h>
#include <linux/uprobes.h>
#define RT_UPROBES 1
#ifdef RT_HAVE_UPROBE_HANDLER_DATA
#define RT_UPROBE_HANDLER(name) int name(struct uprobe_consumer *uc, struct pt_regs *regs, __u64 *data)
#define RT_URETPROBE_HANDLER(name)                                                   \
	int name(struct uprobe_consumer *uc, unsigned long func, struct pt_regs *regs, __u64 *data)
#else
#define RT_UPROBE_HANDLER(name) int name(struct uprobe_consumer *uc, struct pt_regs *regs)
#define RT_URETPROBE_HANDLER(name)                                                   \
	int name(struct uprobe_consumer *uc, unsigned long func, struct pt_regs *regs)
#endif

static inline int rt_uprobe_register(struct inode *inode, loff_t off, loff_t ref,
				     struct uprobe_consumer *uc, void **handle)
{
#ifdef RT_HAVE_UPROBES_NOSYNC
	struct uprobe *u = uprobe_register(inode, off, ref, uc);

	if (IS_ERR(u))
		return PTR_ERR(u);
	*handle = u;
	return 0;
#else
	*handle = NULL;
	return uprobe_register_refctr(inode, off, ref, uc);
#endif
}

static inline void rt_uprobe_unregister(struct inode *inode, loff_t off,
					struct uprobe_consumer *uc, void *handle)
{
#ifdef RT_HAVE_UPROBES_NOSYNC
	uprobe_unregister_nosync(handle, uc);
#else
	uprobe_unregister(inode, off, uc);
#endif
}

static inline void rt_uprobe_unregister_done(void)
{
#ifdef RT_HAVE_UPROBES_NOSYNC
	uprobe_unregister_sync();
#endif
}
#else
#define RT_UPROBES 0
#endif

/*
 * A task's perf contexts, into ctx[] (room for two): one since 6.2, a
 * hardware and a software one before (probe: perf_one_task_context.c).
 * Under rcu_read_lock().
 */
#include <linux/perf_event.h>
#include <linux/sched.h>
static inline int rt_task_perf_contexts(struct task_struct *t, struct perf_event_context **ctx)
{
#ifdef RT_HAVE_PERF_ONE_TASK_CONTEXT
	ctx[0] = rcu_dereference(t->perf_event_ctxp);
	return 1;
#else
	ctx[0] = rcu_dereference(t->perf_event_ctxp[perf_hw_context]);
	ctx[1] = rcu_dereference(t->perf_event_ctxp[perf_sw_context]);
	return 2;
#endif
}

#endif
