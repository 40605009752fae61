// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Names: every declaration is collected first (declarations_collect); then,
 * once probes_resolve has given each handler its body, every variable,
 * array and call in the handlers and the functions they reach gets its
 * symbol (resolve_names). A name that is neither a local, a parameter nor
 * a visible global becomes a new local, as in SystemTap; arrays and
 * statistics must be declared global. A private global or function is
 * visible only from its own file (each node knows its file). Functions
 * may be overloaded by their number of parameters.
 *
 * Also here, because they need the same walk: loop and probe placement of
 * break/continue/next/return, and which globals each handler reads and
 * writes (through the functions it calls too), so pass 3 can lock them: a
 * write lock is exclusive, a read lock shared. '<<<' into a statistic only
 * needs a shared lock (each CPU adds to its own copy); reading a statistic
 * merges the copies, which needs the exclusive one.
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

static bool visible(const struct symbol *sym, int file)
{
	return !sym->decl->is_private || sym->decl->loc.file == file;
}

/* Whether code in file is the tapset library's. */
static bool in_tapset(int file)
{
	const struct source *src = file >= 0 ? src_get(file) : NULL;
	return src && src->is_tapset;
}

struct symbol *sema_find_global(const struct session *s, const char *name, int file)
{
	const struct ptrvec *g = &s->prog.all_globals;
	struct symbol *any = NULL;
	/* The library sees its own globals only: a script's `global n` must
	 * not become the n a tapset function counts with. */
	bool lib = in_tapset(file);
	for (size_t i = 0; i < g->n; i++) {
		struct symbol *sym = g->v[i];
		if (strcmp(sym->name, name) || !visible(sym, file) ||
		    (lib && !in_tapset(sym->decl->loc.file)))
			continue;
		/* A private global of this file hides a public one. */
		if (sym->decl->is_private)
			return sym;
		any = sym;
	}
	return any;
}

struct symbol *sema_find_function(const struct session *s, const char *name, int nargs, int file)
{
	const struct ptrvec *f = &s->prog.all_functions;
	struct symbol *any = NULL;
	for (size_t i = 0; i < f->n; i++) {
		struct symbol *sym = f->v[i];
		if (strcmp(sym->name, name) || !visible(sym, file) ||
		    (nargs >= 0 && sym->nparams != nargs))
			continue;
		if (sym->decl->is_private)
			return sym;
		any = sym;
	}
	return any;
}

static struct symbol *new_symbol(enum sym_kind kind, const char *name, struct loc loc,
				 struct node *decl)
{
	struct symbol *sym = xcalloc(1, sizeof *sym);
	sym->kind = kind;
	sym->name = name;
	sym->loc = loc;
	sym->type_loc = loc;
	sym->decl = decl;
	sym->nkeys = -1;
	return sym;
}

static void add_unique(struct ptrvec *v, void *p)
{
	for (size_t i = 0; i < v->n; i++)
		if (v->v[i] == p)
			return;
	pv_push(v, p);
}

static bool in_user_file(const struct session *s, struct loc loc)
{
	return loc.file == s->prog.user_file;
}

/* Two declarations of one name that are both visible from one file clash. */
static bool same_scope(const struct node *a, const struct node *b)
{
	if (a->is_private || b->is_private)
		return a->loc.file == b->loc.file;
	return true;
}

static bool is_print_family(const struct builtin *b)
{
	switch (b->id) {
	case B_PRINT: case B_PRINTLN: case B_PRINTD: case B_PRINTDLN: case B_PRINTF:
	case B_SPRINT: case B_SPRINTLN: case B_SPRINTD: case B_SPRINTDLN: case B_SPRINTF:
		return true;
	default:
		return false;
	}
}

static void collect_function(struct session *s, struct node *d)
{
	struct ptrvec *all = &s->prog.all_functions;
	int nparams = ast_list_len(d->list);
	size_t replaces = all->n;
	for (size_t i = 0; i < all->n; i++) {
		struct symbol *old = all->v[i];
		if (!strcmp(old->name, d->name) && old->nparams == nparams &&
		    same_scope(old->decl, d)) {
			/* The script's own definition replaces a tapset's, as a
			 * SystemTap script replaces tcpmib_filter_key(). */
			bool old_user = in_user_file(s, old->loc), new_user = in_user_file(s, d->loc);
			if (old_user && !new_user)
				return;
			if (new_user && !old_user) {
				replaces = i;
				break;
			}
			diag_error(d->loc, D_REDEFINED, "function '%s' with %d parameter%s is defined twice",
				   d->name, nparams, nparams == 1 ? "" : "s");
			diag_note(old->loc, "the first definition is here");
			return;
		}
	}
	/* Most of Tapline's built-in functions are tapset functions in
	 * SystemTap, which a script's own function of the name replaces (its
	 * semok seven: printk); the print family is the language's own. */
	const struct builtin *b = builtin_find(d->name);
	if (b && (!in_user_file(s, d->loc) || is_print_family(b))) {
		diag_error(d->loc, D_REDEFINED, "'%s' is a built-in function and cannot be redefined",
			   d->name);
		return;
	}
	struct symbol *f = new_symbol(SYM_FUNCTION, d->name, d->loc, d);
	f->type = d->decl_type;
	for (struct node *p = d->list; p; p = p->next) {
		if (find(&f->vars, p->name))
			continue; /* pass 1 reported it */
		struct symbol *ps = new_symbol(SYM_PARAM, p->name, p->loc, p);
		ps->type = p->decl_type;
		ps->assigned = true;
		ps->index = f->nparams++;
		pv_push(&f->vars, ps);
	}
	f->nparams = nparams;
	if (replaces < all->n)
		all->v[replaces] = f;
	else
		pv_push(all, f);
}

static void collect_global(struct session *s, struct node *d)
{
	struct ptrvec *all = &s->prog.all_globals;
	for (size_t i = 0; i < all->n; i++) {
		struct symbol *old = all->v[i];
		if (!strcmp(old->name, d->name) && same_scope(old->decl, d)) {
			diag_error(d->loc, D_REDEFINED, "global '%s' is declared twice", d->name);
			diag_note(old->loc, "the first declaration is here");
			return;
		}
	}
	struct symbol *g = new_symbol(SYM_GLOBAL, d->name, d->loc, d);
	g->is_array = d->is_array;
	if (d->lhs) {
		g->type = d->lhs->kind == N_STR ? T_STRING : T_LONG;
		g->assigned = true;
	}
	pv_push(all, g);
}

/* Top-level embedded C: kernel headers and helpers for guru-mode code. */
static void collect_embedded(struct session *s, struct node *d)
{
	/* (Pass 1 refused it in the user's script without guru mode.) */
	pv_push(&s->prog.embedded, d);
	s->prog.uses_embedded_c = true;
}

int declarations_collect(struct session *s)
{
	int before = diag_errors();
	struct ptrvec *decls = &s->prog.decls;
	for (size_t i = 0; i < decls->n; i++) {
		struct node *d = decls->v[i];
		if (d->kind == N_FUNCTION)
			collect_function(s, d);
		else if (d->kind == N_GLOBAL)
			collect_global(s, d);
		else if (d->kind == N_EMBEDDED)
			collect_embedded(s, d);
	}
	return diag_errors() - before;
}

/* --- walking bodies --- */

static void reach(struct resolver *r, struct symbol *f)
{
	if (f->reachable)
		return;
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
	int nargs = ast_list_len(call->list);
	struct symbol *other = sema_find_function(r->s, call->name, -1, call->loc.file);
	if (other) {
		const struct ptrvec *all = &r->s->prog.all_functions;
		int overloads = 0;
		for (size_t i = 0; i < all->n; i++) {
			struct symbol *f = all->v[i];
			overloads += !strcmp(f->name, call->name) && visible(f, call->loc.file);
		}
		if (overloads == 1)
			diag_error(call->loc, D_WRONG_ARGS, "%s() takes %d argument%s, not %d",
				   call->name, other->nparams, other->nparams == 1 ? "" : "s", nargs);
		else
			diag_error(call->loc, D_WRONG_ARGS, "no function '%s' takes %d argument%s",
				   call->name, nargs, nargs == 1 ? "" : "s");
		for (size_t i = 0; i < all->n; i++) {
			struct symbol *f = all->v[i];
			if (!strcmp(f->name, call->name) && visible(f, call->loc.file))
				diag_note(f->loc, "'%s' with %d parameter%s is defined here", f->name,
					  f->nparams, f->nparams == 1 ? "" : "s");
		}
		return;
	}
	diag_error(call->loc, D_UNKNOWN_FUNCTION, "unknown function '%s'", call->name);
	struct suggest sg;
	suggest_init(&sg, call->name);
	/* A misspelt keyword followed by '(' reads as a call: "forech (k in m)". */
	static const char *const keywords[] = { "foreach", "while", "for", "if", "delete", "return" };
	for (size_t i = 0; i < ARRAY_SIZE(keywords); i++)
		suggest_offer(&sg, keywords[i]);
	const struct ptrvec *all = &r->s->prog.all_functions;
	for (size_t i = 0; i < all->n; i++)
		if (visible(all->v[i], call->loc.file))
			suggest_offer(&sg, ((struct symbol *)all->v[i])->name);
	struct offer_ctx oc = { &sg };
	builtin_each_name(offer_name, &oc);
	/* Tapset functions of files the script did not pull in. */
	const struct ptrvec *lib = &r->s->prog.library_functions;
	for (size_t i = 0; i < lib->n; i++)
		suggest_offer(&sg, lib->v[i]);
	suggest_hint(&sg, NULL);
}

/* Which globals the code being walked reads (shared lock) and writes
 * (exclusive lock). */
static void note_global(struct resolver *r, struct symbol *g, bool exclusive, bool shared)
{
	struct ptrvec *rd, *wr;
	if (r->sc->func) {
		rd = &r->sc->func->globals_rd;
		wr = &r->sc->func->globals_wr;
	} else {
		rd = &r->sc->handler->globals_rd;
		wr = &r->sc->handler->globals_wr;
	}
	if (exclusive)
		add_unique(wr, g);
	if (shared)
		add_unique(rd, g);
}

static struct symbol *lookup_var(struct resolver *r, struct node *n)
{
	struct symbol *sym = find(r->sc->vars, n->name);
	if (sym)
		return sym;
	sym = sema_find_global(r->s, n->name, n->loc.file);
	if (sym)
		return sym;
	sym = new_symbol(SYM_LOCAL, n->name, n->loc, n);
	pv_push(r->sc->vars, sym);
	return sym;
}

/* An array, or a statistic: a global. */
static struct symbol *lookup_global(struct resolver *r, struct node *n, const char *what)
{
	struct symbol *sym = find(r->sc->vars, n->name);
	if (sym) {
		diag_error(n->loc, D_NOT_GLOBAL, "'%s' is a local variable, but %s must be global",
			   n->name, what);
		diag_hint("declare it: global %s", n->name);
		return NULL;
	}
	sym = sema_find_global(r->s, n->name, n->loc.file);
	if (!sym) {
		diag_error(n->loc, D_NOT_GLOBAL, "'%s' is not declared, but %s must be global", n->name,
			   what);
		struct suggest sg;
		suggest_init(&sg, n->name);
		const struct ptrvec *g = &r->s->prog.all_globals;
		for (size_t i = 0; i < g->n; i++)
			if (visible(g->v[i], n->loc.file))
				suggest_offer(&sg, ((struct symbol *)g->v[i])->name);
		for (size_t i = 0; i < r->s->prog.library_globals.n; i++)
			suggest_offer(&sg, r->s->prog.library_globals.v[i]);
		if (!suggest_hint(&sg, NULL))
			diag_hint("declare it: global %s", n->name);
	}
	return sym;
}

static void walk(struct resolver *r, struct node *n);

static void walk_child(struct node *child, void *ctx)
{
	walk(ctx, child);
}

static void walk_list(struct resolver *r, struct node *list)
{
	for (struct node *k = list; k; k = k->next)
		walk(r, k);
}

/* How a variable or element is used. */
enum access { READ, WRITE, READ_WRITE, AGGREGATE };

static void use_symbol(struct resolver *r, struct symbol *sym, enum access a)
{
	if (sym->kind == SYM_GLOBAL) {
		/* '<<<' and reads share; writes and reading statistics exclude. */
		note_global(r, sym, a == WRITE || a == READ_WRITE, a == READ || a == AGGREGATE);
	}
	if (a != READ)
		sym->assigned = true;
	if (a == READ || a == READ_WRITE)
		sym->read = true;
}

/* A variable or array element being used as `a`. */
static void walk_target(struct resolver *r, struct node *n, enum access a)
{
	if (n->kind == N_VAR) {
		struct symbol *sym = a == AGGREGATE ? lookup_global(r, n, "a statistic")
						    : lookup_var(r, n);
		n->sym = sym;
		if (sym)
			use_symbol(r, sym, a);
		return;
	}
	if (n->kind == N_INDEX && !n->lhs) {
		walk_list(r, n->list);
		struct symbol *sym = lookup_global(r, n, "an array");
		n->sym = sym;
		if (sym) {
			sym->is_array = true;
			use_symbol(r, sym, a);
		}
		return;
	}
	walk(r, n); /* types.c reports that it cannot be assigned */
}

static void walk_foreach(struct resolver *r, struct node *n)
{
	struct node *src = n->lhs;
	if (src->kind == N_HIST) {
		walk(r, src);
	} else {
		if (src->kind == N_INDEX)
			walk_list(r, src->list);
		struct symbol *sym = lookup_global(r, src, "an array");
		src->sym = sym;
		if (sym) {
			sym->is_array = true;
			/* Iterating statistics merges the CPUs' copies first, which
			 * needs the exclusive lock: types_check asks for it once
			 * it knows the array holds statistics. */
			sym->read = true;
			note_global(r, sym, false, true);
		}
	}
	if (n->then)
		walk_target(r, n->then, WRITE);
	for (struct node *k = n->list; k; k = k->next)
		walk_target(r, k, WRITE);
	if (n->step)
		walk(r, n->step);
	r->sc->loops++;
	walk(r, n->body);
	r->sc->loops--;
}

static void walk_call(struct resolver *r, struct node *n)
{
	walk_list(r, n->list);
	struct symbol *f = sema_find_function(r->s, n->name, ast_list_len(n->list), n->loc.file);
	if (f) {
		n->sym = f;
		reach(r, f);
		add_unique(r->sc->func ? &r->sc->func->calls : &r->sc->handler->calls, f);
		return;
	}
	n->builtin = builtin_find(n->name);
	/* SystemTap's readers take an optional fallback for memory that cannot
	 * be read: the same as their "2" forms. */
	static const struct {
		const char *name, *with_fallback;
		int nargs;
	} fallbacks[] = { { "user_string", "user_string2", 2 },
			  { "kernel_string", "kernel_string2", 2 },
			  { "user_string_n", "user_string_n2", 3 } };
	for (size_t i = 0; n->builtin && i < ARRAY_SIZE(fallbacks); i++)
		if (!strcmp(n->name, fallbacks[i].name) &&
		    ast_list_len(n->list) == fallbacks[i].nargs)
			n->builtin = builtin_find(fallbacks[i].with_fallback);
	if (!n->builtin)
		unknown_function(r, n);
}

/* A probe point's condition reads globals only, calls nothing and
 * changes nothing: it is evaluated when the probe is armed and whenever
 * those globals change, where no probe's locals exist. (Pass 2's rule, as
 * in SystemTap: such a script still parses, and -p1 prints it.) */
static void condition_global(struct node *n, void *ctx)
{
	struct resolver *r = ctx;
	if (n->kind == N_ASSIGN || n->kind == N_INCDEC || n->kind == N_DELETE) {
		diag_error(n->loc, D_BAD_PROBE_ARG, "a probe point's condition cannot change anything");
		return;
	}
	if (n->kind == N_CALL) {
		diag_error(n->loc, D_BAD_PROBE_ARG, "a probe point's condition cannot call '%s': it "
			   "reads globals only", n->name);
		return;
	}
	if ((n->kind == N_VAR || n->kind == N_IN || (n->kind == N_INDEX && n->name)) &&
	    !sema_find_global(r->s, n->name, n->loc.file)) {
		diag_error(n->loc, D_BAD_PROBE_ARG, "a probe point's condition reads globals only; "
			   "'%s' is not one", n->name);
		return;
	}
	ast_for_children(n, condition_global, ctx);
}

static void walk(struct resolver *r, struct node *n)
{
	switch (n->kind) {
	case N_VAR:
		walk_target(r, n, READ);
		return;
	case N_INDEX:
		if (n->lhs) { /* a histogram's bucket */
			walk(r, n->lhs);
			walk_list(r, n->list);
		} else {
			walk_target(r, n, READ);
		}
		return;
	case N_IN: {
		walk_list(r, n->list);
		struct symbol *sym = lookup_global(r, n, "an array");
		n->sym = sym;
		if (sym) {
			sym->is_array = true;
			use_symbol(r, sym, READ);
		}
		return;
	}
	case N_STAT:
	case N_HIST:
		if (n->lhs->kind == N_INDEX)
			walk_list(r, n->lhs->list);
		if (n->lhs->kind == N_VAR || n->lhs->kind == N_INDEX) {
			struct symbol *sym = lookup_global(r, n->lhs, "a statistic");
			n->lhs->sym = sym;
			if (sym) {
				sym->is_array |= n->lhs->kind == N_INDEX;
				sym->read = true;
				note_global(r, sym, true, false);
			}
		}
		if (n->rhs)
			walk(r, n->rhs);
		walk_list(r, n->list);
		return;
	case N_ASSIGN:
		walk(r, n->rhs);
		walk_target(r, n->lhs, n->op == OP_AGG ? AGGREGATE :
				       n->op == OP_ASSIGN ? WRITE :
							    READ_WRITE);
		return;
	case N_INCDEC:
		walk_target(r, n->lhs, READ_WRITE);
		return;
	case N_DELETE:
		walk_target(r, n->lhs, WRITE);
		return;
	case N_CALL:
		walk_call(r, n);
		return;
	case N_FOREACH:
		walk_foreach(r, n);
		return;
	case N_TRY:
		walk(r, n->body);
		if (n->then)
			walk_target(r, n->then, WRITE);
		walk(r, n->els);
		return;
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
	case N_NEXT: /* (pass 1 checked where next and return are) */
		return;
	case N_RETURN:
		if (n->lhs)
			walk(r, n->lhs);
		return;
	case N_IF:
		if (n->guard)
			condition_global(n->cond, r);
		ast_for_children(n, walk_child, r);
		return;
	case N_BLOCK:
	case N_EXPR_STMT:
	case N_EMPTY:
	case N_NUM:
	case N_STR:
	case N_STAR:
	case N_TARGET:
	case N_MEMBER:
	case N_CAST:
	case N_ATVAR:
	case N_AUTOCAST:
	case N_ENTRY:
	case N_DEFINED:
	case N_PROBEWRITE:
	case N_CONST:
	case N_BINARY:
	case N_UNARY:
	case N_TERNARY:
	AST_DECL_CASES
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

/* A handler locks every global it or the functions it calls touch, and
 * has registers to read when one of those functions reads them (the
 * tapsets' register(), a helper around int_arg()). */
static void fold_callee(struct handler *h, struct symbol *f, struct ptrvec *seen)
{
	for (size_t i = 0; i < seen->n; i++)
		if (seen->v[i] == f)
			return;
	pv_push(seen, f);
	if (!h->callees_read_registers && sema_uses_register_builtins(f->decl->body))
		h->callees_read_registers = true;
	for (size_t i = 0; i < f->globals_rd.n; i++)
		add_unique(&h->globals_rd, f->globals_rd.v[i]);
	for (size_t i = 0; i < f->globals_wr.n; i++)
		add_unique(&h->globals_wr, f->globals_wr.v[i]);
	for (size_t i = 0; i < f->calls.n; i++)
		fold_callee(h, f->calls.v[i], seen);
}

static void fold_callees(struct handler *h)
{
	struct ptrvec seen = { 0 };
	for (size_t i = 0; i < h->calls.n; i++)
		fold_callee(h, h->calls.v[i], &seen);
	pv_free(&seen);
}

void callees_fold(struct session *s)
{
	for (size_t i = 0; i < s->prog.handlers.n; i++)
		fold_callees(s->prog.handlers.v[i]);
	for (size_t i = 0; i < s->prog.probes.n; i++) {
		struct probe *p = s->prog.probes.v[i];
		if (p->handler && p->handler->callees_read_registers)
			p->needs_regs = true;
	}
}

static void warn_unused(struct session *s)
{
	const struct ptrvec *fs = &s->prog.all_functions, *gs = &s->prog.all_globals;
	for (size_t i = 0; i < fs->n; i++) {
		struct symbol *f = fs->v[i];
		if (!f->reachable && in_user_file(s, f->loc))
			diag_warning(f->loc, D_UNUSED, "function '%s' is never called", f->name);
	}
	for (size_t i = 0; i < gs->n; i++) {
		struct symbol *g = gs->v[i];
		if (!g->read && !g->assigned && in_user_file(s, g->loc))
			diag_warning(g->loc, D_UNUSED, "global '%s' is never used", g->name);
		else if (!g->read && in_user_file(s, g->loc))
			diag_warning(g->loc, D_UNUSED, "global '%s' is assigned but never read",
				     g->name);
	}
}

/* Every local an alias block assigns to, offered as a suggestion. */
static void offer_assigned(struct node *n, void *ctx)
{
	if (n->kind == N_ASSIGN && n->lhs && n->lhs->kind == N_VAR && n->lhs->name)
		suggest_offer(ctx, n->lhs->name);
	ast_for_children(n, offer_assigned, ctx);
}

bool sema_suggest_variable(const struct session *s, const struct ptrvec *vars,
			   const struct handler *h, const struct symbol *v)
{
	struct suggest sg;
	suggest_init(&sg, v->name);
	const struct ptrvec *gs = &s->prog.all_globals;
	for (size_t k = 0; k < gs->n; k++)
		if (visible(gs->v[k], v->loc.file))
			suggest_offer(&sg, ((struct symbol *)gs->v[k])->name);
	for (size_t k = 0; k < vars->n; k++)
		if (vars->v[k] != v)
			suggest_offer(&sg, ((struct symbol *)vars->v[k])->name);
	/* What the probe's aliases and its own body (as written) set, those
	 * nothing read included: they were dropped, and a misspelled one is
	 * what left them unread. */
	for (size_t k = 0; h && k < h->aliases.n; k++) {
		struct node *a = h->aliases.v[k];
		if (a->body)
			offer_assigned(a->body, &sg);
		if (a->els)
			offer_assigned(a->els, &sg);
	}
	if (h && h->decl->body)
		offer_assigned(h->decl->body, &sg);
	return suggest_hint(&sg, NULL) > 0;
}

static void warn_never_assigned(struct session *s, const struct ptrvec *vars,
				const struct handler *h)
{
	for (size_t i = 0; i < vars->n; i++) {
		struct symbol *v = vars->v[i];
		if (v->kind != SYM_LOCAL || v->assigned)
			continue;
		diag_warning(v->loc, D_NEVER_ASSIGNED,
			     "local variable '%s' is never assigned; it reads as 0 or \"\"", v->name);
		sema_suggest_variable(s, vars, h, v);
	}
}

/* Is the array modified (assigned, added to, deleted from), here or in
 * a function called from here? Reading it, statistics' @count and the
 * rest too, is not. */
struct modify_ctx {
	struct symbol *array;
	struct node *where;   /* the first modification, or the call that leads to one */
	struct ptrvec seen;   /* functions walked already */
};

static bool modified_in(struct node *body, struct modify_ctx *m);

static void find_modification(struct node *n, void *ctx)
{
	struct modify_ctx *m = ctx;
	if (m->where)
		return;
	struct node *target = NULL;
	if (n->kind == N_ASSIGN || n->kind == N_INCDEC || n->kind == N_DELETE)
		target = n->lhs;
	if (target && target->sym == m->array) {
		m->where = n;
		return;
	}
	if (n->kind == N_CALL && n->sym && n->sym->decl->body->kind != N_EMBEDDED) {
		bool seen = false;
		for (size_t i = 0; i < m->seen.n && !seen; i++)
			seen = m->seen.v[i] == n->sym;
		if (!seen) {
			pv_push(&m->seen, n->sym);
			if (modified_in(n->sym->decl->body, m)) {
				m->where = n;
				return;
			}
		}
	}
	ast_for_children(n, find_modification, ctx);
}

static bool modified_in(struct node *body, struct modify_ctx *m)
{
	struct node *outer = m->where;
	m->where = NULL;
	find_modification(body, m);
	bool found = m->where != NULL;
	m->where = outer;
	return found;
}

/* SystemTap's rule: the array a foreach iterates stays as it is. */
static void check_foreach(struct node *n, void *ctx)
{
	(void)ctx;
	if (n->kind == N_FOREACH && n->lhs->kind != N_HIST && n->lhs->sym) {
		struct modify_ctx m = { n->lhs->sym, NULL, { 0 } };
		find_modification(n->body, &m);
		pv_free(&m.seen);
		if (m.where) {
			diag_error(m.where->loc, D_MODIFIED_IN_FOREACH,
				   "'%s' is modified inside a foreach over it", m.array->name);
			diag_note(n->loc, "the foreach is here");
			diag_hint("collect what to change in another array and change it after the loop");
		}
	}
	ast_for_children(n, check_foreach, NULL);
}

int resolve_names(struct session *s)
{
	int before = diag_errors();
	struct resolver r = { .s = s };
	struct program *prog = &s->prog;
	for (size_t i = 0; i < prog->handlers.n; i++) {
		struct handler *h = prog->handlers.v[i];
		struct scope sc = { .vars = &h->vars, .handler = h };
		r.sc = &sc;
		walk(&r, h->body);
		r.sc = NULL;
	}
	/* Every function of the user's script is checked, called or not. */
	for (size_t i = 0; i < prog->all_functions.n; i++) {
		struct symbol *f = prog->all_functions.v[i];
		if (in_user_file(s, f->loc))
			add_unique(&r.worklist, f);
	}
	for (size_t i = 0; i < r.worklist.n; i++) {
		struct symbol *f = r.worklist.v[i];
		if (f->decl->body->kind != N_EMBEDDED)
			walk_function(&r, f);
	}
	for (size_t i = 0; i < prog->handlers.n; i++)
		check_foreach(((struct handler *)prog->handlers.v[i])->body, NULL);
	for (size_t i = 0; i < r.worklist.n; i++)
		check_foreach(((struct symbol *)r.worklist.v[i])->decl->body, NULL);

	/* Keep what is used, numbered in declaration order. */
	for (size_t i = 0; i < prog->all_functions.n; i++) {
		struct symbol *f = prog->all_functions.v[i];
		if (f->reachable) {
			f->index = (int)prog->functions.n;
			pv_push(&prog->functions, f);
		} else if (in_user_file(s, f->loc)) {
			pv_push(&prog->unused_functions, f);
		}
	}
	for (size_t i = 0; i < prog->all_globals.n; i++) {
		struct symbol *g = prog->all_globals.v[i];
		if (g->read || g->assigned || in_user_file(s, g->loc)) {
			g->index = (int)prog->globals.n;
			pv_push(&prog->globals, g);
		}
	}
	warn_unused(s);
	for (size_t i = 0; i < prog->handlers.n; i++) {
		struct handler *h = prog->handlers.v[i];
		warn_never_assigned(s, &h->vars, h);
	}
	for (size_t i = 0; i < r.worklist.n; i++)
		warn_never_assigned(s, &((struct symbol *)r.worklist.v[i])->vars, NULL);
	pv_free(&r.worklist);
	return diag_errors() - before;
}
