// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tapline_test2: a second module for module("tapline_test*") wildcards and
 * for probes on a module loaded after the script started. Its init calls
 * tt2_hello(1); writing N to /proc/tapline_test2 calls tt2_hello(N).
 */
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/proc_fs.h>
#include <linux/uaccess.h>

static long tt2_total;

noinline int tt2_hello(int v)
{
	tt2_total += v;
	return v * 10;
}

static ssize_t tt2_write(struct file *f, const char __user *ubuf, size_t len, loff_t *off)
{
	char buf[32];
	int v;

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = 0;
	if (kstrtoint(strim(buf), 10, &v))
		return -EINVAL;
	tt2_hello(v);
	return len;
}

static const struct proc_ops tt2_ops = {
	.proc_write = tt2_write,
};

static int __init tt2_init(void)
{
	tt2_hello(1);
	return proc_create("tapline_test2", 0200, NULL, &tt2_ops) ? 0 : -ENOMEM;
}

static void __exit tt2_exit(void)
{
	remove_proc_entry("tapline_test2", NULL);
}

module_init(tt2_init);
module_exit(tt2_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("A second module for Tapline's debug-information tests");
