/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The script grammar: tokens to syntax tree (ast.h). Actions only build
 * nodes; every check that needs more than the rule itself happens in pass 2.
 *
 * Statements need no separator ("println(x) exit()"), so an expression
 * statement ends where the next token cannot continue it. Where a token
 * could do both ("x -y", "return (y)"), it continues the expression, as in
 * SystemTap: the LOWEST precedence below settles those cases explicitly.
 */
%define api.pure full
%define api.prefix {stp_}
%define api.location.type {struct loc}
%define parse.error custom
%locations
%expect 0
%param {void *scanner}
%parse-param {struct parse_state *ps}

%code requires {
#include <stdbool.h>

#include "front/ast.h"
#include "front/source.h"

/* The lexer's state (flex "extra" data). */
struct lex_state {
	int file, line, col;
	struct loc comment_start, str_start;
	struct strbuf str;
	/* After an unsupported construct was reported, the syntax errors it
	 * causes until the parser recovers are noise. */
	bool suppress_syntax_errors;
};

struct parse_state {
	void *scanner;
	struct lex_state *lex;
	struct ptrvec *decls;
};

#define YYLLOC_DEFAULT(cur, rhs, n) \
	do { (cur) = (n) ? YYRHSLOC(rhs, 1) : YYRHSLOC(rhs, 0); } while (0)
}

%code {
#include <string.h>

#include "front/diag.h"

int stp_lex(STP_STYPE *lval, STP_LTYPE *lloc, void *scanner);
static void stp_error(struct loc *loc, void *scanner, struct parse_state *ps, const char *msg);

static struct node *mk(enum node_kind kind, struct loc loc)
{
	return ast_new(kind, loc);
}

static struct node *mk_binary(enum op op, struct loc loc, struct node *l, struct node *r)
{
	struct node *n = ast_new(N_BINARY, loc);
	n->op = op;
	n->lhs = l;
	n->rhs = r;
	return n;
}

static struct node *mk_unary(enum node_kind kind, enum op op, struct loc loc, struct node *e)
{
	struct node *n = ast_new(kind, loc);
	n->op = op;
	n->lhs = e;
	return n;
}

static struct node *mk_assign(enum op op, struct loc loc, struct node *l, struct node *r)
{
	struct node *n = ast_new(N_ASSIGN, loc);
	n->op = op;
	n->lhs = l;
	n->rhs = r;
	return n;
}

static enum type type_named(const char *name, struct loc loc)
{
	if (!strcmp(name, "long"))
		return T_LONG;
	if (!strcmp(name, "string"))
		return T_STRING;
	diag_error(loc, D_SYNTAX, "unknown type '%s'", name);
	diag_hint("the types are 'long' and 'string'");
	return T_UNKNOWN;
}
}

%union {
	struct node *node;
	char *id;
	long long num;
	struct { char *s; size_t len; } str;
	enum op op;
	enum type type;
}

%token PROBE "'probe'" GLOBAL "'global'" FUNCTION "'function'"
%token IF "'if'" ELSE "'else'" WHILE "'while'" FOR "'for'"
%token BREAK "'break'" CONTINUE "'continue'" NEXT "'next'" RETURN "'return'"
%token <id> IDENT "identifier"
%token <id> TARGET_VAR "target variable"
%token <num> NUMBER "number"
%token <str> STRING "string"
%token EQ "'=='" NE "'!='" LE "'<='" GE "'>='" SHL "'<<'" SHR "'>>'"
%token AND "'&&'" OR "'||'" INC "'++'" DEC "'--'"
%token <op> OP_ASSIGN_TOK "compound assignment"
%token UNSUPPORTED "unsupported construct"

%type <node> decl probe_points probe_point pp_comps pp_comp pp_arg literal
%type <node> globals global params param_list param block stmts stmt
%type <node> opt_expr expr primary args arg_list
%type <id> pp_name
%type <type> opt_type

/* Lowest first. LOWEST marks rules that give way to a continuing token. */
%precedence LOWEST
%precedence IDENT NUMBER STRING TARGET_VAR UNSUPPORTED '(' '!' '~'
%precedence THEN
%precedence ELSE
%right '=' OP_ASSIGN_TOK
%right '?' ':'
%left OR
%left AND
%left '|'
%left '^'
%left '&'
%left EQ NE
%left '<' '>' LE GE
%left SHL SHR
%left '.'
%left '+' '-'
%left '*' '/' '%'
%precedence UNARY
%precedence INC DEC

%%

/* file -> { decl } */
file
	: %empty
	| file decl	{ if ($2) pv_push(ps->decls, $2); }
	| file globals	{ for (struct node *g = $2, *next; g; g = next) {
				next = g->next; g->next = NULL; pv_push(ps->decls, g); } }
	| file ';'
	| file error		{ ps->lex->suppress_syntax_errors = false; }
	;

/* decl -> PROBE probe_point { ',' probe_point } block
 *       | FUNCTION name [':' type] '(' params ')' block */
decl
	: PROBE probe_points block
		{ $$ = mk(N_PROBE, @1); $$->list = $2; $$->body = $3; }
	| FUNCTION IDENT opt_type '(' params ')' block
		{ $$ = mk(N_FUNCTION, @2); $$->name = $2; $$->decl_type = $3;
		  $$->list = $5; $$->body = $7; }
	| PROBE error block	{ $$ = NULL; ps->lex->suppress_syntax_errors = false; }
	| FUNCTION error block	{ $$ = NULL; ps->lex->suppress_syntax_errors = false; }
	;

/* globals -> GLOBAL global { ',' global } */
globals
	: GLOBAL global			{ $$ = $2; }
	| globals ',' global		{ $$ = ast_append($1, $3); }
	;

/* global -> name [ '=' literal ] */
global
	: IDENT			{ $$ = mk(N_GLOBAL, @1); $$->name = $1; }
	| IDENT '=' literal	{ $$ = mk(N_GLOBAL, @1); $$->name = $1; $$->lhs = $3; }
	| IDENT '[' error ']'
		{ diag_error(@2, D_UNSUPPORTED, "arrays are not supported by Tapline yet");
		  $$ = mk(N_GLOBAL, @1); $$->name = $1; }
	;

opt_type
	: %empty		{ $$ = T_UNKNOWN; }
	| ':' IDENT		{ $$ = type_named($2, @2); free($2); }
	;

params
	: %empty		{ $$ = NULL; }
	| param_list
	;

param_list
	: param
	| param_list ',' param	{ $$ = ast_append($1, $3); }
	;

param
	: IDENT opt_type	{ $$ = mk(N_PARAM, @1); $$->name = $1; $$->decl_type = $2; }
	;

/* probe_point -> component { '.' component } [ '?' ] */
probe_points
	: probe_point
	| probe_points ',' probe_point	{ $$ = ast_append($1, $3); }
	;

probe_point
	: pp_comps		{ $$ = mk(N_PROBE_POINT, @1); $$->list = $1; }
	| pp_comps '?'		{ $$ = mk(N_PROBE_POINT, @1); $$->list = $1; $$->optional = true; }
	;

pp_comps
	: pp_comp
	| pp_comps '.' pp_comp	{ $$ = ast_append($1, $3); }
	;

/* component -> name [ '(' literal ')' ] */
pp_comp
	: pp_name		{ $$ = mk(N_PP_COMP, @1); $$->name = $1; }
	| pp_name '(' pp_arg ')'
		{ $$ = mk(N_PP_COMP, @1); $$->name = $1; $$->lhs = $3; }
	;

pp_arg
	: literal
	;

/* Keywords are fine as probe point names: kernel.function("f").return */
pp_name
	: IDENT
	| FUNCTION		{ $$ = xstrdup("function"); }
	| RETURN		{ $$ = xstrdup("return"); }
	| NEXT			{ $$ = xstrdup("next"); }
	| GLOBAL		{ $$ = xstrdup("global"); }
	| '*'			{ $$ = xstrdup("*"); }
	;

literal
	: NUMBER		{ $$ = mk(N_NUM, @1); $$->num = $1; }
	| '-' NUMBER		{ $$ = mk(N_NUM, @1); $$->num = (long long)(0ULL - (unsigned long long)$2); }
	| STRING		{ $$ = mk(N_STR, @1); $$->str = $1.s; $$->str_len = $1.len; }
	;

/* block -> '{' { stmt } '}' */
block
	: '{' stmts '}'		{ $$ = mk(N_BLOCK, @1); $$->list = $2; }
	| '{' stmts error '}'
		{ $$ = mk(N_BLOCK, @1); $$->list = $2; ps->lex->suppress_syntax_errors = false; yyerrok; }
	;

stmts
	: %empty		{ $$ = NULL; }
	| stmts stmt		{ $$ = ast_append($1, $2); }
	;

stmt
	: block
	| ';'			{ $$ = mk(N_EMPTY, @1); }
	| expr %prec LOWEST	{ $$ = mk(N_EXPR_STMT, @1); $$->lhs = $1; }
	/* if -> IF '(' expr ')' stmt [ ELSE stmt ] */
	| IF '(' expr ')' stmt %prec THEN
		{ $$ = mk(N_IF, @1); $$->cond = $3; $$->then = $5; }
	| IF '(' expr ')' stmt ELSE stmt
		{ $$ = mk(N_IF, @1); $$->cond = $3; $$->then = $5; $$->els = $7; }
	/* while -> WHILE '(' expr ')' stmt */
	| WHILE '(' expr ')' stmt
		{ $$ = mk(N_WHILE, @1); $$->cond = $3; $$->body = $5; }
	/* for -> FOR '(' [expr] ';' [expr] ';' [expr] ')' stmt */
	| FOR '(' opt_expr ';' opt_expr ';' opt_expr ')' stmt
		{ $$ = mk(N_FOR, @1);
		  if ($3) { $$->init = mk(N_EXPR_STMT, $3->loc); $$->init->lhs = $3; }
		  $$->cond = $5; $$->step = $7; $$->body = $9; }
	| BREAK			{ $$ = mk(N_BREAK, @1); }
	| CONTINUE		{ $$ = mk(N_CONTINUE, @1); }
	| NEXT			{ $$ = mk(N_NEXT, @1); }
	| RETURN %prec LOWEST	{ $$ = mk(N_RETURN, @1); }
	| RETURN expr %prec LOWEST	{ $$ = mk(N_RETURN, @1); $$->lhs = $2; }
	| error ';'		{ $$ = mk(N_EMPTY, @1); ps->lex->suppress_syntax_errors = false; yyerrok; }
	;

opt_expr
	: %empty		{ $$ = NULL; }
	| expr
	;

expr
	: expr '=' expr			{ $$ = mk_assign(OP_ASSIGN, @2, $1, $3); }
	| expr OP_ASSIGN_TOK expr	{ $$ = mk_assign($2, @2, $1, $3); }
	| expr '?' expr ':' expr
		{ $$ = mk(N_TERNARY, @2); $$->cond = $1; $$->then = $3; $$->els = $5; }
	| expr OR expr		{ $$ = mk_binary(OP_OR, @2, $1, $3); }
	| expr AND expr		{ $$ = mk_binary(OP_AND, @2, $1, $3); }
	| expr '|' expr		{ $$ = mk_binary(OP_BITOR, @2, $1, $3); }
	| expr '^' expr		{ $$ = mk_binary(OP_BITXOR, @2, $1, $3); }
	| expr '&' expr		{ $$ = mk_binary(OP_BITAND, @2, $1, $3); }
	| expr EQ expr		{ $$ = mk_binary(OP_EQ, @2, $1, $3); }
	| expr NE expr		{ $$ = mk_binary(OP_NE, @2, $1, $3); }
	| expr '<' expr		{ $$ = mk_binary(OP_LT, @2, $1, $3); }
	| expr '>' expr		{ $$ = mk_binary(OP_GT, @2, $1, $3); }
	| expr LE expr		{ $$ = mk_binary(OP_LE, @2, $1, $3); }
	| expr GE expr		{ $$ = mk_binary(OP_GE, @2, $1, $3); }
	| expr SHL expr		{ $$ = mk_binary(OP_SHL, @2, $1, $3); }
	| expr SHR expr		{ $$ = mk_binary(OP_SHR, @2, $1, $3); }
	| expr '.' expr		{ $$ = mk_binary(OP_CONCAT, @2, $1, $3); }
	| expr '+' expr		{ $$ = mk_binary(OP_ADD, @2, $1, $3); }
	| expr '-' expr		{ $$ = mk_binary(OP_SUB, @2, $1, $3); }
	| expr '*' expr		{ $$ = mk_binary(OP_MUL, @2, $1, $3); }
	| expr '/' expr		{ $$ = mk_binary(OP_DIV, @2, $1, $3); }
	| expr '%' expr		{ $$ = mk_binary(OP_MOD, @2, $1, $3); }
	| '-' expr %prec UNARY	{ $$ = mk_unary(N_UNARY, OP_NEG, @1, $2); }
	| '+' expr %prec UNARY	{ $$ = mk_unary(N_UNARY, OP_PLUS, @1, $2); }
	| '!' expr %prec UNARY	{ $$ = mk_unary(N_UNARY, OP_NOT, @1, $2); }
	| '~' expr %prec UNARY	{ $$ = mk_unary(N_UNARY, OP_BITNOT, @1, $2); }
	| INC expr %prec UNARY	{ $$ = mk_unary(N_INCDEC, OP_INC, @1, $2); }
	| DEC expr %prec UNARY	{ $$ = mk_unary(N_INCDEC, OP_DEC, @1, $2); }
	| expr INC		{ $$ = mk_unary(N_INCDEC, OP_INC, @2, $1); $$->postfix = true; }
	| expr DEC		{ $$ = mk_unary(N_INCDEC, OP_DEC, @2, $1); $$->postfix = true; }
	| primary
	;

/* primary -> number | string | name | name '(' args ')' | '$'name | '(' expr ')' */
primary
	: NUMBER		{ $$ = mk(N_NUM, @1); $$->num = $1; }
	| STRING		{ $$ = mk(N_STR, @1); $$->str = $1.s; $$->str_len = $1.len; }
	| IDENT %prec LOWEST	{ $$ = mk(N_VAR, @1); $$->name = $1; }
	| IDENT '(' args ')'	{ $$ = mk(N_CALL, @1); $$->name = $1; $$->list = $3; }
	| IDENT '[' args ']'
		{ diag_error(@2, D_UNSUPPORTED, "arrays are not supported by Tapline yet");
		  $$ = mk(N_VAR, @1); $$->name = $1; }
	| TARGET_VAR		{ $$ = mk(N_TARGET, @1); $$->name = $1; }
	| '(' expr ')'		{ $$ = $2; }
	| UNSUPPORTED		{ $$ = mk(N_NUM, @1); }
	;

args
	: %empty		{ $$ = NULL; }
	| arg_list
	;

arg_list
	: expr
	| arg_list ',' expr	{ $$ = ast_append($1, $3); }
	;

%%

/* "expected ';' or '}' before 'x'": what the grammar could take, and what it got. */
static int yyreport_syntax_error(const yypcontext_t *ctx, void *scanner, struct parse_state *ps)
{
	(void)scanner;
	if (ps->lex->suppress_syntax_errors)
		return 0;
	enum { MAX_EXPECTED = 5 };
	yysymbol_kind_t expected[MAX_EXPECTED];
	int n = yypcontext_expected_tokens(ctx, expected, MAX_EXPECTED);
	yysymbol_kind_t got = yypcontext_token(ctx);
	struct strbuf b;
	sb_init(&b);
	bool want_expr = false;
	for (int i = 0; i < n && i < MAX_EXPECTED; i++)
		want_expr |= expected[i] == YYSYMBOL_NUMBER || expected[i] == YYSYMBOL_IDENT;
	if (n == 0 && got != YYSYMBOL_YYEOF) {
		/* More alternatives than fit: an operand is the usual one. */
		yysymbol_kind_t all[YYNTOKENS];
		int k = yypcontext_expected_tokens(ctx, all, YYNTOKENS);
		for (int i = 0; i < k; i++)
			want_expr |= all[i] == YYSYMBOL_NUMBER;
	}
	if (want_expr && (n == 0 || n >= MAX_EXPECTED)) {
		sb_puts(&b, got == YYSYMBOL_YYEOF ? "expected an expression at the end of the file"
						  : "expected an expression before ");
	} else if (n > 0 && n < MAX_EXPECTED) {
		sb_puts(&b, "expected ");
		for (int i = 0; i < n; i++) {
			if (i)
				sb_puts(&b, i == n - 1 ? " or " : ", ");
			sb_puts(&b, yysymbol_name(expected[i]));
		}
		sb_puts(&b, got == YYSYMBOL_YYEOF ? " at the end of the file" : " before ");
	} else {
		sb_puts(&b, got == YYSYMBOL_YYEOF ? "unexpected end of the file" : "unexpected ");
	}
	if (got != YYSYMBOL_YYEOF)
		sb_puts(&b, yysymbol_name(got));
	diag_error(*yypcontext_location(ctx), D_SYNTAX, "%s", b.s);
	sb_free(&b);
	return 0;
}

static void stp_error(struct loc *loc, void *scanner, struct parse_state *ps, const char *msg)
{
	(void)scanner;
	(void)ps;
	diag_error(*loc, D_SYNTAX, "%s", msg);
}
