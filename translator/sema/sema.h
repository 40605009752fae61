/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Pass 2, elaboration: the parsed declarations become a checked program.
 * Its steps run in this order, each reading only what the earlier ones
 * produced:
 *   resolve_names   names -> symbols, handlers, reachable functions, locks
 *   probes_resolve  probe points -> concrete probes (kernel symbols, timers)
 *   types_check     types of every expression, format strings, $return
 */
#ifndef TAPLINE_SEMA_H
#define TAPLINE_SEMA_H

#include "session.h"

/* The whole pass; returns the number of errors. */
int sema_elaborate(struct session *s);

int resolve_names(struct session *s);
int probes_resolve(struct session *s);
int types_check(struct session *s);

/* Print the resolved program (stap -p2). */
void sema_print(const struct session *s, FILE *f);

#endif
