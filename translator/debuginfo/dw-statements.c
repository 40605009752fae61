// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Statement probes (dw_statements): the first address of a source line
 * in each matching function, through the units' line tables; and the
 * nearest lines that have one, for a probe that matched nothing.
 */
#include <dwarf.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "debuginfo/dw-private.h"

/* The function (not an inlined copy) whose code holds pc. */
static bool function_at(Dwarf_Die *cu, Dwarf_Addr pc, Dwarf_Die *out)
{
	Dwarf_Die *scopes = NULL;
	int n = dwarf_getscopes(cu, pc, &scopes);
	bool found = false;
	for (int i = 0; i < n && !found; i++) {
		if (dwarf_tag(&scopes[i]) == DW_TAG_subprogram) {
			*out = scopes[i];
			found = true;
		}
	}
	free(scopes);
	return found;
}

const char *unit_file(Dwarf_Die *cu)
{
	Dwarf_Attribute a;
	return dwarf_formstring(dwarf_attr(cu, DW_AT_name, &a));
}

/* A line where a statement begins, in a function the query matches. */
struct stmt_line {
	Dwarf_Die func;
	const char *name, *file;
	int lineno;
	Dwarf_Addr pc;
};

/* One unit's functions that match a statement query, by their code's
 * address ranges (sorted), so that each line's function is found without
 * asking libdw for its scopes (thousands of lines a unit). */
struct func_range {
	Dwarf_Addr lo, hi;
	Dwarf_Off die;
};

struct unit_funcs {
	struct dw_obj *o;
	const char *pattern;
	struct func_range *v;
	size_t n, cap;
};

static bool ranged_function(const struct dwscan_func *f, void *ctx)
{
	struct unit_funcs *u = ctx;
	Dwarf_Die die;
	Dwarf_Attribute na;
	const char *name;
	if (!dwarf_offdie(u->o->dbg, f->die, &die) ||
	    !(name = dwarf_formstring(dwarf_attr_integrate(&die, DW_AT_name, &na))) ||
	    fnmatch(u->pattern, name, 0) != 0)
		return true;
	Dwarf_Addr base, lo, hi;
	for (ptrdiff_t it = 0; (it = dwarf_ranges(&die, it, &base, &lo, &hi)) > 0;) {
		if (u->n == u->cap)
			u->v = xrealloc(u->v, (u->cap = u->cap ? 2 * u->cap : 16) * sizeof *u->v);
		u->v[u->n++] = (struct func_range){ lo, hi, f->die };
	}
	return true;
}

static int func_range_cmp(const void *a, const void *b)
{
	const struct func_range *x = a, *y = b;
	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* The unit's matching functions, through dwscan.c: false when it cannot
 * tell (not C, whose functions may sit inside namespaces and classes, or
 * a unit it cannot read): libdw's scopes answer for each line then. */
static bool unit_functions(struct dw_obj *o, Dwarf_Die *cu, const char *pattern,
			   struct unit_funcs *u)
{
	*u = (struct unit_funcs){ o, pattern, NULL, 0, 0 };
	Dwarf_Attribute pa;
	const char *producer = dwarf_formstring(dwarf_attr(cu, DW_AT_producer, &pa));
	Dwarf_Off unit_off;
	if (!producer || strncmp(producer, "GNU C", 5) || !strncmp(producer, "GNU C++", 7) ||
	    !scannable(o, cu, &unit_off) || !dwscan_functions(&o->scan, unit_off, ranged_function, u)) {
		free(u->v);
		u->v = NULL;
		return false;
	}
	if (u->n)
		qsort(u->v, u->n, sizeof *u->v, func_range_cmp);
	return true;
}

static bool function_in(const struct unit_funcs *u, Dwarf_Addr pc, Dwarf_Die *out)
{
	size_t lo = 0, hi = u->n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (u->v[mid].lo <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo > 0 && pc < u->v[lo - 1].hi && dwarf_offdie(u->o->dbg, u->v[lo - 1].die, out);
}

static int offset_cmp(const void *a, const void *b)
{
	const Dwarf_Off *x = a, *y = b;
	return *x < *y ? -1 : *x > *y;
}

/* The kernel's units that hold a function the pattern may name, by its
 * symbols (sorted DIE offsets); NULL for every unit ("*"). A statement
 * query over every file ("do_sys_open@*:*") otherwise decoded all 2,800
 * line tables. */
static Dwarf_Off *units_of_symbols(struct dw_obj *o, const char *pattern, size_t *n)
{
	size_t head = strcspn(pattern, "*?[\\");
	*n = 0;
	if (!o->is_kernel || !head)
		return NULL;
	struct func_sym *syms;
	size_t nsyms = func_syms_with_head(o, pattern, head, &syms);
	Dwarf_Off *v = xmalloc((nsyms + 1) * sizeof *v);
	for (size_t i = 0; i < nsyms; i++) {
		Dwarf_Die cu;
		if (base_name_matches(pattern, syms[i].name) &&
		    unit_of(o, syms[i].value - o->bias, &cu))
			v[(*n)++] = dwarf_dieoffset(&cu);
	}
	free(syms);
	qsort(v, *n, sizeof *v, offset_cmp);
	return v;
}

/*
 * Each line where a statement begins, in a file matching q->file and a
 * function matching q->function, for which want(lineno) holds (asked
 * first). Of the kernel's 2800 units only those of the file and, for a
 * named function, those its symbols are in are read, and of those only
 * the ones with a matching function have their line tables decoded.
 */
static void each_statement_line(struct dw_obj *o, const struct dw_query *q,
				bool (*want)(int lineno, void *ctx),
				void (*fn)(struct stmt_line *l, void *ctx), void *ctx)
{
	size_t nunits;
	Dwarf_Off *units = units_of_symbols(o, q->function, &nunits);
	Dwarf_Off off = 0, next;
	size_t hsize;
	for (; dwarf_nextcu(o->dbg, off, &next, &hsize, NULL, NULL, NULL) == 0; off = next) {
		Dwarf_Die cu;
		Dwarf_Lines *lines;
		size_t nlines;
		Dwarf_Off unit = off + hsize;
		if ((units && !bsearch(&unit, units, nunits, sizeof *units, offset_cmp)) ||
		    !dwarf_offdie(o->dbg, unit, &cu) ||
		    (o->is_kernel && !file_matches(q->file, unit_file(&cu))))
			continue;
		struct unit_funcs uf;
		bool scanned = unit_functions(o, &cu, q->function, &uf);
		if ((scanned && !uf.n) || dwarf_getsrclines(&cu, &lines, &nlines) != 0) {
			free(uf.v);
			continue;
		}
		for (size_t i = 0; i < nlines; i++) {
			Dwarf_Line *ln = dwarf_onesrcline(lines, i);
			struct stmt_line l;
			bool stmt;
			Dwarf_Attribute na;
			if (dwarf_lineno(ln, &l.lineno) != 0 || !want(l.lineno, ctx) ||
			    dwarf_linebeginstatement(ln, &stmt) != 0 || !stmt ||
			    dwarf_lineaddr(ln, &l.pc) != 0 ||
			    !(scanned ? function_in(&uf, l.pc, &l.func) : function_at(&cu, l.pc, &l.func)) ||
			    !file_matches(q->file, l.file = dwarf_linesrc(ln, NULL, NULL)) ||
			    !(l.name = dwarf_formstring(dwarf_attr_integrate(&l.func, DW_AT_name, &na))) ||
			    fnmatch(q->function, l.name, 0) != 0)
				continue;
			fn(&l, ctx);
		}
		free(uf.v);
	}
	free(units);
}

struct stmt_walk {
	struct dw_obj *o;
	const struct dw_query *q;
	struct ptrvec *sites;
	size_t *left_out;
	int found;
	struct ptrvec done; /* lines of functions placed (DIE offset ^ line << 40) */
};

static bool is_the_line(int lineno, void *ctx)
{
	const struct dw_query *q = ((struct stmt_walk *)ctx)->q;
	return lineno >= q->line && lineno <= (q->line_last ? q->line_last : q->line);
}

static struct probe_site *statement_site(struct dw_obj *o, Dwarf_Die *func, const char *name,
					 const char *file, int line, Dwarf_Addr pc);

/* A line may be split into several blocks of code: the probe goes at the
 * first address of each function's first block of it (a range: of each
 * line). */
static void add_statement_site(struct stmt_line *l, void *ctx)
{
	struct stmt_walk *w = ctx;
	struct dw_obj *o = w->o;
	Dwarf_Off key = dwarf_dieoffset(&l->func);
	uintptr_t done = (uintptr_t)key ^ ((uintptr_t)(unsigned)l->lineno << 40);
	for (size_t k = 0; k < w->done.n; k++)
		if ((uintptr_t)w->done.v[k] == done)
			return;
	pv_push(&w->done, (void *)done);
	struct probe_site *s = statement_site(o, &l->func, l->name, l->file, l->lineno, l->pc);
	if (!s) {
		(*w->left_out)++;
		return;
	}
	pv_push(w->sites, s);
	w->found++;
}

/* A site at pc inside function func (named name), or NULL when it cannot
 * be placed (before the entry, in init text, no anchor). */
static struct probe_site *statement_site(struct dw_obj *o, Dwarf_Die *func, const char *name,
					 const char *file, int line, Dwarf_Addr pc)
{
	struct probe_site *s = xcalloc(1, sizeof *s);
	Dwarf_Addr entry;
	if (o->is_kernel) {
		/* The function by name plus the offset, or _text + offset. */
		if (!function_entry(func, &entry) || pc < entry) {
			free(s);
			return NULL;
		}
		s->anchor = xstrdup(name);
		s->anchor_offset = (int64_t)(pc - entry);
		s->text_offset = pc + o->bias - o->text_addr;
	} else if (o->is_user) {
		s->is_user = true;
		s->user_vaddr = s->user_entry_vaddr = user_vaddr(o, pc);
	} else {
		uint64_t a;
		const char *secname = dwarf_to_section(o, pc, &a);
		if (!secname || !strncmp(secname, ".init", 5) || !anchor_for(o, name, secname, a, s)) {
			free(s);
			return NULL;
		}
	}
	site_from(s, o, name, file, line);
	s->is_statement = true;
	s->src_key = dwarf_dieoffset(func);
	s->src_pc = pc;
	return s;
}

struct label_walk {
	struct dw_obj *o;
	Dwarf_Die *func;
	const struct probe_site *in;
	const char *pattern;
	struct ptrvec *sites;
};

static void add_label(Dwarf_Die *die, void *ctx)
{
	struct label_walk *w = ctx;
	Dwarf_Addr pc;
	const char *name = dwarf_diename(die);
	if (dwarf_tag(die) != DW_TAG_label || !name || fnmatch(w->pattern, name, 0) ||
	    dwarf_lowpc(die, &pc) != 0)
		return;
	int line = 0;
	dwarf_decl_line(die, &line);
	struct probe_site *s = statement_site(w->o, w->func, w->in->function, w->in->decl_file, line, pc);
	if (!s)
		return;
	s->label = xstrdup(name);
	pv_push(w->sites, s);
}

int dw_labels(const struct probe_site *func, const char *pattern, struct ptrvec *sites)
{
	Dwarf_Die die;
	struct dw_obj *o = func->is_inline ? NULL : site_dwarf(func, func->src_key, &die);
	if (!o)
		return -1;
	size_t before = sites->n;
	struct label_walk w = { o, &die, func, pattern, sites };
	each_body_die(&die, add_label, &w);
	o->kept |= sites->n > before;
	return (int)(sites->n - before);
}

int dw_statements(struct dw *d, const char *module, const char *module_file,
		  const struct dw_query *q, struct ptrvec *sites, size_t *left_out, char **why)
{
	struct dw_obj *o = usable_obj(d, module, module_file, true, why);
	if (!o)
		return -1;
	struct stmt_walk w = { .o = o, .q = q, .sites = sites, .left_out = left_out };
	each_statement_line(o, q, is_the_line, add_statement_site, &w);
	pv_free(&w.done);
	o->kept |= w.found > 0;
	return w.found;
}

struct near_lines {
	int line, below, above;
};

/* A line nearer than the nearest so far, on its side of the one asked for. */
static bool is_nearer(int lineno, void *ctx)
{
	const struct near_lines *n = ctx;
	return lineno < n->line ? lineno > n->below : lineno > n->line && (!n->above || lineno < n->above);
}

static void note_near(struct stmt_line *l, void *ctx)
{
	struct near_lines *n = ctx;
	if (l->lineno < n->line)
		n->below = l->lineno;
	else
		n->above = l->lineno;
}

void dw_statement_lines_near(struct dw *d, const char *module, const char *module_file,
			     const struct dw_query *q, int *below, int *above)
{
	char *why = NULL;
	struct near_lines n = { q->line, 0, 0 };
	struct dw_obj *o = usable_obj(d, module, module_file, true, &why);
	free(why);
	if (o) {
		o->kept = true;
		each_statement_line(o, q, is_nearer, note_near, &n);
	}
	*below = n.below;
	*above = n.above;
}
