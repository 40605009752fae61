// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * netfilter.hook: a hook in the initial network namespace, and the
 * verdict a guru-mode script may set.
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

/*
 * A netfilter hook: the handler sees the hook function's own arguments
 * (the translator's site for it is the kernel's nf_hookfn prototype: priv,
 * skb, state in rdi, rsi, rdx of stand-in registers) and the verdict
 * ($verdict, NF_ACCEPT unless a guru-mode script drops the packet).
 */
static notrace unsigned int rt_nf_hook(void *priv, struct sk_buff *skb,
				       const struct nf_hook_state *state)
{
	struct rt_placed *pl = priv;
	unsigned int verdict = NF_ACCEPT;
	struct pt_regs regs;

	memset(&regs, 0, sizeof(regs));
	regs.di = (unsigned long)priv;
	regs.si = (unsigned long)skb;
	regs.dx = (unsigned long)state;
	rt_run_hit(pl->p, pl->p->handler, &regs, (char *)&verdict);
	return verdict;
}

int rt_netfilter_place(struct rt_placed *pl)
{
	pl->nfo.hook = rt_nf_hook;
	pl->nfo.priv = pl;
	pl->nfo.pf = (u8)pl->p->nf_pf;
	pl->nfo.hooknum = (unsigned int)pl->p->nf_hook;
	pl->nfo.priority = (int)pl->p->nf_priority;
	return nf_register_net_hook(&init_net, &pl->nfo);
}

rt_long rt_nf_verdict(struct rt_context *c)
{
	unsigned int *v = (unsigned int *)rt_entry_data(c);

	return v ? *v : NF_ACCEPT;
}

void rt_nf_set_verdict(struct rt_context *c, rt_long v, const char *loc)
{
	unsigned int *verdict = (unsigned int *)rt_entry_data(c);

	if (v != NF_DROP && v != NF_ACCEPT) {
		rt_failf(c, loc, "set NF_DROP (0) or NF_ACCEPT (1)",
			 "$verdict = %lld: only NF_DROP and NF_ACCEPT can be set (a stolen or queued packet needs more than a verdict)",
			 v);
		return;
	}
	if (verdict)
		*verdict = (unsigned int)v;
}

/* Waits for the hooks that are running. */
void rt_netfilter_remove(struct rt_placed *pl)
{
	nf_unregister_net_hook(&init_net, &pl->nfo);
}
