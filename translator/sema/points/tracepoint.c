// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * kernel.trace("[SYSTEM:]NAME"): the kernel's tracepoints.
 */
#include <fnmatch.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "debuginfo/btf.h"
#include "debuginfo/debugfind.h"
#include "debuginfo/kernel.h"
#include "debuginfo/tracepoints.h"
#include "front/diag.h"
#include "private.h"
#include "sema/points/points.h"
#include "sema/sema.h"

static void load_tracepoints(struct session *s, struct btf_source *b)
{
	if (!s->tracepoints)
		s->tracepoints = tracepoints_list(b, s->kernel->build_dir, s->kernel->running,
						  &s->tracepoint_systems_from, &s->ntracepoints);
}

const struct tracepoint *kernel_tracepoint(struct pp_ctx *c, const char *name, struct loc loc,
					   struct btf_source **btf)
{
	*btf = sema_kernel_btf(c->s);
	if (!*btf) {
		if (!c->pt->optional)
			diag_error(loc, D_NO_DEBUGINFO,
				   "this probe is a tracepoint found through the kernel's BTF, and "
				   "kernel %s has none%s",
				   c->s->release, c->s->force_symtab ? " in use (--symtab)" : "");
		return NULL;
	}
	load_tracepoints(c->s, *btf);
	for (size_t i = 0; i < c->s->ntracepoints; i++)
		if (!strcmp(c->s->tracepoints[i].name, name))
			return &c->s->tracepoints[i];
	if (!c->pt->optional)
		diag_error(loc, D_UNKNOWN_KERNEL_FUNCTION, "kernel %s has no tracepoint '%s'",
			   c->s->release, name);
	return NULL;
}

/* Does tracepoint tp match pattern "[SYSTEM:]NAME" (fnmatch in each part)? */
static bool tracepoint_matches(const struct tracepoint *tp, const char *pattern)
{
	const char *colon = strchr(pattern, ':');
	if (!colon)
		return !fnmatch(pattern, tp->name, 0);
	char *sys = xstrndup(pattern, (size_t)(colon - pattern));
	bool ok = tp->system && !fnmatch(sys, tp->system, 0) && !fnmatch(colon + 1, tp->name, 0);
	free(sys);
	return ok;
}

/* The installed modules' tracepoints, read once per kernel and modules
 * (cached by the kernel's build-id and modules.dep's time). */
static void load_module_tracepoints(struct session *s)
{
	if (s->module_tracepoints_read)
		return;
	s->module_tracepoints_read = true;
	sema_debuginfo(s);
	if (!s->debug_ix)
		return;
	char *cache = NULL;
	struct stat st;
	char *dep = xasprintf("/lib/modules/%s/modules.dep", s->release);
	if (s->kernel->build_id && stat(dep, &st) == 0) {
		char *dir = cache_dir("tracepoints");
		cache = xasprintf("%s/%s-%lld", dir, s->kernel->build_id, (long long)st.st_mtime);
		free(dir);
	}
	free(dep);
	if (s->verbose && cache && access(cache, F_OK) != 0)
		fprintf(stderr, "stap: reading the tracepoints of kernel %s's modules (once)\n",
			s->release);
	s->module_tracepoints = module_tracepoints_list(s->debug_ix, cache, &s->nmodule_tracepoints);
	free(cache);
}

/* Does "SYS" match one of a module's systems (or the module's name)?
 * *shown gets the one to show: the only system, else one named as the
 * module, else the module's name. */
static bool module_system_matches(const struct module_tracepoint *m, const char *sys,
				  char **shown)
{
	bool ok = !sys || !fnmatch(sys, m->module, 0), several = strchr(m->systems, ',') != NULL;
	*shown = NULL;
	for (const char *p = m->systems; *p;) {
		size_t n = strcspn(p, ",");
		char *one = xstrndup(p, n);
		ok = ok || !fnmatch(sys, one, 0);
		if (!*shown && (!several || !strcmp(one, m->module)))
			*shown = one;
		else
			free(one);
		p += n + (p[n] == ',');
	}
	if (!*shown)
		*shown = xstrdup(m->module);
	return ok;
}

/*
 * The module tracepoints pattern matches, as sites typed by each module's
 * BTF. A module whose headers define several trace systems (kvm: kvm and
 * kvmmmu) has each tracepoint matched by any of them: which is whose is
 * not in its symbols. Returns how many matched, sites made or not.
 */
static size_t module_trace_sites(struct pp_ctx *c, const char *pattern, struct ptrvec *sites)
{
	load_module_tracepoints(c->s);
	const char *colon = strchr(pattern, ':');
	char *sys = colon ? xstrndup(pattern, (size_t)(colon - pattern)) : NULL;
	const char *name = colon ? colon + 1 : pattern;
	size_t matched = 0;
	for (size_t i = 0; i < c->s->nmodule_tracepoints; i++) {
		const struct module_tracepoint *m = &c->s->module_tracepoints[i];
		char *shown;
		if (fnmatch(name, m->name, 0) || !module_system_matches(m, sys, &shown))
			continue;
		matched++;
		char *why = NULL;
		struct btf_source *mb = sema_module_btf(c->s, m->module, &why);
		struct tracepoint tp = { .name = m->name };
		struct probe_site *site = mb ? tracepoint_site(mb, &tp) : NULL;
		if (!site || site->nvars > TRACEPOINT_MAX_ARGS) {
			if (c->s->verbose)
				fprintf(stderr, "stap: tracepoint %s of module %s left out: %s\n",
					m->name, m->module,
					why ? why : !site ? "its BTF has no prototype for its event class"
						  : "it passes more arguments than a probe can take");
			free(why);
			free(shown);
			continue;
		}
		const char *ko = debugfind_installed(c->s->debug_ix, m->module);
		site->object = xstrdup(m->module);
		site->object_file = xstrdup(ko ? ko : m->module);
		site->build_id = ko ? debugfind_build_id(ko) : NULL;
		site->anchor = xstrdup(m->name);
		site->decl_file = shown;
		pv_push(sites, site);
	}
	free(sys);
	return matched;
}

/*
 * kernel.trace("[SYSTEM:]NAME"), wildcards in either part: the kernel's
 * tracepoints, from its BTF, each with its arguments as $variables typed
 * by the BTF prototype of the kernel's BPF entry for its event class.
 */
static void kernel_trace_point(struct pp_ctx *c)
{
	const struct comp *tc = &c->comps[1];
	if (c->n != 2 || !tc->arg || tc->arg->kind != N_STR) {
		if (c->n == 2 && (!tc->arg || tc->arg->kind != N_STR))
			diag_error(tc->arg ? tc->arg->loc : tc->loc, D_BAD_PROBE_ARG,
				   "'trace' takes a tracepoint's name in quotes, e.g. "
				   "trace(\"sched:sched_switch\")");
		else
			unknown_shape(c);
		return;
	}
	const char *pattern = tc->arg->str;
	struct btf_source *b = sema_kernel_btf(c->s);
	if (!b) {
		if (!c->pt->optional)
			diag_error(tc->arg->loc, D_NO_DEBUGINFO,
				   "tracepoints are found through the kernel's BTF, and kernel %s has "
				   "none%s",
				   c->s->release, c->s->force_symtab ? " in use (--symtab)" : "");
		return;
	}
	load_tracepoints(c->s, b);
	/* Without headers or tracefs, no tracepoint has a system: "SYS:NAME"
	 * is matched by its name, which only works for a name without
	 * wildcards; "sched:*" would be every tracepoint. */
	const char *colon = strchr(pattern, ':');
	bool by_name = colon && !c->s->tracepoint_systems_from;
	if (by_name && strpbrk(colon + 1, "*?[")) {
		if (!c->pt->optional)
			diag_error(tc->arg->loc, D_UNKNOWN_KERNEL_FUNCTION,
				   "which tracepoints are in system '%.*s' is unknown for kernel %s: it "
				   "has no headers here and tracefs cannot be read; install "
				   "linux-headers-%s, or name the tracepoints without their system",
				   (int)(colon - pattern), pattern, c->s->release, c->s->release);
		return;
	}
	if (by_name && c->s->verbose)
		fprintf(stderr, "stap: note: kernel %s has no headers here and tracefs cannot be "
				"read: tracepoint '%s' is matched by its name, its system unchecked\n",
			c->s->release, pattern);
	struct ptrvec sites = { 0 };
	size_t matched = 0;
	for (size_t i = 0; i < c->s->ntracepoints; i++) {
		const struct tracepoint *tp = &c->s->tracepoints[i];
		if (by_name ? fnmatch(colon + 1, tp->name, 0) != 0 : !tracepoint_matches(tp, pattern))
			continue;
		matched++;
		struct probe_site *site = tracepoint_site(b, tp);
		if (!site) {
			if (c->s->verbose)
				fprintf(stderr, "stap: tracepoint %s left out: BTF has no prototype for "
						"its event class\n", tp->name);
			continue;
		}
		if (site->nvars > TRACEPOINT_MAX_ARGS) {
			if (c->s->verbose)
				fprintf(stderr, "stap: tracepoint %s left out: it passes %zu arguments, "
						"more than the %d a probe can take\n",
					tp->name, site->nvars, TRACEPOINT_MAX_ARGS);
			continue;
		}
		site->object = xstrdup("kernel");
		site->object_file = xstrdup(c->s->kernel->btf_path);
		site->build_id = c->s->kernel->build_id ? xstrdup(c->s->kernel->build_id) : NULL;
		site->anchor = xstrdup(tp->name);
		site->decl_file = tp->system ? xstrdup(tp->system) : NULL;
		pv_push(&sites, site);
	}
	/* None of the kernel's: the modules' (kvm_exit), placed when their
	 * module is loaded. */
	if (!matched)
		matched = module_trace_sites(c, pattern, &sites);
	bool wild = strpbrk(pattern, "*?[") != NULL;
	char *what = xasprintf("'%s'", pattern);
	if (!too_many_matches(c, tc->arg->loc, what, sites.n, "tracepoints")) {
		for (size_t i = 0; i < sites.n; i++) {
			struct probe_site *site = sites.v[i];
			struct probe *p = add_site_probe(c, PK_TRACEPOINT, site);
			free(p->pp_text);
			p->pp_text = site->decl_file
					     ? xasprintf("kernel.trace(\"%s:%s\")", site->decl_file, site->function)
					     : xasprintf("kernel.trace(\"%s\")", site->function);
			p->from_wildcard = wild;
		}
	}
	free(what);
	if (!sites.n && !c->pt->optional) {
		if (matched)
			diag_error(tc->arg->loc, D_NO_DEBUGINFO,
				   "kernel %s has no BTF prototype for the tracepoints '%s' matches",
				   c->s->release, pattern);
		else {
			diag_error(tc->arg->loc, D_UNKNOWN_KERNEL_FUNCTION,
				   "kernel %s has no tracepoint matching '%s'", c->s->release, pattern);
			/* Offered as written: with the system when the pattern has one. */
			struct suggest sg;
			struct ptrvec full = { 0 };
			suggest_init(&sg, pattern);
			for (size_t i = 0; i < c->s->ntracepoints; i++) {
				const struct tracepoint *tp = &c->s->tracepoints[i];
				if (strchr(pattern, ':') && tp->system) {
					pv_push(&full, xasprintf("%s:%s", tp->system, tp->name));
					suggest_offer(&sg, full.v[full.n - 1]);
				} else {
					suggest_offer(&sg, tp->name);
				}
			}
			suggest_hint(&sg, NULL);
			pv_free_all(&full);
		}
	}
	pv_free(&sites);
}

static const char *const tracepoint_usage[] = {
	"kernel.trace(\"[system:]name\")",
	NULL,
};
static const char *const tracepoint_shapes[] = {
	"kernel.trace",
	NULL,
};

static bool tracepoint_takes(const struct pp_ctx *c)
{
	return comp_is(c, 0, "kernel") && comp_is(c, 1, "trace");
}

const struct family tracepoint_family = {
	.usage = tracepoint_usage,
	.shapes = tracepoint_shapes,
	.takes = tracepoint_takes,
	.resolve = kernel_trace_point,
};
