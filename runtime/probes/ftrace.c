// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Function entries through ftrace: one ftrace_ops callback shared by every
 * entry probe whose function's address the translator knew (where the
 * kernel has the API), sorted by address; the others take kprobes.
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

#if RT_FTRACE_ENTRY
/*
 * The entry probes one ftrace_ops calls, sorted by address (several may
 * share one). Two of them: one for probes that read no registers, and one
 * that has ftrace save them (FTRACE_OPS_FL_SAVE_REGS) for probes that
 * read arguments, as a kprobe on the same ftrace site would get them.
 */
struct rt_fentry_set {
	struct ftrace_ops ops;
	struct rt_fentry *v;
	int n;
	bool registered;
};
static struct rt_fentry_set rt_fentry_plain, rt_fentry_regs;

static __always_inline void rt_fentry_run(const struct rt_fentry_set *set, unsigned long ip,
					  struct pt_regs *regs)
{
	int k;
	unsigned long at;

	/* Hits where RCU is not watching (idle, entry code) are skipped
	 * (rt_run_hit_ftrace): the runtime's own calls may need it. */
	if (set->n == 1) {
		/* Its filter holds one address: every call is for this probe
		 * (the search and its loops cost a hit about 25 instructions). */
		rt_run_hit_ftrace(set->v[0].pl->p, set->v[0].pl->p->handler, regs, NULL);
		return;
	}
	k = rt_fentry_at(set->v, set->n, ip);
	if (k < 0)
		return;
	at = set->v[k].ip;
	while (k > 0 && set->v[k - 1].ip == at)
		k--;
	for (; k < set->n && set->v[k].ip == at; k++)
		rt_run_hit_ftrace(set->v[k].pl->p, set->v[k].pl->p->handler, regs, NULL);
}

static notrace RT_FTRACE_CALLBACK(rt_ftrace_hit)
{
	rt_fentry_run(&rt_fentry_plain, ip, NULL);
}

static notrace RT_FTRACE_CALLBACK(rt_ftrace_hit_regs)
{
	struct pt_regs *regs = ftrace_get_regs(fregs);

	/* (Always there with SAVE_REGS; a hit without them reads nothing.) */
	if (likely(regs))
		rt_fentry_run(&rt_fentry_regs, ip, regs);
}

int rt_fentry_cmp(const void *a, const void *b)
{
	const struct rt_fentry *x = a, *y = b;

	return x->ip < y->ip ? -1 : x->ip > y->ip;
}

/* Where the function of p starts in this kernel, or 0 if that is not certain. */
unsigned long rt_entry_address(const struct rt_probe *p)
{
	char sym[KSYM_SYMBOL_LEN];
	unsigned long text, ip;

	if (!rt_script.printk_offset || !p->text_offset)
		return 0;
	text = (unsigned long)&_printk - rt_script.printk_offset;
	ip = text + p->text_offset;
	sprint_symbol(sym, ip);
	return strstr(sym, "+0x0/") ? ip : 0;
}

/*
 * Put every entry probe whose address is known and that reads registers
 * (or not, as with_regs says) into set's filter and register it once; the
 * others (and any ftrace refuses) stay for kprobes.
 */
static void rt_place_fentry_set(struct rt_fentry_set *set, bool with_regs)
{
	unsigned long *ips;
	int i, n = 0, placed = 0;

	set->v = kvcalloc(rt_script.nprobes, sizeof(*set->v), GFP_KERNEL | __GFP_NOWARN);
	ips = kvcalloc(rt_script.nprobes, sizeof(*ips), GFP_KERNEL | __GFP_NOWARN);
	if (!set->v || !ips)
		goto out;
	for (i = 0; i < rt_script.nprobes; i++) {
		struct rt_placed *pl = &rt_placed[i];
		unsigned long ip;

		if (pl->p->kind != RT_KPROBE || !!pl->p->needs_regs != with_regs || pl->p->module ||
		    pl->p->offset || pl->registered)
			continue;
		ip = rt_entry_address(pl->p);
		if (ip)
			set->v[n++] = (struct rt_fentry){ ip, pl };
	}
	if (!n)
		goto out;
	sort(set->v, n, sizeof(*set->v), rt_fentry_cmp, NULL);
	set->ops.func = with_regs ? rt_ftrace_hit_regs : rt_ftrace_hit;
	/* No FTRACE_OPS_FL_RECURSION: ftrace would then call through its
	 * assist function; the runtime skips nested hits itself. */
	set->ops.flags = with_regs ? FTRACE_OPS_FL_SAVE_REGS : 0;
	for (i = 0; i < n; i++)
		ips[i] = set->v[i].ip;
	if (rt_ftrace_filter_ips(&set->ops, ips, n) == 0) {
		placed = n;
	} else {
		/* One address ftrace does not know fails the batch: go one by one. */
		ftrace_free_filter(&set->ops);
		for (i = 0; i < n; i++)
			if (ftrace_set_filter_ip(&set->ops, set->v[i].ip, 0, 0) == 0)
				set->v[placed++] = set->v[i];
	}
	/* Hits may come as soon as the ops are registered: addr() knows where. */
	for (i = 0; i < placed; i++)
		set->v[i].pl->addr = set->v[i].ip;
	set->n = placed;
	if (placed && register_ftrace_function(&set->ops) != 0)
		placed = 0;
	if (!placed) {
		set->n = 0;
		ftrace_free_filter(&set->ops);
		goto out;
	}
	set->registered = true;
	for (i = 0; i < placed; i++) {
		set->v[i].pl->via_ftrace = true;
		set->v[i].pl->registered = true;
	}
out:
	kvfree(ips);
	if (!set->registered) {
		kvfree(set->v);
		set->v = NULL;
	}
}

static void rt_remove_fentry_set(struct rt_fentry_set *set)
{
	if (set->registered) {
		unregister_ftrace_function(&set->ops);
		ftrace_free_filter(&set->ops);
		set->registered = false;
	}
	set->n = 0;
	kvfree(set->v);
	set->v = NULL;
}

void rt_ftrace_place_all(void)
{
	rt_place_fentry_set(&rt_fentry_plain, false);
	rt_place_fentry_set(&rt_fentry_regs, true);
}

void rt_ftrace_remove_all(void)
{
	rt_remove_fentry_set(&rt_fentry_plain);
	rt_remove_fentry_set(&rt_fentry_regs);
}

/* At most: every probe in one set, with its address for the filter. */
size_t rt_ftrace_bytes(void)
{
	return rt_script.nprobes * (sizeof(struct rt_fentry) + sizeof(unsigned long));
}
#else
void rt_ftrace_place_all(void)
{
}

void rt_ftrace_remove_all(void)
{
}

size_t rt_ftrace_bytes(void)
{
	return 0;
}

unsigned long rt_entry_address(const struct rt_probe *p)
{
	return 0;
}
#endif
