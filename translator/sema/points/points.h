/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Inside the probe point families (translator/sema/points/, one file per
 * family, the table in families.c): what they share while they turn one
 * point into concrete probes (common.c).
 */
#ifndef TAPLINE_POINTS_H
#define TAPLINE_POINTS_H

#include "debuginfo/dw.h"
#include "sema/probes.h"

struct comp {
	const char *name;
	const struct node *arg; /* N_NUM, N_STR or NULL */
	struct loc loc;
};

struct pp_ctx {
	struct session *s;
	struct point *pt;
	struct node *pp;
	struct comp comps[8];
	int n;
	int made;          /* probes made so far */
	long long maxactive; /* ".return.maxactive(N)": return probes' own limit; 0: none */
};

/* A probe of kind on symbol (NULL: the point itself names it); arg: a
 * timer's period, a begin/end probe's priority. */
struct probe *add_probe(struct pp_ctx *c, enum probe_kind kind, const char *symbol, long long arg);
/* A probe on a site found through debug information (or a marker). */
struct probe *add_site_probe(struct pp_ctx *c, enum probe_kind kind, struct probe_site *site);
bool comp_is(const struct pp_ctx *c, int i, const char *name);
bool want_number(const struct pp_ctx *c, int i, bool required, long long *out);
/* .function("f") with nothing after it. */
bool plain_function(const struct pp_ctx *c);
/* "unknown probe point" with the nearest known shapes. */
void unknown_shape(struct pp_ctx *c);
/* True (after the error) when n matches are more than MAXWILDCARD allows. */
bool too_many_matches(const struct pp_ctx *c, struct loc loc, const char *what, size_t n,
		      const char *noun);
/* A .return match of a wildcard that returns nothing while the body reads $return. */
bool returns_nothing_for(struct pp_ctx *c, enum probe_kind kind, bool wild,
			 const struct probe_site *site);
/* "NAME[@FILE[:LINE[-LAST]]]" */
bool split_function_spec(const char *spec, char **func, char **file, int *line, int *line_last);
void offer_name(const char *name, void *sg);
/* For a statement probe that matched nothing: the nearest lines that have one. */
void statement_hint(struct dw *d, const char *module, const char *module_file,
		    const struct dw_query *q);

/* inside.c: whether the point is function("F") followed by .callee,
 * .callees or .label. */
bool function_inside_point(const struct pp_ctx *c);
/* function("F").callee("P")[.call|.return] and function("F").callees[(N)]
 * (comps[2]), callers being F's DWARF sites: how many probes. */
int callee_probes(struct pp_ctx *c, const char *module_file, const struct ptrvec *callers);
/* function("F").label("L") (comps[2]), functions being F's DWARF sites. */
void label_probes(struct pp_ctx *c, const struct ptrvec *functions);
/* kernel.c: a probe on a site in the kernel's DWARF, if the kernel would
 * take one there; NULL if not. */
struct probe *kernel_site_probe(struct pp_ctx *c, enum probe_kind kind, struct probe_site *site,
				bool wild);

struct tracepoint;
struct btf_source;
/* The kernel tracepoint named name, with the BTF it was found in; NULL
 * (after the error, unless the point is optional) if there is none. */
const struct tracepoint *kernel_tracepoint(struct pp_ctx *c, const char *name, struct loc loc,
					   struct btf_source **btf);

enum query_kind { Q_FUNCTIONS, Q_STATEMENTS, Q_INLINES };
/* A DWARF query's sites, through the probe cache when it has them. */
int query_sites(struct pp_ctx *c, enum query_kind kind, const char *object,
		const char *module_file, const char *build_id, const struct dw_query *q,
		struct ptrvec *sites, size_t *left_out, char **why);

/*
 * A probe point family (one file of points/ each): which points it takes,
 * how it makes their probes, and what a user is shown of it. To add one,
 * write its file and add it to the table in families.c.
 */
struct family {
	const char *first;         /* it takes every point whose first component this is */
	bool (*takes)(const struct pp_ctx *c); /* or, when first is NULL, those this says */
	const char *const *usage;  /* its points as the "unknown probe point" hint lists them */
	const char *const *shapes; /* its points' shapes, offered as "did you mean" */
	void (*resolve)(struct pp_ctx *c);
};
extern const struct family timer_family, perf_family, kernel_family, module_family,
	tracepoint_family, process_family, procfs_family, netfilter_family, data_family;

#endif
