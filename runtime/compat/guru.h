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
#include <linux/sched/signal.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/version.h>

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

/*
 * SystemTap's kernel feature macros that embedded C in its examples tests,
 * from the same feature probes: STAPCONF_NAME is RT_HAVE_NAME. A path in
 * struct file (2.6.20) and <linux/uidgid.h> (3.5) every kernel Tapline
 * supports has.
 */
#define STAPCONF_DPATH_PATH 1
#define STAPCONF_LINUX_UIDGID_H 1
#ifdef RT_HAVE_FILES_LOOKUP_FD_RAW
#define STAPCONF_FILES_LOOKUP_FD_RAW 1
#endif
#ifdef RT_HAVE_DO_SOCK_GETSOCKOPT
#define STAPCONF_DO_SOCK_GETSOCKOPT 1
#endif
#ifdef RT_HAVE_LINUX_FILELOCK_H
#define STAPCONF_LINUX_FILELOCK_H 1
#endif
#ifdef RT_HAVE_FILE_LOCK_CORE
#define STAPCONF_FILE_LOCK_CORE 1
#endif

/*
 * SystemTap's embedded-C idiom for kernel memory that may not be there:
 * kread(ptr) is *ptr, read so that a fault does no harm; a fault fails
 * the hit with a message and jumps to the function's CATCH_DEREF_FAULT(),
 * where its clean-up (an rcu_read_unlock()) follows.
 */
#define kread(ptr)                                                                   \
	({                                                                           \
		union {                                                              \
			__typeof__(*(ptr)) v;                                        \
			char b[sizeof(*(ptr))];                                      \
		} __kr;                                                              \
		if (copy_from_kernel_nofault(__kr.b, (ptr), sizeof(__kr.b))) {       \
			rt_failf(CONTEXT, 0, 0, "kernel read fault at address 0x%lx", \
				 (unsigned long)(ptr));                             \
			goto deref_fault;                                            \
		}                                                                    \
		__kr.v;                                                              \
	})
/* kderef_buffer(dst, src, size): size bytes at src copied to dst (NULL:
 * only checked readable), a fault handled as kread's. */
static inline int rt_guru_copy(void *dst, const void *src, size_t size)
{
	char chunk[64];
	size_t done, n;

	if (dst)
		return copy_from_kernel_nofault(dst, src, size);
	for (done = 0; done < size; done += n) {
		n = min(size - done, sizeof(chunk));
		if (copy_from_kernel_nofault(chunk, (const char *)src + done, n))
			return -EFAULT;
	}
	return 0;
}
#define kderef_buffer(dst, src, size)                                                \
	do {                                                                         \
		if (rt_guru_copy((dst), (src), (size))) {                            \
			rt_failf(CONTEXT, 0, 0, "kernel read fault at address 0x%lx", \
				 (unsigned long)(src));                             \
			goto deref_fault;                                            \
		}                                                                    \
	} while (0)
#define CATCH_DEREF_FAULT() \
	if (0) {            \
	deref_fault:;       \
	}

#endif
