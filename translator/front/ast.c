// SPDX-License-Identifier: GPL-2.0-or-later
/* Building, walking and printing the syntax tree; see ast.h. */
#include "front/ast.h"

#include <string.h>

static const char *const kind_names[] = {
#define KIND_NAME(kind, name, class, children) [kind] = name,
	AST_KINDS(KIND_NAME)
#undef KIND_NAME
};

static const char *const op_names[] = {
#define X(id, s) [id] = s,
	OPERATORS(X)
#undef X
};

static const char *const agg_names[] = {
#define X(id, s) [id] = s,
	AGGREGATES(X)
#undef X
};

struct node *ast_new(enum node_kind kind, struct loc loc)
{
	struct node *n = xcalloc(1, sizeof *n);
	n->kind = kind;
	n->loc = loc;
	return n;
}

const char *ast_kind_name(enum node_kind kind)
{
	return kind < N_NKINDS ? kind_names[kind] : "?";
}

const char *ast_kind_article(enum node_kind kind)
{
	/* As the name is said: "an increment", "an @cast", "a unary operator". */
	const char *name = ast_kind_name(kind);
	return strchr("aeiou@", name[0]) && strncmp(name, "unary", 5) != 0 ? "an" : "a";
}

const char *ast_op_name(enum op op)
{
	return op_names[op];
}

const char *ast_agg_name(enum agg agg)
{
	return agg_names[agg];
}

const char *ast_type_name(enum type t)
{
	switch (t) {
	case T_LONG:
		return "long";
	case T_STRING:
		return "string";
	case T_STATS:
		return "stats";
	case T_VOID:
		return "void";
	case T_UNKNOWN:
		break;
	}
	return "unknown";
}

struct node *ast_append(struct node *a, struct node *b)
{
	if (!b)
		return a;
	struct node *b_last = b->tail ? b->tail : b;
	if (!a) {
		b->tail = b_last;
		return b;
	}
	struct node *a_last = a->tail ? a->tail : a;
	a_last->next = b;
	a->tail = b_last;
	b->tail = NULL;
	return a;
}

int ast_list_len(const struct node *list)
{
	int n = 0;
	for (; list; list = list->next)
		n++;
	return n;
}

static struct node *clone_list(const struct node *list)
{
	struct node *head = NULL;
	for (const struct node *c = list; c; c = c->next)
		head = ast_append(head, ast_clone(c));
	return head;
}

struct node *ast_clone(const struct node *n)
{
	if (!n)
		return NULL;
	struct node *c = xmalloc(sizeof *c);
	*c = *n;
	c->next = c->tail = NULL;
	c->sym = NULL;
	c->builtin = NULL;
	c->type = T_UNKNOWN;
	/* Strings and names are never changed after parsing: shared. */
	c->lhs = ast_clone(n->lhs);
	c->rhs = ast_clone(n->rhs);
	c->cond = ast_clone(n->cond);
	c->then = ast_clone(n->then);
	c->els = ast_clone(n->els);
	c->init = ast_clone(n->init);
	c->step = ast_clone(n->step);
	c->body = ast_clone(n->body);
	c->list = clone_list(n->list);
	return c;
}

static void visit(struct node *c, void (*fn)(struct node *, void *), void *ctx)
{
	if (c)
		fn(c, ctx);
}

static void visit_list(struct node *c, void (*fn)(struct node *, void *), void *ctx)
{
	while (c) {
		struct node *next = c->next;
		fn(c, ctx);
		c = next;
	}
}

/* The fields each shape of ast-kinds.h visits, in that order. */
enum children {
	LHS_RHS,
	LHS_RHS_LIST,
	LIST,
	LIST_BODY,
	LIST_COND,
	COND_THEN_ELS,
	INIT_COND_STEP_BODY,
	BODY_THEN_ELS,
	THEN_LIST_BODY_ELS,
	THEN_LIST_LHS_STEP_BODY,
};

static const unsigned char children_of[N_NKINDS] = {
#define KIND_CHILDREN(kind, name, class, children) [kind] = children,
	AST_KINDS(KIND_CHILDREN)
#undef KIND_CHILDREN
};

void ast_for_children(struct node *n, void (*fn)(struct node *, void *), void *ctx)
{
	/* Unused fields are NULL. */
	switch ((enum children)children_of[n->kind]) {
	case LHS_RHS:
		visit(n->lhs, fn, ctx);
		visit(n->rhs, fn, ctx);
		return;
	case LHS_RHS_LIST:
		visit(n->lhs, fn, ctx);
		visit(n->rhs, fn, ctx);
		visit_list(n->list, fn, ctx);
		return;
	case LIST:
		visit_list(n->list, fn, ctx);
		return;
	case LIST_BODY:
		visit_list(n->list, fn, ctx);
		visit(n->body, fn, ctx);
		return;
	case LIST_COND:
		visit_list(n->list, fn, ctx);
		visit(n->cond, fn, ctx);
		return;
	case COND_THEN_ELS:
		visit(n->cond, fn, ctx);
		visit(n->then, fn, ctx);
		visit(n->els, fn, ctx);
		return;
	case INIT_COND_STEP_BODY:
		visit(n->init, fn, ctx);
		visit(n->cond, fn, ctx);
		visit(n->step, fn, ctx);
		visit(n->body, fn, ctx);
		return;
	case BODY_THEN_ELS:
		visit(n->body, fn, ctx);
		visit(n->then, fn, ctx);
		visit(n->els, fn, ctx);
		return;
	case THEN_LIST_BODY_ELS:
		visit(n->then, fn, ctx);
		visit_list(n->list, fn, ctx);
		visit(n->body, fn, ctx);
		visit(n->els, fn, ctx);
		return;
	case THEN_LIST_LHS_STEP_BODY:
		visit(n->then, fn, ctx);
		visit_list(n->list, fn, ctx);
		visit(n->lhs, fn, ctx);
		visit(n->step, fn, ctx);
		visit(n->body, fn, ctx);
		return;
	}
}

/* --- printing (stap -p1) --- */

void ast_quote_string(struct strbuf *b, const char *s, size_t len)
{
	sb_putc(b, '"');
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		switch (c) {
		case '"':
			sb_puts(b, "\\\"");
			break;
		case '\\':
			sb_puts(b, "\\\\");
			break;
		case '\n':
			sb_puts(b, "\\n");
			break;
		case '\t':
			sb_puts(b, "\\t");
			break;
		case '\r':
			sb_puts(b, "\\r");
			break;
		default:
			if (c < 32 || c >= 127)
				sb_printf(b, "\\%03o", c);
			else
				sb_putc(b, (char)c);
		}
	}
	sb_putc(b, '"');
}

/* Binding strength of binary operators (as in parser.y), for printing the
 * fewest parentheses that keep the meaning. 'in' sits between '&' and the
 * comparisons. */
#define PREC_IN 6
#define PREC_UNARY 13

static int op_prec(enum op op)
{
	switch (op) {
	case OP_OR:
		return 1;
	case OP_AND:
		return 2;
	case OP_BITOR:
		return 3;
	case OP_BITXOR:
		return 4;
	case OP_BITAND:
		return 5;
	case OP_EQ:
	case OP_NE:
	case OP_LT:
	case OP_LE:
	case OP_GT:
	case OP_GE:
	case OP_MATCH:
	case OP_NOMATCH:
		return 7;
	case OP_SHL:
	case OP_SHR:
	case OP_USHR:
		return 8;
	case OP_CONCAT:
		return 9;
	case OP_ADD:
	case OP_SUB:
		return 10;
	case OP_MUL:
	case OP_DIV:
	case OP_MOD:
		return 11;
	case OP_NEG:
	case OP_PLUS:
	case OP_NOT:
	case OP_BITNOT:
	case OP_INC:
	case OP_DEC:
	case OP_ASSIGN:
	case OP_AGG:
		break;
	}
	return 0;
}

static int node_prec(const struct node *n)
{
	if (n->kind == N_BINARY)
		return op_prec(n->op);
	if (n->kind == N_IN)
		return PREC_IN;
	return 100;
}

static void print_expr(struct strbuf *b, const struct node *n);

/* Operands print in parentheses unless they bind tighter than the operator. */
static void print_operand(struct strbuf *b, const struct node *n, int prec)
{
	/* PREC_UNARY is a unary operator's operand: "- -x" must not print as "--x". */
	bool paren = node_prec(n) <= prec || n->kind == N_ASSIGN || n->kind == N_TERNARY ||
		     (prec == PREC_UNARY && (n->kind == N_UNARY || n->kind == N_INCDEC ||
					     (n->kind == N_NUM && n->num < 0)));
	if (paren)
		sb_putc(b, '(');
	print_expr(b, n);
	if (paren)
		sb_putc(b, ')');
}

static void print_list(struct strbuf *b, const struct node *list, const char *sep)
{
	for (const struct node *a = list; a; a = a->next) {
		print_expr(b, a);
		if (a->next)
			sb_puts(b, sep);
	}
}

static void print_members(struct strbuf *b, const struct node *list)
{
	for (const struct node *m = list; m; m = m->next) {
		if (m->name) {
			sb_printf(b, "->%s", m->name);
		} else {
			sb_putc(b, '[');
			print_expr(b, m->lhs);
			sb_putc(b, ']');
		}
	}
}

static void print_pretty(struct strbuf *b, const struct node *n)
{
	sb_puts(b, n->pretty == 2 ? "$$" : n->pretty == 1 ? "$" : "");
}

static void print_expr(struct strbuf *b, const struct node *n)
{
	switch (n->kind) {
	case N_NUM:
		/* The most negative number has no decimal literal: "-9223372036854775808"
		 * reads back as a negation. */
		if (n->num == -9223372036854775807LL - 1)
			sb_puts(b, "0x8000000000000000");
		else
			sb_printf(b, "%lld", n->num);
		break;
	case N_STR:
		ast_quote_string(b, n->str, n->str_len);
		break;
	case N_VAR:
		sb_puts(b, n->name);
		break;
	case N_STAR:
		sb_putc(b, '*');
		break;
	case N_INDEX:
		if (n->lhs)
			print_expr(b, n->lhs);
		else
			sb_puts(b, n->name);
		sb_putc(b, '[');
		print_list(b, n->list, ", ");
		sb_putc(b, ']');
		break;
	case N_IN:
		sb_putc(b, '[');
		print_list(b, n->list, ", ");
		sb_printf(b, "] in %s", n->name);
		break;
	case N_STAT:
		sb_printf(b, "%s(", ast_agg_name(n->agg));
		print_expr(b, n->lhs);
		if (n->rhs) {
			sb_puts(b, ", ");
			print_expr(b, n->rhs);
		}
		sb_putc(b, ')');
		break;
	case N_HIST:
		sb_printf(b, "%s(", ast_agg_name(n->agg));
		print_expr(b, n->lhs);
		if (n->list) {
			sb_puts(b, ", ");
			print_list(b, n->list, ", ");
		}
		sb_putc(b, ')');
		break;
	case N_TARGET:
		if (n->addr_of)
			sb_putc(b, '&');
		sb_printf(b, "$%s", n->name);
		print_members(b, n->list);
		print_pretty(b, n);
		break;
	case N_CAST:
	case N_ATVAR:
		if (n->addr_of)
			sb_putc(b, '&');
		sb_puts(b, n->kind == N_CAST ? "@cast(" : "@var(");
		if (n->kind == N_CAST) {
			print_expr(b, n->lhs);
			sb_puts(b, ", ");
		}
		ast_quote_string(b, n->str, strlen(n->str));
		if (n->rhs) {
			sb_puts(b, ", ");
			print_expr(b, n->rhs);
		}
		sb_putc(b, ')');
		print_members(b, n->list);
		print_pretty(b, n);
		break;
	case N_AUTOCAST:
		if (n->addr_of)
			sb_putc(b, '&');
		/* "(a)[1]" is not the array element "a[1]". */
		if (n->lhs->kind == N_VAR && n->list && !n->list->name) {
			sb_putc(b, '(');
			print_expr(b, n->lhs);
			sb_putc(b, ')');
		} else {
			print_operand(b, n->lhs, PREC_UNARY);
		}
		print_members(b, n->list);
		print_pretty(b, n);
		break;
	case N_ENTRY:
	case N_DEFINED:
	case N_PROBEWRITE:
		sb_puts(b, n->kind == N_ENTRY ? "@entry(" : n->kind == N_DEFINED ? "@defined(" :
										   "@probewrite(");
		print_expr(b, n->lhs);
		sb_putc(b, ')');
		break;
	case N_CONST:
		sb_puts(b, "@const(");
		ast_quote_string(b, n->str, strlen(n->str));
		sb_putc(b, ')');
		break;
	case N_EMBEDDED:
		sb_printf(b, "%%{%s%%}", n->str);
		break;
	case N_CALL:
		sb_printf(b, "%s(", n->name);
		print_list(b, n->list, ", ");
		sb_putc(b, ')');
		break;
	case N_ASSIGN:
		print_expr(b, n->lhs);
		if (n->op == OP_AGG)
			sb_puts(b, " <<< ");
		else
			sb_printf(b, " %s= ", n->op == OP_ASSIGN ? "" : ast_op_name(n->op));
		print_expr(b, n->rhs);
		break;
	case N_BINARY:
		print_operand(b, n->lhs, op_prec(n->op) - 1);
		sb_printf(b, " %s ", ast_op_name(n->op));
		print_operand(b, n->rhs, op_prec(n->op));
		break;
	case N_UNARY:
		sb_puts(b, ast_op_name(n->op));
		print_operand(b, n->lhs, PREC_UNARY);
		break;
	case N_INCDEC:
		if (!n->postfix)
			sb_puts(b, ast_op_name(n->op));
		print_operand(b, n->lhs, PREC_UNARY);
		if (n->postfix)
			sb_puts(b, ast_op_name(n->op));
		break;
	case N_TERNARY:
		print_operand(b, n->cond, 0);
		sb_puts(b, " ? ");
		print_operand(b, n->then, 0);
		sb_puts(b, " : ");
		print_operand(b, n->els, 0);
		break;
	case N_MEMBER:
		print_members(b, n);
		break;
	case N_PROBE:
	case N_ALIAS:
	case N_PROBE_POINT:
	case N_PP_COMP:
	case N_GLOBAL:
	case N_FUNCTION:
	case N_PARAM:
	AST_STMT_CASES
	case N_NKINDS:
		sb_printf(b, "<%s>", ast_kind_name(n->kind));
		break;
	}
}

static void indent(struct strbuf *b, int depth)
{
	for (int i = 0; i < depth; i++)
		sb_puts(b, "  ");
}

static void print_stmt(struct strbuf *b, const struct node *n, int depth);

static void print_block(struct strbuf *b, const struct node *n, int depth)
{
	if (n->kind == N_EMBEDDED) {
		print_expr(b, n);
		return;
	}
	sb_puts(b, "{\n");
	for (const struct node *s = n->list; s; s = s->next)
		if (s->kind != N_EMPTY)
			print_stmt(b, s, depth + 1);
	indent(b, depth);
	sb_puts(b, "}");
}

/* The statement under if/while/for: a block on the same line, others indented. */
static void print_sub(struct strbuf *b, const struct node *n, int depth)
{
	if (n->kind == N_BLOCK) {
		sb_putc(b, ' ');
		print_block(b, n, depth);
		sb_putc(b, '\n');
	} else {
		sb_putc(b, '\n');
		print_stmt(b, n, depth + 1);
	}
}

static const char *sort_text(int sort)
{
	return sort > 0 ? "+" : sort < 0 ? "-" : "";
}

static void print_foreach(struct strbuf *b, const struct node *n)
{
	sb_puts(b, "foreach (");
	if (n->then)
		sb_printf(b, "%s%s = ", n->then->name, sort_text(n->then->sort));
	bool bracket = n->then || ast_list_len(n->list) != 1;
	if (bracket)
		sb_putc(b, '[');
	for (const struct node *k = n->list; k; k = k->next)
		sb_printf(b, "%s%s%s", k->name, sort_text(k->sort), k->next ? ", " : "");
	if (bracket)
		sb_putc(b, ']');
	sb_puts(b, " in ");
	print_expr(b, n->lhs);
	if (n->agg != AGG_NONE)
		sb_printf(b, " %s", ast_agg_name(n->agg));
	sb_puts(b, sort_text(n->sort));
	if (n->step) {
		sb_puts(b, " limit ");
		print_expr(b, n->step);
	}
	sb_putc(b, ')');
}

static void print_stmt(struct strbuf *b, const struct node *n, int depth)
{
	indent(b, depth);
	switch (n->kind) {
	case N_BLOCK:
		print_block(b, n, depth);
		sb_putc(b, '\n');
		return;
	case N_EXPR_STMT:
		print_expr(b, n->lhs);
		sb_putc(b, ';');
		break;
	case N_IF:
		sb_puts(b, "if (");
		print_expr(b, n->cond);
		sb_putc(b, ')');
		print_sub(b, n->then, depth);
		if (n->els) {
			indent(b, depth);
			sb_puts(b, "else");
			print_sub(b, n->els, depth);
		}
		return;
	case N_WHILE:
		sb_puts(b, "while (");
		print_expr(b, n->cond);
		sb_putc(b, ')');
		print_sub(b, n->body, depth);
		return;
	case N_FOR:
		sb_puts(b, "for (");
		if (n->init)
			print_expr(b, n->init->kind == N_EXPR_STMT ? n->init->lhs : n->init);
		sb_puts(b, "; ");
		if (n->cond)
			print_expr(b, n->cond);
		sb_puts(b, "; ");
		if (n->step)
			print_expr(b, n->step);
		sb_putc(b, ')');
		print_sub(b, n->body, depth);
		return;
	case N_FOREACH:
		print_foreach(b, n);
		print_sub(b, n->body, depth);
		return;
	case N_TRY:
		sb_puts(b, "try ");
		print_block(b, n->body, depth);
		sb_puts(b, " catch ");
		if (n->then)
			sb_printf(b, "(%s) ", n->then->name);
		print_block(b, n->els, depth);
		sb_putc(b, '\n');
		return;
	/* Simple statements end with ';': "x = 1; -y" must not print as "x = 1 -y". */
	case N_DELETE:
		sb_puts(b, "delete ");
		print_expr(b, n->lhs);
		sb_putc(b, ';');
		break;
	case N_BREAK:
		sb_puts(b, "break;");
		break;
	case N_CONTINUE:
		sb_puts(b, "continue;");
		break;
	case N_NEXT:
		sb_puts(b, "next;");
		break;
	case N_RETURN:
		sb_puts(b, "return");
		if (n->lhs) {
			sb_putc(b, ' ');
			print_expr(b, n->lhs);
		}
		sb_putc(b, ';');
		break;
	case N_EMPTY:
		sb_puts(b, ";");
		break;
	AST_DECL_CASES
	AST_EXPR_CASES
	case N_NKINDS:
		print_expr(b, n);
		break;
	}
	sb_putc(b, '\n');
}

static void print_probe_point(struct strbuf *b, const struct node *pp)
{
	for (const struct node *c = pp->list; c; c = c->next) {
		sb_puts(b, c->name);
		if (c->lhs) {
			sb_putc(b, '(');
			print_expr(b, c->lhs);
			sb_putc(b, ')');
		}
		if (c->next)
			sb_putc(b, '.');
	}
	if (pp->optional)
		sb_putc(b, '?');
	if (pp->sufficient)
		sb_putc(b, '!');
	if (pp->cond) {
		sb_puts(b, " if (");
		print_expr(b, pp->cond);
		sb_putc(b, ')');
	}
}

char *ast_probe_point_text(const struct node *pp)
{
	struct strbuf b;
	sb_init(&b);
	print_probe_point(&b, pp);
	return sb_detach(&b);
}

static void print_points(struct strbuf *b, const struct node *list)
{
	for (const struct node *pp = list; pp; pp = pp->next) {
		print_probe_point(b, pp);
		if (pp->next)
			sb_puts(b, ", ");
	}
}

static void print_type(struct strbuf *b, enum type t)
{
	if (t != T_UNKNOWN)
		sb_printf(b, ":%s", ast_type_name(t));
}

char *ast_expr_text(const struct node *n)
{
	struct strbuf b;
	sb_init(&b);
	print_expr(&b, n);
	return sb_detach(&b);
}

void ast_print_decl(FILE *f, const struct node *d)
{
	struct strbuf b;
	sb_init(&b);
	switch (d->kind) {
	case N_PROBE:
		sb_puts(&b, "probe ");
		print_points(&b, d->list);
		sb_putc(&b, ' ');
		print_block(&b, d->body, 0);
		break;
	case N_ALIAS:
		sb_puts(&b, "probe ");
		print_probe_point(&b, d->then);
		sb_puts(&b, d->body ? " = " : " += ");
		print_points(&b, d->list);
		sb_putc(&b, ' ');
		print_block(&b, d->body ? d->body : d->els, 0);
		if (d->body && d->els) {
			sb_puts(&b, ", ");
			print_block(&b, d->els, 0);
		}
		break;
	case N_GLOBAL:
		sb_printf(&b, "%sglobal %s", d->is_private ? "private " : "", d->name);
		if (d->wrap)
			sb_putc(&b, '%');
		if (d->is_array && d->num)
			sb_printf(&b, "[%lld]", d->num);
		else if (d->is_array && !d->wrap)
			sb_puts(&b, "[]");
		if (d->lhs) {
			sb_puts(&b, " = ");
			print_expr(&b, d->lhs);
		}
		break;
	case N_FUNCTION:
		sb_printf(&b, "%sfunction %s", d->is_private ? "private " : "", d->name);
		print_type(&b, d->decl_type);
		sb_putc(&b, '(');
		for (const struct node *p = d->list; p; p = p->next) {
			sb_puts(&b, p->name);
			print_type(&b, p->decl_type);
			if (p->next)
				sb_puts(&b, ", ");
		}
		sb_puts(&b, ") ");
		print_block(&b, d->body, 0);
		break;
	case N_EMBEDDED:
		print_expr(&b, d);
		break;
	case N_PROBE_POINT:
	case N_PP_COMP:
	case N_PARAM:
	AST_STMT_CASES
	AST_EXPR_CASES
	case N_NKINDS:
		print_stmt(&b, d, 0);
		break;
	}
	fprintf(f, "%s\n", b.s);
	sb_free(&b);
}
