// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * BTF, the kernel's compact type format (see btf.h). This is the only file
 * that uses libbpf: it reads types and prototypes through libbpf's BTF API
 * and fills the same model as DWARF, so pass 2 and codegen have one path.
 *
 * Where a parameter is at the entry of a function follows the x86-64 System
 * V convention, which the kernel keeps: the first six integer-class words
 * in rdi, rsi, rdx, rcx, r8, r9; a struct of up to 16 bytes in one or two
 * of them (if both fit, else on the stack); larger structs and the rest on
 * the stack, from rsp + 8 (the return address is at rsp).
 */
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "debuginfo/btf.h"
#include "debuginfo/kernel.h"
#include "util.h"

struct btf_func {
	const char *name;
	__u32 id;
	uint64_t key[2]; /* names_keys(name) */
};

struct btf_source {
	struct btf *btf;
	struct ctype **types; /* by BTF id, made on first use */
	size_t ntypes;
	struct type_source src;
	struct btf_func *funcs; /* by name: libbpf's lookup by name is a linear scan */
	size_t nfuncs;
	__u32 first_id;         /* its own types' first id (a module's follow the kernel's) */
	struct btf_source *base; /* a module's: the kernel's, which makes the types below first_id */
	/* btf_find_type's answers by name: each libbpf lookup scans every type,
	 * and the syscall tapset casts to struct pt_regs in hundreds of probes */
	struct ptrvec cast_names, cast_types;
};

static int func_cmp(const void *a, const void *b)
{
	const struct btf_func *x = a, *y = b;
	int c = strcmp(x->name, y->name);
	return c ? c : (x->id > y->id) - (x->id < y->id);
}

static struct ctype **slot(struct btf_source *b, __u32 id)
{
	return &b->types[id - b->first_id];
}

/* The FUNC named name (the first, if several static functions share it). */
static __s32 find_func(struct btf_source *b, const char *name)
{
	if (!b->funcs) {
		b->funcs = xcalloc(b->ntypes - b->first_id + 1, sizeof *b->funcs);
		for (__u32 id = b->first_id; id < b->ntypes; id++) {
			const struct btf_type *t = btf__type_by_id(b->btf, id);
			const char *n = t && btf_is_func(t) ? btf__name_by_offset(b->btf, t->name_off) : NULL;
			if (n && *n) {
				b->funcs[b->nfuncs] = (struct btf_func){ n, id, { 0, 0 } };
				names_keys(n, SIZE_MAX, b->funcs[b->nfuncs++].key);
			}
		}
		sort_by_name_keys(b->funcs, b->nfuncs, sizeof *b->funcs, offsetof(struct btf_func, key),
				  func_cmp);
	}
	size_t lo = 0, hi = b->nfuncs;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (strcmp(b->funcs[mid].name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < b->nfuncs && !strcmp(b->funcs[lo].name, name) ? (__s32)b->funcs[lo].id : -1;
}

static struct ctype void_type = { .kind = CT_VOID, .name = "void", .complete = true };

static void complete_type(struct ctype *c);

/* libbpf would print its own warnings; stap reports failures itself. */
static int quiet(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	(void)level;
	(void)fmt;
	(void)ap;
	return 0;
}

static void be_quiet(void)
{
	static bool done;
	if (!done) {
		libbpf_set_print(quiet);
		done = true;
	}
}

static struct btf_source *source(struct btf *btf, __u32 first_id, struct btf_source *base)
{
	struct btf_source *b = xcalloc(1, sizeof *b);
	b->btf = btf;
	b->first_id = first_id;
	b->base = base;
	b->ntypes = btf__type_cnt(btf);
	/* Only its own: a module's would otherwise hold the kernel's 100,000 again. */
	b->types = xcalloc(b->ntypes - first_id + 1, sizeof *b->types);
	b->src = (struct type_source){ complete_type, b };
	return b;
}

struct btf_source *btf_open(const char *path, char **why)
{
	be_quiet();
	struct btf *btf = btf__parse_raw(path);
	if (!btf || libbpf_get_error(btf)) {
		*why = xasprintf("cannot read the BTF in %s: %s", path, strerror(errno));
		return NULL;
	}
	return source(btf, 1, NULL);
}

struct btf_source *btf_open_module(const char *ko, struct btf_source *kernel, char **why)
{
	be_quiet();
	struct btf *btf = btf__parse_elf_split(ko, kernel->btf);
	if (!btf || libbpf_get_error(btf)) {
		int err = errno;
		*why = err == ENOENT ? xasprintf("%s has no BTF (no .BTF section)", ko)
				     : xasprintf("the BTF of %s does not read on top of the kernel's "
						 "(%s): a damaged or truncated .BTF section, or a "
						 "module of another kernel",
						 ko, strerror(err));
		return NULL;
	}
	return source(btf, btf__type_cnt(kernel->btf), kernel);
}

void btf_close(struct btf_source *b)
{
	btf__free(b->btf);
	free(b->types);
	free(b->funcs);
	for (size_t i = 0; i < b->cast_names.n; i++)
		free(b->cast_names.v[i]);
	pv_free(&b->cast_names);
	pv_free(&b->cast_types);
	free(b);
}

void btf_each_function(struct btf_source *b, const char *pattern,
		       void (*fn)(const char *name, void *ctx), void *ctx)
{
	find_func(b, "");
	for (size_t i = 0; i < b->nfuncs; i++)
		if ((i == 0 || strcmp(b->funcs[i].name, b->funcs[i - 1].name)) &&
		    (!pattern || fnmatch(pattern, b->funcs[i].name, 0) == 0))
			fn(b->funcs[i].name, ctx);
}

void btf_each_typedef(struct btf_source *b, const char *prefix,
		      void (*fn)(const char *rest, void *ctx), void *ctx)
{
	size_t len = strlen(prefix);
	for (__u32 id = b->first_id; id < b->ntypes; id++) {
		const struct btf_type *t = btf__type_by_id(b->btf, id);
		const char *n = t && btf_is_typedef(t) ? btf__name_by_offset(b->btf, t->name_off) : NULL;
		if (n && !strncmp(n, prefix, len) && n[len])
			fn(n + len, ctx);
	}
}

static const char *name_of(const struct btf_source *b, const struct btf_type *t)
{
	const char *n = btf__name_by_offset(b->btf, t->name_off);
	return n && *n ? n : NULL;
}

static struct ctype *new_type(struct btf_source *b, __u32 id, enum ctype_kind kind)
{
	struct ctype *c = xcalloc(1, sizeof *c);
	c->kind = kind;
	c->src = &b->src;
	c->key = id;
	c->complete = true;
	*slot(b, id) = c;
	return c;
}

static struct ctype *btf_type(struct btf_source *b, __u32 id, int depth)
{
	if (id == 0 || id >= b->ntypes || depth > 64)
		return &void_type;
	if (id < b->first_id)
		return b->base ? btf_type(b->base, id, depth) : &void_type;
	if (*slot(b, id))
		return *slot(b, id);
	const struct btf_type *t = btf__type_by_id(b->btf, id);
	if (!t)
		return &void_type;
	const char *n = name_of(b, t);
	struct ctype *c;
	switch (btf_kind(t)) {
	case BTF_KIND_INT:
	case BTF_KIND_FLOAT: {
		c = new_type(b, id, CT_INT);
		c->size = t->size;
		c->is_float = btf_kind(t) == BTF_KIND_FLOAT;
		c->name = xstrdup(n ? n : "int");
		__u8 enc = btf_is_int(t) ? btf_int_encoding(t) : 0;
		c->is_signed = enc & BTF_INT_SIGNED;
		c->is_bool = enc & BTF_INT_BOOL;
		/* pahole marks "char" signed, not always BTF_INT_CHAR. */
		c->is_char = (enc & BTF_INT_CHAR) || (t->size == 1 && n && strstr(n, "char"));
		return c;
	}
	case BTF_KIND_PTR:
		c = new_type(b, id, CT_PTR); /* first: a struct may point to itself */
		c->size = 8;
		c->target = btf_type(b, t->type, depth + 1);
		/* As SystemTap's -L writes them: "struct file*", "char**". */
		c->name = xasprintf("%s*", c->target->name ? c->target->name : "void");
		return c;
	case BTF_KIND_ARRAY: {
		const struct btf_array *a = btf_array(t);
		c = new_type(b, id, CT_ARRAY);
		c->target = btf_type(b, a->type, depth + 1);
		c->count = a->nelems;
		c->size = c->target->size * a->nelems;
		c->name = xasprintf("%s[%u]", c->target->name, a->nelems);
		return c;
	}
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION: {
		bool is_union = btf_kind(t) == BTF_KIND_UNION;
		c = new_type(b, id, is_union ? CT_UNION : CT_STRUCT);
		c->size = t->size;
		c->name = xasprintf("%s %s", is_union ? "union" : "struct", n ? n : "<anonymous>");
		c->complete = false; /* members on first use */
		return c;
	}
	case BTF_KIND_FWD: {
		/* A declaration: the definition, if the BTF has one by that name. */
		bool is_union = btf_kflag(t);
		__s32 def = n ? btf__find_by_name_kind(b->btf, n, is_union ? BTF_KIND_UNION
									 : BTF_KIND_STRUCT)
			      : -1;
		if (def > 0 && (__u32)def != id) {
			c = btf_type(b, (__u32)def, depth + 1);
			*slot(b, id) = c;
			return c;
		}
		c = new_type(b, id, is_union ? CT_UNION : CT_STRUCT);
		c->name = xasprintf("%s %s", is_union ? "union" : "struct", n ? n : "<anonymous>");
		return c;
	}
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
		c = new_type(b, id, CT_ENUM);
		c->size = t->size;
		c->is_signed = btf_kflag(t);
		c->name = xasprintf("enum %s", n ? n : "<anonymous>");
		c->complete = false;
		return c;
	case BTF_KIND_TYPEDEF:
	case BTF_KIND_VOLATILE:
	case BTF_KIND_CONST:
	case BTF_KIND_RESTRICT:
	case BTF_KIND_TYPE_TAG:
		/* Seen through: the model has no qualifiers. */
		c = btf_type(b, t->type, depth + 1);
		*slot(b, id) = c;
		return c;
	case BTF_KIND_FUNC_PROTO:
		c = new_type(b, id, CT_FUNC);
		c->name = xstrdup("function");
		return c;
	default:
		return &void_type;
	}
}

static void complete_type(struct ctype *c)
{
	struct btf_source *b = c->src->ctx;
	const struct btf_type *t = btf__type_by_id(b->btf, (__u32)c->key);
	if (!t)
		return;
	__u16 n = btf_vlen(t);
	if (btf_is_composite(t)) {
		const struct btf_member *m = btf_members(t);
		c->members = xcalloc(n ? n : 1, sizeof *c->members);
		for (__u16 i = 0; i < n; i++) {
			struct cmember *cm = &c->members[c->nmembers++];
			const char *mn = btf__name_by_offset(b->btf, m[i].name_off);
			cm->name = mn && *mn ? xstrdup(mn) : NULL;
			cm->type = btf_type(b, m[i].type, 0);
			__u32 bit = btf_member_bit_offset(t, i), bits = btf_member_bitfield_size(t, i);
			cm->offset = bit / 8;
			if (bits) {
				cm->bit_offset = (int)(bit % 8);
				cm->bit_size = (int)bits;
			}
		}
	} else if (btf_is_enum(t) || btf_is_enum64(t)) {
		c->enums = xcalloc(n ? n : 1, sizeof *c->enums);
		for (__u16 i = 0; i < n; i++) {
			const char *en;
			long long v;
			if (btf_is_enum(t)) {
				en = btf__name_by_offset(b->btf, btf_enum(t)[i].name_off);
				v = c->is_signed ? (long long)btf_enum(t)[i].val
						 : (long long)(__u32)btf_enum(t)[i].val;
			} else {
				en = btf__name_by_offset(b->btf, btf_enum64(t)[i].name_off);
				v = (long long)btf_enum64_value(&btf_enum64(t)[i]);
			}
			c->enums[c->nenums++] = (struct cenum){ xstrdup(en ? en : "?"), v };
		}
	}
}

/* A type's name as its declaration writes it ("size_t", "char const*"), for
 * -L; NULL where the model's name will do. */
static char *declared_name(struct btf_source *b, __u32 id, int depth)
{
	if (id == 0)
		return xstrdup("void");
	const struct btf_type *t = btf__type_by_id(b->btf, id);
	if (!t || depth > 16)
		return NULL;
	const char *n = name_of(b, t);
	char *in, *out;
	switch (btf_kind(t)) {
	case BTF_KIND_TYPEDEF:
	case BTF_KIND_INT:
	case BTF_KIND_FLOAT:
		return n ? xstrdup(n) : NULL;
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
	case BTF_KIND_FWD:
		return n ? xasprintf("%s %s",
				     btf_is_union(t) || (btf_is_fwd(t) && btf_kflag(t)) ? "union"
				     : btf_is_any_enum(t)                               ? "enum"
											: "struct",
				     n)
			 : NULL;
	case BTF_KIND_PTR:
	case BTF_KIND_CONST:
	case BTF_KIND_VOLATILE:
		in = declared_name(b, t->type, depth + 1);
		if (!in)
			return NULL;
		out = btf_is_ptr(t) ? xasprintf("%s*", in)
				    : xasprintf("%s %s", in, btf_is_const(t) ? "const" : "volatile");
		free(in);
		return out;
	case BTF_KIND_TYPE_TAG:
	case BTF_KIND_RESTRICT:
		return declared_name(b, t->type, depth + 1);
	default:
		return NULL;
	}
}

/* A site at the entry of a function of prototype proto (a FUNC_PROTO),
 * its unnamed parameters named argN. */
static struct probe_site *proto_site(struct btf_source *b, const struct btf_type *proto,
				     const char *name, __s32 id)
{
	if (!proto || !btf_is_func_proto(proto))
		return NULL;
	struct probe_site *s = xcalloc(1, sizeof *s);
	s->function = xstrdup(name);
	s->source = "BTF";
	s->src_ctx = b;
	s->src_key = (uint64_t)id;
	if (proto->type) {
		s->return_type = btf_type(b, proto->type, 0);
		s->return_type_name = declared_name(b, proto->type, 0);
	}
	__u16 n = btf_vlen(proto);
	const struct btf_param *p = btf_params(proto);
	s->vars = xcalloc(n ? n : 1, sizeof *s->vars);
	struct abi abi;
	abi_start(&abi, s->return_type);
	for (__u16 i = 0; i < n; i++) {
		if (!p[i].type && i == n - 1)
			break; /* "...": variadic arguments are not named */
		struct tvar *v = &s->vars[s->nvars++];
		const char *pn = btf__name_by_offset(b->btf, p[i].name_off);
		v->name = pn && *pn ? xstrdup(pn) : xasprintf("arg%u", i + 1);
		v->type = btf_type(b, p[i].type, 0);
		v->type_name = declared_name(b, p[i].type, 0);
		v->is_param = true;
		abi_place(&abi, v->type, &v->loc);
	}
	s->vars_loaded = true;
	return s;
}

struct probe_site *btf_function_site(struct btf_source *b, const char *name)
{
	__s32 id = find_func(b, name);
	const struct btf_type *fn = id > 0 ? btf__type_by_id(b->btf, (__u32)id) : NULL;
	return fn ? proto_site(b, btf__type_by_id(b->btf, fn->type), name, id) : NULL;
}

struct probe_site *btf_typedef_site(struct btf_source *b, const char *name)
{
	__s32 id = btf__find_by_name_kind(b->btf, name, BTF_KIND_TYPEDEF);
	const struct btf_type *t = id > 0 ? btf__type_by_id(b->btf, (__u32)id) : NULL;
	const struct btf_type *ptr = t ? btf__type_by_id(b->btf, t->type) : NULL;
	if (ptr && btf_is_func_proto(ptr)) /* a function type itself: nf_hookfn */
		return proto_site(b, ptr, name, id);
	if (!ptr || !btf_is_ptr(ptr))
		return NULL;
	return proto_site(b, btf__type_by_id(b->btf, ptr->type), name, id);
}

/* The parameter type ids of proto after the first, "ID,ID,...". */
static char *proto_signature(const struct btf_source *b, const struct btf_type *proto)
{
	if (!proto || !btf_is_func_proto(proto))
		return NULL;
	struct strbuf sig;
	sb_init(&sig);
	const struct btf_param *p = btf_params(proto);
	for (__u16 i = 1; i < btf_vlen(proto); i++)
		sb_printf(&sig, "%u,", p[i].type);
	sb_puts(&sig, "");
	return sb_detach(&sig);
}

char *btf_signature(struct btf_source *b, const char *name)
{
	__s32 id = find_func(b, name);
	const struct btf_type *t = id > 0 ? btf__type_by_id(b->btf, (__u32)id) : NULL;
	if (t)
		return proto_signature(b, btf__type_by_id(b->btf, t->type));
	id = btf__find_by_name_kind(b->btf, name, BTF_KIND_TYPEDEF);
	t = id > 0 ? btf__type_by_id(b->btf, (__u32)id) : NULL;
	const struct btf_type *ptr = t ? btf__type_by_id(b->btf, t->type) : NULL;
	return ptr && btf_is_ptr(ptr) ? proto_signature(b, btf__type_by_id(b->btf, ptr->type)) : NULL;
}

static struct ctype *find_type(struct btf_source *b, const char *name, char **why);

struct ctype *btf_find_type(struct btf_source *b, const char *name, char **why)
{
	for (size_t i = 0; i < b->cast_names.n; i++)
		if (!strcmp(b->cast_names.v[i], name))
			return b->cast_types.v[i];
	struct ctype *t = find_type(b, name, why);
	if (t) {
		pv_push(&b->cast_names, xstrdup(name));
		pv_push(&b->cast_types, t);
	}
	return t;
}

static struct ctype *find_type(struct btf_source *b, const char *name, char **why)
{
	static const struct {
		const char *prefix;
		int kind;
	} tagged[] = { { "struct ", BTF_KIND_STRUCT }, { "union ", BTF_KIND_UNION },
		       { "enum ", BTF_KIND_ENUM } };
	__s32 id = -1;
	for (size_t i = 0; i < sizeof tagged / sizeof *tagged && id < 0; i++) {
		size_t len = strlen(tagged[i].prefix);
		if (!strncmp(name, tagged[i].prefix, len)) {
			id = btf__find_by_name_kind(b->btf, name + len, tagged[i].kind);
			if (id < 0 && tagged[i].kind == BTF_KIND_ENUM)
				id = btf__find_by_name_kind(b->btf, name + len, BTF_KIND_ENUM64);
			if (id < 0) {
				*why = xasprintf("the kernel's BTF has no %s", name);
				return NULL;
			}
		}
	}
	/* A bare name, as SystemTap's @cast(p, "task_struct") writes it: a
	 * typedef, else a struct, union or enum of that tag. */
	static const int bare[] = { BTF_KIND_TYPEDEF, BTF_KIND_INT, BTF_KIND_STRUCT, BTF_KIND_UNION,
				    BTF_KIND_ENUM, BTF_KIND_ENUM64 };
	for (size_t i = 0; i < sizeof bare / sizeof *bare && id < 0; i++)
		id = btf__find_by_name_kind(b->btf, name, bare[i]);
	if (id < 0) {
		*why = xasprintf("the kernel's BTF has no type '%s'", name);
		return NULL;
	}
	return btf_type(b, (__u32)id, 0);
}

char **btf_function_names(const void *data, size_t size, size_t *n)
{
	struct btf *btf = btf__new(data, (__u32)size);
	if (!btf || libbpf_get_error(btf))
		return NULL;
	struct ptrvec names = { 0 };
	__u32 count = btf__type_cnt(btf);
	for (__u32 id = 1; id < count; id++) {
		const struct btf_type *t = btf__type_by_id(btf, id);
		if (!t || !btf_is_func(t))
			continue;
		const char *name = btf__name_by_offset(btf, t->name_off);
		if (name && *name)
			pv_push(&names, xstrdup(name));
	}
	btf__free(btf);
	*n = symbols_sort_unique((char **)names.v, names.n);
	return (char **)names.v;
}
