// SPDX-License-Identifier: GPL-2.0-or-later
/* Building, walking and printing the syntax tree; see ast.h. */
#include "front/ast.h"

#include <string.h>

static const char *const kind_names[] = {
#define NODE(kind, name) [kind] = name,
#include "front/ast-kinds.h"
#undef NODE
};

static const char *const op_names[] = {
#define X(id, s) [id] = s,
	OPERATORS(X)
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

const char *ast_op_name(enum op op)
{
	return op_names[op];
}

const char *ast_type_name(enum type t)
{
	switch (t) {
	case T_LONG:
		return "long";
	case T_STRING:
		return "string";
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

void ast_for_children(struct node *n, void (*fn)(struct node *, void *), void *ctx)
{
	/* Fields in source order; unused ones are NULL. */
	struct node *fixed[] = { n->init, n->cond, n->lhs, n->rhs, n->step, n->then, n->els };
	switch (n->kind) {
	case N_PROBE:
	case N_FUNCTION:
	case N_BLOCK:
	case N_CALL:
	case N_PROBE_POINT:
		for (struct node *c = n->list; c;) {
			struct node *next = c->next;
			fn(c, ctx);
			c = next;
		}
		if (n->body)
			fn(n->body, ctx);
		return;
	case N_WHILE:
	case N_FOR:
		for (size_t i = 0; i < ARRAY_SIZE(fixed); i++)
			if (fixed[i])
				fn(fixed[i], ctx);
		fn(n->body, ctx);
		return;
	case N_PP_COMP:
	case N_GLOBAL:
	case N_PARAM:
	case N_EXPR_STMT:
	case N_IF:
	case N_BREAK:
	case N_CONTINUE:
	case N_NEXT:
	case N_RETURN:
	case N_EMPTY:
	case N_NUM:
	case N_STR:
	case N_VAR:
	case N_TARGET:
	case N_ASSIGN:
	case N_BINARY:
	case N_UNARY:
	case N_INCDEC:
	case N_TERNARY:
		for (size_t i = 0; i < ARRAY_SIZE(fixed); i++)
			if (fixed[i])
				fn(fixed[i], ctx);
		return;
	case N_NKINDS:
		break;
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

/* Binding strength of binary operators, for printing the minimum of parentheses. */
/* Binding strength of binary operators (as in parser.y), for printing the
 * fewest parentheses that keep the meaning. */
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
		return 6;
	case OP_SHL:
	case OP_SHR:
		return 7;
	case OP_CONCAT:
		return 8;
	case OP_ADD:
	case OP_SUB:
		return 9;
	case OP_MUL:
	case OP_DIV:
	case OP_MOD:
		return 10;
	case OP_NEG:
	case OP_PLUS:
	case OP_NOT:
	case OP_BITNOT:
	case OP_INC:
	case OP_DEC:
	case OP_ASSIGN:
		break;
	}
	return 0;
}

static void print_expr(struct strbuf *b, const struct node *n);

/* Operands print in parentheses unless they bind tighter than the operator. */
static void print_operand(struct strbuf *b, const struct node *n, int prec)
{
	/* prec 11 is a unary operator's operand: "- -x" must not print as "--x". */
	bool paren = (n->kind == N_BINARY && op_prec(n->op) <= prec) || n->kind == N_ASSIGN ||
		     n->kind == N_TERNARY ||
		     (prec == 11 && (n->kind == N_UNARY || n->kind == N_INCDEC ||
				     (n->kind == N_NUM && n->num < 0)));
	if (paren)
		sb_putc(b, '(');
	print_expr(b, n);
	if (paren)
		sb_putc(b, ')');
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
	case N_TARGET:
		sb_printf(b, "$%s", n->name);
		break;
	case N_CALL:
		sb_printf(b, "%s(", n->name);
		for (const struct node *a = n->list; a; a = a->next) {
			print_expr(b, a);
			if (a->next)
				sb_puts(b, ", ");
		}
		sb_putc(b, ')');
		break;
	case N_ASSIGN:
		print_expr(b, n->lhs);
		sb_printf(b, " %s%s ", n->op == OP_ASSIGN ? "" : ast_op_name(n->op), "=");
		print_expr(b, n->rhs);
		break;
	case N_BINARY:
		print_operand(b, n->lhs, op_prec(n->op) - 1);
		sb_printf(b, " %s ", ast_op_name(n->op));
		print_operand(b, n->rhs, op_prec(n->op));
		break;
	case N_UNARY:
		sb_puts(b, ast_op_name(n->op));
		print_operand(b, n->lhs, 11);
		break;
	case N_INCDEC:
		if (!n->postfix)
			sb_puts(b, ast_op_name(n->op));
		print_operand(b, n->lhs, 11);
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
	/* Simple statements end with ';': "x = 1; -y" must not print as "x = 1 -y". */
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
	case N_PROBE:
	case N_PROBE_POINT:
	case N_PP_COMP:
	case N_GLOBAL:
	case N_FUNCTION:
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
}

char *ast_probe_point_text(const struct node *pp)
{
	struct strbuf b;
	sb_init(&b);
	print_probe_point(&b, pp);
	return sb_detach(&b);
}

void ast_print_decl(FILE *f, const struct node *d)
{
	struct strbuf b;
	sb_init(&b);
	switch (d->kind) {
	case N_PROBE:
		sb_puts(&b, "probe ");
		for (const struct node *pp = d->list; pp; pp = pp->next) {
			print_probe_point(&b, pp);
			if (pp->next)
				sb_puts(&b, ", ");
		}
		sb_putc(&b, ' ');
		print_block(&b, d->body, 0);
		break;
	case N_GLOBAL:
		sb_printf(&b, "global %s", d->name);
		if (d->lhs) {
			sb_puts(&b, " = ");
			print_expr(&b, d->lhs);
		}
		break;
	case N_FUNCTION:
		sb_printf(&b, "function %s", d->name);
		if (d->decl_type != T_UNKNOWN)
			sb_printf(&b, ":%s", ast_type_name(d->decl_type));
		sb_putc(&b, '(');
		for (const struct node *p = d->list; p; p = p->next) {
			sb_puts(&b, p->name);
			if (p->decl_type != T_UNKNOWN)
				sb_printf(&b, ":%s", ast_type_name(p->decl_type));
			if (p->next)
				sb_puts(&b, ", ");
		}
		sb_puts(&b, ") ");
		print_block(&b, d->body, 0);
		break;
	case N_PROBE_POINT:
	case N_PP_COMP:
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
		print_stmt(&b, d, 0);
		break;
	}
	fprintf(f, "%s\n", b.s);
	sb_free(&b);
}
