// SPDX-License-Identifier: GPL-2.0-or-later
/* RT_HAVE_RCU_DYNTICKS_CURR_CPU_IN_EQS: the same read under its 6.1 name
 * (true: RCU is not watching this CPU). */
#include <linux/context_tracking.h>

static __used bool rt_feature_probe(void)
{
	return rcu_dynticks_curr_cpu_in_eqs();
}
