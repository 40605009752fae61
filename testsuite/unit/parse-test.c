// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit test of pass 1: the lexer and the grammar in translator/front/.
 *
 * Scripts go through parse_file() and are checked these ways: printing the
 * tree (ast_print_decl) and parsing the result again is a fixed point and
 * keeps the meaning, for inline scripts and every testsuite/parseok file;
 * operators group with SystemTap's precedence and associativity (a fully
 * parenthesized dump of the tree is compared with the same expression
 * written with explicit parentheses); statements have the right shape; the
 * lexer reads numbers, strings, escapes and comments into the right values;
 * nodes carry the right line and column; bad input gives exactly the
 * expected diagnostics at the expected places, and parsing goes on after
 * each; and no prefix of a script, nor any byte, crashes the parser.
 *
 * diag.c counts errors for the whole process and stops it after
 * DIAG_MAX_ERRORS, so every input that may give a diagnostic is parsed in a
 * child process whose output and stderr are collected. Output is
 * "ok N - what" or "not ok N - what" followed by "#" lines with details.
 * Exits 1 if any check failed.
 */
#include <glob.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "front/ast.h"
#include "front/diag.h"
#include "front/front.h"
#include "front/source.h"
#include "tap.h"
#include "util.h"


/* What the preprocessor sees: a made-up kernel and two script arguments;
 * guru mode, so that embedded C parses. */
static char *test_args[] = { "42", "two words" };
static struct pp_env test_env = { .release = "6.1.0-99-test", .arch = "x86_64",
				  .argv = test_args, .argc = 2, .guru = true };

/* "#   label: text", one line of text per "#" line. */
static void detail(const char *label, const char *text)
{
	const char *p = text ? text : "(null)";

	do {
		const char *nl = strchr(p, '\n');
		int len = nl ? (int)(nl - p) : (int)strlen(p);

		printf("#   %-8s %.*s\n", label, len, p);
		label = "";
		p = nl ? nl + 1 : NULL;
	} while (p && *p);
}

/* --- a parenthesized dump of the tree --------------------------------- */

static void dump(struct strbuf *b, const struct node *n, bool locs);

static void dump_loc(struct strbuf *b, const struct node *n, bool locs)
{
	if (locs)
		sb_printf(b, "@%d:%d", n->loc.line, n->loc.col);
}

static void dump_opt(struct strbuf *b, const struct node *n, bool locs)
{
	sb_putc(b, ' ');
	if (n)
		dump(b, n, locs);
	else
		sb_putc(b, '_');
}

static void dump_list(struct strbuf *b, const struct node *list, bool locs)
{
	for (; list; list = list->next)
		dump_opt(b, list, locs);
}

/* A number literal, or '-' applied to one (any number of times): its value. */
static bool fold_number(const struct node *n, long long *v)
{
	if (n->kind == N_NUM) {
		*v = n->num;
		return true;
	}
	if (n->kind == N_UNARY && n->op == OP_NEG && fold_number(n->lhs, v)) {
		*v = (long long)(0ULL - (unsigned long long)*v);
		return true;
	}
	return false;
}

static const char *unary_name(const struct node *n)
{
	switch (n->op) {
	case OP_NEG:
		return "neg";
	case OP_PLUS:
		return "pos";
	default:
		return ast_op_name(n->op);
	}
}

/*
 * Every node in parentheses with its operator or kind first, e.g.
 * "a - b * c" is "(- a (* b c))". Empty statements in a block are left
 * out (the printer drops them too), and without locations a negated
 * number is written as the number it evaluates to (64-bit, wrapping): the
 * printer writes the literal 0xffffffffffffffff as "-1", which parses as
 * '-' applied to 1.
 */
static void dump(struct strbuf *b, const struct node *n, bool locs)
{
	switch (n->kind) {
	case N_NUM:
		sb_printf(b, "%lld", n->num);
		dump_loc(b, n, locs);
		return;
	case N_STR:
		ast_quote_string(b, n->str, n->str_len);
		dump_loc(b, n, locs);
		return;
	case N_VAR:
		sb_puts(b, n->name);
		dump_loc(b, n, locs);
		return;
	case N_TARGET:
		sb_printf(b, "%s$%s", n->addr_of ? "&" : "", n->name);
		dump_loc(b, n, locs);
		dump_list(b, n->list, locs);
		if (n->pretty)
			sb_printf(b, " pretty%d", n->pretty);
		return;
	case N_UNARY: {
		long long v;

		if (!locs && fold_number(n, &v)) {
			sb_printf(b, "%lld", v);
			return;
		}
		sb_printf(b, "(%s", unary_name(n));
		dump_loc(b, n, locs);
		dump_opt(b, n->lhs, locs);
		sb_putc(b, ')');
		return;
	}
	case N_INCDEC:
		sb_printf(b, "(%s%s", n->postfix ? "post" : "pre", ast_op_name(n->op));
		dump_loc(b, n, locs);
		dump_opt(b, n->lhs, locs);
		sb_putc(b, ')');
		return;
	case N_BINARY:
		sb_printf(b, "(%s", ast_op_name(n->op));
		dump_loc(b, n, locs);
		dump_opt(b, n->lhs, locs);
		dump_opt(b, n->rhs, locs);
		sb_putc(b, ')');
		return;
	case N_ASSIGN:
		sb_printf(b, "(%s=", n->op == OP_ASSIGN ? "" : ast_op_name(n->op));
		dump_loc(b, n, locs);
		dump_opt(b, n->lhs, locs);
		dump_opt(b, n->rhs, locs);
		sb_putc(b, ')');
		return;
	case N_TERNARY:
		sb_puts(b, "(?:");
		dump_loc(b, n, locs);
		dump_opt(b, n->cond, locs);
		dump_opt(b, n->then, locs);
		dump_opt(b, n->els, locs);
		sb_putc(b, ')');
		return;
	case N_CALL:
		sb_printf(b, "(call %s", n->name);
		dump_loc(b, n, locs);
		dump_list(b, n->list, locs);
		sb_putc(b, ')');
		return;
	case N_BLOCK:
		sb_putc(b, '{');
		dump_loc(b, n, locs);
		for (const struct node *s = n->list; s; s = s->next)
			if (s->kind != N_EMPTY)
				dump_opt(b, s, locs);
		sb_puts(b, " }");
		return;
	case N_EXPR_STMT:
		sb_puts(b, "(expr");
		dump_loc(b, n, locs);
		dump_opt(b, n->lhs, locs);
		sb_putc(b, ')');
		return;
	case N_IF:
		sb_puts(b, "(if");
		dump_loc(b, n, locs);
		dump_opt(b, n->cond, locs);
		dump_opt(b, n->then, locs);
		if (n->els)
			dump_opt(b, n->els, locs);
		sb_putc(b, ')');
		return;
	case N_WHILE:
		sb_puts(b, "(while");
		dump_loc(b, n, locs);
		dump_opt(b, n->cond, locs);
		dump_opt(b, n->body, locs);
		sb_putc(b, ')');
		return;
	case N_FOR:
		sb_puts(b, "(for");
		dump_loc(b, n, locs);
		dump_opt(b, n->init, locs);
		dump_opt(b, n->cond, locs);
		dump_opt(b, n->step, locs);
		dump_opt(b, n->body, locs);
		sb_putc(b, ')');
		return;
	case N_BREAK:
	case N_CONTINUE:
	case N_NEXT:
		sb_puts(b, ast_kind_name(n->kind));
		dump_loc(b, n, locs);
		return;
	case N_RETURN:
		sb_puts(b, "(return");
		dump_loc(b, n, locs);
		if (n->lhs)
			dump_opt(b, n->lhs, locs);
		sb_putc(b, ')');
		return;
	case N_EMPTY:
		sb_putc(b, ';');
		dump_loc(b, n, locs);
		return;
	case N_PROBE:
		sb_puts(b, "(probe");
		dump_loc(b, n, locs);
		dump_list(b, n->list, locs);
		dump_opt(b, n->body, locs);
		sb_putc(b, ')');
		return;
	case N_PROBE_POINT:
		sb_puts(b, "(point");
		dump_loc(b, n, locs);
		dump_list(b, n->list, locs);
		if (n->optional)
			sb_puts(b, " ?");
		if (n->sufficient)
			sb_puts(b, " !");
		if (n->cond)
			dump_opt(b, n->cond, locs);
		sb_putc(b, ')');
		return;
	case N_PP_COMP:
		if (n->lhs)
			sb_putc(b, '(');
		sb_puts(b, n->name);
		dump_loc(b, n, locs);
		if (n->lhs) {
			dump_opt(b, n->lhs, locs);
			sb_putc(b, ')');
		}
		return;
	case N_GLOBAL:
		sb_printf(b, "(global %s%s%s%s", n->is_private ? "private " : "", n->name,
			  n->wrap ? "%" : "", n->is_array ? "[]" : "");
		if (n->num)
			sb_printf(b, " size %lld", n->num);
		dump_loc(b, n, locs);
		if (n->lhs)
			dump_opt(b, n->lhs, locs);
		sb_putc(b, ')');
		return;
	case N_FUNCTION:
		sb_printf(b, "(function %s%s:%s", n->is_private ? "private " : "", n->name,
			  ast_type_name(n->decl_type));
		dump_loc(b, n, locs);
		sb_puts(b, " (");
		dump_list(b, n->list, locs);
		sb_puts(b, " )");
		dump_opt(b, n->body, locs);
		sb_putc(b, ')');
		return;
	case N_PARAM:
		sb_printf(b, "%s:%s", n->name, ast_type_name(n->decl_type));
		dump_loc(b, n, locs);
		return;
	case N_ALIAS:
		sb_printf(b, "(alias%s", n->body ? (n->els ? " =," : " =") : " +=");
		dump_loc(b, n, locs);
		dump_opt(b, n->then, locs);
		dump_list(b, n->list, locs);
		if (n->body)
			dump_opt(b, n->body, locs);
		if (n->els)
			dump_opt(b, n->els, locs);
		sb_putc(b, ')');
		return;
	case N_EMBEDDED:
		sb_puts(b, "(embedded ");
		ast_quote_string(b, n->str, strlen(n->str));
		dump_loc(b, n, locs);
		sb_putc(b, ')');
		return;
	case N_FOREACH:
		sb_puts(b, "(foreach");
		dump_loc(b, n, locs);
		if (n->then)
			sb_printf(b, " %s%+d=", n->then->name, n->then->sort);
		for (const struct node *k = n->list; k; k = k->next)
			sb_printf(b, " %s%+d", k->name, k->sort);
		sb_puts(b, " in");
		dump_opt(b, n->lhs, locs);
		sb_printf(b, " %s%+d", ast_agg_name(n->agg), n->sort);
		if (n->step)
			dump_opt(b, n->step, locs);
		dump_opt(b, n->body, locs);
		sb_putc(b, ')');
		return;
	case N_DELETE:
		sb_puts(b, "(delete");
		dump_loc(b, n, locs);
		dump_opt(b, n->lhs, locs);
		sb_putc(b, ')');
		return;
	case N_TRY:
		sb_puts(b, "(try");
		dump_loc(b, n, locs);
		dump_opt(b, n->body, locs);
		if (n->then)
			sb_printf(b, " catch:%s", n->then->name);
		dump_opt(b, n->els, locs);
		sb_putc(b, ')');
		return;
	case N_INDEX:
		sb_puts(b, "(index ");
		if (n->lhs)
			dump(b, n->lhs, locs);
		else
			sb_puts(b, n->name);
		dump_loc(b, n, locs);
		dump_list(b, n->list, locs);
		sb_putc(b, ')');
		return;
	case N_IN:
		sb_printf(b, "(in %s", n->name);
		dump_loc(b, n, locs);
		dump_list(b, n->list, locs);
		sb_putc(b, ')');
		return;
	case N_STAR:
		sb_putc(b, '*');
		dump_loc(b, n, locs);
		return;
	case N_STAT:
	case N_HIST:
		sb_printf(b, "(%s", ast_agg_name(n->agg));
		dump_loc(b, n, locs);
		dump_opt(b, n->lhs, locs);
		if (n->rhs)
			dump_opt(b, n->rhs, locs);
		dump_list(b, n->list, locs);
		sb_putc(b, ')');
		return;
	case N_MEMBER:
		if (n->name)
			sb_printf(b, "->%s", n->name);
		else
			dump(b, n->lhs, locs);
		dump_loc(b, n, locs);
		return;
	case N_CAST:
	case N_ATVAR:
		sb_printf(b, "(%s%s", n->addr_of ? "&" : "", ast_kind_name(n->kind));
		dump_loc(b, n, locs);
		if (n->lhs)
			dump_opt(b, n->lhs, locs);
		sb_putc(b, ' ');
		ast_quote_string(b, n->str, strlen(n->str));
		if (n->rhs)
			dump_opt(b, n->rhs, locs);
		dump_list(b, n->list, locs);
		sb_printf(b, " pretty%d)", n->pretty);
		return;
	case N_AUTOCAST:
		sb_puts(b, "(autocast");
		dump_loc(b, n, locs);
		dump_opt(b, n->lhs, locs);
		dump_list(b, n->list, locs);
		sb_printf(b, " pretty%d)", n->pretty);
		return;
	case N_ENTRY:
	case N_DEFINED:
	case N_PROBEWRITE:
		sb_printf(b, "(%s", ast_kind_name(n->kind));
		dump_loc(b, n, locs);
		dump_opt(b, n->lhs, locs);
		sb_putc(b, ')');
		return;
	case N_CONST:
		sb_puts(b, "(@const ");
		ast_quote_string(b, n->str, strlen(n->str));
		dump_loc(b, n, locs);
		sb_putc(b, ')');
		return;
	case N_NKINDS:
		break;
	}
	sb_printf(b, "<kind %d>", (int)n->kind);
}

/* --- parsing in a child process ---------------------------------------- */

struct parsed {
	int status;  /* the child's exit status, 128+N if signal N ended it */
	int errors;  /* what parse_file returned; -1 if the child never got there */
	int ndecls;
	char *text;  /* every declaration printed by ast_print_decl */
	char *tree;  /* every declaration as dump() writes it, one per line */
	char *ltree; /* the same with the line:col of each node */
	char *diags; /* what the child wrote to stderr */
};

static char *slurp(FILE *f)
{
	struct strbuf b;
	char buf[4096];
	size_t n;

	sb_init(&b);
	rewind(f);
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		sb_add(&b, buf, n);
	return sb_detach(&b);
}

#define SEP "\035\n"

static void parse_child(const char *name, const char *src)
{
	struct ptrvec decls = { 0 };
	struct strbuf tree, ltree;
	int file = src_add(name, xstrdup(src), strlen(src), false);
	int errors = parse_file(file, &test_env, &decls);

	sb_init(&tree);
	sb_init(&ltree);
	printf("%d %zu" SEP, errors, decls.n);
	for (size_t i = 0; i < decls.n; i++) {
		ast_print_decl(stdout, decls.v[i]);
		dump(&tree, decls.v[i], false);
		sb_putc(&tree, '\n');
		dump(&ltree, decls.v[i], true);
		sb_putc(&ltree, '\n');
	}
	printf(SEP "%s" SEP "%s", tree.s ? tree.s : "", ltree.s ? ltree.s : "");
	fflush(stdout);
}

static struct parsed parse(const char *src)
{
	struct parsed r = { .errors = -1 };
	FILE *out = tmpfile(), *err = tmpfile();

	if (!out || !err) {
		perror("parse-test: tmpfile");
		exit(2);
	}
	fflush(stdout);
	fflush(stderr);
	pid_t pid = fork();
	if (pid < 0) {
		perror("parse-test: fork");
		exit(2);
	}
	if (pid == 0) {
		dup2(fileno(out), 1);
		dup2(fileno(err), 2);
		parse_child("t.stp", src);
		_exit(0);
	}
	int st;
	waitpid(pid, &st, 0);
	r.status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	char *all = slurp(out);
	r.diags = slurp(err);
	fclose(out);
	fclose(err);
	char *parts[4] = { NULL, NULL, NULL, NULL };
	char *p = all;
	for (int i = 0; i < 4 && p; i++) {
		parts[i] = p;
		p = strstr(p, SEP);
		if (p) {
			*p = 0;
			p += strlen(SEP);
		}
	}
	if (parts[3]) {
		sscanf(parts[0], "%d %d", &r.errors, &r.ndecls);
		r.text = xstrdup(parts[1]);
		r.tree = xstrdup(parts[2]);
		r.ltree = xstrdup(parts[3]);
	} else {
		r.text = xstrdup("");
		r.tree = xstrdup("");
		r.ltree = xstrdup("");
	}
	free(all);
	return r;
}

static void parsed_free(struct parsed *r)
{
	free(r->text);
	free(r->tree);
	free(r->ltree);
	free(r->diags);
}

static void show_parsed(const struct parsed *r)
{
	printf("#   exit %d, %d errors, %d declarations\n", r->status, r->errors, r->ndecls);
	if (r->diags && *r->diags)
		detail("stderr:", r->diags);
}

/* --- parsing in this process, for looking at nodes ---------------------- */

static struct ptrvec here_decls;

/* Parse src (which must be free of errors) and return its first declaration. */
static struct node *parse_here(const char *src)
{
	size_t first = here_decls.n;
	int file = src_add("here.stp", xstrdup(src), strlen(src), false);
	int errors = parse_file(file, &test_env, &here_decls);

	if (errors || here_decls.n == first) {
		tap_check(false, "parse without errors: %s", src);
		return NULL;
	}
	return here_decls.v[first];
}

/* The i-th statement (from 0) of a probe's or function's body. */
static struct node *stmt(struct node *decl, int i)
{
	if (!decl || !decl->body)
		return NULL;
	struct node *s = decl->body->list;
	while (s && i-- > 0)
		s = s->next;
	return s;
}

static void check_loc(const struct node *n, int line, int col, const char *what)
{
	if (!n) {
		tap_check(false, "%s is at %d:%d", what, line, col);
		printf("#   no such node\n");
		return;
	}
	if (!tap_check(n->loc.line == line && n->loc.col == col, "%s is at %d:%d", what, line, col))
		printf("#   got %d:%d (%s)\n", n->loc.line, n->loc.col, ast_kind_name(n->kind));
}

static void check_kind(const struct node *n, enum node_kind kind, const char *what)
{
	if (!tap_check(n && n->kind == kind, "%s is a %s", what, ast_kind_name(kind)) && n)
		printf("#   got a %s\n", ast_kind_name(n->kind));
}

/* --- printing is a fixed point and keeps the meaning -------------------- */

static void check_round_trip(const char *what, const char *src)
{
	struct parsed a = parse(src);

	if (a.errors != 0 || a.status != 0) {
		tap_check(false, "round trip of %s: the input parses", what);
		detail("input:", src);
		show_parsed(&a);
		parsed_free(&a);
		return;
	}
	struct parsed b = parse(a.text);
	if (b.errors != 0 || b.status != 0) {
		tap_check(false, "round trip of %s: the printed text parses", what);
		detail("printed:", a.text);
		show_parsed(&b);
	} else {
		struct parsed c = parse(b.text);
		if (!tap_check(!strcmp(b.text, c.text) && !strcmp(a.text, b.text),
			   "round trip of %s: printing is a fixed point", what)) {
			detail("input:", src);
			detail("first:", a.text);
			detail("second:", b.text);
			if (!strcmp(a.text, b.text))
				detail("third:", c.text);
		}
		if (!tap_check(!strcmp(a.tree, b.tree), "round trip of %s: printing keeps the meaning",
			   what)) {
			detail("tree:", a.tree);
			detail("printed:", a.text);
			detail("reparsed:", b.tree);
		}
		parsed_free(&c);
	}
	parsed_free(&a);
	parsed_free(&b);
}

static const char *const round_trip_inputs[] = {
	"probe begin { println(\"hello\") }",
	"global a, b = 1, c = \"s\", d = -5\nprobe end { a = b }",
	"function f:long(a:long, b:string) { return a }\nfunction g(x) { }\nprobe begin { }",
	"probe begin { x = a - b - c; y = a - (b - c); z = -(a - b) }",
	"probe begin { x = a * (b + c) / (d % e); y = (a + b) * c }",
	"probe begin { x = a . b . c; y = a . (b . c); z = a . (b + c) }",
	"probe begin { x = (a . b) + c }",
	"probe begin { x = (a . b) - c; y = (s . t) < u }",
	"probe begin { x = a << (b . c); y = (a << b) . c; z = (a . b) << c }",
	"probe begin { x = a == (b == c); y = (a < b) < c; z = a != (b < c) }",
	"probe begin { x = a && (b || c); y = (a || b) && c; z = a & (b | c) ^ d }",
	"probe begin { x = a ? b : c ? d : e; y = (a ? b : c) ? d : e }",
	"probe begin { x = (a ? b : c) + 1; y = a ? (x = 1) : 2; z = (x = 1) + 2 }",
	"probe begin { x = y = z = 1; a += b -= c .= d }",
	"probe begin { x = - -a; y = -(-1); z = !!a; w = ~-a; v = -a++; u = (-a)++ }",
	"probe begin { x = a - -b; y = a + +b; z = a++ + ++b; w = a-- - --b }",
	"probe begin { x = 1; -y }",
	"probe begin { i = 0; ++i }",
	"probe begin { x = a; (b + c) * d }",
	"probe begin { f(); (x) }",
	"probe begin { x = 0x8000000000000000 }",
	"probe begin { x = -9223372036854775808 }",
	"probe begin { x = 0xffffffffffffffff; y = 9223372036854775807; z = 0777 }",
	"probe begin { s = \"\\n\\t\\r\\v\\b\\f\\a \\\\ \\\" \\' \\? \\0 \\1 \\17\" }",
	"probe begin { s = \"\\177 \\200 \\377 \\x41\" }",
	"probe begin { s = \"\\0017\"; t = \"\\x7f\\x80\"; u = \"\" }",
	"probe begin { if (a) if (b) x = 1; else x = 2 }",
	"probe begin { if (a) { if (b) x = 1 } else x = 2 }",
	"probe begin { if (a) ; else ; while (b) ; for (;;) ; }",
	"probe begin { for (i = 0; i < 10; i++) { if (i) continue; break } next }",
	"probe begin { while (x < 10) { x++ } for (; x; ) x-- }",
	"function f(n) { if (n) return n; return }\nprobe begin { f(1) }",
	"probe kernel.function(\"ksys_read\").return, kprobe.function(\"vfs_*\")?, timer.ms(10) { }",
	"probe begin(-5), end(0x10), never { }",
	"probe begin { printf(\"%d %s\\n\", $return, execname()) }",
	"probe begin { { { x = 1 } } ; ; }",
	"probe begin { x = f(a, b + c, g(), \"s\" . t) }",
	/* Arrays, statistics, foreach, delete, try. */
	"global m[100], w%[10], v%, p[]\nprivate q = 3, r\nprobe begin { m[1, \"a\"] = 2 }",
	"private global z\nprivate function f:string() { return \"\" }\nprobe begin { }",
	"probe begin { x = [a, b] in m; y = k in m && [1] in m; z = !(k in m) }",
	"probe begin { x = (k in m) == 0; y = (a & b) in m; delete m; delete m[1, *]; delete s }",
	"probe begin { s <<< 1; m[k] <<< v + 1; x = @count(s) + @sum(m[k]) * @avg(s) }",
	"probe begin { x = @min(s) - @max(s); y = @variance(s, 2); print(@hist_log(s)) }",
	"probe begin { print(@hist_linear(m[1], 0, 100, 10)); x = @hist_log(s)[3] }",
	"probe begin { foreach (k in m) print(k) foreach (k- in m limit 5) { } }",
	"probe begin { foreach ([a, b+] in m) { } foreach (v = [a, b] in m-) { } }",
	"probe begin { foreach (v- = k in m) { } foreach ([a] in m[*, \"x\"] @sum+ limit n + 1) { } }",
	"probe begin { foreach (b in @hist_log(s)) { break } foreach (k in m @count-) continue }",
	"probe begin { try { x = 1 / 0 } catch (msg) { println(msg) } try { } catch { } }",
	/* Target variables, casts and the other '@' operators. */
	"probe begin { x = $p->a->b[2]; y = $p$; z = $p->c$$; w = &$v->f; u = $$vars }",
	"probe begin { x = @cast(p, \"task_struct\", \"kernel\")->pid; y = &@var(\"jiffies@kernel/time.c\") }",
	"probe begin { x = @entry($a); y = @defined($b) ? 1 : 0; z = @const(\"HZ\") }",
	"probe begin { x = a >>> 2; y = s =~ \"^a\" || t !~ \"b\" }",
	/* Aliases, probe point flags and conditions, embedded C. */
	"probe foo.bar = kernel.function(\"vfs_read\") { x = 1 }\nprobe foo.bar { }",
	"probe foo.baz += kernel.function(\"vfs_read\")!, begin? { y = 1 }",
	"probe a.b = begin { x = 1 }, { y = 2 }\nprobe syscall.*, sys*.open*at { }",
	"probe timer.ms(10) if (enabled) { }\nglobal enabled",
	"%{ #include <linux/sched.h> %}\nfunction f:long() %{ STAP_RETVALUE = 1; %}\nprobe begin { x = %{ 2 %} }",
	"probe begin { x = \"con\" \"cat\" \"enated\" }",
};

/* --- precedence and associativity --------------------------------------- */

/* The tree of "probe begin { EXPR }". */
static char *expr_tree(const char *expr)
{
	char *src = xasprintf("probe begin { %s }", expr);
	struct parsed r = parse(src);
	char *tree = r.errors == 0 ? xstrdup(r.tree) : xasprintf("<%d errors>", r.errors);

	free(src);
	parsed_free(&r);
	return tree;
}

/* expr groups like same, and unlike other (NULL: no other to compare). */
static void check_grouping(const char *expr, const char *same, const char *other)
{
	char *t = expr_tree(expr), *s = expr_tree(same);
	char *o = other ? expr_tree(other) : NULL;
	bool ok = !strcmp(t, s) && (!o || strcmp(t, o) != 0);

	if (!tap_check(ok, "\"%s\" groups as \"%s\"", expr, same)) {
		detail("got:", t);
		detail("want:", s);
		if (o)
			detail("not:", o);
	}
	free(t);
	free(s);
	free(o);
}

/* The tree of the expression is exactly want (as dump() writes it). */
static void check_expr_tree(const char *expr, const char *want)
{
	char *t = expr_tree(expr);
	char *w = xasprintf("(probe (point begin) { (expr %s) })\n", want);

	if (!tap_check(!strcmp(t, w), "\"%s\" is %s", expr, want)) {
		detail("got:", t);
		detail("want:", w);
	}
	free(t);
	free(w);
}

static void test_precedence(void)
{
	/* Left associativity within one level. */
	check_grouping("a - b - c", "(a - b) - c", "a - (b - c)");
	check_grouping("a / b / c", "(a / b) / c", "a / (b / c)");
	check_grouping("a % b * c", "(a % b) * c", "a % (b * c)");
	check_grouping("a >> b >> c", "(a >> b) >> c", "a >> (b >> c)");
	check_grouping("a . b . c", "(a . b) . c", "a . (b . c)");
	check_grouping("a < b < c", "(a < b) < c", "a < (b < c)");
	check_grouping("a == b != c", "(a == b) != c", "a == (b != c)");
	check_grouping("a & b & c", "(a & b) & c", "a & (b & c)");
	check_grouping("a || b || c", "(a || b) || c", "a || (b || c)");
	/* Right associativity: assignment and ?:. */
	check_grouping("x = y = 1", "x = (y = 1)", NULL);
	check_grouping("x += y -= 1", "x += (y -= 1)", NULL);
	check_grouping("a ? b : c ? d : e", "a ? b : (c ? d : e)", "(a ? b : c) ? d : e");
	/* Between levels, tightest first: unary, * / %, + -, ., << >>,
	 * comparisons, &, ^, |, &&, ||, ?:, assignment (as in SystemTap). */
	check_grouping("a + b * c", "a + (b * c)", "(a + b) * c");
	check_grouping("a * b - c", "(a * b) - c", "a * (b - c)");
	check_grouping("a . b + c", "a . (b + c)", "(a . b) + c");
	check_grouping("a - b . c", "(a - b) . c", "a - (b . c)");
	check_grouping("a << b . c", "a << (b . c)", "(a << b) . c");
	check_grouping("a << b + c", "a << (b + c)", "(a << b) + c");
	check_grouping("a < b << c", "a < (b << c)", "(a < b) << c");
	check_grouping("a . b == c . d", "(a . b) == (c . d)", "a . (b == c) . d");
	check_grouping("a & b == c", "a & (b == c)", "(a & b) == c");
	check_grouping("a | b ^ c & d", "a | (b ^ (c & d))", "((a | b) ^ c) & d");
	check_grouping("a && b | c", "a && (b | c)", "(a && b) | c");
	check_grouping("a || b && c", "a || (b && c)", "(a || b) && c");
	check_grouping("a && b || c && d", "(a && b) || (c && d)", "a && (b || c) && d");
	check_grouping("a || b ? c : d", "(a || b) ? c : d", "a || (b ? c : d)");
	check_grouping("x = a ? b : c", "x = (a ? b : c)", "(x = a) ? b : c");
	check_grouping("x = a || b", "x = (a || b)", "(x = a) || b");
	/* SystemTap compares at one level, left to right: == is not looser than <. */
	check_grouping("a == b < c", "(a == b) < c", "a == (b < c)");
	check_grouping("a != b >= c", "(a != b) >= c", "a != (b >= c)");
	/* Unary and postfix operators. */
	check_grouping("-a * b", "(-a) * b", "-(a * b)");
	check_grouping("!a && b", "(!a) && b", "!(a && b)");
	check_grouping("!a == b", "(!a) == b", "!(a == b)");
	check_grouping("~a & b", "(~a) & b", "~(a & b)");
	check_grouping("-a++", "-(a++)", "(-a)++");
	check_grouping("a++ + b", "(a++) + b", NULL);
	check_grouping("a - -b", "a - (-b)", NULL);
	/* Exact trees. */
	check_expr_tree("a - b * c", "(- a (* b c))");
	check_expr_tree("a . b + c", "(. a (+ b c))");
	check_expr_tree("x = y = 1", "(= x (= y 1))");
	check_expr_tree("a ? b : c ? d : e", "(?: a b (?: c d e))");
	check_expr_tree("-a++", "(neg (post++ a))");
	check_expr_tree("--a", "(pre-- a)");
	check_expr_tree("f(a, b + 1)", "(call f a (+ b 1))");
	check_expr_tree("x .= \"s\"", "(.= x \"s\")");
	check_expr_tree("x <<= $return", "(<<= x $return)");
	/* =~ and !~ are comparison-level operators, never '=' or '!' then '~'. */
	check_expr_tree("s =~ \"a\"", "(=~ s \"a\")");
	check_expr_tree("s!~\"a\"", "(!~ s \"a\")");
	check_expr_tree("x=~\"1\"", "(=~ x \"1\")");
	check_expr_tree("x = ~1", "(= x (~ 1))");
	check_grouping("a =~ \"b\" == c", "(a =~ \"b\") == c", "a =~ (\"b\" == c)");
	check_grouping("a . b !~ \"c\"", "(a . b) !~ \"c\"", "a . (b !~ \"c\")");
	check_grouping("a && b =~ \"c\"", "a && (b =~ \"c\")", "(a && b) =~ \"c\"");
	/* 'in' binds between '&' and the comparisons, as in SystemTap. */
	check_grouping("a == b in m", "(a == b) in m", NULL);
	check_grouping("a & b in m", "a & (b in m)", NULL);
	check_grouping("a in m && b", "(a in m) && b", NULL);
	check_grouping("!a in m", "(!a) in m", NULL);
	check_expr_tree("[a, b] in m", "(in m a b)");
	check_expr_tree("a + 1 in m", "(in m (+ a 1))");
	/* '<<<' is an assignment: right-associative and loosest. */
	check_expr_tree("s <<< a + b", "(<<<= s (+ a b))");
	check_expr_tree("m[k, 2] <<< 1", "(<<<= (index m k 2) 1)");
	check_expr_tree("@count(m[k]) + 1", "(+ (@count (index m k)) 1)");
	check_expr_tree("@hist_log(s)[2]", "(index (@hist_log s) 2)");
	check_expr_tree("a >>> b >> c", "(>> (>>> a b) c)");
	check_expr_tree("$p->a[1]->b", "$p ->a 1 ->b");
	check_expr_tree("&$p->a", "&$p ->a");
	check_expr_tree("\"a\" \"b\"", "\"ab\"");
}

/* --- statements ---------------------------------------------------------- */

/* The tree of a whole script. */
static void check_tree(const char *src, const char *want, const char *what)
{
	struct parsed r = parse(src);

	if (!tap_check(r.errors == 0 && !strcmp(r.tree, want), "%s", what)) {
		detail("input:", src);
		detail("got:", r.tree);
		detail("want:", want);
		show_parsed(&r);
	}
	parsed_free(&r);
}

static void test_statements(void)
{
	check_tree("probe begin { x = 1 y = 2 println(x) }",
		   "(probe (point begin) { (expr (= x 1)) (expr (= y 2)) (expr (call println x)) })\n",
		   "statements need no ';'");
	check_tree("probe begin { x = 1\n-y }",
		   "(probe (point begin) { (expr (= x (- 1 y))) })\n",
		   "a '-' that can continue an expression continues it");
	check_tree("function f(y) { return\n(y) }",
		   "(function f:unknown ( y:unknown ) { (return y) })\n",
		   "'return' takes a value on the next line");
	check_tree("probe begin { if (a) if (b) x = 1 else x = 2 }",
		   "(probe (point begin) { (if a (if b (expr (= x 1)) (expr (= x 2)))) })\n",
		   "'else' binds to the nearest 'if'");
	check_tree("probe begin { if (a) x = 1; else x = 2 }",
		   "(probe (point begin) { (if a (expr (= x 1)) (expr (= x 2))) })\n",
		   "a ';' ending the statement before 'else' (as in SystemTap)");
	check_tree("probe begin { if (a) { x = 1 }; y = 2 }",
		   "(probe (point begin) { (if a { (expr (= x 1)) }) (expr (= y 2)) })\n",
		   "a ';' after a block is an empty statement");
	check_tree("probe begin { for (;;) break for (i = 0; i < 2; i++) continue }",
		   "(probe (point begin) { (for _ _ _ break) "
		   "(for (expr (= i 0)) (< i 2) (post++ i) continue) })\n",
		   "'for' with and without its three parts");
	check_tree("probe begin { while (x) { next } ; if (x) ; else { } }",
		   "(probe (point begin) { (while x { next }) (if x ; { }) })\n",
		   "'while', 'next', empty statements and blocks");
	check_tree("global a, b = 1, c = \"s\", d = -2\nprobe never { }",
		   "(global a)\n(global b 1)\n(global c \"s\")\n(global d -2)\n"
		   "(probe (point never) { })\n",
		   "a global list becomes one declaration per name, in order");
	check_tree("function f:string(a:long, b:string, c) { }",
		   "(function f:string ( a:long b:string c:unknown ) { })\n",
		   "declared types of a function and its parameters");
	check_tree("probe kernel.function(\"f\").return, kprobe.function(\"g*\")?, begin(-5) { }",
		   "(probe (point kernel (function \"f\") return) (point kprobe (function \"g*\") ?) "
		   "(point (begin -5)) { })\n",
		   "probe points: keyword components, '?', negative argument");
	check_tree("probe a.next.global.function { }",
		   "(probe (point a next global function) { })\n",
		   "keywords as probe point components");
	check_tree("probe a.{b, c}.{d, e?} if (x) { }",
		   "(probe (point a b d x) (point a b e ? x) (point a c d x) (point a c e ? x) { })\n",
		   "brace groups: every combination, with the suffix's flags and condition");
	check_tree("probe {a, b.c}? { }",
		   "(probe (point a ?) (point b c ?) { })\n",
		   "a brace group first, '?' on each of its points");
	check_tree("probe begin { x++\n--y }",
		   "(probe (point begin) { (expr (post++ x)) (expr (pre-- y)) })\n",
		   "one postfix '++' per operand: '--' starts the next statement");
	check_tree("probe begin { x = f()->a->next[1]$ }",
		   "(probe (point begin) { (expr (= x (autocast (call f) ->a ->next 1 pretty1))) })\n",
		   "'->' on a call (autocast), a keyword as a member name");
	check_tree("probe begin { x = $p->$$ }",
		   "(probe (point begin) { (expr (= x $p pretty2)) })\n",
		   "'->$$' is '$$' after the last member");
	check_tree("; probe begin { } ; ; function f() { } ;",
		   "(probe (point begin) { })\n(function f:unknown ( ) { })\n",
		   "';' between declarations is ignored");
	check_tree("probe begin { iffy = 1; returns = 2; nextx = forx }",
		   "(probe (point begin) { (expr (= iffy 1)) (expr (= returns 2)) "
		   "(expr (= nextx forx)) })\n",
		   "names that start with a keyword are identifiers");
}

/* --- the lexer: numbers, strings, comments ------------------------------- */

/* The value of the number literal in "probe begin { x = LIT }". */
static void check_number(const char *lit, long long want)
{
	char *src = xasprintf("probe begin { x = %s }", lit);
	struct node *p = parse_here(src);
	struct node *s = stmt(p, 0);
	const struct node *n = s && s->lhs ? s->lhs->rhs : NULL;

	if (!tap_check(n && n->kind == N_NUM && n->num == want, "number %s is %lld", lit, want) && n)
		printf("#   got a %s, %lld\n", ast_kind_name(n->kind), n->num);
	free(src);
}

/* The bytes of the string literal in "probe begin { x = LIT }". */
static void check_string(const char *lit, const char *want, size_t want_len)
{
	char *src = xasprintf("probe begin { x = %s }", lit);
	struct node *p = parse_here(src);
	struct node *s = stmt(p, 0);
	const struct node *n = s && s->lhs ? s->lhs->rhs : NULL;
	bool ok = n && n->kind == N_STR && n->str_len == want_len &&
		  !memcmp(n->str, want, want_len);

	if (!tap_check(ok, "string %s holds the right %zu bytes", lit, want_len) && n &&
	    n->kind == N_STR) {
		struct strbuf b;

		sb_init(&b);
		ast_quote_string(&b, n->str, n->str_len);
		printf("#   got %zu bytes: %s\n", n->str_len, b.s);
		sb_free(&b);
	}
	free(src);
}

static void test_lexer(void)
{
	check_number("0", 0);
	check_number("42", 42);
	check_number("0x1f", 31);
	check_number("0XaBcD", 0xabcd);
	check_number("0777", 511);
	check_number("00", 0);
	check_number("9223372036854775807", LLONG_MAX);
	check_number("0x7fffffffffffffff", LLONG_MAX);
	check_number("0xffffffffffffffff", -1);
	check_number("18446744073709551615", -1);
	check_number("01777777777777777777777", -1);
	check_string("\"\"", "", 0);
	check_string("\"abc\"", "abc", 3);
	check_string("\"\\n\\t\\r\\v\\b\\f\\a\"", "\n\t\r\v\b\f\a", 7);
	check_string("\"\\\\\\\"\\'\\?\"", "\\\"'?", 4);
	check_string("\"\\101\\0z\"", "A\0z", 3);
	check_string("\"\\0017\"", "\0017", 2);
	check_string("\"\\x41\\x4a\\xff\\x7\"", "AJ\xff\x07", 4);
	check_string("\"\\377\\200\"", "\377\200", 2);
	check_string("\"# not // a /* comment\"", "# not // a /* comment", 21);
	check_string("\"h\303\251\"", "h\303\251", 3);

	/* Comments of all three kinds, in every place whitespace may be. */
	struct node *p = parse_here("# one\n// two\n/* three\n */ probe /* a */ begin // b\n"
				    "{ x /* c */ = # d\n 1 /**/ + /***/ 2 }\n");
	check_kind(p, N_PROBE, "a probe surrounded by comments");
	check_tree("probe begin { x = 1 /* y = 2 */ # z = 3\n// w = 4\n}",
		   "(probe (point begin) { (expr (= x 1)) })\n",
		   "code inside comments is not parsed");
	check_tree("probe begin { x = 1 /* a ** / b **/ }",
		   "(probe (point begin) { (expr (= x 1)) })\n",
		   "stars and slashes inside a block comment");
	check_tree("probe begin {\r\n\tx = 1\r\n}\r\n",
		   "(probe (point begin) { (expr (= x 1)) })\n", "CR LF line ends are whitespace");
}

/* --- locations ----------------------------------------------------------- */

/* Null-safe steps through the tree, so a wrong shape fails a check, not the test. */
#define LHS(n) ((n) ? (n)->lhs : NULL)
#define RHS(n) ((n) ? (n)->rhs : NULL)
#define LIST(n) ((n) ? (n)->list : NULL)
#define NEXT(n) ((n) ? (n)->next : NULL)
#define FIELD(n, f) ((n) ? (n)->f : NULL)

static void test_locations(void)
{
	struct node *p = parse_here("probe begin {\n"		/* 1 */
				    "\tx = 1 + 2\n"		/* 2 */
				    "\t/* c */ y = \"s\"\n"	/* 3 */
				    "  if (x) f(x, -x)\n"	/* 4 */
				    "}\n"
				    "function f(a, b) {\n"	/* 6 */
				    "\treturn a ? b : a++\n"	/* 7 */
				    "}\n");
	if (!p)
		return;
	struct node *f = here_decls.v[here_decls.n - 1];
	check_loc(p, 1, 1, "a probe (its 'probe')");
	check_loc(LIST(p), 1, 7, "its probe point");
	check_loc(LIST(LIST(p)), 1, 7, "the point's component");
	check_loc(p->body, 1, 13, "the body (its '{')");
	struct node *s0 = stmt(p, 0), *s1 = stmt(p, 1), *s2 = stmt(p, 2);
	check_loc(s0, 2, 2, "an expression statement (its first token)");
	check_loc(LHS(s0), 2, 4, "an assignment (its '=')");
	check_loc(LHS(LHS(s0)), 2, 2, "a variable");
	check_loc(RHS(LHS(s0)), 2, 8, "a binary operator (the operator)");
	check_loc(LHS(RHS(LHS(s0))), 2, 6, "a number");
	check_loc(RHS(RHS(LHS(s0))), 2, 10, "the number after it");
	check_loc(s1, 3, 10, "a statement after a block comment");
	check_loc(RHS(LHS(s1)), 3, 14, "a string (its opening quote)");
	check_loc(s2, 4, 3, "an 'if' (its 'if')");
	check_loc(FIELD(s2, cond), 4, 7, "its condition");
	struct node *call = LHS(FIELD(s2, then));
	check_loc(call, 4, 10, "a call (its name)");
	check_loc(NEXT(LIST(call)), 4, 15, "a unary minus");
	check_loc(f, 6, 10, "a function (its name)");
	check_loc(LIST(f), 6, 12, "its first parameter");
	check_loc(NEXT(LIST(f)), 6, 15, "its second parameter");
	struct node *ret = stmt(f, 0);
	check_loc(ret, 7, 2, "a 'return'");
	check_loc(LHS(ret), 7, 11, "a conditional (its '?')");
	check_loc(FIELD(LHS(ret), els), 7, 18, "a postfix '++' (the operator)");

	p = parse_here("/* a comment\n"
		       "   over two lines */ probe end { s = \"a\\\"\\n\\x41\" . $return }\n"
		       "global g = -5\n");
	s0 = stmt(p, 0);
	check_loc(p, 2, 22, "a probe after a two-line comment");
	check_loc(RHS(LHS(s0)), 2, 50, "an operator after a string with escapes");
	check_loc(RHS(RHS(LHS(s0))), 2, 52, "a target variable (its '$')");
	check_loc(here_decls.v[here_decls.n - 1], 3, 8, "a global (its name)");

	p = parse_here("probe begin(-5), timer.ms(10) {\n"
		       "\tfor (i = 0; i < 3; i++)\n"
		       "\t\twhile (i) break\n"
		       "}");
	check_loc(LHS(LIST(LIST(p))), 1, 13, "a negative probe argument (its '-')");
	check_loc(NEXT(LIST(p)), 1, 18, "the second probe point");
	check_loc(NEXT(LIST(NEXT(LIST(p)))), 1, 24, "a later component of a probe point");
	s0 = stmt(p, 0);
	check_loc(s0, 2, 2, "a 'for'");
	check_loc(FIELD(s0, init), 2, 7, "a 'for' initializer statement (its first token)");
	check_loc(FIELD(s0, body), 3, 3, "a 'while'");
	check_loc(FIELD(FIELD(s0, body), body), 3, 13, "a 'break'");
}

/* --- errors: how many, where, and parsing goes on ------------------------ */

/*
 * Parse src; want exactly nerr errors, and each pattern in want (NULL
 * terminated) somewhere in stderr, e.g. "1:23: error: expected".
 */
static void check_errors(const char *what, const char *src, int nerr, const char *const *want)
{
	struct parsed r = parse(src);
	int got = 0;
	bool found = true;

	for (const char *p = r.diags; (p = strstr(p, ": error: ")); p++)
		got++;
	for (int i = 0; want && want[i]; i++)
		if (!strstr(r.diags, want[i]))
			found = false;
	if (!tap_check(r.status < 128 && got == nerr && found && (r.errors == nerr || r.errors < 0),
		   "%s: %d error%s as expected", what, nerr, nerr == 1 ? "" : "s")) {
		detail("input:", src);
		for (int i = 0; want && want[i]; i++)
			if (!strstr(r.diags, want[i]))
				detail("missing:", want[i]);
		show_parsed(&r);
	}
	parsed_free(&r);
}

#define WANT(...) ((const char *const[]){ __VA_ARGS__, NULL })

static void test_errors(void)
{
	check_errors("missing operand", "probe begin { x = 1 + }", 1,
		     WANT("t.stp:1:23: error: expected an expression", "[syntax]"));
	check_errors("two errors in two probes",
		     "probe begin { x = 1 +* 2 }\nprobe end { y = ) }", 2,
		     WANT("t.stp:1:22: error: ", "t.stp:2:17: error: "));
	check_errors("two errors in one probe, one statement apart",
		     "probe begin {\n  x = 1 + ;\n  y = * 2\n}", 2,
		     WANT("t.stp:2:11: error: ", "t.stp:3:7: error: "));
	check_errors("an error in a function, then one in a probe",
		     "function f() { return ) }\nprobe begin { x = ( }", 2,
		     WANT("t.stp:1:23: error: ", "t.stp:2:21: error: "));
	check_errors("a lexical error, then a syntax error",
		     "probe begin { x = 1 ` }\nprobe end { y = 2 + }", 2,
		     WANT("t.stp:1:21: error: unexpected character '`' [bad-char]",
			  "t.stp:2:21: error: "));
	check_errors("bad characters and numbers in a row", "probe begin { x = 1 ` ; y = 09 ; z = 0x }",
		     3, WANT("1:21: error: ", "1:29: error: malformed number '09' [bad-number]",
			     "1:38: error: malformed number '0x' [bad-number]"));
	check_errors("a bad character alone gives no syntax error", "probe begin { x = 1 @ }", 1,
		     WANT("[bad-char]"));
	check_errors("unknown escapes, then more code", "probe begin { x = \"\\q\" y = \"\\400\" }", 2,
		     WANT("1:20: error: unknown escape '\\q'", "1:29: error: octal escape"));
	check_errors("an unterminated comment", "probe begin { }\n/* open", 1,
		     WANT("2:1: error: comment is not closed", "[unterminated-comment]"));
	check_errors("an unterminated string", "probe begin { x = \"abc\n}", 1,
		     WANT("1:19: error: string is not closed", "[bad-string]"));
	check_errors("a number too large", "probe begin { x = 99999999999999999999 }", 1,
		     WANT("1:19: error: number '99999999999999999999' does not fit in 64 bits"));
	check_errors("'\\x' without hex digits", "probe begin { x = \"\\xg\" }", 1,
		     WANT("1:20: error: ", "[bad-string]"));
	check_errors("a non-ASCII character outside a string", "probe begin { x = 1 \303\251 }", 1,
		     WANT("1:21: error: ", "[bad-char]"));
	check_errors("'if' without parentheses", "probe begin { if x { } }", 1,
		     WANT("1:18: error: expected '('"));
	check_errors("a missing ')' in a call", "probe begin {\n  f(1\n}", 1,
		     WANT("3:1: error: expected ',' or ')' before '}'"));
	check_errors("an unclosed '(' in an expression", "probe begin { x = (1 + 2 }", 1,
		     WANT("1:26: error: expected ')'"));
	check_errors("a missing '}' before the next probe", "probe begin { x = 1\nprobe end { }", 1,
		     WANT("2:1: error: expected '}'"));
	check_errors("a missing script argument, later errors still reported",
		     "probe begin { x = $3 }\nprobe end { y = ) }", 2,
		     WANT("1:19: error: command line argument index 3 out of range [1-2]",
			  "2:17: error: ", "[syntax]"));
	check_errors("a missing string argument", "probe begin { x = @5 }", 1,
		     WANT("1:19: error: command line argument index 5 out of range [1-2]"));
	check_errors("an unknown '@name' suggests the closest", "probe begin { x = @cont(y) }", 1,
		     WANT("1:19: error: unknown macro or operator '@cont'", "'@count'?"));
	check_errors("a macro called with the wrong number of arguments",
		     "@define two(a, b) %( @a + @b %)\nprobe begin { x = @two(1) }", 1,
		     WANT("2:19: error: macro '@two' takes 2 arguments, not 1", "[wrong-arguments]"));
	check_errors("a macro that expands into itself",
		     "@define loop %( @loop %)\nprobe begin { x = @loop }", 1,
		     WANT("error: macro '@loop' expands into itself"));
	check_errors("an unclosed preprocessor conditional",
		     "%( kernel_v >= \"5.0\" %? probe begin { }", 1,
		     WANT("1:1: error: preprocessor conditional is not closed with '%)'"));
	check_errors("an unknown name in a preprocessor condition suggests the closest",
		     "%( kernel_vv >= \"5.0\" %? probe begin { } %)", 1,
		     WANT("1:4: error: unknown name 'kernel_vv' in a preprocessor condition",
			  "did you mean 'kernel_v'"));
	check_errors("a '%:' outside a conditional", "probe begin { } %:", 1,
		     WANT("1:17: error: '%:' outside a preprocessor conditional"));
	check_errors("an unknown type", "function f:int() { }", 1,
		     WANT("1:12: error: unknown type 'int'"));

	/* After an error, the rest of the file is still parsed. */
	struct parsed r = parse("probe begin { x = ) }\nprobe end { y = 1 }\nfunction f() { return 2 }\n"
				"global g");
	if (!tap_check(r.errors == 1 && strstr(r.text, "probe end") && strstr(r.text, "function f") &&
			   strstr(r.text, "global g"),
		   "declarations after an error are still parsed")) {
		detail("got:", r.text);
		show_parsed(&r);
	}
	parsed_free(&r);
	r = parse("probe begin { x = 1 + ; y = 2 }");
	if (!tap_check(r.errors == 1 && strstr(r.tree, "(expr (= y 2))"),
		   "statements after an error in the same block are still parsed")) {
		detail("got:", r.tree);
		show_parsed(&r);
	}
	parsed_free(&r);

	/* diag.c stops the run after DIAG_MAX_ERRORS errors. */
	struct strbuf b;
	sb_init(&b);
	sb_puts(&b, "probe begin {");
	for (int i = 0; i < DIAG_MAX_ERRORS + 5; i++)
		sb_puts(&b, " `");
	sb_puts(&b, " }");
	r = parse(b.s);
	int got = 0;
	for (const char *p = r.diags; (p = strstr(p, ": error: ")); p++)
		got++;
	if (!tap_check(r.status == 1 && got == DIAG_MAX_ERRORS && strstr(r.diags, "too many errors"),
		   "the run stops after %d errors", DIAG_MAX_ERRORS))
		show_parsed(&r);
	parsed_free(&r);
	sb_free(&b);
}

/* --- robustness: no input crashes the parser ----------------------------- */

static const char robust_src[] =
	"global g = 1, s = \"x\"\n"
	"function f:long(a:long, b) { if (a < 0) return -a; else return a + b }\n"
	"probe kernel.function(\"ksys_read\").return, timer.ms(100)? {\n"
	"\t/* comment */ for (i = 0; i < 3; i++) { s .= sprintf(\"%d\\n\", i) }\n"
	"\twhile (g) { g--; if (g == 2) break; else continue } # more\n"
	"\tx = g ? f(1, 2) : -~!g++ // end\n"
	"}\n";

static void test_robustness(void)
{
	size_t len = strlen(robust_src);
	size_t bad = 0;
	char *first = NULL;

	for (size_t n = 0; n <= len; n++) {
		char *prefix = xstrndup(robust_src, n);
		struct parsed r = parse(prefix);

		/* Errors are expected; a signal or a missing result is not. */
		if (r.status >= 128 || r.status > 1 || (r.status == 0 && r.errors < 0)) {
			if (!bad++)
				first = xasprintf("prefix of %zu bytes: exit %d, %d errors", n,
						  r.status, r.errors);
		}
		parsed_free(&r);
		free(prefix);
	}
	if (!tap_check(bad == 0, "no prefix of a script crashes the parser (%zu prefixes)", len + 1))
		printf("#   %zu failed, the first: %s\n", bad, first);
	free(first);

	/* Every byte value once, in a probe body. */
	bad = 0;
	for (int c = 1; c < 256; c++) {
		char src[64];

		snprintf(src, sizeof(src), "probe begin { x = 1 %c 2 }", c);
		struct parsed r = parse(src);
		if (r.status >= 128 || r.status > 1)
			bad++;
		parsed_free(&r);
	}
	tap_check(bad == 0, "no single byte in a body crashes the parser");
}

/* --- the golden parseok files round-trip too ----------------------------- */

static void test_parseok_files(void)
{
	glob_t g;
	char *pattern = xasprintf("%s/testsuite/parseok/*.stp", TAPLINE_SRCDIR);

	if (glob(pattern, 0, NULL, &g) != 0) {
		printf("# no files match %s\n", pattern);
		free(pattern);
		return;
	}
	for (size_t i = 0; i < g.gl_pathc; i++) {
		size_t len;
		char *text = read_file(g.gl_pathv[i], &len);
		const char *base = strrchr(g.gl_pathv[i], '/');

		if (!text) {
			tap_check(false, "read %s", g.gl_pathv[i]);
			continue;
		}
		check_round_trip(base ? base + 1 : g.gl_pathv[i], text);
		free(text);
	}
	globfree(&g);
	free(pattern);
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	for (size_t i = 0; i < ARRAY_SIZE(round_trip_inputs); i++) {
		/* Named by the input itself, on one line and shortened. */
		char what[72];

		snprintf(what, sizeof(what), "'%.60s%s'", round_trip_inputs[i],
			 strlen(round_trip_inputs[i]) > 60 ? "..." : "");
		for (char *c = what; *c; c++)
			if (*c == '\n')
				*c = ' ';
		check_round_trip(what, round_trip_inputs[i]);
	}
	test_precedence();
	test_statements();
	test_lexer();
	test_locations();
	test_errors();
	test_robustness();
	test_parseok_files();
	return tap_done();
}
