// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Locks for the script's globals. A handler takes, in index order, a read or
 * write lock on each global it (or a function it calls) uses, as computed
 * by the translator. Locks are only tried, never waited on without bound:
 * after MAXTRYLOCK attempts the hit is skipped and counted, because a probe
 * can fire inside code that already holds one of them.
 */
#include <linux/delay.h>
#include <linux/slab.h>
#include <linux/spinlock.h>

#include "runtime.h"

static rwlock_t *rt_global_locks;

int rt_locks_init(int nglobals)
{
	int i;

	if (nglobals == 0)
		return 0;
	rt_global_locks = kcalloc(nglobals, sizeof(*rt_global_locks), GFP_KERNEL);
	if (!rt_global_locks)
		return -ENOMEM;
	for (i = 0; i < nglobals; i++)
		rwlock_init(&rt_global_locks[i]);
	return 0;
}

void rt_locks_exit(void)
{
	kfree(rt_global_locks);
	rt_global_locks = NULL;
}

static bool rt_try(const struct rt_lock *l)
{
	rwlock_t *lock = &rt_global_locks[l->global];
	rt_long tries;

	for (tries = 0;; tries++) {
		if (l->write ? write_trylock(lock) : read_trylock(lock))
			return true;
		if (tries >= rt_script.maxtrylock)
			return false;
		/* The holder may be a virtual CPU its host has paused: wait in
		 * TRYLOCKDELAY steps, as SystemTap does, not just a few cycles. */
		if (rt_script.trylockdelay)
			udelay(rt_script.trylockdelay);
		else
			cpu_relax();
	}
}

static void rt_release(const struct rt_lock *l)
{
	if (l->write)
		write_unlock(&rt_global_locks[l->global]);
	else
		read_unlock(&rt_global_locks[l->global]);
}

bool rt_lock_globals(const struct rt_probe *p)
{
	int i;

	for (i = 0; i < p->nlocks; i++) {
		if (!rt_try(&p->locks[i])) {
			while (--i >= 0)
				rt_release(&p->locks[i]);
			return false;
		}
	}
	return true;
}

void rt_unlock_globals(const struct rt_probe *p)
{
	int i;

	for (i = p->nlocks - 1; i >= 0; i--)
		rt_release(&p->locks[i]);
}
