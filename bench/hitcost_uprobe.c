// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The reference for bench/uprobe-hitcost: a uprobe with an empty handler
 * on one file (path=) at one file offset (offset=), or with ret=1 a
 * uretprobe with an empty return handler: what the uprobe mechanism alone
 * costs per hit. The kernel's uprobe API changed in 6.12; the bench script
 * passes -DHC_UPROBE_NOSYNC when the kernel exports uprobe_unregister_nosync.
 */
#include <linux/err.h>
#include <linux/module.h>
#include <linux/namei.h>
#include <linux/uprobes.h>

static char *path = "";
module_param(path, charp, 0444);
static unsigned long offset;
module_param(offset, ulong, 0444);
static bool ret;
module_param(ret, bool, 0444);

/* lean=1: instead of an empty handler, the least a safe runtime does per
 * hit of the marker row, written by hand: the running-state check,
 * interrupts off, a per-CPU reentrancy guard, the time taken for the
 * overload check, a statement budget, both marker operands read from the
 * registers, one global updated under its write lock, the overload sum.
 * lean=2 adds what a runtime whose bodies are compiled apart from it must
 * also do (design.md: generated C includes no kernel header): the body is
 * called through a pointer, with a context holding the probe, the
 * registers, the error and the budget, and the error and output are
 * checked after it; and the -c/-x filter. */
static int lean;
module_param(lean, int, 0444);
static unsigned long hits;
module_param(hits, ulong, 0444);

static atomic_t hc_state = ATOMIC_INIT(1), hc_lock;
struct hc_cpu {
	int busy;
	long actions;
	u64 start, used;
};
static DEFINE_PER_CPU(struct hc_cpu, hc_cpu);

static noinline void hc_lean_body(struct pt_regs *regs, struct hc_cpu *cpu)
{
	if (--cpu->actions < 0)
		return;
	if ((long)regs->ax >= 0 && (long)regs->bx >= 0) {
		if (atomic_cmpxchg_acquire(&hc_lock, 0, -1) != 0)
			return;
		hits++;
		atomic_set_release(&hc_lock, 0);
	}
}

struct hc_context {
	const char *error;
	struct pt_regs *regs;
	long actions;
	const void *probe;
	size_t out_len;
};
static DEFINE_PER_CPU(struct hc_context, hc_context);
static int hc_target;
static long hc_errors, hc_outputs;

static noinline int hc_lean2_body(struct hc_context *c)
{
	if (--c->actions < 0)
		return 1;
	if ((long)c->regs->ax >= 0 && (long)c->regs->bx >= 0) {
		if (atomic_cmpxchg_acquire(&hc_lock, 0, -1) != 0)
			return 1;
		hits++;
		atomic_set_release(&hc_lock, 0);
	}
	return 0;
}

/* Written at load: gcc must not see which body it calls. */
static int (*hc_body)(struct hc_context *c) = hc_lean2_body;

static struct path hc_path;
static struct inode *hc_inode;
#ifdef HC_UPROBE_NOSYNC
static struct uprobe *hc_uprobe;
#endif

static int hc_handler(struct uprobe_consumer *uc, struct pt_regs *regs)
{
	return 0;
}

/* The overload sum, then the CPU is free again (inline: both lean rows
 * measure it as written here). */
static __always_inline void hc_hit_end(struct hc_cpu *cpu)
{
	cpu->used += get_cycles() - cpu->start;
	if (cpu->used > (1ULL << 62))
		atomic_set(&hc_state, 0);
	barrier();
	cpu->busy = 0;
}

static int hc_lean_handler(struct uprobe_consumer *uc, struct pt_regs *regs)
{
	unsigned long flags;
	struct hc_cpu *cpu;

	if (atomic_read(&hc_state) != 1)
		return 0;
	local_irq_save(flags);
	cpu = this_cpu_ptr(&hc_cpu);
	if (!cpu->busy) {
		cpu->busy = 1;
		cpu->start = get_cycles();
		cpu->actions = 1000;
		hc_lean_body(regs, cpu);
		hc_hit_end(cpu);
	}
	local_irq_restore(flags);
	return 0;
}

static int hc_lean2_handler(struct uprobe_consumer *uc, struct pt_regs *regs)
{
	unsigned long flags;
	struct hc_cpu *cpu;
	struct hc_context *c;

	if (atomic_read(&hc_state) != 1)
		return 0;
	if (READ_ONCE(hc_target) && current->tgid != hc_target)
		return 0;
	local_irq_save(flags);
	cpu = this_cpu_ptr(&hc_cpu);
	if (!cpu->busy) {
		cpu->busy = 1;
		c = this_cpu_ptr(&hc_context);
		c->probe = uc;
		c->regs = regs;
		c->error = NULL;
		c->actions = 1000;
		cpu->start = get_cycles();
		hc_body(c);
		if (unlikely(c->error))
			hc_errors++;
		if (c->out_len)
			hc_outputs++;
		hc_hit_end(cpu);
	}
	local_irq_restore(flags);
	return 0;
}

static int hc_ret_handler(struct uprobe_consumer *uc, unsigned long func, struct pt_regs *regs)
{
	return 0;
}

static struct uprobe_consumer hc_uc;

static int __init hc_init(void)
{
	int rc = kern_path(path, LOOKUP_FOLLOW, &hc_path);

	if (rc)
		return rc;
	hc_inode = d_real_inode(hc_path.dentry);
	if (ret)
		hc_uc.ret_handler = hc_ret_handler;
	else
		hc_uc.handler = lean == 2 ? hc_lean2_handler : lean ? hc_lean_handler : hc_handler;
#ifdef HC_UPROBE_NOSYNC
	hc_uprobe = uprobe_register(hc_inode, offset, 0, &hc_uc);
	rc = IS_ERR(hc_uprobe) ? PTR_ERR(hc_uprobe) : 0;
#else
	rc = uprobe_register(hc_inode, offset, &hc_uc);
#endif
	if (rc)
		path_put(&hc_path);
	return rc;
}

static void __exit hc_exit(void)
{
#ifdef HC_UPROBE_NOSYNC
	uprobe_unregister_nosync(hc_uprobe, &hc_uc);
	uprobe_unregister_sync();
#else
	uprobe_unregister(hc_inode, offset, &hc_uc);
#endif
	path_put(&hc_path);
}

module_init(hc_init);
module_exit(hc_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("an empty uprobe or uretprobe, the floor of bench/uprobe-hitcost");
