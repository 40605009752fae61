// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What a guru-mode script may do to the machine besides writing memory
 * and registers (memory.c): send the current task a signal, busy-wait,
 * dump the kernel stack to the log, or panic. Each refuses the contexts
 * where it could deadlock or stall the CPU, and fails the hit instead.
 */
#include <linux/delay.h>
#include <linux/kernel.h>
#include <linux/panic.h>
#include <linux/preempt.h>
#include <linux/printk.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>

#include "runtime.h"

/* The longest busy-wait one call may ask for: well below the soft-lockup
 * and RCU stall detectors' 20 seconds, even when a loop repeats it. */
#define RT_MAX_DELAY_US 100000

void rt_raise(struct rt_context *c, rt_long sig, const char *what, const char *loc)
{
	struct sighand_struct *sighand = current->sighand;

	if (sig < 1 || sig > _NSIG) {
		rt_failf(c, loc, NULL, "%s: %lld is not a signal (1 to %d)", what, sig, _NSIG);
		return;
	}
	/* send_sig() takes the task's signal lock: not in NMI, and not where
	 * the probed code (or another CPU) holds it already. */
	if (in_nmi() || !sighand || spin_is_locked(&sighand->siglock)) {
		rt_failf(c, loc, NULL, "%s: the task's signal lock is busy here; raise the signal "
			 "from another probe", what);
		return;
	}
	if (send_sig(sig, current, 1))
		rt_failf(c, loc, NULL, "%s: the signal could not be sent", what);
}

static void rt_delay(struct rt_context *c, rt_long us, const char *what, const char *loc)
{
	if (us < 0 || us > RT_MAX_DELAY_US) {
		rt_failf(c, loc, NULL, "%s: a delay of %lld us is outside 0 to %d us", what, us,
			 RT_MAX_DELAY_US);
		return;
	}
	while (us > 1000) {
		udelay(1000);
		us -= 1000;
	}
	udelay(us);
}

void rt_mdelay(struct rt_context *c, rt_long ms, const char *what, const char *loc)
{
	if (ms < 0 || ms > RT_MAX_DELAY_US / 1000) {
		rt_failf(c, loc, NULL, "%s: a delay of %lld ms is outside 0 to %d ms", what, ms,
			 RT_MAX_DELAY_US / 1000);
		return;
	}
	rt_delay(c, ms * 1000, what, loc);
}

void rt_udelay(struct rt_context *c, rt_long us, const char *what, const char *loc)
{
	rt_delay(c, us, what, loc);
}

void rt_dump_stack(struct rt_context *c)
{
	dump_stack();
}

void rt_panic(struct rt_context *c, const char *msg)
{
	panic("%s", msg);
}
