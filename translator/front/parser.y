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
	struct loc comment_start, str_start, region_start;
	int region_depth;
	struct strbuf str;
	int braces, parens;    /* nesting so far, for error recovery */
	bool skipping;         /* recovering: pass only tokens to resync on */
	int skip_braces;
	/* After an unsupported construct, the rest of its line is quiet: the
	 * syntax errors it causes are noise. */
	int quiet_line;
	bool quiet_to_eof;     /* an unclosed comment or string was reported */
};

void lex_report_unsupported(struct lex_state *ls, struct loc loc, const char *what);
bool lex_quiet_at(const struct lex_state *ls, struct loc loc);
void lex_start_recovery(struct lex_state *ls);
void lex_end_recovery(struct lex_state *ls);

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

/* Later passes walk expressions recursively: refuse absurd nesting here. */
#define MAX_EXPR_DEPTH 1000

static struct node *deep_check(struct node *n, struct node *a, struct node *b)
{
	static bool reported;
	n->depth = 1 + (a ? a->depth : 0);
	if (b && b->depth + 1 > n->depth)
		n->depth = b->depth + 1;
	if (n->depth > MAX_EXPR_DEPTH && !reported) {
		reported = true;
		diag_error(n->loc, D_TOO_DEEP, "expression nests more than %d operators deep",
			   MAX_EXPR_DEPTH);
	}
	return n;
}

static struct node *mk_binary(enum op op, struct loc loc, struct node *l, struct node *r)
{
	struct node *n = ast_new(N_BINARY, loc);
	n->op = op;
	n->lhs = l;
	n->rhs = r;
	return deep_check(n, l, r);
}

static struct node *mk_unary(enum node_kind kind, enum op op, struct loc loc, struct node *e)
{
	struct node *n = ast_new(kind, loc);
	n->op = op;
	n->lhs = e;
	return deep_check(n, e, NULL);
}

static struct node *mk_assign(enum op op, struct loc loc, struct node *l, struct node *r)
{
	struct node *n = ast_new(N_ASSIGN, loc);
	n->op = op;
	n->lhs = l;
	n->rhs = r;
	return deep_check(n, l, r);
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
%token MATCH "'=~'" NOMATCH "'!~'"
%token <op> OP_ASSIGN_TOK "compound assignment"
%token UNSUPPORTED "unsupported construct"

%type <node> decl probe_points probe_point pp_comps pp_comp pp_arg literal
%type <node> globals global params param_list param block stmts stmt
%type <node> opt_expr expr primary args arg_list
%type <id> pp_name
%type <type> opt_type

/* Lowest first. LOWEST marks rules that give way to a continuing token. */
%precedence LOWEST
%precedence IDENT NUMBER STRING TARGET_VAR UNSUPPORTED '(' '!' '~' ';'
%precedence THEN
%precedence ELSE
%right '=' OP_ASSIGN_TOK
%right '?' ':'
%left OR
%left AND
%left '|'
%left '^'
%left '&'
/* All comparisons share one level, as in SystemTap (not C). */
%left EQ NE '<' '>' LE GE MATCH NOMATCH
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
	| file error		{ lex_end_recovery(ps->lex); }
	| file UNSUPPORTED	/* %{ ... %} or %( ... %): reported by the lexer */
	;

/* decl -> PROBE probe_point { ',' probe_point } block
 *       | FUNCTION name [':' type] '(' params ')' block */
decl
	: PROBE probe_points block
		{ $$ = mk(N_PROBE, @1); $$->list = $2; $$->body = $3; }
	| FUNCTION IDENT opt_type '(' params ')' block
		{ $$ = mk(N_FUNCTION, @2); $$->name = $2; $$->decl_type = $3;
		  $$->list = $5; $$->body = $7; }
	| FUNCTION IDENT opt_type '(' params ')' UNSUPPORTED
		{ $$ = NULL; free($2); }
	| PROBE error block	{ $$ = NULL; lex_end_recovery(ps->lex); }
	| FUNCTION error block	{ $$ = NULL; lex_end_recovery(ps->lex); }
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
	| IDENT '[' ']'
		{ lex_report_unsupported(ps->lex, @2, "arrays");
		  $$ = mk(N_GLOBAL, @1); $$->name = $1; }
	| IDENT '[' NUMBER ']'
		{ lex_report_unsupported(ps->lex, @2, "arrays");
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
		{ $$ = mk(N_BLOCK, @1); $$->list = $2; lex_end_recovery(ps->lex); yyerrok; }
	;

stmts
	: %empty		{ $$ = NULL; }
	| stmts stmt		{ $$ = ast_append($1, $2); }
	;

stmt
	: block
	| ';'			{ $$ = mk(N_EMPTY, @1); }
	| expr %prec LOWEST	{ $$ = mk(N_EXPR_STMT, @1); $$->lhs = $1; }
	| expr ';'		{ $$ = mk(N_EXPR_STMT, @1); $$->lhs = $1; }
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
		  if ($3) { $$->init = mk(N_EXPR_STMT, @3); $$->init->lhs = $3; }
		  $$->cond = $5; $$->step = $7; $$->body = $9; }
	/* A ';' after a simple statement belongs to it, so "if (c) x = 1; else ..." parses. */
	| BREAK opt_semi	{ $$ = mk(N_BREAK, @1); }
	| CONTINUE opt_semi	{ $$ = mk(N_CONTINUE, @1); }
	| NEXT opt_semi		{ $$ = mk(N_NEXT, @1); }
	| RETURN opt_semi	{ $$ = mk(N_RETURN, @1); }
	| RETURN expr %prec LOWEST	{ $$ = mk(N_RETURN, @1); $$->lhs = $2; }
	| RETURN expr ';'	{ $$ = mk(N_RETURN, @1); $$->lhs = $2; }
	| error ';'		{ $$ = mk(N_EMPTY, @1); lex_end_recovery(ps->lex); yyerrok; }
	;

opt_semi
	: %empty %prec LOWEST
	| ';'
	;
	;

opt_expr
	: %empty		{ $$ = NULL; }
	| expr
	;

expr
	: expr '=' expr			{ $$ = mk_assign(OP_ASSIGN, @2, $1, $3); }
	| expr OP_ASSIGN_TOK expr	{ $$ = mk_assign($2, @2, $1, $3); }
	| expr '?' expr ':' expr
		{ $$ = mk(N_TERNARY, @2); $$->cond = $1; $$->then = $3; $$->els = $5;
		  deep_check(deep_check($$, $1, $3), $$, $5); }
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
	| expr MATCH expr	{ $$ = mk_binary(OP_MATCH, @2, $1, $3); }
	| expr NOMATCH expr	{ $$ = mk_binary(OP_NOMATCH, @2, $1, $3); }
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
		{ lex_report_unsupported(ps->lex, @2, "arrays");
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

static bool has_token(const yysymbol_kind_t *toks, int n, yysymbol_kind_t t)
{
	for (int i = 0; i < n; i++)
		if (toks[i] == t)
			return true;
	return false;
}

/* Character tokens have no symbol names of their own; find them by spelling. */
static bool has_char_token(const yysymbol_kind_t *toks, int n, const char *spelling)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(yysymbol_name(toks[i]), spelling))
			return true;
	return false;
}

/*
 * "expected ')' before '}'": what the grammar could take, and what it got.
 * When many tokens could follow, name the useful ones: a closing bracket
 * that is missing, "an expression" when an operand is missing, and the
 * '}' of a block that runs into the next declaration.
 */
static int yyreport_syntax_error(const yypcontext_t *ctx, void *scanner, struct parse_state *ps)
{
	(void)scanner;
	lex_start_recovery(ps->lex);
	if (lex_quiet_at(ps->lex, *yypcontext_location(ctx)))
		return 0;
	yysymbol_kind_t toks[YYNTOKENS];
	int n = yypcontext_expected_tokens(ctx, toks, YYNTOKENS);
	yysymbol_kind_t got = yypcontext_token(ctx);
	bool operand = has_token(toks, n, YYSYMBOL_NUMBER);
	bool close_block = has_char_token(toks, n, "'}'");
	bool declaration = got == YYSYMBOL_PROBE || got == YYSYMBOL_FUNCTION || got == YYSYMBOL_GLOBAL;
	static const char *const closers[] = { "')'", "']'" };
	struct strbuf b;
	sb_init(&b);
	if (close_block && declaration) {
		sb_puts(&b, "expected '}' before ");
	} else if (n > 0 && n <= 4) {
		sb_puts(&b, "expected ");
		for (int i = 0; i < n; i++) {
			if (i)
				sb_puts(&b, i == n - 1 ? " or " : ", ");
			sb_puts(&b, yysymbol_name(toks[i]));
		}
		sb_puts(&b, got == YYSYMBOL_YYEOF ? " at the end of the file" : " before ");
	} else if (operand && !close_block) {
		sb_puts(&b, got == YYSYMBOL_YYEOF ? "expected an expression at the end of the file"
						  : "expected an expression before ");
	} else {
		const char *closer = NULL;
		for (size_t i = 0; i < sizeof closers / sizeof closers[0]; i++)
			if (has_char_token(toks, n, closers[i]) && !closer)
				closer = closers[i];
		if (closer && !operand)
			sb_printf(&b, "expected %s%s", closer,
				  got == YYSYMBOL_YYEOF ? " at the end of the file" : " before ");
		else if (close_block)
			sb_puts(&b, got == YYSYMBOL_YYEOF ? "expected '}' at the end of the file"
							  : "expected a statement or '}' before ");
		else
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
	if (!strcmp(msg, "memory exhausted"))
		diag_error(*loc, D_TOO_DEEP, "the script nests too deeply for the parser");
	else
		diag_error(*loc, D_SYNTAX, "%s", msg);
}
