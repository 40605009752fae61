// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What is inside a function, after kernel.function("F") or
 * module("M").function("F"): its labels, .label("L"), and its callees.
 *
 * .callee("P") and .callees[(N)]: the functions F calls, as its DWARF's call
 * sites name them, each probed at its entry (or, .callee(P).return, its
 * return) and counted only when called from one of those places: the
 * runtime compares the return address the callee finds on its stack with
 * the call sites' (rt_called_through). .callees(N) goes N calls deep, a
 * callee at depth k counting only when the k calls leading to it are the
 * ones found. Calls through pointers are not in DWARF; a tail call (a jump
 * to the callee, which then returns to F's caller) leaves nothing of F on
 * the stack, so it is left out too (-v counts them).
 */
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "debuginfo/dw.h"
#include "front/diag.h"
#include "sema/points/points.h"
#include "sema/sema.h"

/* The deepest .callees(N): the runtime unwinds at most this far. */
#define MAX_CALLEE_DEPTH 8
/* Call-site chains one point may gather before it is refused. */
#define MAX_CHAINS 20000

/* One path of calls from F, and the call sites along it. */
struct callee_path {
	const struct callee_path *parent; /* NULL: called by F itself */
	const struct probe_site *root;    /* F: the function (of F's matches) it starts in */
	char *name, *file;      /* the function at its end */
	const char *object;     /* of the function calling it ("kernel" or a module) */
	const char *module_file;
	char *text;             /* ".callee(\"b\").callee(\"c\")" */
	int depth;
	bool inlined;           /* its last step is a copy inlined into the caller */
	struct probe_site *site; /* where its probe goes; NULL: no out-of-line copy found */
	bool resolved;
	/* The return addresses of the path's real calls (struct tstatic *,
	 * the innermost first): one chain per way of getting here. */
	struct ptrvec chains;   /* struct ptrvec * */
};

struct callee_walk {
	struct pp_ctx *c;
	const char *module_file;
	struct ptrvec paths;    /* struct callee_path * */
	size_t nchains, tail_calls;
	bool too_many;
};

bool function_inside_point(const struct pp_ctx *c)
{
	return c->n >= 3 && comp_is(c, 1, "function") &&
	       (comp_is(c, 2, "callee") || comp_is(c, 2, "callees") || comp_is(c, 2, "label"));
}

/* A site of the kernel or of a module as a probe: the kernel's are checked
 * against what the kernel refuses, as its other sites are. */
static struct probe *site_probe(struct pp_ctx *c, enum probe_kind kind, struct probe_site *site)
{
	return strcmp(site->object, "kernel") ? add_site_probe(c, kind, site)
					       : kernel_site_probe(c, kind, site, true);
}

/* Does the callee's declaration file name the site's (one may be relative)? */
static bool same_file(const char *a, const char *b)
{
	if (!a || !b)
		return true;
	size_t la = strlen(a), lb = strlen(b);
	const char *longer = la >= lb ? a : b, *shorter = la >= lb ? b : a;
	size_t ls = strlen(shorter), ll = strlen(longer);
	return !strcmp(longer + ll - ls, shorter) && (ll == ls || longer[ll - ls - 1] == '/');
}

/* The out-of-line copy of a called function (a static name may be
 * several: the one declared where the call's target is). */
static struct probe_site *path_site(struct callee_walk *w, struct callee_path *path)
{
	if (path->resolved)
		return path->site;
	path->resolved = true;
	struct dw_query q = { .function = path->name };
	/* A module's call to the kernel names a function only declared there. */
	for (int pass = 0; pass < 2 && !path->site; pass++) {
		if (pass && !strcmp(path->object, "kernel"))
			break;
		struct ptrvec sites = { 0 };
		size_t left_out = 0;
		char *why = NULL;
		dw_functions(sema_debuginfo(w->c->s), pass ? "kernel" : path->object,
			     pass ? NULL : path->module_file, &q, &sites, &left_out, &why);
		free(why);
		/* Several functions of the name: the one where the call's
		 * target was defined, else the first. */
		for (size_t i = 0; i < sites.n && !path->site; i++) {
			struct probe_site *s = sites.v[i];
			if (!s->is_inline && same_file(s->decl_file, path->file))
				path->site = s;
		}
		for (size_t i = 0; i < sites.n && !path->site; i++)
			if (!((struct probe_site *)sites.v[i])->is_inline)
				path->site = sites.v[i];
		pv_free(&sites);
	}
	return path->site;
}

/* The path one call beyond from (NULL: F): a call to the same function
 * from the same path shares it; each inlined copy is a place of its own. */
static struct callee_path *path_for(struct callee_walk *w, const struct probe_site *caller,
				    const struct callee_path *from, const struct dw_call *call,
				    int depth)
{
	for (size_t i = 0; i < w->paths.n && !call->inlined; i++) {
		struct callee_path *p = w->paths.v[i];
		if (p->parent == from && p->root == (from ? from->root : caller) && !p->inlined &&
		    !strcmp(p->name, call->callee) && !strcmp(p->object, caller->object) &&
		    same_file(p->file, call->callee_file))
			return p;
	}
	struct callee_path *p = xcalloc(1, sizeof *p);
	p->parent = from;
	p->root = from ? from->root : caller;
	p->object = caller->object;
	p->module_file = strcmp(caller->object, "kernel") ? w->module_file : NULL;
	p->name = xstrdup(call->callee);
	p->file = call->callee_file ? xstrdup(call->callee_file) : NULL;
	p->text = xasprintf("%s.callee(\"%s\")", from ? from->text : "", call->callee);
	p->depth = depth;
	p->inlined = call->inlined != NULL;
	p->site = call->inlined;
	p->resolved = p->inlined;
	pv_push(&w->paths, p);
	return p;
}

/* Each call the caller (F, or the function at the end of from) makes:
 * its path one deeper, and the chains one real call longer. */
static void extend(struct callee_walk *w, struct probe_site *caller, struct callee_path *from,
		   int depth)
{
	struct ptrvec calls = { 0 };
	char *why = NULL;
	if (dw_call_sites(caller, &calls, &why) < 0) {
		free(why);
		return;
	}
	for (size_t i = 0; i < calls.n && !w->too_many; i++) {
		struct dw_call *call = calls.v[i];
		if (call->tail) {
			w->tail_calls++;
			continue;
		}
		struct callee_path *to = path_for(w, caller, from, call, depth);
		size_t nfrom = from ? from->chains.n : 1;
		for (size_t k = 0; k < nfrom; k++) {
			/* The return addresses are shared by the chains and kept
			 * by the probes made (codegen's static objects). */
			struct ptrvec *chain = xcalloc(1, sizeof *chain);
			if (call->ret)
				pv_push(chain, call->ret);
			if (from) {
				const struct ptrvec *outer = from->chains.v[k];
				for (size_t j = 0; j < outer->n; j++)
					pv_push(chain, outer->v[j]);
			}
			pv_push(&to->chains, chain);
			if (++w->nchains > MAX_CHAINS)
				w->too_many = true;
		}
	}
	for (size_t i = 0; i < calls.n; i++)
		dw_call_free(calls.v[i]);
	pv_free(&calls);
}

/*
 * .callee(P)[.call|.return] or .callees[(N)] at comps[2]: *pattern and
 * *depth (callees of every depth to it when *every), *is_return. False
 * (after the error) when the point is not one of those shapes.
 */
static bool callee_shape(struct pp_ctx *c, const char **pattern, int *depth, bool *every,
		  bool *is_return)
{
	const struct comp *k = &c->comps[2];
	*is_return = false;
	*every = false;
	*depth = 1;
	if (comp_is(c, 2, "callee")) {
		/* A wildcard's shape ("kernel.function(\"f\").*") is optional: it
		 * names no callee, so it places none. */
		if (!k->arg || k->arg->kind != N_STR) {
			if (!c->pt->optional)
				diag_error(k->arg ? k->arg->loc : k->loc, D_BAD_PROBE_ARG,
					   "'callee' takes a function name in quotes, e.g. callee(\"rw_verify_area\")");
			return false;
		}
		*pattern = k->arg->str;
		if (c->n == 4 && (comp_is(c, 3, "return") || comp_is(c, 3, "call"))) {
			*is_return = comp_is(c, 3, "return");
			return true;
		}
		if (c->n == 3)
			return true;
		unknown_shape(c);
		return false;
	}
	*pattern = "*";
	*every = true;
	long long n = 1;
	if (c->n != 3 || !want_number(c, 2, false, &n)) {
		if (c->n != 3)
			unknown_shape(c);
		return false;
	}
	if (n < 1 || n > MAX_CALLEE_DEPTH) {
		diag_error(k->arg->loc, D_BAD_PROBE_ARG, "callees(%lld): the depth is 1 to %d", n,
			   MAX_CALLEE_DEPTH);
		return false;
	}
	*depth = (int)n;
	return true;
}

/* The probe checks the path's real calls on the stack: at the entry of an
 * out-of-line callee, or inside the function an inlined copy is in. A
 * path of inlined copies only needs no check: its code is F's own. */
static void placed_chains(struct probe *pr, struct callee_path *p)
{
	const struct ptrvec *first = p->chains.n ? p->chains.v[0] : NULL;
	/* By name, not through ftrace: the check needs the entry's registers. */
	pr->text_offset = 0;
	if (!first || !first->n)
		return;
	pr->callers_depth = (int)first->n;
	for (size_t k = 0; k < p->chains.n; k++) {
		pv_push(&pr->callers, p->chains.v[k]);
		p->chains.v[k] = NULL;
	}
	p->chains.n = 0;
}

static void free_paths(struct ptrvec *paths)
{
	for (size_t i = 0; i < paths->n; i++) {
		struct callee_path *p = paths->v[i];
		for (size_t k = 0; k < p->chains.n; k++) {
			struct ptrvec *chain = p->chains.v[k];
			if (chain)
				pv_free(chain);
			free(chain);
		}
		pv_free(&p->chains);
		free(p->name);
		free(p->file);
		free(p->text);
		free(p);
	}
	pv_free(paths);
}

int callee_probes(struct pp_ctx *c, const char *module_file, const struct ptrvec *callers)
{
	struct loc loc = c->comps[2].arg ? c->comps[2].arg->loc : c->comps[2].loc;
	const char *pattern;
	int depth;
	bool every, is_return;
	if (!callee_shape(c, &pattern, &depth, &every, &is_return))
		return 0;
	struct callee_walk w = { .c = c, .module_file = module_file };
	size_t level_from = 0;
	for (size_t i = 0; i < callers->n; i++) {
		struct probe_site *caller = callers->v[i];
		if (!caller->is_inline)
			extend(&w, caller, NULL, 1);
	}
	/* One level deeper at a time, through the callees' own call sites. */
	for (int d = 2; d <= depth && !w.too_many; d++) {
		size_t level_to = w.paths.n;
		for (size_t i = level_from; i < level_to && !w.too_many; i++) {
			struct callee_path *p = w.paths.v[i];
			struct probe_site *site = path_site(&w, p);
			if (site)
				extend(&w, site, p, d);
		}
		level_from = level_to;
	}
	if (w.too_many) {
		diag_error(loc, D_BAD_PROBE_ARG,
			   "the calls to follow reach more than %d chains of call sites", MAX_CHAINS);
		diag_hint("a smaller depth, or a narrower function or callee pattern");
		free_paths(&w.paths);
		return 0;
	}
	size_t wanted = 0;
	for (size_t i = 0; i < w.paths.n; i++) {
		struct callee_path *p = w.paths.v[i];
		if ((every || p->depth == depth) && !fnmatch(pattern, p->name, 0))
			wanted++;
	}
	int placed = 0;
	char *what = xasprintf("'%s'", pattern);
	if (!too_many_matches(c, loc, what, wanted, "callees")) {
		for (size_t i = 0; i < w.paths.n; i++) {
			struct callee_path *p = w.paths.v[i];
			if (!(every || p->depth == depth) || fnmatch(pattern, p->name, 0))
				continue;
			/* An inlined copy has no return of its own. */
			struct probe_site *site = p->inlined && is_return ? NULL : path_site(&w, p);
			if (!site) {
				if (c->s->verbose)
					fprintf(stderr, "stap: callee %s (%s) left out: %s\n", p->name,
						p->text, p->inlined ? "an inlined copy has no return"
								    : "no out-of-line copy in the DWARF");
				continue;
			}
			struct probe *pr = site_probe(c, is_return ? PK_KRETPROBE : PK_KPROBE, site);
			if (!pr)
				continue;
			placed_chains(pr, p);
			const char *at = strstr(pr->pp_text, ".function(");
			if (at) {
				char *text = xasprintf("%.*s.function(\"%s\")%s%s", (int)(at - pr->pp_text),
						       pr->pp_text, p->root->function, p->text,
						       is_return ? ".return" : "");
				free(pr->pp_text);
				pr->pp_text = text;
			}
			placed++;
		}
	}
	free(what);
	if (c->s->verbose && w.tail_calls)
		fprintf(stderr, "stap: %zu tail calls left out: the function that jumps is not on the callee's stack\n",
			w.tail_calls);
	if (!placed && !c->pt->optional && !diag_errors())
		diag_error(loc, D_UNKNOWN_KERNEL_FUNCTION,
			   "no callee matching '%s' of '%s' can be probed: %s", pattern,
			   c->comps[1].arg->str,
			   wanted ? "none has an out-of-line copy the kernel would take"
				  : "its DWARF names no such call (calls through pointers are not known)");
	free_paths(&w.paths);
	return placed;
}

/* The labels matching comps[2]'s pattern in the functions of callers. */
void label_probes(struct pp_ctx *c, const struct ptrvec *callers)
{
	const struct comp *lc = &c->comps[2];
	if (c->n != 3 || !lc->arg || lc->arg->kind != N_STR) {
		if (c->n != 3)
			unknown_shape(c);
		else if (!c->pt->optional)
			diag_error(lc->arg ? lc->arg->loc : lc->loc, D_BAD_PROBE_ARG,
				   "'label' takes a label's name in quotes, e.g. label(\"out\")");
		return;
	}
	struct ptrvec sites = { 0 };
	for (size_t i = 0; i < callers->n; i++)
		if (!((struct probe_site *)callers->v[i])->is_inline)
			dw_labels(callers->v[i], lc->arg->str, &sites);
	size_t placed = 0;
	char *what = xasprintf("'%s'", lc->arg->str);
	if (!too_many_matches(c, lc->arg->loc, what, sites.n, "labels"))
		for (size_t i = 0; i < sites.n; i++)
			placed += site_probe(c, PK_KPROBE, sites.v[i]) != NULL;
	free(what);
	if (!placed && !c->pt->optional)
		diag_error(lc->arg->loc, D_UNKNOWN_KERNEL_FUNCTION,
			   "no label matching '%s' in '%s' can be probed%s", lc->arg->str,
			   c->comps[1].arg->str,
			   sites.n ? "" : ": its DWARF has none with an address (the compiler "
					  "drops labels it leaves no code at)");
	pv_free(&sites);
}
