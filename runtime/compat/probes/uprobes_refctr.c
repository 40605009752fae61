// SPDX-License-Identifier: GPL-2.0-or-later
/* RT_HAVE_UPROBES_REFCTR: uprobes placed by inode and file offset, with the
 * kernel counting SDT semaphores (6.1): uprobe_register_refctr() returns
 * 0 or an error, uprobe_unregister() takes the inode and offset. */
#include <linux/uprobes.h>

static __used int rt_feature_probe(struct inode *inode, loff_t off, loff_t ref,
				   struct uprobe_consumer *uc)
{
	int rc = uprobe_register_refctr(inode, off, ref, uc);

	if (!rc)
		uprobe_unregister(inode, off, uc);
	return rc;
}
