// SPDX-License-Identifier: GPL-2.0-or-later
/* RT_HAVE_LINUX_FILELOCK_H: file locks have a header of their own (Linux 6.3). */
#include <linux/filelock.h>

static __used size_t rt_feature_probe(void)
{
	return sizeof(struct file_lock);
}
