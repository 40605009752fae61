// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * timer.ms(N) and its kin, timer.hz(N), timer.jiffies(N), timer.profile.
 */
#include <fnmatch.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "front/diag.h"
#include "sema/points/points.h"
#include "sema/sema.h"

/* The shortest period a timer fires at (runtime/probes/timers.c keeps the same). */
#define TIMER_MIN_NS 100000

/* The target kernel's HZ (CONFIG_HZ in its configuration), or 0 with an error. */
static long long kernel_hz(struct pp_ctx *c, struct loc loc)
{
	const char *path = c->s->prog.env.config_path;
	long long hz = strtoll(pp_config_value(&c->s->prog.env, "CONFIG_HZ"), NULL, 10);
	if (hz <= 0) {
		diag_error(loc, D_BAD_PROBE_ARG,
			   "timer.jiffies needs the kernel's HZ, but %s gives no CONFIG_HZ",
			   path ? path : "no kernel configuration");
		diag_hint("timer.ms(N) and the other units do not depend on HZ");
	}
	return hz;
}

/*
 * timer.UNIT(N), and timer.UNIT(N).randomize(M): each period is N plus a
 * random whole number of UNITs from -M to M (SystemTap's rule: M < N, and
 * hz cannot be randomized). jiffies are N * (1000000000 / HZ) ns.
 */
static void timer(struct pp_ctx *c)
{
	static const struct {
		const char *unit;
		long long ns;
	} units[] = { { "ns", 1 },         { "nsec", 1 },         { "us", 1000 },
		      { "usec", 1000 },    { "ms", 1000000 },     { "msec", 1000000 },
		      { "s", 1000000000 }, { "sec", 1000000000 }, { "hz", 0 },
		      { "jiffies", -1 } };
	bool randomize = c->n == 3 && comp_is(c, 2, "randomize");
	if (c->n != 2 && !randomize) {
		unknown_shape(c);
		return;
	}
	for (size_t i = 0; i < ARRAY_SIZE(units); i++) {
		if (!comp_is(c, 1, units[i].unit))
			continue;
		long long v = 0, r = 0;
		if (!want_number(c, 1, true, &v) || (randomize && !want_number(c, 2, true, &r)))
			return;
		if (v <= 0) {
			diag_error(c->comps[1].arg->loc, D_BAD_PROBE_ARG,
				   "a timer period must be positive, not %lld", v);
			return;
		}
		if (randomize && units[i].ns == 0) {
			diag_error(c->comps[2].loc, D_BAD_PROBE_ARG,
				   "a timer.hz probe cannot be randomized");
			diag_hint("give the period instead: timer.ms(N).randomize(M)");
			return;
		}
		/* Up to the period itself, as SystemTap allows (a drawn period
		 * below the minimum is raised to it when the timer runs). */
		if (randomize && (r < 0 || r > v)) {
			if (r < 0)
				diag_error(c->comps[2].arg->loc, D_BAD_PROBE_ARG,
					   "randomize(%lld) cannot be negative", r);
			else
				diag_error(c->comps[2].arg->loc, D_BAD_PROBE_ARG,
					   "randomize(%lld) cannot be more than the period, %lld", r, v);
			return;
		}
		long long unit_ns = units[i].ns;
		if (unit_ns < 0) {
			long long hz = kernel_hz(c, c->comps[1].loc);
			if (hz <= 0)
				return;
			unit_ns = 1000000000LL / hz;
		}
		long long period;
		if (unit_ns == 0) {
			period = 1000000000LL / v;
		} else if (v > 3600LL * 1000000000LL / unit_ns) {
			diag_error(c->comps[1].arg->loc, D_BAD_PROBE_ARG,
				   "timer period is longer than an hour");
			return;
		} else {
			period = v * unit_ns;
		}
		long long spread = r * unit_ns; /* r <= v: no overflow */
		/* Shorter periods would keep a CPU busy in the handler; those a
		 * spread draws below it are raised to it (runtime/probes/timers.c). */
		if (period < TIMER_MIN_NS) {
			diag_error(c->comps[1].arg->loc, D_BAD_PROBE_ARG,
				   "timer period %lld ns is shorter than the 100 us minimum", period);
			return;
		}
		add_probe(c, PK_TIMER, NULL, period)->spread_ns = spread;
		return;
	}
	unknown_shape(c);
}

/* timer.profile: on every CPU at each of the kernel's ticks, in the
 * context the tick interrupted (a process, or the kernel). */
static void timer_profile(struct pp_ctx *c)
{
	if (c->comps[1].arg) {
		diag_error(c->comps[1].arg->loc, D_BAD_PROBE_ARG,
			   "timer.profile takes no argument: it fires at every tick (HZ)");
		diag_hint("for another rate on one CPU: timer.hz(N)");
		return;
	}
	add_probe(c, PK_PROFILE, NULL, 0);
}

static const char *const timer_usage[] = {
	"timer.ns/us/ms/s(N)[.randomize(M)]",
	"timer.nsec/usec/msec/sec(N)[.randomize(M)]",
	"timer.jiffies(N)[.randomize(M)]",
	"timer.hz(N)",
	"timer.profile",
	NULL,
};
static const char *const timer_shapes[] = {
	"timer.ms",
	"timer.s",
	"timer.us",
	"timer.ns",
	"timer.sec",
	"timer.msec",
	"timer.usec",
	"timer.nsec",
	"timer.hz",
	"timer.jiffies",
	"timer.ms.randomize",
	"timer.s.randomize",
	"timer.jiffies.randomize",
	"timer.profile",
	NULL,
};

static void timer_resolve(struct pp_ctx *c)
{
	if (c->n == 2 && comp_is(c, 1, "profile"))
		timer_profile(c);
	else
		timer(c);
}

const struct family timer_family = {
	.first = "timer",
	.usage = timer_usage,
	.shapes = timer_shapes,
	.resolve = timer_resolve,
};
