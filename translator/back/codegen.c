// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Pass 3: the checked program becomes one C file that includes only the
 * runtime's api.h. This file lays the module out: each probe body becomes
 * a handler function and each script function a C function (their
 * statements compiled by cg-stmt.c), their variables in a frame struct on
 * the runtime's per-CPU stack (kernel stacks are small), strings as
 * fixed-size arrays; then the tables the runtime reads (probes, arrays,
 * statistics, static objects) and struct rt_script, one field per line.
 * Frame sizes are combined in one union instead of a nested expression.
 */
#include <ctype.h>
#include <stdarg.h>
#include <string.h>

#include "back/cg.h"
#include "debuginfo/kernel.h"
#include "debuginfo/userelf.h"
#include "sema/builtins.h"
#include "sema/regcomp.h"
#include "contract/linetable.h"
#include "contract/module.h" /* the checksum entry staprun looks for */

static void var_fields(struct cg *g, const struct ptrvec *vars)
{
	for (size_t i = 0; i < vars->n; i++) {
		const struct symbol *v = vars->v[i];
		if (v->type == T_STRING)
			sb_printf(&g->fields, "\tchar v_%s[%lld];\n", v->name, g->maxstr);
		else
			sb_printf(&g->fields, "\trt_long v_%s;\n", v->name);
	}
}

/*
 * Locals start as 0 and "". Many of them are cleared by a loop over a
 * table of their offsets: one store per local either way, but a long run
 * of stores costs gcc time that grows faster than the run.
 */
static void init_locals(struct cg *g, const struct ptrvec *vars, size_t from)
{
	if (vars->n - from <= CG_PART_STMTS) {
		for (size_t i = from; i < vars->n; i++) {
			const struct symbol *v = vars->v[i];
			if (v->type == T_STRING)
				emit(g, "l->v_%s[0] = 0;", v->name);
			else
				emit(g, "l->v_%s = 0;", v->name);
		}
		return;
	}
	for (int str = 0; str < 2; str++) {
		int id = g->ntemps++, n = 0;
		sb_printf(&g->parts, "static const unsigned int %s_init%d[] = {\n", g->name, id);
		for (size_t i = from; i < vars->n; i++) {
			const struct symbol *v = vars->v[i];
			if ((v->type == T_STRING) != str)
				continue;
			sb_printf(&g->parts, "\t__builtin_offsetof(struct %s_frame, v_%s),\n", g->name,
				  v->name);
			n++;
		}
		sb_puts(&g->parts, "\t0\n};\n\n");
		if (!n)
			continue;
		emit(g, "for (int i = 0; i < %d; i++)", n);
		if (str)
			emit(g, "\t((char *)l)[%s_init%d[i]] = 0;", g->name, id);
		else
			emit(g, "\t*(rt_long *)((char *)l + %s_init%d[i]) = 0;", g->name, id);
	}
}

/* A function's C name: overloads by arity share the script name. */
char *fn_cname(const struct symbol *f)
{
	return xasprintf("f%d_%s", f->index, f->name);
}

static bool is_embedded(const struct symbol *f)
{
	return f->decl->body->kind == N_EMBEDDED;
}

static char *function_signature(const struct symbol *f)
{
	struct strbuf b;
	sb_init(&b);
	char *name = fn_cname(f);
	/* (unused: a unit of a split build may call none of them) */
	sb_printf(&b, "static rt_notrace __attribute__((unused)) %s %s(struct rt_context *c",
		  f->type == T_LONG ? "rt_long" : "void", name);
	free(name);
	if (f->type == T_STRING)
		sb_puts(&b, ", char *ret");
	for (int i = 0; i < f->nparams; i++) {
		const struct symbol *p = f->vars.v[i];
		sb_printf(&b, ", %s p_%s", p->type == T_STRING ? "const char *" : "rt_long", p->name);
	}
	sb_putc(&b, ')');
	return sb_detach(&b);
}

/* Start a body: its frame fields and parts are collected while it is written. */
static void body_begin(struct cg *g, const char *name, struct strbuf *body)
{
	sb_init(body);
	sb_init(&g->fields);
	sb_init(&g->parts);
	g->out = body;
	g->name = name;
	g->leave = g->fail_leave = "goto out;";
	g->user_regs = false;
	g->indent = 1;
	g->nloops = 0;
	g->nparts = 0;
	/* Numbered per body, so that two bodies that do the same read the
	 * same (handler_shared compares them). */
	g->ntemps = 0;
	g->nstr = g->maxnstr = 0;
	g->nargs = g->maxnargs = 0;
	g->nkeys = g->maxnkeys = 0;
}

/* Write the body: its frame's type (which every unit sees: unit 0 sizes
 * the frames), then, in the unit `unit` of a split build (-1: every unit),
 * its parts and itself. */
static void body_end(struct cg *g, struct strbuf *file, const char *signature, struct strbuf *body,
		     int unit)
{
	sb_printf(file, "struct %s_frame {\n\tchar unused;\n%s", g->name,
		  g->fields.s ? g->fields.s : "");
	for (int i = 0; i < g->maxnstr; i++)
		sb_printf(file, "\tchar s%d[%lld];\n", i, g->maxstr);
	if (g->maxnargs)
		sb_printf(file, "\tstruct rt_fmt_arg args[%d];\n", g->maxnargs);
	if (g->maxnkeys)
		sb_printf(file, "\tstruct rt_key keys[%d];\n", g->maxnkeys);
	sb_puts(file, "};\n\n");
	if (unit >= 0)
		sb_printf(file, "#if RT_PART == %d %% RT_PARTS\n", unit);
	if (g->parts.len)
		sb_puts(file, g->parts.s);
	sb_printf(file, "%s\n{\n%s}\n", signature, body->s);
	sb_puts(file, unit >= 0 ? "#endif\n\n" : "\n");
	sb_free(body);
	sb_free(&g->fields);
	sb_free(&g->parts);
}

static void find_long_list(struct node *n, void *found)
{
	if (*(bool *)found)
		return;
	if ((n->kind == N_BLOCK || n->kind == N_CALL) && ast_list_len(n->list) > CG_PART_STMTS)
		*(bool *)found = true;
	else
		ast_for_children(n, find_long_list, found);
}

/* Will part functions be written for n (a long statement or argument list)? */
static bool needs_parts(struct node *n)
{
	bool found = false;
	find_long_list(n, &found);
	return found;
}

/*
 * A guru-mode function written in C. Its frame is SystemTap's THIS: the
 * parameters by name and __retvalue; STAP_ARG_name, STAP_RETVALUE,
 * STAP_RETURN() and STAP_ERROR() work as there, and CONTEXT is the hit's
 * rt_context.
 */
static void cg_embedded_function(struct cg *g, struct symbol *f, const char *name)
{
	for (int i = 0; i < f->nparams; i++) {
		const struct symbol *p = f->vars.v[i];
		if (p->type == T_STRING)
			sb_printf(&g->fields, "\tchar %s[%lld];\n", p->name, g->maxstr);
		else
			sb_printf(&g->fields, "\trt_long %s;\n", p->name);
	}
	if (f->type == T_STRING)
		sb_printf(&g->fields, "\tchar __retvalue[%lld];\n", g->maxstr);
	else
		sb_puts(&g->fields, "\trt_long __retvalue;\n");
	char *loc = loc_literal(f->decl);
	emit(g, "struct %s_frame *l = rt_frame_push(c, sizeof(*l), %s);", name, loc);
	free(loc);
	emit(g, "if (!l)");
	emit(g, "\treturn%s;", f->type == T_LONG ? " 0" : "");
	for (int i = 0; i < f->nparams; i++) {
		const struct symbol *p = f->vars.v[i];
		if (p->type == T_STRING)
			emit(g, "rt_strcpy(l->%s, p_%s, %lld);", p->name, p->name, g->maxstr);
		else
			emit(g, "l->%s = p_%s;", p->name, p->name);
	}
	emit(g, "l->__retvalue%s = 0;", f->type == T_STRING ? "[0]" : "");
	sb_puts(g->out, "#define THIS l\n#define CONTEXT c\n");
	for (int i = 0; i < f->nparams; i++) {
		const struct symbol *p = f->vars.v[i];
		sb_printf(g->out, "#define STAP_ARG_%s (THIS->%s)\n", p->name, p->name);
	}
	sb_puts(g->out, "#define STAP_RETVALUE (THIS->__retvalue)\n");
	if (f->type == T_STRING)
		sb_printf(g->out, "#define STAP_RETURN(v) do { rt_strcpy(STAP_RETVALUE, (v), %lld); "
				  "goto out; } while (0)\n",
			  g->maxstr);
	else
		sb_puts(g->out,
			"#define STAP_RETURN(v) do { STAP_RETVALUE = (v); goto out; } while (0)\n");
	sb_puts(g->out, "#define STAP_ERROR(...) do { rt_failf(c, 0, 0, __VA_ARGS__); goto out; } "
			"while (0)\n");
	line_directive(g, f->decl->body);
	sb_printf(g->out, "\t{\n%s\n\t}\n", f->decl->body->str);
	sb_puts(g->out, "goto out;\nout: __attribute__((unused));\n");
	sb_puts(g->out, "#undef THIS\n#undef CONTEXT\n#undef STAP_RETVALUE\n#undef STAP_RETURN\n"
			"#undef STAP_ERROR\n");
	for (int i = 0; i < f->nparams; i++)
		sb_printf(g->out, "#undef STAP_ARG_%s\n", ((struct symbol *)f->vars.v[i])->name);
	if (f->type == T_STRING)
		emit(g, "rt_strcpy(ret, l->__retvalue, %lld);", g->maxstr);
	emit(g, "{");
	emit(g, "\trt_long rv = %s;", f->type == T_LONG ? "l->__retvalue" : "0");
	emit(g, "\trt_frame_pop(c, sizeof(*l));");
	if (f->type == T_LONG)
		emit(g, "\treturn rv;");
	else
		emit(g, "\t(void)rv;");
	emit(g, "}");
}

static void cg_function(struct cg *g, struct symbol *f, struct strbuf *file)
{
	struct strbuf body;
	char *name = fn_cname(f);
	body_begin(g, name, &body);
	g->func = f;
	if (is_embedded(f)) {
		cg_embedded_function(g, f, name);
		goto done;
	}
	var_fields(g, &f->vars);
	char *loc = loc_literal(f->decl);
	emit(g, "struct %s_frame *l __attribute__((unused)) = rt_frame_push(c, sizeof(*l), %s);",
	     name, loc);
	free(loc);
	/* Part functions reach the return value in the frame; otherwise it stays
	 * in a C variable, which costs less kernel stack in deep recursion. */
	bool in_frame = needs_parts(f->decl->body);
	if (f->type == T_LONG) {
		if (in_frame)
			sb_puts(&g->fields, "\trt_long rv;\n");
		else
			emit(g, "rt_long rv = 0;");
		emit(g, "if (!l)");
		emit(g, "\treturn 0;");
		if (in_frame)
			emit(g, "l->rv = 0;");
		g->ret_var = in_frame ? "l->rv" : "rv";
	} else {
		if (f->type == T_STRING) {
			emit(g, "ret[0] = 0;");
			if (in_frame)
				sb_puts(&g->fields, "\tchar *ret;\n");
			g->ret_var = in_frame ? "l->ret" : "ret";
		}
		emit(g, "if (!l)");
		emit(g, "\treturn;");
		if (f->type == T_STRING && in_frame)
			emit(g, "l->ret = ret;");
	}
	/* Sorted foreach loops left by return or a failure give their room back. */
	bool room = has_sorted_foreach(f->decl->body);
	if (room)
		emit(g, "rt_size iter_mark = c->iter_top;");
	for (int i = 0; i < f->nparams; i++) {
		const struct symbol *p = f->vars.v[i];
		if (p->type == T_STRING)
			emit(g, "rt_strcpy(l->v_%s, p_%s, %lld);", p->name, p->name, g->maxstr);
		else
			emit(g, "l->v_%s = p_%s;", p->name, p->name);
	}
	init_locals(g, &f->vars, (size_t)f->nparams);
	cg_stmt(g, f->decl->body);
	sb_puts(&body, "out: __attribute__((unused));\n");
	if (room)
		emit(g, "c->iter_top = iter_mark;");
	if (f->type == T_LONG && in_frame) {
		emit(g, "{");
		emit(g, "\trt_long rv = l->rv;");
		emit(g, "\trt_frame_pop(c, sizeof(*l));");
		emit(g, "\treturn rv;");
		emit(g, "}");
	} else {
		emit(g, "rt_frame_pop(c, sizeof(*l));");
		if (f->type == T_LONG)
			emit(g, "return rv;");
	}
done:;
	char *sig = function_signature(f);
	body_end(g, file, sig, &body, -1);
	free(sig);
	free(name);
	g->func = NULL;
}

static bool in_set(const struct ptrvec *v, const void *p)
{
	for (size_t i = 0; i < v->n; i++)
		if (v->v[i] == p)
			return true;
	return false;
}

/* The globals a handler (or a function it calls) uses, in index order:
 * the order every handler takes their locks in. */
struct lock_list {
	const struct symbol **gl;
	bool *wr;
	size_t n;
};

static struct lock_list handler_lock_list(const struct session *s, const struct handler *h)
{
	struct lock_list l = { xcalloc(s->prog.globals.n + 1, sizeof *l.gl),
			       xcalloc(s->prog.globals.n + 1, sizeof *l.wr), 0 };
	for (size_t i = 0; i < s->prog.globals.n; i++) {
		const struct symbol *sym = s->prog.globals.v[i];
		bool w = in_set(&h->globals_wr, sym);
		if (w || in_set(&h->globals_rd, sym)) {
			l.gl[l.n] = sym;
			l.wr[l.n++] = w;
		}
	}
	return l;
}

static void lock_list_free(struct lock_list *l)
{
	free(l->gl);
	free(l->wr);
}

/* A handler's first act: its globals' locks; on a lock that stays taken,
 * release those already held and report the hit skipped. */
static void cg_lock_globals(struct cg *g, const struct lock_list *l)
{
	for (size_t i = 0; i < l->n; i++) {
		emit(g, "if (rt_unlikely(!rt_lock_%s(%d, %zu))) {", l->wr[i] ? "write" : "read",
		     l->gl[i]->index, l->n);
		for (size_t k = i; k-- > 0;)
			emit(g, "\trt_unlock_%s(%d);", l->wr[k] ? "write" : "read", l->gl[k]->index);
		emit(g, "\treturn rt_locks_skipped();");
		emit(g, "}");
	}
}

/* Its last: the same locks, released in reverse order. */
static void cg_unlock_globals(struct cg *g, const struct lock_list *l)
{
	for (size_t i = l->n; i-- > 0;)
		emit(g, "rt_unlock_%s(%d);", l->wr[i] ? "write" : "read", l->gl[i]->index);
}

static void find_frame_user(struct node *n, void *found)
{
	if (*(bool *)found)
		return;
	if (n->kind == N_CALL || n->kind == N_FOREACH || n->kind == N_TRY || n->kind == N_EMBEDDED ||
	    n->kind == N_CONST)
		*(bool *)found = true;
	else
		ast_for_children(n, find_frame_user, found);
}

/* Does code from n need the hit's frame state (script functions, builtins,
 * foreach snapshots, try, C of any kind)? A handler without any starts
 * with less. */
static bool uses_frames(struct node *n)
{
	bool found = false;
	if (n)
		find_frame_user(n, &found);
	return found;
}

/* User stacks: 0 none; 1 only printed where taken (print_ubacktrace); 2
 * kept as strings, which may key arrays that staprun's aliases fold. */
static void find_ustack_user(struct node *n, void *mode)
{
	int *m = mode;
	if (!n)
		return;
	if (n->kind == N_CALL && n->builtin) {
		switch (n->builtin->id) {
		case B_PRINT_UBACKTRACE: case B_PRINT_UBACKTRACE_FILELINE: case B_PRINT_UBACKTRACE_BRIEF:
			*m = *m > 1 ? *m : 1;
			break;
		case B_UBACKTRACE: case B_UCALLERS: case B_SPRINT_UBACKTRACE:
		case B_USYMFILELINE: case B_USYMFILE: case B_USYMLINE:
			*m = 2;
			break;
		default:
			break;
		}
	}
	ast_for_children(n, find_ustack_user, mode);
}

static int ustack_mode(const struct program *prog)
{
	int mode = 0;
	for (size_t i = 0; i < prog->handlers.n; i++)
		find_ustack_user(((struct handler *)prog->handlers.v[i])->body, &mode);
	for (size_t i = 0; i < prog->functions.n; i++)
		find_ustack_user(((struct symbol *)prog->functions.v[i])->decl, &mode);
	return mode;
}

/* A handler's locals; with calls, the frame state too (rt_handler_frame). */
static void cg_handler_frame(struct cg *g, const char *frame, bool calls)
{
	emit(g, "struct %s_frame *l __attribute__((unused)) = rt_handler_frame(c, sizeof(*l), %d);",
	     frame, calls);
}

static void cg_handler(struct cg *g, struct handler *h, struct strbuf *file)
{
	struct strbuf body;
	char *name = xasprintf("h%d", h->index);
	body_begin(g, name, &body);
	g->user_regs = h->site && h->site->is_user;
	var_fields(g, &h->vars);
	struct lock_list locks = handler_lock_list(g->s, h);
	cg_lock_globals(g, &locks);
	cg_handler_frame(g, name, uses_frames(h->body));
	init_locals(g, &h->vars, 0);
	cg_stmt(g, h->body);
	sb_puts(&body, "out: __attribute__((unused));\n");
	cg_unlock_globals(g, &locks);
	lock_list_free(&locks);
	emit(g, "return 0;");
	char *sig = xasprintf("RT_HANDLER int h%d(struct rt_context *c)", h->index);
	body_end(g, file, sig, &body, h->index);
	free(sig);
	free(name);
}

static void find_global_user(struct node *n, void *found)
{
	if (*(bool *)found)
		return;
	if (n->sym && (n->sym->kind == SYM_GLOBAL || n->sym->kind == SYM_FUNCTION))
		*(bool *)found = true;
	else
		ast_for_children(n, find_global_user, found);
}

/* A .return handler's entry part: saves what its body reads at return.
 * It takes the handler's locks only when what it saves reads a global or
 * calls a script function; @entry($arg) alone needs none. */
static void cg_entry_handler(struct cg *g, struct handler *h, struct strbuf *file)
{
	struct strbuf body;
	char *name = xasprintf("h%d_entry", h->index);
	body_begin(g, name, &body);
	g->user_regs = h->site && h->site->is_user;
	bool globals = false;
	for (size_t i = 0; i < h->entry_exprs.n && !globals; i++)
		find_global_user(h->entry_exprs.v[i], &globals);
	struct lock_list locks = globals ? handler_lock_list(g->s, h) : (struct lock_list){ 0 };
	cg_lock_globals(g, &locks);
	bool calls = false;
	for (size_t i = 0; i < h->entry_exprs.n && !calls; i++)
		calls = uses_frames(h->entry_exprs.v[i]);
	cg_handler_frame(g, name, calls);
	cg_entry_values(g, h);
	sb_puts(&body, "out: __attribute__((unused));\n");
	cg_unlock_globals(g, &locks);
	lock_list_free(&locks);
	emit(g, "return 0;");
	char *sig = xasprintf("RT_HANDLER int h%d_entry(struct rt_context *c)", h->index);
	body_end(g, file, sig, &body, h->index);
	free(sig);
	free(name);
}

/* One value an entry part saves, when it is only a register: a number,
 * argument N (1-6) by number, or a parameter the compiler keeps whole in a
 * register. Its C expression of `regs` (malloced), or NULL when it reads
 * anything else (memory may fault; that needs a hit's error path). */
static char *register_value(const struct node *n)
{
	if (n->kind == N_NUM)
		return xasprintf("(rt_long)%lldLL", n->num);
	int size;
	bool is_signed;
	if (n->kind == N_CALL && n->builtin && arg_builtin(n->builtin, &size, &is_signed)) {
		const struct node *arg = n->list;
		if (!arg || arg->next || arg->kind != N_NUM || arg->num < 1 || arg->num > 6)
			return NULL;
		return xasprintf("rt_regs_arg(regs, %lld, %d, %d)", arg->num, size, is_signed);
	}
	const struct target_access *a = n->kind == N_TARGET ? n->access : NULL;
	if (!a || a->result != TA_INT || !a->loc || a->base_expr || a->materialize || a->nsteps ||
	    a->bit_size || a->user || !a->type || a->type->size < 1 || a->type->size > 8)
		return NULL;
	const struct tloc *l = a->loc;
	if (l->kind != TL_VALUE || l->nops != 1 || l->ops[0].kind != LO_REG || l->ops[0].arg < 0 ||
	    l->ops[0].arg > 16)
		return NULL;
	return xasprintf("rt_regs_value(regs, %lld, %d, %d)", (long long)l->ops[0].arg,
			 (int)a->type->size, a->type->is_signed ? 1 : 0);
}

/*
 * A kernel .return handler's entry part that saves only registers: it
 * cannot fail, takes no lock and runs no statement, so the return probe
 * calls it directly at the function's entry instead of running a second
 * hit (rt_probe.entry_regs). False, and nothing written, otherwise.
 */
static bool cg_entry_registers(struct handler *h, struct strbuf *file)
{
	if (!h->entry_exprs.n || (h->site && h->site->is_user))
		return false;
	char **vals = xcalloc(h->entry_exprs.n, sizeof *vals);
	bool ok = true;
	for (size_t i = 0; i < h->entry_exprs.n && ok; i++) {
		struct node *e = h->entry_exprs.v[i];
		ok = e->type != T_STRING && (vals[i] = register_value(e->lhs)) != NULL;
	}
	if (ok) {
		/* Declared in every unit: unit 0's table names it. */
		sb_printf(file, "RT_HANDLER void h%d_entry_regs(const struct pt_regs *regs, char *data);\n",
			  h->index);
		sb_printf(file, "#if RT_PART == %d %% RT_PARTS\n", h->index);
		sb_printf(file,
			  "RT_HANDLER void h%d_entry_regs(const struct pt_regs *regs, char *data)\n{\n",
			  h->index);
		for (size_t i = 0; i < h->entry_exprs.n; i++) {
			struct node *e = h->entry_exprs.v[i];
			sb_printf(file, "\t*(rt_long *)(data + %zu) = %s;\n", e->access->entry_off, vals[i]);
		}
		sb_puts(file, "}\n#endif\n\n");
	}
	for (size_t i = 0; i < h->entry_exprs.n; i++)
		free(vals[i]);
	free(vals);
	return ok;
}

/* A handler's C (with its entry parts) with its own number, wherever it
 * names itself (hN, hN_frame, RT_PART == N), made "h#": two handlers
 * whose keys are equal do the same. */
static char *handler_key(const char *text, int index)
{
	char num[32];
	int len = snprintf(num, sizeof num, "%d", index);
	struct strbuf k;
	sb_init(&k);
	const char *copied = text;
	for (const char *p = text; (p = strpbrk(p, "hR"));) {
		bool name = p[0] == 'h' && (p == text || !(isalnum((unsigned char)p[-1]) || p[-1] == '_'));
		bool part = !strncmp(p, "RT_PART == ", 11);
		const char *at = name ? p + 1 : part ? p + 11 : NULL;
		if (at && !strncmp(at, num, (size_t)len) && !isdigit((unsigned char)at[len])) {
			sb_add(&k, copied, (size_t)(p - copied));
			sb_puts(&k, name ? "h#" : "RT_PART == #");
			p = copied = at + len;
		} else {
			p++;
		}
	}
	sb_puts(&k, copied);
	return sb_detach(&k);
}

/*
 * Handlers that came out the same are emitted once and shared by their
 * probes: a wildcard's handler reading a target variable is made per
 * site (locations differ), yet most sites keep it in the same register
 * (kernel.function("vfs_*") reading $file->f_flags: 76 handlers, 4
 * different). The table of those emitted, by key: handler_shared gives
 * the first with the same key, the one the probes of the handler run.
 */
struct handler_table {
	char **keys;
	int *index;
	size_t cap;
};

static int handler_shared(struct handler_table *t, char *key, int index)
{
	size_t mask = t->cap - 1;
	for (size_t i = hash_bytes(HASH_INIT, key, strlen(key)) & mask;; i = (i + 1) & mask) {
		if (!t->keys[i]) {
			t->keys[i] = key;
			t->index[i] = index;
			return index;
		}
		if (!strcmp(t->keys[i], key)) {
			free(key);
			return t->index[i];
		}
	}
}

static int usym_cmp(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;
	return (*x > *y) - (*x < *y);
}

/*
 * The user-space files probes are in, each with its symbols by file
 * offset (what the runtime computes from a mapping), for usymname() and
 * the like: rt_uobjects[], and their symbol names in one string.
 */
static void cg_user_objects(struct session *s, struct strbuf *file)
{
	const struct ptrvec *objs = &s->prog.user_objects;
	size_t *emitted = xcalloc(objs->n + 1, sizeof *emitted);
	for (size_t i = 0; i < objs->n; i++) {
		const struct user_elf *u = objs->v[i];
		/* offset, size, name index: sorted by offset, one per offset */
		uint64_t (*rows)[3] = xcalloc(u->nsyms + 1, sizeof *rows);
		size_t n = 0;
		for (size_t k = 0; k < u->nsyms; k++) {
			uint64_t off;
			if (user_elf_offset(u, u->syms[k].vaddr, &off))
				rows[n][0] = off, rows[n][1] = u->syms[k].size, rows[n++][2] = k;
		}
		qsort(rows, n, sizeof *rows, usym_cmp);
		struct strbuf names;
		sb_init(&names);
		sb_printf(file, "static const struct rt_usym rt_uo%zu_syms[] = {\n", i);
		size_t out = 0;
		for (size_t k = 0; k < n; k++) {
			if (k && rows[k][0] == rows[k - 1][0])
				continue;
			sb_printf(file, "\t{ 0x%llx, 0x%llx, %zu },\n", (unsigned long long)rows[k][0],
				  (unsigned long long)rows[k][1], names.len);
			const char *name = u->syms[rows[k][2]].name;
			sb_add(&names, name, strlen(name) + 1);
			out++;
		}
		sb_printf(file, "%s};\n", out ? "" : "\t{ 0, 0, 0 }\n");
		char *lit = c_string(names.s ? names.s : "", names.len);
		sb_printf(file, "static const char rt_uo%zu_names[] = %s;\n", i, lit);
		free(lit);
		sb_free(&names);
		free(rows);
		emitted[i] = out;
	}
	sb_printf(file, "static struct rt_uobject rt_uobjects[] = {\n");
	for (size_t i = 0; i < objs->n; i++) {
		const struct user_elf *u = objs->v[i];
		char *path = c_string(u->path, strlen(u->path));
		char *id = u->build_id ? c_string(u->build_id, strlen(u->build_id)) : xstrdup("0");
		sb_printf(file, "\t{ .path = %s, .syms = rt_uo%zu_syms, .nsyms = %zu, .names = rt_uo%zu_names, .build_id = %s },\n",
			  path, i, emitted[i], i, id);
		free(path);
		free(id);
	}
	sb_printf(file, "%s};\n\n", objs->n ? "" : "\t{ 0 }\n");
	free(emitted);
}

struct pp_index {
	const void *pp;
	size_t i;
};

static int pp_index_cmp(const void *a, const void *b)
{
	const struct pp_index *x = a, *y = b;
	if (x->pp != y->pp)
		return (uintptr_t)x->pp < (uintptr_t)y->pp ? -1 : 1;
	return (x->i > y->i) - (x->i < y->i);
}

/*
 * For each probe, 1 + the index of the first probe of its script probe
 * point when that point has several sites (0 when it has one): placing
 * one of several may fail as long as one of them is placed, as in
 * SystemTap. By sorting: a wildcard may have tens of thousands.
 */
static int *probe_points(const struct program *prog)
{
	size_t n = prog->probes.n;
	struct pp_index *v = xcalloc(n + 1, sizeof *v);
	int *points = xcalloc(n + 1, sizeof *points);
	for (size_t i = 0; i < n; i++)
		v[i] = (struct pp_index){ ((const struct probe *)prog->probes.v[i])->pp, i };
	qsort(v, n, sizeof *v, pp_index_cmp);
	for (size_t i = 0; i < n;) {
		size_t j = i;
		while (j < n && v[j].pp == v[i].pp)
			j++;
		for (size_t k = i; k < j && v[i].pp && j - i > 1; k++)
			points[v[k].i] = (int)v[i].i + 1;
		i = j;
	}
	free(v);
	return points;
}

/* A user file's index in the program's user objects (sema added it), and
 * the virtual address of its first page: what its mapping at file offset
 * 0 holds in a process. */
static uint64_t user_first_page(const struct session *s, const char *path, size_t *index)
{
	const struct ptrvec *objs = &s->prog.user_objects;
	for (size_t i = 0; i < objs->n; i++) {
		const struct user_elf *u = objs->v[i];
		if (strcmp(u->path, path))
			continue;
		uint64_t first = UINT64_MAX;
		for (size_t k = 0; k < u->nsegs; k++)
			if (u->segs[k].offset < 4096 && u->segs[k].vaddr - u->segs[k].offset < first)
				first = u->segs[k].vaddr - u->segs[k].offset;
		*index = i;
		return first == UINT64_MAX ? 0 : first;
	}
	*index = 0;
	return 0;
}

static const char *rt_kind(enum probe_kind k)
{
	switch (k) {
	case PK_BEGIN:
		return "RT_BEGIN";
	case PK_END:
		return "RT_END";
	case PK_ERROR:
		return "RT_ERROR";
	case PK_TIMER:
		return "RT_TIMER";
	case PK_KPROBE:
		return "RT_KPROBE";
	case PK_KRETPROBE:
		return "RT_KRETPROBE";
	case PK_TRACEPOINT:
		return "RT_TRACEPOINT";
	case PK_PROFILE:
		return "RT_PROFILE";
	case PK_PERF:
		return "RT_PERF";
	case PK_UPROBE:
		return "RT_UPROBE";
	case PK_URETPROBE:
		return "RT_URETPROBE";
	case PK_PROCESS_BEGIN:
		return "RT_PROCESS_BEGIN";
	case PK_PROCESS_END:
		return "RT_PROCESS_END";
	case PK_THREAD_BEGIN:
		return "RT_THREAD_BEGIN";
	case PK_THREAD_END:
		return "RT_THREAD_END";
	case PK_PROCFS_READ:
		return "RT_PROCFS_READ";
	case PK_PROCFS_WRITE:
		return "RT_PROCFS_WRITE";
	case PK_NETFILTER:
		return "RT_NETFILTER";
	case PK_HWBKPT:
		return "RT_HWBKPT";
	case PK_PERF_COUNTER:
		return "RT_PERF_COUNTER";
	case PK_SYSCALL:
		return "RT_SYSCALL";
	case PK_SYSCALL_RETURN:
		return "RT_SYSCALL_RETURN";
	}
	return "RT_BEGIN";
}

/* The compiled regular expressions, as constant programs; returns the longest. */
static int cg_regexes(const struct program *prog, struct strbuf *file)
{
	int longest = 0;
	for (size_t i = 0; i < prog->regexes.n; i++) {
		const struct regex *re = prog->regexes.v[i];
		char *pat = c_comment(re->pattern);
		sb_printf(file, "/* %s */\nstatic const struct rt_re_insn re%zu_prog[] = {\n", pat, i);
		free(pat);
		for (int k = 0; k < re->nprog; k++)
			sb_printf(file, "\t{ %d, %d, %d },\n", re->prog[k].op, re->prog[k].x,
				  re->prog[k].y);
		sb_puts(file, "};\n");
		if (re->nclasses) {
			sb_printf(file, "static const unsigned char re%zu_classes[][32] = {\n", i);
			for (int k = 0; k < re->nclasses; k++) {
				sb_puts(file, "\t{");
				for (int b = 0; b < 32; b++)
					sb_printf(file, "%s%u", b ? "," : " ", re->classes[k][b]);
				sb_puts(file, " },\n");
			}
			sb_puts(file, "};\n");
		}
		sb_printf(file, "static const struct rt_regex re%zu = { re%zu_prog, %d, %s%zu%s, %d };\n\n",
			  i, i, re->nprog, re->nclasses ? "re" : "(void *)0 /* ", i,
			  re->nclasses ? "_classes" : " */", re->ngroups);
		if (re->nprog > longest)
			longest = re->nprog;
	}
	return longest;
}

static void cg_globals(struct cg *g, struct strbuf *file)
{
	const struct program *prog = &g->s->prog;
	for (size_t i = 0; i < prog->globals.n; i++) {
		const struct symbol *gl = prog->globals.v[i];
		const struct node *init = gl->decl->lhs;
		if (gl->is_array || gl->type == T_STATS)
			continue; /* in rt_maps and rt_stats */
		if (gl->type == T_STRING) {
			char *lit = init ? c_string(init->str, init->str_len) : xstrdup("\"\"");
			sb_printf(file, "#if RT_PART == 0\nRT_SHARED char g_%s[%lld] = %s;\n#else\n"
					"extern char g_%s[%lld];\n#endif\n",
				  gl->name, g->maxstr, lit, gl->name, g->maxstr);
			free(lit);
		} else {
			sb_printf(file, "#if RT_PART == 0\nRT_SHARED rt_long g_%s = %lldLL;\n#else\n"
					"extern rt_long g_%s;\n#endif\n",
				  gl->name, init ? init->num : 0, gl->name);
		}
	}
	sb_putc(file, '\n');
}

/* A struct initializer's fields, ", " between them, in rows. */
struct fields {
	struct strbuf *out;
	const char *sep;
};

static struct fields fields_begin(struct strbuf *out, const char *open)
{
	sb_puts(out, open);
	return (struct fields){ out, "" };
}

static void __attribute__((format(printf, 2, 3))) field(struct fields *f, const char *fmt, ...)
{
	sb_puts(f->out, f->sep);
	va_list ap;
	va_start(ap, fmt);
	sb_vprintf(f->out, fmt, ap);
	va_end(ap);
	f->sep = ", ";
}

/* The next fields on a line of their own. */
static void fields_row(struct fields *f)
{
	sb_puts(f->out, ",\n\t  ");
	f->sep = "";
}

/* One field of a struct initializer written a field per line. */
static void __attribute__((format(printf, 2, 3))) line(struct strbuf *out, const char *fmt, ...)
{
	sb_putc(out, '\t');
	va_list ap;
	va_start(ap, fmt);
	sb_vprintf(out, fmt, ap);
	va_end(ap);
	sb_puts(out, ",\n");
}

/* The file's head: what it includes, how it splits into units, and guru
 * mode's own C. */
static void cg_head(struct cg *g, struct strbuf *file)
{
	const struct session *s = g->s;
	const struct program *prog = &s->prog;
	char *from = c_comment(src_get(prog->user_file)->name);
	sb_printf(file, "/* Generated by Tapline %s from %s. */\n", TAPLINE_VERSION, from);
	free(from);
	sb_puts(file, "#include \"api.h\"\n\n");
	/* A script of some size is compiled as RT_PARTS units at once
	 * (build.c), this file each time with -DRT_PART=k: handler i and its
	 * parts are in unit i % RT_PARTS, every table in unit 0, the globals
	 * defined there. */
	sb_puts(file, "#ifndef RT_PARTS\n#define RT_PARTS 1\n#define RT_PART 0\n#endif\n"
		      "#if RT_PARTS > 1\n#define RT_HANDLER rt_notrace\n#define RT_SHARED\n"
		      "#else\n#define RT_HANDLER static rt_notrace\n#define RT_SHARED static\n"
		      "#endif\n\n");
	/* Guru mode: what SystemTap's embedded C finds without including it
	 * (runtime/compat/guru.h), and the limits under its names. */
	if (prog->uses_embedded_c) {
		sb_puts(file, "#include \"compat/guru.h\"\n\n");
		sb_printf(file, "#define MAXSTRINGLEN %lld\n#define MAXACTION %lld\n"
				"#define MAXNESTING %lld\n#define MAXMAPENTRIES %lld\n\n",
			  s->limits[LIMIT_MAXSTRINGLEN], s->limits[LIMIT_MAXACTION],
			  s->limits[LIMIT_MAXNESTING], s->limits[LIMIT_MAXMAPENTRIES]);
	}
	/* Guru mode: the script's own C declarations (kernel headers and the like). */
	for (size_t i = 0; i < prog->embedded.n; i++) {
		struct node *e = prog->embedded.v[i];
		g->out = file;
		line_directive(g, e);
		sb_printf(file, "%s\n", e->str);
	}
}

/* What staprun checks before it loads, in .modinfo: the kernel's build-id
 * and each probed module's, the translator's version, how user stacks
 * come, and room for the module's checksum of itself. */
static void cg_modinfo(const struct session *s, struct strbuf *file, int ustacks)
{
	const struct program *prog = &s->prog;
	/* The build-id staprun checks, and the translator version, in .modinfo. */
	sb_puts(file, "#if RT_PART == 0\n");
	sb_printf(file,
		  "static const char rt_modinfo_build_id[] __attribute__((section(\".modinfo\"), "
		  "used, aligned(1))) = \"tapline_kernel_build_id=%s\";\n",
		  s->kernel->build_id);
	/* And each probed module's, which staprun and the runtime check too. */
	for (size_t i = 0; i < prog->probes.n; i++) {
		const struct probe *p = prog->probes.v[i];
		bool seen = false;
		for (size_t k = 0; k < i && !seen; k++) {
			const struct probe *q = prog->probes.v[k];
			seen = q->module && p->module && !strcmp(q->module, p->module);
		}
		if (p->module && p->site && p->site->build_id && !seen)
			sb_printf(file,
				  "static const char rt_modinfo_module%zu[] __attribute__((section("
				  "\".modinfo\"), used, aligned(1))) = "
				  "\"tapline_module_build_id=%s:%s\";\n",
				  i, p->module, p->site->build_id);
	}
	sb_printf(file,
		  "static const char rt_modinfo_version[] __attribute__((section(\".modinfo\"), "
		  "used, aligned(1))) = \"tapline_version=%s\";\n",
		  TAPLINE_VERSION);
	/* staprun takes user-stack records and tokens out of the output
	 * (contract/ustack-records.h) only for a module that says so. */
	if (ustacks)
		sb_printf(file,
			  "static const char rt_modinfo_ustack[] __attribute__((section(\".modinfo\"), "
			  "used, aligned(1))) = \"tapline_ustack=%s,%lld\";\n",
			  ustacks == 2 ? "keys" : "print", s->limits[LIMIT_MAXBACKTRACE]);
	/* The kernel's line table for staprun, in a section the kernel does
	 * not allocate (contract/linetable.h); sema checked the path needs no
	 * escaping. */
	if (prog->kernel_lines)
		sb_printf(file,
			  "static const char rt_modinfo_klines[] __attribute__((section(\".modinfo\"), "
			  "used, aligned(1))) = \"tapline_klines=1\";\n"
			  "__asm__(\".pushsection %s,\\\"\\\",@progbits\\n.incbin \\\"%s\\\"\\n"
			  ".popsection\");\n",
			  LT_SECTION, prog->kernel_lines);
	/* Room for the finished module's checksum of itself, which pass 4
	 * writes over the zeros (link.c) and staprun verifies. */
	sb_printf(file,
		  "static const char rt_modinfo_sha256[] __attribute__((section(\".modinfo\"), "
		  "used, aligned(1))) = \"" SR_CHECKSUM_KEY "=%0*d\";\n#endif\n\n",
		  SR_CHECKSUM_DIGITS, 0);
}

/* What every unit declares: the regular expressions' programs (returns
 * which), the script functions and the handlers. */
static int cg_declarations(struct cg *g, struct strbuf *file)
{
	const struct program *prog = &g->s->prog;
	int regex_prog = cg_regexes(prog, file);
	for (size_t i = 0; i < prog->functions.n; i++) {
		char *sig = function_signature(prog->functions.v[i]);
		sb_printf(file, "%s;\n", sig);
		free(sig);
	}
	if (prog->functions.n)
		sb_putc(file, '\n');

	/* Every handler declared: unit 0's tables name those of the others. */
	for (size_t i = 0; i < prog->handlers.n; i++) {
		sb_printf(file, "RT_HANDLER int h%zu(struct rt_context *c);\n", i);
		if (((struct handler *)prog->handlers.v[i])->entry_exprs.n)
			sb_printf(file, "RT_HANDLER int h%zu_entry(struct rt_context *c);\n", i);
	}
	sb_putc(file, '\n');
	return regex_prog;
}

/* The script functions, then the handlers: a handler identical to an
 * earlier one is written once, shared[i] naming the one whose code handler
 * i uses; entry_registers[i] says whether handler i's entry part saves
 * registers straight from the entry's (cg_entry_registers). */
static void cg_bodies(struct cg *g, struct strbuf *file, int *shared, bool *entry_registers)
{
	const struct program *prog = &g->s->prog;
	for (size_t i = 0; i < prog->functions.n; i++)
		cg_function(g, prog->functions.v[i], file);
	struct handler_table table = { 0 };
	for (table.cap = 16; table.cap < 2 * prog->handlers.n; table.cap *= 2)
		;
	table.keys = xcalloc(table.cap, sizeof *table.keys);
	table.index = xcalloc(table.cap, sizeof *table.index);
	for (size_t i = 0; i < prog->handlers.n; i++) {
		struct handler *h = prog->handlers.v[i];
		struct strbuf one;
		sb_init(&one);
		cg_handler(g, h, &one);
		if (h->entry_exprs.n) {
			cg_entry_handler(g, h, &one);
			entry_registers[i] = cg_entry_registers(h, &one);
		}
		shared[i] = handler_shared(&table, handler_key(one.s, h->index), (int)i);
		if (shared[i] == (int)i)
			sb_puts(file, one.s);
		sb_free(&one);
	}
	for (size_t i = 0; i < table.cap; i++)
		free(table.keys[i]);
	free(table.keys);
	free(table.index);
}

static void cg_frame_unions(const struct program *prog, struct strbuf *file, const int *shared)
{
	/* The largest frame of each kind, sized by the compiler: one union. */
	sb_puts(file, "\nunion rt_handler_frames {\n\tchar none;\n");
	for (size_t i = 0; i < prog->handlers.n; i++) {
		if (shared[i] != (int)i)
			continue;
		sb_printf(file, "\tstruct h%zu_frame h%zu;\n", i, i);
		if (((struct handler *)prog->handlers.v[i])->entry_exprs.n)
			sb_printf(file, "\tstruct h%zu_entry_frame h%zu_entry;\n", i, i);
	}
	sb_puts(file, "};\n\nunion rt_function_frames {\n\tchar none;\n");
	for (size_t i = 0; i < prog->functions.n; i++) {
		char *name = fn_cname(prog->functions.v[i]);
		sb_printf(file, "\tstruct %s_frame %s;\n", name, name);
		free(name);
	}
	sb_puts(file, "};\n");
}

/* A .callee probe's call-site chains: rows of static objects' indices. */
static void cg_callers(struct cg *g, struct strbuf *file)
{
	const struct program *prog = &g->s->prog;
	for (size_t i = 0; i < prog->probes.n; i++) {
		const struct probe *p = prog->probes.v[i];
		if (!p->callers.n)
			continue;
		sb_printf(file, "static const rt_size rt_callers_%zu[] = {", i);
		for (size_t r = 0; r < p->callers.n; r++) {
			const struct ptrvec *chain = p->callers.v[r];
			sb_puts(file, r % 4 ? " " : "\n\t");
			for (size_t k = 0; k < chain->n; k++)
				sb_printf(file, "%zu, ", cg_static_index(g, chain->v[k]));
		}
		sb_puts(file, "\n};\n");
	}
}

/* The probe table: an entry per probe, naming its handler. */
static void cg_probe_table(const struct program *prog, struct strbuf *file, const int *shared,
			   const bool *entry_registers)
{
	sb_puts(file, "\nstatic const struct rt_probe probes[] = {\n");
	int *points = probe_points(prog);
	for (size_t i = 0; i < prog->probes.n; i++) {
		const struct probe *p = prog->probes.v[i];
		char *pp = c_string(p->pp_text, strlen(p->pp_text));
		/* pn(): the outermost alias the script named, as its point reads. */
		char *pn = xstrdup("0");
		if (p->handler->aliases.n) {
			const struct node *alias = p->handler->aliases.v[0];
			char *t = ast_probe_point_text(alias->then);
			free(pn);
			pn = c_string(t, strlen(t));
			free(t);
		}
		/* A counter's name stays here: the runtime knows it by its index. */
		const char *symbol = p->user_file		 ? p->user_file
				     : p->kind == PK_PERF_COUNTER ? NULL
								  : p->symbol;
		char *sym = symbol ? c_string(symbol, strlen(symbol)) : xstrdup("0");
		char *mod = p->module ? c_string(p->module, strlen(p->module)) : xstrdup("0");
		const char *bid = (p->module || p->user_file) && p->site ? p->site->build_id : NULL;
		char *mod_id = bid ? c_string(bid, strlen(bid)) : xstrdup("0");
		const char *fn = p->site ? p->site->function : p->function;
		char *func = fn ? c_string(fn, strlen(fn)) : xstrdup("0");
		const struct handler *h = p->handler;
		int hi = shared[h->index];
		char *entry = h->entry_exprs.n ? xasprintf("h%d_entry", hi) : xstrdup("0");
		char *entry_regs = entry_registers[h->index] ? xasprintf("h%d_entry_regs", hi)
							     : xstrdup("0");
		int point = points[i];
		struct fields f = fields_begin(file, "\t{ ");
		field(&f, ".kind = %s", rt_kind(p->kind));
		field(&f, ".pp = %s", pp);
		field(&f, ".pn = %s", pn);
		field(&f, ".symbol = %s", sym);
		field(&f, ".function = %s", func);
		field(&f, ".module = %s", mod);
		field(&f, ".module_build_id = %s", mod_id);
		fields_row(&f);
		field(&f, ".offset = %lldLL", (long long)p->offset);
		field(&f, ".text_offset = 0x%llx", (unsigned long long)p->text_offset);
		field(&f, ".period_ns = %lldLL", p->period_ns);
		field(&f, ".spread_ns = %lldLL", p->spread_ns);
		fields_row(&f);
		field(&f, ".perf_type = %lldLL", p->perf_type);
		field(&f, ".perf_config = %lldLL", p->perf_config);
		field(&f, ".perf_sample = %lldLL", p->perf_sample);
		fields_row(&f);
		field(&f, ".handler = h%d", hi);
		field(&f, ".optional = %d", p->optional);
		field(&f, ".from_wildcard = %d", p->from_wildcard || point);
		field(&f, ".needs_regs = %d", p->needs_regs);
		field(&f, ".entry = %s", entry);
		field(&f, ".entry_regs = %s", entry_regs);
		field(&f, ".entry_size = %zu", h->entry_size);
		field(&f, ".maxactive = %lld", p->maxactive);
		if (p->callers.n) {
			field(&f, ".callers = rt_callers_%zu", i);
			field(&f, ".ncallers = %zu", p->callers.n);
			field(&f, ".callers_depth = %d", p->callers_depth);
		}
		field(&f, ".nargs = %zu",
		      p->kind == PK_TRACEPOINT && p->site ? p->site->nvars : (size_t)0);
		field(&f, ".file_offset = 0x%llx", (unsigned long long)p->file_offset);
		field(&f, ".sem_offset = 0x%llx", (unsigned long long)p->sem_offset);
		fields_row(&f);
		field(&f, ".procfs_umask = 0%llo", (unsigned long long)p->procfs_umask);
		field(&f, ".procfs_maxsize = %lldLL", p->procfs_maxsize);
		field(&f, ".nf_hook = %lldLL", p->nf_hook);
		field(&f, ".nf_pf = %lldLL", p->nf_pf);
		field(&f, ".nf_priority = %lldLL", p->nf_priority);
		field(&f, ".point = %d", point);
		sb_puts(file, " },\n");
		free(pn);
		free(pp);
		free(sym);
		free(mod);
		free(mod_id);
		free(func);
		free(entry);
		free(entry_regs);
	}
	free(points);
	if (!prog->probes.n)
		sb_puts(file, "\t{ .kind = RT_BEGIN, .pp = \"\", .handler = 0 },\n");
	sb_puts(file, "};\n\n");
}

static void cg_statics(struct cg *g, struct strbuf *file)
{
	const struct session *s = g->s;
	const struct program *prog = &s->prog;
	/* The static objects read (globals, functions' static variables): the
	 * runtime fills in their addresses as their objects come and go. */
	if (g->statics.n) {
		sb_puts(file, "static struct rt_static rt_statics[] = {\n");
		for (size_t i = 0; i < g->statics.n; i++) {
			const struct tstatic *st = g->statics.v[i];
			if (st->object[0] == '/') {
				size_t k = 0;
				uint64_t base = user_first_page(s, st->object, &k);
				sb_printf(file, "\t{ .uobject = %zu, .uoffset = 0x%llx },\n", k + 1,
					  (unsigned long long)(st->user_vaddr - base));
				continue;
			}
			bool kernel = !strcmp(st->object, "kernel");
			char *mod = kernel ? xstrdup("0") : c_string(st->object, strlen(st->object));
			char *sym = st->symbol ? c_string(st->symbol, strlen(st->symbol)) : xstrdup("0");
			char *id = st->build_id ? c_string(st->build_id, strlen(st->build_id))
						: xstrdup("0");
			sb_printf(file,
				  "\t{ .module = %s, .module_build_id = %s, .symbol = %s, .offset = %lldLL, "
				  ".text_offset = 0x%llx },\n",
				  mod, id, sym, (long long)st->offset, (unsigned long long)st->text_offset);
			free(id);
			free(mod);
			free(sym);
		}
		sb_puts(file, "};\n\n");
		/* staprun checks these modules' build-ids too, as a probed module's. */
		for (size_t i = 0; i < g->statics.n; i++) {
			const struct tstatic *st = g->statics.v[i];
			bool seen = !strcmp(st->object, "kernel") || !st->build_id || st->object[0] == '/';
			for (size_t k = 0; k < prog->probes.n && !seen; k++) {
				const struct probe *q = prog->probes.v[k];
				seen = q->module && q->site && q->site->build_id &&
				       !strcmp(q->module, st->object);
			}
			for (size_t k = 0; k < i && !seen; k++)
				seen = !strcmp(((const struct tstatic *)g->statics.v[k])->object,
					       st->object);
			if (!seen)
				sb_printf(file,
					  "static const char rt_modinfo_static%zu[] __attribute__((section("
					  "\".modinfo\"), used, aligned(1))) = "
					  "\"tapline_module_build_id=%s:%s\";\n",
					  i, st->object, st->build_id);
		}
	}
}

/* struct rt_script: what the runtime reads of the script, one field a line. */
static void cg_script(struct cg *g, struct strbuf *file, int ustacks, int regex_prog, int nmaps,
		      int nstats, long long iter_slots)
{
	const struct session *s = g->s;
	const struct program *prog = &s->prog;
	sb_printf(file, "int rt_global_locks[%zu];\n\n", prog->globals.n ? prog->globals.n : 1);
	const long long *lim = s->limits;
	/* Room for the largest handler frame plus MAXNESTING of the largest
	 * function frame, each rounded up to the runtime's 16-byte alignment. */
	const char *hsize = "(16 + sizeof(union rt_handler_frames))";
	const char *fsize = prog->functions.n ? "(16 + sizeof(union rt_function_frames))" : "0";
	sb_puts(file, "const struct rt_script rt_script = {\n");
	line(file, ".api_version = RT_API_VERSION");
	line(file, ".probes = probes");
	line(file, ".nprobes = %zu", prog->probes.n);
	line(file, ".nglobals = %zu", prog->globals.n);
	line(file, ".frame_size = %s + %lld * %s", hsize, lim[LIMIT_MAXNESTING], fsize);
	line(file, ".maxstringlen = %lld", lim[LIMIT_MAXSTRINGLEN]);
	line(file, ".maxaction = %lld", lim[LIMIT_MAXACTION]);
	line(file, ".maxaction_interruptible = %lld", lim[LIMIT_MAXACTION_INTERRUPTIBLE]);
	line(file, ".maxnesting = %lld", lim[LIMIT_MAXNESTING]);
	line(file, ".maxtrylock = %lld", lim[LIMIT_MAXTRYLOCK]);
	line(file, ".trylockdelay = %lld", lim[LIMIT_TRYLOCKDELAY]);
	line(file, ".hist_elision = %lld", lim[LIMIT_HIST_ELISION]);
	line(file, ".maxskipped = %lld", lim[LIMIT_MAXSKIPPED]);
	line(file, ".maxactive = %lld", lim[LIMIT_MAXACTIVE]);
	/* Samples of user stacks are MAXUSTACK bytes each: 4 MiB holds the
	 * ticks of a second on one CPU at 8 KiB. */
	line(file, ".buffer_size = %lld",
	     (ustacks && !s->limit_set[LIMIT_BUFFER_KB] ? 4096 : lim[LIMIT_BUFFER_KB]) * 1024);
	line(file, ".maxerrors = %lld", lim[LIMIT_MAXERRORS]);
	line(file, ".maps = %s", nmaps ? "rt_map_descs" : "0");
	line(file, ".nmaps = %d", nmaps);
	line(file, ".stats = %s", nstats ? "rt_stat_descs" : "0");
	line(file, ".nstats = %d", nstats);
	line(file, ".iter_slots = %lld", iter_slots);
	line(file, ".regex_prog = %d", regex_prog);
	line(file, ".printk_offset = 0x%llx", (unsigned long long)prog->printk_offset);
	line(file, ".statics = %s", g->statics.n ? "rt_statics" : "0");
	line(file, ".nstatics = %zu", g->statics.n);
	line(file, ".maxhittime_us = %lld", lim[LIMIT_MAXHITTIME]);
	line(file, ".overload_interval_ns = %lld",
	     lim[LIMIT_STP_NO_OVERLOAD] ? 0 : lim[LIMIT_STP_OVERLOAD_INTERVAL]);
	line(file, ".overload_threshold_ns = %lld", lim[LIMIT_STP_OVERLOAD_THRESHOLD]);
	line(file, ".maxmemory_kb = %lld", lim[LIMIT_MAXMEMORY]);
	line(file, ".uobjects = rt_uobjects");
	line(file, ".nuobjects = %zu", prog->user_objects.n);
	line(file, ".maxbacktrace = %lld", lim[LIMIT_MAXBACKTRACE]);
	line(file, ".suppress_errors = %d", s->suppress_handler_errors);
	line(file, ".timing = %d", s->timing);
	line(file, ".maxustack = %lld", ustacks ? lim[LIMIT_MAXUSTACK] : 0LL);
	line(file, ".ustack_keys = %d", ustacks == 2);
	line(file, ".ncounters = %d", prog->ncounters);
	line(file, ".procfs_maxopen = %lld", lim[LIMIT_PROCFS_MAXOPEN]);
	sb_puts(file, "};\n");
}

char *cg_translate(struct session *s)
{
	struct program *prog = &s->prog;
	struct cg g = { .s = s, .maxstr = s->limits[LIMIT_MAXSTRINGLEN] };
	struct strbuf file;
	sb_init(&file);
	int ustacks = ustack_mode(prog);
	cg_head(&g, &file);
	cg_modinfo(s, &file, ustacks);
	cg_number_data(&g);
	cg_globals(&g, &file);
	int regex_prog = cg_declarations(&g, &file);
	bool *entry_registers = xcalloc(prog->handlers.n + 1, sizeof *entry_registers);
	int *shared = xcalloc(prog->handlers.n + 1, sizeof *shared);
	cg_bodies(&g, &file, shared, entry_registers);
	/* The rest is unit 0's. */
	sb_puts(&file, "#if RT_PART == 0\n");
	cg_frame_unions(prog, &file, shared);
	cg_callers(&g, &file);
	cg_probe_table(prog, &file, shared, entry_registers);
	free(entry_registers);
	free(shared);
	int nmaps = 0, nstats = 0;
	long long iter_slots = 0;
	cg_data_tables(&g, &file, &nmaps, &nstats, &iter_slots);
	cg_user_objects(s, &file);
	cg_statics(&g, &file);
	cg_script(&g, &file, ustacks, regex_prog, nmaps, nstats, iter_slots);
	sb_puts(&file, "#endif\n");
	pv_free(&g.statics);
	free(g.map_of);
	free(g.stats_of);
	return sb_detach(&file);
}
