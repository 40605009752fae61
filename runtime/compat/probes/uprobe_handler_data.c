// SPDX-License-Identifier: GPL-2.0-or-later
/* RT_HAVE_UPROBE_HANDLER_DATA: uprobe consumers' handlers take a __u64
 * *data argument (6.13 and later). */
#include <linux/uprobes.h>

static int rt_feature_handler(struct uprobe_consumer *uc, struct pt_regs *regs, __u64 *data)
{
	return 0;
}

static int rt_feature_ret(struct uprobe_consumer *uc, unsigned long func, struct pt_regs *regs,
			  __u64 *data)
{
	return 0;
}

static __used struct uprobe_consumer rt_feature_uc = {
	.handler = rt_feature_handler,
	.ret_handler = rt_feature_ret,
};
