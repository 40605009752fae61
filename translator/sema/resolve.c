// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Name resolution: every variable and call in the script gets its symbol.
 * Globals and functions are collected from all files first; then each probe
 * body and each reachable function is walked with its own scope. A name
 * that is neither a local, a parameter nor a global becomes a new local, as
 * in SystemTap. Functions reached only through the tapset library are
 * elaborated only when the script calls them.
 *
 * Also here, because they need the same walk: loop and probe placement of
 * break/continue/next/return, and which globals each handler reads and
 * writes (through the functions it calls too), so pass 3 can lock them.
 */
#include <string.h>

#include "front/diag.h"
#include "sema/builtins.h"
#include "sema/sema.h"

struct scope {
	struct ptrvec *vars;     /* where new locals go */
	struct symbol *func;     /* NULL in a probe body */
	struct handler *handler; /* NULL in a function */
	int loops;
};

struct resolver {
	struct session *s;
	struct ptrvec functions; /* every function declared (struct symbol *) */
	struct ptrvec globals;   /* every global declared */
	struct ptrvec worklist;  /* reachable functions still to walk */
	struct scope *sc;
};

static struct symbol *find(const struct ptrvec *syms, const char *name)
{
	for (size_t i = 0; i < syms->n; i++) {
		struct symbol *sym = syms->v[i];
		if (!strcmp(sym->name, name))
			return sym;
	}
	return NULL;
}

static struct symbol *new_symbol(enum sym_kind kind, const char *name, struct loc loc,
				 struct node *decl)
{
	struct symbol *sym = xcalloc(1, sizeof *sym);
	sym->kind = kind;
	sym->name = name;
	sym->loc = loc;
	sym->decl = decl;
	return sym;
}

static void add_unique(struct ptrvec *v, void *p)
{
	for (size_t i = 0; i < v->n; i++)
		if (v->v[i] == p)
			return;
	pv_push(v, p);
}

static bool in_user_file(const struct resolver *r, struct loc loc)
{
	return loc.file == r->s->prog.user_file;
}

static void collect_declarations(struct resolver *r)
{
	struct ptrvec *decls = &r->s->prog.decls;
	for (size_t i = 0; i < decls->n; i++) {
		struct node *d = decls->v[i];
		if (d->kind == N_FUNCTION) {
			struct symbol *old = find(&r->functions, d->name);
			if (old) {
				diag_error(d->loc, D_REDEFINED, "function '%s' is defined twice", d->name);
				diag_note(old->loc, "the first definition is here");
				continue;
			}
			if (builtin_find(d->name)) {
				diag_error(d->loc, D_REDEFINED,
					   "'%s' is a built-in function and cannot be redefined", d->name);
				continue;
			}
			struct symbol *f = new_symbol(SYM_FUNCTION, d->name, d->loc, d);
			f->type = d->decl_type;
			for (struct node *p = d->list; p; p = p->next) {
				if (find(&f->vars, p->name)) {
					diag_error(p->loc, D_REDEFINED, "parameter '%s' appears twice",
						   p->name);
					continue;
				}
				struct symbol *ps = new_symbol(SYM_PARAM, p->name, p->loc, p);
				ps->type = p->decl_type;
				ps->assigned = true;
				ps->index = f->nparams++;
				pv_push(&f->vars, ps);
			}
			pv_push(&r->functions, f);
		} else if (d->kind == N_GLOBAL) {
			struct symbol *old = find(&r->globals, d->name);
			if (old) {
				diag_error(d->loc, D_REDEFINED, "global '%s' is declared twice", d->name);
				diag_note(old->loc, "the first declaration is here");
				continue;
			}
			struct symbol *g = new_symbol(SYM_GLOBAL, d->name, d->loc, d);
			if (d->lhs) {
				g->type = d->lhs->kind == N_STR ? T_STRING : T_LONG;
				g->assigned = true;
			}
			pv_push(&r->globals, g);
		}
	}
}

static void reach(struct resolver *r, struct symbol *f)
{
	f->reachable = true;
	add_unique(&r->worklist, f);
}

struct offer_ctx {
	struct suggest *sg;
};

static void offer_name(const char *name, void *ctx)
{
	suggest_offer(((struct offer_ctx *)ctx)->sg, name);
}

static void unknown_function(struct resolver *r, struct node *call)
{
	diag_error(call->loc, D_UNKNOWN_FUNCTION, "unknown function '%s'", call->name);
	struct suggest sg;
	suggest_init(&sg, call->name);
	for (size_t i = 0; i < r->functions.n; i++)
		suggest_offer(&sg, ((struct symbol *)r->functions.v[i])->name);
	struct offer_ctx oc = { &sg };
	builtin_each_name(offer_name, &oc);
	suggest_hint(&sg, NULL);
}

/* Which globals the code being walked reads and writes. */
static void note_global(struct resolver *r, struct symbol *g, bool write, bool read)
{
	struct ptrvec *rd, *wr;
	if (r->sc->func) {
		rd = &r->sc->func->globals_rd;
		wr = &r->sc->func->globals_wr;
	} else {
		rd = &r->sc->handler->globals_rd;
		wr = &r->sc->handler->globals_wr;
	}
	if (write) {
		add_unique(wr, g);
		g->assigned = true;
	}
	if (read) {
		add_unique(rd, g);
		g->read = true;
	}
}

static struct symbol *lookup_var(struct resolver *r, struct node *n)
{
	struct symbol *sym = find(r->sc->vars, n->name);
	if (sym)
		return sym;
	sym = find(&r->globals, n->name);
	if (sym)
		return sym;
	sym = new_symbol(SYM_LOCAL, n->name, n->loc, n);
	pv_push(r->sc->vars, sym);
	return sym;
}

static void walk(struct resolver *r, struct node *n);

static void walk_child(struct node *child, void *ctx)
{
	walk(ctx, child);
}

/* A variable being assigned (write) and maybe read, e.g. by "+=" or "++". */
static void walk_lvalue(struct resolver *r, struct node *n, bool also_read)
{
	if (n->kind != N_VAR) {
		walk(r, n);
		return; /* types.c reports that it cannot be assigned */
	}
	struct symbol *sym = lookup_var(r, n);
	n->sym = sym;
	if (sym->kind == SYM_GLOBAL) {
		note_global(r, sym, true, also_read);
	} else {
		sym->assigned = true;
		sym->read |= also_read;
	}
}

static void walk(struct resolver *r, struct node *n)
{
	switch (n->kind) {
	case N_VAR: {
		struct symbol *sym = lookup_var(r, n);
		n->sym = sym;
		if (sym->kind == SYM_GLOBAL)
			note_global(r, sym, false, true);
		else
			sym->read = true;
		return;
	}
	case N_ASSIGN:
		walk(r, n->rhs);
		walk_lvalue(r, n->lhs, n->op != OP_ASSIGN);
		return;
	case N_INCDEC:
		walk_lvalue(r, n->lhs, true);
		return;
	case N_CALL: {
		for (struct node *a = n->list; a; a = a->next)
			walk(r, a);
		struct symbol *f = find(&r->functions, n->name);
		if (f) {
			n->sym = f;
			reach(r, f);
			add_unique(r->sc->func ? &r->sc->func->calls : &r->sc->handler->calls, f);
			return;
		}
		n->builtin = builtin_find(n->name);
		if (!n->builtin)
			unknown_function(r, n);
		return;
	}
	case N_WHILE:
	case N_FOR:
		if (n->init)
			walk(r, n->init);
		if (n->cond)
			walk(r, n->cond);
		r->sc->loops++;
		walk(r, n->body);
		if (n->step)
			walk(r, n->step);
		r->sc->loops--;
		return;
	case N_BREAK:
	case N_CONTINUE:
		if (!r->sc->loops)
			diag_error(n->loc, D_MISPLACED, "'%s' outside of a loop",
				   n->kind == N_BREAK ? "break" : "continue");
		return;
	case N_NEXT:
		if (r->sc->func) {
			diag_error(n->loc, D_MISPLACED, "'next' is only allowed in a probe body");
			diag_hint("use 'return' to leave a function");
		}
		return;
	case N_RETURN:
		if (!r->sc->func) {
			diag_error(n->loc, D_MISPLACED, "'return' is not allowed in a probe body");
			diag_hint("use 'next' to leave a probe early");
		}
		if (n->lhs)
			walk(r, n->lhs);
		return;
	case N_PROBE:
	case N_PROBE_POINT:
	case N_PP_COMP:
	case N_GLOBAL:
	case N_FUNCTION:
	case N_PARAM:
	case N_BLOCK:
	case N_EXPR_STMT:
	case N_IF:
	case N_EMPTY:
	case N_NUM:
	case N_STR:
	case N_TARGET:
	case N_BINARY:
	case N_UNARY:
	case N_TERNARY:
	case N_NKINDS:
		ast_for_children(n, walk_child, r);
		return;
	}
}

static void walk_function(struct resolver *r, struct symbol *f)
{
	struct scope sc = { .vars = &f->vars, .func = f };
	r->sc = &sc;
	walk(r, f->decl->body);
	r->sc = NULL;
}

/* A handler locks every global it or the functions it calls touch. */
static void fold_callee(struct handler *h, struct symbol *f, struct ptrvec *seen)
{
	for (size_t i = 0; i < seen->n; i++)
		if (seen->v[i] == f)
			return;
	pv_push(seen, f);
	for (size_t i = 0; i < f->globals_rd.n; i++)
		add_unique(&h->globals_rd, f->globals_rd.v[i]);
	for (size_t i = 0; i < f->globals_wr.n; i++)
		add_unique(&h->globals_wr, f->globals_wr.v[i]);
	for (size_t i = 0; i < f->calls.n; i++)
		fold_callee(h, f->calls.v[i], seen);
}

static void fold_locks(struct handler *h)
{
	struct ptrvec seen = { 0 };
	for (size_t i = 0; i < h->calls.n; i++)
		fold_callee(h, h->calls.v[i], &seen);
	pv_free(&seen);
}

static void warn_unused(struct resolver *r)
{
	for (size_t i = 0; i < r->functions.n; i++) {
		struct symbol *f = r->functions.v[i];
		if (!f->reachable && in_user_file(r, f->loc))
			diag_warning(f->loc, D_UNUSED, "function '%s' is never called", f->name);
	}
	for (size_t i = 0; i < r->globals.n; i++) {
		struct symbol *g = r->globals.v[i];
		if (!g->read && !g->assigned && in_user_file(r, g->loc))
			diag_warning(g->loc, D_UNUSED, "global '%s' is never used", g->name);
		else if (!g->read && in_user_file(r, g->loc))
			diag_warning(g->loc, D_UNUSED, "global '%s' is assigned but never read",
				     g->name);
	}
}

static void warn_never_assigned(struct resolver *r, const struct ptrvec *vars)
{
	for (size_t i = 0; i < vars->n; i++) {
		struct symbol *v = vars->v[i];
		if (v->kind != SYM_LOCAL || v->assigned)
			continue;
		diag_warning(v->loc, D_NEVER_ASSIGNED,
			     "local variable '%s' is never assigned; it reads as 0 or \"\"", v->name);
		struct suggest sg;
		suggest_init(&sg, v->name);
		for (size_t k = 0; k < r->globals.n; k++)
			suggest_offer(&sg, ((struct symbol *)r->globals.v[k])->name);
		for (size_t k = 0; k < vars->n; k++)
			if (vars->v[k] != v)
				suggest_offer(&sg, ((struct symbol *)vars->v[k])->name);
		suggest_hint(&sg, NULL);
	}
}

int resolve_names(struct session *s)
{
	int before = diag_errors();
	struct resolver r = { .s = s };
	struct program *prog = &s->prog;
	collect_declarations(&r);

	/* Probe bodies of the user's script; a tapset's probes are aliases,
	 * which Tapline does not handle yet. */
	for (size_t i = 0; i < prog->decls.n; i++) {
		struct node *d = prog->decls.v[i];
		if (d->kind != N_PROBE || !in_user_file(&r, d->loc))
			continue;
		struct handler *h = xcalloc(1, sizeof *h);
		h->index = (int)prog->handlers.n;
		h->decl = d;
		pv_push(&prog->handlers, h);
		struct scope sc = { .vars = &h->vars, .handler = h };
		r.sc = &sc;
		walk(&r, d->body);
		r.sc = NULL;
	}
	/* Every function of the user's script is checked, called or not. */
	for (size_t i = 0; i < r.functions.n; i++) {
		struct symbol *f = r.functions.v[i];
		if (in_user_file(&r, f->loc))
			add_unique(&r.worklist, f);
	}
	for (size_t i = 0; i < r.worklist.n; i++)
		walk_function(&r, r.worklist.v[i]);

	for (size_t i = 0; i < prog->handlers.n; i++)
		fold_locks(prog->handlers.v[i]);

	/* Keep what is used, numbered in declaration order. */
	for (size_t i = 0; i < r.functions.n; i++) {
		struct symbol *f = r.functions.v[i];
		if (f->reachable) {
			f->index = (int)prog->functions.n;
			pv_push(&prog->functions, f);
		}
	}
	for (size_t i = 0; i < r.globals.n; i++) {
		struct symbol *g = r.globals.v[i];
		if (g->read || g->assigned || in_user_file(&r, g->loc)) {
			g->index = (int)prog->globals.n;
			pv_push(&prog->globals, g);
		}
	}
	warn_unused(&r);
	for (size_t i = 0; i < prog->handlers.n; i++)
		warn_never_assigned(&r, &((struct handler *)prog->handlers.v[i])->vars);
	for (size_t i = 0; i < r.worklist.n; i++)
		warn_never_assigned(&r, &((struct symbol *)r.worklist.v[i])->vars);

	if (prog->handlers.n == 0 && diag_errors() == before)
		diag_error((struct loc){ prog->user_file, 1, 1 }, D_NO_PROBES,
			   "the script has no probes");
	pv_free(&r.worklist);
	return diag_errors() - before;
}
