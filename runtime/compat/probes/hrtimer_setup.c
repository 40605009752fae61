// SPDX-License-Identifier: GPL-2.0-or-later
/* RT_HAVE_HRTIMER_SETUP: hrtimer_setup() initialises a timer with its function. */
#include <linux/hrtimer.h>

static enum hrtimer_restart rt_probe_fn(struct hrtimer *t)
{
	return HRTIMER_NORESTART;
}

static __used void rt_feature_probe(struct hrtimer *t)
{
	hrtimer_setup(t, rt_probe_fn, CLOCK_MONOTONIC, HRTIMER_MODE_REL);
}
