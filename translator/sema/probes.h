/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The built-in probe point families (points/), for derive.c: a point that
 * is not an alias becomes concrete probes, each attached to the handler
 * the caller supplies (made only when a probe needs it).
 */
#ifndef TAPLINE_PROBES_H
#define TAPLINE_PROBES_H

#include "session.h"

struct point {
	struct node *pp;                    /* the N_PROBE_POINT */
	bool optional;                      /* it, or a point it came through, has '?' */
	bool uses_targets;                  /* its body (or an alias's block) reads $variables */
	const struct ptrvec *runtime_calls; /* patterns of kernel functions a hit calls */
	const struct ptrvec *alias_names;   /* for "did you mean" */
	struct handler *(*handler)(void *arg, bool fresh);
	void *arg;
};

/* The concrete probes for a point; returns how many (0: none, reported
 * unless optional). */
int probe_point_resolve(struct session *s, struct point *pt);
/* Each family's points as its usage writes them ("timer.ms(N)", ...), in
 * the families' order: the hint for an unknown point, stap
 * --dump-probe-types and the manual page's check. */
void probe_point_usages(void (*fn)(const char *usage, void *ctx), void *ctx);
/* Whether some family takes the point (by its component names). */
bool probe_point_taken(struct node *pp);
/* Each family's point shapes, component names only ("kernel.function.return"). */
void probe_point_shapes(void (*fn)(const char *shape, void *ctx), void *ctx);

/*
 * probecache.c (stap --probe-cache). probe_cache_query looks up what a DWARF
 * query (query: "functions", "statements", "inlines") found before for the
 * object with this build-id, when handler h reads the same target
 * expressions: on a hit it appends those sites and returns true. On a miss
 * ref says what to save; after the query, probe_cache_remember keeps its
 * sites (from index from) for probe_cache_save, or probe_cache_forget drops
 * ref.
 */
struct probe_cache_ref {
	char *build_id, *key, *what;
	struct ptrvec names;
	bool has_atvar, with_vars;
};
struct dw_query;
bool probe_cache_query(struct session *s, struct handler *h, const char *object,
		       const char *build_id, const char *query, const struct dw_query *q,
		       struct probe_cache_ref *ref, struct ptrvec *sites);
void probe_cache_remember(struct session *s, struct probe_cache_ref *ref, const struct ptrvec *sites,
			  size_t from);
void probe_cache_forget(struct probe_cache_ref *ref);

/* runtime/kernel-calls.txt: the "hit" patterns. */
struct ptrvec probes_runtime_calls(const char *runtime_dir);

#endif
