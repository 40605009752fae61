/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The script grammar: tokens (after preproc.c) to syntax tree (ast.h).
 * Actions only build nodes; every check that needs more than the rule
 * itself happens in pass 2.
 *
 * Statements need no separator ("println(x) exit()"), so an expression
 * statement ends where the next token cannot continue it. Where a token
 * could do both ("x -y", "return (y)", "a [k] in m"), it continues the
 * expression, as in SystemTap: the LOWEST precedence below settles those
 * cases explicitly.
 */
%define api.pure full
%define api.prefix {stp_}
%define api.location.type {struct loc}
%define parse.error custom
%locations
%expect 0
%param {struct parse_state *ps}

%code requires {
#include <stdbool.h>

#include "front/ast.h"
#include "front/source.h"

/* The lexer's state (flex "extra" data). */
struct lex_state {
	int file, line, col;
	struct loc comment_start, str_start, region_start;
	struct strbuf str;
	bool quiet_to_eof;     /* an unclosed comment or string was reported */
	struct loc bad_token;  /* the last token already reported (a malformed number) */
	char swallowed[4];     /* closers ('}', ')', ']') an unclosed string took */
};

struct pp;

/* The parser's state: the token source and the error recovery. */
struct parse_state {
	struct pp *pp;
	struct ptrvec *decls;
	int braces, parens;    /* nesting so far, for error recovery */
	struct loc open_brace[32]; /* where each open block began, innermost last */
	bool skipping;         /* recovering: pass only tokens to resync on */
	int skip_braces;
	int quiet_line;        /* after an unsupported construct, its line is quiet */
	int quiet_file;
	bool no_autocast;      /* a user script under --compatible older than 2.6 */
};

void parse_report_unsupported(struct parse_state *ps, struct loc loc, const char *what);

#define YYLLOC_DEFAULT(cur, rhs, n) \
	do { (cur) = (n) ? YYRHSLOC(rhs, 1) : YYRHSLOC(rhs, 0); } while (0)
}

%code {
#include <ctype.h>
#include <limits.h>
#include <string.h>

#include "front/diag.h"
#include "front/front.h"
#include "front/preproc.h"

int stp_lex(STP_STYPE *lval, STP_LTYPE *lloc, struct parse_state *ps);
static void stp_error(struct loc *loc, struct parse_state *ps, const char *msg);
static void lex_start_recovery(struct parse_state *ps, bool at_open_brace);
static void lex_end_recovery(struct parse_state *ps);
static bool lex_quiet_at(const struct parse_state *ps, struct loc loc);

static struct node *mk(enum node_kind kind, struct loc loc)
{
	return ast_new(kind, loc);
}

/* Later passes walk expressions recursively: refuse absurd nesting here. */
#define MAX_EXPR_DEPTH 1000
/* Reported once per file: every operator above the limit is too deep too. */
static bool too_deep_reported;

static struct node *deep_check(struct node *n, struct node *a, struct node *b)
{
	n->depth = 1 + (a ? a->depth : 0);
	if (b && b->depth + 1 > n->depth)
		n->depth = b->depth + 1;
	if (n->depth > MAX_EXPR_DEPTH && !too_deep_reported) {
		too_deep_reported = true;
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

static struct node *mk_str(struct loc loc, char *s, size_t len)
{
	struct node *n = ast_new(N_STR, loc);
	n->str = s;
	n->str_len = len;
	return n;
}

/* Adjacent string literals are one ("a" "b" is "ab"), as in C. */
static struct node *glue(struct node *a, char *s, size_t len)
{
	a->str = xrealloc(a->str, a->str_len + len + 1);
	memcpy(a->str + a->str_len, s, len + 1);
	a->str_len += len;
	free(s);
	return a;
}

/*
 * A probe point component's name from pieces ("sys", "*") written together.
 * Pieces apart are two things ("probe begin end" misses a ','), as in
 * SystemTap. NAME started at LOC (all on one line: it has no spaces); a
 * piece of the same macro expansion or script argument has its location.
 */
static bool join(struct parse_state *ps, char **name, struct loc loc, const char *piece,
		 struct loc at, const char *what)
{
	bool adjacent = at.file == loc.file && at.line == loc.line &&
			(at.col == loc.col + (int)strlen(*name) || at.col == loc.col);
	if (!adjacent) {
		diag_error(at, D_SYNTAX, "expected ',' or '{' before %s", what);
		lex_start_recovery(ps, false);
		return false;
	}
	char *s = xasprintf("%s%s", *name, piece);
	free(*name);
	*name = s;
	return true;
}

static struct node *clone_list(const struct node *list)
{
	struct node *head = NULL;
	for (const struct node *c = list; c; c = c->next)
		head = ast_append(head, ast_clone(c));
	return head;
}

/*
 * Brace groups ("kernel.function("f").{call, return}") stand for several
 * probe points: each one of PREFIXES followed by each one of SUFFIXES. A
 * '?', '!' or condition may only end a whole probe point.
 */
static struct node *pp_product(struct node *prefixes, struct node *suffixes)
{
	struct node *out = NULL;
	for (struct node *p = prefixes; p; p = p->next) {
		struct node *last = p->list->tail ? p->list->tail : p->list;
		if (p->optional || p->sufficient || p->cond)
			diag_error(last->loc, D_SYNTAX,
				   "'?', '!' and 'if' go after the last component of a probe point");
		for (struct node *s = suffixes; s; s = s->next) {
			struct node *pp = mk(N_PROBE_POINT, p->loc);
			pp->list = ast_append(clone_list(p->list), clone_list(s->list));
			pp->optional = s->optional;
			pp->sufficient = s->sufficient;
			pp->cond = ast_clone(s->cond);
			out = ast_append(out, pp);
		}
	}
	return out;
}

/* FLAGS ('?' 1, '!' 2) and COND end each of the probe points POINTS. */
static struct node *pp_finish(struct node *points, int flags, struct node *cond)
{
	for (struct node *p = points; p; p = p->next) {
		if ((flags && (p->optional || p->sufficient)) || (cond && p->cond))
			diag_error(p->loc, D_SYNTAX, "'%s' is given twice for one probe point",
				   cond && p->cond ? "if" : p->optional ? "?" : "!");
		p->optional |= (flags & 1) != 0;
		p->sufficient |= (flags & 2) != 0;
		if (cond)
			p->cond = p == points ? cond : ast_clone(cond);
	}
	return points;
}

/* An alias is named by one plain probe point. */
static struct node *alias_name(struct node *points)
{
	if (points->next)
		diag_error(points->loc, D_SYNTAX, "an alias has one name, not a group in braces");
	else if (points->optional || points->sufficient)
		diag_error(points->loc, D_SYNTAX, "an alias name cannot be optional ('?') or "
						  "sufficient ('!')");
	else if (points->cond)
		diag_error(points->loc, D_SYNTAX, "an alias name cannot have a condition");
	return points;
}

static struct node *mk_foreach_key(struct loc loc, char *name, int sort)
{
	struct node *n = ast_new(N_VAR, loc);
	n->name = name;
	n->sort = sort;
	return n;
}

/* An expression that names a target variable or a cast, with its members. */
static struct node *with_members(struct node *n, struct node *members, int pretty)
{
	n->list = members;
	n->pretty = pretty;
	return n;
}

static bool is_target_kind(const struct node *n)
{
	return n->kind == N_TARGET || n->kind == N_CAST || n->kind == N_ATVAR ||
	       n->kind == N_AUTOCAST;
}

/* Autocast came with SystemTap 2.6: under an older --compatible, members
 * (and '&', '$', '$$') belong to target variables and @cast only. */
static void autocast_allowed(struct parse_state *ps, YYLTYPE at)
{
	if (ps->no_autocast)
		diag_error(at, D_SYNTAX, "members of a value that is no target variable or @cast "
			   "(autocast) came with SystemTap 2.6: --compatible asks for an older language");
}

/* '&' before an operand: a target's (or an autocast's) address; of any
 * other value, an autocast with no members, which sema judges. */
static struct node *address_of(struct parse_state *ps, struct node *e, YYLTYPE at)
{
	if (!is_target_kind(e) || e->addr_of || (e->kind == N_AUTOCAST && !e->list)) {
		autocast_allowed(ps, at);
		struct node *a = mk(N_AUTOCAST, at);
		a->lhs = e;
		e = a;
	}
	e->addr_of = true;
	e->loc = at;
	return e;
}

/* @hist_linear(s, ...) or @hist_log(s). */
static struct node *mk_hist(enum agg agg, struct node *operand, struct node *args, YYLTYPE at)
{
	struct node *h = mk(N_HIST, at);
	h->agg = agg;
	h->lhs = operand;
	h->list = args;
	return h;
}

/* "KEY in @hist_log(s)": the bucket's count, as "@hist_log(s)[KEY]" is. */
static struct node *hist_in(struct node *keys, YYLTYPE at, struct node *hist)
{
	struct node *n = mk(N_INDEX, at);
	n->lhs = hist;
	n->list = keys;
	if (keys && keys->next)
		diag_error(keys->next->loc, D_SYNTAX, "a histogram has one index, its bucket");
	return n;
}

/* '$' or '$$' after an operand that is no target: all of what it points
 * to, printed (an autocast with no members). */
static struct node *pretty_of(struct parse_state *ps, struct node *e, int pretty, YYLTYPE at)
{
	autocast_allowed(ps, at);
	struct node *a = mk(N_AUTOCAST, at);
	a->lhs = e;
	a->pretty = pretty;
	return a;
}
}

%union {
	struct node *node;
	char *id;
	const char *kw;        /* a keyword's spelling */
	long long num;
	struct { char *s; size_t len; } str;
	struct { char *name; int pretty; } target;
	enum op op;
	enum agg agg;
	enum type type;
	int flags;
}

%token <kw> PROBE "'probe'" GLOBAL "'global'" FUNCTION "'function'" PRIVATE "'private'"
%token <kw> IF "'if'" ELSE "'else'" WHILE "'while'" FOR "'for'" FOREACH "'foreach'" IN "'in'"
%token <kw> BREAK "'break'" CONTINUE "'continue'" NEXT "'next'" RETURN "'return'"
%token <kw> DELETE "'delete'" TRY "'try'" CATCH "'catch'" LIMIT "'limit'"
%token <kw> KW_STRING "'string'" KW_LONG "'long'"
%token <id> IDENT "identifier"
%token <target> TARGET_VAR "target variable"
%token <num> NUMBER "number"
%token <str> STRING "string"
%token <str> EMBEDDED_C "embedded C"
%token EQ "'=='" NE "'!='" LE "'<='" GE "'>='" SHL "'<<'" SHR "'>>'" USHR "'>>>'"
%token AND "'&&'" OR "'||'" INC "'++'" DEC "'--'" ARROW "'->'" AGG "'<<<'"
%token MATCH "'=~'" NOMATCH "'!~'"
%token PRETTY1 "'$'" PRETTY2 "'$$'"
%token <op> OP_ASSIGN_TOK "compound assignment"
%token <agg> STAT_OP "statistic (@count, @sum, ...)" HIST_OP "histogram (@hist_linear, @hist_log)"
%token AT_ENTRY "'@entry'" AT_DEFINED "'@defined'" AT_CONST "'@const'" AT_CAST "'@cast'"
%token AT_VAR "'@var'" AT_PROBEWRITE "'@probewrite'"
%token UNSUPPORTED "unsupported construct"
/* Consumed by preproc.c: the grammar never sees them. */
%token PP_OPEN "'%('" PP_THEN "'%?'" PP_ELSE "'%:'" PP_CLOSE "'%)'"
%token <id> AT_ID "'@name'"
%token <num> ARG_NUM "'$N'" ARG_STR "'@N'"
%token ARG_COUNT "'$#'" ARG_COUNT_STR "'@#'"

%type <node> decl alias probe_points probe_point pp_comps pp_comp pp_arg literal
%type <node> globals global global_shape params param_list param fbody block stmts stmt
%type <node> opt_expr expr primary args arg_list keys key string_lit
%type <node> foreach_keys foreach_key_list foreach_key foreach_source opt_limit
%type <node> members member target postfix opt_module stat_operand opt_hist_args
%type <id> pp_name
%type <kw> keyword keyword_not_if
%type <type> opt_type
%type <num> opt_sort sort array_size
%type <flags> pp_flags opt_pretty

/* Lowest first. LOWEST marks rules that give way to a continuing token. */
%precedence LOWEST
%precedence IDENT NUMBER STRING TARGET_VAR UNSUPPORTED EMBEDDED_C STAT_OP HIST_OP
%precedence AT_ENTRY AT_DEFINED AT_CONST AT_CAST AT_VAR AT_PROBEWRITE '(' '[' '!' '~' ';'
%precedence ARROW PRETTY1 PRETTY2
%precedence THEN
%precedence ELSE
%right '=' OP_ASSIGN_TOK AGG
%right '?' ':'
%left OR
%left AND
%left '|'
%left '^'
%left '&'
%precedence IN
/* All comparisons share one level, as in SystemTap (not C). */
%left EQ NE '<' '>' LE GE MATCH NOMATCH
%left SHL SHR USHR
%left '.'
%left '+' '-'
%left '*' '/' '%'
%precedence UNARY
%precedence INC DEC

%%

/* file -> { decl | globals | embedded-C } */
file
	: %empty
	| file decl	{ if ($2) pv_push(ps->decls, $2); }
	| file globals	{ for (struct node *g = $2, *next; g; g = next) {
				next = g->next; g->next = NULL; g->tail = NULL; pv_push(ps->decls, g); } }
	| file EMBEDDED_C
		{ struct node *e = mk(N_EMBEDDED, @2); e->str = $2.s; e->str_len = $2.len;
		  pv_push(ps->decls, e); }
	| file ';'
	| file error		{ lex_end_recovery(ps); }
	| file UNSUPPORTED	/* reported by the preprocessor */
	;

/* decl -> PROBE probe_point { ',' probe_point } block
 *       | alias
 *       | [PRIVATE] FUNCTION name [':' type] params (block | embedded-C) */
decl
	: PROBE probe_points block
		{ $$ = mk(N_PROBE, @1); $$->list = $2; $$->body = $3; }
	| alias
	| FUNCTION IDENT opt_type params fbody
		{ $$ = mk(N_FUNCTION, @2); $$->name = $2; $$->decl_type = $3;
		  $$->list = $4; $$->body = $5; }
	| PRIVATE FUNCTION IDENT opt_type params fbody
		{ $$ = mk(N_FUNCTION, @3); $$->name = $3; $$->decl_type = $4;
		  $$->list = $5; $$->body = $6; $$->is_private = true; }
	| PROBE error block	{ $$ = NULL; lex_end_recovery(ps); }
	| FUNCTION error block	{ $$ = NULL; lex_end_recovery(ps); }
	;

/* alias -> PROBE name '=' probe_points block [',' block]
 *        | PROBE name '+=' probe_points block */
alias
	: PROBE probe_point '=' probe_points block
		{ $$ = mk(N_ALIAS, @1); $$->then = alias_name($2); $$->list = $4; $$->body = $5; }
	| PROBE probe_point '=' probe_points block ',' block
		{ $$ = mk(N_ALIAS, @1); $$->then = alias_name($2); $$->list = $4; $$->body = $5;
		  $$->els = $7; }
	| PROBE probe_point OP_ASSIGN_TOK probe_points block
		{ $$ = mk(N_ALIAS, @1); $$->then = alias_name($2); $$->list = $4; $$->els = $5;
		  if ($3 != OP_ADD) {
			diag_error(@3, D_SYNTAX, "an alias is defined with '=' or '+=', not '%s='",
				   ast_op_name($3));
		  } }
	;

fbody
	: block
	| EMBEDDED_C	{ $$ = mk(N_EMBEDDED, @1); $$->str = $1.s; $$->str_len = $1.len; }
	;

/* globals -> [PRIVATE] GLOBAL global { ',' global } | PRIVATE global { ',' global } */
globals
	: GLOBAL global			{ $$ = $2; }
	| PRIVATE GLOBAL global		{ $$ = $3; $$->is_private = true; }
	| PRIVATE global		{ $$ = $2; $$->is_private = true; }
	| globals ',' global		{ $$ = ast_append($1, $3); $3->is_private = $1->is_private; }
	;

/* global -> name [ '%' ] [ '[' [size] ']' ] [ '=' literal ] */
global
	: IDENT global_shape	{ $$ = $2; $$->loc = @1; $$->name = $1; }
	| IDENT global_shape '=' literal
		{ $$ = $2; $$->loc = @1; $$->name = $1;
		  if ($$->is_array)
			diag_error(@3, D_SYNTAX,
				   "only scalar globals can be initialized, not the array '%s'", $1);
		  else
			$$->lhs = $4; }
	;

global_shape
	: %empty		{ $$ = mk(N_GLOBAL, @$); }
	| array_size		{ $$ = mk(N_GLOBAL, @1); $$->is_array = true; $$->num = $1; }
	| '%'			{ $$ = mk(N_GLOBAL, @1); $$->is_array = true; $$->wrap = true; }
	| '%' array_size
		{ $$ = mk(N_GLOBAL, @1); $$->is_array = true; $$->wrap = true; $$->num = $2; }
	;

/* The runtime counts an array's entries in an int. */
array_size
	: '[' ']'		{ $$ = 0; }
	| '[' NUMBER ']'
		{ $$ = $2;
		  if ($2 <= 0)
			diag_error(@2, D_BAD_NUMBER, "an array size must be positive");
		  else if ($2 > INT_MAX)
			diag_error(@2, D_BAD_NUMBER, "array size %lld is out of range: at most %d",
				   $2, INT_MAX); }
	;

opt_type
	: %empty		{ $$ = T_UNKNOWN; }
	| ':' KW_LONG		{ $$ = T_LONG; }
	| ':' KW_STRING		{ $$ = T_STRING; }
	| ':' IDENT
		{ $$ = T_UNKNOWN; diag_error(@2, D_SYNTAX, "unknown type '%s'", $2);
		  diag_hint("the types are 'long' and 'string'"); free($2); }
	;

/* The parentheses belong here: an error after a parameter then expects
 * ',' or ')' (with "'(' [list] ')'" in the caller, the empty list's
 * default reduction would leave only ')'). */
params
	: '(' ')'		{ $$ = NULL; }
	| '(' param_list ')'	{ $$ = $2; }
	;

param_list
	: param
	| param_list ',' param	{ $$ = ast_append($1, $3); }
	;

param
	: IDENT opt_type	{ $$ = mk(N_PARAM, @1); $$->name = $1; $$->decl_type = $2; }
	;

probe_points
	: probe_point
	| probe_points ',' probe_point	{ $$ = ast_append($1, $3); }
	;

/* probe_point -> component { '.' component } { '?' | '!' } [ IF '(' expr ')' ]
 * Its value is a list: a brace group makes it stand for several. */
probe_point
	: pp_comps pp_flags		{ $$ = pp_finish($1, $2, NULL); }
	| pp_comps pp_flags IF '(' expr ')'	{ $$ = pp_finish($1, $2, $5); }
	;

pp_flags
	: %empty		{ $$ = 0; }
	| pp_flags '?'		{ $$ = $1 | 1; }
	| pp_flags '!'		{ $$ = $1 | 2; }
	;

/* Each a list of (unfinished) probe points, as pp_comp. */
pp_comps
	: pp_comp
	| pp_comps '.' pp_comp	{ $$ = pp_product($1, $3); }
	;

/* component -> name [ '(' literal ')' ] | '{' probe_points '}' */
pp_comp
	: pp_name
		{ $$ = mk(N_PROBE_POINT, @1); $$->list = mk(N_PP_COMP, @1); $$->list->name = $1; }
	| pp_name '(' pp_arg ')'
		{ $$ = mk(N_PROBE_POINT, @1); $$->list = mk(N_PP_COMP, @1); $$->list->name = $1;
		  $$->list->lhs = $3; }
	| '{' probe_points '}'	{ $$ = $2; }
	;

pp_arg
	: literal
	;

/* A name may be written in pieces with wildcards: sys_*, *_read, *. Keywords
 * are fine (kernel.function("f").return), but 'if' only first: after a
 * name it starts the condition. */
pp_name
	: IDENT
	| keyword		{ $$ = xstrdup($1); }
	| '*'			{ $$ = xstrdup("*"); }
	| pp_name IDENT
		{ bool ok = join(ps, &$1, @1, $2, @2, "identifier");
		  free($2);
		  $$ = $1;
		  if (!ok)
			YYERROR; }
	| pp_name keyword_not_if
		{ char *what = xasprintf("'%s'", $2);
		  bool ok = join(ps, &$1, @1, $2, @2, what);
		  free(what);
		  $$ = $1;
		  if (!ok)
			YYERROR; }
	| pp_name '*'
		{ bool ok = join(ps, &$1, @1, "*", @2, "'*'");
		  $$ = $1;
		  if (!ok)
			YYERROR; }
	;

keyword
	: IF
	| keyword_not_if
	;

keyword_not_if
	: PROBE | GLOBAL | FUNCTION | PRIVATE | ELSE | WHILE | FOR | FOREACH | IN | BREAK
	| CONTINUE | NEXT | RETURN | DELETE | TRY | CATCH | LIMIT | KW_STRING | KW_LONG
	;

literal
	: NUMBER		{ $$ = mk(N_NUM, @1); $$->num = $1; }
	| '-' NUMBER		{ $$ = mk(N_NUM, @1); $$->num = (long long)(0ULL - (unsigned long long)$2); }
	| string_lit
	;

string_lit
	: STRING		{ $$ = mk_str(@1, $1.s, $1.len); }
	| string_lit STRING	{ $$ = glue($1, $2.s, $2.len); }
	;

/* block -> '{' { stmt } '}' */
block
	: '{' stmts '}'		{ $$ = mk(N_BLOCK, @1); $$->list = $2; }
	| '{' stmts error '}'
		{ $$ = mk(N_BLOCK, @1); $$->list = $2; lex_end_recovery(ps); yyerrok; }
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
	/* foreach -> FOREACH '(' [value '='] keys IN source [LIMIT expr] ')' stmt */
	| FOREACH '(' foreach_keys IN foreach_source opt_limit ')' stmt
		{ $$ = $3; $$->loc = @1; $$->lhs = $5; $$->step = $6; $$->body = $8;
		  if ($5->kind != N_HIST) {
			$$->sort = $5->sort; $$->agg = $5->agg; $5->sort = 0; $5->agg = AGG_NONE;
		  } }
	/* delete -> DELETE (array | array '[' keys ']' | scalar) */
	| DELETE expr opt_semi	{ $$ = mk(N_DELETE, @1); $$->lhs = $2; }
	/* try -> TRY block CATCH [ '(' name ')' ] block */
	| TRY block CATCH block	{ $$ = mk(N_TRY, @1); $$->body = $2; $$->els = $4; }
	| TRY block CATCH '(' IDENT ')' block
		{ $$ = mk(N_TRY, @1); $$->body = $2; $$->els = $7;
		  $$->then = mk(N_VAR, @5); $$->then->name = $5; }
	/* A ';' after a simple statement belongs to it, so "if (c) x = 1; else ..." parses. */
	| BREAK opt_semi	{ $$ = mk(N_BREAK, @1); }
	| CONTINUE opt_semi	{ $$ = mk(N_CONTINUE, @1); }
	| NEXT opt_semi		{ $$ = mk(N_NEXT, @1); }
	| RETURN opt_semi	{ $$ = mk(N_RETURN, @1); }
	| RETURN expr %prec LOWEST	{ $$ = mk(N_RETURN, @1); $$->lhs = $2; }
	| RETURN expr ';'	{ $$ = mk(N_RETURN, @1); $$->lhs = $2; }
	| error ';'		{ $$ = mk(N_EMPTY, @1); lex_end_recovery(ps); yyerrok; }
	;

opt_semi
	: %empty %prec LOWEST
	| ';'
	;

/* keys -> [value [sort] '='] (key [sort] | '[' key [sort] { ',' key [sort] } ']') */
foreach_keys
	: foreach_key			{ $$ = mk(N_FOREACH, @1); $$->list = $1; }
	| '[' foreach_key_list ']'	{ $$ = mk(N_FOREACH, @1); $$->list = $2; }
	| IDENT opt_sort '=' foreach_key
		{ $$ = mk(N_FOREACH, @1); $$->then = mk_foreach_key(@1, $1, (int)$2); $$->list = $4; }
	| IDENT opt_sort '=' '[' foreach_key_list ']'
		{ $$ = mk(N_FOREACH, @1); $$->then = mk_foreach_key(@1, $1, (int)$2); $$->list = $5; }
	;

foreach_key_list
	: foreach_key
	| foreach_key_list ',' foreach_key	{ $$ = ast_append($1, $3); }
	;

foreach_key
	: IDENT opt_sort	{ $$ = mk_foreach_key(@1, $1, (int)$2); }
	;

opt_sort
	: %empty		{ $$ = 0; }
	| sort
	;

sort
	: '+'			{ $$ = 1; }
	| '-'			{ $$ = -1; }
	;

/* source -> array ['[' keys ']'] [statistic sort | sort] | histogram */
foreach_source
	: IDENT opt_sort
		{ $$ = mk(N_VAR, @1); $$->name = $1; $$->sort = (int)$2; }
	| IDENT STAT_OP sort
		{ $$ = mk(N_VAR, @1); $$->name = $1; $$->agg = $2; $$->sort = (int)$3; }
	| IDENT '[' keys ']' opt_sort
		{ $$ = mk(N_INDEX, @1); $$->name = $1; $$->list = $3; $$->sort = (int)$5; }
	| IDENT '[' keys ']' STAT_OP sort
		{ $$ = mk(N_INDEX, @1); $$->name = $1; $$->list = $3; $$->agg = $5; $$->sort = (int)$6; }
	| HIST_OP '(' stat_operand opt_hist_args ')'
		{ $$ = mk_hist($1, $3, $4, @1); }
	;

/* limit -> 'limit' expr */
opt_limit
	: %empty		{ $$ = NULL; }
	| LIMIT expr		{ $$ = $2; }
	| IDENT expr	/* a misspelled 'limit' is named */
		{ $$ = $2; diag_error(@1, D_SYNTAX, "expected 'limit' or ')' before '%s'", $1); free($1); }
	;

opt_expr
	: %empty		{ $$ = NULL; }
	| expr
	;

expr
	: expr '=' expr			{ $$ = mk_assign(OP_ASSIGN, @2, $1, $3); }
	| expr OP_ASSIGN_TOK expr	{ $$ = mk_assign($2, @2, $1, $3); }
	| expr AGG expr			{ $$ = mk_assign(OP_AGG, @2, $1, $3); }
	| expr '?' expr ':' expr
		{ $$ = mk(N_TERNARY, @2); $$->cond = $1; $$->then = $3; $$->els = $5;
		  deep_check(deep_check($$, $1, $3), $$, $5); }
	| expr OR expr		{ $$ = mk_binary(OP_OR, @2, $1, $3); }
	| expr AND expr		{ $$ = mk_binary(OP_AND, @2, $1, $3); }
	| expr '|' expr		{ $$ = mk_binary(OP_BITOR, @2, $1, $3); }
	| expr '^' expr		{ $$ = mk_binary(OP_BITXOR, @2, $1, $3); }
	| expr '&' expr		{ $$ = mk_binary(OP_BITAND, @2, $1, $3); }
	| expr IN IDENT
		{ $$ = mk(N_IN, @2); $$->name = $3; $$->list = $1; deep_check($$, $1, NULL); }
	/* A histogram's bucket is "in" it when it counted something: the
	 * bucket's count, as SystemTap gives it. */
	| expr IN HIST_OP '(' stat_operand opt_hist_args ')'
		{ $$ = hist_in($1, @2, mk_hist($3, $5, $6, @3)); }
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
	| expr USHR expr	{ $$ = mk_binary(OP_USHR, @2, $1, $3); }
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
	| '&' primary %prec UNARY	{ $$ = address_of(ps, $2, @1); }
	| postfix
	;

/* One '++' or '--' after an operand, as in SystemTap: "x++ --y" is two
 * statements, not "(x++)--" and "y". */
postfix
	: primary %prec LOWEST
	| primary INC		{ $$ = mk_unary(N_INCDEC, OP_INC, @2, $1); $$->postfix = true; }
	| primary DEC		{ $$ = mk_unary(N_INCDEC, OP_DEC, @2, $1); $$->postfix = true; }
	;

/* primary -> number | string | name | name '(' args ')' | name '[' keys ']'
 *          | '[' keys ']' IN name | target | statistic | histogram ['[' expr ']']
 *          | '@entry' (...) | ... | '(' expr ')' */
primary
	: NUMBER		{ $$ = mk(N_NUM, @1); $$->num = $1; }
	| string_lit %prec LOWEST
	| IDENT %prec LOWEST	{ $$ = mk(N_VAR, @1); $$->name = $1; }
	| IDENT args		{ $$ = mk(N_CALL, @1); $$->name = $1; $$->list = $2; }
	| IDENT '[' keys ']'	{ $$ = mk(N_INDEX, @1); $$->name = $1; $$->list = $3; }
	| '[' keys ']' IN IDENT	{ $$ = mk(N_IN, @4); $$->name = $5; $$->list = $2; }
	| '[' keys ']' IN HIST_OP '(' stat_operand opt_hist_args ')'
		{ $$ = hist_in($2, @4, mk_hist($5, $7, $8, @5)); }
	| target %prec LOWEST
	| STAT_OP '(' stat_operand ')'
		{ $$ = mk(N_STAT, @1); $$->agg = $1; $$->lhs = $3; }
	| STAT_OP '(' stat_operand ',' expr ')'
		{ $$ = mk(N_STAT, @1); $$->agg = $1; $$->lhs = $3; $$->rhs = $5; }
	| HIST_OP '(' stat_operand opt_hist_args ')' %prec LOWEST
		{ $$ = mk_hist($1, $3, $4, @1); }
	| HIST_OP '(' stat_operand opt_hist_args ')' '[' expr ']'
		{ $$ = mk(N_INDEX, @6); $$->lhs = mk_hist($1, $3, $4, @1); $$->list = $7; }
	| AT_ENTRY '(' expr ')'	{ $$ = mk(N_ENTRY, @1); $$->lhs = $3; }
	| AT_DEFINED '(' expr ')'	{ $$ = mk(N_DEFINED, @1); $$->lhs = $3; }
	| AT_PROBEWRITE '(' IDENT ')'
		{ $$ = mk(N_PROBEWRITE, @1); $$->lhs = mk(N_VAR, @3); $$->lhs->name = $3; }
	| AT_CONST '(' string_lit ')'	{ $$ = mk(N_CONST, @1); $$->str = $3->str; }
	| EMBEDDED_C		{ $$ = mk(N_EMBEDDED, @1); $$->str = $1.s; $$->str_len = $1.len; }
	| '(' expr ')'		{ $$ = $2; }
	| UNSUPPORTED		{ $$ = mk(N_NUM, @1); }
	/* Members of any other value: its type is known from where it came
	 * (autocast, SystemTap 2.6). */
	| primary member members opt_pretty
		{ autocast_allowed(ps, @2);
		  $$ = mk(N_AUTOCAST, @2); $$->lhs = $1; with_members($$, ast_append($2, $3), $4);
		  deep_check($$, $1, NULL); }
	/* Or the whole of what it points to, printed. */
	| primary PRETTY1	{ $$ = pretty_of(ps, $1, 1, @2); }
	| primary PRETTY2	{ $$ = pretty_of(ps, $1, 2, @2); }
	;

/* target -> '$'name members ['$' | '$$'] | '@cast' (...) members [...] | '@var' (...) members [...] */
target
	: TARGET_VAR members opt_pretty
		{ $$ = mk(N_TARGET, @1); $$->name = $1.name;
		  with_members($$, $2, $1.pretty ? $1.pretty : $3);
		  if ($1.pretty && ($2 || $3))
			diag_error(@1, D_SYNTAX, "a '$' or '$$' suffix goes after the last member"); }
	| AT_CAST '(' expr ',' string_lit opt_module ')' members opt_pretty
		{ $$ = mk(N_CAST, @1); $$->lhs = $3; $$->str = $5->str; $$->rhs = $6;
		  with_members($$, $8, $9); }
	| AT_VAR '(' string_lit opt_module ')' members opt_pretty
		{ $$ = mk(N_ATVAR, @1); $$->str = $3->str; $$->rhs = $4; with_members($$, $6, $7); }
	;

members
	: %empty %prec LOWEST	{ $$ = NULL; }
	| members member	{ $$ = ast_append($1, $2); }
	;

/* A member's name may be spelled like a keyword: list_head's 'next'. */
member
	: ARROW IDENT		{ $$ = mk(N_MEMBER, @2); $$->name = $2; }
	| ARROW keyword		{ $$ = mk(N_MEMBER, @2); $$->name = xstrdup($2); }
	| '[' expr ']'		{ $$ = mk(N_MEMBER, @1); $$->lhs = $2; }
	;

/* '$var->$' is '$var$', as in SystemTap. */
opt_pretty
	: %empty %prec LOWEST	{ $$ = 0; }
	| PRETTY1		{ $$ = 1; }
	| PRETTY2		{ $$ = 2; }
	| ARROW PRETTY1		{ $$ = 1; }
	| ARROW PRETTY2		{ $$ = 2; }
	;

opt_module
	: %empty		{ $$ = NULL; }
	| ',' string_lit	{ $$ = $2; }
	;

stat_operand
	: IDENT			{ $$ = mk(N_VAR, @1); $$->name = $1; }
	| IDENT '[' keys ']'	{ $$ = mk(N_INDEX, @1); $$->name = $1; $$->list = $3; }
	;

opt_hist_args
	: %empty		{ $$ = NULL; }
	| ',' arg_list		{ $$ = $2; }
	;

keys
	: key
	| keys ',' key		{ $$ = ast_append($1, $3); }
	;

/* A key may be '*' in slices: delete m[*, 2], foreach (... in m[*, "x"]). */
key
	: expr
	| '*'			{ $$ = mk(N_STAR, @1); }
	;

/* In parentheses, as params. */
args
	: '(' ')'		{ $$ = NULL; }
	| '(' arg_list ')'	{ $$ = $2; }
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

static bool is_keyword(yysymbol_kind_t t)
{
	switch (t) {
	case YYSYMBOL_PROBE: case YYSYMBOL_GLOBAL: case YYSYMBOL_FUNCTION: case YYSYMBOL_PRIVATE:
	case YYSYMBOL_IF: case YYSYMBOL_ELSE: case YYSYMBOL_WHILE: case YYSYMBOL_FOR:
	case YYSYMBOL_FOREACH: case YYSYMBOL_IN: case YYSYMBOL_BREAK: case YYSYMBOL_CONTINUE:
	case YYSYMBOL_NEXT: case YYSYMBOL_RETURN: case YYSYMBOL_DELETE: case YYSYMBOL_TRY:
	case YYSYMBOL_CATCH: case YYSYMBOL_LIMIT: case YYSYMBOL_KW_STRING: case YYSYMBOL_KW_LONG:
		return true;
	default:
		return false;
	}
}

static bool same_loc(struct loc a, struct loc b)
{
	return a.file == b.file && a.line == b.line && a.col == b.col;
}

/* What a keyword where a name was expected is for. */
static void keyword_hint(yysymbol_kind_t got)
{
	const char *kw = yysymbol_name(got);
	if (got == YYSYMBOL_LIMIT)
		diag_hint("'limit' is a keyword: it is written once, inside foreach's parentheses "
			  "(foreach (k in m limit 5)), and cannot name anything");
	else if (got == YYSYMBOL_KW_STRING || got == YYSYMBOL_KW_LONG)
		diag_hint("%s is a keyword, a type (function f:%.*s()), and cannot name anything", kw,
			  (int)strlen(kw) - 2, kw + 1);
	else
		diag_hint("%s is a keyword and cannot name anything", kw);
}

/*
 * "expected ')' before '}'": what the grammar could take, and what it got.
 * When many tokens could follow, name the useful ones: "a statement" or
 * "an expression" when one is missing, a separator or closing bracket
 * that is missing, and the '}' of a block that runs into the next
 * declaration. What the lexer reported already (the end of a file after an
 * unclosed comment, a malformed number, a closer an unclosed string took)
 * is not reported again.
 */
static int yyreport_syntax_error(const yypcontext_t *ctx, struct parse_state *ps)
{
	yysymbol_kind_t got = yypcontext_token(ctx);
	struct loc at = *yypcontext_location(ctx);
	lex_start_recovery(ps, !strcmp(yysymbol_name(got), "'{'"));
	struct lex_state *ls = pp_lex_state(ps->pp);
	if (lex_quiet_at(ps, at) || (got == YYSYMBOL_YYEOF && ls->quiet_to_eof) ||
	    same_loc(at, ls->bad_token))
		return 0;
	yysymbol_kind_t toks[YYNTOKENS];
	int n = yypcontext_expected_tokens(ctx, toks, YYNTOKENS);
	for (const char *c = ls->swallowed; *c; c++) {
		char spelling[] = { '\'', *c, '\'', 0 };
		if (has_char_token(toks, n, spelling)) {
			ls->swallowed[0] = 0;
			return 0;
		}
	}
	bool operand = has_token(toks, n, YYSYMBOL_NUMBER);
	/* Keywords may also be probe point names and members: only statements
	 * start with both a keyword and a number. */
	bool statement = operand && has_token(toks, n, YYSYMBOL_WHILE);
	bool pp_name = !operand && has_token(toks, n, YYSYMBOL_PROBE) &&
		       has_char_token(toks, n, "'*'");
	bool member = !operand && has_token(toks, n, YYSYMBOL_PRETTY1);
	bool after_expr = has_char_token(toks, n, "'/'");
	bool close_block = has_char_token(toks, n, "'}'");
	bool declaration = got == YYSYMBOL_PROBE || got == YYSYMBOL_FUNCTION || got == YYSYMBOL_GLOBAL;
	const char *eof = " at the end of the file", *before = " before ";
	struct strbuf b;
	sb_init(&b);
	if (close_block && declaration) {
		sb_puts(&b, "expected '}' before ");
	} else if (n > 0 && n <= 4) {
		/* A string after a string is glued to it: rarely what is missing.
		 * A type is 'long' or 'string' (an identifier is only taken to
		 * report it). */
		bool closer = has_char_token(toks, n, "')'") || has_char_token(toks, n, "','");
		bool type = has_token(toks, n, YYSYMBOL_KW_STRING);
		yysymbol_kind_t named[4];
		int k = 0;
		for (int i = 0; i < n; i++)
			if (!(toks[i] == YYSYMBOL_STRING && closer) &&
			    !(toks[i] == YYSYMBOL_IDENT && type))
				named[k++] = toks[i];
		sb_puts(&b, "expected ");
		for (int i = 0; i < k; i++)
			sb_printf(&b, "%s%s", i ? (i == k - 1 ? " or " : ", ") : "", yysymbol_name(named[i]));
		sb_puts(&b, got == YYSYMBOL_YYEOF ? eof : before);
	} else if (statement && got == YYSYMBOL_YYEOF) {
		sb_puts(&b, close_block ? "expected '}' at the end of the file"
					: "expected a statement at the end of the file");
	} else if (statement) {
		sb_printf(&b, "expected a statement%s before ", close_block ? " or '}'" : "");
	} else if (pp_name) {
		sb_printf(&b, "expected a probe point name%s", got == YYSYMBOL_YYEOF ? eof : before);
	} else if (member) {
		sb_printf(&b, "expected a member name%s", got == YYSYMBOL_YYEOF ? eof : before);
	} else if (operand) {
		sb_printf(&b, "expected an expression%s", got == YYSYMBOL_YYEOF ? eof : before);
	} else {
		/* After a complete expression: a separator or a closer is missing. */
		static const char *const closers[] = { "','", "';'", "':'", "')'", "']'" };
		const char *named[ARRAY_SIZE(closers)];
		int k = 0;
		for (size_t i = 0; i < ARRAY_SIZE(closers) && after_expr; i++)
			if (has_char_token(toks, n, closers[i]))
				named[k++] = closers[i];
		if (k) {
			sb_puts(&b, "expected ");
			for (int i = 0; i < k; i++)
				sb_printf(&b, "%s%s", i ? (i == k - 1 ? " or " : ", ") : "", named[i]);
			sb_puts(&b, got == YYSYMBOL_YYEOF ? eof : before);
		} else if (close_block) {
			sb_puts(&b, got == YYSYMBOL_YYEOF ? "expected '}' at the end of the file"
							  : "expected a statement or '}' before ");
		} else {
			sb_puts(&b, got == YYSYMBOL_YYEOF ? "unexpected end of the file" : "unexpected ");
		}
	}
	if (got != YYSYMBOL_YYEOF)
		sb_puts(&b, yysymbol_name(got));
	diag_error(at, D_SYNTAX, "%s", b.s);
	/* A bare name where a probe point (or @cast) wants a string: quote it. */
	if (got == YYSYMBOL_IDENT && has_token(toks, n, YYSYMBOL_STRING) && n <= 4) {
		size_t len;
		const char *line = src_line(at.file, at.line, &len);
		size_t from = at.col > 0 ? (size_t)at.col - 1 : 0, to = from;
		while (line && to < len && (line[to] == '_' || isalnum((unsigned char)line[to])))
			to++;
		if (to > from)
			diag_hint("a name there is a string: write \"%.*s\"", (int)(to - from),
				  line + from);
	}
	/* A '}' missing: show the block it would close (the innermost). */
	if (close_block && (declaration || got == YYSYMBOL_YYEOF) && ps->braces > 0 &&
	    ps->braces <= (int)ARRAY_SIZE(ps->open_brace))
		diag_note(ps->open_brace[ps->braces - 1], "the block that is not closed begins here");
	sb_free(&b);
	/* Where a name could go; 'limit', 'string' and 'long' surprise most. */
	bool surprising = got == YYSYMBOL_LIMIT || got == YYSYMBOL_KW_STRING ||
			  got == YYSYMBOL_KW_LONG;
	if (is_keyword(got) && (surprising || (n <= 4 && has_token(toks, n, YYSYMBOL_IDENT))))
		keyword_hint(got);
	return 0;
}

static void stp_error(struct loc *loc, struct parse_state *ps, const char *msg)
{
	(void)ps;
	if (!strcmp(msg, "memory exhausted"))
		diag_error(*loc, D_TOO_DEEP, "the script nests too deeply for the parser");
	else
		diag_error(*loc, D_SYNTAX, "%s", msg);
}

void parse_report_unsupported(struct parse_state *ps, struct loc loc, const char *what)
{
	/* One unsupported construct is one problem: the rest of its line is
	 * quiet, syntax errors included. */
	if (ps->quiet_line != loc.line || ps->quiet_file != loc.file)
		diag_error(loc, D_UNSUPPORTED, "Tapline does not support %s yet", what);
	ps->quiet_line = loc.line;
	ps->quiet_file = loc.file;
}

static bool lex_quiet_at(const struct parse_state *ps, struct loc loc)
{
	return ps->quiet_line == loc.line && ps->quiet_file == loc.file;
}

/* AT_OPEN_BRACE: the error is at a '{' (a body after a missing ')'), whose
 * block is skipped whole, so that its '}' does not close the block around. */
static void lex_start_recovery(struct parse_state *ps, bool at_open_brace)
{
	ps->skipping = true;
	ps->skip_braces = ps->braces;
	if (at_open_brace && ps->braces > 1)
		ps->skip_braces--;
}

static void lex_end_recovery(struct parse_state *ps)
{
	ps->skipping = false;
}

/*
 * While the parser recovers from a syntax error, hand it only the tokens it
 * can resynchronise on: the '}' that closes the block the error was in, a
 * ';' at that block's level outside parentheses, or a keyword that starts
 * a declaration at the top level. Skipping whole nested blocks this way
 * keeps one mistake from being reported as several.
 */
int stp_lex(STP_STYPE *lval, STP_LTYPE *lloc, struct parse_state *ps)
{
	for (;;) {
		int t = pp_lex(ps->pp, lval, lloc);
		if (t == '{') {
			if (ps->braces >= 0 && ps->braces < (int)ARRAY_SIZE(ps->open_brace))
				ps->open_brace[ps->braces] = *lloc;
			ps->braces++;
		}
		else if (t == '}')
			ps->braces--;
		else if (t == '(')
			ps->parens++;
		else if (t == ')' && ps->parens > 0)
			ps->parens--;
		if (!ps->skipping || t == 0)
			return t;
		if (t == '}' && ps->braces < ps->skip_braces)
			return t;
		if (t == ';' && ps->braces == ps->skip_braces && ps->parens == 0)
			return t;
		if ((t == PROBE || t == FUNCTION || t == GLOBAL || t == PRIVATE) && ps->braces <= 0) {
			ps->braces = 0;
			return t;
		}
	}
}

int parse_file(int file, struct pp_env *env, struct ptrvec *decls)
{
	int before = diag_errors();
	too_deep_reported = false;
	size_t first = decls->n;
	struct parse_state ps = { .pp = pp_open(file, env, false), .decls = decls,
				  .no_autocast = !src_get(file)->is_tapset &&
						 pp_compatible_before(env, "2.6") };
	stp_parse(&ps);
	pp_close(ps.pp);
	syntax_check(file, env->guru, decls, first);
	return diag_errors() - before;
}

int parse_macro_file(int file, struct pp_env *env)
{
	int before = diag_errors();
	struct pp *pp = pp_open(file, env, true);
	STP_STYPE val;
	struct loc loc;
	while (pp_lex(pp, &val, &loc) != 0)
		;
	pp_close(pp);
	return diag_errors() - before;
}
