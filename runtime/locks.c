// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Locks for the script's globals. A handler takes, in index order, a read or
 * write lock on each global it (or a function it calls) uses, as computed
 * by the translator. Locks are only tried, never waited on without bound:
 * after MAXTRYLOCK attempts TRYLOCKDELAY microseconds apart the hit is
 * skipped and counted, because a probe can fire inside code that already
 * holds one of them. The fast path (one attempt each) is inline in
 * runtime.h.
 */
#include <linux/delay.h>
#include <linux/slab.h>

#include "runtime.h"

atomic_t *rt_global_locks;

int rt_locks_init(int nglobals)
{
	if (nglobals == 0)
		return 0;
	rt_global_locks = kcalloc(nglobals, sizeof(*rt_global_locks), GFP_KERNEL);
	return rt_global_locks ? 0 : -ENOMEM;
}

void rt_locks_exit(void)
{
	kfree(rt_global_locks);
	rt_global_locks = NULL;
}

/* *tries: the attempts this hit has left, for all its locks together, so a
 * hit waits at most MAXTRYLOCK x TRYLOCKDELAY however many globals it uses. */
static bool rt_lock_wait(const struct rt_lock *l, rt_long *tries)
{
	for (; *tries > 0; (*tries)--) {
		/* The holder may be a virtual CPU its host has paused: wait in
		 * TRYLOCKDELAY steps, as SystemTap does, not just a few cycles. */
		if (rt_script.trylockdelay)
			udelay(rt_script.trylockdelay);
		else
			cpu_relax();
		if (rt_lock_try(l))
			return true;
	}
	return false;
}

/* Locks from..nlocks-1, after lock `from` was found taken; those before it are held. */
bool rt_lock_globals_wait(const struct rt_probe *p, int from)
{
	rt_long tries = rt_script.maxtrylock;
	int i;

	for (i = from; i < p->nlocks; i++) {
		if (rt_lock_try(&p->locks[i]) || rt_lock_wait(&p->locks[i], &tries))
			continue;
		while (--i >= 0)
			rt_lock_release(&p->locks[i]);
		return false;
	}
	return true;
}
