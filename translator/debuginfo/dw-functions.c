// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Function probes (dw_functions): the functions of a module a query
 * matches, as probe sites, found first through its symbols so that a
 * wildcard reads the DWARF only of modules that may match; and the
 * variables a site sees (load_vars), read when first asked for.
 */
#include <dwarf.h>
#include <stddef.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "debuginfo/dw-private.h"
#include "debuginfo/dwbytes.h"

/* Where a function's code starts: its low_pc, or for a function split
 * into hot and cold parts (DW_AT_ranges) the start of its first range. */
bool function_entry(Dwarf_Die *die, Dwarf_Addr *pc)
{
	if (dwarf_lowpc(die, pc) == 0 || dwarf_entrypc(die, pc) == 0)
		return true;
	Dwarf_Addr base, start, end;
	return dwarf_ranges(die, 0, &base, &start, &end) > 0 && (*pc = start, true);
}

/*
 * A type's name as its declaration writes it, for listings: typedef names
 * kept ("size_t", "loff_t*"), qualifiers after what they qualify ("char
 * const*"), as SystemTap's -L shows them. NULL where the model's own name
 * will do (structs, arrays, functions).
 */
static char *declared_name(Dwarf_Die *die, int depth)
{
	if (!die)
		return xstrdup("void");
	if (depth > 8)
		return NULL;
	Dwarf_Die inner;
	bool has_inner = die_type(die, &inner);
	const char *n = dwarf_diename(die);
	char *in;
	switch (dwarf_tag(die)) {
	case DW_TAG_typedef:
	case DW_TAG_base_type:
		return n ? xstrdup(n) : NULL;
	case DW_TAG_structure_type:
	case DW_TAG_union_type:
	case DW_TAG_enumeration_type:
		if (!n)
			return NULL;
		return xasprintf("%s %s", dwarf_tag(die) == DW_TAG_structure_type ? "struct"
					  : dwarf_tag(die) == DW_TAG_union_type   ? "union"
										    : "enum",
				 n);
	case DW_TAG_pointer_type:
		in = declared_name(has_inner ? &inner : NULL, depth + 1);
		if (!in)
			return NULL;
		n = in;
		in = xasprintf("%s*", n);
		free((char *)n);
		return in;
	case DW_TAG_const_type:
	case DW_TAG_volatile_type:
		in = declared_name(has_inner ? &inner : NULL, depth + 1);
		if (!in)
			return NULL;
		n = in;
		in = xasprintf("%s %s", n, dwarf_tag(die) == DW_TAG_const_type ? "const" : "volatile");
		free((char *)n);
		return in;
	default:
		return NULL;
	}
}

void load_var(const struct where *w, Dwarf_Die *v, struct tvar *tv)
{
	struct dw_obj *o = w->o;
	Dwarf_Die ty;
	tv->type = dw_type(o, die_type(v, &ty) ? &ty : NULL);
	tv->type_name = declared_name(die_type(v, &ty) ? &ty : NULL, 0);
	Dwarf_Attribute a;
	if (dwarf_attr_integrate(v, DW_AT_const_value, &a)) {
		Dwarf_Sword c;
		Dwarf_Word u;
		tv->loc.kind = TL_VALUE;
		tv->loc.ops = xcalloc(1, sizeof *tv->loc.ops);
		tv->loc.nops = 1;
		if (dwarf_formsdata(&a, &c) == 0)
			tv->loc.ops[0] = (struct tloc_op){ LO_CONST, c };
		else if (dwarf_formudata(&a, &u) == 0)
			tv->loc.ops[0] = (struct tloc_op){ LO_CONST, (int64_t)u };
		else
			tv->loc = (struct tloc){ .kind = TL_NONE,
						 .why = xstrdup("its constant value is not a number") };
		return;
	}
	Dwarf_Op *ops;
	size_t n;
	int r = dwarf_attr_integrate(v, DW_AT_location, &a) ? dwarf_getlocation_addr(&a, w->pc, &ops, &n, 1)
							       : 0;
	if (r <= 0 || n == 0) {
		tv->loc = (struct tloc){ .kind = TL_NONE,
					 .why = xstrdup("it is optimized out at this point") };
		return;
	}
	translate_location(&tv->loc, &a, ops, n, w);
}

static void push_var(struct probe_site *s, size_t *cap, struct tvar tv)
{
	if (s->nvars == *cap) {
		*cap = *cap ? 2 * *cap : 8;
		s->vars = xrealloc(s->vars, *cap * sizeof *s->vars);
	}
	s->vars[s->nvars++] = tv;
}

static bool have_var(const struct probe_site *s, const char *name)
{
	for (size_t i = 0; i < s->nvars; i++)
		if (!strcmp(s->vars[i].name, name))
			return true;
	return false;
}

/*
 * Is parameter v, at the entry of its function, in a stack slot of the
 * function's own frame, which the prologue has yet to store it in? So
 * unoptimized code says where a parameter lives once the prologue ran
 * (DW_OP_fbreg below the canonical frame address, or against a frame
 * register the prologue sets up): at the entry that slot holds whatever
 * an earlier call left there.
 */
static bool stored_by_prologue(const struct where *w, Dwarf_Die *v)
{
	Dwarf_Attribute a, fa;
	Dwarf_Op *ops, *fops;
	size_t n, fn;
	if (!dwarf_attr_integrate(v, DW_AT_location, &a) ||
	    dwarf_getlocation_addr(&a, w->pc, &ops, &n, 1) != 1 || n != 1 || ops[0].atom != DW_OP_fbreg)
		return false;
	if (!dwarf_attr_integrate(w->func, DW_AT_frame_base, &fa) ||
	    dwarf_getlocation_addr(&fa, w->pc, &fops, &fn, 1) != 1 || fn != 1)
		return false;
	/* CFA - 8 holds the return address; below it is the callee's own. */
	return fops[0].atom != DW_OP_call_frame_cfa || (int64_t)ops[0].number < 0;
}

/* Parameters in order, then the locals of every scope around the entry. */
struct dw_obj *site_dwarf(const struct probe_site *s, Dwarf_Off off, Dwarf_Die *die)
{
	struct dw_obj *o = s->src_ctx;
	if (!o || s->load_vars != load_vars || !revive(o) || !load_dwarf(o) ||
	    !dwarf_offdie(o->dbg, off, die))
		return NULL;
	return o;
}

/* Blocks nest at most this deep: a damaged file's loop of them ends. */
#define MAX_BLOCK_DEPTH 64

static void each_die_in_blocks(Dwarf_Die *parent, void (*fn)(Dwarf_Die *die, void *ctx), void *ctx,
			       int depth)
{
	Dwarf_Die die;
	if (depth > MAX_BLOCK_DEPTH || dwarf_child(parent, &die) != 0)
		return;
	do {
		if (dwarf_tag(&die) == DW_TAG_lexical_block)
			each_die_in_blocks(&die, fn, ctx, depth + 1);
		else
			fn(&die, ctx);
	} while (dwarf_siblingof(&die, &die) == 0);
}

void each_body_die(Dwarf_Die *parent, void (*fn)(Dwarf_Die *die, void *ctx), void *ctx)
{
	each_die_in_blocks(parent, fn, ctx, 0);
}

void load_vars(struct probe_site *s)
{
	struct dw_obj *o = s->src_ctx;
	Dwarf_Die func, cudie, own;
	if (!revive(o) || !load_dwarf(o) || !dwarf_offdie(o->dbg, s->src_frame ? s->src_frame : s->src_key, &func) ||
	    !dwarf_offdie(o->dbg, s->src_key, &own) || !dwarf_diecu(&func, &cudie, NULL, NULL))
		return;
	size_t cap = 0;
	Dwarf_Addr entry = 0;
	function_entry(&func, &entry);
	struct where w = { o, &func, s->src_pc, s->src_pc == entry };
	Dwarf_Die *scopes = NULL;
	/* An inlined copy's variables are its own DIE's children; the frame
	 * base is the function it was inlined into. */
	int nscopes = s->src_frame ? 0 : dwarf_getscopes(&cudie, s->src_pc, &scopes);
	/* The function itself, then the blocks inside it that hold the pc. */
	Dwarf_Die *chain[16];
	int nchain = 0;
	chain[nchain++] = &own;
	for (int i = nscopes - 1; i >= 0 && nchain < 16; i--) {
		int tag = dwarf_tag(&scopes[i]);
		if (tag == DW_TAG_lexical_block && dwarf_dieoffset(&scopes[i]) != s->src_key)
			chain[nchain++] = &scopes[i];
	}
	/* At the entry of a function (not an inlined copy), parameters its
	 * prologue has yet to store are where the calling convention put
	 * them: every parameter, named or not, takes its place in order. */
	struct abi abi;
	bool by_abi = w.at_entry && !s->src_frame;
	abi_start(&abi, s->return_type);
	for (int pass = 0; pass < 2; pass++) {
		for (int c = 0; c < nchain; c++) {
			Dwarf_Die v;
			if (dwarf_child(chain[c], &v) != 0)
				continue;
			do {
				int tag = dwarf_tag(&v);
				bool param = tag == DW_TAG_formal_parameter;
				if (pass == 0 ? !param : tag != DW_TAG_variable)
					continue;
				struct tloc entry_loc = { .kind = TL_NONE };
				bool use_abi = false;
				if (param && c == 0 && by_abi) {
					Dwarf_Die ty;
					abi_place(&abi, dw_type(o, die_type(&v, &ty) ? &ty : NULL), &entry_loc);
					use_abi = stored_by_prologue(&w, &v);
				}
				Dwarf_Attribute na;
				const char *name = dwarf_formstring(dwarf_attr_integrate(&v, DW_AT_name, &na));
				if (!name || have_var(s, name)) {
					tloc_free(&entry_loc);
					continue;
				}
				struct tvar tv = { .name = xstrdup(name), .is_param = param };
				load_var(&w, &v, &tv);
				if (use_abi) {
					tloc_free(&tv.loc);
					tv.loc = entry_loc;
				} else {
					tloc_free(&entry_loc);
				}
				push_var(s, &cap, tv);
			} while (dwarf_siblingof(&v, &v) == 0);
		}
	}
	free(scopes);
}

/* Does a file pattern match the declaring file? Against its last
 * components, as many as the pattern has. */
bool file_matches(const char *pattern, const char *file)
{
	if (!file)
		return false;
	int slashes = 0;
	for (const char *p = pattern; *p; p++)
		slashes += *p == '/';
	const char *tail = file + strlen(file);
	while (tail > file) {
		tail--;
		if (*tail == '/' && slashes-- == 0) {
			tail++;
			break;
		}
	}
	return fnmatch(pattern, tail, 0) == 0;
}

/*
 * Where the kernel will find the function: itself if its name is unique,
 * else the nearest unique function before it in the same section, or
 * (when it is the section's first) the nearest after it, at a negative
 * offset.
 */
bool anchor_for(struct dw_obj *o, const char *name, const char *sec, uint64_t off,
		struct probe_site *s)
{
	const struct dw_sym *best = nearest_unique(o, sec, off, true, name);
	if (!best)
		return false;
	s->anchor = xstrdup(best->name);
	s->anchor_offset = (int64_t)(off - best->offset);
	return true;
}

static const unsigned char *section_bytes(Elf *elf, size_t shstrndx, const char *name,
					  size_t *size)
{
	for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn; scn = elf_nextscn(elf, scn)) {
		GElf_Shdr sh;
		const char *n;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS ||
		    !(n = elf_strptr(elf, shstrndx, sh.sh_name)) || strcmp(n, name))
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		if (!d || !d->d_buf)
			return NULL;
		*size = d->d_size;
		return d->d_buf;
	}
	return NULL;
}

/* The bytes dwscan.c and linefiles.c read without libdw, once per object:
 * libdw's own view of them, as the sanity check in scan_unit requires. */
static void read_raw_sections(struct dw_obj *o)
{
	if (o->raw_read)
		return;
	o->raw_read = true;
	Elf *elf = dwarf_getelf(o->dbg);
	size_t shstrndx;
	if (!elf || elf_getshdrstrndx(elf, &shstrndx) != 0)
		return;
	struct line_sections *ls = &o->lines;
	ls->line = section_bytes(elf, shstrndx, ".debug_line", &ls->line_size);
	ls->line_str = section_bytes(elf, shstrndx, ".debug_line_str", &ls->line_str_size);
	ls->str = section_bytes(elf, shstrndx, ".debug_str", &ls->str_size);
	struct dwscan_sections *ss = &o->scan;
	ss->info = section_bytes(elf, shstrndx, ".debug_info", &ss->info_size);
	ss->abbrev = section_bytes(elf, shstrndx, ".debug_abbrev", &ss->abbrev_size);
}

/*
 * The file a DIE was declared in, from its unit's line table header
 * (linefiles.c): dwarf_decl_file would decode the unit's whole line
 * program, the larger part of a wildcard's cost over thousands of
 * modules. libdw answers when the header cannot be read here.
 */
static const char *decl_file(struct dw_obj *o, Dwarf_Die *die)
{
	Dwarf_Attribute a, sl, cd;
	Dwarf_Word idx, off;
	Dwarf_Die cu;
	if (!dwarf_attr_integrate(die, DW_AT_decl_file, &a) || dwarf_formudata(&a, &idx) != 0)
		return NULL;
	if (!dwarf_cu_die(a.cu, &cu, NULL, NULL, NULL, NULL, NULL, NULL) ||
	    !dwarf_attr(&cu, DW_AT_stmt_list, &sl) || dwarf_formudata(&sl, &off) != 0)
		return dwarf_decl_file(die);
	read_raw_sections(o);
	struct unit_files *uf = NULL;
	for (size_t i = o->unit_files.n; i-- > 0 && !uf;)
		if (((struct unit_files *)o->unit_files.v[i])->off == off)
			uf = o->unit_files.v[i];
	if (!uf) {
		uf = xcalloc(1, sizeof *uf);
		uf->off = off;
		uf->ok = line_files_read(&o->lines, off,
					 dwarf_formstring(dwarf_attr(&cu, DW_AT_comp_dir, &cd)), &uf->lf);
		pv_push(&o->unit_files, uf);
	}
	if (!uf->ok)
		return dwarf_decl_file(die);
	return line_files_name(&uf->lf, idx);
}

/* The file's virtual address of DWARF address pc. */
uint64_t user_vaddr(const struct dw_obj *o, Dwarf_Addr pc)
{
	return pc + o->bias - o->elf_bias;
}

/* Was the unit compiled without optimization (gcc's -O0, its default)?
 * Then parameters reach their DWARF locations only after the prologue. */
static bool unoptimized(Dwarf_Die *die)
{
	Dwarf_Die cu;
	Dwarf_Attribute a;
	const char *producer = dwarf_diecu(die, &cu, NULL, NULL)
				       ? dwarf_formstring(dwarf_attr(&cu, DW_AT_producer, &a))
				       : NULL;
	if (!producer || strncmp(producer, "GNU ", 4))
		return false;
	const char *o = NULL;
	for (const char *p = strstr(producer, " -O"); p; p = strstr(p + 1, " -O"))
		o = p;
	return !o || o[3] == '0';
}

/* The end of the function's prologue: the first line-table row after its
 * entry (or the one marked prologue_end), if inside the function. */
static bool prologue_end(Dwarf_Die *func, Dwarf_Addr entry, Dwarf_Addr *out)
{
	Dwarf_Die cu;
	Dwarf_Lines *lines;
	size_t n;
	Dwarf_Addr high;
	if (!dwarf_diecu(func, &cu, NULL, NULL) || dwarf_getsrclines(&cu, &lines, &n) != 0 ||
	    dwarf_highpc(func, &high) != 0)
		return false;
	Dwarf_Addr first = 0, marked = 0;
	for (size_t i = 0; i < n; i++) {
		Dwarf_Line *l = dwarf_onesrcline(lines, i);
		Dwarf_Addr a;
		bool flag = false;
		if (!l || dwarf_lineaddr(l, &a) != 0 || a <= entry || a >= high)
			continue;
		if (!first || a < first)
			first = a;
		if (dwarf_lineprologueend(l, &flag) == 0 && flag && (!marked || a < marked))
			marked = a;
	}
	*out = marked ? marked : first;
	return *out != 0;
}

/* Where a probe on a user function goes: its entry, or for unoptimized
 * code (unless at_entry: a .return's uretprobe must take the return
 * address as the call left it) after the prologue, as SystemTap does. */
static void place_user(struct dw_obj *o, struct probe_site *s, Dwarf_Die *die, Dwarf_Addr pc,
		       bool at_entry)
{
	Dwarf_Addr body = pc;
	if (!at_entry && unoptimized(die))
		prologue_end(die, pc, &body);
	s->is_user = true;
	s->src_pc = body;
	s->user_vaddr = user_vaddr(o, body);
	s->user_entry_vaddr = user_vaddr(o, pc);
}

/* Is the unit C++? Only its names have scopes and template arguments. */
static bool is_cxx(Dwarf_Die *die)
{
	Dwarf_Die cu;
	Dwarf_Attribute a;
	Dwarf_Word lang;
	if (!dwarf_diecu(die, &cu, NULL, NULL) || !dwarf_attr(&cu, DW_AT_language, &a) ||
	    dwarf_formudata(&a, &lang) != 0)
		return false;
	return lang == DW_LANG_C_plus_plus || lang == DW_LANG_C_plus_plus_03 ||
	       lang == DW_LANG_C_plus_plus_11 || lang == DW_LANG_C_plus_plus_14;
}

/* Does a DIE's subtree describe a call? */
static bool has_call_site(Dwarf_Die *die, int depth)
{
	Dwarf_Die c;
	if (depth > 16 || dwarf_child(die, &c) != 0)
		return false;
	do {
		int tag = dwarf_tag(&c);
		if (tag == DW_TAG_call_site || tag == DW_TAG_GNU_call_site || has_call_site(&c, depth + 1))
			return true;
	} while (dwarf_siblingof(&c, &c) == 0);
	return false;
}

/* May an exception leave this C++ function? Not if it calls nothing: gcc
 * says when its DWARF describes every call (DW_AT_call_all_calls), and
 * throwing is a call too. */
static bool cxx_may_throw(Dwarf_Die *die)
{
	bool all_calls = false;
	Dwarf_Attribute a;
	if (dwarf_attr(die, DW_AT_call_all_calls, &a) || dwarf_attr(die, DW_AT_GNU_all_call_sites, &a))
		dwarf_formflag(&a, &all_calls);
	return !all_calls || has_call_site(die, 0);
}

/*
 * A C++ function's name with the namespaces and classes around its
 * declaration, "geo::Rect::area" (an out-of-line definition points at its
 * declaration, an inlined copy at its origin); NULL when it has none or
 * is not C++.
 */
static char *cxx_qualified_name(Dwarf_Die *die, const char *name)
{
	if (!is_cxx(die))
		return NULL;
	Dwarf_Die decl = *die, next;
	Dwarf_Attribute a;
	for (int i = 0; i < 4; i++) {
		if (!dwarf_attr(&decl, DW_AT_specification, &a) &&
		    !dwarf_attr(&decl, DW_AT_abstract_origin, &a))
			break;
		if (!dwarf_formref_die(&a, &next))
			break;
		decl = next;
	}
	Dwarf_Die *scopes = NULL;
	int n = dwarf_getscopes_die(&decl, &scopes);
	struct strbuf b;
	sb_init(&b);
	/* scopes[0] is the declaration, scopes[n - 1] the unit. */
	for (int i = n - 2; i >= 1; i--) {
		int tag = dwarf_tag(&scopes[i]);
		if (tag != DW_TAG_namespace && tag != DW_TAG_class_type &&
		    tag != DW_TAG_structure_type && tag != DW_TAG_union_type)
			continue;
		const char *sn = dwarf_diename(&scopes[i]);
		sb_printf(&b, "%s::", sn ? sn : "(anonymous namespace)");
	}
	free(scopes);
	if (!b.len) {
		sb_free(&b);
		return NULL;
	}
	sb_printf(&b, "%s", name);
	return sb_detach(&b);
}

/* s without its template arguments ("twice<int>" -> "twice"), or NULL if
 * it has none; an operator's '<' is its name. */
static char *without_template_args(const char *s)
{
	const char *op = strstr(s, "operator");
	const char *lt = strchr(op ? op + 8 + strspn(op + 8, "<=>") : s, '<');
	return lt && lt > s ? xstrndup(s, (size_t)(lt - s)) : NULL;
}

/* Does the pattern name the function: by its own name, or (C++) its
 * qualified name or the end of it ("Rect::area" for "geo::Rect::area"),
 * either with or without template arguments? */
static bool cxx_name_matches(const char *pattern, const char *name, const char *qualified)
{
	if (fnmatch(pattern, name, 0) == 0)
		return true;
	if (!qualified && !strchr(name, '<'))
		return false;
	for (const char *q = qualified; q; q = strstr(q, "::") ? strstr(q, "::") + 2 : NULL) {
		if (fnmatch(pattern, q, 0) == 0)
			return true;
		char *bare = without_template_args(q);
		bool match = bare && fnmatch(pattern, bare, 0) == 0;
		free(bare);
		if (match)
			return true;
	}
	char *bare = without_template_args(name);
	bool match = bare && fnmatch(pattern, bare, 0) == 0;
	free(bare);
	return match;
}

/* What every DWARF site says of where it came from: the object, the
 * function and its source line, and the hook that reads its variables. */
void site_from(struct probe_site *s, struct dw_obj *o, const char *function, const char *file,
	       int line)
{
	s->object = xstrdup(o->name);
	s->object_file = xstrdup(o->file);
	s->build_id = o->build_id ? xstrdup(o->build_id) : NULL;
	s->function = xstrdup(function);
	s->decl_file = file ? xstrdup(file) : NULL;
	s->decl_line = line;
	s->source = "DWARF";
	s->load_vars = load_vars;
	s->src_ctx = o;
}
static void consider(struct walk *w, Dwarf_Die *die)
{
	Dwarf_Attribute na;
	const char *name = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_name, &na));
	Dwarf_Addr pc;
	if (!name || dwarf_hasattr(die, DW_AT_declaration) || !function_entry(die, &pc))
		return;
	if (w->each) {
		w->each(name, w->ctx);
		return;
	}
	char *qualified = cxx_qualified_name(die, name);
	if (!w->symbol_matched && !cxx_name_matches(w->q->function, name, qualified)) {
		free(qualified);
		return;
	}
	bool cxx = qualified || is_cxx(die);
	if (qualified)
		name = qualified; /* the site is named so: -l, pp() */
	const char *file = decl_file(w->o, die);
	if (getenv("TAPLINE_CHECK_DECL_FILE")) {
		const char *lib = dwarf_decl_file(die);
		if (!file != !lib || (file && strcmp(file, lib)))
			fprintf(stderr, "decl_file mismatch in %s: %s vs libdw %s\n", w->o->file,
				file ? file : "(null)", lib ? lib : "(null)");
	}
	/* Relative to the compilation directory, as kernel builds name files. */
	Dwarf_Die cu;
	Dwarf_Attribute ca;
	const char *comp_dir = dwarf_diecu(die, &cu, NULL, NULL)
				       ? dwarf_formstring(dwarf_attr(&cu, DW_AT_comp_dir, &ca))
				       : NULL;
	size_t cl = comp_dir ? strlen(comp_dir) : 0;
	if (file && cl && !strncmp(file, comp_dir, cl) && file[cl] == '/')
		file += cl + 1;
	int line = 0;
	dwarf_decl_line(die, &line);
	if (w->q->file && !file_matches(w->q->file, file))
		return;
	if (w->q->line && w->q->line != line)
		return;
	struct dw_obj *o = w->o;
	uint64_t a = 0;
	const char *secname = o->is_kernel || o->is_user ? ".text" : dwarf_to_section(o, pc, &a);
	if (!secname || !strncmp(secname, ".init", 5)) {
		(*w->left_out)++;
		return;
	}
	struct probe_site *s = xcalloc(1, sizeof *s);
	s->may_throw = cxx && cxx_may_throw(die);
	if (o->is_user)
		place_user(o, s, die, pc, w->q->at_entry);
	site_from(s, o, name, file, line);
	s->src_key = dwarf_dieoffset(die);
	if (!s->is_user)
		s->src_pc = pc;
	Dwarf_Die ty;
	if (die_type(die, &ty)) {
		s->return_type = dw_type(o, &ty);
		s->return_type_name = declared_name(&ty, 0);
	}
	if (o->is_kernel) {
		/* Placed by name, or _text + offset: sema's kernel family knows which names
		 * are unique and which functions the kernel refuses. */
		s->anchor = xstrdup(name);
		s->text_offset = pc + o->bias - o->text_addr;
	} else if (!o->is_user && !anchor_for(o, name, secname, a, s)) {
		(*w->left_out)++;
		free(s);
		return;
	}
	pv_push(w->sites, s);
	w->found++;
}

static void walk_units(struct walk *w)
{
	Dwarf_Off off = 0, next;
	size_t hsize;
	while (dwarf_nextcu(w->o->dbg, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu, child;
		if (dwarf_offdie(w->o->dbg, off + hsize, &cu) && dwarf_child(&cu, &child) == 0) {
			do {
				if (dwarf_tag(&child) == DW_TAG_subprogram)
					consider(w, &child);
			} while (dwarf_siblingof(&child, &child) == 0);
		}
		off = next;
	}
}

/* A matching symbol's address, and the unit that holds it. */
struct candidate {
	Dwarf_Off cu;
	Dwarf_Addr pc;
	bool found;
	bool by_symbol; /* its symbol matched the pattern itself */
};

static int candidate_cmp(const void *x, const void *y)
{
	const struct candidate *a = x, *b = y;
	if (a->cu != b->cu)
		return a->cu < b->cu ? -1 : 1;
	return a->pc < b->pc ? -1 : a->pc > b->pc;
}

struct cu_range {
	Dwarf_Addr lo, hi;
	Dwarf_Off cu;
};

/*
 * .debug_aranges of the kernel or a program (their addresses are final;
 * a module's are relocated by libdwfl, so it keeps libdw's reader), as
 * sorted (start, end, unit DIE) ranges. libdw's dwarf_getaranges makes
 * a list per entry and sorts it: 11 ms for vmlinux's, every run.
 */
static void read_aranges(struct dw_obj *o)
{
	o->aranges_read = true;
	if (!o->is_kernel && !o->is_user)
		return;
	Elf *elf = dwarf_getelf(o->dbg);
	size_t shstrndx, size;
	const unsigned char *bytes;
	if (!elf || elf_getshdrstrndx(elf, &shstrndx) != 0 ||
	    !(bytes = section_bytes(elf, shstrndx, ".debug_aranges", &size)))
		return;
	struct cursor c = { bytes, bytes + size, true };
	size_t cap = 0;
	while (c.ok && c.end - c.p >= 4) {
		const unsigned char *set = c.p;
		uint64_t len = cur_fixed(&c, 4);
		int off_size = 4;
		if (len == 0xffffffff) {
			len = cur_fixed(&c, 8);
			off_size = 8;
		}
		if (!c.ok || len > (uint64_t)(c.end - c.p))
			break;
		struct cursor set_c = { c.p, c.p + len, true };
		c.p += len;
		unsigned version = (unsigned)cur_fixed(&set_c, 2);
		Dwarf_Off unit = cur_fixed(&set_c, off_size);
		int asize = (int)cur_fixed(&set_c, 1), seg = (int)cur_fixed(&set_c, 1);
		if (!set_c.ok || version != 2 || seg || (asize != 4 && asize != 8))
			goto give_up; /* libdw's reader then */
		/* The pairs start at a multiple of twice the address size. */
		size_t at = (size_t)(set_c.p - set), align = 2 * (size_t)asize;
		set_c.p = set + (at + align - 1) / align * align;
		while (set_c.end - set_c.p >= 2 * asize) {
			uint64_t start = cur_fixed(&set_c, asize), length = cur_fixed(&set_c, asize);
			if (!start && !length)
				break;
			if (!length)
				continue;
			if (o->naranges == cap) {
				cap = cap ? 2 * cap : 4096;
				o->aranges = xrealloc(o->aranges, cap * sizeof *o->aranges);
			}
			/* The unit's header: its DIE is found when a lookup lands
			 * here (reading every header touched the whole of .debug_info). */
			o->aranges[o->naranges++] = (struct cu_range){ start, start + length, unit };
		}
	}
	sort_by_key(o->aranges, o->naranges, sizeof *o->aranges, offsetof(struct cu_range, lo));
	return;
give_up:
	free(o->aranges);
	o->aranges = NULL;
	o->naranges = 0;
}

/* The unit whose code holds pc: through .debug_aranges, or else each
 * unit's own ranges (DW_AT_low_pc/high_pc or DW_AT_ranges). */
bool unit_of(struct dw_obj *o, Dwarf_Addr pc, Dwarf_Die *cu)
{
	if (!o->aranges_read)
		read_aranges(o);
	if (o->naranges) {
		/* The last range starting at or below pc. */
		size_t lo = 0, hi = o->naranges;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (o->aranges[mid].lo <= pc)
				lo = mid + 1;
			else
				hi = mid;
		}
		Dwarf_Off next;
		size_t hsize;
		if (lo && pc < o->aranges[lo - 1].hi &&
		    dwarf_nextcu(o->dbg, o->aranges[lo - 1].cu, &next, &hsize, NULL, NULL, NULL) == 0 &&
		    dwarf_offdie(o->dbg, o->aranges[lo - 1].cu + hsize, cu))
			return true;
	} else if (dwarf_addrdie(o->dbg, pc, cu)) {
		return true;
	}
	if (!o->cu_ranges_made) {
		o->cu_ranges_made = true;
		size_t cap = 0;
		Dwarf_Off off = 0, next;
		size_t hsize;
		while (dwarf_nextcu(o->dbg, off, &next, &hsize, NULL, NULL, NULL) == 0) {
			Dwarf_Die die;
			if (dwarf_offdie(o->dbg, off + hsize, &die)) {
				Dwarf_Addr base, start, end;
				ptrdiff_t it = 0;
				while ((it = dwarf_ranges(&die, it, &base, &start, &end)) > 0) {
					if (o->ncu_ranges == cap) {
						cap = cap ? 2 * cap : 64;
						o->cu_ranges = xrealloc(o->cu_ranges, cap * sizeof *o->cu_ranges);
					}
					o->cu_ranges[o->ncu_ranges++] = (struct cu_range){ start, end, off + hsize };
				}
			}
			off = next;
		}
	}
	for (size_t i = 0; i < o->ncu_ranges; i++)
		if (pc >= o->cu_ranges[i].lo && pc < o->cu_ranges[i].hi)
			return dwarf_offdie(o->dbg, o->cu_ranges[i].cu, cu) != NULL;
	return false;
}

static void add_candidate(struct walk *w, Dwarf_Addr pc, struct candidate **v, size_t *n,
			  size_t *cap, bool by_symbol)
{
	Dwarf_Die cu;
	if (!unit_of(w->o, pc, &cu))
		return;
	if (*n == *cap) {
		*cap = *cap ? 2 * *cap : 64;
		*v = xrealloc(*v, *cap * sizeof **v);
	}
	(*v)[(*n)++] = (struct candidate){ dwarf_dieoffset(&cu), pc, false, by_symbol };
}

/* The candidates of one unit, v[i..j), sorted by address, and how many of
 * those addresses are still to be found. */
struct unit_candidates {
	struct walk *w;
	struct candidate *v;
	size_t i, j, left;
};

/* A function of the unit whose code starts at entry: a match if that is
 * a candidate's address not found before. */
static void match_entry(struct unit_candidates *uc, Dwarf_Die *die, Dwarf_Addr entry)
{
	size_t lo = uc->i, hi = uc->j;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (uc->v[mid].pc < entry)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < uc->j && uc->v[lo].pc == entry && !uc->v[lo].found) {
		uc->v[lo].found = true;
		uc->left--;
		/* Two symbols at one address (a C++ constructor's C1 and C2):
		 * either may have matched by name. */
		bool by_symbol = false;
		for (size_t k = lo; k < uc->j && uc->v[k].pc == entry; k++)
			by_symbol |= uc->v[k].by_symbol;
		uc->w->symbol_matched = by_symbol;
		consider(uc->w, die);
	}
}

/* Can dwscan.c read the unit: are its bytes the very ones libdw reads (a
 * compressed section's, for one, are not)? Its header's offset if so. */
bool scannable(struct dw_obj *o, Dwarf_Die *cu, Dwarf_Off *unit_off)
{
	read_raw_sections(o);
	Dwarf_Off die_off = dwarf_dieoffset(cu);
	*unit_off = die_off - dwarf_cuoffset(cu);
	return o->scan.info && die_off < o->scan.info_size &&
	       (const unsigned char *)cu->addr == o->scan.info + die_off &&
	       !getenv("TAPLINE_NO_DWSCAN");
}

static bool scanned_function(const struct dwscan_func *f, void *ctx)
{
	struct unit_candidates *uc = ctx;
	Dwarf_Die die;
	Dwarf_Addr entry = f->entry;
	if (!dwarf_offdie(uc->w->o->dbg, f->die, &die))
		return true;
	if (f->have_entry || function_entry(&die, &entry))
		match_entry(uc, &die, entry);
	return uc->left > 0;
}

/* The unit's functions through dwscan.c; false when it cannot read the
 * unit (libdw's walk then finds what is left). */
static bool scan_unit(struct unit_candidates *uc, Dwarf_Die *cu)
{
	Dwarf_Off unit_off;
	return scannable(uc->w->o, cu, &unit_off) &&
	       dwscan_functions(&uc->w->o->scan, unit_off, scanned_function, uc);
}

/* Each unit holding candidates is scanned once (found through
 * .debug_aranges): its functions whose code starts at a candidate's
 * address are the matches. */
static void consider_candidates(struct walk *w, struct candidate *v, size_t n)
{
	if (!n)
		return;
	qsort(v, n, sizeof *v, candidate_cmp);
	for (size_t i = 0; i < n;) {
		size_t j = i;
		while (j < n && v[j].cu == v[i].cu)
			j++;
		struct unit_candidates uc = { w, v, i, j, 0 };
		for (size_t k = i; k < j; k++)
			uc.left += k == i || v[k].pc != v[k - 1].pc;
		Dwarf_Die cu, die;
		/* A unit can hold thousands of types before its functions: the
		 * scan ends when every candidate has been found. */
		if (dwarf_offdie(w->o->dbg, v[i].cu, &cu) && !scan_unit(&uc, &cu) && uc.left &&
		    dwarf_child(&cu, &die) == 0) {
			do {
				Dwarf_Addr entry;
				if (dwarf_tag(&die) == DW_TAG_subprogram && function_entry(&die, &entry))
					match_entry(&uc, &die, entry);
			} while (uc.left && dwarf_siblingof(&die, &die) == 0);
		}
		i = j;
	}
}

/* Does the symbol's name, without a clone's ".isra.0" and the like, match
 * the pattern? Its literal head and tail are compared first: fnmatch over
 * every symbol of thousands of modules is a visible part of a wildcard. */
bool base_name_matches(const char *pattern, const char *sym)
{
	size_t len = strcspn(sym, ".");
	size_t head = strcspn(pattern, "*?[\\");
	if (!pattern[head])
		return len == head && !memcmp(pattern, sym, len);
	if (len < head || memcmp(pattern, sym, head))
		return false;
	const char *last = strrchr(pattern, '*');
	if (last && !strpbrk(last, "?[\\")) {
		size_t tail = strlen(last + 1);
		if (len < head + tail || memcmp(last + 1, sym + len - tail, tail))
			return false;
	}
	char base[256];
	if (len >= sizeof base)
		return false;
	memcpy(base, sym, len);
	base[len] = 0;
	return fnmatch(pattern, base, 0) == 0;
}

/*
 * Might a C++ function whose mangled symbol is sym be what the pattern
 * names ("area", "geo::Rect::area", "twice<int>", "geo::*")? Mangling
 * spells each name of the chain as it is, so the longest plain run of
 * the pattern's last part, without template arguments, must be in it.
 * Its DWARF name and scopes are then compared.
 */
static bool cxx_may_match(const char *pattern, const char *sym)
{
	if (strncmp(sym, "_Z", 2))
		return false;
	const char *last = pattern;
	for (const char *p = pattern; *p; p++)
		if (p[0] == ':' && p[1] == ':')
			last = p + 2;
	size_t end = strcspn(last, "<");
	size_t best = 0, best_len = 0;
	for (size_t i = 0; i < end;) {
		size_t run = strcspn(last + i, "*?[\\<");
		if (run > end - i)
			run = end - i;
		if (run > best_len)
			best = i, best_len = run;
		i += run + 1;
	}
	if (!best_len)
		return true;
	char lit[256];
	if (best_len >= sizeof lit)
		return false;
	memcpy(lit, last + best, best_len);
	lit[best_len] = 0;
	return strstr(sym, lit) != NULL;
}

/*
 * Instead of every unit of the DWARF (the kernel's is large, and a
 * module's units are mostly the types of the headers it includes), only
 * the units holding a function whose symbol matches: a clone's symbol is
 * NAME.isra.0 and the like, at the address its DWARF gives.
 */
static int func_sym_cmp(const void *a, const void *b)
{
	const struct func_sym *x = a, *y = b;
	return strcmp(x->name, y->name);
}

static void make_func_syms(struct dw_obj *o)
{
	o->fsyms_made = true;
	int nsyms = dwfl_module_getsymtab(o->mod);
	if (nsyms <= 0)
		return;
	o->fsyms = xmalloc((size_t)nsyms * sizeof *o->fsyms);
	for (int i = 0; i < nsyms; i++) {
		GElf_Sym sym;
		GElf_Addr value;
		const char *name = dwfl_module_getsym_info(o->mod, i, &sym, &value, NULL, NULL, NULL);
		if (name && GELF_ST_TYPE(sym.st_info) == STT_FUNC) {
			o->fsyms[o->nfsyms] = (struct func_sym){ name, value, { 0, 0 } };
			names_keys(name, strlen(name), o->fsyms[o->nfsyms++].key);
		}
	}
	sort_by_name_keys(o->fsyms, o->nfsyms, sizeof *o->fsyms, offsetof(struct func_sym, key),
		      func_sym_cmp);
}

/* The first of n records (stride bytes each, their names at name_off,
 * in strcmp order) whose name is not below the pattern's first head bytes. */
static size_t first_with_head(const void *base, size_t n, size_t stride, size_t name_off,
			      const char *pattern, size_t head)
{
	size_t a = 0, b = n;
	while (a < b) {
		size_t mid = (a + b) / 2;
		const char *name = *(const char *const *)((const char *)base + mid * stride + name_off);
		if (strncmp(name, pattern, head) < 0)
			a = mid + 1;
		else
			b = mid;
	}
	return a;
}

/*
 * The function symbols whose names begin with the pattern's first head
 * bytes (its literal part), a clone's "NAME.isra.0" among them
 * (base_name_matches decides): in name order, they are adjacent. The
 * kernel's are its kallsyms functions (the kernel target has them
 * sorted, from its cache): reading vmlinux's symbol table through
 * libdwfl and sorting its 130,000 symbols was a fifth of a 20-probe
 * script's pass 2. Returns how many, in *v (malloced).
 */
size_t func_syms_with_head(struct dw_obj *o, const char *pattern, size_t head, struct func_sym **v)
{
	size_t n = 0, cap = 16;
	*v = xmalloc(cap * sizeof **v);
	const struct kernel *k = o->d->kernel;
	if (o->is_kernel && k) {
		for (size_t i = first_with_head(k->funcs, k->nfuncs, sizeof *k->funcs,
						offsetof(struct kfunc, name), pattern, head);
		     i < k->nfuncs && !strncmp(k->funcs[i].name, pattern, head); i++) {
			const struct kfunc *f = &k->funcs[i];
			for (unsigned c = 0; c < (f->copies > 1 ? f->copies : 1); c++) {
				if (n == cap)
					*v = xrealloc(*v, (cap *= 2) * sizeof **v);
				uint64_t off = f->copies > 1 ? f->offsets[c] : f->offset;
				(*v)[n++] = (struct func_sym){ f->name, o->text_addr + off, { 0, 0 } };
			}
		}
		return n;
	}
	if (!o->fsyms_made)
		make_func_syms(o);
	for (size_t i = first_with_head(o->fsyms, o->nfsyms, sizeof *o->fsyms,
					offsetof(struct func_sym, name), pattern, head);
	     i < o->nfsyms && !strncmp(o->fsyms[i].name, pattern, head); i++) {
		if (n == cap)
			*v = xrealloc(*v, (cap *= 2) * sizeof **v);
		(*v)[n++] = o->fsyms[i];
	}
	return n;
}

static void walk_symbols(struct walk *w)
{
	struct dw_obj *o = w->o;
	struct candidate *v = NULL;
	size_t n = 0, cap = 0;
	if (!o->is_kernel && !o->is_user) {
		for (size_t i = 0; i < o->nsyms; i++) {
			const struct dw_sym *y = &o->syms[i];
			if (!y->is_func || !base_name_matches(w->q->function, y->name))
				continue;
			Dwarf_Addr pc = y->value - o->bias;
			if (o->laid_out) {
				size_t k = 0;
				while (k < o->nsecs && strcmp(o->secs[k].name, y->section))
					k++;
				if (k == o->nsecs)
					continue;
				pc = o->secs[k].addr + y->offset;
			}
			add_candidate(w, pc, &v, &n, &cap, false);
		}
	} else {
		const char *pat = w->q->function;
		struct func_sym *syms;
		size_t nsyms = func_syms_with_head(o, pat, strcspn(pat, "*?[\\"), &syms);
		for (size_t i = 0; i < nsyms; i++)
			if (base_name_matches(pat, syms[i].name))
				add_candidate(w, syms[i].value - o->bias, &v, &n, &cap, o->is_user);
		free(syms);
		/* A C++ name is mangled: its symbol begins otherwise. */
		for (size_t i = 0; o->is_user && i < o->nfsyms; i++)
			if (!base_name_matches(pat, o->fsyms[i].name) &&
			    cxx_may_match(pat, o->fsyms[i].name))
				add_candidate(w, o->fsyms[i].value - o->bias, &v, &n, &cap, false);
	}
	consider_candidates(w, v, n);
	w->symbol_matched = false;
	free(v);
}

/* Might a function named by pattern be here? Its symbol says (a clone's
 * symbol is NAME.isra.0 and the like). Saves reading DWARF for every
 * module of a wildcard. */
static bool symbol_matches(const struct dw_obj *o, const char *pattern)
{
	for (size_t i = 0; i < o->nsyms; i++)
		if (o->syms[i].is_func && base_name_matches(pattern, o->syms[i].name))
			return true;
	return false;
}

/*
 * An archive member's symbol tables, read with pread: 1 when a function
 * symbol matches pattern, 0 when none does, -1 when it has no symbol
 * table or is not a plain ELF file (then libelf reads it). Not through
 * the mapping libdwfl needs: a page read there stays in the process.
 */
static int member_symbols_match(struct dw *d, const struct debug_file *f, const char *pattern)
{
	Elf64_Ehdr ehdr = { 0 }, *eh = &ehdr;
	struct mapped *m;
	Elf64_Shdr *sh = member_sections(d, f, eh, &m);
	if (!sh)
		return -1;
	int result = -1;
	size_t nsec = eh->e_shnum;
	for (size_t i = 0; i < nsec && result != 1; i++) {
		if (sh[i].sh_type != SHT_SYMTAB || sh[i].sh_entsize != sizeof(Elf64_Sym) ||
		    sh[i].sh_link >= nsec)
			continue;
		const Elf64_Shdr *st = &sh[sh[i].sh_link];
		Elf64_Sym *syms = member_read(m->fd, f, sh[i].sh_offset, sh[i].sh_size);
		char *names = st->sh_type == SHT_STRTAB ? member_read(m->fd, f, st->sh_offset, st->sh_size)
						       : NULL;
		if (syms && names && st->sh_size) {
			result = 0;
			names[st->sh_size - 1] = 0;
			for (size_t k = 0; k < sh[i].sh_size / sizeof *syms && !result; k++)
				result = ELF64_ST_TYPE(syms[k].st_info) == STT_FUNC &&
					 syms[k].st_name < st->sh_size &&
					 base_name_matches(pattern, names + syms[k].st_name);
		}
		free(syms);
		free(names);
	}
	free(sh);
	return result;
}

/*
 * Could module have a function pattern matches? Its symbol table, read
 * straight from the file, says so before libdwfl is asked to open it: a
 * wildcard over thousands of modules opens only those that match.
 */
static bool file_has_function(struct dw *d, const struct debug_file *f, const char *pattern)
{
	int fd = -1;
	Elf *elf;
	if (f->member) {
		int found = member_symbols_match(d, f, pattern);
		if (found >= 0)
			return found;
		char *data = member_bytes(d, f);
		elf = data ? elf_memory(data, f->member_size) : NULL;
	} else {
		fd = open(f->path, O_RDONLY | O_CLOEXEC);
		elf = fd >= 0 ? elf_begin(fd, ELF_C_READ_MMAP, NULL) : NULL;
	}
	bool found = false, have_symtab = false;
	for (Elf_Scn *scn = elf ? elf_nextscn(elf, NULL) : NULL; scn && !found;
	     scn = elf_nextscn(elf, scn)) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || !sh.sh_entsize)
			continue;
		have_symtab = true;
		Elf_Data *data = elf_getdata(scn, NULL);
		size_t n = data ? sh.sh_size / sh.sh_entsize : 0;
		for (size_t i = 0; i < n && !found; i++) {
			GElf_Sym sym;
			const char *name;
			found = gelf_getsym(data, (int)i, &sym) && GELF_ST_TYPE(sym.st_info) == STT_FUNC &&
				(name = elf_strptr(elf, sh.sh_link, sym.st_name)) &&
				base_name_matches(pattern, name);
		}
	}
	if (elf)
		elf_end(elf);
	if (fd >= 0)
		close(fd);
	/* No symbol table to tell: let the full reader decide. */
	return found || !have_symtab;
}

int dw_functions(struct dw *d, const char *module, const char *module_file,
		 const struct dw_query *q, struct ptrvec *sites, size_t *left_out, char **why)
{
	const struct debug_file *f = module_file ? NULL : debugfind(d->ix, module);
	const struct dw_obj *seen = find_obj(d, module);
	bool opened = seen && !seen->parked;
	if (f && !opened && strcmp(module, "kernel") && !file_has_function(d, f, q->function))
		return 0;
	struct dw_obj *o = usable_obj(d, module, module_file, false, why);
	if (!o)
		return -1;
	if (o->nsyms && !symbol_matches(o, q->function))
		return 0;
	if (!load_dwarf(o)) {
		*why = xasprintf("%s: %s", o->file, o->why);
		return -1;
	}
	struct walk w = { .o = o, .q = q, .sites = sites, .left_out = left_out };
	if (o->is_kernel || o->is_user || o->nsyms)
		walk_symbols(&w);
	else
		walk_units(&w);
	/* Not the kernel's: its DWARF serves every probe of the script (its
	 * pages given back after each were a sixth of a 20-probe pass 2). */
	if (f && f->member && !o->is_kernel)
		member_release(d, f);
	o->kept |= w.found > 0;
	return w.found;
}

void dw_each_function(struct dw *d, const char *module, void (*fn)(const char *name, void *ctx),
		      void *ctx)
{
	char *why = NULL;
	struct dw_obj *o = usable_obj(d, module, NULL, true, &why);
	free(why);
	if (!o)
		return;
	o->kept = true;
	struct walk w = { .o = o, .each = fn, .ctx = ctx };
	walk_units(&w);
}
