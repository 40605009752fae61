// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The regular expression compiler; see regcomp.h. A recursive-descent parser
 * builds a small tree, which is then emitted as Thompson-style code:
 *
 *   a|b   SPLIT L1 L2; L1: a; JMP L3; L2: b; L3:
 *   a*    L1: SPLIT L2 L3; L2: a; JMP L1; L3:
 *   a+    L1: a; SPLIT L1 L2; L2:
 *   a?    SPLIT L1 L2; L1: a; L2:
 *   (a)   SAVE 2k; a; SAVE 2k+1
 *
 * and a{n,m} as n copies of a and m-n nested optional ones. The whole is
 * wrapped in SAVE 0 ... SAVE 1 MATCH.
 */
#include "sema/regcomp.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

enum rkind { R_EMPTY, R_CHAR, R_ANY, R_CLASS, R_BOL, R_EOL, R_CAT, R_ALT, R_REPEAT, R_GROUP };

struct rnode {
	enum rkind kind;
	int c;                 /* R_CHAR: the byte; R_CLASS: the set; R_GROUP: the group */
	int min, max;          /* R_REPEAT; max -1: no limit */
	struct rnode *a, *b;
};

/* Repetition counts above this are refused: a{1000} would be a huge program. */
#define MAX_REPEAT 255

struct rparser {
	const char *p, *start;
	struct regex *re;
	char *err;
	size_t err_off;
	int depth;
};

static struct rnode *rnew(enum rkind kind, struct rnode *a, struct rnode *b)
{
	struct rnode *n = xcalloc(1, sizeof *n);
	n->kind = kind;
	n->a = a;
	n->b = b;
	return n;
}

static void rfree(struct rnode *n)
{
	if (!n)
		return;
	rfree(n->a);
	rfree(n->b);
	free(n);
}

static void fail(struct rparser *rp, const char *at, const char *msg)
{
	if (rp->err)
		return;
	rp->err = xstrdup(msg);
	rp->err_off = (size_t)(at - rp->start);
}

static int new_class(struct regex *re)
{
	re->classes = xrealloc(re->classes, (size_t)(re->nclasses + 1) * sizeof *re->classes);
	memset(re->classes[re->nclasses], 0, 32);
	return re->nclasses++;
}

static void set_bit(unsigned char *set, int c)
{
	set[c >> 3] |= (unsigned char)(1 << (c & 7));
}

static bool named_class(const char *name, size_t n, unsigned char *set)
{
	static const struct {
		const char *name;
		int (*test)(int);
	} classes[] = {
		{ "alpha", isalpha }, { "digit", isdigit }, { "alnum", isalnum }, { "upper", isupper },
		{ "lower", islower }, { "space", isspace }, { "blank", isblank }, { "punct", ispunct },
		{ "print", isprint }, { "graph", isgraph }, { "cntrl", iscntrl }, { "xdigit", isxdigit },
	};
	for (size_t i = 0; i < ARRAY_SIZE(classes); i++) {
		if (strlen(classes[i].name) != n || strncmp(classes[i].name, name, n))
			continue;
		/* The C locale's classes, for ASCII; bytes above 127 are in none. */
		for (int c = 1; c < 128; c++)
			if (classes[i].test(c))
				set_bit(set, c);
		return true;
	}
	return false;
}

/* bracket -> '[' ['^'] [']'] { item } ']', after the '[' */
static struct rnode *parse_bracket(struct rparser *rp)
{
	const char *open = rp->p - 1;
	int k = new_class(rp->re);
	unsigned char set[32] = { 0 };
	bool negate = *rp->p == '^';
	if (negate)
		rp->p++;
	bool first = true;
	for (;;) {
		unsigned char c = (unsigned char)*rp->p;
		if (!c) {
			fail(rp, open, "'[' is not closed with ']'");
			return NULL;
		}
		if (c == ']' && !first) {
			rp->p++;
			break;
		}
		first = false;
		if (c == '[' && rp->p[1] == ':') {
			const char *name = rp->p + 2, *end = strstr(name, ":]");
			if (!end || !named_class(name, (size_t)(end - name), set)) {
				fail(rp, rp->p, "unknown character class (the classes are [:alpha:], "
						"[:digit:], [:alnum:], [:upper:], [:lower:], [:space:], "
						"[:blank:], [:punct:], [:print:], [:graph:], [:cntrl:], "
						"[:xdigit:])");
				return NULL;
			}
			rp->p = end + 2;
			continue;
		}
		if (c == '[' && (rp->p[1] == '.' || rp->p[1] == '=')) {
			fail(rp, rp->p, "collating elements ([. .] and [= =]) are not supported");
			return NULL;
		}
		rp->p++;
		unsigned char hi = c;
		if (*rp->p == '-' && rp->p[1] && rp->p[1] != ']') {
			hi = (unsigned char)rp->p[1];
			if (hi < c) {
				fail(rp, rp->p - 1, "a range's end is before its start");
				return NULL;
			}
			rp->p += 2;
		}
		for (int x = c; x <= hi; x++)
			set_bit(set, x);
	}
	for (int i = 0; i < 32; i++)
		rp->re->classes[k][i] = negate ? (unsigned char)~set[i] : set[i];
	if (negate)
		rp->re->classes[k][0] &= (unsigned char)~1; /* never the terminating NUL */
	struct rnode *n = rnew(R_CLASS, NULL, NULL);
	n->c = k;
	return n;
}

static struct rnode *parse_alt(struct rparser *rp);

/* atom -> '(' alt ')' | bracket | '.' | '^' | '$' | '\' char | char */
static struct rnode *parse_atom(struct rparser *rp)
{
	const char *at = rp->p;
	unsigned char c = (unsigned char)*rp->p++;
	switch (c) {
	case '(': {
		if (++rp->depth > 100) {
			fail(rp, at, "groups nested too deeply");
			return NULL;
		}
		int g = ++rp->re->ngroups;
		if (g > RT_RE_MAX_GROUPS) {
			fail(rp, at, "more than 9 groups");
			return NULL;
		}
		struct rnode *inner = parse_alt(rp);
		rp->depth--;
		if (*rp->p != ')') {
			fail(rp, at, "'(' is not closed with ')'");
			rfree(inner);
			return NULL;
		}
		rp->p++;
		struct rnode *n = rnew(R_GROUP, inner, NULL);
		n->c = g;
		return n;
	}
	case '[':
		return parse_bracket(rp);
	case '.':
		return rnew(R_ANY, NULL, NULL);
	case '^':
		return rnew(R_BOL, NULL, NULL);
	case '$':
		return rnew(R_EOL, NULL, NULL);
	case '\\':
		if (!*rp->p) {
			fail(rp, at, "'\\' at the end of the pattern");
			return NULL;
		}
		if (*rp->p >= '1' && *rp->p <= '9') {
			fail(rp, at, "back-references (\\1 ...) are not supported");
			return NULL;
		}
		c = (unsigned char)*rp->p++;
		break;
	case '*':
	case '+':
	case '?':
		fail(rp, at, "nothing before the repetition to repeat");
		return NULL;
	default:
		break;
	}
	struct rnode *n = rnew(R_CHAR, NULL, NULL);
	n->c = c;
	return n;
}

static bool parse_count(struct rparser *rp, int *v)
{
	if (!isdigit((unsigned char)*rp->p))
		return false;
	long x = 0;
	while (isdigit((unsigned char)*rp->p)) {
		x = x * 10 + (*rp->p++ - '0');
		if (x > MAX_REPEAT)
			x = MAX_REPEAT + 1;
	}
	*v = (int)x;
	return true;
}

/* repeat -> atom { '*' | '+' | '?' | '{' n [',' [m]] '}' } */
static struct rnode *parse_repeat(struct rparser *rp)
{
	struct rnode *n = parse_atom(rp);
	while (n && !rp->err) {
		const char *at = rp->p;
		int min, max;
		if (*rp->p == '*') {
			min = 0, max = -1;
		} else if (*rp->p == '+') {
			min = 1, max = -1;
		} else if (*rp->p == '?') {
			min = 0, max = 1;
		} else if (*rp->p == '{' && isdigit((unsigned char)rp->p[1])) {
			rp->p++;
			parse_count(rp, &min);
			max = min;
			if (*rp->p == ',') {
				rp->p++;
				if (!parse_count(rp, &max))
					max = -1;
			}
			if (*rp->p != '}') {
				fail(rp, at, "a repetition count is not closed with '}'");
				break;
			}
			if (min > MAX_REPEAT || max > MAX_REPEAT) {
				fail(rp, at, "a repetition count is above 255");
				break;
			}
			if (max >= 0 && max < min) {
				fail(rp, at, "a repetition's maximum is below its minimum");
				break;
			}
		} else {
			break;
		}
		rp->p++;
		struct rnode *r = rnew(R_REPEAT, n, NULL);
		r->min = min;
		r->max = max;
		n = r;
	}
	return n;
}

/* concat -> { repeat } */
static struct rnode *parse_concat(struct rparser *rp)
{
	struct rnode *n = rnew(R_EMPTY, NULL, NULL);
	while (*rp->p && *rp->p != '|' && *rp->p != ')' && !rp->err) {
		struct rnode *r = parse_repeat(rp);
		if (!r)
			break;
		n = n->kind == R_EMPTY ? (free(n), r) : rnew(R_CAT, n, r);
	}
	return n;
}

/* alt -> concat { '|' concat } */
static struct rnode *parse_alt(struct rparser *rp)
{
	struct rnode *n = parse_concat(rp);
	while (*rp->p == '|' && !rp->err) {
		rp->p++;
		n = rnew(R_ALT, n, parse_concat(rp));
	}
	return n;
}

/* --- code --- */

struct emitter {
	struct regex *re;
	int cap;
	bool too_big;
};

static int emit(struct emitter *e, int op, int x, int y)
{
	if (e->re->nprog >= RT_RE_MAX_PROG) {
		e->too_big = true;
		return e->re->nprog;
	}
	if (e->re->nprog == e->cap) {
		e->cap = e->cap ? 2 * e->cap : 32;
		e->re->prog = xrealloc(e->re->prog, (size_t)e->cap * sizeof *e->re->prog);
	}
	e->re->prog[e->re->nprog] =
		(struct rt_re_insn){ (unsigned char)op, (unsigned short)x, (unsigned short)y };
	return e->re->nprog++;
}

static void patch(struct emitter *e, int at, int x, int y)
{
	if (at < e->re->nprog) {
		e->re->prog[at].x = (unsigned short)x;
		e->re->prog[at].y = (unsigned short)y;
	}
}

static void gen(struct emitter *e, const struct rnode *n);

static void gen_optional(struct emitter *e, const struct rnode *a)
{
	int split = emit(e, RT_RE_SPLIT, 0, 0);
	gen(e, a);
	patch(e, split, split + 1, e->re->nprog);
}

static void gen(struct emitter *e, const struct rnode *n)
{
	if (e->too_big)
		return;
	switch (n->kind) {
	case R_EMPTY:
		return;
	case R_CHAR:
		emit(e, RT_RE_CHAR, n->c, 0);
		return;
	case R_ANY:
		emit(e, RT_RE_ANY, 0, 0);
		return;
	case R_CLASS:
		emit(e, RT_RE_CLASS, n->c, 0);
		return;
	case R_BOL:
		emit(e, RT_RE_BOL, 0, 0);
		return;
	case R_EOL:
		emit(e, RT_RE_EOL, 0, 0);
		return;
	case R_CAT:
		gen(e, n->a);
		gen(e, n->b);
		return;
	case R_ALT: {
		int split = emit(e, RT_RE_SPLIT, 0, 0);
		gen(e, n->a);
		int jmp = emit(e, RT_RE_JMP, 0, 0);
		int second = e->re->nprog;
		gen(e, n->b);
		patch(e, split, split + 1, second);
		patch(e, jmp, e->re->nprog, 0);
		return;
	}
	case R_GROUP:
		emit(e, RT_RE_SAVE, 2 * n->c, 0);
		gen(e, n->a);
		emit(e, RT_RE_SAVE, 2 * n->c + 1, 0);
		return;
	case R_REPEAT:
		for (int i = 0; i < n->min; i++)
			gen(e, n->a);
		if (n->max < 0) {
			int split = emit(e, RT_RE_SPLIT, 0, 0);
			gen(e, n->a);
			emit(e, RT_RE_JMP, split, 0);
			patch(e, split, split + 1, e->re->nprog);
		} else {
			for (int i = n->min; i < n->max; i++)
				gen_optional(e, n->a);
		}
		return;
	}
}

void regex_free(struct regex *re)
{
	if (!re)
		return;
	free(re->prog);
	free(re->classes);
	free(re->pattern);
	free(re);
}

struct regex *regex_compile(const char *pattern, char **err, size_t *err_off)
{
	struct regex *re = xcalloc(1, sizeof *re);
	re->pattern = xstrdup(pattern);
	struct rparser rp = { .p = pattern, .start = pattern, .re = re };
	struct rnode *tree = parse_alt(&rp);
	if (!rp.err && *rp.p == ')')
		fail(&rp, rp.p, "')' without a '('");
	struct emitter e = { .re = re };
	if (!rp.err) {
		emit(&e, RT_RE_SAVE, 0, 0);
		gen(&e, tree);
		emit(&e, RT_RE_SAVE, 1, 0);
		emit(&e, RT_RE_MATCH, 0, 0);
		if (e.too_big)
			fail(&rp, pattern, "the pattern compiles to more than 512 instructions; make it "
					   "simpler");
	}
	rfree(tree);
	if (rp.err) {
		*err = rp.err;
		*err_off = rp.err_off;
		regex_free(re);
		return NULL;
	}
	return re;
}
