// SPDX-License-Identifier: GPL-2.0-or-later
/* RT_HAVE_PROC_OPS: /proc files take a struct proc_ops (Linux 5.6 and later). */
#include <linux/proc_fs.h>

static const struct proc_ops rt_probe_ops = { .proc_read = NULL };

static __used const void *rt_feature_probe(void)
{
	return &rt_probe_ops;
}
