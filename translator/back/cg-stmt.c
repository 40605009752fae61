// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Pass 3's statement compiler: a probe body's or a script function's
 * statements and expressions to C, into the function being written
 * (struct cg); codegen.c lays out the module around them.
 *
 * Expressions are emitted in evaluation order: cg_expr() writes the
 * statements an expression needs (checks, calls, string building) and
 * returns a C expression for its value. Numbers wrap, and every operation
 * that can fault in C (division, shifts) goes through a checked helper, so
 * no script can make the generated code misbehave; a failed check ends the
 * hit through `goto out` with a message naming the script location, or
 * goes to the catch of the try around it (fail_leave).
 *
 * The C stays cheap to compile however long the script: gcc's optimisers
 * grow faster than linearly with the size of one function, so a long
 * statement list is split into "part" functions of at most CG_PART_STMTS
 * statements each (a part returns 1 to leave the whole body), statements
 * spend their action budget once per block rather than once each, and
 * string temporaries are reused from statement to statement.
 */
#include <ctype.h>
#include <string.h>

#include "back/cg.h"
#include "front/diag.h"
#include "sema/builtins.h"

/* A part function being written (see part_begin). */
struct part {
	int id;
	struct strbuf body;
	struct strbuf *out;
	const char *leave, *fail_leave;
	int indent, nloops;
};

void emit(struct cg *g, const char *fmt, ...)
{
	for (int i = 0; i < g->indent; i++)
		sb_putc(g->out, '\t');
	va_list ap;
	va_start(ap, fmt);
	sb_vprintf(g->out, fmt, ap);
	va_end(ap);
	sb_putc(g->out, '\n');
}

/* "file:line:col" of a node, as a C string literal. */
char *loc_literal(const struct node *n)
{
	const struct source *src = src_get(n->loc.file);
	char *text = xasprintf("%s:%d:%d", src ? src->name : "?", n->loc.line, n->loc.col);
	struct strbuf b;
	sb_init(&b);
	ast_quote_string(&b, text, strlen(text));
	free(text);
	return sb_detach(&b);
}

char *c_string(const char *s, size_t len)
{
	struct strbuf q, b;
	sb_init(&q);
	ast_quote_string(&q, s, len);
	/* No "??" is left, so no trigraph under a strict -std: "???=" is "?\?\?=". */
	sb_init(&b);
	for (size_t i = 0; q.s[i]; i++) {
		if (q.s[i] == '?' && i > 0 && q.s[i - 1] == '?')
			sb_putc(&b, '\\');
		sb_putc(&b, q.s[i]);
	}
	sb_free(&q);
	return sb_detach(&b);
}

char *c_comment(const char *s)
{
	struct strbuf b;
	sb_init(&b);
	for (const char *p = s; *p; p++) {
		unsigned char c = (unsigned char)*p;
		if (c < 32 || c == 127)
			sb_putc(&b, '?'); /* the comment stays on its line */
		else if ((c == '*' && p[1] == '/') || (c == '/' && p[1] == '*'))
			sb_printf(&b, "%c ", c); /* neither closes nor opens a comment */
		else if (c == '?' && p[1] == '?')
			sb_puts(&b, "? "); /* no trigraph ("??/" would splice lines) */
		else
			sb_putc(&b, (char)c);
	}
	return sb_detach(&b);
}

void line_directive(struct cg *g, const struct node *n)
{
	const struct source *src = src_get(n->loc.file);
	if (!src)
		return;
	char *name = c_string(src->name, strlen(src->name));
	sb_printf(g->out, "#line %d %s\n", n->loc.line, name);
	free(name);
}

char *new_long_temp(struct cg *g)
{
	int id = g->ntemps++;
	emit(g, "rt_long t%d;", id);
	return xasprintf("t%d", id);
}

/* A string temporary lives while one statement runs: the next reuses it. */
char *new_string_temp(struct cg *g)
{
	int id = g->nstr++;
	if (g->nstr > g->maxnstr)
		g->maxnstr = g->nstr;
	return xasprintf("l->s%d", id);
}

static char *var_ref(const struct symbol *sym)
{
	if (sym->kind == SYM_GLOBAL)
		return xasprintf("g_%s", sym->name);
	return xasprintf("l->v_%s", sym->name);
}

/* An embedded C expression in a script function sees the function's
 * parameters as STAP_ARG_name, as in SystemTap: each such word becomes
 * the parameter's frame slot. */
static char *embedded_args(struct cg *g, const char *text)
{
	struct strbuf b;
	sb_init(&b);
	const char *p = text;
	while (g->func && (p = strstr(text, "STAP_ARG_"))) {
		const char *name = p + 9;
		size_t n = 0;
		while (isalnum((unsigned char)name[n]) || name[n] == '_')
			n++;
		const struct symbol *param = NULL;
		for (int i = 0; i < g->func->nparams && !param; i++) {
			const struct symbol *s = g->func->vars.v[i];
			if (strlen(s->name) == n && !strncmp(s->name, name, n))
				param = s;
		}
		sb_printf(&b, "%.*s", (int)(param ? p - text : name + n - text), text);
		if (param) {
			char *ref = var_ref(param);
			sb_printf(&b, "(%s)", ref);
			free(ref);
		}
		text = name + n;
	}
	sb_puts(&b, text);
	return sb_detach(&b);
}


static void side_effect_child(struct node *child, void *ctx)
{
	if (has_side_effects(child))
		*(bool *)ctx = true;
}

bool has_side_effects(const struct node *n)
{
	if (!n)
		return false;
	if (n->kind == N_ASSIGN || n->kind == N_INCDEC || (n->kind == N_CALL && n->sym))
		return true;
	bool found = false;
	ast_for_children((struct node *)n, side_effect_child, &found);
	return found;
}

/* Does the C expression read nothing a script statement could change
 * (a temporary or a literal)? */
static bool is_stable(const char *e)
{
	const char *digits = NULL;
	if (e[0] == 't')
		digits = e + 1;
	else if (!strncmp(e, "l->s", 4))
		digits = e + 4;
	if (digits)
		return *digits && strspn(digits, "0123456789") == strlen(digits);
	if (e[0] == '"')
		return true; /* a string literal: c_string() quotes every '"' inside */
	/* Number literals as cg_expr writes them: "(123LL)", "(-5LL)", the minimum. */
	if (!strcmp(e, "(-9223372036854775807LL - 1)"))
		return true;
	size_t n = strlen(e);
	return n > 4 && e[0] == '(' && !strcmp(e + n - 3, "LL)") &&
	       strspn(e + 1 + (e[1] == '-'), "0123456789") == n - 4 - (e[1] == '-');
}

/*
 * Keep a value as it is now: later operands with side effects could change
 * the variable it reads (x + (x = 5)).
 */
char *snapshot(struct cg *g, char *e, enum type t)
{
	if (is_stable(e))
		return e;
	char *tmp;
	if (t == T_STRING) {
		tmp = new_string_temp(g);
		emit(g, "rt_strcpy(%s, %s, %lld);", tmp, e, g->maxstr);
	} else {
		tmp = new_long_temp(g);
		emit(g, "%s = %s;", tmp, e);
	}
	free(e);
	return tmp;
}

/* For each element of a list: does an element after it have side effects? */
static bool *later_side_effects(struct node *list, int n)
{
	struct node **nodes = xcalloc((size_t)n + 1, sizeof(*nodes));
	bool *later = xcalloc((size_t)n + 1, sizeof(bool));
	int i = 0;
	for (struct node *a = list; a; a = a->next)
		nodes[i++] = a;
	for (i = n - 2; i >= 0; i--)
		later[i] = later[i + 1] || has_side_effects(nodes[i + 1]);
	free(nodes);
	return later;
}

/* Evaluate a list of expressions left to right; values stay valid until all are done. */
char **cg_list(struct cg *g, struct node *list, int *count)
{
	int n = ast_list_len(list);
	char **vals = xcalloc((size_t)n + 1, sizeof(char *));
	bool *later = later_side_effects(list, n);
	int i = 0;
	for (struct node *a = list; a; a = a->next, i++) {
		vals[i] = cg_expr(g, a);
		if (later[i])
			vals[i] = snapshot(g, vals[i], a->type);
	}
	free(later);
	*count = n;
	return vals;
}

void free_list(char **vals, int n)
{
	for (int i = 0; i < n; i++)
		free(vals[i]);
	free(vals);
}

void fail_check(struct cg *g)
{
	emit(g, "if (rt_unlikely(c->error))");
	emit(g, "\t%s", g->fail_leave);
}

static void part_begin(struct cg *g, struct part *pt);
static void part_end(struct cg *g, struct part *pt);

/*
 * Evaluate arguments into an rt_fmt_arg array in the frame (not on the
 * kernel stack: a printf may have many arguments), many of them in part
 * functions of CG_PART_STMTS arguments each.
 */
char *fmt_args(struct cg *g, struct node *args, int *nargs)
{
	int n = ast_list_len(args);
	*nargs = n;
	if (n == 0)
		return xstrdup("(const struct rt_fmt_arg *)0");
	/* Slots of the statement's argument pool: a nested printf or sprintf
	 * among the arguments takes the slots after these. */
	int base = g->nargs;
	g->nargs += n;
	if (g->nargs > g->maxnargs)
		g->maxnargs = g->nargs;
	bool *later = later_side_effects(args, n);
	bool in_parts = n > CG_PART_STMTS;
	struct part pt;
	int i = 0;
	for (struct node *a = args; a; a = a->next, i++) {
		if (in_parts && i % CG_PART_STMTS == 0)
			part_begin(g, &pt);
		char *v = cg_expr(g, a);
		if (later[i])
			v = snapshot(g, v, a->type);
		if (a->type == T_STRING)
			emit(g, "l->args[%d].is_str = 1, l->args[%d].s = %s;", base + i, base + i, v);
		else
			emit(g, "l->args[%d].is_str = 0, l->args[%d].n = %s;", base + i, base + i, v);
		free(v);
		if (in_parts && (i % CG_PART_STMTS == CG_PART_STMTS - 1 || !a->next))
			part_end(g, &pt);
	}
	free(later);
	return xasprintf("(l->args + %d)", base);
}

char *cg_args(struct cg *g, struct node *list)
{
	int count;
	char **vals = cg_list(g, list, &count);
	struct strbuf args;
	sb_init(&args);
	for (int i = 0; i < count; i++)
		sb_printf(&args, ", %s", vals[i]);
	free_list(vals, count);
	return args.s ? sb_detach(&args) : xstrdup("");
}

static char *cg_call(struct cg *g, struct node *n)
{
	if (n->builtin)
		return cg_builtin(g, n);
	struct symbol *f = n->sym;
	char *args = cg_args(g, n->list);
	char *res, *name = fn_cname(f);
	if (f->type == T_STRING) {
		res = new_string_temp(g);
		emit(g, "%s(c, %s%s);", name, res, args);
	} else if (f->type == T_LONG) {
		res = new_long_temp(g);
		emit(g, "%s = %s(c%s);", res, name, args);
	} else {
		res = xstrdup("0");
		emit(g, "%s(c%s);", name, args);
	}
	free(name);
	fail_check(g);
	free(args);
	return res;
}

/* A divisor or shift count, evaluated once, checked for zero when dividing. */
static char *checked_divisor(struct cg *g, struct node *n, char *val, const char *what)
{
	char *d = snapshot(g, val, T_LONG);
	char *loc = loc_literal(n);
	emit(g, "if (rt_unlikely(%s == 0)) {", d);
	emit(g, "\trt_fail(c, \"division by zero near operator '%s'\", %s);", what, loc);
	emit(g, "\t%s", g->fail_leave);
	emit(g, "}");
	free(loc);
	return d;
}

static const char *arith_helper(enum op op)
{
	switch (op) {
	case OP_ADD:
		return "rt_add";
	case OP_SUB:
		return "rt_sub";
	case OP_MUL:
		return "rt_mul";
	case OP_DIV:
		return "rt_div";
	case OP_MOD:
		return "rt_mod";
	case OP_SHL:
		return "rt_shl";
	case OP_SHR:
		return "rt_shr";
	case OP_USHR:
		return "rt_ushr";
	default:
		return NULL;
	}
}

static const char *c_operator(enum op op)
{
	switch (op) {
	case OP_BITAND:
		return "&";
	case OP_BITOR:
		return "|";
	case OP_BITXOR:
		return "^";
	case OP_EQ:
		return "==";
	case OP_NE:
		return "!=";
	case OP_LT:
		return "<";
	case OP_LE:
		return "<=";
	case OP_GT:
		return ">";
	case OP_GE:
		return ">=";
	default:
		return NULL;
	}
}

/* A long operation of two evaluated operands. */
char *long_op(struct cg *g, struct node *n, enum op op, char *a, char *b)
{
	char *res;
	if (op == OP_DIV || op == OP_MOD) {
		b = checked_divisor(g, n, b, ast_op_name(op));
		res = xasprintf("%s(%s, %s)", arith_helper(op), a, b);
	} else if (arith_helper(op)) {
		res = xasprintf("%s(%s, %s)", arith_helper(op), a, b);
	} else {
		res = xasprintf("((rt_long)(%s %s %s))", a, c_operator(op), b);
	}
	free(a);
	free(b);
	return res;
}

static char *cg_logical(struct cg *g, struct node *n)
{
	char *res = new_long_temp(g);
	char *a = cg_expr(g, n->lhs);
	emit(g, "%s = (%s) != 0;", res, a);
	emit(g, "if (%s%s) {", n->op == OP_AND ? "" : "!", res);
	g->indent++;
	char *b = cg_expr(g, n->rhs);
	emit(g, "%s = (%s) != 0;", res, b);
	g->indent--;
	emit(g, "}");
	free(a);
	free(b);
	return res;
}

/* s =~ "re": the pattern was compiled in pass 2 (its number in n->num). */
static char *cg_match(struct cg *g, struct node *n)
{
	char *subject = cg_expr(g, n->lhs);
	char *res = new_long_temp(g);
	emit(g, "%s = rt_regex_match(c, &re%lld, %s);", res, n->num - 1, subject);
	free(subject);
	if (n->op == OP_NOMATCH)
		emit(g, "%s = !%s;", res, res);
	return res;
}

/*
 * execname() == "name" (or !=) with a name of at most 15 bytes: compare
 * the task's comm in place, two words, instead of copying it and calling
 * a string comparison. It is the commonest filter in scripts.
 */
static char *cg_execname_is(struct node *n)
{
	struct node *call = n->lhs, *lit = n->rhs;
	if (call->kind == N_STR)
		call = n->rhs, lit = n->lhs;
	if ((n->op != OP_EQ && n->op != OP_NE) || call->kind != N_CALL || !call->builtin ||
	    call->builtin->id != B_EXECNAME || lit->kind != N_STR || lit->str_len > 15 ||
	    memchr(lit->str, 0, lit->str_len))
		return NULL;
	unsigned long long w[2] = { 0, 0 }, mask[2] = { 0, 0 };
	for (size_t i = 0; i < 16; i++) {
		unsigned long long byte = i < lit->str_len ? (unsigned char)lit->str[i] : 0;
		w[i / 8] |= byte << (8 * (i % 8));
		if (i <= lit->str_len) /* its bytes and the NUL after them */
			mask[i / 8] |= 0xffULL << (8 * (i % 8));
	}
	return xasprintf("({ static const struct rt_comm k_ = { { 0x%llxULL, 0x%llxULL }, "
			 "{ 0x%llxULL, 0x%llxULL } }; (rt_long)%srt_execname_is(c, &k_); })",
			 w[0], w[1], mask[0], mask[1], n->op == OP_NE ? "!" : "");
}

static char *cg_binary(struct cg *g, struct node *n)
{
	char *fast = cg_execname_is(n);
	if (fast)
		return fast;
	if (n->op == OP_AND || n->op == OP_OR)
		return cg_logical(g, n);
	if (n->op == OP_MATCH || n->op == OP_NOMATCH)
		return cg_match(g, n);
	enum type operand_type = n->op == OP_CONCAT ? T_STRING : n->lhs->type;
	char *a = cg_expr(g, n->lhs);
	if (has_side_effects(n->rhs))
		a = snapshot(g, a, operand_type);
	char *b = cg_expr(g, n->rhs);
	if (n->op == OP_CONCAT) {
		char *res = new_string_temp(g);
		emit(g, "rt_strcpy(%s, %s, %lld);", res, a, g->maxstr);
		emit(g, "rt_strcat(%s, %s, %lld);", res, b, g->maxstr);
		free(a);
		free(b);
		return res;
	}
	if (operand_type == T_STRING) {
		char *res = xasprintf("((rt_long)(rt_strcmp(%s, %s) %s 0))", a, b, c_operator(n->op));
		free(a);
		free(b);
		return res;
	}
	return long_op(g, n, n->op, a, b);
}

/* Guru mode: $var = v, $p->m += v: the value stored is the expression's.
 * And a procfs probe's $value = s, $value .= s. */
static char *cg_target_assign(struct cg *g, struct node *n)
{
	if (n->lhs->access && n->lhs->access->result == TA_PROCFS) {
		char *s = cg_expr(g, n->rhs);
		emit(g, "rt_procfs_set(c, %s, %d);", s, n->op == OP_CONCAT);
		free(s);
		return xstrdup("rt_procfs_value(c)");
	}
	char *val = cg_expr(g, n->rhs);
	if (n->op != OP_ASSIGN)
		val = long_op(g, n, n->op, cg_expr(g, n->lhs), val);
	char *v = new_long_temp(g);
	emit(g, "%s = %s;", v, val);
	free(val);
	if (n->lhs->access && n->lhs->access->result == TA_NF_VERDICT) {
		char *loc = loc_literal(n);
		emit(g, "rt_nf_set_verdict(c, %s, %s);", v, loc);
		fail_check(g);
		free(loc);
		return v;
	}
	cg_target_store(g, n->lhs, v);
	return v;
}

static char *cg_assign(struct cg *g, struct node *n)
{
	if (n->lhs->kind == N_TARGET || n->lhs->kind == N_CAST || n->lhs->kind == N_ATVAR ||
	    n->lhs->kind == N_AUTOCAST)
		return cg_target_assign(g, n);
	if (n->lhs->kind == N_INDEX)
		return cg_element_assign(g, n);
	if (n->op == OP_AGG)
		return cg_stats_add(g, n);
	if (n->lhs->sym->is_counter) {
		/* n += e or n -= e as a statement (sema/addonly.c). */
		char *val = cg_expr(g, n->rhs);
		emit(g, "c->counters[%d] = %s(c->counters[%d], %s);", n->lhs->sym->counter_slot,
		     n->op == OP_ADD ? "rt_add" : "rt_sub", n->lhs->sym->counter_slot, val);
		free(val);
		return xstrdup("0");
	}
	char *var = var_ref(n->lhs->sym);
	char *val = cg_expr(g, n->rhs);
	if (n->lhs->type == T_STRING) {
		if (n->op == OP_CONCAT) {
			/* s .= s would read what it writes. */
			if (!strcmp(val, var))
				val = snapshot(g, xstrdup(val), T_STRING);
			emit(g, "rt_strcat(%s, %s, %lld);", var, val, g->maxstr);
		} else if (strcmp(val, var)) {
			emit(g, "rt_strcpy(%s, %s, %lld);", var, val, g->maxstr);
		}
		free(val);
		return var;
	}
	if (n->op == OP_ASSIGN) {
		emit(g, "%s = %s;", var, val);
		free(val);
	} else {
		char *e = long_op(g, n, n->op, xstrdup(var), val);
		emit(g, "%s = %s;", var, e);
		free(e);
	}
	return var;
}

static char *cg_incdec(struct cg *g, struct node *n)
{
	if (n->lhs->kind == N_INDEX)
		return cg_element_incdec(g, n);
	const char *fn = n->op == OP_INC ? "rt_add" : "rt_sub";
	if (n->lhs->sym->is_counter) {
		/* A statement (sema/addonly.c): its value is not used. */
		emit(g, "c->counters[%d] = %s(c->counters[%d], 1);", n->lhs->sym->counter_slot, fn,
		     n->lhs->sym->counter_slot);
		return xstrdup("0");
	}
	char *var = var_ref(n->lhs->sym);
	if (!n->postfix) {
		emit(g, "%s = %s(%s, 1);", var, fn, var);
		return var;
	}
	char *old = new_long_temp(g);
	emit(g, "%s = %s;", old, var);
	emit(g, "%s = %s(%s, 1);", var, fn, old);
	free(var);
	return old;
}

static char *cg_ternary(struct cg *g, struct node *n)
{
	char *res = n->type == T_STRING ? new_string_temp(g) : new_long_temp(g);
	char *cond = cg_expr(g, n->cond);
	emit(g, "if (%s) {", cond);
	struct node *branches[2] = { n->then, n->els };
	for (int i = 0; i < 2; i++) {
		if (i)
			emit(g, "} else {");
		g->indent++;
		char *v = cg_expr(g, branches[i]);
		if (n->type == T_STRING)
			emit(g, "rt_strcpy(%s, %s, %lld);", res, v, g->maxstr);
		else
			emit(g, "%s = %s;", res, v);
		free(v);
		g->indent--;
	}
	emit(g, "}");
	free(cond);
	return res;
}

char *cg_expr(struct cg *g, struct node *n)
{
	switch (n->kind) {
	case N_NUM:
		if (n->num == (-9223372036854775807LL - 1))
			return xstrdup("(-9223372036854775807LL - 1)");
		return xasprintf("(%lldLL)", n->num);
	case N_STR:
		return c_string(n->str, n->str_len);
	case N_VAR:
		if (n->sym->is_counter) {
			/* Summed now: the value as of this point. */
			char *t = new_long_temp(g);
			emit(g, "%s = rt_count_sum(g_%s, %d);", t, n->sym->name, n->sym->counter_slot);
			return t;
		}
		return var_ref(n->sym);
	case N_TARGET:
	case N_CAST:
	case N_ATVAR:
	case N_AUTOCAST:
		return cg_target(g, n);
	case N_ENTRY:
		return cg_entry_value(g, n);
	case N_CALL:
		return cg_call(g, n);
	case N_ASSIGN:
		return cg_assign(g, n);
	case N_BINARY:
		return cg_binary(g, n);
	case N_UNARY: {
		char *a = cg_expr(g, n->lhs);
		char *res;
		switch (n->op) {
		case OP_NEG:
			res = xasprintf("rt_neg(%s)", a);
			break;
		case OP_NOT:
			res = xasprintf("((rt_long)!(%s))", a);
			break;
		case OP_BITNOT:
			res = xasprintf("(~(%s))", a);
			break;
		default:
			res = xstrdup(a);
			break;
		}
		free(a);
		return res;
	}
	case N_INCDEC:
		return cg_incdec(g, n);
	case N_TERNARY:
		return cg_ternary(g, n);
	case N_INDEX:
		return n->lhs ? cg_bucket(g, n) : cg_element(g, n);
	case N_IN:
		return cg_in(g, n);
	case N_STAT:
		return cg_stat(g, n);
	case N_EMBEDDED: {
		/* Guru mode: a C expression, a string when it says so. */
		char *text = embedded_args(g, n->str);
		if (n->type == T_STRING) {
			char *res = new_string_temp(g);
			emit(g, "rt_strcpy(%s, (%s), %lld);", res, text, g->maxstr);
			free(text);
			return res;
		}
		char *v = xasprintf("((rt_long)(%s))", text);
		free(text);
		return v;
	}
	case N_CONST:
		return xasprintf("((rt_long)(%s))", n->str);
	case N_PROBE:
	case N_ALIAS:
	case N_PROBE_POINT:
	case N_PP_COMP:
	case N_GLOBAL:
	case N_FUNCTION:
	case N_PARAM:
	case N_STAR:
	case N_HIST:
	case N_MEMBER:
	case N_DEFINED:
	case N_PROBEWRITE:
	AST_STMT_CASES
	case N_NKINDS:
		break;
	}
	return xstrdup("0");
}

/*
 * Code written between part_begin and part_end goes into a function of its
 * own (a "part"), called where it would have been; inside, leaving the body
 * is "return 1", which the caller turns into its own way of leaving.
 */
static void part_begin(struct cg *g, struct part *pt)
{
	pt->id = g->nparts++;
	sb_init(&pt->body);
	pt->out = g->out;
	pt->leave = g->leave;
	pt->fail_leave = g->fail_leave;
	pt->indent = g->indent;
	pt->nloops = g->nloops;
	g->out = &pt->body;
	g->leave = g->fail_leave = "return 1;";
	g->indent = 1;
	g->nloops = 0;
}

static void part_end(struct cg *g, struct part *pt)
{
	emit(g, "return 0;");
	g->out = pt->out;
	g->leave = pt->leave;
	g->fail_leave = pt->fail_leave;
	g->indent = pt->indent;
	g->nloops = pt->nloops;
	/* noinline: gcc would otherwise put the parts back together. */
	sb_printf(&g->parts,
		  "static __attribute__((__noinline__)) rt_notrace int %s_part%d(struct rt_context *c, "
		  "struct %s_frame *l)\n{\n%s}\n\n",
		  g->name, pt->id, g->name, pt->body.s);
	sb_free(&pt->body);
	/* The part left for a failure (to a catch, inside a try) or for good. */
	if (strcmp(g->leave, g->fail_leave)) {
		emit(g, "if (%s_part%d(c, l)) {", g->name, pt->id);
		emit(g, "\tif (c->error)");
		emit(g, "\t\t%s", g->fail_leave);
		emit(g, "\t%s", g->leave);
		emit(g, "}");
	} else {
		emit(g, "if (%s_part%d(c, l))", g->name, pt->id);
		emit(g, "\t%s", g->leave);
	}
}

static bool is_loop(const struct node *n)
{
	return n->kind == N_WHILE || n->kind == N_FOR || n->kind == N_FOREACH;
}

/* Statements that spend an action: all but blocks, empty ones and loops
 * (a loop spends one per iteration instead). */
static bool spends_action(const struct node *n)
{
	return n->kind != N_BLOCK && n->kind != N_EMPTY && !is_loop(n);
}

/*
 * The branches of an if that are a lone statement ("if (c) x++ else y++",
 * else-if chains too) are charged with the run the if is in, taken or not:
 * the budget stays an upper bound, and the branches need no check of their
 * own, which halves the C gcc has to compile for such code.
 */
static bool charged_with_run(const struct node *branch)
{
	return branch && spends_action(branch);
}

static int actions_of(const struct node *n)
{
	if (!spends_action(n))
		return 0;
	int count = 1;
	if (n->kind == N_IF) {
		if (charged_with_run(n->then))
			count += actions_of(n->then);
		if (charged_with_run(n->els))
			count += actions_of(n->els);
	}
	return count;
}

void spend_actions(struct cg *g, int count, const struct node *at)
{
	if (count == 0)
		return;
	char *loc = loc_literal(at);
	/* Below 0 the runtime hands out the next window of the budget, after
	 * checking the hit's time, or fails the hit. */
	if (count == 1)
		emit(g, "if (rt_unlikely(--c->actions < 0) && rt_actions_refill(c, %s)) {", loc);
	else
		emit(g, "if (rt_unlikely((c->actions -= %d) < 0) && rt_actions_refill(c, %s)) {",
		     count, loc);
	emit(g, "\t%s", g->fail_leave);
	emit(g, "}");
	free(loc);
}

struct escape_ctx {
	int loops;
	bool found;
};

static void find_escape(struct node *n, void *ctx)
{
	struct escape_ctx *e = ctx;
	if (e->found)
		return;
	if ((n->kind == N_BREAK || n->kind == N_CONTINUE) && e->loops == 0) {
		e->found = true;
		return;
	}
	bool loop = is_loop(n);
	e->loops += loop;
	ast_for_children(n, find_escape, ctx);
	e->loops -= loop;
}

/* Does a break or continue in n leave n (so n cannot move to a part function)? */
static bool escapes_loop(struct node *n)
{
	struct escape_ctx e = { 0, false };
	find_escape(n, &e);
	return e.found;
}

/* The run of n statements starting at first, spending its actions once. */
static void cg_run(struct cg *g, struct node *first, int n)
{
	int count = 0;
	struct node *s = first;
	for (int i = 0; i < n; i++, s = s->next)
		count += actions_of(s);
	spend_actions(g, count, first);
	s = first;
	for (int i = 0; i < n; i++, s = s->next)
		cg_stmt(g, s);
}

/* The run as a function of its own, called in its place. */
static void cg_part(struct cg *g, struct node *first, int n)
{
	struct part pt;
	part_begin(g, &pt);
	cg_run(g, first, n);
	part_end(g, &pt);
}

/* A statement list: short ones inline, long ones in parts of CG_PART_STMTS. */
static void cg_list_of(struct cg *g, struct node *list)
{
	int n = 0;
	for (struct node *s = list; s; s = s->next)
		n++;
	if (n <= CG_PART_STMTS) {
		cg_run(g, list, n);
		return;
	}
	struct node *s = list;
	while (s) {
		struct node *first = s;
		int k = 0;
		bool movable = true;
		for (; s && k < CG_PART_STMTS; s = s->next, k++)
			movable = movable && !escapes_loop(s);
		if (movable)
			cg_part(g, first, k);
		else
			cg_run(g, first, k);
	}
}

/* The statement under if/while/for, as a C block spending its own actions
 * (unless the enclosing run paid for it: charged_with_run). */
static void cg_sub(struct cg *g, struct node *n, bool paid)
{
	emit(g, "{");
	g->indent++;
	if (n->kind == N_BLOCK)
		cg_list_of(g, n->list);
	else if (paid)
		cg_stmt(g, n);
	else
		cg_run(g, n, 1); /* a lone statement is a list of one; its next is NULL */
	g->indent--;
	emit(g, "}");
}

void cg_loop_body(struct cg *g, struct node *body)
{
	cg_sub(g, body, false);
}

struct loop *loop_push(struct cg *g, struct node *n, bool is_for)
{
	if (g->nloops == (int)ARRAY_SIZE(g->loops)) {
		diag_error(n->loc, D_UNSUPPORTED, "loops nested more than %d deep",
			   (int)ARRAY_SIZE(g->loops));
		return NULL;
	}
	struct loop *lp = &g->loops[g->nloops++];
	*lp = (struct loop){ .id = g->ntemps++, .is_for = is_for };
	return lp;
}

static void cg_loop(struct cg *g, struct node *n)
{
	struct loop *lp = loop_push(g, n, n->kind == N_FOR);
	if (!lp)
		return;
	if (n->init)
		cg_stmt(g, n->init);
	emit(g, "for (;;) {");
	g->indent++;
	spend_actions(g, 1, n);
	if (n->cond) {
		char *cond = cg_expr(g, n->cond);
		emit(g, "if (!(%s))", cond);
		emit(g, "\tbreak;");
		free(cond);
	}
	cg_sub(g, n->body, false);
	if (lp->used_continue)
		emit(g, "cont%d:;", lp->id);
	if (n->step) {
		char *step = cg_expr(g, n->step);
		free(step);
	}
	g->indent--;
	emit(g, "}");
	g->nloops--;
}

bool foreach_sorted(const struct node *n)
{
	if (n->kind != N_FOREACH || n->lhs->kind == N_HIST)
		return false;
	if (n->sort)
		return true;
	for (const struct node *k = n->list; k; k = k->next)
		if (k->sort)
			return true;
	return false;
}

static void find_sorted_foreach(struct node *n, void *found)
{
	if (foreach_sorted(n))
		*(bool *)found = true;
	else if (!*(bool *)found)
		ast_for_children(n, find_sorted_foreach, found);
}

bool has_sorted_foreach(struct node *n)
{
	bool found = false;
	find_sorted_foreach(n, &found);
	return found;
}

/*
 * try { body } catch (msg) { handler }: inside the body, a failure goes to
 * the catch instead of leaving; the catch takes the message (and forgets
 * the failure), and gives back the room sorted foreach loops the body left
 * open took.
 */
static void cg_try(struct cg *g, struct node *n)
{
	int id = g->ntemps++;
	bool room = has_sorted_foreach(n->body);
	emit(g, "{");
	g->indent++;
	if (room)
		emit(g, "rt_size tm%d = c->iter_top;", id);
	const char *outer = g->fail_leave;
	char *to_catch = xasprintf("goto catch%d;", id);
	g->fail_leave = to_catch;
	cg_stmt(g, n->body);
	g->fail_leave = outer;
	emit(g, "goto tried%d;", id);
	g->indent--;
	emit(g, "catch%d:", id);
	g->indent++;
	/* A failure no catch may take (a limit of the hit) goes on out. */
	if (n->then) {
		char *var = var_ref(n->then->sym);
		emit(g, "if (rt_catch(c, %s, %lld))", var, g->maxstr);
		free(var);
	} else {
		emit(g, "if (rt_catch(c, (char *)0, 0))");
	}
	emit(g, "\t%s", outer);
	if (room)
		emit(g, "c->iter_top = tm%d;", id);
	cg_stmt(g, n->els);
	g->indent--;
	emit(g, "tried%d:;", id);
	emit(g, "}");
	free(to_catch);
}

void cg_stmt(struct cg *g, struct node *n)
{
	switch (n->kind) {
	case N_BLOCK:
		emit(g, "{");
		g->indent++;
		cg_list_of(g, n->list);
		g->indent--;
		emit(g, "}");
		return;
	case N_EMPTY:
		return;
	default:
		break;
	}
	line_directive(g, n);
	/* Temporaries of the previous statement are dead by now. */
	g->nstr = 0;
	g->nargs = 0;
	g->nkeys = 0;
	switch (n->kind) {
	case N_EXPR_STMT: {
		char *v = cg_expr(g, n->lhs);
		free(v);
		return;
	}
	case N_IF: {
		char *cond = cg_expr(g, n->cond);
		emit(g, "if (%s)", cond);
		free(cond);
		cg_sub(g, n->then, charged_with_run(n->then));
		if (n->els) {
			emit(g, "else");
			cg_sub(g, n->els, charged_with_run(n->els));
		}
		return;
	}
	case N_WHILE:
	case N_FOR:
		cg_loop(g, n);
		return;
	case N_FOREACH:
		cg_foreach(g, n);
		return;
	case N_DELETE:
		cg_delete(g, n);
		return;
	case N_TRY:
		cg_try(g, n);
		return;
	case N_BREAK:
		emit(g, "break;");
		return;
	case N_CONTINUE: {
		/* In a for loop, continue must still run the step. */
		struct loop *lp = &g->loops[g->nloops - 1];
		if (lp->is_for) {
			lp->used_continue = true;
			emit(g, "goto cont%d;", lp->id);
		} else {
			emit(g, "continue;");
		}
		return;
	}
	case N_NEXT:
		emit(g, "%s", g->leave);
		return;
	case N_RETURN:
		if (n->lhs) {
			char *v = cg_expr(g, n->lhs);
			if (g->func->type == T_STRING)
				emit(g, "rt_strcpy(%s, %s, %lld);", g->ret_var, v, g->maxstr);
			else
				emit(g, "%s = %s;", g->ret_var, v);
			free(v);
		}
		emit(g, "%s", g->leave);
		return;
	case N_EMBEDDED: /* a guru-mode function's body in C: see cg_function */
	case N_BLOCK:
	case N_EMPTY:
	case N_PROBE:
	case N_ALIAS:
	case N_PROBE_POINT:
	case N_PP_COMP:
	case N_GLOBAL:
	case N_FUNCTION:
	case N_PARAM:
	AST_EXPR_CASES
	case N_NKINDS:
		return;
	}
}
