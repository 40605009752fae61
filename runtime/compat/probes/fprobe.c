// SPDX-License-Identifier: GPL-2.0-or-later
/* RT_HAVE_FPROBE: fprobe (CONFIG_FPROBE, built into 6.12, not Debian's 6.1)
 * with handlers that take pt_regs and entry data, placed by address. Later
 * kernels pass ftrace_regs instead: this fails there, and return probes
 * stay kretprobes. */
#include <linux/fprobe.h>

static int rt_feature_entry(struct fprobe *fp, unsigned long entry_ip, unsigned long ret_ip,
			    struct pt_regs *regs, void *data)
{
	return 0;
}

static void rt_feature_exit(struct fprobe *fp, unsigned long entry_ip, unsigned long ret_ip,
			    struct pt_regs *regs, void *data)
{
}

static struct fprobe rt_feature_fp = {
	.entry_handler = rt_feature_entry,
	.exit_handler = rt_feature_exit,
	.entry_data_size = 16,
};

static __used int rt_feature_probe(unsigned long *ips, int n)
{
	int rc = register_fprobe_ips(&rt_feature_fp, ips, n);

	return rc ?: unregister_fprobe(&rt_feature_fp);
}
