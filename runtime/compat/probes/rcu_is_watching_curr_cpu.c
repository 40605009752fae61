// SPDX-License-Identifier: GPL-2.0-or-later
/* RT_HAVE_RCU_IS_WATCHING_CURR_CPU: whether RCU watches this CPU, read
 * inline from its context-tracking state (6.12), where rcu_is_watching()
 * is a call that disables and enables preemption around the same read. */
#include <linux/context_tracking.h>

static __used bool rt_feature_probe(void)
{
	return rcu_is_watching_curr_cpu();
}
