// SPDX-License-Identifier: GPL-2.0-or-later
/* RT_HAVE_FTRACE_REGS: an ftrace_ops callback takes struct ftrace_regs
 * and a filter can be set by address (ftrace_set_filter_ip). Without it,
 * function entries are probed with kprobes. */
#include <linux/ftrace.h>

static void rt_feature_fn(unsigned long ip, unsigned long parent_ip, struct ftrace_ops *op,
			  struct ftrace_regs *fregs)
{
}

static struct ftrace_ops rt_feature_ops = { .func = rt_feature_fn };

static __used int rt_feature_probe(unsigned long ip)
{
	int rc = ftrace_set_filter_ip(&rt_feature_ops, ip, 0, 0);

	return rc ?: register_ftrace_function(&rt_feature_ops);
}
