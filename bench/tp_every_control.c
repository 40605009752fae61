// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The control for bench/trace-all-stops: the tracepoint work of Tapline's
 * kernel.trace("*") with nothing of Tapline in it. Loading it registers an
 * empty probe on each tracepoint named in tp_every_list.h (the list the
 * script takes from Tapline's own module for the same kernel, bare
 * tracepoints without a trace event included), in that order, as
 * runtime/probes/tracepoints.c does (tracepoint_probe_register: the default priority,
 * one probe per tracepoint); unloading it unregisters them all and then
 * waits once with tracepoint_synchronize_unregister(), as rt_probes_stop()
 * does. Loading and unloading it again is Tapline's start and stop again.
 *
 * One callback serves every tracepoint: it takes only the data pointer and
 * reads none of the arguments the tracepoint passes, which a callee may
 * leave unread on x86-64 (they are in registers, or on the caller's stack
 * above the return address). It counts its hits, so that the log shows the
 * probes fired.
 */
#include <linux/atomic.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/tracepoint.h>

static const char *const tpc_names[] = {
#include "tp_every_list.h"
};

#define TPC_N ARRAY_SIZE(tpc_names)

static struct tracepoint **tpc_tps;
static atomic_long_t tpc_hits = ATOMIC_LONG_INIT(0);

static notrace void tpc_probe(void *data)
{
	atomic_long_inc(&tpc_hits);
}

struct tpc_search {
	const char *name;
	struct tracepoint *found;
};

static void tpc_match(struct tracepoint *tp, void *priv)
{
	struct tpc_search *s = priv;

	if (!s->found && strcmp(tp->name, s->name) == 0)
		s->found = tp;
}

static void tpc_unregister_all(void)
{
	size_t i;
	int n = 0;

	for (i = 0; i < TPC_N; i++) {
		if (!tpc_tps[i])
			continue;
		tracepoint_probe_unregister(tpc_tps[i], tpc_probe, NULL);
		n++;
	}
	if (n)
		tracepoint_synchronize_unregister();
}

static int __init tpc_init(void)
{
	size_t i;
	int placed = 0, missing = 0, rc;

	tpc_tps = kcalloc(TPC_N, sizeof(*tpc_tps), GFP_KERNEL);
	if (!tpc_tps)
		return -ENOMEM;
	for (i = 0; i < TPC_N; i++) {
		struct tpc_search s = { tpc_names[i], NULL };

		/* One walk per name, as rt_place_tracepoint() does. */
		for_each_kernel_tracepoint(tpc_match, &s);
		if (!s.found) {
			missing++;
			continue;
		}
		rc = tracepoint_probe_register(s.found, tpc_probe, NULL);
		if (rc) {
			pr_err("tp_every_control: cannot probe %s: %d\n", tpc_names[i], rc);
			tpc_unregister_all();
			kfree(tpc_tps);
			return rc;
		}
		tpc_tps[i] = s.found;
		placed++;
	}
	pr_info("tp_every_control: %d tracepoints probed, %d of the list not in this kernel\n",
		placed, missing);
	return 0;
}

static void __exit tpc_exit(void)
{
	tpc_unregister_all();
	kfree(tpc_tps);
	pr_info("tp_every_control: removed after %ld hits\n", atomic_long_read(&tpc_hits));
}

module_init(tpc_init);
module_exit(tpc_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("bench/trace-all-stops: empty probes on Tapline's kernel.trace(\"*\") tracepoints");
