// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Not a feature: this probe must compile. If it does not, the kernel's
 * build tree or compiler is broken, and every other probe's failure would
 * be misread as a missing feature.
 */
#include <linux/kernel.h>
#include <linux/module.h>

static __used int rt_feature_probe(void)
{
	return 0;
}
