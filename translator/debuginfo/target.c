// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The source-independent half of the target model (target.h): walking
 * types and a site's variables, whichever reader filled them.
 */
#include <string.h>

#include "debuginfo/target.h"

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
