// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Locks for the script's globals. A handler takes, in index order, a read or
 * write lock on each global it (or a function it calls) uses, as computed
 * by the translator; the code for it is generated into the handler, with
 * the first attempt inline (api.h). Locks are only tried, never waited on
 * without bound: a probe can fire inside code that already holds one of
 * them, so after MAXTRYLOCK attempts in all, TRYLOCKDELAY microseconds
 * apart, the hit is skipped and counted.
 */
#include <linux/delay.h>

#include "runtime.h"

static bool rt_lock_try(int global, int write)
{
	atomic_t *a = (atomic_t *)&rt_global_locks[global];

	if (write)
		return atomic_cmpxchg_acquire(a, 0, -1) == 0;
	return atomic_inc_unless_negative(a);
}

/*
 * After the inline attempt failed: MAXTRYLOCK / nlocks more (at least
 * one, none when MAXTRYLOCK is 0), so the hit's locks together wait at most MAXTRYLOCK steps. The
 * holder may be a virtual CPU its host has paused: the steps are
 * TRYLOCKDELAY long, as SystemTap's are, not just a few cycles.
 */
int rt_lock_wait(int global, int write, int nlocks)
{
	rt_long tries = rt_script.maxtrylock;

	if (tries > 0 && nlocks > 1)
		tries = max_t(rt_long, tries / nlocks, 1);
	for (; tries > 0; tries--) {
		if (rt_script.trylockdelay)
			udelay(rt_script.trylockdelay);
		else
			cpu_relax();
		if (rt_lock_try(global, write))
			return 1;
	}
	return 0;
}

/* The handler gave up on a lock and released what it held. */
int rt_locks_skipped(void)
{
	rt_count_skip(&rt_run.skipped_locked);
	return 1;
}
