// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * kprobes and kretprobes, by symbol (or a module's "MODULE:SYMBOL") and
 * offset: the entry probes ftrace did not take, and return probes where
 * there is no fprobe. Counts of missed hits (reentrancy, kretprobe
 * instances exhausted) become warnings that name the limit to raise.
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

static notrace int rt_kprobe_pre(struct kprobe *kp, struct pt_regs *regs)
{
	struct rt_placed *pl = container_of(kp, struct rt_placed, kp);

	if (pl->p->ncallers && !rt_called_through(pl->p, regs))
		return 0;
	rt_run_probe(pl->p, regs);
	return 0;
}

static notrace int rt_kretprobe_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct kretprobe *krp = rt_get_kretprobe(ri);
	const struct rt_probe *p;

	if (krp) {
		p = container_of(krp, struct rt_placed, krp)->p;
		rt_run_hit(p, p->handler, regs, p->entry ? ri->data : NULL);
	}
	return 0;
}

/* A return probe's entry part: saves this call's values in ri->data. If
 * it did not run (a busy CPU, a lock) or failed, the kernel is told to
 * skip the return for this call: its body would read nothing valid. */
static notrace int rt_kretprobe_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct kretprobe *krp = rt_get_kretprobe(ri);
	const struct rt_probe *p;

	if (!krp)
		return 1;
	p = container_of(krp, struct rt_placed, krp)->p;
	if (p->ncallers && !rt_called_through(p, regs))
		return 1;
	if (!p->entry)
		return 0;
	if (p->entry_regs && regs) {
		p->entry_regs(regs, (char *)ri->data);
		return 0;
	}
	return rt_run_hit(p, p->entry, regs, ri->data) ? 1 : 0;
}

/*
 * Where a probe by symbol goes: the kernel resolves "SYMBOL" or
 * "MODULE:SYMBOL" plus a non-negative offset itself. A negative offset (a
 * function before the only unique symbol of its section) needs the
 * symbol's address first: a disabled kprobe on it tells.
 */
static int rt_locate(struct rt_placed *pl, struct kprobe *kp)
{
	const struct rt_probe *p = pl->p;
	struct kprobe probe = { 0 };
	unsigned long addr;
	int rc;

	if (p->module && !pl->name) {
		pl->name = kasprintf(GFP_KERNEL, "%s:%s", p->module, p->symbol);
		if (!pl->name)
			return -ENOMEM;
	}
	if (p->offset >= 0) {
		kp->symbol_name = pl->name ? pl->name : p->symbol;
		kp->offset = (unsigned int)p->offset;
		return 0;
	}
	probe.symbol_name = pl->name ? pl->name : p->symbol;
	probe.flags = KPROBE_FLAG_DISABLED;
	rc = register_kprobe(&probe);
	if (rc)
		return rc;
	addr = (unsigned long)probe.addr;
	unregister_kprobe(&probe);
	kp->addr = (kprobe_opcode_t *)(addr + p->offset);
	return 0;
}

int rt_maxactive(const struct rt_probe *p)
{
	if (p->maxactive > 0)
		return (int)p->maxactive;
	if (rt_script.maxactive > 0)
		return (int)rt_script.maxactive;
	/* The kernel's default (about 10 here) loses returns under load. */
	return max_t(int, 20, 4 * num_possible_cpus());
}

void rt_kprobe_report_missed(const struct rt_placed *pl)
{
	if (pl->p->kind == RT_KPROBE && !pl->via_ftrace && pl->kp.nmissed)
		rt_message("warning", "%lu hits of %s were missed (the kernel was already in a kprobe)",
			   pl->kp.nmissed, pl->p->pp);
	if (pl->p->kind == RT_KRETPROBE && pl->krp.nmissed && pl->p->maxactive > 0)
		rt_message("warning",
			   "%d returns of %s were missed: more than maxactive(%d) calls were in flight; raise it in the probe point, .return.maxactive(N)",
			   pl->krp.nmissed, pl->p->pp, pl->krp.maxactive);
	else if (pl->p->kind == RT_KRETPROBE && pl->krp.nmissed)
		rt_message("warning",
			   "%d returns of %s were missed: more than MAXACTIVE = %d calls were in flight; raise it with -D MAXACTIVE=N",
			   pl->krp.nmissed, pl->p->pp, pl->krp.maxactive);
	if (pl->p->kind == RT_KRETPROBE && pl->krp.kp.nmissed)
		rt_message("warning", "%lu calls of %s were missed (the kernel was already in a kprobe)",
			   pl->krp.kp.nmissed, pl->p->pp);
}

void rt_kprobe_unplace(struct rt_placed *pl)
{
	rt_kprobe_report_missed(pl);
	if (pl->p->kind == RT_KPROBE)
		unregister_kprobe(&pl->kp);
	else if (pl->p->kind == RT_KRETPROBE)
		unregister_kretprobe(&pl->krp);
	/* A kprobe can be registered again only from a clean state. */
	if (pl->p->kind == RT_KPROBE)
		memset(&pl->kp, 0, sizeof(pl->kp));
	else
		memset(&pl->krp, 0, sizeof(pl->krp));
}

int rt_kprobe_place(struct rt_placed *pl)
{
	int rc = rt_locate(pl, &pl->kp);

	if (rc)
		return rc;
	pl->kp.pre_handler = rt_kprobe_pre;
	return register_kprobe(&pl->kp);
}

int rt_kretprobe_place(struct rt_placed *pl)
{
	const struct rt_probe *p = pl->p;
	int rc = rt_locate(pl, &pl->krp.kp);

	if (rc)
		return rc;
	pl->krp.handler = rt_kretprobe_ret;
	if (p->entry || p->ncallers) {
		pl->krp.entry_handler = rt_kretprobe_entry;
		pl->krp.data_size = p->entry_size;
	}
	pl->krp.maxactive = rt_maxactive(pl->p);
	return register_kretprobe(&pl->krp);
}
