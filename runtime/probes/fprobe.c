// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Function returns through one fprobe (6.12), for the functions whose
 * address is known; the others take kretprobes.
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

#if RT_FPROBE_RETURN && RT_FTRACE_ENTRY
/*
 * Return probes through one fprobe, for the functions whose address is
 * known and that have one return probe each (the rest are kretprobes):
 * no kretprobe, and no kprobe, per function. The entry handler records
 * the call's probe in the fprobe's per-call data (with what the probe's
 * entry part saves), the exit handler runs the body.
 */
static struct rt_fentry *rt_fexits;	/* sorted by address, one per function */
static int rt_nfexits;
static struct fprobe rt_fprobe;
static bool rt_fprobe_registered;
static struct ftrace_ops rt_fexit_check;

struct rt_fexit_call {
	const struct rt_probe *p;
	char data[];
};

/* The return probe of the function entry_ip (its ftrace site) is in. */
static const struct rt_probe *rt_fexit_probe(unsigned long entry_ip)
{
	int k = rt_fentry_at(rt_fexits, rt_nfexits, entry_ip);

	return k < 0 ? NULL : rt_fexits[k].pl->p;
}

/* Non-zero: no exit handler for this call (as a kretprobe's entry handler). */
static notrace RT_FPROBE_ENTRY(rt_fprobe_entry)
{
	struct rt_fexit_call *call = entry_data;
	const struct rt_probe *p;

	/* (fprobe calls its handlers with preemption off.) */
	if (unlikely(!rt_rcu_watching())) {
		rt_count_skip(&rt_run.skipped_unsafe);
		return 1;
	}
	p = rt_fexit_probe(entry_ip);
	if (!p)
		return 1;
	call->p = p;
	/* (Registers are always given here; without them the entry part
	 * runs as a hit, which fails cleanly.) */
	if (p->entry_regs && regs) {
		p->entry_regs(regs, call->data);
		return 0;
	}
	return p->entry && rt_run_hit(p, p->entry, regs, call->data) ? 1 : 0;
}

static notrace RT_FPROBE_EXIT(rt_fprobe_exit)
{
	struct rt_fexit_call *call = entry_data;
	const struct rt_probe *p = call->p;

	rt_run_hit(p, p->handler, regs, p->entry ? call->data : NULL);
}

/* The exit handler when no return probe has an entry part: the probe from
 * the function's address, and no entry handler at all (an indirect call
 * fewer per hit, through retpolines and return thunks). */
static notrace RT_FPROBE_EXIT(rt_fprobe_exit_only)
{
	const struct rt_probe *p;

	if (unlikely(!rt_rcu_watching())) {
		rt_count_skip(&rt_run.skipped_unsafe);
		return;
	}
	p = rt_fexit_probe(entry_ip);
	if (p)
		rt_run_hit(p, p->handler, regs, NULL);
}

void rt_fprobe_place_all(void)
{
	unsigned long *ips;
	size_t data = 0;
	int i, k, n = 0;

	rt_fexits = kvcalloc(rt_script.nprobes, sizeof(*rt_fexits), GFP_KERNEL | __GFP_NOWARN);
	ips = kvcalloc(rt_script.nprobes, sizeof(*ips), GFP_KERNEL | __GFP_NOWARN);
	if (!rt_fexits || !ips)
		goto out;
	for (i = 0; i < rt_script.nprobes; i++) {
		struct rt_placed *pl = &rt_placed[i];
		unsigned long ip;

		/* .maxactive(N) is a kretprobe's own pool: those stay kretprobes. */
		if (pl->p->kind != RT_KRETPROBE || pl->p->module || pl->p->offset ||
		    pl->p->maxactive > 0)
			continue;
		ip = rt_entry_address(pl->p);
		if (ip)
			rt_fexits[n++] = (struct rt_fentry){ ip, pl };
	}
	sort(rt_fexits, n, sizeof(*rt_fexits), rt_fentry_cmp, NULL);
	/* A call carries one probe: a function with two stays with kretprobes. */
	for (i = 0, k = 0; i < n;) {
		int j = i + 1;

		while (j < n && rt_fexits[j].ip == rt_fexits[i].ip)
			j++;
		if (j == i + 1)
			rt_fexits[k++] = rt_fexits[i];
		i = j;
	}
	n = k;
	/* One address ftrace does not take fails the whole registration:
	 * those are left to kretprobes, found through a filter of a scratch
	 * ops that is never registered. */
	for (i = 0, k = 0; i < n; i++)
		if (ftrace_set_filter_ip(&rt_fexit_check, rt_fexits[i].ip, 0, 0) == 0)
			rt_fexits[k++] = rt_fexits[i];
	ftrace_free_filter(&rt_fexit_check);
	n = k;
	if (!n)
		goto out;
	for (i = 0; i < n; i++) {
		ips[i] = rt_fexits[i].ip;
		data = max_t(size_t, data, rt_fexits[i].pl->p->entry ? rt_fexits[i].pl->p->entry_size : 0);
		/* Hits may come as soon as it is registered: addr() knows where. */
		rt_fexits[i].pl->addr = rt_fexits[i].ip;
	}
	rt_nfexits = n;
	for (i = 0; i < n && !rt_fexits[i].pl->p->entry; i++)
		;
	if (i < n) {
		rt_fprobe.entry_handler = rt_fprobe_entry;
		rt_fprobe.exit_handler = rt_fprobe_exit;
		rt_fprobe.entry_data_size = sizeof(struct rt_fexit_call) + data;
	} else {
		rt_fprobe.exit_handler = rt_fprobe_exit_only;
	}
	/* Calls in flight at once, all functions together: as many as their
	 * kretprobes would have had, up to 8192 (the kernel's default, two per
	 * CPU and function, loses returns of blocking calls at once). */
	rt_fprobe.nr_maxactive = (int)min_t(long, 8192, (long)n * rt_maxactive(rt_fexits[0].pl->p));
	if (register_fprobe_ips(&rt_fprobe, ips, n) != 0) {
		for (i = 0; i < n; i++)
			rt_fexits[i].pl->addr = 0;
		rt_nfexits = 0;
		memset(&rt_fprobe, 0, sizeof(rt_fprobe));
		goto out;
	}
	rt_fprobe_registered = true;
	for (i = 0; i < n; i++) {
		rt_fexits[i].pl->via_ftrace = true;
		rt_fexits[i].pl->registered = true;
	}
out:
	kvfree(ips);
	if (!rt_fprobe_registered) {
		kvfree(rt_fexits);
		rt_fexits = NULL;
	}
}

void rt_fprobe_remove_all(void)
{
	if (rt_fprobe_registered) {
		/* (Calls while it is being removed count as missed: not those.) */
		unsigned long missed = READ_ONCE(rt_fprobe.nmissed);

		unregister_fprobe(&rt_fprobe);
		if (missed)
			rt_message("warning",
				   "%lu calls of functions with return probes were missed: already in a probe, or more calls in flight than the kernel keeps room for; raise it with -D MAXACTIVE=N (per function)",
				   missed);
		memset(&rt_fprobe, 0, sizeof(rt_fprobe));
		rt_fprobe_registered = false;
	}
	rt_nfexits = 0;
	kvfree(rt_fexits);
	rt_fexits = NULL;
}
#else
void rt_fprobe_place_all(void)
{
}

void rt_fprobe_remove_all(void)
{
}
#endif
