// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Pass 2 as a whole: its steps in order (see sema.h), the compile-time
 * folding between them, and its -p2 output.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "debuginfo/kernel.h"
#include "front/diag.h"
#include "sema/builtins.h"
#include "sema/sema.h"

/*
 * @defined(EXPR) is decided before names are resolved, so that a branch
 * for information this probe does not have (a '$variable' it lacks) is
 * dropped and never checked, as SystemTap does: `@defined($x) ? $x : 0`.
 * A target expression is defined when the probe's site resolves it (a
 * variable in scope, members that exist); anything else is.
 */
static void find_target(struct node *n, void *found)
{
	if (n->kind == N_TARGET || n->kind == N_CAST || n->kind == N_ATVAR || n->kind == N_AUTOCAST ||
	    n->kind == N_ENTRY)
		*(bool *)found = true;
	else
		ast_for_children(n, find_target, found);
}

bool sema_uses_targets(struct node *n)
{
	bool found = false;
	find_target(n, &found);
	return found;
}

/* The built-ins that read the hit's registers: the positional ones,
 * int_arg() to returnval() in builtins.h, print_regs(), and the call
 * chains, which start from them. */
static void find_register_read(struct node *n, void *found)
{
	const struct builtin *b = n->kind == N_CALL && n->name ? builtin_find(n->name) : NULL;
	if (b && ((b->id >= B_INT_ARG && b->id <= B_RETURNVAL) || b->id == B_BACKTRACE ||
		  b->id == B_PRINT_BACKTRACE || b->id == B_SPRINT_BACKTRACE || b->id == B_PRINT_REGS ||
		  b->id == B_PRINT_BACKTRACE_FILELINE))
		*(bool *)found = true;
	ast_for_children(n, find_register_read, found);
}

bool sema_uses_register_builtins(struct node *n)
{
	bool found = false;
	find_register_read(n, &found);
	return found;
}

bool sema_uses_registers(struct node *n)
{
	bool found = sema_uses_targets(n);
	if (!found)
		find_register_read(n, &found);
	return found;
}

struct fold_ctx {
	struct session *s;
	struct handler *h; /* NULL in a function */
};

/* What @defined(...) knows of its operand before types: false, true, or
 * (an autocast member, whose base's type inference has yet to learn)
 * later: types_check decides, then sema_fold_late folds. */
struct defined_ctx {
	struct fold_ctx *f;
	bool ok, later;
};

static void target_defined(struct node *n, void *ctx)
{
	struct defined_ctx *d = ctx;
	struct fold_ctx *f = d->f;
	if (!d->ok)
		return;
	if (n->kind == N_TARGET)
		d->ok = f->h && (target_is_procfs_value(f->s, f->h, n) ||
				 target_is_nf_verdict(f->s, f->h, n) ||
				 target_resolve(f->s, f->h, n, false, true) != NULL);
	else if (n->kind == N_ENTRY)
		d->ok = f->h && f->h->site && f->h->is_return;
	else if (n->kind == N_ATVAR)
		d->ok = target_resolve_atvar(f->s, f->h, n, true) != NULL;
	else if (n->kind == N_CAST)
		/* The type and its members: the address is never read here. */
		d->ok = target_resolve_cast(f->s, f->h, n, true) != NULL;
	else if (n->kind == N_AUTOCAST)
		d->later = true;
	if (d->ok && n->kind != N_TARGET)
		ast_for_children(n, target_defined, ctx);
}

static bool constant(const struct node *n, long long *v)
{
	if (n->kind != N_NUM)
		return false;
	*v = n->num;
	return true;
}

static void become(struct node *n, const struct node *with)
{
	struct node *next = n->next, *tail = n->tail;
	struct loc loc = n->loc;
	*n = *with;
	n->next = next;
	n->tail = tail;
	(void)loc;
}

static void fold(struct node *n, void *ctx)
{
	ast_for_children(n, fold, ctx);
	long long a, b;
	switch (n->kind) {
	case N_DEFINED: {
		/* Late (no ctx): what types_check decided; undecided is false. */
		struct defined_ctx d = { ctx, true, false };
		if (ctx)
			target_defined(n->lhs, &d);
		else
			d.ok = n->num > 0;
		if (d.ok && d.later) {
			n->num = -1;
			return;
		}
		n->kind = N_NUM;
		n->num = d.ok;
		n->lhs = NULL;
		return;
	}
	case N_UNARY:
		if (n->op == OP_NOT && constant(n->lhs, &a)) {
			n->kind = N_NUM;
			n->num = !a;
		}
		return;
	case N_BINARY:
		if ((n->op == OP_AND || n->op == OP_OR) && constant(n->lhs, &a) &&
		    constant(n->rhs, &b)) {
			n->kind = N_NUM;
			n->num = n->op == OP_AND ? (a && b) : (a || b);
		}
		return;
	case N_TERNARY:
		if (constant(n->cond, &a))
			become(n, a ? n->then : n->els);
		return;
	case N_IF:
		if (constant(n->cond, &a)) {
			struct node *keep = a ? n->then : n->els;
			if (keep) {
				become(n, keep);
			} else {
				n->kind = N_EMPTY;
				n->cond = n->then = n->els = NULL;
			}
		}
		return;
	default:
		return;
	}
}

/* Is c @defined(...), or built from it with '!', '&&' and '||'? */
static bool built_from_defined(const struct node *c)
{
	while (c->kind == N_UNARY && c->op == OP_NOT)
		c = c->lhs;
	return c->kind == N_DEFINED ||
	       (c->kind == N_BINARY && (c->op == OP_AND || c->op == OP_OR) &&
		(built_from_defined(c->lhs) || built_from_defined(c->rhs)));
}

/* Only expressions that are exactly @defined (or built from them) fold:
 * other constant conditions keep their branches, which are still checked. */
static void fold_defined(struct node *n, void *ctx)
{
	bool has = (n->kind == N_IF || n->kind == N_TERNARY) && built_from_defined(n->cond);
	if (has || n->kind == N_DEFINED) {
		fold(n, ctx);
		/* The kept branch may hold more. */
		ast_for_children(n, fold_defined, ctx);
		return;
	}
	ast_for_children(n, fold_defined, ctx);
}

void sema_fold_late(struct session *s)
{
	for (size_t i = 0; i < s->prog.handlers.n; i++)
		fold_defined(((struct handler *)s->prog.handlers.v[i])->body, NULL);
	for (size_t i = 0; i < s->prog.all_functions.n; i++)
		fold_defined(((struct symbol *)s->prog.all_functions.v[i])->decl->body, NULL);
}

/* -G NAME=VALUE: a global's initial value from the command line. */
static int apply_global_inits(struct session *s)
{
	int errors = 0;
	for (size_t i = 0; i < s->global_inits.n; i++) {
		const char *arg = s->global_inits.v[i];
		const char *eq = strchr(arg, '=');
		char *name = xstrndup(arg, (size_t)(eq - arg));
		struct symbol *g = sema_find_global(s, name, s->prog.user_file);
		if (!g || g->is_array) {
			fprintf(stderr, "stap: -G %s: the script has no global scalar '%s'\n", arg, name);
			errors++;
			free(name);
			continue;
		}
		struct loc loc = g->decl->loc;
		char *end;
		errno = 0;
		long long v = strtoll(eq + 1, &end, 0);
		struct node *init;
		if (eq[1] && !*end && !errno) {
			init = ast_new(N_NUM, loc);
			init->num = v;
		} else {
			init = ast_new(N_STR, loc);
			init->str = xstrdup(eq + 1);
			init->str_len = strlen(eq + 1);
		}
		g->decl->lhs = init;
		g->type = init->kind == N_STR ? T_STRING : T_LONG;
		g->assigned = true;
		free(name);
	}
	return errors;
}

int sema_elaborate(struct session *s)
{
	int errors = declarations_collect(s);
	errors += apply_global_inits(s);
	if (errors)
		return errors;
	errors += probes_resolve(s);
	errors += uprobes_symbol_files(s);
	for (size_t i = 0; i < s->prog.handlers.n; i++) {
		struct fold_ctx f = { s, s->prog.handlers.v[i] };
		fold_defined(f.h->body, &f);
	}
	for (size_t i = 0; i < s->prog.all_functions.n; i++) {
		struct fold_ctx f = { s, NULL };
		fold_defined(((struct symbol *)s->prog.all_functions.v[i])->decl->body, &f);
	}
	/* Probe points and types need names; checking them after a name error
	 * would only report its consequences. */
	if (errors)
		return errors;
	elide_dead_code(s);
	errors += resolve_names(s);
	if (errors)
		return errors;
	errors += types_check(s);
	if (!errors) {
		counters_find(s);
		sema_kernel_lines(s);
	}
	callees_fold(s);
	return errors;
}

static const char *kind_text(enum probe_kind k)
{
	switch (k) {
	case PK_BEGIN:
		return "begin";
	case PK_END:
		return "end";
	case PK_ERROR:
		return "error";
	case PK_TIMER:
		return "timer";
	case PK_KPROBE:
		return "kprobe";
	case PK_KRETPROBE:
		return "kretprobe";
	case PK_TRACEPOINT:
		return "tracepoint";
	case PK_PROFILE:
		return "timer on every CPU";
	case PK_PERF:
		return "perf counter on every CPU";
	case PK_UPROBE:
		return "uprobe";
	case PK_URETPROBE:
		return "uretprobe";
	case PK_PROCESS_BEGIN:
		return "process begin";
	case PK_PROCESS_END:
		return "process end";
	case PK_THREAD_BEGIN:
		return "thread begin";
	case PK_THREAD_END:
		return "thread end";
	case PK_PROCFS_READ:
		return "procfs read";
	case PK_PROCFS_WRITE:
		return "procfs write";
	case PK_NETFILTER:
		return "netfilter hook";
	case PK_HWBKPT:
		return "hardware watchpoint";
	case PK_PERF_COUNTER:
		return "perf counter per thread";
	case PK_SYSCALL:
		return "system call entry";
	case PK_SYSCALL_RETURN:
		return "system call return";
	}
	return "?";
}

static void print_global(FILE *f, const struct symbol *g)
{
	fprintf(f, "%s:%s", g->name, ast_type_name(g->type));
	if (g->is_array) {
		fputc('[', f);
		for (int k = 0; k < g->nkeys && k < MAX_KEYS; k++)
			fprintf(f, "%s%s", k ? ", " : "", ast_type_name(g->key_types[k]));
		fputc(']', f);
	}
	if (g->type == T_STATS) {
		fputs(" (", f);
		bool first = true;
		for (int a = AGG_COUNT; a <= AGG_HIST_LOG; a++) {
			if (!(g->aggs & (1u << a)))
				continue;
			fprintf(f, "%s%s", first ? "" : " ", ast_agg_name((enum agg)a));
			first = false;
		}
		fputc(')', f);
	}
	fputc('\n', f);
}

void sema_print(const struct session *s, FILE *f)
{
	const struct program *prog = &s->prog;
	fprintf(f, "# target kernel %s, build-id %s\n", s->kernel->release, s->kernel->build_id);
	if (prog->globals.n)
		fprintf(f, "# globals\n");
	for (size_t i = 0; i < prog->globals.n; i++)
		print_global(f, prog->globals.v[i]);
	if (prog->functions.n)
		fprintf(f, "# functions\n");
	for (size_t i = 0; i < prog->functions.n; i++) {
		const struct symbol *fn = prog->functions.v[i];
		fprintf(f, "%s:%s (", fn->name, ast_type_name(fn->type));
		for (size_t k = 0; k < fn->vars.n; k++) {
			const struct symbol *v = fn->vars.v[k];
			fprintf(f, "%s%s:%s", k == (size_t)fn->nparams ? ") locals: " : k ? ", " : "",
				v->name, ast_type_name(v->type));
		}
		fprintf(f, "%s\n", fn->vars.n > (size_t)fn->nparams ? "" : ")");
	}
	fprintf(f, "# probes\n");
	for (size_t i = 0; i < prog->probes.n; i++) {
		const struct probe *p = prog->probes.v[i];
		fprintf(f, "%s /* %s", p->pp_text, kind_text(p->kind));
		if (p->symbol)
			fprintf(f, " %s%s%s", p->module ? p->module : "", p->module ? ":" : "",
				p->symbol);
		if (p->kind == PK_HWBKPT)
			fprintf(f, " at %s0x%llx, %lld bytes, %s", p->text_offset ? "_text+" : "",
				(unsigned long long)(p->text_offset ? p->text_offset : (uint64_t)p->offset),
				p->perf_config, p->perf_type == 2 ? "writes" : "reads and writes");
		else if (p->offset)
			fprintf(f, "%+lld", (long long)p->offset);
		if (p->site && p->site->build_id)
			fprintf(f, " (build-id %s)", p->site->build_id);
		if (p->kind == PK_TIMER)
			fprintf(f, " every %lld ns", p->period_ns);
		if (p->kind == PK_PERF)
			fprintf(f, p->perf_sample < 0 ? " type %lld config %lld %lld a second"
						       : " type %lld config %lld every %lld events",
				p->perf_type, p->perf_config,
				p->perf_sample < 0 ? -p->perf_sample : p->perf_sample);
		if (p->kind == PK_PERF_COUNTER)
			fprintf(f, " type %lld config %lld in %s", p->perf_type, p->perf_config,
				p->user_file ? p->user_file : "the target");
		if (p->kind == PK_TIMER && p->spread_ns)
			fprintf(f, " +- %lld ns", p->spread_ns);
		fprintf(f, ", handler %d */\n", p->handler->index);
	}
	for (size_t i = 0; i < prog->handlers.n; i++) {
		const struct handler *h = prog->handlers.v[i];
		if (!h->vars.n && !h->aliases.n)
			continue;
		fprintf(f, "# handler %d", h->index);
		for (size_t k = 0; k < h->aliases.n; k++) {
			char *name = ast_probe_point_text(((struct node *)h->aliases.v[k])->then);
			fprintf(f, "%s%s", k ? " -> " : " through alias ", name);
			free(name);
		}
		if (h->vars.n)
			fputs(" locals:", f);
		for (size_t k = 0; k < h->vars.n; k++) {
			const struct symbol *v = h->vars.v[k];
			fprintf(f, " %s:%s", v->name, ast_type_name(v->type));
		}
		fputc('\n', f);
	}
}

static int str_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void sema_list(const struct session *s, FILE *f)
{
	const struct program *prog = &s->prog;
	char **lines = xcalloc(prog->probes.n + 1, sizeof *lines);
	size_t n = 0;
	for (size_t i = 0; i < prog->probes.n; i++) {
		const struct probe *p = prog->probes.v[i];
		struct strbuf b;
		sb_init(&b);
		/* A probe through aliases is listed by the alias the script named
		 * (syscall.openat), with the variables its blocks set, as
		 * SystemTap lists them; then the point's own target variables. */
		const struct handler *h = p->handler;
		if (h->aliases.n) {
			char *name = ast_probe_point_text(((struct node *)h->aliases.v[0])->then);
			sb_puts(&b, name);
			free(name);
			for (size_t k = 0; s->list == 2 && k < h->vars.n; k++) {
				const struct symbol *v = h->vars.v[k];
				sb_printf(&b, " %s:%s", v->name, ast_type_name(v->type));
			}
		} else {
			sb_puts(&b, p->pp_text);
		}
		if (s->list == 2 && p->site) {
			site_load_vars(p->site);
			for (size_t k = 0; k < p->site->nvars; k++) {
				const struct tvar *v = &p->site->vars[k];
				if ((p->kind == PK_KRETPROBE || p->kind == PK_URETPROBE) && !v->is_param)
					continue;
				sb_printf(&b, " $%s:%s", v->name,
					  v->type_name ? v->type_name : v->type->name ? v->type->name : "?");
			}
			const struct ctype *rt = p->site->return_type;
			if ((p->kind == PK_KRETPROBE || p->kind == PK_URETPROBE) && rt && rt->kind != CT_VOID)
				sb_printf(&b, " $return:%s",
					  p->site->return_type_name ? p->site->return_type_name : rt->name);
		}
		lines[n++] = sb_detach(&b);
	}
	qsort(lines, n, sizeof *lines, str_cmp);
	for (size_t i = 0; i < n; i++)
		if (!i || strcmp(lines[i], lines[i - 1]))
			fprintf(f, "%s\n", lines[i]);
	for (size_t i = 0; i < n; i++)
		free(lines[i]);
	free(lines);
}
