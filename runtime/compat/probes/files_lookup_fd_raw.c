// SPDX-License-Identifier: GPL-2.0-or-later
/* RT_HAVE_FILES_LOOKUP_FD_RAW: a file by descriptor is files_lookup_fd_raw()
 * (Linux 5.11; fcheck_files() before). */
#include <linux/fdtable.h>

static __used void *rt_feature_probe(struct files_struct *files)
{
	return files_lookup_fd_raw(files, 0);
}
