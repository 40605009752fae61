// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The kernel's tracepoints (tracepoints.h). The names come from the
 * kernel's BTF: every tracepoint a BPF program may attach to has a
 * btf_trace_NAME typedef. BTF does not say which subsystem a tracepoint
 * belongs to, nor which event class (template) defines its arguments, so
 * those come from the trace event headers of the kernel's headers package
 * (include/trace/events/SYSTEM.h): each names its TRACE_SYSTEM and defines
 * its events with TRACE_EVENT(name, ...), DEFINE_EVENT(template, name, ...)
 * and their variants. Tracepoints of drivers, whose headers are not
 * shipped, have no system here.
 */
#include <ctype.h>
#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "debuginfo/btf.h"
#include "debuginfo/tracepoints.h"
#include "util.h"

/* An event a header defines. */
struct defined {
	char *name, *system, *template;
};

static int defined_cmp(const void *a, const void *b)
{
	return strcmp(((const struct defined *)a)->name, ((const struct defined *)b)->name);
}

/* The identifier at *p (advanced past it), or NULL. */
static char *ident(const char **p)
{
	while (**p == ' ' || **p == '\t' || **p == '\n' || **p == '\\')
		(*p)++;
	const char *s = *p;
	while (isalnum((unsigned char)**p) || **p == '_')
		(*p)++;
	return *p > s ? xstrndup(s, (size_t)(*p - s)) : NULL;
}

/* The macros that define an event: whether the first argument is its
 * template (the rest take the event's own name first). */
static const struct {
	const char *macro;
	bool template_first;
} event_macros[] = {
	{ "TRACE_EVENT", false }, { "TRACE_EVENT_FN", false }, { "TRACE_EVENT_FN_COND", false },
	{ "TRACE_EVENT_CONDITION", false }, { "DECLARE_TRACE", false },
	{ "DECLARE_TRACE_CONDITION", false }, { "DEFINE_EVENT", true }, { "DEFINE_EVENT_FN", true },
	{ "DEFINE_EVENT_PRINT", true }, { "DEFINE_EVENT_CONDITION", true },
};

/* The events one header defines, under the TRACE_SYSTEM in force at each. */
static void read_header(const char *path, struct defined **evs, size_t *n, size_t *cap)
{
	char *text = read_file(path, NULL);
	if (!text)
		return;
	char *system = NULL;
	for (const char *line = text; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
		const char *p = line;
		while (*p == ' ' || *p == '\t')
			p++;
		if (!strncmp(p, "#define TRACE_SYSTEM ", 21)) {
			p += 21;
			char *s = ident(&p);
			if (s) {
				free(system);
				system = s;
			}
			continue;
		}
		for (size_t m = 0; m < ARRAY_SIZE(event_macros); m++) {
			size_t len = strlen(event_macros[m].macro);
			if (strncmp(p, event_macros[m].macro, len) || p[len] != '(')
				continue;
			const char *q = p + len + 1;
			char *first = ident(&q), *second = NULL;
			if (event_macros[m].template_first && first) {
				while (*q == ' ' || *q == '\t' || *q == ',' || *q == '\n')
					q++;
				second = ident(&q);
			}
			const char *name = event_macros[m].template_first ? second : first;
			if (name && system) {
				if (*n == *cap) {
					*cap = *cap ? 2 * *cap : 512;
					*evs = xrealloc(*evs, *cap * sizeof **evs);
				}
				(*evs)[(*n)++] = (struct defined){ xstrdup(name), xstrdup(system), xstrdup(first) };
			}
			free(first);
			free(second);
			break;
		}
	}
	free(system);
	free(text);
}

/* The headers' directory: the build tree's own, or the one its Makefile
 * includes (Debian splits the headers into -common and -ARCH packages). */
static char *events_dir(const char *build_dir)
{
	char *dir = xasprintf("%s/include/trace/events", build_dir);
	if (is_dir(dir))
		return dir;
	free(dir);
	char *mk = xasprintf("%s/Makefile", build_dir);
	char *text = read_file(mk, NULL);
	free(mk);
	dir = NULL;
	if (text && !strncmp(text, "include ", 8)) {
		char *end = strstr(text + 8, "/Makefile");
		if (end) {
			*end = 0;
			dir = xasprintf("%s/include/trace/events", text + 8);
			if (!is_dir(dir)) {
				free(dir);
				dir = NULL;
			}
		}
	}
	free(text);
	return dir;
}

struct collect {
	struct tracepoint *tps;
	size_t n, cap;
};

static void add_name(const char *name, void *ctx)
{
	struct collect *c = ctx;
	if (c->n == c->cap) {
		c->cap = c->cap ? 2 * c->cap : 1024;
		c->tps = xrealloc(c->tps, c->cap * sizeof *c->tps);
	}
	c->tps[c->n++] = (struct tracepoint){ xstrdup(name), NULL, NULL };
}

static int tp_cmp(const void *a, const void *b)
{
	return strcmp(((const struct tracepoint *)a)->name, ((const struct tracepoint *)b)->name);
}

struct tracepoint *tracepoints_list(struct btf_source *kernel_btf, const char *build_dir, size_t *n)
{
	struct collect c = { 0 };
	btf_each_typedef(kernel_btf, "btf_trace_", add_name, &c);
	qsort(c.tps, c.n, sizeof *c.tps, tp_cmp);

	struct defined *evs = NULL;
	size_t nevs = 0, cap = 0;
	char *dir = build_dir ? events_dir(build_dir) : NULL;
	DIR *d = dir ? opendir(dir) : NULL;
	for (struct dirent *e; d && (e = readdir(d));) {
		size_t len = strlen(e->d_name);
		if (len > 2 && !strcmp(e->d_name + len - 2, ".h")) {
			char *path = path_join(dir, e->d_name);
			read_header(path, &evs, &nevs, &cap);
			free(path);
		}
	}
	if (d)
		closedir(d);
	free(dir);
	if (nevs)
		qsort(evs, nevs, sizeof *evs, defined_cmp);
	for (size_t i = 0; i < c.n; i++) {
		struct defined key = { c.tps[i].name, NULL, NULL };
		const struct defined *ev = nevs ? bsearch(&key, evs, nevs, sizeof *evs, defined_cmp) : NULL;
		if (ev) {
			c.tps[i].system = xstrdup(ev->system);
			c.tps[i].template = xstrdup(ev->template);
		}
	}
	for (size_t i = 0; i < nevs; i++) {
		free(evs[i].name);
		free(evs[i].system);
		free(evs[i].template);
	}
	free(evs);
	*n = c.n;
	return c.tps;
}

struct probe_site *tracepoint_site(struct btf_source *kernel_btf, const struct tracepoint *tp)
{
	/* The kernel's BPF entry for the event's class has its arguments, named,
	 * after the tracepoint's data pointer. */
	char *fn = xasprintf("__bpf_trace_%s", tp->template ? tp->template : tp->name);
	struct probe_site *s = btf_function_site(kernel_btf, fn);
	free(fn);
	/* Else the tracepoint's own prototype, whose arguments BTF leaves
	 * unnamed: $arg1, $arg2, ... */
	bool unnamed = !s;
	if (unnamed) {
		fn = xasprintf("btf_trace_%s", tp->name);
		s = btf_typedef_site(kernel_btf, fn);
		free(fn);
	}
	if (!s || s->nvars == 0)
		return NULL;
	free(s->vars[0].name);
	memmove(s->vars, s->vars + 1, (s->nvars - 1) * sizeof *s->vars);
	s->nvars--;
	for (size_t i = 0; unnamed && i < s->nvars; i++) {
		free(s->vars[i].name);
		s->vars[i].name = xasprintf("arg%zu", i + 1);
	}
	free(s->function);
	s->function = xstrdup(tp->name);
	s->return_type = NULL;
	s->return_type_name = NULL;
	return s;
}
