// SPDX-License-Identifier: GPL-2.0-or-later
/* RT_HAVE_UPROBES_NOSYNC: the uprobe API of 6.12 and later: uprobe_register()
 * takes the semaphore's offset and returns the uprobe (or an ERR_PTR);
 * uprobe_unregister_nosync() removes a consumer, and
 * uprobe_unregister_sync() waits until no handler of a removed one runs. */
#include <linux/err.h>
#include <linux/uprobes.h>

static __used int rt_feature_probe(struct inode *inode, loff_t off, loff_t ref,
				   struct uprobe_consumer *uc)
{
	struct uprobe *u = uprobe_register(inode, off, ref, uc);

	if (IS_ERR(u))
		return PTR_ERR(u);
	uprobe_unregister_nosync(u, uc);
	uprobe_unregister_sync();
	return 0;
}
