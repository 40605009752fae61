// SPDX-License-Identifier: GPL-2.0-or-later
/* RT_HAVE_FTRACE_SET_FILTER_IPS: many addresses go into an ftrace filter
 * in one call (else one ftrace_set_filter_ip() each). */
#include <linux/ftrace.h>

static __used int rt_feature_probe(struct ftrace_ops *ops, unsigned long *ips, unsigned int n)
{
	return ftrace_set_filter_ips(ops, ips, n, 0, 0);
}
