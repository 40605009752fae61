// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Target expressions in the generated C: pass 2's plan (struct
 * target_access) becomes calls of the runtime's fault-safe readers, with
 * every offset a constant, so no kernel header is needed. A bad pointer
 * fails the hit with the expression's text; it never faults. Values that
 * are pretty-printed ($var$, $$parms) show '?' for what cannot be read
 * instead of failing.
 *
 * A .return probe's handler has a second function, run at the function's
 * entry, that saves each @entry(...) value (and each parameter the body
 * uses) in the call's entry data.
 */
#include <string.h>

#include "back/cg.h"

struct reader {
	struct cg *g;
	char *what; /* C literal: the expression's text */
	char *loc;  /* C literal: its location */
	bool user;  /* the probed code's memory is the current task's (process probes) */
	/* The readers for where the object is now: the probed code's memory,
	 * or (in_frame) the handler's frame, where an object kept in
	 * registers was put together; a pointer read from there leads back
	 * to the probed code's memory. */
	bool in_frame;
	const char *rd, *rd_bytes, *rd_string;
};

static void reader_at(struct reader *r, bool in_frame)
{
	bool user = r->user && !in_frame;
	r->in_frame = in_frame;
	r->rd = user ? "rt_uread" : "rt_kread";
	r->rd_bytes = user ? "rt_uread_bytes" : "rt_kread_bytes";
	r->rd_string = user ? "rt_uread_string" : "rt_kread_string";
}

static void reader_init(struct reader *r, struct cg *g, const struct target_access *a,
			const struct node *n)
{
	r->g = g;
	r->what = c_string(a->text, strlen(a->text));
	r->loc = loc_literal(n);
	r->user = a->user;
	reader_at(r, false);
}

static void reader_free(struct reader *r)
{
	free(r->what);
	free(r->loc);
}

static bool same_static(const struct tstatic *a, const struct tstatic *b)
{
	return !strcmp(a->object, b->object) && a->offset == b->offset &&
	       a->text_offset == b->text_offset && a->user_vaddr == b->user_vaddr &&
	       !a->symbol == !b->symbol &&
	       (!a->symbol || !strcmp(a->symbol, b->symbol));
}

size_t cg_static_index(struct cg *g, struct tstatic *st)
{
	/* One entry per object, however many expressions name it. */
	size_t k = 0;
	while (k < g->statics.n && !same_static(g->statics.v[k], st))
		k++;
	if (k == g->statics.n)
		pv_push(&g->statics, st);
	return k;
}

/* The location program's result in a new temporary. */
static char *cg_ops(struct reader *r, const struct tloc *l)
{
	struct cg *g = r->g;
	char *stack[32];
	int sp = 0;
	for (size_t i = 0; i < l->nops && sp < 31; i++) {
		const struct tloc_op *op = &l->ops[i];
		switch (op->kind) {
		case LO_REG:
			stack[sp] = new_long_temp(g);
			if (g->user_regs && op->arg >= 0 && op->arg <= 16) {
				emit(g, "%s = (rt_long)rt_uregval(c, %lld);", stack[sp], (long long)op->arg);
			} else {
				emit(g, "%s = (rt_long)rt_regval(c, %lld, %s, %s);", stack[sp],
				     (long long)op->arg, r->what, r->loc);
				fail_check(g);
			}
			sp++;
			break;
		case LO_CONST:
			stack[sp] = new_long_temp(g);
			emit(g, "%s = (rt_long)%lldLL;", stack[sp], (long long)op->arg);
			sp++;
			break;
		case LO_PLUS:
			if (sp)
				emit(g, "%s = (rt_long)((unsigned long)%s + (unsigned long)%lldLL);",
				     stack[sp - 1], stack[sp - 1], (long long)op->arg);
			break;
		case LO_DEREF:
			if (sp) {
				emit(g, "%s = %s(c, (unsigned long)%s, %d, 0, %s, %s);",
				     stack[sp - 1], r->rd, stack[sp - 1], (int)op->arg, r->what, r->loc);
				fail_check(g);
			}
			break;
		case LO_STATIC: {
			size_t k = cg_static_index(g, l->stat);
			stack[sp] = new_long_temp(g);
			emit(g, "%s = (rt_long)rt_static_addr(c, %zu, %s, %s);", stack[sp], k, r->what,
			     r->loc);
			fail_check(g);
			sp++;
			break;
		}
		case LO_NEG:
			if (sp)
				emit(g, "%s = (rt_long)(0UL - (unsigned long)%s);", stack[sp - 1],
				     stack[sp - 1]);
			break;
		case LO_ADD:
		case LO_SUB:
		case LO_MUL:
		case LO_AND:
		case LO_OR: {
			if (sp < 2)
				break;
			static const char *const cop[] = { [LO_ADD] = "+", [LO_SUB] = "-",
							   [LO_MUL] = "*", [LO_AND] = "&",
							   [LO_OR] = "|" };
			emit(g, "%s = (rt_long)((unsigned long)%s %s (unsigned long)%s);",
			     stack[sp - 2], stack[sp - 2], cop[op->kind], stack[sp - 1]);
			free(stack[--sp]);
			break;
		}
		}
	}
	for (int i = 1; i < sp; i++)
		free(stack[i]);
	if (sp == 0) {
		char *t = new_long_temp(g);
		emit(g, "%s = 0;", t);
		return t;
	}
	return stack[0];
}

/* A frame buffer of size bytes, for an object put together from pieces. */
static char *new_buffer(struct cg *g, uint64_t size)
{
	int id = g->ntemps++;
	sb_printf(&g->fields, "\tchar b%d[%llu] __attribute__((aligned(8)));\n", id,
		  (unsigned long long)(size ? size : 1));
	return xasprintf("l->b%d", id);
}

/* The base of an access: its address (*is_addr) or its value. */
static char *cg_base(struct reader *r, const struct tloc *l, size_t entry_off, bool *is_addr)
{
	struct cg *g = r->g;
	if (!l) {
		char *t = new_long_temp(g);
		emit(g, "%s = *(rt_long *)(rt_entry_data(c) + %zu);", t, entry_off);
		*is_addr = false;
		return t;
	}
	if (l->kind != TL_PIECES) {
		*is_addr = l->kind == TL_MEMORY;
		return cg_ops(r, l);
	}
	reader_at(r, false); /* the pieces in memory are the probed code's */
	uint64_t total = 0;
	for (size_t i = 0; i < l->npieces; i++)
		total += l->pieces[i].size;
	char *buf = new_buffer(g, total);
	uint64_t at = 0;
	for (size_t i = 0; i < l->npieces; i++) {
		const struct tloc_piece *p = &l->pieces[i];
		char *v = cg_ops(r, &p->loc);
		if (p->loc.kind == TL_MEMORY) {
			emit(g, "%s(c, %s + %llu, (unsigned long)%s, %llu, %s, %s);", r->rd_bytes, buf,
			     (unsigned long long)at, v, (unsigned long long)p->size, r->what, r->loc);
			fail_check(g);
		} else {
			emit(g, "__builtin_memcpy(%s + %llu, &%s, %llu);", buf, (unsigned long long)at, v,
			     (unsigned long long)(p->size < 8 ? p->size : 8));
		}
		free(v);
		at += p->size;
	}
	char *t = new_long_temp(g);
	emit(g, "%s = (rt_long)(unsigned long)%s;", t, buf);
	free(buf);
	*is_addr = true;
	reader_at(r, true);
	return t;
}

/* A number of type t: from memory at cur, or cur itself. */
static void cg_number(struct reader *r, const char *dst, const char *cur, bool is_addr,
		      const struct ctype *t, int bit_size, int bit_offset)
{
	struct cg *g = r->g;
	int size = (int)t->size;
	if (bit_size) {
		int bytes = (bit_offset + bit_size + 7) / 8;
		int unit = bytes <= 1 ? 1 : bytes <= 2 ? 2 : bytes <= 4 ? 4 : 8;
		emit(g, "%s = %s(c, (unsigned long)%s, %d, 0, %s, %s);", dst, r->rd, cur, unit, r->what,
		     r->loc);
		fail_check(g);
		if (t->is_signed)
			emit(g, "%s = (rt_long)((unsigned long long)%s << %d) >> %d;", dst, dst,
			     64 - bit_offset - bit_size, 64 - bit_size);
		else
			emit(g, "%s = (rt_long)(((unsigned long long)%s >> %d) & 0x%llxULL);", dst, dst,
			     bit_offset, bit_size == 64 ? ~0ULL : (1ULL << bit_size) - 1);
		return;
	}
	if (is_addr) {
		emit(g, "%s = %s(c, (unsigned long)%s, %d, %d, %s, %s);", dst, r->rd, cur, size,
		     t->is_signed, r->what, r->loc);
		fail_check(g);
		return;
	}
	/* A value in a register: only its low size bytes are the object. */
	if (size >= 8)
		emit(g, "%s = %s;", dst, cur);
	else if (t->is_signed)
		emit(g, "%s = (rt_long)((unsigned long long)%s << %d) >> %d;", dst, cur, 64 - 8 * size,
		     64 - 8 * size);
	else
		emit(g, "%s = (rt_long)((unsigned long long)%s & 0x%llxULL);", dst, cur,
		     (1ULL << (8 * size)) - 1);
}

/* --- pretty printing --- */

/* Members printed at most, per struct, so a huge struct stays one line. */
#define PRETTY_MEMBERS 32

static void cat_literal(struct cg *g, const char *s, const char *text)
{
	char *lit = c_string(text, strlen(text));
	emit(g, "rt_strcat(%s, %s, %lld);", s, lit, g->maxstr);
	free(lit);
}

/* Forget a failed read (a pretty print shows '?'): was there one? */
static void on_fail_mark(struct cg *g, const char *s)
{
	emit(g, "if (c->error) {");
	emit(g, "\tchar rt_forget[1];");
	emit(g, "\trt_catch(c, rt_forget, sizeof(rt_forget));");
	emit(g, "\trt_strcat(%s, \"?\", %lld);", s, g->maxstr);
	emit(g, "} else {");
}

static void pp_value(struct reader *r, const char *s, const char *cur, bool is_addr,
		     struct ctype *t, int bit_size, int bit_offset, int depth, bool hex_ints);

static void pp_string_at(struct reader *r, const char *s, const char *addr, long long max)
{
	struct cg *g = r->g;
	char *raw = new_string_temp(g), *q = new_string_temp(g);
	emit(g, "%s(c, %s, (unsigned long)%s, %lld, %s, %s);", r->rd_string, raw, addr, max, r->what,
	     r->loc);
	on_fail_mark(g, s);
	emit(g, "\trt_text_str(%s, %lld, %s, %lld, 1);", q, g->maxstr, raw, g->maxstr);
	emit(g, "\trt_strcat(%s, %s, %lld);", s, q, g->maxstr);
	emit(g, "}");
	g->nstr -= 2;
	free(raw);
	free(q);
}

static void pp_aggregate(struct reader *r, const char *s, const char *addr, struct ctype *t,
			 int depth)
{
	struct cg *g = r->g;
	if (depth <= 0) {
		cat_literal(g, s, "{...}");
		return;
	}
	ctype_complete(t);
	cat_literal(g, s, "{");
	size_t shown = 0;
	for (size_t i = 0; i < t->nmembers && shown < PRETTY_MEMBERS; i++, shown++) {
		const struct cmember *m = &t->members[i];
		char *label = m->name ? xasprintf("%s.%s=", shown ? ", " : "", m->name)
				      : xstrdup(shown ? ", " : "");
		cat_literal(g, s, label);
		free(label);
		char *a = new_long_temp(g);
		emit(g, "%s = (rt_long)((unsigned long)%s + %llu);", a, addr,
		     (unsigned long long)m->offset);
		pp_value(r, s, a, true, ctype_complete(m->type), m->bit_size, m->bit_offset, depth - 1,
			 false);
		free(a);
	}
	if (t->nmembers > shown)
		cat_literal(g, s, ", ...");
	cat_literal(g, s, "}");
}

static void pp_value(struct reader *r, const char *s, const char *cur, bool is_addr,
		     struct ctype *t, int bit_size, int bit_offset, int depth, bool hex_ints)
{
	struct cg *g = r->g;
	switch (t->kind) {
	case CT_INT:
	case CT_ENUM:
	case CT_PTR: {
		if (t->size == 0 || t->size > 8) {
			cat_literal(g, s, "?");
			return;
		}
		char *v = new_long_temp(g);
		/* Failures are caught here, not at the hit's failure exit. */
		const char *leave = g->fail_leave;
		g->fail_leave = "{}";
		cg_number(r, v, cur, is_addr, t, bit_size, bit_offset);
		g->fail_leave = leave;
		on_fail_mark(g, s);
		bool str = t->kind == CT_PTR && ctype_is_string(t) && !hex_ints;
		if (str) {
			emit(g, "\tif (!%s) {", v);
			emit(g, "\t\trt_strcat(%s, \"NULL\", %lld);", s, g->maxstr);
			emit(g, "\t} else {");
		}
		if (t->kind == CT_PTR || hex_ints) {
			if (!str) {
				char *fa = xasprintf("(struct rt_fmt_arg[]){ { 0, %s, 0 } }", v);
				char *tmp = new_string_temp(g);
				emit(g, "\trt_sprintf(c, %s, %lld, \"%%#x\", %s, 1);", tmp, g->maxstr, fa);
				emit(g, "\trt_strcat(%s, %s, %lld);", s, tmp, g->maxstr);
				g->nstr--;
				free(tmp);
				free(fa);
			}
		} else {
			emit(g, "\trt_strcat_long(%s, %s, %lld);", s, v, g->maxstr);
		}
		emit(g, "}");
		if (str) {
			bool in_frame = r->in_frame;
			reader_at(r, false);
			pp_string_at(r, s, v, -1);
			reader_at(r, in_frame);
			emit(g, "}");
		}
		free(v);
		return;
	}
	case CT_ARRAY:
		if (!is_addr) {
			cat_literal(g, s, "?");
			return;
		}
		if (ctype_is_string(t)) {
			pp_string_at(r, s, cur, t->count ? (long long)t->count : -1);
			return;
		}
		if (depth <= 0) {
			cat_literal(g, s, "[...]");
			return;
		}
		cat_literal(g, s, "[");
		for (uint64_t i = 0; i < t->count && i < 8; i++) {
			if (i)
				cat_literal(g, s, ", ");
			char *a = new_long_temp(g);
			emit(g, "%s = (rt_long)((unsigned long)%s + %llu);", a, cur,
			     (unsigned long long)(i * t->target->size));
			pp_value(r, s, a, true, ctype_complete(t->target), 0, 0, depth - 1, hex_ints);
			free(a);
		}
		cat_literal(g, s, t->count > 8 ? ", ...]" : "]");
		return;
	case CT_STRUCT:
	case CT_UNION:
		/* A struct the compiler keeps in registers has no address to
		 * read members at: shown as a struct, as SystemTap does. */
		if (!is_addr) {
			cat_literal(g, s, "{...}");
			return;
		}
		pp_aggregate(r, s, cur, t, depth);
		return;
	case CT_VOID:
	case CT_FUNC:
		break;
	}
	cat_literal(g, s, "?");
}

/* A variable pretty-printed as a whole ($p$, $$parms$): a pointer to a
 * struct is followed, as the struct is what a person wants to see. */
static void pp_top(struct reader *r, const char *s, const char *cur, bool is_addr,
		   struct ctype *t, int bit_size, int bit_offset, int depth, bool hex_ints)
{
	struct cg *g = r->g;
	struct ctype *to = t->kind == CT_PTR ? ctype_complete(t->target) : NULL;
	if (depth <= 0 || !to || (to->kind != CT_STRUCT && to->kind != CT_UNION)) {
		pp_value(r, s, cur, is_addr, t, bit_size, bit_offset, depth, hex_ints);
		return;
	}
	char *v = new_long_temp(g);
	if (is_addr) {
		const char *leave = g->fail_leave;
		g->fail_leave = "{}";
		emit(g, "%s = %s(c, (unsigned long)%s, 8, 0, %s, %s);", v, r->rd, cur, r->what, r->loc);
		g->fail_leave = leave;
		on_fail_mark(g, s);
	} else {
		emit(g, "%s = %s;", v, cur);
		emit(g, "{");
	}
	emit(g, "if (!%s) {", v);
	emit(g, "\trt_strcat(%s, \"NULL\", %lld);", s, g->maxstr);
	emit(g, "} else {");
	bool in_frame = r->in_frame;
	reader_at(r, false);
	pp_aggregate(r, s, v, to, depth);
	reader_at(r, in_frame);
	emit(g, "}");
	emit(g, "}");
	free(v);
}

/* --- the plan --- */

/* The object's address (*is_addr) or its value: the base, then the steps. */
static char *cg_locate(struct reader *r, const struct target_access *a, bool *is_addr_out)
{
	struct cg *g = r->g;
	bool is_addr;
	char *cur;
	if (a->base_expr) {
		char *v = cg_expr(g, a->base_expr);
		cur = new_long_temp(g);
		emit(g, "%s = %s;", cur, v);
		free(v);
		is_addr = true;
	} else {
		cur = cg_base(r, a->loc, a->entry_off, &is_addr);
	}
	if (a->materialize && !is_addr) {
		char *buf = new_buffer(g, 8);
		emit(g, "__builtin_memcpy(%s, &%s, 8);", buf, cur);
		emit(g, "%s = (rt_long)(unsigned long)%s;", cur, buf);
		free(buf);
		is_addr = true;
		reader_at(r, true);
	}
	for (size_t i = 0; i < a->nsteps; i++) {
		const struct tstep *st = &a->steps[i];
		switch (st->kind) {
		case TS_DEREF:
			if (is_addr) {
				emit(g, "%s = %s(c, (unsigned long)%s, 8, 0, %s, %s);", cur, r->rd, cur,
				     r->what, r->loc);
				fail_check(g);
			}
			is_addr = true;
			reader_at(r, false);
			break;
		case TS_OFFSET:
			emit(g, "%s = (rt_long)((unsigned long)%s + %lld);", cur, cur, st->k);
			break;
		case TS_INDEX: {
			char *idx = cg_expr(g, st->index);
			emit(g, "%s = (rt_long)((unsigned long)%s + (unsigned long)(%s) * %lld);", cur,
			     cur, idx, st->k);
			free(idx);
			break;
		}
		}
	}
	*is_addr_out = is_addr;
	return cur;
}

static char *cg_access(struct cg *g, struct node *n, const struct target_access *a)
{
	struct reader r;
	reader_init(&r, g, a, n);
	bool is_addr;
	char *cur = cg_locate(&r, a, &is_addr);
	char *res = NULL;
	switch (a->result) {
	case TA_INT:
		res = new_long_temp(g);
		cg_number(&r, res, cur, is_addr, a->type, a->bit_size, a->bit_offset);
		break;
	case TA_STRING:
		res = new_string_temp(g);
		emit(g, "%s(c, %s, (unsigned long)%s, %lld, %s, %s);", r.rd_string, res, cur,
		     a->type->count ? (long long)a->type->count : -1LL, r.what, r.loc);
		fail_check(g);
		break;
	case TA_ADDRESS:
		res = xstrdup(cur);
		break;
	case TA_PRETTY:
		res = new_string_temp(g);
		emit(g, "%s[0] = 0;", res);
		pp_top(&r, res, cur, is_addr, a->type, a->bit_size, a->bit_offset, a->pretty, false);
		break;
	case TA_VARLIST:
	case TA_SAVED:
	case TA_CONSTANT:
	case TA_PROCFS:
	case TA_NF_VERDICT:
		break;
	}
	free(cur);
	reader_free(&r);
	return res ? res : xstrdup("0");
}

/* $$vars, $$parms, $$locals, $$return: "name=value" separated by spaces. */
static char *cg_varlist(struct cg *g, struct node *n, const struct target_access *a)
{
	char *s = new_string_temp(g);
	emit(g, "%s[0] = 0;", s);
	for (size_t i = 0; i < a->nvars; i++) {
		const struct tvar *v = a->vars[i];
		char *label = xasprintf("%s%s=", i ? " " : "", v->name);
		cat_literal(g, s, label);
		free(label);
		struct target_access one = { .text = xasprintf("$%s", v->name), .user = a->user };
		struct reader r;
		reader_init(&r, g, &one, n);
		bool saved = a->in_return && a->var_offs[i] != NO_SLOT;
		struct ctype *vt = ctype_complete(v->type);
		if (!a->pretty && vt && (vt->kind == CT_STRUCT || vt->kind == CT_UNION)) {
			/* Not expanded without '$': a struct is "{...}" wherever
			 * the compiler keeps it, even where it cannot be read. */
			cat_literal(g, s, "{...}");
		} else if (v->loc.kind == TL_NONE || (a->in_return && !saved)) {
			cat_literal(g, s, "?");
		} else {
			bool is_addr;
			const char *leave = g->fail_leave;
			g->fail_leave = "{}";
			char *cur = saved ? cg_base(&r, NULL, a->var_offs[i], &is_addr)
					  : cg_base(&r, &v->loc, 0, &is_addr);
			g->fail_leave = leave;
			on_fail_mark(g, s);
			emit(g, "}");
			emit(g, "if (!c->error) {");
			pp_top(&r, s, cur, is_addr, ctype_complete(v->type), 0, 0, a->pretty,
				 !a->pretty);
			emit(g, "}");
			free(cur);
		}
		reader_free(&r);
		free(one.text);
	}
	if (a->with_return) {
		cat_literal(g, s, a->nvars ? " return=" : "return=");
		struct target_access one = { .text = "$return", .user = a->user };
		struct reader r;
		reader_init(&r, g, &one, n);
		char *v = new_long_temp(g);
		emit(g, "%s = (rt_long)rt_reg(c, 0, %s, %s);", v, r.what, r.loc);
		fail_check(g);
		pp_value(&r, s, v, false, a->type, 0, 0, a->pretty, !a->pretty);
		free(v);
		reader_free(&r);
	}
	return s;
}

char *cg_target(struct cg *g, struct node *n)
{
	const struct target_access *a = n->access;
	if (!a)
		return xstrdup("rt_return_value(c)"); /* a kernel probe's $return */
	if (a->result == TA_VARLIST)
		return cg_varlist(g, n, a);
	if (a->result == TA_CONSTANT)
		return c_string(a->value, strlen(a->value));
	if (a->result == TA_PROCFS)
		return xstrdup("rt_procfs_value(c)");
	if (a->result == TA_NF_VERDICT)
		return xstrdup("rt_nf_verdict(c)");
	return cg_access(g, n, a);
}

/* @entry(expr) in the .return body: the value saved at entry. */
char *cg_entry_value(struct cg *g, struct node *n)
{
	if (n->type == T_STRING)
		return xasprintf("((const char *)(rt_entry_data(c) + %zu))", n->access->entry_off);
	return xasprintf("(*(rt_long *)(rt_entry_data(c) + %zu))", n->access->entry_off);
}

void cg_entry_values(struct cg *g, struct handler *h)
{
	for (size_t i = 0; i < h->entry_exprs.n; i++) {
		struct node *e = h->entry_exprs.v[i];
		char *v = cg_expr(g, e->lhs);
		if (e->type == T_STRING)
			emit(g, "rt_strcpy((char *)(rt_entry_data(c) + %zu), %s, %lld);",
			     e->access->entry_off, v, g->maxstr);
		else
			emit(g, "*(rt_long *)(rt_entry_data(c) + %zu) = %s;", e->access->entry_off, v);
		fail_check(g);
		free(v);
		g->nstr = 0;
	}
}

/*
 * Guru mode: write val (a C expression of the script's value) to the
 * object target expression n reads (pass 2 checked that it can be
 * written: a number, in memory or in a live register). A bad address
 * fails the hit, as a read does; it never faults.
 */
void cg_target_store(struct cg *g, struct node *n, const char *val)
{
	const struct target_access *a = n->access;
	char *loc = loc_literal(n);
	if (!a || a->write_reg >= 0) {
		char *text = a ? c_string(a->text, strlen(a->text)) : xstrdup("\"$return\"");
		emit(g, "rt_regset(c, %d, (unsigned long)(%s), %s, %s);", a ? a->write_reg : 0, val,
		     text, loc);
		fail_check(g);
		free(text);
		free(loc);
		return;
	}
	free(loc);
	struct reader r;
	reader_init(&r, g, a, n);
	bool is_addr;
	char *cur = cg_locate(&r, a, &is_addr);
	emit(g, "%s(c, (unsigned long)%s, %d, (rt_long)(%s), %s, %s);",
	     a->user && !r.in_frame ? "rt_uwrite" : "rt_kwrite", cur, (int)a->type->size, val, r.what, r.loc);
	fail_check(g);
	free(cur);
	reader_free(&r);
}
