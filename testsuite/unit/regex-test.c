// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit test of the regular expressions: the translator's compiler
 * (translator/sema/regcomp.c) and the runtime's matcher (runtime/regex.c),
 * together. The overall match (whether, where and how long) is compared
 * with the C library's POSIX regexec(), which is leftmost-longest too,
 * over a table of patterns and subjects and over random patterns and
 * strings; subgroups, errors and the limits are checked against explicit
 * expectations.
 */
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sema/regcomp.h"
#include "tap.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static char scratch[RT_RE_SCRATCH(RT_RE_MAX_PROG)];

/* Ours: 1 and the span of the match, or 0; -1 if it does not compile. */
static int ours(const char *pattern, const char *s, int caps[RT_RE_SLOTS], int *ngroups)
{
	char *err = NULL;
	size_t off;
	struct regex *re = regex_compile(pattern, &err, &off);
	if (!re) {
		free(err);
		return -1;
	}
	struct rt_regex rt = { re->prog, re->nprog, (const unsigned char(*)[32])re->classes,
			       re->ngroups };
	unsigned long steps = 0;
	for (int i = 0; i < RT_RE_SLOTS; i++)
		caps[i] = -2;
	int m = rt_re_match(&rt, s, strlen(s) + 1, caps, scratch, &steps, NULL, NULL);
	if (ngroups)
		*ngroups = re->ngroups;
	return m;
}

/* The C library's: the same. */
static int theirs(const char *pattern, const char *s, regmatch_t *m)
{
	regex_t re;
	if (regcomp(&re, pattern, REG_EXTENDED))
		return -1;
	int rc = regexec(&re, s, 10, m, 0);
	regfree(&re);
	return rc == 0;
}

static void compare(const char *pattern, const char *s)
{
	int caps[RT_RE_SLOTS];
	regmatch_t m[10];
	int a = ours(pattern, s, caps, NULL), b = theirs(pattern, s, m);
	if (b < 0)
		return; /* not a pattern both accept */
	bool ok = a == b && (a != 1 || (caps[0] == m[0].rm_so && caps[1] == m[0].rm_eo));
	if (!tap_check(ok, "/%s/ on \"%s\" as regexec", pattern, s)) {
		printf("# ours %d [%d,%d], regexec %d [%d,%d]\n", a, a == 1 ? caps[0] : -1,
		       a == 1 ? caps[1] : -1, b, b ? (int)m[0].rm_so : -1, b ? (int)m[0].rm_eo : -1);
	}
}

static const char *const patterns[] = {
	"a", "abc", "a*", "a+", "a?", "a|b", "(a|b)*c", "^abc", "abc$", "^$", "^a*$", ".",
	"a.c", "[abc]+", "[^abc]+", "[a-z]+[0-9]*", "x(ab|a)(bc|c)y", "(a|ab)(c|bcd)",
	"a{2}", "a{2,}", "a{1,3}", "(ab){2,3}", "[[:digit:]]+", "[[:alpha:]_][[:alnum:]_]*",
	"[[:space:]]+", "a\\.b", "\\(x\\)", "(a*)*b", "(a|b|c|d)+e", "(foo|foobar)", "b*",
	"^(ab|abc)+$", "x*y*z*", "[]a]+", "[a-]+", "(^a|b$)", "(a|)+b", "colou?r",
	"^[0-9]+(\\.[0-9]+)?$", "(.*)bar", ".*", "h(el)+o", "([a-c]+)([c-e]+)",
};

static const char *const subjects[] = {
	"", "a", "b", "abc", "aabc", "xabcx", "aaa", "ab", "abab", "ababab", "xabcy", "xabcdy",
	"abcd", "123", "foo_bar9", " \t x", "a.b", "axb", "(x)", "bbb", "dcbae", "foobar",
	"color", "colour", "3.14", "3.", "foobarbar", "hello", "abcde", "]a]", "-a-",
};

/* Tiny random patterns over a small alphabet, so matches are frequent. */
static void random_pattern(char *out, size_t size, unsigned *seed)
{
	static const char *const atoms[] = { "a", "b", "c", ".", "[ab]", "[^a]", "(a|b)",
					     "(ab|a)", "(b|)", "^", "$", "(a*)", "(c|bc)" };
	static const char *const ops[] = { "", "", "", "*", "+", "?", "{1,2}", "{2}" };
	size_t len = 0;
	int n = 1 + rand_r(seed) % 5;
	out[0] = 0;
	for (int i = 0; i < n; i++) {
		const char *a = atoms[rand_r(seed) % ARRAY_SIZE(atoms)];
		const char *o = a[0] == '^' || a[0] == '$' ? "" : ops[rand_r(seed) % ARRAY_SIZE(ops)];
		len += snprintf(out + len, size - len, "%s%s", a, o);
	}
	if (rand_r(seed) % 4 == 0)
		snprintf(out + len, size - len, "|%s", atoms[rand_r(seed) % 3]);
}

static void random_subject(char *out, unsigned *seed)
{
	int n = rand_r(seed) % 8;
	for (int i = 0; i < n; i++)
		out[i] = "abcx"[rand_r(seed) % 4];
	out[n] = 0;
}

struct group_case {
	const char *pattern, *s;
	int group;
	const char *want; /* NULL: took no part */
};

static const struct group_case groups[] = {
	{ "h(el)+o", "helo", 1, "el" },
	{ "hel+o", "hello", 0, "hello" },
	{ "h(el)+o", "helelo", 1, "el" },
	{ "([a-z]+)@([a-z]+)", "mail me@host now", 1, "me" },
	{ "([a-z]+)@([a-z]+)", "mail me@host now", 2, "host" },
	{ "a|(b)", "a", 1, NULL },
	{ "a|(b)", "b", 1, "b" },
	{ "(a)(b)?", "a", 2, NULL },
	{ "^([0-9]+)\\.([0-9]+)$", "10.25", 2, "25" },
	{ "(x*)y", "xxy", 1, "xx" },
	{ "(x*)y", "y", 1, "" },
};

static void check_group(const struct group_case *gc)
{
	int caps[RT_RE_SLOTS], ngroups;
	int m = ours(gc->pattern, gc->s, caps, &ngroups);
	char got[64] = "(none)";
	if (m == 1 && gc->group <= ngroups && caps[2 * gc->group] >= 0)
		snprintf(got, sizeof got, "%.*s", caps[2 * gc->group + 1] - caps[2 * gc->group],
			 gc->s + caps[2 * gc->group]);
	const char *want = gc->want ? gc->want : "(none)";
	if (!tap_check(m == 1 && !strcmp(got, want), "group %d of /%s/ on \"%s\" is %s", gc->group,
		       gc->pattern, gc->s, want))
		printf("# matched %d, got %s\n", m, got);
}

static void check_error(const char *pattern, const char *msg_part)
{
	char *err = NULL;
	size_t off = 0;
	struct regex *re = regex_compile(pattern, &err, &off);
	bool ok = !re && err && strstr(err, msg_part);
	if (!tap_check(ok, "/%s/ is refused: %s", pattern, msg_part))
		printf("# got %s\n", err ? err : "(compiled)");
	free(err);
}

int main(void)
{
	for (size_t p = 0; p < ARRAY_SIZE(patterns); p++)
		for (size_t s = 0; s < ARRAY_SIZE(subjects); s++)
			compare(patterns[p], subjects[s]);
	unsigned seed = 12345;
	for (int i = 0; i < 3000; i++) {
		char pat[128], subj[16];
		random_pattern(pat, sizeof pat, &seed);
		random_subject(subj, &seed);
		compare(pat, subj);
	}
	for (size_t i = 0; i < ARRAY_SIZE(groups); i++)
		check_group(&groups[i]);
	check_error("(ab", "(");
	check_error("a)", ")");
	check_error("[ab", "]");
	check_error("*a", "nothing before the repetition");
	check_error("a{3,1}", "maximum is below its minimum");
	check_error("(a)(b)(c)(d)(e)(f)(g)(h)(i)(j)", "groups");
	check_error("(((((((((((((((((((((((((((((((((((a)))))))))))))))))))))))))))))))))))", "");
	check_error("a{200}b{200}c{200}", "more than 512 instructions");
	check_error("\\1", "back-reference");
	return tap_done();
}
