// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Types. A value is a long or a string; a global may also be a statistic
 * (what '<<<' adds to) or an array of any of these, with one to nine keys
 * that are longs or strings. Variables, functions, keys and values get
 * their types from how they are used: the checker walks the whole program
 * repeatedly, letting each known type flow into unknown ones (assignments,
 * arguments, returns, operators, keys), until nothing changes; one last
 * walk then reports every conflict, at the use that conflicts and with a
 * note where the type was learned. Three stages, so that the conflict is
 * reported where a reader looks for it: the bodies alone first (so a
 * parameter gets its type from its uses, and a call that passes the wrong
 * type is the error), then calls' arguments to untyped parameters, then the
 * script's functions nothing calls (checked, never generated: a type only
 * they leave unknown is no error). An expression that was reported is not
 * reported again by what uses it. printf formats are checked here against
 * their arguments, with the same parser the runtime uses, and regular
 * expressions are compiled.
 *
 * What a statistic is asked for (@count ... @variance, a histogram) is
 * collected on its symbol: the runtime keeps only what is asked for.
 */
#include <stdlib.h>
#include <string.h>

#include "contract/format.h"
#include "front/diag.h"
#include "sema/builtins.h"
#include "sema/regcomp.h"
#include "sema/sema.h"

struct checker {
	struct session *s;
	bool report;          /* the final walk: report errors */
	bool changed;         /* a type was learned during this walk */
	bool args_fix_params; /* a call's argument may give an untyped parameter its type */
	bool with_unused;     /* walk the script's functions nothing calls too */
	bool unused;          /* in one of them now: nothing of it is generated */
	struct symbol *func;  /* the function being checked, or NULL */
	struct handler *h;    /* the probe body being checked, or NULL */
	bool in_entry;        /* inside @entry(...): evaluated at the function's entry */
};

/* The most buckets a linear histogram may have (SystemTap's limit is alike). */
#define MAX_HIST_BUCKETS 1024

static const char *type_words(enum type t)
{
	switch (t) {
	case T_LONG:
		return "a number";
	case T_STRING:
		return "a string";
	case T_STATS:
		return "a statistic";
	case T_VOID:
		return "no value";
	case T_UNKNOWN:
		break;
	}
	return "of unknown type";
}

static const char *sym_words(const struct symbol *sym)
{
	switch (sym->kind) {
	case SYM_FUNCTION:
		return "function";
	case SYM_GLOBAL:
		return sym->is_array ? "array" : "global";
	case SYM_PARAM:
		return "parameter";
	case SYM_LOCAL:
		break;
	}
	return "variable";
}

static void learn(struct checker *c, struct symbol *sym, enum type t, struct loc where)
{
	if (t == T_UNKNOWN || t == T_VOID)
		return;
	if (sym->type == T_UNKNOWN) {
		sym->type = t;
		sym->type_loc = where;
		c->changed = true;
		return;
	}
	if (sym->type != t && c->report) {
		diag_error(where, D_TYPE_MISMATCH, "%s '%s' %s %s, but is used as %s", sym_words(sym),
			   sym->name, sym->is_array ? "holds" : "is", type_words(sym->type),
			   type_words(t));
		diag_note(sym->type_loc, "'%s' got its type here", sym->name);
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
	if (got == T_STATS)
		diag_hint("a statistic is read with @count, @sum, @min, @max, @avg, @variance or a "
			  "histogram");
}

static enum type check_expr(struct checker *c, struct node *n, enum type want);

/* Did checking an expression report an error? Then its type is only a
 * consequence: whoever uses it says nothing more (one mistake, one error). */
static bool reported_since(const struct checker *c, int before)
{
	return c->report && diag_errors() != before;
}

static enum type check_operand(struct checker *c, struct node *n, enum type want,
			       const char *context)
{
	int before = diag_errors();
	enum type t = check_expr(c, n, want);
	if (!reported_since(c, before))
		expect(c, n, t, want, context);
	return t;
}

/* --- arrays --- */

/* An array used with nkeys keys at n. */
static void learn_nkeys(struct checker *c, struct symbol *sym, int nkeys, struct node *n)
{
	if (nkeys > MAX_KEYS) {
		if (c->report)
			diag_error(n->loc, D_ARRAY_KEYS, "an array has at most %d keys, not %d",
				   MAX_KEYS, nkeys);
		return;
	}
	if (sym->nkeys < 0) {
		sym->nkeys = nkeys;
		sym->keys_loc = n->loc;
		c->changed = true;
		return;
	}
	if (sym->nkeys != nkeys && c->report) {
		diag_error(n->loc, D_ARRAY_KEYS, "array '%s' has %d key%s, but is used with %d here",
			   sym->name, sym->nkeys, sym->nkeys == 1 ? "" : "s", nkeys);
		diag_note(sym->keys_loc, "'%s' got %d key%s here", sym->name, sym->nkeys,
			  sym->nkeys == 1 ? "" : "s");
	}
}

/* Key i of array sym is key (an expression, or a '*' where allowed). */
static void check_key(struct checker *c, struct symbol *sym, int i, struct node *key,
		      bool star_ok)
{
	if (key->kind == N_STAR) {
		if (!star_ok && c->report)
			diag_error(key->loc, D_SYNTAX,
				   "'*' as a key is only allowed in delete, foreach and in");
		return;
	}
	enum type want = i < MAX_KEYS && sym->nkeys > i ? sym->key_types[i] : T_UNKNOWN;
	enum type t = check_expr(c, key, want);
	if (t == T_STATS || t == T_VOID) {
		expect(c, key, t, T_LONG, "an array key");
		return;
	}
	if (i >= MAX_KEYS || sym->nkeys <= i || t == T_UNKNOWN)
		return;
	if (sym->key_types[i] == T_UNKNOWN) {
		sym->key_types[i] = t;
		c->changed = true;
	} else if (sym->key_types[i] != t && c->report) {
		diag_error(key->loc, D_TYPE_MISMATCH, "key %d of array '%s' is %s, but this is %s",
			   i + 1, sym->name, type_words(sym->key_types[i]), type_words(t));
		diag_note(sym->keys_loc, "'%s' is used here", sym->name);
	} else if (t == T_UNKNOWN && key->kind == N_VAR && key->sym) {
		learn(c, key->sym, sym->key_types[i], key->loc);
	}
}

static void check_keys(struct checker *c, struct symbol *sym, struct node *n, bool star_ok)
{
	learn_nkeys(c, sym, ast_list_len(n->list), n);
	int i = 0;
	for (struct node *k = n->list; k; k = k->next, i++)
		check_key(c, sym, i, k, star_ok);
}

/* A global used as a plain scalar. */
static bool scalar_use_ok(struct checker *c, struct node *n)
{
	struct symbol *sym = n->sym;
	if (!sym->is_array)
		return true;
	if (c->report) {
		diag_error(n->loc, D_ARRAY_KEYS, "'%s' is an array: use it with its keys, %s[...]",
			   sym->name, sym->name);
		if (sym->nkeys >= 0)
			diag_note(sym->keys_loc, "it is used as an array here");
	}
	return false;
}

/* An array element (not a histogram bucket), as a value. */
static enum type check_element(struct checker *c, struct node *n, enum type want)
{
	struct symbol *sym = n->sym;
	if (!sym)
		return T_UNKNOWN;
	check_keys(c, sym, n, false);
	if (sym->type == T_UNKNOWN && want != T_UNKNOWN)
		learn(c, sym, want, n->loc);
	return sym->type;
}

/* --- statistics --- */

static bool literal_number(struct checker *c, struct node *n, const char *what, long long *v)
{
	check_expr(c, n, T_LONG);
	if (n->kind == N_NUM) {
		*v = n->num;
		return true;
	}
	if (n->kind == N_UNARY && n->op == OP_NEG && n->lhs->kind == N_NUM) {
		*v = (long long)(0ULL - (unsigned long long)n->lhs->num);
		return true;
	}
	if (c->report)
		diag_error(n->loc, D_BAD_HISTOGRAM, "%s must be a number written in the script", what);
	return false;
}

/* The statistic an extractor or histogram reads: a global, or an element. */
static struct symbol *stat_operand(struct checker *c, struct node *operand)
{
	struct symbol *sym = operand->sym;
	if (!sym)
		return NULL;
	if (operand->kind == N_INDEX)
		check_keys(c, sym, operand, false);
	else if (sym->is_array && c->report)
		diag_error(operand->loc, D_ARRAY_KEYS,
			   "'%s' is an array of statistics: read one element, %s[...]", sym->name,
			   sym->name);
	learn(c, sym, T_STATS, operand->loc);
	return sym;
}

static void note_agg(struct checker *c, struct symbol *sym, enum agg agg)
{
	if (!(sym->aggs & (1u << agg))) {
		sym->aggs |= 1u << agg;
		c->changed = true;
	}
}

static enum type check_stat(struct checker *c, struct node *n)
{
	struct symbol *sym = stat_operand(c, n->lhs);
	if (!sym)
		return T_LONG;
	note_agg(c, sym, n->agg);
	if (n->rhs) {
		long long shift = 0;
		if (n->agg != AGG_VARIANCE) {
			if (c->report)
				diag_error(n->rhs->loc, D_WRONG_ARGS, "%s takes one argument",
					   ast_agg_name(n->agg));
		} else if (literal_number(c, n->rhs, "the bit shift of @variance", &shift)) {
			if ((shift < 0 || shift > 62) && c->report)
				diag_error(n->rhs->loc, D_BAD_HISTOGRAM,
					   "the bit shift of @variance is 0 to 62, not %lld", shift);
			else if (sym->variance_shift && sym->variance_shift != shift + 1 && c->report)
				diag_error(n->rhs->loc, D_BAD_HISTOGRAM,
					   "'%s' is used with another @variance bit shift elsewhere",
					   sym->name);
			sym->variance_shift = shift + 1;
		}
	}
	return T_LONG;
}

/* A histogram: where allowed (printing, a bucket, foreach), check it. */
static void check_hist(struct checker *c, struct node *n)
{
	struct symbol *sym = stat_operand(c, n->lhs);
	if (!sym)
		return;
	long long p[3] = { 0, 0, 0 };
	int nargs = ast_list_len(n->list);
	if (n->agg == AGG_HIST_LINEAR) {
		if (nargs != 3) {
			if (c->report)
				diag_error(n->loc, D_BAD_HISTOGRAM,
					   "@hist_linear takes the statistic, start, stop and interval, "
					   "not %d values",
					   nargs + 1);
			return;
		}
		int i = 0;
		static const char *const what[] = { "a histogram's start", "a histogram's stop",
						    "a histogram's interval" };
		bool ok = true;
		for (struct node *a = n->list; a; a = a->next, i++)
			ok = literal_number(c, a, what[i], &p[i]) && ok;
		if (!ok)
			return;
		if (c->report && p[2] <= 0) {
			diag_error(n->list->next->next->loc, D_BAD_HISTOGRAM,
				   "a histogram's interval must be positive, not %lld", p[2]);
			return;
		}
		if (c->report && p[1] <= p[0]) {
			diag_error(n->list->next->loc, D_BAD_HISTOGRAM,
				   "a histogram's stop (%lld) must be above its start (%lld)", p[1], p[0]);
			return;
		}
		/* stop > start, so the span fits in 64 unsigned bits. */
		unsigned long long buckets =
			p[2] > 0 && p[1] > p[0]
				? ((unsigned long long)p[1] - (unsigned long long)p[0]) /
						  (unsigned long long)p[2] +
					  3
				: 0;
		if (c->report && buckets > MAX_HIST_BUCKETS) {
			diag_error(n->loc, D_BAD_HISTOGRAM,
				   "this histogram has %llu buckets; at most %d are allowed", buckets,
				   MAX_HIST_BUCKETS);
			return;
		}
	} else if (nargs && c->report) {
		diag_error(n->loc, D_BAD_HISTOGRAM, "@hist_log takes only the statistic");
		return;
	}
	/* One histogram per statistic. */
	unsigned other = n->agg == AGG_HIST_LINEAR ? AGG_HIST_LOG : AGG_HIST_LINEAR;
	bool conflict = (sym->aggs & (1u << other)) ||
			(n->agg == AGG_HIST_LINEAR && (sym->aggs & (1u << AGG_HIST_LINEAR)) &&
			 memcmp(sym->hist, p, sizeof p));
	if (conflict) {
		if (c->report)
			diag_error(n->loc, D_BAD_HISTOGRAM,
				   "'%s' already has another histogram: a statistic has one", sym->name);
		return;
	}
	memcpy(sym->hist, p, sizeof p);
	note_agg(c, sym, n->agg);
}

/* --- target variables --- */

/* No probe of the handler is an entry probe. (A handler whose probe points
 * all failed, which was reported already, has none.) */
static bool all_points_return(struct checker *c, struct handler *h)
{
	for (size_t i = 0; i < c->s->prog.probes.n; i++) {
		struct probe *p = c->s->prog.probes.v[i];
		if (p->handler == h && p->kind != PK_KRETPROBE && p->kind != PK_URETPROBE)
			return false;
	}
	return true;
}

/* A target expression already resolved and failed: reported once. */
static struct target_access failed_access;

/* A procfs probe's $value, a netfilter probe's $verdict. */
static struct target_access procfs_value = { .result = TA_PROCFS, .text = "$value" };
static struct target_access nf_verdict = { .result = TA_NF_VERDICT, .text = "$verdict" };

static enum type access_type(const struct target_access *a)
{
	switch (a->result) {
	case TA_STRING:
	case TA_PRETTY:
	case TA_VARLIST:
	case TA_CONSTANT:
	case TA_PROCFS:
		return T_STRING;
	case TA_NF_VERDICT:
	case TA_INT:
	case TA_ADDRESS:
	case TA_SAVED:
		break;
	}
	return T_LONG;
}

static enum type check_target(struct checker *c, struct node *n)
{
	for (struct node *m = n->list; m; m = m->next)
		if (m->lhs)
			check_expr(c, m->lhs, T_LONG);
	if (!c->h) {
		if (c->report)
			diag_error(n->loc, D_TARGET_VARIABLE,
				   "'$%s' can only be used in a probe body", n->name);
		return T_LONG;
	}
	if (target_is_procfs_value(c->s, c->h, n)) {
		n->access = &procfs_value;
		return T_STRING;
	}
	if (target_is_nf_verdict(c->s, c->h, n)) {
		n->access = &nf_verdict;
		return T_LONG;
	}
	/* Without a site, $return is the kernel probe's return register. */
	if (!c->h->site) {
		if (!c->report)
			return T_LONG;
		if (strcmp(n->name, "return") != 0 || n->list || n->pretty || n->addr_of) {
			target_resolve(c->s, c->h, n, c->in_entry, false);
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
	/* --skip-badvars: what cannot be read here is 0, with a warning. */
	if (!n->access && c->s->skip_badvars &&
	    !(n->access = target_resolve(c->s, c->h, n, c->in_entry, true))) {
		char *text = ast_expr_text(n);
		diag_warning(n->loc, D_TARGET_VARIABLE,
			     "'%s' cannot be read at %s: --skip-badvars makes it 0", text,
			     c->h->site->function);
		free(text);
		n->kind = N_NUM;
		n->num = 0;
		n->list = NULL;
		n->pretty = 0;
		n->addr_of = false;
		return T_LONG;
	}
	if (!n->access)
		n->access = target_resolve(c->s, c->h, n, c->in_entry, false);
	if (!n->access)
		n->access = &failed_access;
	/* Said already: whatever uses it says nothing more. */
	if (n->access == &failed_access)
		return T_UNKNOWN;
	return access_type(n->access);
}

/* @entry(expr): expr is evaluated when the function is entered and saved
 * per call for the .return body. */
static enum type check_entry(struct checker *c, struct node *n)
{
	if (c->in_entry) {
		if (c->report)
			diag_error(n->loc, D_TARGET_VARIABLE, "@entry(...) inside @entry(...)");
		return T_LONG;
	}
	c->in_entry = true;
	enum type t = check_expr(c, n->lhs, T_UNKNOWN);
	c->in_entry = false;
	/* A return probe's handler: through debug information (its site), or
	 * one every probe of which is a return probe (kprobe.function().return). */
	if (!c->h || !(c->h->site ? c->h->is_return : all_points_return(c, c->h))) {
		if (c->report) {
			diag_error(n->loc, D_TARGET_VARIABLE,
				   "@entry(...) is only available in a '.return' probe");
			diag_hint("kernel.function(\"F\").return { ... @entry($arg) ... }");
		}
		return t == T_STRING ? T_STRING : T_LONG;
	}
	if (c->report && !n->access && (t == T_LONG || t == T_STRING))
		target_save_at_entry(c->h, n,
				     t == T_STRING ? (size_t)c->s->limits[LIMIT_MAXSTRINGLEN] : 8);
	else if (c->report && t != T_LONG && t != T_STRING && t != T_UNKNOWN)
		diag_error(n->lhs->loc, D_TYPE_MISMATCH, "@entry(...) saves a number or a string, "
			   "not %s", type_words(t));
	return t == T_STRING ? T_STRING : T_LONG;
}

/* --- printf --- */

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

/* A printed value: a number, a string, or (where printing allows) a histogram. */
static enum type check_value(struct checker *c, struct node *n, bool hist_ok, const char *what)
{
	if (n->kind == N_HIST) {
		if (hist_ok)
			check_hist(c, n);
		else if (c->report)
			diag_error(n->loc, D_BAD_HISTOGRAM,
				   "%s cannot take a histogram; print, println and sprint can", what);
		return T_UNKNOWN;
	}
	enum type t = check_expr(c, n, T_UNKNOWN);
	if (c->report && t == T_VOID)
		diag_error(n->loc, D_VOID_VALUE, "this has no value to print");
	if (c->report && t == T_STATS) {
		diag_error(n->loc, D_TYPE_MISMATCH, "%s cannot take a statistic", what);
		diag_hint("print @count(s), @sum(s), @avg(s), ... or @hist_log(s)");
	}
	return t;
}

static void check_format(struct checker *c, struct node *call)
{
	struct node *fmt = call->list;
	if (fmt->kind != N_STR) { /* pass 1 reported it */
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
		if (arg->kind == N_HIST)
			check_value(c, arg, false, call->name);
		else
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

/* --- calls --- */

/* @perf("NAME"): the counter probe perf....counter("NAME"), by its index
 * among the probes (kept in n->num). */
static void resolve_counter(struct checker *c, struct node *n)
{
	struct node *name = n->list;
	if (name->kind != N_STR) { /* pass 1 reported it */
		check_expr(c, name, T_STRING);
		return;
	}
	struct suggest sg;
	suggest_init(&sg, name->str);
	const struct ptrvec *probes = &c->s->prog.probes;
	for (size_t i = 0; i < probes->n; i++) {
		const struct probe *p = probes->v[i];
		if (p->kind != PK_PERF_COUNTER)
			continue;
		if (!strcmp(p->symbol, name->str)) {
			n->num = (long long)i;
			return;
		}
		suggest_offer(&sg, p->symbol);
	}
	if (!c->report)
		return;
	diag_error(name->loc, D_UNKNOWN_COUNTER, "no counter \"%s\" is defined", name->str);
	if (!suggest_hint(&sg, NULL))
		diag_hint("define it with a probe such as perf.sw.task_clock.process(\"PATH\").counter(\"%s\") {}",
			  name->str);
}

static enum type check_binary(struct checker *c, struct node *n);
static enum type check_builtin(struct checker *c, struct node *n, enum type want)
{
	const struct builtin *b = n->builtin;
	int nargs = ast_list_len(n->list);
	int min = builtin_min_args(b), max = builtin_max_args(b);
	if (nargs < min || (max >= 0 && nargs > max)) {
		if (c->report) {
			if (min == max)
				diag_error(n->loc, D_WRONG_ARGS, "%s() takes %d argument%s, not %d",
					   b->name, min, min == 1 ? "" : "s", nargs);
			else
				diag_error(n->loc, D_WRONG_ARGS,
					   "%s() takes at least %d argument%s, not %d", b->name, min,
					   min == 1 ? "" : "s", nargs);
		}
		for (struct node *a = n->list; a; a = a->next)
			if (a->kind != N_HIST)
				check_expr(c, a, T_UNKNOWN);
		return builtin_result(b);
	}
	(void)want;
	const char *guru = builtin_guru_reason(b->id);
	if (guru && !c->s->guru && n->loc.file == c->s->prog.user_file && c->report)
		diag_error(n->loc, D_NEEDS_GURU, "%s() needs guru mode: %s", b->name, guru);
	switch (b->id) {
	case B_PRINTF:
	case B_SPRINTF:
		check_format(c, n);
		return builtin_result(b);
	case B_PRINTD:
	case B_PRINTDLN:
	case B_SPRINTD:
	case B_SPRINTDLN:
		check_expr(c, n->list, T_STRING);
		for (struct node *a = n->list->next; a; a = a->next)
			check_value(c, a, false, b->name);
		return builtin_result(b);
	case B_PRINT:
	case B_PRINTLN:
	case B_SPRINT:
	case B_SPRINTLN:
	case B_AUTOPRINT_VALUE:
		for (struct node *a = n->list; a; a = a->next)
			check_value(c, a, true, b->name);
		return builtin_result(b);
	case B_KERNEL_STRING:
	case B_KERNEL_STRING2:
	case B_KERNEL_STRING_N: {
		/* SystemTap's scripts read a char array as kernel_string($p->comm),
		 * where the array stands for its address: so it does here. */
		struct node *a = n->list;
		bool target = a->kind == N_TARGET || a->kind == N_CAST || a->kind == N_ATVAR;
		/* (A @cast needs no probe hit: in a function too.) */
		if (target && !a->addr_of && !a->pretty && (c->h || a->kind == N_CAST) &&
		    check_expr(c, a, T_UNKNOWN) == T_STRING) {
			a->addr_of = true;
			a->access = NULL;
		} else if (!target && b->id != B_KERNEL_STRING_N &&
			   check_expr(c, a, T_UNKNOWN) == T_STRING) {
			/* A char array read into a string already (namep =
			 * $tty->name): the string itself, as "" . a. */
			struct node *empty = ast_new(N_STR, n->loc);
			empty->str = xstrdup("");
			n->kind = N_BINARY;
			n->op = OP_CONCAT;
			n->lhs = a;
			n->rhs = empty;
			n->list = NULL;
			n->builtin = NULL;
			return check_binary(c, n);
		}
		break;
	}
	case B_PERF_READ:
		resolve_counter(c, n);
		return builtin_result(b);
	default:
		break;
	}
	int i = 0;
	for (struct node *a = n->list; a; a = a->next, i++) {
		enum type argt = builtin_arg(b, i);
		char *context = xasprintf("argument %d of %s()", i + 1, b->name);
		enum type t = check_operand(c, a, argt, context);
		free(context);
		if (argt == T_UNKNOWN && t == T_VOID && c->report)
			diag_error(a->loc, D_VOID_VALUE, "this has no value to print");
	}
	return builtin_result(b);
}

static enum type check_call(struct checker *c, struct node *n, enum type want)
{
	if (n->builtin)
		return check_builtin(c, n, want);
	struct symbol *f = n->sym;
	if (!f) {
		for (struct node *a = n->list; a; a = a->next)
			check_expr(c, a, T_UNKNOWN);
		return T_UNKNOWN;
	}
	int i = 0;
	for (struct node *a = n->list; a; a = a->next, i++) {
		struct symbol *param = i < f->nparams ? f->vars.v[i] : NULL;
		int before = diag_errors();
		enum type t = check_expr(c, a, param ? param->type : T_UNKNOWN);
		if (reported_since(c, before))
			continue;
		if (t == T_VOID || t == T_STATS) {
			if (c->report)
				diag_error(a->loc, t == T_VOID ? D_VOID_VALUE : D_TYPE_MISMATCH,
					   "%s cannot be passed to %s()",
					   t == T_VOID ? "no value" : "a statistic", f->name);
			continue;
		}
		if (!param)
			continue;
		if (param->type == T_UNKNOWN) {
			/* Only once the bodies said what they could: a conflict is
			 * then reported at the call, not inside the function. */
			if (c->args_fix_params)
				learn(c, param, t, a->loc);
		} else if (t != T_UNKNOWN && t != param->type && c->report) {
			diag_error(a->loc, D_TYPE_MISMATCH,
				   "argument %d of %s() is %s, but parameter '%s' is %s", i + 1,
				   f->name, type_words(t), param->name, type_words(param->type));
			diag_note(param->type_loc, "'%s' got its type here", param->name);
		} else if (t == T_UNKNOWN && a->kind == N_VAR && a->sym)
			learn(c, a->sym, param->type, a->loc);
	}
	/* A script function's type comes from its returns (a wrong use is then
	 * reported at the call); embedded C has none, so its uses decide. */
	if (f->decl->body->kind == N_EMBEDDED && f->type == T_UNKNOWN)
		learn(c, f, want, n->loc);
	return f->type;
}

/* --- assignments --- */

/* The symbol an lvalue writes: a variable or an array element. */
static struct symbol *lvalue(struct checker *c, struct node *n, const char *what)
{
	if (n->kind == N_VAR && n->sym) {
		scalar_use_ok(c, n);
		return n->sym;
	}
	if (n->kind == N_INDEX && !n->lhs && n->sym) {
		check_keys(c, n->sym, n, false);
		return n->sym;
	}
	if (c->report && n->kind != N_VAR && n->kind != N_INDEX)
		diag_error(n->loc, D_NOT_ASSIGNABLE,
			   "cannot assign to %s %s: %s needs a variable or an array element",
			   ast_kind_article(n->kind), ast_kind_name(n->kind), what);
	check_expr(c, n, T_UNKNOWN);
	return NULL;
}

/* The handler's probes are all of a kind whose registers are the probed
 * code's own (not a tracepoint's or a timer's stand-ins). */
static bool registers_are_live(struct checker *c, struct handler *h)
{
	for (size_t i = 0; i < c->s->prog.probes.n; i++) {
		struct probe *p = c->s->prog.probes.v[i];
		if (p->handler == h && p->kind != PK_KPROBE && p->kind != PK_KRETPROBE &&
		    p->kind != PK_UPROBE && p->kind != PK_URETPROBE)
			return false;
	}
	return h != NULL;
}

/*
 * $var = value, $p->field += value, @cast(...)->m = value: guru mode only
 * (a write changes what the probed code does). Numbers only, in memory
 * (written fault-safe) or in a register of a kprobe or uprobe.
 */
static enum type check_target_assign(struct checker *c, struct node *n)
{
	struct node *t = n->lhs;
	/* A procfs read probe's $value is the script's to write: the file's
	 * text. A write probe's is what was written, the script's to read. */
	if (target_is_procfs_value(c->s, c->h, t)) {
		if (target_is_special(c->s, c->h, t, "value", PK_PROCFS_WRITE, PK_PROCFS_WRITE) &&
		    c->report)
			diag_error(t->loc, D_NOT_ASSIGNABLE, "a procfs write probe's $value is what "
				   "was written: it can be read, not set");
		else if (n->op != OP_ASSIGN && n->op != OP_CONCAT && c->report)
			diag_error(n->loc, D_TYPE_MISMATCH, "$value is a string: set it with '=' or "
				   "add to it with '.='");
		t->access = &procfs_value;
		t->type = T_STRING;
		check_operand(c, n->rhs, T_STRING, "an assignment to $value");
		return T_STRING;
	}
	char *text = ast_expr_text(t);
	if (!c->s->guru) {
		if (c->report) {
			diag_error(t->loc, D_NEEDS_GURU,
				   "writing to '%s' needs guru mode: a write changes what the probed "
				   "code does",
				   text);
			diag_hint("run stap with -g");
		}
		check_expr(c, n->rhs, T_UNKNOWN);
		free(text);
		return T_LONG;
	}
	if (n->op == OP_CONCAT || n->op == OP_AGG || t->pretty || t->addr_of) {
		if (c->report)
			diag_error(t->loc, D_NOT_ASSIGNABLE, "cannot write '%s': only '=' and the "
				   "arithmetic assignments write a number to a target variable",
				   text);
		check_expr(c, n->rhs, T_UNKNOWN);
		free(text);
		return T_LONG;
	}
	/* A netfilter probe's $verdict: the packet's fate. */
	if (target_is_nf_verdict(c->s, c->h, t)) {
		t->access = &nf_verdict;
		free(text);
		check_operand(c, n->rhs, T_LONG, "an assignment to $verdict");
		t->type = T_LONG;
		return T_LONG;
	}
	int before = diag_errors();
	check_expr(c, t, T_LONG);
	if (c->report && !reported_since(c, before)) {
		const char *why = NULL;
		int reg = 0; /* a kernel probe's $return without debug information: rax */
		if (t->access && t->access != &failed_access) {
			why = target_write_problem(t->access, &reg);
			t->access->write_reg = reg;
		}
		if (!why && reg >= 0 && !registers_are_live(c, c->h))
			why = "it is in a register, and only kprobes and uprobes (function entries, "
			      "returns and statements) have the probed code's registers";
		if (why)
			diag_error(t->loc, D_NOT_ASSIGNABLE, "cannot write '%s': %s", text, why);
	}
	free(text);
	check_operand(c, n->rhs, T_LONG, "an assignment to a target variable");
	t->type = T_LONG;
	return T_LONG;
}

/* What a guru-mode assignment writes to the probed code's memory or
 * registers: a target variable, a cast's or an autocast's member. */
static bool is_target_node(const struct node *n)
{
	return n->kind == N_TARGET || n->kind == N_CAST || n->kind == N_ATVAR ||
	       (n->kind == N_AUTOCAST && n->list);
}

/*
 * Autocast (SystemTap 2.6): the struct or union a value is known to point
 * to. A target expression knows its type; a local knows it when every
 * typed value stored in it agrees, a function's call when every typed
 * value it returns does, and task_current() and pid2task() to the
 * kernel's task_struct. NULL when not known.
 */
static struct ctype *autocast_of(struct session *s, const struct node *e, bool *user)
{
	struct ctype *t = NULL;
	*user = false;
	if (e->kind == N_ENTRY) /* @entry(v): v's type, as at the entry */
		e = e->lhs;
	switch (e->kind) {
	case N_TARGET:
	case N_CAST:
	case N_ATVAR:
	case N_AUTOCAST:
		if (!e->access || e->access == &failed_access || !e->access->type)
			return NULL;
		*user = e->access->user;
		t = ctype_complete(e->access->type);
		/* A pointer member, or &obj, or a bare @cast (the struct's address). */
		if (!e->addr_of && t->kind == CT_PTR)
			t = t->target ? ctype_complete(t->target) : NULL;
		else if (!e->addr_of && !(e->kind == N_CAST && !e->list))
			return NULL;
		break;
	case N_CALL:
		/* SystemTap's return &@task(...): a typed task_struct pointer. */
		if (e->builtin && (e->builtin->id == B_TASK_CURRENT || e->builtin->id == B_PID2TASK))
			return target_task_struct(s);
		/* fall through */
	case N_VAR:
		if (!e->sym || e->sym->kind == SYM_GLOBAL || e->sym->autocast_mixed)
			return NULL;
		*user = e->sym->autocast_user;
		t = e->sym->autocast;
		break;
	case N_ASSIGN: /* (p = &$x)->y: the value assigned */
		return e->op == OP_ASSIGN ? autocast_of(s, e->rhs, user) : NULL;
	case N_TERNARY: { /* (c ? &$x : &$y)->z: when both sides agree */
		bool u2;
		struct ctype *a = autocast_of(s, e->then, user), *b = autocast_of(s, e->els, &u2);
		return a && b && *user == u2 && (a == b || (a->name && b->name && !strcmp(a->name, b->name)))
			       ? a : NULL;
	}
	default:
		return NULL;
	}
	/* A struct or union for '->', any sized type for '[...]' ((argv)[0]
	 * of a char **): the members say which, and complain otherwise. */
	return t && t->kind != CT_VOID && t->kind != CT_FUNC && (t->size || t->kind == CT_STRUCT ||
								  t->kind == CT_UNION) ? t : NULL;
}

/* A value stored in sym (a local, or a function's return): keep the type
 * it points to, or note that two stores disagree. */
static void learn_autocast(struct session *s, struct symbol *sym, const struct node *value)
{
	bool user;
	struct ctype *t = autocast_of(s, value, &user);
	if (!t || sym->autocast_mixed)
		return;
	if (!sym->autocast) {
		sym->autocast = t;
		sym->autocast_user = user;
	} else if (sym->autocast != t && (!sym->autocast->name || !t->name ||
					   strcmp(sym->autocast->name, t->name) ||
					   sym->autocast_user != user)) {
		sym->autocast_mixed = true;
	}
}

static enum type check_assign(struct checker *c, struct node *n)
{
	if (is_target_node(n->lhs))
		return check_target_assign(c, n);
	if (n->op == OP_AGG) {
		struct symbol *sym = lvalue(c, n->lhs, "'<<<'");
		check_operand(c, n->rhs, T_LONG, "'<<<'");
		if (sym) {
			if (sym->kind != SYM_GLOBAL && c->report)
				diag_error(n->lhs->loc, D_NOT_GLOBAL,
					   "'%s' is local, but '<<<' adds to a global statistic",
					   sym->name);
			learn(c, sym, T_STATS, n->lhs->loc);
		}
		n->lhs->type = T_STATS;
		return T_VOID;
	}
	char *what = xasprintf("'%s'", n->op == OP_ASSIGN ? "=" : ast_op_name(n->op));
	struct symbol *sym = lvalue(c, n->lhs, what);
	free(what);
	if (!sym) {
		check_expr(c, n->rhs, T_UNKNOWN);
		return T_UNKNOWN;
	}
	if (sym->type == T_STATS) {
		if (c->report) {
			diag_error(n->loc, D_TYPE_MISMATCH, "%s '%s' is a statistic: add to it with '<<<'",
				   sym_words(sym), sym->name);
			diag_note(sym->type_loc, "'%s' got its type here", sym->name);
		}
		check_expr(c, n->rhs, T_UNKNOWN);
		return T_UNKNOWN;
	}
	enum type t;
	switch (n->op) {
	case OP_ASSIGN: {
		int before = diag_errors();
		t = check_expr(c, n->rhs, sym->type);
		if (reported_since(c, before)) {
			n->lhs->type = sym->type;
			return sym->type;
		}
		if (t == T_VOID || t == T_STATS) {
			expect(c, n->rhs, t, sym->type == T_UNKNOWN ? T_LONG : sym->type,
			       "an assignment");
			return sym->type;
		}
		learn(c, sym, t, n->loc);
		if (sym->kind != SYM_GLOBAL)
			learn_autocast(c->s, sym, n->rhs);
		if (sym->type == T_UNKNOWN)
			return T_UNKNOWN;
		if (t == T_UNKNOWN && n->rhs->kind == N_VAR && n->rhs->sym)
			learn(c, n->rhs->sym, sym->type, n->rhs->loc);
		n->lhs->type = sym->type;
		return sym->type;
	}
	case OP_CONCAT:
		learn(c, sym, T_STRING, n->loc);
		check_operand(c, n->rhs, T_STRING, "'.='");
		n->lhs->type = T_STRING;
		return T_STRING;
	default: {
		learn(c, sym, T_LONG, n->loc);
		char *context = xasprintf("'%s='", ast_op_name(n->op));
		check_operand(c, n->rhs, T_LONG, context);
		free(context);
		n->lhs->type = T_LONG;
		return T_LONG;
	}
	}
}

/* --- regular expressions --- */

static void compile_regex(struct checker *c, struct node *n)
{
	struct node *pat = n->rhs;
	if (pat->kind != N_STR)
		return; /* pass 1 reported it */
	if (!c->report || n->num)
		return;
	char *err = NULL;
	size_t off = 0;
	struct regex *re = regex_compile(pat->str, &err, &off);
	if (!re) {
		diag_error(string_offset_loc(pat, off), D_BAD_REGEX, "%s", err);
		free(err);
		return;
	}
	if (c->unused) {
		/* Checked, but never generated. */
		regex_free(re);
		return;
	}
	pv_push(&c->s->prog.regexes, re);
	/* The regex's number, plus one (0: none). */
	n->num = (long long)c->s->prog.regexes.n;
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
		compile_regex(c, n);
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
		if (lt == T_VOID || rt == T_VOID || lt == T_STATS || rt == T_STATS) {
			bool left = lt == T_VOID || lt == T_STATS;
			expect(c, left ? n->lhs : n->rhs, left ? lt : rt, T_LONG, context);
		} else if (lt != T_UNKNOWN && rt != T_UNKNOWN && lt != rt && c->report) {
			diag_error(n->loc, D_TYPE_MISMATCH, "%s compares %s with %s", context,
				   type_words(lt), type_words(rt));
		}
		n->lhs->type = lt;
		break;
	}
	case OP_AND:
	case OP_OR: {
		/* SystemTap's "count && ++n == count && exit()": an action with no
		 * value, run for its effect, may end the chain (it counts as 0). */
		check_operand(c, n->lhs, T_LONG, context);
		int before = diag_errors();
		enum type rt = check_expr(c, n->rhs, T_LONG);
		if (rt != T_VOID && !reported_since(c, before))
			expect(c, n->rhs, rt, T_LONG, context);
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

static enum type check_in(struct checker *c, struct node *n)
{
	if (n->sym)
		check_keys(c, n->sym, n, true);
	return T_LONG;
}

static bool is_guru_ok(struct checker *c, struct node *n)
{
	/* Tapset files may use embedded C (they are trusted, as in SystemTap);
	 * the user's script needs guru mode. */
	if (c->s->guru || n->loc.file != c->s->prog.user_file) {
		if (!c->unused)
			c->s->prog.uses_embedded_c = true;
		return true;
	}
	if (c->report) {
		/* (embedded C in the script without -g stopped pass 1) */
		diag_error(n->loc, D_NEEDS_GURU, "@const needs guru mode");
		diag_hint("run stap with -g; the module is then built with the kernel's full kbuild, "
			  "which takes a few seconds");
	}
	return false;
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
		if (n->sym && c->in_entry && n->sym->kind != SYM_GLOBAL && c->report)
			diag_error(n->loc, D_TARGET_VARIABLE,
				   "@entry(...) is evaluated when the function is entered, before "
				   "the probe's local '%s' exists", n->sym->name);
		if (n->sym) {
			if (!scalar_use_ok(c, n))
				break;
			if (n->sym->type == T_UNKNOWN)
				learn(c, n->sym, want, n->loc);
			t = n->sym->type;
		}
		break;
	case N_INDEX:
		if (n->lhs) { /* a histogram's bucket count */
			check_hist(c, n->lhs);
			if (ast_list_len(n->list) != 1 && c->report)
				diag_error(n->loc, D_ARRAY_KEYS, "a histogram bucket has one index");
			for (struct node *k = n->list; k; k = k->next)
				check_operand(c, k, T_LONG, "a histogram bucket");
			t = T_LONG;
		} else {
			t = check_element(c, n, want);
		}
		break;
	case N_IN:
		t = check_in(c, n);
		break;
	case N_STAR:
		if (c->report)
			diag_error(n->loc, D_SYNTAX, "'*' as a key is only allowed in delete, foreach and in");
		break;
	case N_STAT:
		t = check_stat(c, n);
		break;
	case N_HIST:
		check_hist(c, n);
		if (c->report)
			diag_error(n->loc, D_BAD_HISTOGRAM,
				   "a histogram can be printed (print, println, sprint), iterated "
				   "(foreach) or indexed ([bucket]), and nothing else");
		break;
	case N_TARGET:
		t = check_target(c, n);
		break;
	case N_ENTRY:
		t = check_entry(c, n);
		break;
	case N_CAST:
		for (struct node *m = n->list; m; m = m->next)
			if (m->lhs)
				check_expr(c, m->lhs, T_LONG);
		check_expr(c, n->lhs, T_LONG);
		if (!n->access)
			n->access = target_resolve_cast(c->s, c->h, n, false);
		if (!n->access)
			n->access = &failed_access;
		t = access_type(n->access);
		break;
	case N_ATVAR:
		for (struct node *m = n->list; m; m = m->next)
			if (m->lhs)
				check_expr(c, m->lhs, T_LONG);
		if (!n->access)
			n->access = target_resolve_atvar(c->s, c->h, n, false);
		if (!n->access)
			n->access = &failed_access;
		t = access_type(n->access);
		break;
	case N_AUTOCAST: {
		check_expr(c, n->lhs, T_UNKNOWN);
		for (struct node *m = n->list; m; m = m->next)
			if (m->lhs)
				check_expr(c, m->lhs, T_LONG);
		bool user;
		struct ctype *pointee = autocast_of(c->s, n->lhs, &user);
		if (!n->access && pointee)
			n->access = target_resolve_autocast(c->s, c->h, n, pointee, user, !c->report);
		if (n->access) {
			t = access_type(n->access);
			break;
		}
		const char *op = !n->list ? (n->addr_of ? "&" : n->pretty == 2 ? "$$" : "$")
				 : n->list->name ? "->" : "[...]";
		if (c->report && !pointee) {
			char *text = ast_expr_text(n->lhs);
			diag_error(n->loc, D_UNSUPPORTED,
				   "'%s' on '%s': its type is not known here (autocast follows a "
				   "typed value through locals and function returns)",
				   op, text);
			if ((n->lhs->kind == N_VAR || n->lhs->kind == N_CALL) && n->lhs->sym &&
			    n->lhs->sym->autocast_mixed)
				diag_hint("'%s' holds pointers to different types: say which with "
					  "@cast(%s, \"struct_name\")%s...", text, text,
					  n->list && n->list->name ? "->" : "");
			else
				diag_hint("say the type: @cast(%s, \"struct_name\"[, \"module\"])%s...",
					  text, n->list && n->list->name ? "->" : "");
			free(text);
		}
		if (c->report)
			n->access = &failed_access;
		t = n->pretty ? T_STRING : T_LONG;
		break;
	}
	case N_DEFINED:
		/* Left by elaboration for an autocast member (n->num -1): once
		 * its base's type is learned, whether the member exists. */
		if (n->num < 0 && n->lhs->kind == N_AUTOCAST) {
			check_expr(c, n->lhs->lhs, T_UNKNOWN);
			bool user;
			struct ctype *pointee = autocast_of(c->s, n->lhs->lhs, &user);
			if (pointee)
				n->num = target_resolve_autocast(c->s, c->h, n->lhs, pointee, user,
								 true) != NULL;
		}
		t = T_LONG;
		break;
	case N_PROBEWRITE:
		/* Folded before this pass; left only where it means nothing. */
		if (c->report)
			diag_error(n->loc, D_MISPLACED, "%s is only meaningful in a probe alias's block",
				   ast_kind_name(n->kind));
		t = T_LONG;
		break;
	case N_CONST:
		is_guru_ok(c, n);
		t = T_LONG;
		break;
	case N_EMBEDDED:
		is_guru_ok(c, n);
		t = strstr(n->str, "/* string */") ? T_STRING : T_LONG;
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
	case N_INCDEC: {
		struct symbol *sym = lvalue(c, n->lhs, n->op == OP_INC ? "'++'" : "'--'");
		if (sym) {
			learn(c, sym, T_LONG, n->loc);
			n->lhs->type = T_LONG;
		}
		t = T_LONG;
		break;
	}
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
	case N_ALIAS:
	case N_PROBE_POINT:
	case N_PP_COMP:
	case N_GLOBAL:
	case N_FUNCTION:
	case N_PARAM:
	case N_MEMBER:
	AST_STMT_CASES
	case N_NKINDS:
		break;
	}
	n->type = t;
	return t;
}

/* --- statements --- */

static void check_stmt(struct checker *c, struct node *n);

static void check_stmt_child(struct node *child, void *ctx)
{
	check_stmt(ctx, child);
}

/* Its one sort (pass 1 saw there is at most one): a key's, or the
 * value's, which sorting the value variable means too. */
static void check_foreach_sort(struct checker *c, struct node *n, struct symbol *sym)
{
	int value_sort = n->sort;
	if (n->then && n->then->sort)
		value_sort = n->then->sort;
	/* Pass 3 reads the value's sort on the foreach; this walk may run
	 * again, and must count it once. */
	if (c->report && n->then && n->then->sort) {
		n->sort = value_sort;
		n->then->sort = 0;
	}
	if (!sym)
		return;
	/* Walking statistics merges every CPU's copy: the exclusive lock. */
	if (sym->type == T_STATS && c->report) {
		struct ptrvec *wr = c->h ? &c->h->globals_wr : &c->func->globals_wr;
		bool found = false;
		for (size_t i = 0; i < wr->n && !found; i++)
			found = wr->v[i] == sym;
		if (!found)
			pv_push(wr, sym);
	}
	if (n->agg != AGG_NONE && sym->type != T_STATS && sym->type != T_UNKNOWN && c->report)
		diag_error(n->loc, D_FOREACH, "sorting by %s is for arrays of statistics",
			   ast_agg_name(n->agg));
	if (sym->type == T_STATS && value_sort) {
		if (n->agg == AGG_NONE)
			n->agg = AGG_COUNT; /* SystemTap's default */
		note_agg(c, sym, n->agg);
	}
}

static void check_foreach(struct checker *c, struct node *n)
{
	struct node *src = n->lhs;
	int nvars = ast_list_len(n->list);
	if (src->kind == N_HIST) {
		check_hist(c, src);
		if (c->report && (nvars != 1 || n->then || n->sort || n->list->sort))
			diag_error(n->loc, D_FOREACH,
				   "a foreach over a histogram takes one bucket variable, unsorted");
		for (struct node *k = n->list; k; k = k->next)
			if (k->sym)
				learn(c, k->sym, T_LONG, k->loc);
	} else if (src->sym) {
		struct symbol *sym = src->sym;
		learn_nkeys(c, sym, nvars, n);
		if (src->kind == N_INDEX) {
			if (ast_list_len(src->list) != nvars && c->report)
				diag_error(src->loc, D_ARRAY_KEYS,
					   "the slice has %d keys, but the foreach has %d variables",
					   ast_list_len(src->list), nvars);
			int i = 0;
			for (struct node *k = src->list; k; k = k->next, i++)
				check_key(c, sym, i, k, true);
		}
		int i = 0;
		for (struct node *k = n->list; k; k = k->next, i++) {
			if (!k->sym || i >= MAX_KEYS || sym->nkeys <= i)
				continue;
			if (sym->key_types[i] != T_UNKNOWN)
				learn(c, k->sym, sym->key_types[i], k->loc);
			else if (k->sym->type != T_UNKNOWN) {
				sym->key_types[i] = k->sym->type;
				c->changed = true;
			}
		}
		if (n->then && n->then->sym) {
			if (sym->type == T_STATS) {
				if (c->report)
					diag_error(n->then->loc, D_FOREACH,
						   "the values of '%s' are statistics: read one with "
						   "@count(%s[...]) and the like",
						   sym->name, sym->name);
			} else if (sym->type != T_UNKNOWN) {
				learn(c, n->then->sym, sym->type, n->then->loc);
			} else if (n->then->sym->type != T_UNKNOWN) {
				learn(c, sym, n->then->sym->type, n->then->loc);
			}
		}
		check_foreach_sort(c, n, sym);
	}
	if (n->step)
		check_operand(c, n->step, T_LONG, "'limit'");
	check_stmt(c, n->body);
}

static void check_delete(struct checker *c, struct node *n)
{
	struct node *t = n->lhs;
	if (t->kind == N_VAR && t->sym) {
		/* Deleting a scalar resets it; an array or statistic is emptied. */
		return;
	}
	if (t->kind == N_INDEX && !t->lhs && t->sym) {
		check_keys(c, t->sym, t, true);
		return;
	}
	if (c->report)
		diag_error(t->loc, D_NOT_ASSIGNABLE,
			   "delete takes a variable, an array or an array element, not %s %s",
			   ast_kind_article(t->kind), ast_kind_name(t->kind));
}

static void check_stmt(struct checker *c, struct node *n)
{
	switch (n->kind) {
	case N_EXPR_STMT:
		if (n->lhs->kind == N_HIST) {
			check_value(c, n->lhs, false, "a statement");
			return;
		}
		check_expr(c, n->lhs, T_UNKNOWN);
		return;
	case N_IF:
		if (n->guard && n->cond->kind == N_UNARY && n->cond->op == OP_NOT) {
			/* "if (!(COND)) next", made from 'probe POINT if (COND)': the
			 * script wrote the condition, not the '!'. */
			check_operand(c, n->cond->lhs, T_LONG, "a probe point's condition");
			n->cond->type = T_LONG;
		} else {
			check_operand(c, n->cond, T_LONG, "a condition");
		}
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
	case N_FOREACH:
		check_foreach(c, n);
		return;
	case N_DELETE:
		check_delete(c, n);
		return;
	case N_TRY:
		check_stmt(c, n->body);
		if (n->then && n->then->sym)
			learn(c, n->then->sym, T_STRING, n->then->loc);
		check_stmt(c, n->els);
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
		int before = diag_errors();
		enum type t = check_expr(c, n->lhs, f->type == T_VOID ? T_UNKNOWN : f->type);
		if (reported_since(c, before))
			return;
		if (f->type == T_VOID) {
			if (c->report)
				diag_error(n->loc, D_TYPE_MISMATCH,
					   "%s() returns no value elsewhere, but returns one here",
					   f->name);
			return;
		}
		if (t == T_VOID || t == T_STATS) {
			expect(c, n->lhs, t, f->type == T_UNKNOWN ? T_LONG : f->type, "'return'");
		} else if (f->type != T_UNKNOWN && t != T_UNKNOWN && t != f->type) {
			if (!c->report)
				return;
			if (f->decl->decl_type != T_UNKNOWN) {
				diag_error(n->lhs->loc, D_TYPE_MISMATCH,
					   "%s() is declared to return %s, but this is %s", f->name,
					   type_words(f->type), type_words(t));
				diag_note(f->type_loc, "%s() is declared here", f->name);
			} else {
				diag_error(n->lhs->loc, D_TYPE_MISMATCH,
					   "%s() returns %s elsewhere, but %s here", f->name,
					   type_words(f->type), type_words(t));
				diag_note(f->type_loc, "%s() returns %s here", f->name,
					  type_words(f->type));
			}
		} else {
			learn(c, f, t, n->loc);
			learn_autocast(c->s, f, n->lhs);
		}
		return;
	}
	case N_EMBEDDED:
		/* A function body in C: nothing to check here. */
		return;
	case N_BLOCK:
	case N_PROBE:
	case N_FUNCTION:
		ast_for_children(n, check_stmt_child, c);
		return;
	case N_BREAK:
	case N_CONTINUE:
	case N_NEXT:
	case N_EMPTY:
	case N_ALIAS:
	case N_PROBE_POINT:
	case N_PP_COMP:
	case N_GLOBAL:
	case N_PARAM:
	AST_EXPR_CASES
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

static void walk_function(struct checker *c, struct symbol *f)
{
	c->func = f;
	if (f->decl->body->kind == N_EMBEDDED)
		is_guru_ok(c, f->decl->body);
	check_stmt(c, f->decl->body);
}

static void walk_program(struct checker *c)
{
	struct program *prog = &c->s->prog;
	for (size_t i = 0; i < prog->handlers.n; i++) {
		c->h = prog->handlers.v[i];
		c->func = NULL;
		check_stmt(c, c->h->body);
	}
	c->h = NULL;
	for (size_t i = 0; i < prog->functions.n; i++)
		walk_function(c, prog->functions.v[i]);
	if (c->with_unused) {
		c->unused = true;
		for (size_t i = 0; i < prog->unused_functions.n; i++)
			walk_function(c, prog->unused_functions.v[i]);
		c->unused = false;
	}
	c->func = NULL;
}

/* Walk until nothing more is learned. */
static void infer(struct checker *c)
{
	for (int round = 0; round < 100; round++) {
		c->changed = false;
		walk_program(c);
		if (!c->changed)
			break;
	}
}

/* A variable's type is unknown: say so, with what would help. */
static void report_unknown_var(struct session *s, const struct ptrvec *vars,
			       const struct handler *h, struct symbol *v)
{
	diag_error(v->loc, D_TYPE_UNKNOWN, "cannot tell whether '%s' is a number or a string",
		   v->name);
	if (v->kind == SYM_PARAM)
		diag_hint("declare it, e.g. '%s:long' or '%s:string'", v->name, v->name);
	else if (v->kind == SYM_LOCAL && !v->assigned && sema_suggest_variable(s, vars, h, v))
		; /* never assigned, and close to a name that is: a misspelling */
	else
		diag_hint("assign '%s' a number or a string somewhere", v->name);
}

static void report_unknown(struct session *s, const struct ptrvec *vars,
			   const struct handler *h)
{
	for (size_t i = 0; i < vars->n; i++) {
		struct symbol *v = vars->v[i];
		if (v->type == T_UNKNOWN)
			report_unknown_var(s, vars, h, v);
	}
}

static bool holds(const struct ptrvec *v, const void *p)
{
	for (size_t i = 0; i < v->n; i++)
		if (v->v[i] == p)
			return true;
	return false;
}

/* Does a probe body, or a function one calls, use global g? */
static bool used_by_reachable(const struct program *prog, const struct symbol *g)
{
	for (size_t i = 0; i < prog->handlers.n; i++) {
		const struct handler *h = prog->handlers.v[i];
		if (holds(&h->globals_rd, g) || holds(&h->globals_wr, g))
			return true;
	}
	for (size_t i = 0; i < prog->functions.n; i++) {
		const struct symbol *f = prog->functions.v[i];
		if (holds(&f->globals_rd, g) || holds(&f->globals_wr, g))
			return true;
	}
	return false;
}

static void report_unknown_keys(const struct ptrvec *globals)
{
	for (size_t i = 0; i < globals->n; i++) {
		struct symbol *g = globals->v[i];
		if (!g->is_array)
			continue;
		for (int k = 0; k < g->nkeys && k < MAX_KEYS; k++) {
			if (g->key_types[k] != T_UNKNOWN)
				continue;
			diag_error(g->keys_loc, D_TYPE_UNKNOWN,
				   "cannot tell whether key %d of '%s' is a number or a string", k + 1,
				   g->name);
			break;
		}
	}
}

/* A script function without 'return value' returns nothing; embedded C
 * decides by its uses (see check_call). */
static void default_void(struct ptrvec *functions)
{
	for (size_t i = 0; i < functions->n; i++) {
		struct symbol *f = functions->v[i];
		bool found = false;
		find_value_return(f->decl->body, &found);
		if (f->type == T_UNKNOWN && !found && f->decl->body->kind != N_EMBEDDED)
			f->type = T_VOID;
	}
}

/* Embedded C whose value nobody takes returns nothing. */
static void embedded_default_void(struct ptrvec *functions)
{
	for (size_t i = 0; i < functions->n; i++) {
		struct symbol *f = functions->v[i];
		if (f->type == T_UNKNOWN && f->decl->body->kind == N_EMBEDDED)
			f->type = T_VOID;
	}
}

/*
 * The types of what only the script's uncalled functions use: SystemTap
 * drops those functions before it looks at types, Tapline checks them for
 * conflicts, but what nothing that runs tells the type of is no error (a
 * parameter no call passes, a global only they read). It is a number.
 */
static void default_unused(struct program *prog)
{
	for (size_t i = 0; i < prog->unused_functions.n; i++) {
		struct symbol *f = prog->unused_functions.v[i];
		if (f->type == T_UNKNOWN)
			f->type = T_LONG;
		for (size_t k = 0; k < f->vars.n; k++) {
			struct symbol *v = f->vars.v[k];
			if (v->type == T_UNKNOWN)
				v->type = T_LONG;
		}
	}
	for (size_t i = 0; i < prog->globals.n; i++) {
		struct symbol *g = prog->globals.v[i];
		if (used_by_reachable(prog, g))
			continue;
		if (g->type == T_UNKNOWN)
			g->type = T_LONG;
		for (int k = 0; k < g->nkeys && k < MAX_KEYS; k++)
			if (g->key_types[k] == T_UNKNOWN)
				g->key_types[k] = T_LONG;
	}
}

int types_check(struct session *s)
{
	int before = diag_errors();
	struct program *prog = &s->prog;
	default_void(&prog->functions);
	default_void(&prog->unused_functions);
	/* What the code that runs says first: the bodies alone, then what
	 * calls pass to untyped parameters; then the uncalled functions. */
	struct checker c = { .s = s };
	infer(&c);
	c.args_fix_params = true;
	infer(&c);
	c.with_unused = true;
	infer(&c);
	sema_fold_late(s);
	embedded_default_void(&prog->functions);
	embedded_default_void(&prog->unused_functions);
	c.report = true;
	walk_program(&c);
	if (diag_errors() != before)
		return diag_errors() - before;
	/* A global never read (unused, or only deleted: a tapset's array a
	 * script's choice of macros leaves empty) has no type to learn: it
	 * would hold a number. */
	for (size_t i = 0; i < prog->globals.n; i++) {
		struct symbol *g = prog->globals.v[i];
		if (g->type == T_UNKNOWN && !g->read)
			g->type = T_LONG;
		if (g->is_array && g->nkeys < 0) {
			/* Declared, never used with keys: one number key. */
			g->nkeys = 1;
			g->key_types[0] = T_LONG;
			if (g->type == T_UNKNOWN)
				g->type = T_LONG;
		}
	}
	default_unused(prog);
	report_unknown(s, &prog->globals, NULL);
	report_unknown_keys(&prog->globals);
	for (size_t i = 0; i < prog->handlers.n; i++)
		report_unknown(s, &((struct handler *)prog->handlers.v[i])->vars,
			       prog->handlers.v[i]);
	for (size_t i = 0; i < prog->functions.n; i++) {
		struct symbol *f = prog->functions.v[i];
		report_unknown(s, &f->vars, NULL);
		/* A value whose type nothing tells is a number, as in SystemTap. */
		if (f->type == T_UNKNOWN)
			f->type = T_LONG;
	}
	return diag_errors() - before;
}
