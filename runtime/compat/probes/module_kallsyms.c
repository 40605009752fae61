// SPDX-License-Identifier: GPL-2.0-or-later
/* RT_HAVE_MODULE_KALLSYMS: a module's own symbol table is mod->kallsyms. */
#include <linux/module.h>

static __used unsigned long rt_feature_probe(struct module *m)
{
	struct mod_kallsyms *ks = rcu_dereference_sched(m->kallsyms);

	return ks->symtab[0].st_value + ks->num_symtab + (unsigned long)ks->strtab;
}
