// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The DWARF types of a module as the target model's types (ctype), made
 * when first asked for and completed only when their members are needed
 * (complete_type): a module has thousands, a script looks into a few.
 * And a type by name, for @cast (dw_find_type).
 */
#include <dwarf.h>
#include <stdlib.h>
#include <string.h>

#include "debuginfo/dw-private.h"

static struct ctype **type_slot(struct dw_obj *o, uint64_t key)
{
	if (2 * (o->ntypes + 1) > o->types_cap) {
		size_t cap = o->types_cap ? 2 * o->types_cap : 256;
		struct type_slot *old = o->types;
		size_t oldcap = o->types_cap;
		o->types = xcalloc(cap, sizeof *o->types);
		o->types_cap = cap;
		o->ntypes = 0;
		for (size_t i = 0; i < oldcap; i++)
			if (old[i].t)
				*type_slot(o, old[i].key) = old[i].t;
		free(old);
	}
	size_t i = (size_t)(key * 0x9e3779b97f4a7c15ULL) & (o->types_cap - 1);
	while (o->types[i].t && o->types[i].key != key)
		i = (i + 1) & (o->types_cap - 1);
	if (!o->types[i].t) {
		o->types[i].key = key;
		o->ntypes++;
	}
	return &o->types[i].t;
}

static uint64_t die_udata(Dwarf_Die *die, unsigned attr, uint64_t dflt)
{
	Dwarf_Attribute a;
	Dwarf_Word w;
	if (!dwarf_attr_integrate(die, attr, &a) || dwarf_formudata(&a, &w) != 0)
		return dflt;
	return w;
}

bool die_type(Dwarf_Die *die, Dwarf_Die *out)
{
	Dwarf_Attribute a;
	return dwarf_attr_integrate(die, DW_AT_type, &a) && dwarf_formref_die(&a, out);
}

static struct ctype *new_type(struct dw_obj *o, Dwarf_Die *die, enum ctype_kind kind)
{
	struct ctype *t = xcalloc(1, sizeof *t);
	t->kind = kind;
	t->src = &o->src;
	t->key = dwarf_dieoffset(die);
	t->complete = true; /* unless a kind below fills parts later */
	*type_slot(o, t->key) = t;
	return t;
}

static char *tag_name(const char *kw, Dwarf_Die *die)
{
	const char *n = dwarf_diename(die);
	return n ? xasprintf("%s %s", kw, n) : xasprintf("%s <anonymous>", kw);
}

static size_t def_hash(int tag, const char *name)
{
	return (size_t)hash_bytes((uint64_t)tag * 0x9e3779b97f4a7c15ULL, name, strlen(name));
}

/* The slot of (tag, name): its definition, or the empty slot for it. */
static struct def_slot *def_slot(struct dw_obj *o, int tag, const char *name)
{
	size_t i = def_hash(tag, name) & (o->defs_cap - 1);
	while (o->defs[i].name && (o->defs[i].tag != tag || strcmp(o->defs[i].name, name)))
		i = (i + 1) & (o->defs_cap - 1);
	return &o->defs[i];
}

static void def_add(struct dw_obj *o, int tag, const char *name, Dwarf_Off off)
{
	if (2 * (o->ndefs + 1) > o->defs_cap) {
		struct def_slot *old = o->defs;
		size_t oldcap = o->defs_cap;
		o->defs_cap = oldcap ? 2 * oldcap : 1024;
		o->defs = xcalloc(o->defs_cap, sizeof *o->defs);
		for (size_t i = 0; i < oldcap; i++)
			if (old[i].name)
				*def_slot(o, old[i].tag, old[i].name) = old[i];
		free(old);
	}
	struct def_slot *slot = def_slot(o, tag, name);
	if (!slot->name) { /* the first unit's definition, as a search in order finds */
		*slot = (struct def_slot){ name, tag, off };
		o->ndefs++;
	}
}

/*
 * A declaration-only struct: its definition, found by name in any unit.
 * The units are indexed as far as a lookup needs, once: a script meeting
 * many declarations (a 20-probe script, $$parms) no longer rescans every
 * unit for each.
 */
static bool find_definition(struct dw_obj *o, Dwarf_Die *decl, Dwarf_Die *out)
{
	const char *name = dwarf_diename(decl);
	int tag = dwarf_tag(decl);
	if (!name)
		return false;
	for (;;) {
		if (o->defs_cap) {
			struct def_slot *slot = def_slot(o, tag, name);
			if (slot->name)
				return dwarf_offdie(o->dbg, slot->off, out) != NULL;
		}
		if (o->defs_all_read)
			return false;
		Dwarf_Off off = o->defs_next_unit, next;
		size_t hsize;
		if (dwarf_nextcu(o->dbg, off, &next, &hsize, NULL, NULL, NULL) != 0) {
			o->defs_all_read = true;
			continue;
		}
		o->defs_next_unit = next;
		Dwarf_Die cu, child;
		if (dwarf_offdie(o->dbg, off + hsize, &cu) && dwarf_child(&cu, &child) == 0) {
			do {
				int t = dwarf_tag(&child);
				if ((t == DW_TAG_structure_type || t == DW_TAG_union_type ||
				     t == DW_TAG_class_type || t == DW_TAG_enumeration_type) &&
				    !dwarf_hasattr(&child, DW_AT_declaration)) {
					const char *n = dwarf_diename(&child);
					if (n)
						def_add(o, t, n, dwarf_dieoffset(&child));
				}
			} while (dwarf_siblingof(&child, &child) == 0);
		}
	}
}

struct ctype *dw_type(struct dw_obj *o, Dwarf_Die *die)
{
	if (!die) {
		static struct ctype void_type = { .kind = CT_VOID, .name = "void", .complete = true };
		return &void_type;
	}
	struct ctype **slot = type_slot(o, dwarf_dieoffset(die));
	if (*slot)
		return *slot;
	Dwarf_Die inner, *ip;
	struct ctype *t;
	switch (dwarf_tag(die)) {
	case DW_TAG_typedef:
	case DW_TAG_const_type:
	case DW_TAG_volatile_type:
	case DW_TAG_restrict_type:
	case DW_TAG_atomic_type:
		/* Seen through: the model has no qualifiers. */
		ip = die_type(die, &inner) ? &inner : NULL;
		t = dw_type(o, ip);
		*type_slot(o, dwarf_dieoffset(die)) = t;
		return t;
	case DW_TAG_base_type: {
		t = new_type(o, die, CT_INT);
		t->size = die_udata(die, DW_AT_byte_size, 0);
		uint64_t enc = die_udata(die, DW_AT_encoding, 0);
		t->is_signed = enc == DW_ATE_signed || enc == DW_ATE_signed_char;
		t->is_char = enc == DW_ATE_signed_char || enc == DW_ATE_unsigned_char;
		t->is_bool = enc == DW_ATE_boolean;
		t->is_float = enc == DW_ATE_float || enc == DW_ATE_complex_float;
		const char *n = dwarf_diename(die);
		t->name = xstrdup(n ? n : "int");
		return t;
	}
	case DW_TAG_enumeration_type:
		t = new_type(o, die, CT_ENUM);
		t->size = die_udata(die, DW_AT_byte_size, 4);
		t->name = tag_name("enum", die);
		t->is_signed = true;
		if (die_type(die, &inner)) {
			struct ctype *u = dw_type(o, &inner);
			t->is_signed = u->is_signed;
		}
		t->complete = false;
		return t;
	case DW_TAG_pointer_type:
	case DW_TAG_reference_type:
	case DW_TAG_rvalue_reference_type: {
		t = new_type(o, die, CT_PTR);
		t->size = die_udata(die, DW_AT_byte_size, 8);
		ip = die_type(die, &inner) ? &inner : NULL;
		t->target = dw_type(o, ip);
		/* As SystemTap's -L writes them: "struct file*", "char**". */
		t->name = xasprintf("%s*", t->target->name ? t->target->name : "void");
		return t;
	}
	case DW_TAG_array_type: {
		t = new_type(o, die, CT_ARRAY);
		ip = die_type(die, &inner) ? &inner : NULL;
		struct ctype *elem = dw_type(o, ip);
		/* int a[2][3]: subranges outermost first; build from the last. */
		Dwarf_Die sub;
		uint64_t counts[8];
		int nd = 0;
		if (dwarf_child(die, &sub) == 0) {
			do {
				if (dwarf_tag(&sub) != DW_TAG_subrange_type || nd == 8)
					continue;
				uint64_t c = die_udata(&sub, DW_AT_count, 0);
				if (!c && dwarf_hasattr(&sub, DW_AT_upper_bound)) {
					Dwarf_Attribute a;
					Dwarf_Sword ub;
					if (dwarf_attr(&sub, DW_AT_upper_bound, &a) &&
					    dwarf_formsdata(&a, &ub) == 0 && ub >= 0)
						c = (uint64_t)ub + 1;
				}
				counts[nd++] = c;
			} while (dwarf_siblingof(&sub, &sub) == 0);
		}
		if (nd == 0)
			counts[nd++] = 0;
		for (int i = nd - 1; i > 0; i--) {
			struct ctype *a = xcalloc(1, sizeof *a);
			a->kind = CT_ARRAY;
			a->complete = true;
			a->target = elem;
			a->count = counts[i];
			a->size = elem->size * counts[i];
			a->name = xasprintf("%s[%llu]", elem->name, (unsigned long long)counts[i]);
			elem = a;
		}
		t->target = elem;
		t->count = counts[0];
		t->size = elem->size * counts[0];
		t->name = xasprintf("%s[%llu]", elem->name, (unsigned long long)counts[0]);
		return t;
	}
	case DW_TAG_structure_type:
	case DW_TAG_class_type:
	case DW_TAG_union_type: {
		bool is_union = dwarf_tag(die) == DW_TAG_union_type;
		/* A declaration's definition is looked for when the type is
		 * completed (complete_type), not here: task_struct's pointers
		 * alone lead to dozens, and finding one may mean reading the
		 * kernel's units up to it (40% of a 20-probe script's pass 2).
		 * Its size is known once it is complete. */
		t = new_type(o, die, is_union ? CT_UNION : CT_STRUCT);
		t->size = die_udata(die, DW_AT_byte_size, 0);
		t->name = tag_name(is_union ? "union" : "struct", die);
		t->complete = false;
		return t;
	}
	case DW_TAG_subroutine_type:
		t = new_type(o, die, CT_FUNC);
		t->name = xstrdup("function");
		return t;
	default:
		t = new_type(o, die, CT_VOID);
		t->name = xstrdup("void");
		return t;
	}
}

static void complete_members(struct dw_obj *o, struct ctype *t, Dwarf_Die *die)
{
	Dwarf_Die m;
	size_t cap = 0;
	if (dwarf_child(die, &m) != 0)
		return;
	do {
		if (dwarf_tag(&m) != DW_TAG_member)
			continue;
		Dwarf_Die ty;
		struct cmember cm = { 0 };
		const char *n = dwarf_diename(&m);
		cm.name = n ? xstrdup(n) : NULL;
		cm.type = dw_type(o, die_type(&m, &ty) ? &ty : NULL);
		uint64_t byte = 0;
		Dwarf_Attribute a;
		Dwarf_Word w;
		if (dwarf_attr(&m, DW_AT_data_member_location, &a) && dwarf_formudata(&a, &w) == 0)
			byte = w;
		uint64_t bits = die_udata(&m, DW_AT_bit_size, 0);
		if (bits) {
			uint64_t at; /* bits from the start of the aggregate, little-endian */
			if (dwarf_hasattr(&m, DW_AT_data_bit_offset)) {
				at = die_udata(&m, DW_AT_data_bit_offset, 0);
			} else {
				/* DWARF 2/3: counted from the most significant bit of the unit. */
				uint64_t unit = die_udata(&m, DW_AT_byte_size, cm.type->size);
				uint64_t msb = die_udata(&m, DW_AT_bit_offset, 0);
				at = byte * 8 + unit * 8 - msb - bits;
			}
			cm.offset = at / 8;
			cm.bit_offset = (int)(at % 8);
			cm.bit_size = (int)bits;
		} else {
			cm.offset = byte;
		}
		if (t->nmembers == cap) {
			cap = cap ? 2 * cap : 8;
			t->members = xrealloc(t->members, cap * sizeof *t->members);
		}
		t->members[t->nmembers++] = cm;
	} while (dwarf_siblingof(&m, &m) == 0);
}

static void complete_enum(struct ctype *t, Dwarf_Die *die)
{
	Dwarf_Die e;
	size_t cap = 0;
	if (dwarf_child(die, &e) != 0)
		return;
	do {
		if (dwarf_tag(&e) != DW_TAG_enumerator)
			continue;
		Dwarf_Attribute a;
		Dwarf_Sword v = 0;
		Dwarf_Word u;
		if (dwarf_attr(&e, DW_AT_const_value, &a)) {
			if (t->is_signed)
				dwarf_formsdata(&a, &v);
			else if (dwarf_formudata(&a, &u) == 0)
				v = (Dwarf_Sword)u;
		}
		if (t->nenums == cap) {
			cap = cap ? 2 * cap : 8;
			t->enums = xrealloc(t->enums, cap * sizeof *t->enums);
		}
		const char *n = dwarf_diename(&e);
		t->enums[t->nenums++] = (struct cenum){ xstrdup(n ? n : "?"), v };
	} while (dwarf_siblingof(&e, &e) == 0);
}

void complete_type(struct ctype *t)
{
	struct dw_obj *o = t->src->ctx;
	Dwarf_Die die, def;
	if (!revive(o) || !load_dwarf(o) || !dwarf_offdie(o->dbg, t->key, &die))
		return;
	if ((t->kind == CT_STRUCT || t->kind == CT_UNION) && dwarf_hasattr(&die, DW_AT_declaration)) {
		/* The definition's parts, as it has them. */
		if (find_definition(o, &die, &def)) {
			struct ctype *d = ctype_complete(dw_type(o, &def));
			t->size = d->size;
			t->members = d->members;
			t->nmembers = d->nmembers;
		}
		return;
	}
	if (t->kind == CT_STRUCT || t->kind == CT_UNION)
		complete_members(o, t, &die);
	else if (t->kind == CT_ENUM)
		complete_enum(t, &die);
}

static bool type_named(Dwarf_Die *die, const char *tag_word, const char *name)
{
	int tag = dwarf_tag(die);
	const char *n = dwarf_diename(die);
	if (!n || strcmp(n, name) || dwarf_hasattr(die, DW_AT_declaration))
		return false;
	if (!tag_word)
		return tag == DW_TAG_structure_type || tag == DW_TAG_union_type ||
		       tag == DW_TAG_typedef || tag == DW_TAG_base_type ||
		       tag == DW_TAG_enumeration_type;
	return (!strcmp(tag_word, "struct") && tag == DW_TAG_structure_type) ||
	       (!strcmp(tag_word, "union") && tag == DW_TAG_union_type) ||
	       (!strcmp(tag_word, "enum") && tag == DW_TAG_enumeration_type);
}

struct ctype *dw_find_type(struct dw *d, const char *module, const char *type, char **why)
{
	struct dw_obj *o = usable_obj(d, module, NULL, true, why);
	if (!o)
		return NULL;
	o->kept = true;
	/* "struct file", "union u", "enum e", or a bare name; a trailing '*'
	 * makes a pointer to it. */
	char *want = xstrdup(type);
	size_t len = strlen(want);
	int pointers = 0;
	while (len && (want[len - 1] == '*' || want[len - 1] == ' ')) {
		pointers += want[len - 1] == '*';
		want[--len] = 0;
	}
	const char *tag_word = NULL, *name = want;
	static const char *const words[] = { "struct ", "union ", "enum " };
	for (size_t i = 0; i < sizeof words / sizeof *words; i++) {
		size_t n = strlen(words[i]);
		if (!strncmp(want, words[i], n)) {
			want[n - 1] = 0;
			tag_word = want;
			name = want + n;
		}
	}
	struct ctype *found = NULL;
	Dwarf_Off off = 0, next;
	size_t hsize;
	while (!found && dwarf_nextcu(o->dbg, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu, child;
		if (dwarf_offdie(o->dbg, off + hsize, &cu) && dwarf_child(&cu, &child) == 0) {
			do {
				if (type_named(&child, tag_word, name)) {
					found = dw_type(o, &child);
					break;
				}
			} while (dwarf_siblingof(&child, &child) == 0);
		}
		off = next;
	}
	for (int i = 0; found && i < pointers; i++) {
		struct ctype *p = xcalloc(1, sizeof *p);
		p->kind = CT_PTR;
		p->size = 8;
		p->complete = true;
		p->target = found;
		p->name = xasprintf("%s*", found->name);
		found = p;
	}
	if (!found)
		*why = xasprintf("%s has no type '%s'", o->file, type);
	free(want);
	return found;
}
