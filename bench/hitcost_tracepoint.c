// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The tracepoint reference for bench/hitcost: an empty probe on one
 * tracepoint (name=NAME, default sys_enter, which every system call passes
 * once tracing it is on). Nothing else runs per hit, so what it adds per
 * call is the tracepoint mechanism alone (and, for sys_enter, the system
 * call's traced entry path, which a Tapline probe there pays too).
 */
#include <linux/module.h>
#include <linux/string.h>
#include <linux/tracepoint.h>

static char *name = "sys_enter";
module_param(name, charp, 0444);
MODULE_PARM_DESC(name, "the tracepoint to probe");

static struct tracepoint *hc_tp;

/* Takes no more than sys_enter's arguments (regs, id); any tracepoint
 * passes at least one, and a callee reading fewer than it is given is fine. */
static void hc_probe(void *data, void *a1)
{
}

static void hc_find(struct tracepoint *tp, void *priv)
{
	if (!hc_tp && strcmp(tp->name, name) == 0)
		hc_tp = tp;
}

static int __init hc_init(void)
{
	int rc;

	for_each_kernel_tracepoint(hc_find, NULL);
	if (!hc_tp) {
		pr_err("hitcost_tracepoint: no tracepoint %s\n", name);
		return -ENOENT;
	}
	rc = tracepoint_probe_register(hc_tp, hc_probe, NULL);
	if (rc) {
		pr_err("hitcost_tracepoint: cannot probe %s: %d\n", name, rc);
		return rc;
	}
	pr_info("hitcost_tracepoint: probe on %s\n", name);
	return 0;
}

static void __exit hc_exit(void)
{
	tracepoint_probe_unregister(hc_tp, hc_probe, NULL);
	tracepoint_synchronize_unregister();
}

module_init(hc_init);
module_exit(hc_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("bench/hitcost: an empty tracepoint probe");
