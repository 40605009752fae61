// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The source-independent half of the target model (target.h): walking
 * types and a site's variables, whichever reader filled them.
 */
#include <stdlib.h>
#include <string.h>

#include "debuginfo/target.h"
#include "util.h"

struct ctype *ctype_complete(struct ctype *t)
{
	if (t && !t->complete) {
		t->complete = true;
		if (t->src)
			t->src->complete(t);
	}
	return t;
}

bool ctype_is_integer(const struct ctype *t)
{
	return t->kind == CT_INT || t->kind == CT_ENUM;
}

bool ctype_is_string(struct ctype *t)
{
	if (t->kind != CT_PTR && t->kind != CT_ARRAY)
		return false;
	struct ctype *e = ctype_complete(t)->target;
	return e && e->kind == CT_INT && e->is_char && e->size == 1;
}

const struct cmember *ctype_member(struct ctype *t, const char *name, uint64_t *offset)
{
	ctype_complete(t);
	for (size_t i = 0; i < t->nmembers; i++) {
		const struct cmember *m = &t->members[i];
		if (m->name && !strcmp(m->name, name)) {
			*offset = m->offset;
			return m;
		}
	}
	/* Members of anonymous structs and unions are the container's own. */
	for (size_t i = 0; i < t->nmembers; i++) {
		const struct cmember *m = &t->members[i];
		if (m->name || (m->type->kind != CT_STRUCT && m->type->kind != CT_UNION))
			continue;
		uint64_t inner;
		const struct cmember *found = ctype_member(m->type, name, &inner);
		if (found) {
			*offset = m->offset + inner;
			return found;
		}
	}
	return NULL;
}

void ctype_member_names(struct ctype *t, void (*fn)(const char *name, void *ctx), void *ctx)
{
	ctype_complete(t);
	for (size_t i = 0; i < t->nmembers; i++) {
		const struct cmember *m = &t->members[i];
		if (m->name)
			fn(m->name, ctx);
		else if (m->type->kind == CT_STRUCT || m->type->kind == CT_UNION)
			ctype_member_names(m->type, fn, ctx);
	}
}

void site_load_vars(struct probe_site *site)
{
	if (!site->vars_loaded) {
		site->vars_loaded = true;
		if (site->load_vars)
			site->load_vars(site);
	}
}

const struct tvar *site_var(struct probe_site *site, const char *name)
{
	site_load_vars(site);
	for (size_t i = 0; i < site->nvars; i++)
		if (!strcmp(site->vars[i].name, name))
			return &site->vars[i];
	return NULL;
}

/* --- parameters at a function's entry, by the calling convention --- */

static const int arg_regs[6] = { 5, 4, 1, 2, 8, 9 }; /* rdi rsi rdx rcx r8 r9 (DWARF numbers) */

static void loc_reg(struct tloc *l, int reg)
{
	l->kind = TL_VALUE;
	l->ops = xcalloc(1, sizeof *l->ops);
	l->ops[0] = (struct tloc_op){ LO_REG, reg };
	l->nops = 1;
}

static void loc_stack(struct tloc *l, int64_t off)
{
	l->kind = TL_MEMORY;
	l->ops = xcalloc(2, sizeof *l->ops);
	l->ops[0] = (struct tloc_op){ LO_REG, 7 };
	l->ops[1] = (struct tloc_op){ LO_PLUS, off };
	l->nops = 2;
}

static bool is_aggregate(const struct ctype *t)
{
	return t->kind == CT_STRUCT || t->kind == CT_UNION || t->kind == CT_ARRAY;
}

/* Does an aggregate hold a floating-point value anywhere? Its eightbytes
 * may then go in SSE registers. */
static bool has_float(struct ctype *t, int depth)
{
	if (!t || depth > 8)
		return false;
	if (t->kind == CT_INT)
		return t->is_float;
	if (t->kind == CT_ARRAY)
		return has_float(ctype_complete(t)->target, depth + 1);
	if (t->kind != CT_STRUCT && t->kind != CT_UNION)
		return false;
	ctype_complete(t);
	for (size_t i = 0; i < t->nmembers; i++)
		if (has_float(t->members[i].type, depth + 1))
			return true;
	return false;
}

void abi_start(struct abi *abi, struct ctype *ret)
{
	abi->regs_used = 0;
	abi->stack = 8;
	if (ret && is_aggregate(ret) && ret->size > 16)
		abi->regs_used = 1;
}

void abi_place(struct abi *abi, struct ctype *t, struct tloc *l)
{
	uint64_t size = t && t->size ? t->size : 8;
	/* A damaged BTF may claim any size: 64-bit words, and no parameter
	 * larger than the 4 GiB BTF can describe moves the offsets further. */
	int64_t words = (int64_t)((size + 7) / 8);
	bool aggregate = t && is_aggregate(t);
	if (t && ((t->kind == CT_INT && t->is_float) || (aggregate && size <= 16 && has_float(t, 0)))) {
		/* In SSE registers (or mixed), which pt_regs does not hold;
		 * past eight of them it would be on the stack, which is rare
		 * enough to leave unread too. */
		l->kind = TL_NONE;
		l->why = xstrdup("it is passed in a floating-point register, which a probe does not see");
		return;
	}
	if (words <= 2 && abi->regs_used + words <= 6) {
		if (words == 1 || !aggregate) {
			loc_reg(l, arg_regs[abi->regs_used]);
			abi->regs_used += words;
			return;
		}
		/* A 9- to 16-byte struct: its two halves in two registers. */
		l->kind = TL_PIECES;
		l->pieces = xcalloc(2, sizeof *l->pieces);
		l->npieces = 2;
		loc_reg(&l->pieces[0].loc, arg_regs[abi->regs_used++]);
		l->pieces[0].size = 8;
		loc_reg(&l->pieces[1].loc, arg_regs[abi->regs_used++]);
		l->pieces[1].size = size - 8;
		return;
	}
	loc_stack(l, abi->stack);
	abi->stack += 8 * words;
}

void tloc_free(struct tloc *l)
{
	for (size_t i = 0; i < l->npieces; i++)
		tloc_free(&l->pieces[i].loc);
	free(l->pieces);
	free(l->ops);
	free(l->why);
	if (l->stat) {
		free(l->stat->object);
		free(l->stat->build_id);
		free(l->stat->symbol);
		free(l->stat);
	}
	*l = (struct tloc){ .kind = TL_NONE };
}
