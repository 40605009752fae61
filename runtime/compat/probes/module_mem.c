// SPDX-License-Identifier: GPL-2.0-or-later
/* RT_HAVE_MODULE_MEM: a module's memory regions are mod->mem[] (else core_layout). */
#include <linux/module.h>

static __used void *rt_feature_probe(struct module *m)
{
	return m->mem[MOD_RODATA].base;
}
