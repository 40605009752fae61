// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The preprocessor; see preproc.h. Tokens flow through three layers:
 *
 *   raw_next     the next raw token: from a pending expansion, else the lexer
 *   expand_next  script arguments replaced, @define recorded, macro uses
 *                expanded (their tokens are pushed back and read again)
 *   pp_lex       conditionals decided and skipped; @operators turned into
 *                the grammar's tokens
 *
 * A skipped branch is read raw: nothing in it is expanded or defined, so a
 * branch for another kernel may use macros and arguments that do not exist
 * here.
 */
#include "front/preproc.h"

#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "front/diag.h"
#include "front/parser.h"

struct token {
	int kind;
	STP_STYPE val;
	struct loc loc;
};

struct macro {
	char *name;
	struct loc loc;
	bool has_params;
	struct ptrvec params; /* char * */
	struct token *body;
	size_t nbody;
};

/* Tokens pushed back to be read again: an expansion, or one token. */
struct pending {
	struct token *toks;
	size_t n, pos;
	const struct macro *macro; /* whose expansion this is, or NULL */
};

struct cond {
	struct loc loc;
	bool in_else;
};

struct pp {
	struct pp_env *env;
	struct lex_state ls;
	void *scanner;
	int file;
	bool definitions_only;
	struct ptrvec macros;   /* this file's (struct macro *) */
	struct ptrvec pending;  /* stack of struct pending * */
	struct ptrvec conds;    /* open conditionals (struct cond *) */
	int expansion_depth;
	size_t expanded;        /* tokens this file's macro uses have produced */
};

/* Expansions inside expansions: deeper than this is a runaway macro. */
#define PP_MAX_EXPANSION_DEPTH 200
/* Tokens all macro uses in one file may produce: macros that use each other
 * grow exponentially (each body uses the previous macro twice), and a few
 * lines would otherwise expand for hours. (The fuzz target sets it lower:
 * under its sanitizers a million tokens take seconds.) */
#ifndef PP_MAX_EXPANDED_TOKENS
#define PP_MAX_EXPANDED_TOKENS 1000000
#endif

/* --- tokens --- */

void lex_value_free(int kind, STP_STYPE *val)
{
	switch (kind) {
	case IDENT:
	case AT_ID:
		free(val->id);
		break;
	case STRING:
	case EMBEDDED_C:
		free(val->str.s);
		break;
	case TARGET_VAR:
		free(val->target.name);
		break;
	default:
		break;
	}
}

static void tok_free(struct token *t)
{
	lex_value_free(t->kind, &t->val);
}

static struct token tok_copy(const struct token *t, struct loc loc)
{
	struct token c = *t;
	c.loc = loc;
	switch (t->kind) {
	case IDENT:
	case AT_ID:
		c.val.id = xstrdup(t->val.id);
		break;
	case STRING:
	case EMBEDDED_C:
		c.val.str.s = xmalloc(t->val.str.len + 1);
		memcpy(c.val.str.s, t->val.str.s, t->val.str.len + 1);
		break;
	case TARGET_VAR:
		c.val.target.name = xstrdup(t->val.target.name);
		break;
	default:
		break;
	}
	return c;
}

static struct token string_token(struct loc loc, const char *s)
{
	struct token t = { .kind = STRING, .loc = loc };
	t.val.str.s = xstrdup(s);
	t.val.str.len = strlen(s);
	return t;
}

/* --- reading --- */

static void push_tokens(struct pp *pp, struct token *toks, size_t n, const struct macro *m)
{
	struct pending *p = xcalloc(1, sizeof *p);
	p->toks = toks;
	p->n = n;
	p->macro = m;
	pv_push(&pp->pending, p);
	if (m)
		pp->expansion_depth++;
}

static void unget(struct pp *pp, struct token *t)
{
	struct token *one = xmalloc(sizeof *one);
	*one = *t;
	push_tokens(pp, one, 1, NULL);
}

static void raw_next(struct pp *pp, struct token *t)
{
	while (pp->pending.n) {
		struct pending *p = pp->pending.v[pp->pending.n - 1];
		if (p->pos < p->n) {
			*t = p->toks[p->pos++];
			return;
		}
		if (p->macro)
			pp->expansion_depth--;
		free(p->toks);
		free(p);
		pp->pending.n--;
	}
	memset(t, 0, sizeof *t);
	t->kind = lex_scan(pp->scanner, &t->val, &t->loc);
	if (t->kind == 0)
		t->loc = (struct loc){ pp->file, pp->ls.line, pp->ls.col };
}

static bool macro_active(const struct pp *pp, const struct macro *m)
{
	for (size_t i = 0; i < pp->pending.n; i++) {
		const struct pending *p = pp->pending.v[i];
		if (p->macro == m && p->pos <= p->n)
			return true;
	}
	return false;
}

/* --- script arguments --- */

static void arg_missing(struct pp *pp, struct loc loc, long long index)
{
	diag_error(loc, D_SCRIPT_ARGUMENT, "command line argument index %lld out of range [1-%d]", index,
		   pp->env->argc);
	diag_hint("give the script's arguments after it: stap SCRIPT.stp ARG1 ARG2 ...");
}

/* $N: the argument's text, lexed as tokens where $N stood. */
static void substitute_arg(struct pp *pp, struct token *at)
{
	long long i = at->val.num;
	if (i < 1 || i > pp->env->argc) {
		arg_missing(pp, at->loc, i);
		struct token zero = { .kind = NUMBER, .loc = at->loc };
		unget(pp, &zero);
		return;
	}
	const char *text = pp->env->argv[i - 1];
	struct lex_state ls = { .file = at->loc.file, .line = at->loc.line, .col = at->loc.col };
	void *scanner = lex_open(&ls, text, strlen(text));
	struct token *toks = NULL;
	size_t n = 0;
	for (;;) {
		struct token t = { 0 };
		t.kind = lex_scan(scanner, &t.val, &t.loc);
		if (t.kind == 0)
			break;
		t.loc = at->loc;
		if (t.kind == ARG_NUM || t.kind == ARG_STR || t.kind == ARG_COUNT ||
		    t.kind == ARG_COUNT_STR) {
			diag_error(at->loc, D_SCRIPT_ARGUMENT, "argument $%lld ('%s') refers to another argument",
				   i, text);
			tok_free(&t);
			continue;
		}
		toks = xrealloc(toks, (n + 1) * sizeof *toks);
		toks[n++] = t;
	}
	lex_close(scanner);
	push_tokens(pp, toks, n, NULL);
}

/* --- macros --- */

static struct macro *find_in(const struct ptrvec *v, const char *name)
{
	for (size_t i = 0; i < v->n; i++) {
		struct macro *m = v->v[i];
		if (!strcmp(m->name, name))
			return m;
	}
	return NULL;
}

static struct macro *find_macro(const struct pp *pp, const char *name)
{
	struct macro *m = find_in(&pp->macros, name);
	return m ? m : find_in(&pp->env->public_macros, name);
}

/* Skip to the end of a broken @define's body, if it has one. */
static void skip_to_close(struct pp *pp)
{
	int depth = 0;
	for (;;) {
		struct token t;
		raw_next(pp, &t);
		if (t.kind == 0)
			return;
		if (t.kind == PP_OPEN)
			depth++;
		else if (t.kind == PP_CLOSE && --depth <= 0) {
			return;
		}
		tok_free(&t);
	}
}

/* A keyword token's spelling (the lexer keeps it), or NULL. */
static const char *keyword(const struct token *t)
{
	switch (t->kind) {
	case PROBE: case GLOBAL: case FUNCTION: case PRIVATE: case IF: case ELSE: case WHILE:
	case FOR: case FOREACH: case IN: case BREAK: case CONTINUE: case NEXT: case RETURN:
	case DELETE: case TRY: case CATCH: case LIMIT: case KW_STRING: case KW_LONG:
		return t->val.kw;
	default:
		return NULL;
	}
}

/* @define NAME [ '(' PARAM { ',' PARAM } ')' ] '%(' BODY '%)'
 * NAME may be a keyword: '@limit' is no keyword. */
/* @define and @MAXSTRINGLEN are not macros (a macro may take an
 * operator's name, as in SystemTap: @define max(a, b) ...). */
static bool reserved_macro_name(const char *name)
{
	return !strcmp(name, "define") || !strcmp(name, "MAXSTRINGLEN");
}

static void define_macro(struct pp *pp, struct loc at)
{
	struct token t;
	raw_next(pp, &t);
	if (t.kind != IDENT && !keyword(&t)) {
		diag_error(t.loc, D_MACRO, "expected a macro name after '@define'");
		tok_free(&t);
		skip_to_close(pp);
		return;
	}
	const char *name = t.kind == IDENT ? t.val.id : keyword(&t);
	if (reserved_macro_name(name)) {
		diag_error(t.loc, D_MACRO, "'@%s' is part of the language and cannot be redefined", name);
		tok_free(&t);
		skip_to_close(pp);
		return;
	}
	struct macro *m = xcalloc(1, sizeof *m);
	m->name = t.kind == IDENT ? t.val.id : xstrdup(keyword(&t));
	m->loc = at;
	raw_next(pp, &t);
	if (t.kind == '(') {
		m->has_params = true;
		for (;;) {
			raw_next(pp, &t);
			if (t.kind == ')' && m->params.n == 0)
				break;
			if (t.kind != IDENT) {
				diag_error(t.loc, D_MACRO, "expected a parameter name in '@define %s'",
					   m->name);
				tok_free(&t);
				skip_to_close(pp);
				return;
			}
			pv_push(&m->params, t.val.id);
			raw_next(pp, &t);
			if (t.kind == ')')
				break;
			if (t.kind != ',') {
				diag_error(t.loc, D_MACRO, "expected ',' or ')' in '@define %s'", m->name);
				tok_free(&t);
				skip_to_close(pp);
				return;
			}
		}
		raw_next(pp, &t);
	}
	if (t.kind != PP_OPEN) {
		/* What came is read again: it may well be the next declaration. */
		diag_error(t.loc, D_MACRO, "expected '%%(' to start the body of '@define %s'", m->name);
		unget(pp, &t);
		return;
	}
	int depth = 0;
	for (;;) {
		raw_next(pp, &t);
		if (t.kind == 0) {
			diag_error(at, D_MACRO, "the body of '@define %s' is not closed with '%%)'",
				   m->name);
			pp->ls.quiet_to_eof = true;
			return;
		}
		if (t.kind == PP_OPEN)
			depth++;
		else if (t.kind == PP_CLOSE && depth-- == 0)
			break;
		m->body = xrealloc(m->body, (m->nbody + 1) * sizeof *m->body);
		m->body[m->nbody++] = t;
	}
	struct ptrvec *scope = pp->definitions_only ? &pp->env->public_macros : &pp->macros;
	struct macro *old = find_in(scope, m->name);
	if (old) {
		diag_error(at, D_REDEFINED, "macro '@%s' is defined twice", m->name);
		diag_note(old->loc, "the first definition is here");
		return;
	}
	pv_push(scope, m);
}

/* Ends an argument being expanded on its own (expand_arg); no real token. */
#define PP_ARG_END (-2)

/* Read one macro argument's tokens (up to ',' or ')' at depth 0) into
 * *toks, which starts empty. */
static int read_macro_arg(struct pp *pp, struct token **toks, size_t *n)
{
	int depth = 0;
	size_t cap = 0;
	for (;;) {
		struct token t;
		raw_next(pp, &t);
		if (t.kind == PP_ARG_END)
			unget(pp, &t);
		if (t.kind == 0 || t.kind == PP_ARG_END)
			return 0;
		if (depth == 0 && (t.kind == ',' || t.kind == ')'))
			return t.kind;
		if (t.kind == '(' || t.kind == '[' || t.kind == '{' || t.kind == PP_OPEN)
			depth++;
		else if (t.kind == ')' || t.kind == ']' || t.kind == '}' || t.kind == PP_CLOSE)
			depth--;
		if (*n == cap) {
			cap = cap ? 2 * cap : 16;
			*toks = xrealloc(*toks, cap * sizeof **toks);
		}
		(*toks)[(*n)++] = t;
	}
}

/* What a failed expansion leaves: a token the grammar takes as a value
 * (or skips at the top level), so one mistake is one error. */
static void placeholder(struct pp *pp, struct loc at)
{
	struct token t = { .kind = UNSUPPORTED, .loc = at };
	unget(pp, &t);
}

static void expand_next(struct pp *pp, struct token *t);

/*
 * An argument with the macros and script arguments in it expanded where
 * the call is, before it goes into the body: SystemTap evaluates macro
 * arguments in the caller's context, so @twice(@twice(1)) is no recursion.
 */
static void expand_arg(struct pp *pp, struct token **toks, size_t *n)
{
	bool any = false;
	for (size_t i = 0; i < *n && !any; i++)
		any = (*toks)[i].kind == AT_ID || (*toks)[i].kind == ARG_NUM ||
		      (*toks)[i].kind == ARG_STR || (*toks)[i].kind == ARG_COUNT ||
		      (*toks)[i].kind == ARG_COUNT_STR;
	if (!any)
		return;
	struct token *in = xrealloc(*toks, (*n + 1) * sizeof *in);
	in[*n] = (struct token){ .kind = PP_ARG_END };
	push_tokens(pp, in, *n + 1, NULL);
	struct token *out = NULL;
	size_t nout = 0, cap = 0;
	for (;;) {
		struct token t;
		expand_next(pp, &t);
		if (t.kind == PP_ARG_END || t.kind == 0) {
			if (t.kind == 0)
				unget(pp, &t);
			break;
		}
		if (nout == cap) {
			cap = cap ? 2 * cap : 16;
			out = xrealloc(out, cap * sizeof *out);
		}
		out[nout++] = t;
	}
	*toks = out;
	*n = nout;
}

static void expand_macro(struct pp *pp, const struct macro *m, struct loc at)
{
	if (macro_active(pp, m) || pp->expansion_depth >= PP_MAX_EXPANSION_DEPTH) {
		diag_error(at, D_MACRO, "macro '@%s' expands into itself", m->name);
		if (m->has_params) {
			/* Its arguments go with it: one mistake, one error. */
			struct token t;
			raw_next(pp, &t);
			if (t.kind == '(') {
				int end = ',';
				while (end == ',') {
					struct token *toks = NULL;
					size_t n = 0;
					end = read_macro_arg(pp, &toks, &n);
					for (size_t i = 0; i < n; i++)
						tok_free(&toks[i]);
					free(toks);
				}
			} else {
				unget(pp, &t);
			}
		}
		placeholder(pp, at);
		return;
	}
	size_t nparams = m->params.n;
	struct token **args = xcalloc(nparams + 1, sizeof *args);
	size_t *nargs = xcalloc(nparams + 1, sizeof *nargs);
	if (m->has_params) {
		struct token t;
		raw_next(pp, &t);
		if (t.kind != '(') {
			diag_error(t.loc, D_MACRO, "macro '@%s' takes %zu argument%s in parentheses",
				   m->name, nparams, nparams == 1 ? "" : "s");
			unget(pp, &t);
			placeholder(pp, at);
			goto out;
		}
		size_t got = 0;
		int end = ',';
		while (end == ',') {
			struct token *toks = NULL;
			size_t n = 0;
			end = read_macro_arg(pp, &toks, &n);
			if (got == 0 && n == 0 && end == ')' && nparams == 0)
				break;
			if (got < nparams) {
				args[got] = toks;
				nargs[got] = n;
			} else {
				for (size_t i = 0; i < n; i++)
					tok_free(&toks[i]);
				free(toks);
			}
			got++;
		}
		if (end == 0) {
			diag_error(at, D_MACRO, "the arguments of macro '@%s' are not closed with ')'",
				   m->name);
			pp->ls.quiet_to_eof = true;
			goto out;
		}
		if (got != nparams) {
			diag_error(at, D_WRONG_ARGS, "macro '@%s' takes %zu argument%s, not %zu", m->name,
				   nparams, nparams == 1 ? "" : "s", got);
			diag_note(m->loc, "'@%s' is defined here", m->name);
			placeholder(pp, at);
			goto out;
		}
	}
	for (size_t i = 0; i < nparams; i++)
		expand_arg(pp, &args[i], &nargs[i]);
	/* The body, with each @PARAM replaced by its argument: which
	 * parameter each body token is (nparams: none), then the size. */
	size_t *param = xcalloc(m->nbody + 1, sizeof *param), size = 0;
	for (size_t i = 0; i < m->nbody; i++) {
		const struct token *bt = &m->body[i];
		size_t p = nparams;
		if (bt->kind == AT_ID)
			for (p = 0; p < nparams && strcmp(m->params.v[p], bt->val.id); p++)
				;
		param[i] = p;
		size += p < nparams ? nargs[p] : 1;
	}
	if (pp->expanded + size > PP_MAX_EXPANDED_TOKENS) {
		/* Said once: every later use is refused too. */
		if (pp->expanded <= PP_MAX_EXPANDED_TOKENS)
			diag_error(at, D_MACRO, "macros expand to more than %d tokens in this file",
				   PP_MAX_EXPANDED_TOKENS);
		pp->expanded = PP_MAX_EXPANDED_TOKENS + 1;
		placeholder(pp, at);
		free(param);
		goto out;
	}
	pp->expanded += size;
	struct token *out = xmalloc((size + 1) * sizeof *out);
	size_t n = 0;
	for (size_t i = 0; i < m->nbody; i++) {
		if (param[i] < nparams) {
			for (size_t k = 0; k < nargs[param[i]]; k++)
				out[n++] = tok_copy(&args[param[i]][k], at);
		} else {
			out[n++] = tok_copy(&m->body[i], at);
		}
	}
	free(param);
	push_tokens(pp, out, n, m);
out:
	for (size_t i = 0; i < nparams; i++) {
		for (size_t k = 0; k < nargs[i]; k++)
			tok_free(&args[i][k]);
		free(args[i]);
	}
	free(args);
	free(nargs);
}

static void expand_next(struct pp *pp, struct token *t)
{
	for (;;) {
		raw_next(pp, t);
		switch (t->kind) {
		case ARG_NUM:
			substitute_arg(pp, t);
			continue;
		case ARG_STR: {
			long long i = t->val.num;
			if (i < 1 || i > pp->env->argc) {
				arg_missing(pp, t->loc, i);
				*t = string_token(t->loc, "");
			} else {
				*t = string_token(t->loc, pp->env->argv[i - 1]);
			}
			return;
		}
		case ARG_COUNT:
			t->kind = NUMBER;
			t->val.num = pp->env->argc;
			return;
		case ARG_COUNT_STR: {
			char n[16];
			snprintf(n, sizeof n, "%d", pp->env->argc);
			*t = string_token(t->loc, n);
			return;
		}
		case AT_ID: {
			if (!strcmp(t->val.id, "define")) {
				struct loc at = t->loc;
				tok_free(t);
				define_macro(pp, at);
				continue;
			}
			if (!strcmp(t->val.id, "MAXSTRINGLEN")) {
				tok_free(t);
				t->kind = NUMBER;
				t->val.num = pp->env->maxstringlen;
				return;
			}
			const struct macro *m = find_macro(pp, t->val.id);
			if (!m)
				return;
			struct loc at = t->loc;
			tok_free(t);
			expand_macro(pp, m, at);
			continue;
		}
		default:
			return;
		}
	}
}

/* --- conditionals --- */

const char *pp_config_value(const struct pp_env *env, const char *name)
{
	static char *text;
	static bool loaded;
	if (!loaded) {
		loaded = true;
		text = env->config_path ? read_file(env->config_path, NULL) : NULL;
	}
	size_t n = strlen(name);
	for (const char *p = text; p && *p;) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		if (len > n && !strncmp(p, name, n) && p[n] == '=') {
			static char value[256];
			size_t vlen = len - n - 1;
			if (vlen >= sizeof value)
				vlen = sizeof value - 1;
			memcpy(value, p + n + 1, vlen);
			value[vlen] = 0;
			/* Strings are quoted in .config. */
			if (vlen >= 2 && value[0] == '"' && value[vlen - 1] == '"') {
				memmove(value, value + 1, vlen - 2);
				value[vlen - 2] = 0;
			}
			return value;
		}
		p = nl ? nl + 1 : NULL;
	}
	return "";
}

/* A comparison operator token, or 0. */
static bool is_cmp(int kind)
{
	return kind == EQ || kind == NE || kind == '<' || kind == '>' || kind == LE || kind == GE;
}

static bool compare(int op, int c)
{
	switch (op) {
	case EQ:
		return c == 0;
	case NE:
		return c != 0;
	case '<':
		return c < 0;
	case '>':
		return c > 0;
	case LE:
		return c <= 0;
	default:
		return c >= 0;
	}
}

static bool wildcard(const char *s)
{
	return strpbrk(s, "*?[") != NULL;
}

/* A version comparison: strverscmp, or fnmatch for ==/!= with a wildcard. */
static bool version_cmp(const char *have, int op, const char *want)
{
	if (wildcard(want))
		return (fnmatch(want, have, 0) == 0) == (op == EQ);
	return compare(op, strverscmp(have, want));
}

bool pp_compatible_before(const struct pp_env *env, const char *version)
{
	return env->systemtap_v && strverscmp(env->systemtap_v, version) < 0;
}

/* A CONFIG_ option's value as a number, as the kernel writes them (decimal or 0x). */
static bool config_number(const char *value, long long *num)
{
	char *end;
	errno = 0;
	*num = strtoll(value, &end, 0);
	return *value && !*end && !errno;
}

static const char *const cond_names[] = { "kernel_v", "kernel_vr", "arch", "systemtap_v",
					  "systemtap_privilege", "guru_mode", "runtime",
					  "CONFIG_..." };

struct operand {
	bool ok, is_str, is_name;
	long long num;
	char *str;
	struct loc loc;
};

static struct operand read_operand(struct pp *pp)
{
	struct operand o = { 0 };
	struct token t;
	expand_next(pp, &t);
	o.loc = t.loc;
	if (t.kind == '-') {
		expand_next(pp, &t);
		if (t.kind == NUMBER) {
			o.ok = true;
			o.num = (long long)(0ULL - (unsigned long long)t.val.num);
			return o;
		}
	} else if (t.kind == NUMBER) {
		o.ok = true;
		o.num = t.val.num;
		return o;
	} else if (t.kind == STRING) {
		o.ok = o.is_str = true;
		o.str = t.val.str.s;
		return o;
	} else if (t.kind == IDENT) {
		o.ok = o.is_name = true;
		o.str = t.val.id;
		return o;
	}
	diag_error(t.loc, D_PREPROCESSOR, "expected a name or a literal in a preprocessor condition");
	unget(pp, &t);
	return o;
}

/* One comparison: NAME OP LITERAL, or LITERAL OP LITERAL. */
static bool eval_comparison(struct pp *pp, bool *failed)
{
	struct operand l = read_operand(pp);
	struct token op;
	expand_next(pp, &op);
	if (!l.ok || !is_cmp(op.kind)) {
		if (l.ok)
			diag_error(op.loc, D_PREPROCESSOR, "expected a comparison (==, !=, <, <=, >, >=) in a "
						    "preprocessor condition");
		unget(pp, &op);
		*failed = true;
		return false;
	}
	struct operand r = read_operand(pp);
	if (!r.ok) {
		*failed = true;
		return false;
	}
	bool result = false;
	if (!l.is_name) {
		if (l.is_str != r.is_str) {
			diag_error(r.loc, D_TYPE_MISMATCH, "a preprocessor condition compares %s with %s",
				   l.is_str ? "a string" : "a number", r.is_str ? "a string" : "a number");
			*failed = true;
		} else if (l.is_str) {
			result = compare(op.kind, strcmp(l.str, r.str));
		} else {
			result = compare(op.kind, l.num < r.num ? -1 : l.num > r.num);
		}
		goto out;
	}
	const char *name = l.str;
	const struct pp_env *env = pp->env;
	if (!strcmp(name, "guru_mode")) {
		if (r.is_str || r.is_name) {
			diag_error(r.loc, D_TYPE_MISMATCH, "guru_mode compares with a number, 0 or 1");
			*failed = true;
		} else if (op.kind != EQ && op.kind != NE) {
			diag_error(op.loc, D_PREPROCESSOR, "'guru_mode' is compared with == or != only");
			*failed = true;
		} else if (r.num != 0 && r.num != 1) {
			diag_error(r.loc, D_PREPROCESSOR, "guru_mode is 0 or 1, never %lld", r.num);
			*failed = true;
		}
		result = compare(op.kind, (env->guru ? 1 : 0) - (int)r.num);
		goto out;
	}
	/* SystemTap compares a CONFIG_ option with a number (numerically) or with
	 * another option (numerically when both are numbers). An option that is
	 * not set compares with a number as 0, as in SystemTap. */
	if (!strncmp(name, "CONFIG_", 7) && !r.is_str) {
		char *have = xstrdup(pp_config_value(pp->env, name));
		const char *want = r.is_name ? pp_config_value(pp->env, r.str) : NULL;
		long long a, b = r.num;
		if (r.is_name && strncmp(r.str, "CONFIG_", 7)) {
			diag_error(r.loc, D_PREPROCESSOR, "'%s' compares with a string, a number or "
							  "another CONFIG_ option, not '%s'", name, r.str);
			*failed = true;
		} else if (r.is_name && !(config_number(have, &a) && config_number(want, &b))) {
			result = compare(op.kind, strcmp(have, want));
		} else if (!*have) {
			result = compare(op.kind, 0 < b ? -1 : 0 > b);
		} else if (!config_number(have, &a)) {
			diag_error(l.loc, D_PREPROCESSOR, "'%s' is '%s', not a number", name, have);
			*failed = true;
		} else {
			result = compare(op.kind, a < b ? -1 : a > b);
		}
		free(have);
		goto out;
	}
	if (!r.is_str) {
		diag_error(r.loc, D_TYPE_MISMATCH, "'%s' compares with a string", name);
		*failed = true;
		goto out;
	}
	if ((!strcmp(name, "kernel_v") || !strcmp(name, "kernel_vr") || !strcmp(name, "systemtap_v")) &&
	    wildcard(r.str) && op.kind != EQ && op.kind != NE) {
		diag_error(op.loc, D_PREPROCESSOR, "a version with a wildcard ('%s') is compared with == "
						   "or != only",
			   r.str);
		*failed = true;
		goto out;
	}
	if (!strcmp(name, "kernel_v") || !strcmp(name, "kernel_vr")) {
		if (!env->release) {
			diag_error(l.loc, D_PREPROCESSOR, "'%s' needs a target kernel, and none is known", name);
			*failed = true;
			goto out;
		}
		char *v = xstrdup(env->release);
		if (!strcmp(name, "kernel_v"))
			v[strcspn(v, "-")] = 0;
		result = version_cmp(v, op.kind, r.str);
		free(v);
	} else if (!strcmp(name, "systemtap_v")) {
		const char *v = env->systemtap_v ? env->systemtap_v : PP_SYSTEMTAP_VERSION;
		result = version_cmp(v, op.kind, r.str);
		if (env->check_version)
			diag_warning(l.loc, D_PREPROCESSOR,
				     "this code depends on the language version: systemtap_v is %s "
				     "here, so the condition is %s%s",
				     v, result ? "true" : "false",
				     env->systemtap_v ? "" : " (--compatible=VERSION names another)");
	} else if (!strcmp(name, "arch") || !strcmp(name, "runtime") ||
		   !strcmp(name, "systemtap_privilege") || !strncmp(name, "CONFIG_", 7)) {
		const char *have = !strcmp(name, "arch")    ? env->arch :
				   !strcmp(name, "runtime") ? "kernel" :
				   name[0] == 's'	    ? "stapdev" :
							      pp_config_value(pp->env, name);
		if (op.kind != EQ && op.kind != NE) {
			diag_error(op.loc, D_PREPROCESSOR, "'%s' is compared with == or != only", name);
			*failed = true;
		}
		result = (fnmatch(r.str, have, 0) == 0) == (op.kind == EQ);
	} else {
		diag_error(l.loc, D_PREPROCESSOR, "unknown name '%s' in a preprocessor condition", name);
		struct suggest sg;
		suggest_init(&sg, name);
		for (size_t i = 0; i < ARRAY_SIZE(cond_names); i++)
			suggest_offer(&sg, cond_names[i]);
		if (!suggest_hint(&sg, NULL))
			diag_hint("conditions test kernel_v, kernel_vr, arch, CONFIG_*, systemtap_v, "
				  "systemtap_privilege, guru_mode or runtime");
		*failed = true;
	}
out:
	free(l.str);
	free(r.str);
	return result;
}

/* How a conditional's condition came out. */
enum cond_result { COND_FALSE, COND_TRUE, COND_DROPPED };

/* After a broken condition (reported), go on at its '%?' as if it were
 * false; without one, drop the conditional up to its '%)'. */
static enum cond_result resync_condition(struct pp *pp, struct token *t)
{
	int depth = 0;
	for (;;) {
		if (t->kind == 0) {
			pp->ls.quiet_to_eof = true;
			unget(pp, t);
			return COND_DROPPED;
		}
		if (t->kind == PP_OPEN)
			depth++;
		else if (t->kind == PP_CLOSE && depth-- == 0)
			return COND_DROPPED;
		else if (t->kind == PP_THEN && depth == 0)
			return COND_FALSE;
		tok_free(t);
		raw_next(pp, t);
	}
}

/* CONDITION -> comparison { '&&' comparison } { '||' ... }, up to '%?'. */
static enum cond_result eval_condition(struct pp *pp)
{
	bool result = false, conj = true, failed = false;
	for (;;) {
		conj = eval_comparison(pp, &failed) && conj;
		struct token t;
		expand_next(pp, &t);
		if (t.kind == AND)
			continue;
		result = result || conj;
		conj = true;
		if (t.kind == OR)
			continue;
		if (t.kind == PP_THEN)
			return !failed && result ? COND_TRUE : COND_FALSE;
		if (!failed)
			diag_error(t.loc, D_PREPROCESSOR, "expected '&&', '||' or '%%?' in a preprocessor "
						   "condition");
		return resync_condition(pp, &t);
	}
}

/* Skip a branch, raw; stop after its '%:' (returns it) or its '%)'. After
 * the '%:' (!stop_at_else), another one is a mistake. */
static int skip_branch(struct pp *pp, bool stop_at_else, struct loc at)
{
	int depth = 0;
	for (;;) {
		struct token t;
		raw_next(pp, &t);
		switch (t.kind) {
		case 0:
			if (!pp->ls.quiet_to_eof)
				diag_error(at, D_PREPROCESSOR,
					   "preprocessor conditional is not closed with '%%)'");
			pp->ls.quiet_to_eof = true;
			unget(pp, &t);
			return PP_CLOSE;
		case PP_OPEN:
			depth++;
			break;
		case PP_CLOSE:
			if (depth-- == 0)
				return PP_CLOSE;
			break;
		case PP_ELSE:
			if (depth == 0 && stop_at_else)
				return PP_ELSE;
			if (depth == 0)
				diag_error(t.loc, D_PREPROCESSOR, "a preprocessor conditional has one '%%:'");
			break;
		case PP_THEN:
			if (depth == 0)
				diag_error(t.loc, D_PREPROCESSOR, "a preprocessor conditional has one '%%?'");
			break;
		default:
			tok_free(&t);
			break;
		}
	}
}

static void conditional(struct pp *pp, struct loc at)
{
	enum cond_result r = eval_condition(pp);
	if (r == COND_DROPPED)
		return;
	struct cond *c = xcalloc(1, sizeof *c);
	c->loc = at;
	if (r == COND_TRUE) {
		pv_push(&pp->conds, c);
		return;
	}
	if (skip_branch(pp, true, at) == PP_ELSE) {
		c->in_else = true;
		pv_push(&pp->conds, c);
	} else {
		free(c);
	}
}

/* --- the grammar's tokens --- */

static const struct {
	const char *name;
	int token;
	enum agg agg;
} at_ops[] = {
	{ "count", STAT_OP, AGG_COUNT },	{ "sum", STAT_OP, AGG_SUM },
	{ "min", STAT_OP, AGG_MIN },		{ "max", STAT_OP, AGG_MAX },
	{ "avg", STAT_OP, AGG_AVG },		{ "variance", STAT_OP, AGG_VARIANCE },
	{ "hist_linear", HIST_OP, AGG_HIST_LINEAR }, { "hist_log", HIST_OP, AGG_HIST_LOG },
	{ "entry", AT_ENTRY, AGG_NONE },	{ "defined", AT_DEFINED, AGG_NONE },
	{ "const", AT_CONST, AGG_NONE },	{ "cast", AT_CAST, AGG_NONE },
	{ "var", AT_VAR, AGG_NONE },		{ "probewrite", AT_PROBEWRITE, AGG_NONE },
};

static int at_token(struct pp *pp, struct token *t)
{
	for (size_t i = 0; i < ARRAY_SIZE(at_ops); i++) {
		if (!strcmp(at_ops[i].name, t->val.id)) {
			free(t->val.id);
			t->val.agg = at_ops[i].agg;
			return at_ops[i].token;
		}
	}
	diag_error(t->loc, D_MACRO, "unknown macro or operator '@%s'", t->val.id);
	struct ptrvec names = { 0 };
	char *want = xasprintf("@%s", t->val.id);
	struct suggest sg;
	suggest_init(&sg, want);
	for (size_t i = 0; i < ARRAY_SIZE(at_ops); i++)
		pv_push(&names, xasprintf("@%s", at_ops[i].name));
	for (size_t i = 0; i < pp->macros.n; i++)
		pv_push(&names, xasprintf("@%s", ((struct macro *)pp->macros.v[i])->name));
	for (size_t i = 0; i < pp->env->public_macros.n; i++)
		pv_push(&names, xasprintf("@%s", ((struct macro *)pp->env->public_macros.v[i])->name));
	for (size_t i = 0; i < names.n; i++)
		suggest_offer(&sg, names.v[i]);
	suggest_hint(&sg, NULL);
	for (size_t i = 0; i < names.n; i++)
		free(names.v[i]);
	pv_free(&names);
	free(want);
	free(t->val.id);
	return UNSUPPORTED;
}

int pp_lex(struct pp *pp, STP_STYPE *val, struct loc *loc)
{
	for (;;) {
		struct token t;
		expand_next(pp, &t);
		switch (t.kind) {
		case PP_OPEN:
			conditional(pp, t.loc);
			continue;
		case PP_ELSE: {
			if (!pp->conds.n) {
				diag_error(t.loc, D_PREPROCESSOR, "'%%:' outside a preprocessor conditional");
				continue;
			}
			struct cond *c = pp->conds.v[pp->conds.n - 1];
			if (c->in_else) {
				diag_error(t.loc, D_PREPROCESSOR, "a preprocessor conditional has one '%%:'");
				continue;
			}
			/* The true branch was taken: drop the rest. */
			skip_branch(pp, false, c->loc);
			free(c);
			pp->conds.n--;
			continue;
		}
		case PP_CLOSE:
			if (!pp->conds.n)
				diag_error(t.loc, D_PREPROCESSOR, "'%%)' outside a preprocessor conditional");
			else
				free(pp->conds.v[--pp->conds.n]);
			continue;
		case PP_THEN:
			diag_error(t.loc, D_PREPROCESSOR, pp->conds.n ?
				   "a preprocessor conditional has one '%%?'" :
				   "'%%?' outside a preprocessor conditional");
			continue;
		case AT_ID:
			t.kind = at_token(pp, &t);
			break;
		case 0:
			/* (After an unclosed comment, its '%)' may be in it.) */
			while (pp->conds.n) {
				struct cond *c = pp->conds.v[--pp->conds.n];
				if (!pp->ls.quiet_to_eof)
					diag_error(c->loc, D_PREPROCESSOR,
						   "preprocessor conditional is not closed with '%%)'");
				free(c);
			}
			break;
		default:
			break;
		}
		if (pp->definitions_only && t.kind != 0) {
			diag_error(t.loc, D_PREPROCESSOR, "a .stpm file may hold only @define macros");
			tok_free(&t);
			continue;
		}
		*val = t.val;
		*loc = t.loc;
		return t.kind;
	}
}

struct pp *pp_open(int file, struct pp_env *env, bool definitions_only)
{
	const struct source *src = src_get(file);
	struct pp *pp = xcalloc(1, sizeof *pp);
	pp->env = env;
	pp->file = file;
	pp->definitions_only = definitions_only;
	pp->ls = (struct lex_state){ .file = file, .line = 1, .col = 1 };
	pp->scanner = lex_open(&pp->ls, src->text, src->len);
	return pp;
}

struct lex_state *pp_lex_state(struct pp *pp)
{
	return &pp->ls;
}

void pp_close(struct pp *pp)
{
	lex_close(pp->scanner);
	for (size_t i = 0; i < pp->pending.n; i++) {
		struct pending *p = pp->pending.v[i];
		for (size_t k = p->pos; k < p->n; k++)
			tok_free(&p->toks[k]);
		free(p->toks);
		free(p);
	}
	pv_free(&pp->pending);
	for (size_t i = 0; i < pp->conds.n; i++)
		free(pp->conds.v[i]);
	pv_free(&pp->conds);
	/* The file's macros stay: expansions keep pointers to their names. */
	free(pp);
}
