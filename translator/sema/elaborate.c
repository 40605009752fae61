// SPDX-License-Identifier: GPL-2.0-or-later
/* Pass 2 as a whole: its steps in order (see sema.h), and its -p2 output. */
#include <stdio.h>

#include "debuginfo/kernel.h"
#include "sema/sema.h"

int sema_elaborate(struct session *s)
{
	int errors = resolve_names(s);
	/* Probe points and types need names; checking them after a name error
	 * would only report its consequences. */
	if (errors)
		return errors;
	errors += probes_resolve(s);
	errors += types_check(s);
	return errors;
}

static const char *kind_text(enum probe_kind k)
{
	switch (k) {
	case PK_BEGIN:
		return "begin";
	case PK_END:
		return "end";
	case PK_TIMER:
		return "timer";
	case PK_KPROBE:
		return "kprobe";
	case PK_KRETPROBE:
		return "kretprobe";
	}
	return "?";
}

void sema_print(const struct session *s, FILE *f)
{
	const struct program *prog = &s->prog;
	fprintf(f, "# target kernel %s, build-id %s\n", s->kernel->release, s->kernel->build_id);
	if (prog->globals.n)
		fprintf(f, "# globals\n");
	for (size_t i = 0; i < prog->globals.n; i++) {
		const struct symbol *g = prog->globals.v[i];
		fprintf(f, "%s:%s\n", g->name, ast_type_name(g->type));
	}
	if (prog->functions.n)
		fprintf(f, "# functions\n");
	for (size_t i = 0; i < prog->functions.n; i++) {
		const struct symbol *fn = prog->functions.v[i];
		fprintf(f, "%s:%s (", fn->name, ast_type_name(fn->type));
		for (size_t k = 0; k < fn->vars.n; k++) {
			const struct symbol *v = fn->vars.v[k];
			fprintf(f, "%s%s%s:%s", k == (size_t)fn->nparams ? ") locals: " : k ? ", " : "",
				v->name, "", ast_type_name(v->type));
		}
		fprintf(f, "%s\n", fn->vars.n > (size_t)fn->nparams ? "" : ")");
	}
	fprintf(f, "# probes\n");
	for (size_t i = 0; i < prog->probes.n; i++) {
		const struct probe *p = prog->probes.v[i];
		fprintf(f, "%s /* %s", p->pp_text, kind_text(p->kind));
		if (p->symbol)
			fprintf(f, " %s", p->symbol);
		if (p->kind == PK_TIMER)
			fprintf(f, " every %lld ns", p->period_ns);
		fprintf(f, ", handler %d */\n", p->handler->index);
	}
	for (size_t i = 0; i < prog->handlers.n; i++) {
		const struct handler *h = prog->handlers.v[i];
		if (!h->vars.n)
			continue;
		fprintf(f, "# handler %d locals:", h->index);
		for (size_t k = 0; k < h->vars.n; k++) {
			const struct symbol *v = h->vars.v[k];
			fprintf(f, " %s:%s", v->name, ast_type_name(v->type));
		}
		fputc('\n', f);
	}
}
