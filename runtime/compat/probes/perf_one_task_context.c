// SPDX-License-Identifier: GPL-2.0-or-later
/* RT_HAVE_PERF_ONE_TASK_CONTEXT: a task has one perf context (6.2 on), not
 * a hardware and a software one. */
#include <linux/perf_event.h>
#include <linux/sched.h>

static __used struct perf_event_context *rt_feature_probe(struct task_struct *t)
{
	/* An array of two fails to compile here. */
	(void)sizeof(char[sizeof(t->perf_event_ctxp) == sizeof(void *) ? 1 : -1]);
	return t->perf_event_ctxp;
}
