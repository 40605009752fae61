// SPDX-License-Identifier: GPL-2.0-or-later
/* RT_HAVE_GET_KRETPROBE: a kretprobe instance's probe comes from get_kretprobe(). */
#include <linux/kprobes.h>

static __used struct kretprobe *rt_feature_probe(struct kretprobe_instance *ri)
{
	return get_kretprobe(ri);
}
