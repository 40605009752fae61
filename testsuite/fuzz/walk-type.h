/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * For the fuzz targets: complete a type and what it reaches, a few levels
 * down, as a script reaching into it would, so the readers' lazy parts run.
 */
#ifndef TAPLINE_FUZZ_WALK_TYPE_H
#define TAPLINE_FUZZ_WALK_TYPE_H

#include "debuginfo/target.h"

static void walk_type(struct ctype *t, int depth)
{
	if (!t || depth > 4)
		return;
	ctype_complete(t);
	if (t->target)
		walk_type(t->target, depth + 1);
	for (size_t i = 0; i < t->nmembers; i++)
		walk_type(t->members[i].type, depth + 1);
}

#endif
