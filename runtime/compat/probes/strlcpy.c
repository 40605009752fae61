// SPDX-License-Identifier: GPL-2.0-or-later
/* RT_HAVE_STRLCPY: the kernel still has strlcpy() (removed in Linux 6.8). */
#include <linux/string.h>

static __used size_t rt_feature_probe(char *dst, const char *src)
{
	return strlcpy(dst, src, 8);
}
