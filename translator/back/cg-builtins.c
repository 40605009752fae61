// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Pass 3 for the built-in functions (sema/builtins.h): each becomes calls
 * to the runtime API. Arguments are evaluated left to right before the
 * call, each kept in a temporary when a later one could change it.
 */
#include <string.h>
#include <time.h>

#include "back/cg.h"
#include "sema/builtins.h"

/* The values of print and its family: a histogram (a source for
 * rt_hist_print) or a C value. */
struct value {
	bool hist;
	enum type type;
	char *c;
};

static struct value *eval_values(struct cg *g, struct node *list, int *count)
{
	int n = ast_list_len(list), i = 0;
	struct value *v = xcalloc((size_t)n + 1, sizeof(*v));
	for (struct node *a = list; a; a = a->next, i++) {
		bool later = false;
		for (struct node *m = a->next; m && !later; m = m->next)
			later = has_side_effects(m);
		v[i].type = a->type;
		if (a->kind == N_HIST) {
			v[i].hist = true;
			v[i].c = cg_hist_src(g, a);
			continue;
		}
		v[i].c = cg_expr(g, a);
		if (later)
			v[i].c = snapshot(g, v[i].c, a->type);
	}
	*count = n;
	return v;
}

static void free_values(struct value *v, int n)
{
	for (int i = 0; i < n; i++)
		free(v[i].c);
	free(v);
}

static bool any_hist(const struct node *list)
{
	for (; list; list = list->next)
		if (list->kind == N_HIST)
			return true;
	return false;
}

/* print, println, printd, printdln: delim between values (NULL: none). */
static void cg_print(struct cg *g, struct node *values, const char *delim, bool newline)
{
	if (ast_list_len(values) > CG_PART_STMTS && !any_hist(values)) {
		/* Many values: evaluated in parts, printed by one loop. */
		int count;
		char *args = fmt_args(g, values, &count);
		emit(g, "for (int i = 0; i < %d; i++) {", count);
		if (delim) {
			emit(g, "\tif (i)");
			emit(g, "\t\trt_print_str(c, %s);", delim);
		}
		emit(g, "\tif (%s[i].is_str)", args);
		emit(g, "\t\trt_print_str(c, %s[i].s);", args);
		emit(g, "\telse");
		emit(g, "\t\trt_print_long(c, %s[i].n);", args);
		emit(g, "}");
		free(args);
	} else {
		int count;
		struct value *v = eval_values(g, values, &count);
		for (int i = 0; i < count; i++) {
			if (i && delim)
				emit(g, "rt_print_str(c, %s);", delim);
			if (v[i].hist)
				emit(g, "rt_hist_print(c, %s);", v[i].c);
			else
				emit(g, "rt_print_%s(c, %s);", v[i].type == T_STRING ? "str" : "long",
				     v[i].c);
		}
		free_values(v, count);
	}
	if (newline)
		emit(g, "rt_print_str(c, \"\\n\");");
}

/* sprint and its family: the same text, into a string. */
static char *cg_sprint(struct cg *g, struct node *values, const char *delim, bool newline)
{
	int count;
	struct value *v = eval_values(g, values, &count);
	char *res = new_string_temp(g);
	char *hist = NULL;
	emit(g, "%s[0] = 0;", res);
	for (int i = 0; i < count; i++) {
		if (i && delim)
			emit(g, "rt_strcat(%s, %s, %lld);", res, delim, g->maxstr);
		if (v[i].hist) {
			if (!hist)
				hist = new_string_temp(g);
			emit(g, "rt_hist_sprint(c, %s, %lld, %s);", hist, g->maxstr, v[i].c);
			emit(g, "rt_strcat(%s, %s, %lld);", res, hist, g->maxstr);
		} else if (v[i].type == T_STRING) {
			emit(g, "rt_strcat(%s, %s, %lld);", res, v[i].c, g->maxstr);
		} else {
			emit(g, "rt_strcat_long(%s, %s, %lld);", res, v[i].c, g->maxstr);
		}
	}
	if (newline)
		emit(g, "rt_strcat(%s, \"\\n\", %lld);", res, g->maxstr);
	free(hist);
	free_values(v, count);
	return res;
}

/* A function of strings and numbers whose result is a string: call(res, size, args). */
static char *string_result(struct cg *g, struct node *n, const char *fn, const char *extra)
{
	char *args = cg_args(g, n->list);
	char *res = new_string_temp(g);
	emit(g, "%s(%s, %lld%s%s);", fn, res, g->maxstr, args, extra);
	free(args);
	return res;
}

/* The same for a number: res = fn(prefix args). */
static char *long_result(struct cg *g, struct node *n, const char *fn, const char *prefix,
			 const char *extra, bool can_fail)
{
	int count;
	char **vals = cg_list(g, n->list, &count);
	char *res = new_long_temp(g);
	struct strbuf args;
	sb_init(&args);
	sb_puts(&args, prefix);
	for (int i = 0; i < count; i++)
		sb_printf(&args, "%s%s", i || *prefix ? ", " : "", vals[i]);
	emit(g, "%s = %s(%s%s);", res, fn, args.s ? args.s : "", extra);
	if (can_fail)
		fail_check(g);
	sb_free(&args);
	free_list(vals, count);
	return res;
}

static char *delimiter(struct node *n)
{
	struct node *d = n->list;
	return c_string(d->str ? d->str : "", d->str_len);
}

/* A number of size bytes read from memory by fn (rt_kread, rt_uread), which
 * names the call when it fails. */
static char *memory_read(struct cg *g, struct node *n, const char *fn, int size, bool is_signed)
{
	char *addr = cg_expr(g, n->list);
	char *text = ast_expr_text(n), *what = c_string(text, strlen(text));
	char *loc = loc_literal(n);
	char *res = new_long_temp(g);
	emit(g, "%s = %s(c, (unsigned long)%s, %d, %d, %s, %s);", res, fn, addr, size, is_signed,
	     what, loc);
	fail_check(g);
	free(addr);
	free(text);
	free(what);
	free(loc);
	return res;
}

/* What sema/builtins.h's code column says of each built-in. */
enum shape {
	OWN_CODE, VALUE_CALL, STRING_CALL, DO_CALL, KERNEL_READ, USER_READ, ARG_READ, KERNEL_WRITE,
	USER_WRITE, CHECKED_CALL, CHECKED_DO, CHECKED_STRING
};
struct code {
	enum shape shape;
	const char *fn; /* VALUE, STRING, DO, CHECK, CHECK_DO, CHECK_STRING */
	int size;       /* KREAD, UREAD, ARG, KWRITE, UWRITE */
	bool is_signed;
};

static const struct code codes[] = {
#define OWN { OWN_CODE, NULL, 0, false }
#define VALUE(fn) { VALUE_CALL, #fn, 0, false }
#define STRING(fn) { STRING_CALL, #fn, 0, false }
#define DO(fn) { DO_CALL, #fn, 0, false }
#define KREAD(size, is_signed) { KERNEL_READ, NULL, size, is_signed }
#define UREAD(size, is_signed) { USER_READ, NULL, size, is_signed }
#define ARG(size, is_signed) { ARG_READ, NULL, size, is_signed }
#define KWRITE(size) { KERNEL_WRITE, NULL, size, false }
#define UWRITE(size) { USER_WRITE, NULL, size, false }
#define CHECK(fn) { CHECKED_CALL, #fn, 0, false }
#define CHECK_DO(fn) { CHECKED_DO, #fn, 0, false }
#define CHECK_STRING(fn) { CHECKED_STRING, #fn, 0, false }
#define X(id, name, sig, ctx, code, doc) [id] = code,
	BUILTINS(X)
#undef X
#undef OWN
#undef VALUE
#undef STRING
#undef DO
#undef KREAD
#undef UREAD
#undef ARG
#undef KWRITE
#undef UWRITE
#undef CHECK
#undef CHECK_DO
#undef CHECK_STRING
};

bool arg_builtin(const struct builtin *b, int *size, bool *is_signed)
{
	const struct code *k = &codes[b->id];
	if (k->shape != ARG_READ)
		return false;
	*size = k->size;
	*is_signed = k->is_signed;
	return true;
}

static char *cg_builtin_own(struct cg *g, struct node *n);

/* A call that may fail the hit, given the call's text and place to name:
 * a write of k->size bytes (KWRITE, UWRITE), or k->fn (CHECK, CHECK_DO). */
static char *checked_call(struct cg *g, struct node *n, const struct code *k)
{
	int count;
	char **vals = cg_list(g, n->list, &count);
	char *text = ast_expr_text(n), *what = c_string(text, strlen(text));
	char *loc = loc_literal(n);
	char *res = NULL;
	if (k->shape == KERNEL_WRITE || k->shape == USER_WRITE) {
		emit(g, "%s(c, (unsigned long)%s, %d, %s, %s, %s);",
		     k->shape == KERNEL_WRITE ? "rt_kwrite" : "rt_uwrite", vals[0], k->size, vals[1],
		     what, loc);
	} else {
		struct strbuf args;
		sb_init(&args);
		for (int i = 0; i < count; i++)
			sb_printf(&args, "%s, ", vals[i]);
		if (k->shape == CHECKED_CALL) {
			res = new_long_temp(g);
			emit(g, "%s = %s(c, %s%s, %s);", res, k->fn, args.s ? args.s : "", what, loc);
		} else if (k->shape == CHECKED_STRING) {
			res = new_string_temp(g);
			emit(g, "%s(c, %s, %lld, %s%s, %s);", k->fn, res, g->maxstr, args.s ? args.s : "",
			     what, loc);
		} else {
			emit(g, "%s(c, %s%s, %s);", k->fn, args.s ? args.s : "", what, loc);
		}
		free(args.s);
	}
	fail_check(g);
	free_list(vals, count);
	free(text);
	free(what);
	free(loc);
	return res ? res : xstrdup("0");
}

char *cg_builtin(struct cg *g, struct node *n)
{
	const struct code *k = &codes[n->builtin->id];
	char *args, *res = NULL;
	switch (k->shape) {
	case VALUE_CALL:
		args = cg_args(g, n->list);
		res = xasprintf("%s(c%s)", k->fn, args);
		free(args);
		return res;
	case STRING_CALL:
		args = cg_args(g, n->list);
		res = new_string_temp(g);
		emit(g, "%s(c, %s, %lld%s);", k->fn, res, g->maxstr, args);
		free(args);
		return res;
	case DO_CALL:
		args = cg_args(g, n->list);
		emit(g, "%s(c%s);", k->fn, args);
		free(args);
		return xstrdup("0");
	case KERNEL_READ:
		return memory_read(g, n, "rt_kread", k->size, k->is_signed);
	case USER_READ:
		return memory_read(g, n, "rt_uread", k->size, k->is_signed);
	case ARG_READ: {
		char *arg = cg_expr(g, n->list);
		char *text = ast_expr_text(n), *what = c_string(text, strlen(text));
		char *loc = loc_literal(n);
		res = new_long_temp(g);
		emit(g, "%s = rt_arg(c, %s, %d, %d, %s, %s);", res, arg, k->size, k->is_signed, what,
		     loc);
		fail_check(g);
		free(arg);
		free(text);
		free(what);
		free(loc);
		return res;
	}
	case KERNEL_WRITE:
	case USER_WRITE:
	case CHECKED_CALL:
	case CHECKED_DO:
	case CHECKED_STRING:
		return checked_call(g, n, k);
	case OWN_CODE:
		break;
	}
	return cg_builtin_own(g, n);
}

/* The built-ins whose code is their own (OWN in sema/builtins.h). */
static char *cg_builtin_own(struct cg *g, struct node *n)
{
	const struct builtin *b = n->builtin;
	char *res = NULL, *loc = NULL;
	switch (b->id) {
	case B_PRINT:
	case B_PRINTLN:
		cg_print(g, n->list, NULL, b->id == B_PRINTLN);
		return xstrdup("0");
	case B_PRINTD:
	case B_PRINTDLN: {
		char *delim = delimiter(n);
		cg_print(g, n->list->next, delim, b->id == B_PRINTDLN);
		free(delim);
		return xstrdup("0");
	}
	case B_SPRINT:
	case B_SPRINTLN:
		return cg_sprint(g, n->list, NULL, b->id == B_SPRINTLN);
	case B_AUTOPRINT_VALUE: {
		int count;
		struct value *v = eval_values(g, n->list, &count);
		res = new_string_temp(g);
		if (v[0].type == T_STRING) {
			emit(g, "rt_text_str(%s, %lld, %s, 0, 1);", res, g->maxstr, v[0].c);
		} else {
			emit(g, "%s[0] = 0;", res);
			emit(g, "rt_strcat_long(%s, %s, %lld);", res, v[0].c, g->maxstr);
		}
		free_values(v, count);
		return res;
	}
	case B_SPRINTD:
	case B_SPRINTDLN: {
		char *delim = delimiter(n);
		res = cg_sprint(g, n->list->next, delim, b->id == B_SPRINTDLN);
		free(delim);
		return res;
	}
	case B_PRINTF:
	case B_SPRINTF: {
		struct node *fmt = n->list;
		char *lit = c_string(fmt->str, fmt->str_len);
		int nargs;
		char *args = fmt_args(g, fmt->next, &nargs);
		if (b->id == B_PRINTF) {
			emit(g, "rt_printf(c, %s, %s, %d);", lit, args, nargs);
			res = xstrdup("0");
		} else {
			res = new_string_temp(g);
			emit(g, "rt_sprintf(c, %s, %lld, %s, %s, %d);", res, g->maxstr, lit, args,
			     nargs);
		}
		/* %m and %M read memory, which can fail. */
		fail_check(g);
		free(lit);
		free(args);
		return res;
	}
	case B_ADDR_TO_NODE: {
		char *addr = cg_expr(g, n->list);
		char *t = new_long_temp(g);
		emit(g, "%s = rt_addr_to_node(c, %s);", t, addr);
		fail_check(g);
		free(addr);
		return t;
	}
	case B_ERROR:
	case B_WARN: {
		char *msg = cg_expr(g, n->list);
		if (b->id == B_ERROR) {
			emit(g, "rt_user_error(c, %s);", msg);
			emit(g, "%s", g->fail_leave);
		} else {
			emit(g, "rt_warn(c, %s);", msg);
		}
		free(msg);
		return xstrdup("0");
	}
	case B_CMDLINE_ARGS:
	case B_CMDLINE_ARG: {
		char *first = cg_expr(g, n->list);
		char *last = b->id == B_CMDLINE_ARGS ? cg_expr(g, n->list->next) : xstrdup(first);
		char *delim = b->id == B_CMDLINE_ARGS ? cg_expr(g, n->list->next->next) : xstrdup("\"\"");
		res = new_string_temp(g);
		emit(g, "rt_cmdline_args(c, %s, %lld, %s, %s, %s);", res, g->maxstr, first, last, delim);
		free(first);
		free(last);
		free(delim);
		return res;
	}
	case B_TZ_GMTOFF:
	case B_TZ_NAME: {
		/* The translating machine's zone, as SystemTap takes it. */
		time_t now = time(NULL);
		struct tm tm;
		localtime_r(&now, &tm);
		if (b->id == B_TZ_GMTOFF)
			return xasprintf("((rt_long)%ld)", -(long)tm.tm_gmtoff);
		res = new_string_temp(g);
		char *zone = c_string(tm.tm_zone ? tm.tm_zone : "UTC", strlen(tm.tm_zone ? tm.tm_zone : "UTC"));
		emit(g, "rt_strcpy(%s, %s, %lld);", res, zone, g->maxstr);
		free(zone);
		return res;
	}
	case B_CPU_CLOCK_NS:
		return long_result(g, n, "rt_cpu_clock_ns", "c", "", true);
	case B_STRLEN:
		return long_result(g, n, "rt_strlen", "", "", false);
	case B_SUBSTR:
		return string_result(g, n, "rt_substr", "");
	case B_ISINSTR:
		res = long_result(g, n, "rt_strpos", "c", "", true);
		emit(g, "%s = %s >= 0;", res, res);
		return res;
	case B_STRPOS:
		return long_result(g, n, "rt_strpos", "c", "", true);
	case B_TOKENIZE: {
		int count;
		char **vals = cg_list(g, n->list, &count);
		res = new_string_temp(g);
		emit(g, "rt_tokenize(c, %s, %lld, %s, %s);", res, g->maxstr, vals[0], vals[1]);
		free_list(vals, count);
		return res;
	}
	case B_STR_REPLACE: {
		int count;
		char **vals = cg_list(g, n->list, &count);
		res = new_string_temp(g);
		emit(g, "rt_str_replace(c, %s, %lld, %s, %s, %s);", res, g->maxstr, vals[0], vals[1],
		     vals[2]);
		fail_check(g);
		free_list(vals, count);
		return res;
	}
	case B_TEXT_STR:
		return string_result(g, n, "rt_text_str", ", 0, 0");
	case B_TEXT_STRN:
		return string_result(g, n, "rt_text_str", "");
	case B_STRING_QUOTED:
		return string_result(g, n, "rt_text_str", ", 0, 1");
	case B_STRTOL:
	case B_STRINGAT:
		loc = loc_literal(n);
		res = xasprintf(", %s", loc);
		free(loc);
		loc = long_result(g, n, b->id == B_STRTOL ? "rt_strtol" : "rt_stringat", "c", res,
				  true);
		free(res);
		return loc;
	case B_TOUPPER:
		return string_result(g, n, "rt_toupper", "");
	case B_TOLOWER:
		return string_result(g, n, "rt_tolower", "");
	case B_ISDIGIT:
		return long_result(g, n, "rt_isdigit", "", "", false);
	case B_MATCHED:
	case B_MATCHED_STR: {
		char *which = b->id == B_MATCHED ? cg_expr(g, n->list) : xstrdup("0");
		res = new_string_temp(g);
		loc = loc_literal(n);
		emit(g, "rt_matched(c, %s, %lld, %s, %s);", res, g->maxstr, which, loc);
		fail_check(g);
		free(which);
		free(loc);
		return res;
	}
	case B_NGROUPS:
		loc = loc_literal(n);
		res = new_long_temp(g);
		emit(g, "%s = rt_ngroups(c, %s);", res, loc);
		fail_check(g);
		free(loc);
		return res;
	case B_KERNEL_STRING:
	case B_KERNEL_STRING2:
	case B_KERNEL_STRING_N:
	case B_USER_STRING:
	case B_USER_STRING2:
	case B_USER_STRING_N:
	case B_USER_STRING_N2: {
		/* The "2" forms give their last argument instead of an error. */
		bool user = b->id >= B_USER_STRING && b->id <= B_USER_STRING_N2;
		bool has_n = b->id == B_KERNEL_STRING_N || b->id == B_USER_STRING_N ||
			     b->id == B_USER_STRING_N2;
		bool has_fallback = b->id == B_KERNEL_STRING2 || b->id == B_USER_STRING2 ||
				    b->id == B_USER_STRING_N2;
		int count;
		char **vals = cg_list(g, n->list, &count);
		char *text = ast_expr_text(n), *what = c_string(text, strlen(text));
		const char *fn = user ? "rt_uread_string" : "rt_kread_string";
		loc = loc_literal(n);
		res = new_string_temp(g);
		if (has_fallback) {
			emit(g, "if (%s(c, %s, (unsigned long)%s, %s, 0, 0)) rt_strcpy(%s, %s, %lld);", fn,
			     res, vals[0], has_n ? vals[1] : "-1", res, vals[count - 1], g->maxstr);
		} else {
			emit(g, "%s(c, %s, (unsigned long)%s, %s, %s, %s);", fn, res, vals[0],
			     has_n ? vals[1] : "-1", what, loc);
			fail_check(g);
		}
		free_list(vals, count);
		free(text);
		free(what);
		free(loc);
		return res;
	}
	case B_USER_STRING_QUOTED: {
		/* Never an error: "NULL", the quoted string, or the address. */
		char *addr = snapshot(g, cg_expr(g, n->list), T_LONG);
		char *raw = new_string_temp(g);
		res = new_string_temp(g);
		emit(g, "if (!%s) rt_strcpy(%s, \"NULL\", %lld);", addr, res, g->maxstr);
		emit(g, "else if (rt_uread_string(c, %s, (unsigned long)%s, -1, 0, 0)) "
			"rt_hex_str(%s, %lld, %s);",
		     raw, addr, res, g->maxstr, addr);
		emit(g, "else rt_text_str(%s, %lld, %s, -1, 1);", res, g->maxstr, raw);
		free(raw);
		free(addr);
		return res;
	}
	case B_PERF_READ:
		res = new_long_temp(g);
		emit(g, "%s = rt_counter_read(c, %lld);", res, n->num);
		return res;
	case B_KREGISTER:
	case B_UREGISTER: {
		char *regno = cg_expr(g, n->list);
		char *text = ast_expr_text(n), *what = c_string(text, strlen(text));
		loc = loc_literal(n);
		res = new_long_temp(g);
		emit(g, "%s = rt_register(c, %s, %d, %s, %s);", res, regno, b->id == B_UREGISTER, what,
		     loc);
		fail_check(g);
		free(regno);
		free(text);
		free(what);
		free(loc);
		return res;
	}
	case B_RETURNVAL: {
		char *text = ast_expr_text(n), *what = c_string(text, strlen(text));
		loc = loc_literal(n);
		res = new_long_temp(g);
		emit(g, "%s = (rt_long)rt_reg(c, 0, %s, %s);", res, what, loc);
		fail_check(g);
		free(text);
		free(what);
		free(loc);
		return res;
	}
	case B_ASMLINKAGE:
		return xstrdup("0");
	case B_ABS: {
		char *v = snapshot(g, cg_expr(g, n->list), T_LONG);
		res = xasprintf("(%s < 0 ? rt_neg(%s) : %s)", v, v, v);
		free(v);
		return res;
	}
	case B_MAX:
	case B_MIN: {
		int count;
		char **vals = cg_list(g, n->list, &count);
		char *a = snapshot(g, xstrdup(vals[0]), T_LONG);
		char *c = snapshot(g, xstrdup(vals[1]), T_LONG);
		res = xasprintf("(%s %s %s ? %s : %s)", a, b->id == B_MAX ? ">" : "<", c, a, c);
		free(a);
		free(c);
		free_list(vals, count);
		return res;
	}
	default:
		/* The others are emitted from their code column (cg_builtin):
		 * one marked OWN with no case here is the translator's bug. */
		fatal("no code for the built-in %s()", b->name);
	}
	return xstrdup("0");
}
