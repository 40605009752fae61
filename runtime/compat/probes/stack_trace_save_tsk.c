// SPDX-License-Identifier: GPL-2.0-or-later
/* RT_HAVE_STACK_TRACE_SAVE_TSK: another task's kernel stack can be read
 * safely (the walker holds the stack while it reads); 6.1 does not export
 * it, and without it task_backtrace() is refused.
 * needs export: stack_trace_save_tsk */
#include <linux/sched.h>
#include <linux/stacktrace.h>

static __used unsigned int rt_feature_probe(struct task_struct *t, unsigned long *store)
{
	return stack_trace_save_tsk(t, store, 8, 0);
}
