// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Messages and failures: how a hit fails (rt_fail and its family, which
 * generated code calls; a try's catch may take the failure), how a failure
 * no catch took is reported and counted against MAXERRORS, how the script
 * asks to stop, and the `ctl` status lines that carry all of it to
 * staprun (doc/protocol.md). lifecycle.c keeps the lifecycle.
 */
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/spinlock.h>

#include "hit.h"
#include "runtime.h"

static atomic_t rt_errors;
static atomic_t rt_errors_suppressed; /* --suppress-handler-errors */

/*
 * Error and warning lines for `ctl`. A probe can fire anywhere, even while
 * its own CPU is inside this code, so adding a line never waits: the first
 * error has a slot of its own, claimed without a lock, and the other lines
 * go to a buffer only if its lock is free at once (else they are counted
 * as lost).
 */
#define RT_MESSAGE_LEN 256
#define RT_MESSAGES_SIZE 4096
static char rt_first_error[RT_MESSAGE_LEN];
static atomic_t rt_first_error_state; /* 0 free, 1 being written, 2 written */
/* Where the first error goes among the other lines: what the buffer held
 * when it happened (always a line's end), so messages come out in order. */
static size_t rt_first_error_at;
static char rt_messages[RT_MESSAGES_SIZE];
static size_t rt_messages_len;
static atomic_t rt_messages_lost;
static DEFINE_SPINLOCK(rt_messages_lock);
static atomic_t rt_skip_limit_hit;

int rt_state(void)
{
	return atomic_read(&rt_run.state);
}

bool rt_has_error(void)
{
	return atomic_read(&rt_first_error_state) != 0;
}

void rt_message(const char *kind, const char *fmt, ...)
{
	unsigned long flags;
	char line[RT_MESSAGE_LEN];
	va_list ap;
	int i, n;

	va_start(ap, fmt);
	n = vscnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	/* One message, one line: script text must not forge `ctl` lines. */
	for (i = 0; i < n; i++)
		if ((unsigned char)line[i] < ' ' || line[i] == 0x7f)
			line[i] = ' ';
	if (!strcmp(kind, "error") && atomic_cmpxchg(&rt_first_error_state, 0, 1) == 0) {
		memcpy(rt_first_error, line, n + 1);
		rt_first_error_at = READ_ONCE(rt_messages_len);
		atomic_set_release(&rt_first_error_state, 2);
		return;
	}
	if (!spin_trylock_irqsave(&rt_messages_lock, flags)) {
		atomic_inc(&rt_messages_lost);
		return;
	}
	if (rt_messages_len + strlen(kind) + n + 2 < RT_MESSAGES_SIZE)
		rt_messages_len += scnprintf(rt_messages + rt_messages_len,
					     RT_MESSAGES_SIZE - rt_messages_len, "%s %s\n", kind,
					     line);
	else
		atomic_inc(&rt_messages_lost);
	spin_unlock_irqrestore(&rt_messages_lock, flags);
}

void rt_status_show(struct seq_file *m)
{
	static const char *const names[] = { "loaded", "running", "stopping", "stopped" };
	unsigned long flags;
	char *copy = kmalloc(RT_MESSAGES_SIZE, GFP_KERNEL);
	size_t len = 0;
	int lost;

	seq_printf(m, "state %s\n", names[atomic_read(&rt_run.state)]);
	seq_printf(m, "exit_status %d\n", rt_run.exit_status);
	seq_printf(m, "orphaned %d\n", rt_run.orphaned);
	seq_printf(m, "skipped %lld\n", (long long)atomic64_read(&rt_run.skipped));
	seq_printf(m, "skipped_locked %lld\n", (long long)atomic64_read(&rt_run.skipped_locked));
	seq_printf(m, "skipped_unsafe %lld\n", (long long)atomic64_read(&rt_run.skipped_unsafe));
	if (copy) {
		spin_lock_irqsave(&rt_messages_lock, flags);
		len = rt_messages_len;
		memcpy(copy, rt_messages, len);
		spin_unlock_irqrestore(&rt_messages_lock, flags);
	}
	if (atomic_read_acquire(&rt_first_error_state) == 2) {
		size_t at = min(rt_first_error_at, len);

		if (at)
			seq_write(m, copy, at);
		seq_printf(m, "error %s\n", rt_first_error);
		if (len > at)
			seq_write(m, copy + at, len - at);
	} else if (len) {
		seq_write(m, copy, len);
	}
	kfree(copy);
	if (atomic_read(&rt_skip_limit_hit))
		seq_printf(m,
			   "error skipped too many probe hits (MAXSKIPPED = %lld): %lld found another hit running on the same CPU, %lld found a global still locked after MAXTRYLOCK = %lld attempts, %lld were where RCU is not watching; raise the limit with -D MAXSKIPPED=N (or -D MAXTRYLOCK=N)\n",
			   rt_script.maxskipped,
			   (long long)(atomic64_read(&rt_run.skipped) -
				       atomic64_read(&rt_run.skipped_locked) -
				       atomic64_read(&rt_run.skipped_unsafe)),
			   (long long)atomic64_read(&rt_run.skipped_locked), rt_script.maxtrylock,
			   (long long)atomic64_read(&rt_run.skipped_unsafe));
	rt_timing_show(m);
	if (atomic_read(&rt_errors_suppressed))
		seq_printf(m, "warning %d failed probe hits were skipped (--suppress-handler-errors)\n",
			   atomic_read(&rt_errors_suppressed));
	lost = atomic_read(&rt_messages_lost);
	if (lost)
		seq_printf(m, "warning %d more error or warning messages were lost\n", lost);
}

/* exit(), an error, or MAXSKIPPED: no more hits; staprun then sends `stop`. */
void rt_request_stop(int exit_status)
{
	if (exit_status) {
		rt_run.exit_status = exit_status;
		rt_run.failed = 1;
	}
	atomic_cmpxchg(&rt_run.state, RT_RUNNING, RT_STOPPING);
	atomic_cmpxchg(&rt_run.state, RT_LOADED, RT_STOPPING);
}

void rt_count_skip(atomic64_t *reason)
{
	s64 n;

	if (reason)
		atomic64_inc(reason);
	n = atomic64_inc_return(&rt_run.skipped);

	/* Only flags here: a message is composed when `ctl` is read. */
	if (n == rt_script.maxskipped + 1) {
		atomic_set(&rt_skip_limit_hit, 1);
		rt_request_stop(1);
	}
}

/* An uncaught failure: reported, and counted against MAXERRORS. */
void rt_report_error(struct rt_cpu *cpu)
{
	int n;

	/* abort(): the script is stopping already, without an error. */
	if (cpu->aborting) {
		cpu->aborting = false;
		cpu->fatal = false;
		return;
	}
	/* --suppress-handler-errors: as if each handler caught its own
	 * failure; one no catch could take (a hit over MAXHITTIME) still
	 * stops the script. */
	if (rt_script.suppress_errors && !cpu->fatal) {
		atomic_inc(&rt_errors_suppressed);
		return;
	}
	n = atomic_inc_return(&rt_errors);

	rt_message("error", "%s (probe %s)%s%s", cpu->error, cpu->probe ? cpu->probe->pp : "?",
		   cpu->hint[0] ? "; " : "", cpu->hint);
	cpu->fatal = false;
	if (n > rt_script.maxerrors)
		rt_request_stop(1);
	else
		rt_run.exit_status = 1;
	if (n == rt_script.maxerrors + 1 && rt_script.maxerrors > 0)
		rt_message("error", "%d errors, more than MAXERRORS = %lld: stopping; raise the limit with -D MAXERRORS=N",
			   n, rt_script.maxerrors);
}

/* --- the API for generated code: failing and stopping --- */

void rt_failf(struct rt_context *c, const char *loc, const char *hint, const char *fmt, ...)
{
	struct rt_cpu *cpu = container_of(c, struct rt_cpu, c);
	va_list ap;
	int n;

	if (c->error)
		return;
	va_start(ap, fmt);
	n = vscnprintf(cpu->error, sizeof(cpu->error), fmt, ap);
	va_end(ap);
	if (loc)
		scnprintf(cpu->error + n, sizeof(cpu->error) - n, " at %s", loc);
	strscpy(cpu->hint, hint ? hint : "", sizeof(cpu->hint));
	c->error = cpu->error;
}

void rt_fail(struct rt_context *c, const char *msg, const char *loc)
{
	rt_failf(c, loc, NULL, "%s", msg);
}

void rt_fail_limit(struct rt_context *c, const char *limit, rt_long value, const char *loc)
{
	char hint[64];

	scnprintf(hint, sizeof(hint), "raise the limit with -D %s=N", limit);
	rt_failf(c, loc, hint, "%s (%lld) exceeded", limit, value);
}

void rt_fail_actions(struct rt_context *c, const char *loc)
{
	const struct rt_probe *p = container_of(c, struct rt_cpu, c)->probe;

	rt_cpu_of(c)->fatal = true;
	if (p && rt_is_begin_end(p))
		rt_fail_limit(c, "MAXACTION_INTERRUPTIBLE", rt_script.maxaction_interruptible, loc);
	else
		rt_fail_limit(c, "MAXACTION", rt_script.maxaction, loc);
}

void rt_frame_overflow(struct rt_context *c, rt_size size, unsigned long frame, const char *loc)
{
	if (c->depth >= c->maxnesting || size > (rt_size)(c->sp_end - c->sp)) {
		rt_fail_limit(c, "MAXNESTING", c->maxnesting, loc);
		return;
	}
	rt_failf(c, loc, NULL,
		 "script functions nest too deeply for the kernel stack (%lu bytes used, more than %d)",
		 c->stack_base - frame, RT_STACK_BUDGET);
}

void rt_user_error(struct rt_context *c, const char *msg)
{
	rt_failf(c, NULL, NULL, "%s", msg);
}

int rt_catch(struct rt_context *c, char *buf, rt_size size)
{
	struct rt_cpu *cpu = container_of(c, struct rt_cpu, c);

	if (cpu->fatal)
		return 1;
	if (buf && size) {
		strscpy(buf, cpu->error, size);
		if (cpu->hint[0]) {
			rt_strcat(buf, "; ", size);
			rt_strcat(buf, cpu->hint, size);
		}
	}
	c->error = NULL;
	return 0;
}

void rt_warn(struct rt_context *c, const char *msg)
{
	rt_message("warning", "%s", msg);
}

void rt_exit(struct rt_context *c)
{
	rt_request_stop(0);
}

/* The hit ends here, as a failure no catch takes that is not reported;
 * the script stops without its end probes. */
void rt_abort(struct rt_context *c, const char *what, const char *loc)
{
	struct rt_cpu *cpu = rt_cpu_of(c);

	WRITE_ONCE(rt_run.aborted, true);
	rt_request_stop(0);
	rt_failf(c, NULL, NULL, "abort()");
	cpu->fatal = true;
	cpu->aborting = true;
}
