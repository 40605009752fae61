// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Pass 3: the checked program becomes one C file that includes only the
 * runtime's api.h. Each probe body becomes a handler function and each
 * script function a C function; their variables live in a frame struct on
 * the runtime's per-CPU stack (kernel stacks are small), strings as
 * fixed-size arrays.
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
 * spend their action budget once per block rather than once each, string
 * temporaries are reused from statement to statement, and frame sizes are
 * combined in one union instead of a nested expression.
 */
#include <ctype.h>
#include <string.h>

#include "back/cg.h"
#include "debuginfo/kernel.h"
#include "debuginfo/userelf.h"
#include "front/diag.h"
#include "sema/builtins.h"
#include "sema/regcomp.h"
#include "staprun.h" /* the checksum entry staprun looks for */

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

static void line_directive(struct cg *g, const struct node *n)
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

static char *cg_call(struct cg *g, struct node *n)
{
	if (n->builtin)
		return cg_builtin(g, n);
	struct symbol *f = n->sym;
	int count;
	char **vals = cg_list(g, n->list, &count);
	struct strbuf args;
	sb_init(&args);
	for (int i = 0; i < count; i++)
		sb_printf(&args, ", %s", vals[i]);
	char *res, *name = fn_cname(f);
	if (f->type == T_STRING) {
		res = new_string_temp(g);
		emit(g, "%s(c, %s%s);", name, res, args.s ? args.s : "");
	} else if (f->type == T_LONG) {
		res = new_long_temp(g);
		emit(g, "%s = %s(c%s);", res, name, args.s ? args.s : "");
	} else {
		res = xstrdup("0");
		emit(g, "%s(c%s);", name, args.s ? args.s : "");
	}
	free(name);
	fail_check(g);
	sb_free(&args);
	free_list(vals, count);
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
	if (n->lhs->kind == N_TARGET || n->lhs->kind == N_CAST || n->lhs->kind == N_ATVAR)
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
	case N_EMBEDDED:
		/* Guru mode: a C expression, a string when it says so. */
		if (n->type == T_STRING) {
			char *res = new_string_temp(g);
			emit(g, "rt_strcpy(%s, (%s), %lld);", res, n->str, g->maxstr);
			return res;
		}
		return xasprintf("((rt_long)(%s))", n->str);
	case N_CONST:
		return xasprintf("((rt_long)(%s))", n->str);
	case N_PROBE:
	case N_ALIAS:
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
	case N_FOREACH:
	case N_DELETE:
	case N_TRY:
	case N_BREAK:
	case N_CONTINUE:
	case N_NEXT:
	case N_RETURN:
	case N_EMPTY:
	case N_STAR:
	case N_HIST:
	case N_MEMBER:
	case N_DEFINED:
	case N_PROBEWRITE:
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

/* Does n hold a sorted foreach (which takes room until it ends)? */
static bool has_sorted_foreach(struct node *n)
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
	case N_NUM:
	case N_STR:
	case N_VAR:
	case N_INDEX:
	case N_IN:
	case N_STAR:
	case N_STAT:
	case N_HIST:
	case N_TARGET:
	case N_MEMBER:
	case N_CAST:
	case N_ATVAR:
	case N_AUTOCAST:
	case N_ENTRY:
	case N_DEFINED:
	case N_PROBEWRITE:
	case N_CONST:
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

/* --- whole functions --- */

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
		case B_PRINT_UBACKTRACE: case B_PRINT_UBACKTRACE_FILELINE:
			*m = *m > 1 ? *m : 1;
			break;
		case B_UBACKTRACE: case B_UCALLERS: case B_SPRINT_UBACKTRACE:
		case B_USYMFILELINE: case B_USYMFILE:
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
		sb_printf(file, "\t{ .path = %s, .syms = rt_uo%zu_syms, .nsyms = %zu, .names = rt_uo%zu_names },\n",
			  path, i, emitted[i], i);
		free(path);
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
	case PK_PERF_COUNTER:
		return "RT_PERF_COUNTER";
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

char *cg_translate(struct session *s)
{
	struct program *prog = &s->prog;
	struct cg g = { .s = s, .maxstr = s->limits[LIMIT_MAXSTRINGLEN] };
	struct strbuf file;
	sb_init(&file);
	char *from = c_comment(src_get(prog->user_file)->name);
	sb_printf(&file, "/* Generated by Tapline %s from %s. */\n", TAPLINE_VERSION, from);
	free(from);
	sb_puts(&file, "#include \"api.h\"\n\n");
	/* A script of some size is compiled as RT_PARTS units at once
	 * (build.c), this file each time with -DRT_PART=k: handler i and its
	 * parts are in unit i % RT_PARTS, every table in unit 0, the globals
	 * defined there. */
	sb_puts(&file, "#ifndef RT_PARTS\n#define RT_PARTS 1\n#define RT_PART 0\n#endif\n"
		       "#if RT_PARTS > 1\n#define RT_HANDLER rt_notrace\n#define RT_SHARED\n"
		       "#else\n#define RT_HANDLER static rt_notrace\n#define RT_SHARED static\n"
		       "#endif\n\n");
	/* Guru mode: what SystemTap's embedded C finds without including it
	 * (runtime/compat/guru.h), and the limits under its names. */
	if (prog->uses_embedded_c) {
		sb_puts(&file, "#include \"compat/guru.h\"\n\n");
		sb_printf(&file, "#define MAXSTRINGLEN %lld\n#define MAXACTION %lld\n"
				 "#define MAXNESTING %lld\n#define MAXMAPENTRIES %lld\n\n",
			  s->limits[LIMIT_MAXSTRINGLEN], s->limits[LIMIT_MAXACTION],
			  s->limits[LIMIT_MAXNESTING], s->limits[LIMIT_MAXMAPENTRIES]);
	}
	/* Guru mode: the script's own C declarations (kernel headers and the like). */
	for (size_t i = 0; i < prog->embedded.n; i++) {
		struct node *e = prog->embedded.v[i];
		g.out = &file;
		line_directive(&g, e);
		sb_printf(&file, "%s\n", e->str);
	}

	/* The build-id staprun checks, and the translator version, in .modinfo. */
	sb_puts(&file, "#if RT_PART == 0\n");
	sb_printf(&file,
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
			sb_printf(&file,
				  "static const char rt_modinfo_module%zu[] __attribute__((section("
				  "\".modinfo\"), used, aligned(1))) = "
				  "\"tapline_module_build_id=%s:%s\";\n",
				  i, p->module, p->site->build_id);
	}
	sb_printf(&file,
		  "static const char rt_modinfo_version[] __attribute__((section(\".modinfo\"), "
		  "used, aligned(1))) = \"tapline_version=%s\";\n",
		  TAPLINE_VERSION);
	/* staprun takes user-stack records and tokens out of the output
	 * (runtime/ustack-records.h) only for a module that says so. */
	int ustacks = ustack_mode(prog);
	if (ustacks)
		sb_printf(&file,
			  "static const char rt_modinfo_ustack[] __attribute__((section(\".modinfo\"), "
			  "used, aligned(1))) = \"tapline_ustack=%s,%lld\";\n",
			  ustacks == 2 ? "keys" : "print", s->limits[LIMIT_MAXBACKTRACE]);
	/* Room for the finished module's checksum of itself, which pass 4
	 * writes over the zeros (link.c) and staprun verifies. */
	sb_printf(&file,
		  "static const char rt_modinfo_sha256[] __attribute__((section(\".modinfo\"), "
		  "used, aligned(1))) = \"" SR_CHECKSUM_KEY "=%0*d\";\n#endif\n\n",
		  SR_CHECKSUM_DIGITS, 0);

	cg_number_data(&g);
	cg_globals(&g, &file);
	int regex_prog = cg_regexes(prog, &file);
	for (size_t i = 0; i < prog->functions.n; i++) {
		char *sig = function_signature(prog->functions.v[i]);
		sb_printf(&file, "%s;\n", sig);
		free(sig);
	}
	if (prog->functions.n)
		sb_putc(&file, '\n');

	/* Every handler declared: unit 0's tables name those of the others. */
	for (size_t i = 0; i < prog->handlers.n; i++) {
		sb_printf(&file, "RT_HANDLER int h%zu(struct rt_context *c);\n", i);
		if (((struct handler *)prog->handlers.v[i])->entry_exprs.n)
			sb_printf(&file, "RT_HANDLER int h%zu_entry(struct rt_context *c);\n", i);
	}
	sb_putc(&file, '\n');
	for (size_t i = 0; i < prog->functions.n; i++)
		cg_function(&g, prog->functions.v[i], &file);
	bool *entry_registers = xcalloc(prog->handlers.n + 1, sizeof *entry_registers);
	int *shared = xcalloc(prog->handlers.n + 1, sizeof *shared);
	struct handler_table table = { 0 };
	for (table.cap = 16; table.cap < 2 * prog->handlers.n; table.cap *= 2)
		;
	table.keys = xcalloc(table.cap, sizeof *table.keys);
	table.index = xcalloc(table.cap, sizeof *table.index);
	for (size_t i = 0; i < prog->handlers.n; i++) {
		struct handler *h = prog->handlers.v[i];
		struct strbuf one;
		sb_init(&one);
		cg_handler(&g, h, &one);
		if (h->entry_exprs.n) {
			cg_entry_handler(&g, h, &one);
			entry_registers[i] = cg_entry_registers(h, &one);
		}
		shared[i] = handler_shared(&table, handler_key(one.s, h->index), (int)i);
		if (shared[i] == (int)i)
			sb_puts(&file, one.s);
		sb_free(&one);
	}
	for (size_t i = 0; i < table.cap; i++)
		free(table.keys[i]);
	free(table.keys);
	free(table.index);
	/* The rest is unit 0's. */
	sb_puts(&file, "#if RT_PART == 0\n");
	/* The largest frame of each kind, sized by the compiler: one union. */
	sb_puts(&file, "\nunion rt_handler_frames {\n\tchar none;\n");
	for (size_t i = 0; i < prog->handlers.n; i++) {
		if (shared[i] != (int)i)
			continue;
		sb_printf(&file, "\tstruct h%zu_frame h%zu;\n", i, i);
		if (((struct handler *)prog->handlers.v[i])->entry_exprs.n)
			sb_printf(&file, "\tstruct h%zu_entry_frame h%zu_entry;\n", i, i);
	}
	sb_puts(&file, "};\n\nunion rt_function_frames {\n\tchar none;\n");
	for (size_t i = 0; i < prog->functions.n; i++) {
		char *name = fn_cname(prog->functions.v[i]);
		sb_printf(&file, "\tstruct %s_frame %s;\n", name, name);
		free(name);
	}
	sb_puts(&file, "};\n");

	sb_puts(&file, "\nstatic const struct rt_probe probes[] = {\n");
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
		sb_printf(&file,
			  "\t{ .kind = %s, .pp = %s, .pn = %s, .symbol = %s, .function = %s, .module = %s, "
			  ".module_build_id = %s,\n"
			  "\t  .offset = %lldLL, .text_offset = 0x%llx, .period_ns = %lldLL, .spread_ns = %lldLL,\n"
			  "\t  .perf_type = %lldLL, .perf_config = %lldLL, .perf_sample = %lldLL,\n"
			  "\t  .handler = h%d, .optional = %d, "
			  ".from_wildcard = %d, .needs_regs = %d, .entry = %s, .entry_regs = %s, .entry_size = %zu, "
			  ".maxactive = %lld, .nargs = %zu, .file_offset = 0x%llx, .sem_offset = 0x%llx,\n"
			  "\t  .procfs_umask = 0%llo, .procfs_maxsize = %lldLL, .nf_hook = %lldLL, "
			  ".nf_pf = %lldLL, .nf_priority = %lldLL, .point = %d },\n",
			  rt_kind(p->kind), pp, pn, sym, func, mod, mod_id, (long long)p->offset,
			  (unsigned long long)p->text_offset, p->period_ns, p->spread_ns, p->perf_type,
			  p->perf_config, p->perf_sample, hi, p->optional, p->from_wildcard || point,
			  p->needs_regs, entry, entry_regs, h->entry_size, p->maxactive,
			  p->kind == PK_TRACEPOINT && p->site ? p->site->nvars : (size_t)0,
			  (unsigned long long)p->file_offset, (unsigned long long)p->sem_offset,
			  (unsigned long long)p->procfs_umask, p->procfs_maxsize, p->nf_hook, p->nf_pf,
			  p->nf_priority, point);
		free(pn);
		free(pp);
		free(sym);
		free(mod);
		free(mod_id);
		free(func);
		free(entry);
		free(entry_regs);
	}
	free(entry_registers);
	free(points);
	free(shared);
	if (!prog->probes.n)
		sb_puts(&file, "\t{ .kind = RT_BEGIN, .pp = \"\", .handler = 0 },\n");
	sb_puts(&file, "};\n\n");

	int nmaps = 0, nstats = 0;
	long long iter_slots = 0;
	cg_data_tables(&g, &file, &nmaps, &nstats, &iter_slots);

	cg_user_objects(s, &file);

	/* The static objects read (globals, functions' static variables): the
	 * runtime fills in their addresses as their objects come and go. */
	if (g.statics.n) {
		sb_puts(&file, "static struct rt_static rt_statics[] = {\n");
		for (size_t i = 0; i < g.statics.n; i++) {
			const struct tstatic *st = g.statics.v[i];
			if (st->object[0] == '/') {
				size_t k = 0;
				uint64_t base = user_first_page(s, st->object, &k);
				sb_printf(&file, "\t{ .uobject = %zu, .uoffset = 0x%llx },\n", k + 1,
					  (unsigned long long)(st->user_vaddr - base));
				continue;
			}
			bool kernel = !strcmp(st->object, "kernel");
			char *mod = kernel ? xstrdup("0") : c_string(st->object, strlen(st->object));
			char *sym = st->symbol ? c_string(st->symbol, strlen(st->symbol)) : xstrdup("0");
			char *id = st->build_id ? c_string(st->build_id, strlen(st->build_id))
						: xstrdup("0");
			sb_printf(&file,
				  "\t{ .module = %s, .module_build_id = %s, .symbol = %s, .offset = %lldLL, "
				  ".text_offset = 0x%llx },\n",
				  mod, id, sym, (long long)st->offset, (unsigned long long)st->text_offset);
			free(id);
			free(mod);
			free(sym);
		}
		sb_puts(&file, "};\n\n");
		/* staprun checks these modules' build-ids too, as a probed module's. */
		for (size_t i = 0; i < g.statics.n; i++) {
			const struct tstatic *st = g.statics.v[i];
			bool seen = !strcmp(st->object, "kernel") || !st->build_id || st->object[0] == '/';
			for (size_t k = 0; k < prog->probes.n && !seen; k++) {
				const struct probe *q = prog->probes.v[k];
				seen = q->module && q->site && q->site->build_id &&
				       !strcmp(q->module, st->object);
			}
			for (size_t k = 0; k < i && !seen; k++)
				seen = !strcmp(((const struct tstatic *)g.statics.v[k])->object,
					       st->object);
			if (!seen)
				sb_printf(&file,
					  "static const char rt_modinfo_static%zu[] __attribute__((section("
					  "\".modinfo\"), used, aligned(1))) = "
					  "\"tapline_module_build_id=%s:%s\";\n",
					  i, st->object, st->build_id);
		}
	}

	sb_printf(&file, "int rt_global_locks[%zu];\n\n", prog->globals.n ? prog->globals.n : 1);
	const long long *lim = s->limits;
	/* Room for the largest handler frame plus MAXNESTING of the largest
	 * function frame, each rounded up to the runtime's 16-byte alignment. */
	const char *hsize = "(16 + sizeof(union rt_handler_frames))";
	const char *fsize = prog->functions.n ? "(16 + sizeof(union rt_function_frames))" : "0";
	sb_printf(&file,
		  "const struct rt_script rt_script = {\n"
		  "\t.api_version = RT_API_VERSION,\n"
		  "\t.probes = probes,\n"
		  "\t.nprobes = %zu,\n"
		  "\t.nglobals = %zu,\n"
		  "\t.frame_size = %s + %lld * %s,\n"
		  "\t.maxstringlen = %lld,\n"
		  "\t.maxaction = %lld,\n"
		  "\t.maxaction_interruptible = %lld,\n"
		  "\t.maxnesting = %lld,\n"
		  "\t.maxtrylock = %lld,\n"
		  "\t.trylockdelay = %lld,\n"
		  "\t.hist_elision = %lld,\n"
		  "\t.maxskipped = %lld,\n"
		  "\t.maxactive = %lld,\n"
		  "\t.buffer_size = %lld,\n"
		  "\t.maxerrors = %lld,\n"
		  "\t.maps = %s,\n"
		  "\t.nmaps = %d,\n"
		  "\t.stats = %s,\n"
		  "\t.nstats = %d,\n"
		  "\t.iter_slots = %lld,\n"
		  "\t.regex_prog = %d,\n"
		  "\t.printk_offset = 0x%llx,\n"
		  "\t.statics = %s,\n"
		  "\t.nstatics = %zu,\n"
		  "\t.maxhittime_us = %lld,\n"
		  "\t.overload_interval_ns = %lld,\n"
		  "\t.overload_threshold_ns = %lld,\n"
		  "\t.maxmemory_kb = %lld,\n"
		  "\t.uobjects = rt_uobjects,\n"
		  "\t.nuobjects = %zu,\n"
		  "\t.maxbacktrace = %lld,\n"
		  "\t.suppress_errors = %d,\n"
		  "\t.timing = %d,\n"
		  "\t.maxustack = %lld,\n"
		  "\t.ustack_keys = %d,\n"
		  "\t.ncounters = %d,\n"
		  "\t.procfs_maxopen = %lld,\n"
		  "};\n",
		  prog->probes.n, prog->globals.n, hsize, lim[LIMIT_MAXNESTING], fsize,
		  lim[LIMIT_MAXSTRINGLEN], lim[LIMIT_MAXACTION], lim[LIMIT_MAXACTION_INTERRUPTIBLE],
		  lim[LIMIT_MAXNESTING], lim[LIMIT_MAXTRYLOCK],
		  lim[LIMIT_TRYLOCKDELAY], lim[LIMIT_HIST_ELISION], lim[LIMIT_MAXSKIPPED],
		  lim[LIMIT_MAXACTIVE],
		  /* Samples of user stacks are MAXUSTACK bytes each: 4 MiB
		   * holds the ticks of a second on one CPU at 8 KiB. */
		  (ustacks && !s->limit_set[LIMIT_BUFFER_KB] ? 4096 : lim[LIMIT_BUFFER_KB]) * 1024,
		  lim[LIMIT_MAXERRORS],
		  nmaps ? "rt_map_descs" : "0", nmaps, nstats ? "rt_stat_descs" : "0", nstats,
		  iter_slots, regex_prog, (unsigned long long)prog->printk_offset,
		  g.statics.n ? "rt_statics" : "0", g.statics.n, lim[LIMIT_MAXHITTIME],
		  lim[LIMIT_STP_NO_OVERLOAD] ? 0 : lim[LIMIT_STP_OVERLOAD_INTERVAL],
		  lim[LIMIT_STP_OVERLOAD_THRESHOLD], lim[LIMIT_MAXMEMORY], prog->user_objects.n,
		  lim[LIMIT_MAXBACKTRACE], s->suppress_handler_errors, s->timing,
		  ustacks ? lim[LIMIT_MAXUSTACK] : 0LL, ustacks == 2, prog->ncounters,
		  lim[LIMIT_PROCFS_MAXOPEN]);
	sb_puts(&file, "#endif\n");
	pv_free(&g.statics);
	free(g.map_of);
	free(g.stats_of);
	return sb_detach(&file);
}
