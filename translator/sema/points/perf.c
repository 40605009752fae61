// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * perf.hw.NAME, perf.sw.NAME, perf.type(T).config(C) and their counters.
 */
#include <fnmatch.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "debuginfo/userelf.h"
#include "front/diag.h"
#include "sema/points/points.h"
#include "sema/sema.h"

/* The kernel's generic perf events (perf_event_attr's type and config),
 * under the names SystemTap gives them. */
static const struct {
	const char *name;
	int type; /* 0 hardware, 1 software */
	int config;
} perf_events[] = {
	{ "cpu_cycles", 0, 0 },          { "cycles", 0, 0 },
	{ "instructions", 0, 1 },        { "cache_references", 0, 2 },
	{ "cache_misses", 0, 3 },        { "branch_instructions", 0, 4 },
	{ "branches", 0, 4 },            { "branch_misses", 0, 5 },
	{ "bus_cycles", 0, 6 },          { "stalled_cycles_frontend", 0, 7 },
	{ "stalled_cycles_backend", 0, 8 }, { "ref_cpu_cycles", 0, 9 },
	{ "cpu_clock", 1, 0 },           { "task_clock", 1, 1 },
	{ "page_faults", 1, 2 },         { "context_switches", 1, 3 },
	{ "cpu_migrations", 1, 4 },      { "page_faults_min", 1, 5 },
	{ "page_faults_maj", 1, 6 },     { "alignment_faults", 1, 7 },
	{ "emulation_faults", 1, 8 },
};

/* PERF_TYPE_HW_CACHE's caches and what of each the kernel can count
 * (bit 0 read, 1 write, 2 prefetch), as perf list names them. */
static const struct {
	const char *name;
	int ops;
} perf_caches[] = {
	{ "l1d", 7 }, { "l1i", 5 }, { "ll", 7 }, { "dtlb", 7 },
	{ "itlb", 1 }, { "bpu", 1 },  { "node", 3 },
};
static const char *const perf_cache_ops[] = { "read", "write", "prefetch" };

/* perf.hw_cache.CACHE.OP.access|miss: the kernel's config is the cache,
 * the operation shifted 8 and the result shifted 16. -1 when the name is
 * not one (diagnosed). */
static long long perf_cache_config(struct pp_ctx *c)
{
	if (c->n < 5) {
		unknown_shape(c);
		return -1;
	}
	int cache = -1, op = -1;
	struct suggest sg;
	suggest_init(&sg, c->comps[2].name);
	for (size_t i = 0; i < ARRAY_SIZE(perf_caches); i++) {
		suggest_offer(&sg, perf_caches[i].name);
		if (!strcmp(perf_caches[i].name, c->comps[2].name))
			cache = (int)i;
	}
	if (cache < 0) {
		diag_error(c->comps[2].loc, D_UNKNOWN_PROBE, "no cache '%s' for perf.hw_cache",
			   c->comps[2].name);
		suggest_hint(&sg, NULL);
		return -1;
	}
	for (int i = 0; i < 3; i++)
		if (comp_is(c, 3, perf_cache_ops[i]) && (perf_caches[cache].ops & 1 << i))
			op = i;
	if (op < 0) {
		diag_error(c->comps[3].loc, D_UNKNOWN_PROBE,
			   "perf.hw_cache.%s counts no '%s': it has %s%s%s", c->comps[2].name,
			   c->comps[3].name, "read", perf_caches[cache].ops & 2 ? ", write" : "",
			   perf_caches[cache].ops & 4 ? ", prefetch" : "");
		return -1;
	}
	bool miss = comp_is(c, 4, "miss");
	if (!miss && !comp_is(c, 4, "access")) {
		diag_error(c->comps[4].loc, D_UNKNOWN_PROBE,
			   "perf.hw_cache.%s.%s counts 'access' or 'miss'", c->comps[2].name,
			   c->comps[3].name);
		return -1;
	}
	return cache | op << 8 | (int)miss << 16;
}

/*
 * ...[.process[("PATH")]].counter("NAME"): not a probe that fires, but a
 * counting event in each thread of the processes running PATH (without
 * one, of the -c or -x target), which @perf("NAME") reads in that
 * thread's probes. The body never runs.
 */
static void perf_counter_point(struct pp_ctx *c, int next, long long type, long long config)
{
	char *path = NULL, *why = NULL;
	int pi = comp_is(c, next, "process") ? next++ : -1;
	if (next + 1 != c->n || !comp_is(c, next, "counter") || !c->comps[next].arg ||
	    c->comps[next].arg->kind != N_STR || !c->comps[next].arg->str[0]) {
		if (next < c->n && comp_is(c, next, "counter"))
			diag_error(c->comps[next].loc, D_BAD_PROBE_ARG,
				   "counter needs the counter's name: .counter(\"NAME\"), which @perf(\"NAME\") reads");
		else if (pi >= 0)
			diag_error(c->comps[pi].loc, D_UNKNOWN_PROBE,
				   "perf events of one program are counters here: add .counter(\"NAME\") and read it with @perf(\"NAME\")");
		else
			unknown_shape(c);
		return;
	}
	const struct comp *cc = &c->comps[next];
	const struct node *prog = pi >= 0 ? c->comps[pi].arg : NULL;
	if (prog && prog->kind != N_STR) {
		unknown_shape(c);
		return;
	}
	if (prog) {
		path = user_find_program(prog->str, &why);
		if (!path) {
			if (!c->pt->optional)
				diag_error(prog->loc, D_NO_PROGRAM, "%s", why);
			free(why);
			return;
		}
	} else if (!c->s->target_cmd && !c->s->target_pid) {
		diag_error(pi >= 0 ? c->comps[pi].loc : cc->loc, D_NO_PROGRAM,
			   "a counter without a program counts the -c or -x target: give -c CMD or -x PID, or name the program: .process(\"PATH\")");
		return;
	}
	for (size_t i = 0; i < c->s->prog.probes.n; i++) {
		const struct probe *o = c->s->prog.probes.v[i];
		if (o->kind == PK_PERF_COUNTER && !strcmp(o->symbol, cc->arg->str)) {
			diag_error(cc->arg->loc, D_BAD_PROBE_ARG, "counter \"%s\" is defined twice",
				   cc->arg->str);
			free(path);
			return;
		}
	}
	struct probe *p = add_probe(c, PK_PERF_COUNTER, NULL, 0);
	p->symbol = xstrdup(cc->arg->str);
	p->perf_type = type;
	p->perf_config = config;
	p->user_file = path;
}

/*
 * perf.hw.NAME, perf.sw.NAME, perf.hw_cache.CACHE.OP.RESULT and
 * perf.type(T).config(C), each with an optional .sample(N): a counter on
 * every CPU, and a hit every N events (1000000 by default, as in
 * SystemTap), with the registers where the Nth happened. Whether the CPU
 * has the counter is known only when the module starts: a guest under
 * emulation has no hardware ones.
 */
static void perf_point(struct pp_ctx *c)
{
	long long type = -1, config = -1, sample = 1000000;
	int next;
	if (c->n >= 3 && (comp_is(c, 1, "hw") || comp_is(c, 1, "sw"))) {
		int want = comp_is(c, 1, "hw") ? 0 : 1;
		struct suggest sg;
		suggest_init(&sg, c->comps[2].name);
		for (size_t i = 0; i < ARRAY_SIZE(perf_events) && type < 0; i++) {
			if (perf_events[i].type != want)
				continue;
			suggest_offer(&sg, perf_events[i].name);
			if (!strcmp(perf_events[i].name, c->comps[2].name)) {
				type = perf_events[i].type;
				config = perf_events[i].config;
			}
		}
		if (type < 0) {
			diag_error(c->comps[2].loc, D_UNKNOWN_PROBE, "no perf event perf.%s.%s",
				   c->comps[1].name, c->comps[2].name);
			suggest_hint(&sg, NULL);
			return;
		}
		next = 3;
	} else if (c->n >= 3 && comp_is(c, 1, "hw_cache")) {
		config = perf_cache_config(c);
		if (config < 0)
			return;
		type = 3;
		next = 5;
	} else if (c->n >= 3 && comp_is(c, 1, "type") && comp_is(c, 2, "config")) {
		if (!want_number(c, 1, true, &type) || !want_number(c, 2, true, &config))
			return;
		if (type < 0 || type > 0xffffffffLL) {
			diag_error(c->comps[1].arg->loc, D_BAD_PROBE_ARG,
				   "perf.type(%lld): a perf event type is 0 to 4294967295", type);
			return;
		}
		next = 3;
	} else {
		unknown_shape(c);
		return;
	}
	if (next < c->n && comp_is(c, next, "sample")) {
		if (!want_number(c, next, true, &sample))
			return;
		if (sample <= 0) {
			diag_error(c->comps[next].arg->loc, D_BAD_PROBE_ARG,
				   "sample(%lld): a hit every N events needs N > 0", sample);
			return;
		}
		next++;
	} else if (next < c->n && comp_is(c, next, "hz")) {
		/* N hits a second, the kernel adjusting the period (perf's -F N):
		 * kept as -N. */
		if (!want_number(c, next, true, &sample))
			return;
		if (sample <= 0 || sample > 100000) {
			diag_error(c->comps[next].arg->loc, D_BAD_PROBE_ARG,
				   "hz(%lld): a perf event samples 1 to 100000 times a second", sample);
			return;
		}
		sample = -sample;
		next++;
	}
	if (next < c->n && (comp_is(c, next, "process") || comp_is(c, next, "counter"))) {
		perf_counter_point(c, next, type, config);
		return;
	}
	if (next != c->n) {
		unknown_shape(c);
		return;
	}
	struct probe *p = add_probe(c, PK_PERF, NULL, 0);
	p->perf_type = type;
	p->perf_config = config;
	p->perf_sample = sample;
}

static const char *const perf_usage[] = {
	"perf.hw.NAME[.sample(N)|.hz(N)]",
	"perf.sw.NAME[.sample(N)|.hz(N)]",
	"perf.hw_cache.CACHE.OP.access|miss[.sample(N)|.hz(N)]",
	"perf.type(T).config(C)[.sample(N)|.hz(N)]",
	"perf.EVENT[.process(\"PATH\")].counter(\"NAME\")",
	NULL,
};
static const char *const perf_shapes[] = {
	"perf.hw",
	"perf.sw",
	"perf.hw_cache",
	"perf.type.config",
	"perf.type.config.sample",
	"perf.type.config.hz",
	"perf.hw.counter",
	"perf.sw.counter",
	"perf.hw.process.counter",
	"perf.sw.process.counter",
	"perf.hw_cache.counter",
	"perf.hw_cache.process.counter",
	NULL,
};

const struct family perf_family = {
	.first = "perf",
	.usage = perf_usage,
	.shapes = perf_shapes,
	.resolve = perf_point,
};
