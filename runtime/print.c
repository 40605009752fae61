// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Output and strings for generated code: print, printf, sprintf, and the
 * bounded string operations. Formatting is format.c, shared with the
 * translator, which checks formats at compile time.
 */
#include <linux/string.h>
#include <linux/uaccess.h>

#include "contract/format.h"
#include "runtime.h"

void rt_print_str(struct rt_context *c, const char *s)
{
	rt_out_write(rt_cpu_of(c), s, strlen(s));
}

void rt_print_long(struct rt_context *c, rt_long v)
{
	char buf[24];
	int n = scnprintf(buf, sizeof(buf), "%lld", v);

	rt_out_write(rt_cpu_of(c), buf, n);
}

/* %m and %M read kernel memory, never faulting. */
static int rt_read_kernel(void *ctx, void *dst, unsigned long long addr, unsigned long len)
{
	if (!copy_from_kernel_nofault(dst, (const void *)(unsigned long)addr, len))
		return 0;
	rt_failf(ctx, NULL, NULL, "cannot read %lu bytes of kernel memory at 0x%llx for %%m or %%M",
		 len, addr);
	return -1;
}

void rt_printf(struct rt_context *c, const char *fmt, const struct rt_fmt_arg *args, int nargs)
{
	struct rt_cpu *cpu = rt_cpu_of(c);
	struct rt_fmt_mem mem = { rt_read_kernel, c };
	long n;

	/* Format straight into the staging buffer; if it does not fit, commit
	 * what is staged and try again in the empty buffer. */
	for (;;) {
		size_t room = RT_STAGING_SIZE - cpu->out_len;

		n = rt_fmt_format_mem(cpu->out + cpu->out_len, room, fmt, args, nargs, &mem);
		if (n < 0) {
			rt_fail(c, "printf arguments do not match the format", NULL);
			return;
		}
		if ((size_t)n < room) {
			cpu->out_len += n;
			return;
		}
		if (cpu->out_len == 0) {
			/* Larger than a whole buffer: keep what fits, and say so once. */
			static atomic_t warned;

			cpu->out_len = RT_STAGING_SIZE - 1;
			if (!atomic_xchg(&warned, 1))
				rt_message("warning",
					   "a printf in probe %s produced %ld bytes; only the first %d were kept",
					   cpu->probe ? cpu->probe->pp : "?", n, RT_STAGING_SIZE - 1);
			return;
		}
		rt_out_commit(cpu);
	}
}

void rt_sprintf(struct rt_context *c, char *buf, rt_size size, const char *fmt,
		const struct rt_fmt_arg *args, int nargs)
{
	struct rt_fmt_mem mem = { rt_read_kernel, c };

	if (rt_fmt_format_mem(buf, size, fmt, args, nargs, &mem) < 0)
		rt_fail(c, "sprintf arguments do not match the format", NULL);
}

void rt_printk(struct rt_context *c, rt_long level, const char *msg)
{
	static const char *const levels[8] = { KERN_EMERG,  KERN_ALERT,  KERN_CRIT, KERN_ERR,
					       KERN_WARNING, KERN_NOTICE, KERN_INFO, KERN_DEBUG };

	printk("%s%s\n", level >= 0 && level < 8 ? levels[level] : KERN_DEFAULT, msg);
}
