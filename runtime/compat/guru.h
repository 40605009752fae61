/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What a guru-mode script's embedded C finds without including it, as in
 * SystemTap (min(), strlen(), current, ...), and the kernel functions it
 * calls that newer kernels dropped, decided by the same feature probes
 * as compat.h (features.h). Generated C includes this only when the
 * script has embedded C; the runtime itself never uses it.
 */
#ifndef TAPLINE_COMPAT_GURU_H
#define TAPLINE_COMPAT_GURU_H

#include <linux/kernel.h>
#include <linux/sched.h>
#include <linux/string.h>

#include "features.h"

/* strlcpy() left the kernel in 6.8 for strscpy(); SystemTap's examples
 * still call it (probe: strlcpy.c). */
#ifndef RT_HAVE_STRLCPY
static inline size_t rt_strlcpy(char *dst, const char *src, size_t size)
{
	size_t len = strlen(src);

	if (size) {
		size_t n = len < size ? len : size - 1;

		memcpy(dst, src, n);
		dst[n] = 0;
	}
	return len;
}
#define strlcpy rt_strlcpy
#endif

#endif
