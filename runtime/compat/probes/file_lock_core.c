// SPDX-License-Identifier: GPL-2.0-or-later
/* RT_HAVE_FILE_LOCK_CORE: a file lock's common part is struct
 * file_lock_core (Linux 6.9). */
#include <linux/fs.h>
#if __has_include(<linux/filelock.h>)
#include <linux/filelock.h>
#endif

static __used size_t rt_feature_probe(void)
{
	return sizeof(struct file_lock_core);
}
