// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Types. A script has two value types, long and string; variables and
 * functions get theirs from how they are used. The checker walks the whole
 * program repeatedly, letting each known type flow into unknown ones
 * (assignments, arguments, returns, operators), until nothing changes; one
 * last walk then reports every conflict. printf formats are checked here
 * against their arguments, with the same parser the runtime uses.
 */
#include <stdlib.h>
#include <string.h>

#include "format.h"
#include "front/diag.h"
#include "sema/builtins.h"
#include "sema/sema.h"

struct checker {
	struct session *s;
	bool report;          /* the final walk: report errors */
	bool changed;         /* a type was learned during this walk */
	struct symbol *func;  /* the function being checked, or NULL */
	struct handler *h;    /* the probe body being checked, or NULL */
};

static const char *type_words(enum type t)
{
	switch (t) {
	case T_LONG:
		return "a number";
	case T_STRING:
		return "a string";
	case T_VOID:
		return "no value";
	case T_UNKNOWN:
		break;
	}
	return "of unknown type";
}

static void learn(struct checker *c, struct symbol *sym, enum type t, struct loc where)
{
	if (t == T_UNKNOWN || t == T_VOID)
		return;
	if (sym->type == T_UNKNOWN) {
		sym->type = t;
		sym->loc = sym->kind == SYM_LOCAL ? where : sym->loc;
		c->changed = true;
		return;
	}
	if (sym->type != t && c->report) {
		const char *what = sym->kind == SYM_FUNCTION ? "function" :
				   sym->kind == SYM_GLOBAL   ? "global" :
				   sym->kind == SYM_PARAM    ? "parameter" :
							       "variable";
		diag_error(where, D_TYPE_MISMATCH, "%s '%s' is %s, but is used as %s", what,
			   sym->name, type_words(sym->type), type_words(t));
		diag_note(sym->loc, "'%s' got its type here", sym->name);
	}
}

/* Report when an expression of type got is used where want is needed. */
static void expect(struct checker *c, struct node *n, enum type got, enum type want,
		   const char *context)
{
	if (!c->report || want == T_UNKNOWN || got == want)
		return;
	if (got == T_VOID) {
		diag_error(n->loc, D_VOID_VALUE, "%s has no value, but %s needs %s",
			   n->kind == N_CALL ? n->name : "this", context, type_words(want));
		return;
	}
	if (got == T_UNKNOWN)
		return; /* reported once, for the variable itself */
	diag_error(n->loc, D_TYPE_MISMATCH, "%s needs %s, but this is %s", context,
		   type_words(want), type_words(got));
	if (want == T_STRING && got == T_LONG)
		diag_hint("sprintf(\"%%d\", ...) turns a number into a string");
}

static enum type check_expr(struct checker *c, struct node *n, enum type want);

static enum type check_operand(struct checker *c, struct node *n, enum type want,
			       const char *context)
{
	enum type t = check_expr(c, n, want);
	expect(c, n, t, want, context);
	return t;
}

/* No probe of the handler is an entry probe. (A handler whose probe points
 * all failed, which was reported already, has none.) */
static bool all_points_return(struct checker *c, struct handler *h)
{
	for (size_t i = 0; i < c->s->prog.probes.n; i++) {
		struct probe *p = c->s->prog.probes.v[i];
		if (p->handler == h && p->kind != PK_KRETPROBE)
			return false;
	}
	return true;
}

static enum type check_target(struct checker *c, struct node *n)
{
	if (!c->report)
		return T_LONG;
	if (strcmp(n->name, "return") != 0) {
		diag_error(n->loc, D_TARGET_VARIABLE,
			   "'$%s' needs the kernel's DWARF debuginfo, which Tapline does not read "
			   "yet",
			   n->name);
		diag_hint("only $return is available now; int_arg(N)-style access comes later");
		return T_LONG;
	}
	if (!c->h) {
		diag_error(n->loc, D_TARGET_VARIABLE, "'$return' can only be used in a probe body");
		return T_LONG;
	}
	c->h->uses_return = true;
	if (!all_points_return(c, c->h)) {
		diag_error(n->loc, D_TARGET_VARIABLE,
			   "'$return' is only available in a '.return' probe");
		diag_hint("probe kernel.function(\"name\").return { ... $return ... }");
	}
	return T_LONG;
}

/*
 * The column of byte OFFSET of a string literal's value: escapes make the
 * source longer than the value, so walk the literal in the source line.
 */
static struct loc string_offset_loc(const struct node *lit, size_t offset)
{
	struct loc at = lit->loc;
	size_t len;
	const char *line = src_line(at.file, at.line, &len);
	size_t i = (size_t)at.col; /* just after the opening quote */
	if (!line || i > len)
		return at;
	for (size_t value = 0; value < offset && i < len && line[i] != '"'; value++) {
		if (line[i] != '\\') {
			i++;
			continue;
		}
		i++; /* the backslash */
		if (i < len && line[i] == 'x') {
			i++;
			for (int k = 0; k < 2 && i < len && strchr("0123456789abcdefABCDEF", line[i]); k++)
				i++;
		} else if (i < len && line[i] >= '0' && line[i] <= '7') {
			for (int k = 0; k < 3 && i < len && line[i] >= '0' && line[i] <= '7'; k++)
				i++;
		} else {
			i++;
		}
	}
	at.col = (int)i + 1;
	return at;
}

static void check_format(struct checker *c, struct node *call)
{
	struct node *fmt = call->list;
	if (fmt->kind != N_STR) {
		if (c->report)
			diag_error(fmt->loc, D_BAD_FORMAT, "the format of %s must be a literal string",
				   call->name);
		for (struct node *a = fmt->next; a; a = a->next)
			check_expr(c, a, T_UNKNOWN);
		return;
	}
	struct node *arg = fmt->next;
	const char *p = fmt->str;
	struct rt_fmt_spec spec;
	while (rt_fmt_next(&p, &spec)) {
		/* Only a reported error needs the directive's column. */
		struct loc at = c->report ? string_offset_loc(fmt, (size_t)(spec.start - fmt->str))
					  : fmt->loc;
		if (spec.conv == RT_FMT_ERROR) {
			if (c->report)
				diag_error(at, D_BAD_FORMAT, "bad format directive '%.*s'",
					   (int)spec.len, spec.start);
			return;
		}
		if (spec.conv == RT_FMT_LITERAL || spec.conv == RT_FMT_PERCENT)
			continue;
		int stars = (spec.width == -2) + (spec.precision == -2);
		for (int i = 0; i < stars; i++) {
			if (!arg)
				break;
			check_operand(c, arg, T_LONG, "a '*' width or precision");
			arg = arg->next;
		}
		if (!arg) {
			if (c->report)
				diag_error(at, D_BAD_FORMAT, "format directive '%.*s' has no argument",
					   (int)spec.len, spec.start);
			return;
		}
		enum type want = spec.conv == RT_FMT_STRING ? T_STRING : T_LONG;
		char *context = xasprintf("format directive '%.*s'", (int)spec.len, spec.start);
		check_operand(c, arg, want, context);
		free(context);
		arg = arg->next;
	}
	if (arg && c->report)
		diag_error(arg->loc, D_BAD_FORMAT, "%s has more arguments than its format uses",
			   call->name);
	for (; arg; arg = arg->next)
		check_expr(c, arg, T_UNKNOWN);
}

static enum type check_builtin(struct checker *c, struct node *n)
{
	const struct builtin *b = n->builtin;
	int nargs = ast_list_len(n->list);
	if (nargs < b->min_args || (b->max_args >= 0 && nargs > b->max_args)) {
		if (c->report) {
			if (b->min_args == b->max_args)
				diag_error(n->loc, D_WRONG_ARGS, "%s() takes %d argument%s, not %d",
					   b->name, b->min_args, b->min_args == 1 ? "" : "s", nargs);
			else
				diag_error(n->loc, D_WRONG_ARGS,
					   "%s() takes at least %d argument%s, not %d", b->name,
					   b->min_args, b->min_args == 1 ? "" : "s", nargs);
		}
		for (struct node *a = n->list; a; a = a->next)
			check_expr(c, a, T_UNKNOWN);
		return b->ret;
	}
	if (b->id == B_PRINTF || b->id == B_SPRINTF) {
		check_format(c, n);
		return b->ret;
	}
	int i = 0;
	for (struct node *a = n->list; a; a = a->next, i++) {
		enum type want = i < 2 ? b->arg_types[i] : T_UNKNOWN;
		char *context = xasprintf("argument %d of %s()", i + 1, b->name);
		enum type t = check_operand(c, a, want, context);
		free(context);
		if (want == T_UNKNOWN && t == T_VOID && c->report)
			diag_error(a->loc, D_VOID_VALUE, "this has no value to print");
	}
	return b->ret;
}

static enum type check_call(struct checker *c, struct node *n, enum type want)
{
	if (n->builtin)
		return check_builtin(c, n);
	struct symbol *f = n->sym;
	if (!f) {
		for (struct node *a = n->list; a; a = a->next)
			check_expr(c, a, T_UNKNOWN);
		return T_UNKNOWN;
	}
	int nargs = ast_list_len(n->list);
	if (nargs != f->nparams && c->report) {
		diag_error(n->loc, D_WRONG_ARGS, "%s() takes %d argument%s, not %d", f->name,
			   f->nparams, f->nparams == 1 ? "" : "s", nargs);
		diag_note(f->loc, "'%s' is defined here", f->name);
	}
	int i = 0;
	for (struct node *a = n->list; a; a = a->next, i++) {
		struct symbol *param = i < f->nparams ? f->vars.v[i] : NULL;
		enum type t = check_expr(c, a, param ? param->type : T_UNKNOWN);
		if (t == T_VOID) {
			if (c->report)
				diag_error(a->loc, D_VOID_VALUE,
					   "%s() returns no value to pass as an argument of %s()",
					   a->kind == N_CALL ? a->name : "this", f->name);
			continue;
		}
		if (!param)
			continue;
		if (param->type == T_UNKNOWN)
			learn(c, param, t, param->loc);
		else if (t != T_UNKNOWN && t != param->type && c->report) {
			diag_error(a->loc, D_TYPE_MISMATCH,
				   "argument %d of %s() is %s, but parameter '%s' is %s", i + 1,
				   f->name, type_words(t), param->name, type_words(param->type));
			diag_note(param->loc, "'%s' got its type here", param->name);
		} else if (t == T_UNKNOWN && a->kind == N_VAR && a->sym)
			learn(c, a->sym, param->type, a->loc);
	}
	/* A function's type comes from its returns, not from how a call is
	 * used: a wrong use is then reported at the call. */
	(void)want;
	return f->type;
}

static bool is_lvalue(const struct node *n)
{
	return n->kind == N_VAR && n->sym;
}

static enum type check_assign(struct checker *c, struct node *n)
{
	if (!is_lvalue(n->lhs)) {
		if (c->report && n->lhs->kind != N_VAR)
			diag_error(n->lhs->loc, D_NOT_ASSIGNABLE, "cannot assign to a %s",
				   ast_kind_name(n->lhs->kind));
		check_expr(c, n->rhs, T_UNKNOWN);
		return T_UNKNOWN;
	}
	struct symbol *sym = n->lhs->sym;
	enum type t;
	switch (n->op) {
	case OP_ASSIGN:
		t = check_expr(c, n->rhs, sym->type);
		if (t == T_VOID) {
			expect(c, n->rhs, t, sym->type == T_UNKNOWN ? T_LONG : sym->type,
			       "an assignment");
			return sym->type;
		}
		learn(c, sym, t, n->loc);
		if (sym->type == T_UNKNOWN)
			return T_UNKNOWN;
		if (t == T_UNKNOWN && n->rhs->kind == N_VAR && n->rhs->sym)
			learn(c, n->rhs->sym, sym->type, n->rhs->loc);
		n->lhs->type = sym->type;
		return sym->type;
	case OP_CONCAT:
		learn(c, sym, T_STRING, n->loc);
		check_operand(c, n->rhs, T_STRING, "'.='");
		n->lhs->type = T_STRING;
		return T_STRING;
	default:
		learn(c, sym, T_LONG, n->loc);
		char *context = xasprintf("'%s='", ast_op_name(n->op));
		check_operand(c, n->rhs, T_LONG, context);
		free(context);
		n->lhs->type = T_LONG;
		return T_LONG;
	}
}

static enum type check_binary(struct checker *c, struct node *n)
{
	char *context = xasprintf("operator '%s'", ast_op_name(n->op));
	enum type t = T_LONG;
	switch (n->op) {
	case OP_CONCAT:
		check_operand(c, n->lhs, T_STRING, context);
		check_operand(c, n->rhs, T_STRING, context);
		t = T_STRING;
		break;
	case OP_MATCH:
	case OP_NOMATCH:
		check_operand(c, n->lhs, T_STRING, context);
		check_operand(c, n->rhs, T_STRING, context);
		if (c->report)
			diag_error(n->loc, D_UNSUPPORTED,
				   "regular expression matching ('%s') is not supported by Tapline yet",
				   ast_op_name(n->op));
		break;
	case OP_EQ:
	case OP_NE:
	case OP_LT:
	case OP_LE:
	case OP_GT:
	case OP_GE: {
		enum type lt = check_expr(c, n->lhs, T_UNKNOWN);
		enum type rt = check_expr(c, n->rhs, lt);
		if (lt == T_UNKNOWN && rt != T_UNKNOWN)
			lt = check_expr(c, n->lhs, rt);
		if (lt == T_VOID || rt == T_VOID) {
			expect(c, lt == T_VOID ? n->lhs : n->rhs, T_VOID, T_LONG, context);
		} else if (lt != T_UNKNOWN && rt != T_UNKNOWN && lt != rt && c->report) {
			diag_error(n->loc, D_TYPE_MISMATCH, "%s compares %s with %s", context,
				   type_words(lt), type_words(rt));
		}
		n->lhs->type = lt;
		break;
	}
	default:
		check_operand(c, n->lhs, T_LONG, context);
		check_operand(c, n->rhs, T_LONG, context);
		break;
	}
	free(context);
	return t;
}

static enum type check_expr(struct checker *c, struct node *n, enum type want)
{
	enum type t = T_UNKNOWN;
	switch (n->kind) {
	case N_NUM:
		t = T_LONG;
		break;
	case N_STR:
		t = T_STRING;
		break;
	case N_VAR:
		if (n->sym) {
			if (n->sym->type == T_UNKNOWN)
				learn(c, n->sym, want, n->loc);
			t = n->sym->type;
		}
		break;
	case N_TARGET:
		t = check_target(c, n);
		break;
	case N_CALL:
		t = check_call(c, n, want);
		break;
	case N_ASSIGN:
		t = check_assign(c, n);
		break;
	case N_BINARY:
		t = check_binary(c, n);
		break;
	case N_UNARY: {
		char *context = xasprintf("operator '%s'", ast_op_name(n->op));
		check_operand(c, n->lhs, T_LONG, context);
		free(context);
		t = T_LONG;
		break;
	}
	case N_INCDEC:
		if (!is_lvalue(n->lhs)) {
			if (c->report && n->lhs->kind != N_VAR)
				diag_error(n->lhs->loc, D_NOT_ASSIGNABLE, "'%s' needs a variable",
					   ast_op_name(n->op));
		} else {
			learn(c, n->lhs->sym, T_LONG, n->loc);
			n->lhs->type = T_LONG;
		}
		t = T_LONG;
		break;
	case N_TERNARY: {
		check_operand(c, n->cond, T_LONG, "a condition");
		enum type a = check_expr(c, n->then, want);
		enum type b = check_expr(c, n->els, a != T_UNKNOWN ? a : want);
		if (a == T_UNKNOWN)
			a = check_expr(c, n->then, b);
		if (a != T_UNKNOWN && b != T_UNKNOWN && a != b && c->report)
			diag_error(n->loc, D_TYPE_MISMATCH, "the two branches of '?:' are %s and %s",
				   type_words(a), type_words(b));
		t = a != T_UNKNOWN ? a : b;
		break;
	}
	case N_PROBE:
	case N_PROBE_POINT:
	case N_PP_COMP:
	case N_GLOBAL:
	case N_FUNCTION:
	case N_PARAM:
	case N_BLOCK:
	case N_EXPR_STMT:
	case N_IF:
	case N_WHILE:
	case N_FOR:
	case N_BREAK:
	case N_CONTINUE:
	case N_NEXT:
	case N_RETURN:
	case N_EMPTY:
	case N_NKINDS:
		break;
	}
	n->type = t;
	return t;
}

static void check_stmt(struct checker *c, struct node *n);

static void check_stmt_child(struct node *child, void *ctx)
{
	check_stmt(ctx, child);
}

static void check_stmt(struct checker *c, struct node *n)
{
	switch (n->kind) {
	case N_EXPR_STMT:
		check_expr(c, n->lhs, T_UNKNOWN);
		return;
	case N_IF:
		check_operand(c, n->cond, T_LONG, "a condition");
		check_stmt(c, n->then);
		if (n->els)
			check_stmt(c, n->els);
		return;
	case N_WHILE:
	case N_FOR:
		if (n->init)
			check_stmt(c, n->init);
		if (n->cond)
			check_operand(c, n->cond, T_LONG, "a loop condition");
		if (n->step)
			check_expr(c, n->step, T_UNKNOWN);
		check_stmt(c, n->body);
		return;
	case N_RETURN: {
		if (!c->func)
			return;
		struct symbol *f = c->func;
		if (!n->lhs) {
			if (c->report && f->type != T_VOID && f->type != T_UNKNOWN)
				diag_error(n->loc, D_TYPE_MISMATCH,
					   "'return' needs a value: %s() returns %s", f->name,
					   type_words(f->type));
			return;
		}
		enum type t = check_expr(c, n->lhs, f->type == T_VOID ? T_UNKNOWN : f->type);
		if (f->type == T_VOID) {
			if (c->report)
				diag_error(n->loc, D_TYPE_MISMATCH,
					   "%s() returns no value elsewhere, but returns one here",
					   f->name);
			return;
		}
		if (t == T_VOID)
			expect(c, n->lhs, t, f->type, "'return'");
		else
			learn(c, f, t, n->lhs->loc);
		return;
	}
	case N_BLOCK:
	case N_PROBE:
	case N_FUNCTION:
		ast_for_children(n, check_stmt_child, c);
		return;
	case N_BREAK:
	case N_CONTINUE:
	case N_NEXT:
	case N_EMPTY:
	case N_PROBE_POINT:
	case N_PP_COMP:
	case N_GLOBAL:
	case N_PARAM:
	case N_NUM:
	case N_STR:
	case N_VAR:
	case N_TARGET:
	case N_CALL:
	case N_ASSIGN:
	case N_BINARY:
	case N_UNARY:
	case N_INCDEC:
	case N_TERNARY:
	case N_NKINDS:
		return;
	}
}

static void find_value_return(struct node *n, void *found)
{
	if (*(bool *)found)
		return;
	if (n->kind == N_RETURN && n->lhs)
		*(bool *)found = true;
	else
		ast_for_children(n, find_value_return, found);
}

static void walk_program(struct checker *c)
{
	struct program *prog = &c->s->prog;
	for (size_t i = 0; i < prog->handlers.n; i++) {
		c->h = prog->handlers.v[i];
		c->func = NULL;
		check_stmt(c, c->h->decl->body);
	}
	c->h = NULL;
	for (size_t i = 0; i < prog->functions.n; i++) {
		c->func = prog->functions.v[i];
		check_stmt(c, c->func->decl->body);
	}
	c->func = NULL;
}

static void report_unknown(const struct ptrvec *vars)
{
	for (size_t i = 0; i < vars->n; i++) {
		struct symbol *v = vars->v[i];
		if (v->type != T_UNKNOWN)
			continue;
		diag_error(v->loc, D_TYPE_UNKNOWN, "cannot tell whether '%s' is a number or a string",
			   v->name);
		if (v->kind == SYM_PARAM)
			diag_hint("declare it, e.g. '%s:long' or '%s:string'", v->name, v->name);
		else
			diag_hint("assign '%s' a number or a string somewhere", v->name);
	}
}

int types_check(struct session *s)
{
	int before = diag_errors();
	struct program *prog = &s->prog;
	/* A function without 'return value' returns nothing. */
	for (size_t i = 0; i < prog->functions.n; i++) {
		struct symbol *f = prog->functions.v[i];
		bool found = false;
		find_value_return(f->decl->body, &found);
		if (f->type == T_UNKNOWN && !found)
			f->type = T_VOID;
	}
	struct checker c = { .s = s };
	for (int round = 0; round < 100; round++) {
		c.changed = false;
		walk_program(&c);
		if (!c.changed)
			break;
	}
	c.report = true;
	walk_program(&c);
	if (diag_errors() != before)
		return diag_errors() - before;
	/* An unused global has no type to learn: it would hold a number. */
	for (size_t i = 0; i < prog->globals.n; i++) {
		struct symbol *g = prog->globals.v[i];
		if (g->type == T_UNKNOWN && !g->read && !g->assigned)
			g->type = T_LONG;
	}
	report_unknown(&prog->globals);
	for (size_t i = 0; i < prog->handlers.n; i++)
		report_unknown(&((struct handler *)prog->handlers.v[i])->vars);
	for (size_t i = 0; i < prog->functions.n; i++) {
		struct symbol *f = prog->functions.v[i];
		report_unknown(&f->vars);
		if (f->type == T_UNKNOWN) {
			diag_error(f->loc, D_TYPE_UNKNOWN,
				   "cannot tell whether %s() returns a number or a string", f->name);
			diag_hint("declare it, e.g. 'function %s:long(...)'", f->name);
		}
	}
	return diag_errors() - before;
}
