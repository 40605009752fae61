/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Pass 5: run the module. Locally through staprun, or with --vm in a
 * throwaway guest (vm.c) that boots the target kernel.
 */
#ifndef TAPLINE_RUN_H
#define TAPLINE_RUN_H

#include <stdbool.h>

#include "session.h"

/* Before any work: can pass 5 run here at all? Says why not (one line). */
bool run_possible(const struct session *s);
/* Returns the exit status stap should end with. */
int run_module(struct session *s);

#endif
