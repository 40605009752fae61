/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The built-in probe point families (probes.c), for derive.c: a point that
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

/* runtime/kernel-calls.txt: the "hit" patterns. */
struct ptrvec probes_runtime_calls(const char *runtime_dir);

#endif
