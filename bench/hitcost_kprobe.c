// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The reference for bench/hitcost: a kprobe with an empty pre-handler on
 * one function (symbol=NAME), or with kret=1 a kretprobe with an empty
 * return handler. Nothing else runs per hit, so what it adds per call is
 * the cost of the probe mechanism alone. With fexit=1 (kernels with
 * CONFIG_FPROBE), an fprobe with only an empty exit handler: the floor of a
 * return probe through fprobe. The probed address is logged at load, and
 * the missed hits at unload.
 */
#include <linux/fprobe.h>
#include <linux/kprobes.h>
#include <linux/module.h>

static char *symbol = "__x64_sys_getpid";
module_param(symbol, charp, 0444);
MODULE_PARM_DESC(symbol, "the function to probe");

static bool kret;
module_param(kret, bool, 0444);
MODULE_PARM_DESC(kret, "place a kretprobe instead of a kprobe");

static bool fexit;
module_param(fexit, bool, 0444);
MODULE_PARM_DESC(fexit, "place an fprobe with an exit handler instead");

#ifdef CONFIG_FPROBE
static void hc_exit_handler(struct fprobe *fp, unsigned long entry_ip, unsigned long ret_ip,
			    struct pt_regs *regs, void *entry_data)
{
}

static struct fprobe hc_fp = { .exit_handler = hc_exit_handler };
#endif

static int hc_pre(struct kprobe *kp, struct pt_regs *regs)
{
	return 0;
}

static int hc_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	return 0;
}

static struct kprobe hc_kp = { .pre_handler = hc_pre };
static struct kretprobe hc_krp = { .handler = hc_ret, .maxactive = 20 };

static int __init hc_init(void)
{
	int rc;

	if (fexit) {
#ifdef CONFIG_FPROBE
		rc = register_fprobe(&hc_fp, symbol, NULL);
		if (!rc) {
			pr_info("hitcost_kprobe: fprobe exit on %s\n", symbol);
			return 0;
		}
#else
		rc = -EOPNOTSUPP;
#endif
	} else if (kret) {
		hc_krp.kp.symbol_name = symbol;
		rc = register_kretprobe(&hc_krp);
	} else {
		hc_kp.symbol_name = symbol;
		rc = register_kprobe(&hc_kp);
	}
	if (rc) {
		pr_err("hitcost_kprobe: cannot probe %s: %d\n", symbol, rc);
		return rc;
	}
	pr_info("hitcost_kprobe: %s on %s at %px\n", kret ? "kretprobe" : "kprobe", symbol,
		kret ? hc_krp.kp.addr : hc_kp.addr);
	return 0;
}

static void __exit hc_exit(void)
{
	if (fexit) {
#ifdef CONFIG_FPROBE
		unregister_fprobe(&hc_fp);
		pr_info("hitcost_kprobe: fprobe missed %lu\n", hc_fp.nmissed);
#endif
	} else if (kret) {
		unregister_kretprobe(&hc_krp);
		pr_info("hitcost_kprobe: missed %lu calls, %d returns\n", hc_krp.kp.nmissed,
			hc_krp.nmissed);
	} else {
		unregister_kprobe(&hc_kp);
		pr_info("hitcost_kprobe: missed %lu hits\n", hc_kp.nmissed);
	}
}

module_init(hc_init);
module_exit(hc_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("bench/hitcost: an empty kprobe or kretprobe");
