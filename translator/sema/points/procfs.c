// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * procfs("NAME").read and .write: files under /proc/systemtap/MODULE/.
 */
#include <ctype.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "front/diag.h"
#include "sema/points/points.h"
#include "sema/sema.h"

/*
 * procfs[("NAME")][.umask(U)].read[.maxsize(N)] and .write: the file
 * /proc/systemtap/MODULE/NAME ("command" when unnamed), read or written
 * by anyone its mode lets (0444 for reading, 0200 for writing, less the
 * umask and PROCFS_UMASK, which leaves root alone by default). $value
 * holds MAXSTRINGLEN bytes, or N; each of the PROCFS_MAXOPEN opens the
 * file may have at once has one, so N that many times must fit in
 * MAXMEMORY (the runtime checks the default, a share of the machine's).
 */
static void procfs_point(struct pp_ctx *c)
{
	const char *name = "command";
	long long umask = 0, maxsize = 0;
	int i = 1;
	if (c->comps[0].arg) {
		if (c->comps[0].arg->kind != N_STR) {
			diag_error(c->comps[0].arg->loc, D_BAD_PROBE_ARG,
				   "procfs(\"NAME\") takes a file name");
			return;
		}
		name = c->comps[0].arg->str;
		bool ok = *name && strcmp(name, ".") && strcmp(name, "..") && strlen(name) < 64;
		for (const char *p = name; ok && *p; p++)
			ok = isalnum((unsigned char)*p) || *p == '_' || *p == '-' || *p == '.';
		if (!ok) {
			diag_error(c->comps[0].arg->loc, D_BAD_PROBE_ARG,
				   "procfs(\"%s\"): a file name is letters, digits, '_', '-' and '.' "
				   "(at most 63, not '.' or '..')", name);
			return;
		}
	}
	if (i < c->n && comp_is(c, i, "umask")) {
		if (!want_number(c, i, true, &umask))
			return;
		if (umask < 0 || umask > 0777) {
			diag_error(c->comps[i].loc, D_BAD_PROBE_ARG,
				   "umask(%llo): a umask is 0 to 0777", (unsigned long long)umask);
			return;
		}
		i++;
	}
	enum probe_kind kind;
	if (i < c->n && comp_is(c, i, "read"))
		kind = PK_PROCFS_READ;
	else if (i < c->n && comp_is(c, i, "write"))
		kind = PK_PROCFS_WRITE;
	else {
		unknown_shape(c);
		return;
	}
	i++;
	if (kind == PK_PROCFS_READ && i < c->n && comp_is(c, i, "maxsize")) {
		if (!want_number(c, i, true, &maxsize))
			return;
		if (maxsize < 1 || maxsize > 1 << 24) {
			diag_error(c->comps[i].loc, D_BAD_PROBE_ARG,
				   "maxsize(%lld): 1 to 16777216 bytes", maxsize);
			return;
		}
		long long opens = c->s->limits[LIMIT_PROCFS_MAXOPEN];
		long long memory_kb = c->s->limits[LIMIT_MAXMEMORY];
		if (memory_kb && maxsize * opens > memory_kb * 1024) {
			diag_error(c->comps[i].loc, D_BAD_PROBE_ARG,
				   "maxsize(%lld): PROCFS_MAXOPEN = %lld opens of %lld bytes each "
				   "need %lld KiB, more than MAXMEMORY = %lld KiB",
				   maxsize, opens, maxsize, (maxsize * opens + 1023) / 1024, memory_kb);
			diag_hint("a smaller maxsize, -D PROCFS_MAXOPEN=N, or a larger -D MAXMEMORY=KIB");
			return;
		}
		i++;
	}
	if (i != c->n) {
		unknown_shape(c);
		return;
	}
	struct probe *p = add_probe(c, kind, name, 0);
	/* pp() names the file, as SystemTap's does, also when the point did not. */
	char *tail = ast_probe_point_text(c->pp);
	const char *rest = c->comps[0].arg ? strchr(tail, ')') + 1 : tail + strlen(c->comps[0].name);
	free(p->pp_text);
	p->pp_text = xasprintf("procfs(\"%s\")%s", name, rest);
	free(tail);
	p->procfs_umask = umask | c->s->limits[LIMIT_PROCFS_UMASK];
	p->procfs_maxsize = maxsize;
}

static const char *const procfs_usage[] = {
	"procfs[(\"NAME\")][.umask(U)].read[.maxsize(N)]",
	"procfs[(\"NAME\")][.umask(U)].write",
	NULL,
};
static const char *const procfs_shapes[] = {
	"procfs.read",
	"procfs.write",
	"procfs.umask.read",
	"procfs.umask.write",
	"procfs.read.maxsize",
	"procfs.umask.read.maxsize",
	NULL,
};

const struct family procfs_family = {
	.first = "procfs",
	.usage = procfs_usage,
	.shapes = procfs_shapes,
	.resolve = procfs_point,
};
