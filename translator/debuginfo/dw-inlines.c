// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Inlined copies of functions (.inline, dw_inlines), through an index of
 * the units' abstract instances made once per object (and cached on
 * disk), so that a unit with no instance of a matching name is not walked.
 */
#include <dwarf.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "debuginfo/dw-private.h"

struct inline_walk {
	struct walk *w;
	Dwarf_Die *func;   /* the function being walked */
	/* The unit's abstract instances whose names match (their offsets,
	 * sorted), when its copies can name no other (units_to_walk). */
	const Dwarf_Off *origins;
	size_t norigins;
};

/* Does the copy die name one of iw's abstract instances? Its name is
 * not read, nor matched: most copies in a unit are of other functions. */
static bool copy_of_matching(struct inline_walk *iw, Dwarf_Die *die)
{
	Dwarf_Attribute a;
	Dwarf_Die origin;
	if (!dwarf_attr(die, DW_AT_abstract_origin, &a) || !dwarf_formref_die(&a, &origin))
		return true;
	Dwarf_Off off = dwarf_dieoffset(&origin);
	size_t lo = 0, hi = iw->norigins;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (iw->origins[mid] < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < iw->norigins && iw->origins[lo] == off;
}

struct probe_site *inline_site(struct dw_obj *o, Dwarf_Die *func, Dwarf_Die *die,
			       const char *name, Dwarf_Addr pc, const char *file_pattern, bool *left_out)
{
	uint64_t a = 0;
	const char *secname = o->is_kernel || o->is_user ? ".text" : dwarf_to_section(o, pc, &a);
	struct probe_site *s = xcalloc(1, sizeof *s);
	*left_out = false;
	if (!secname || !strncmp(secname, ".init", 5) ||
	    (!o->is_kernel && !o->is_user && !anchor_for(o, name, secname, a, s))) {
		*left_out = true;
		free(s);
		return NULL;
	}
	Dwarf_Attribute fa;
	Dwarf_Die origin;
	const char *file = NULL;
	int line = 0;
	if (dwarf_formref_die(dwarf_attr(die, DW_AT_abstract_origin, &fa), &origin)) {
		file = dwarf_decl_file(&origin);
		dwarf_decl_line(&origin, &line);
	}
	if (file_pattern && !file_matches(file_pattern, file)) {
		free(s);
		return NULL;
	}
	site_from(s, o, name, file, line);
	s->is_inline = true;
	s->src_key = dwarf_dieoffset(die);
	s->src_frame = dwarf_dieoffset(func);
	s->src_pc = pc;
	if (o->is_kernel) {
		s->anchor = xstrdup("_text");
		s->text_offset = pc + o->bias - o->text_addr;
		s->anchor_offset = (int64_t)s->text_offset;
	} else if (o->is_user) {
		s->is_user = true;
		s->user_vaddr = s->user_entry_vaddr = user_vaddr(o, pc);
	}
	return s;
}

static void add_inline_site(struct walk *w, Dwarf_Die *func, Dwarf_Die *die, const char *name,
			    Dwarf_Addr pc)
{
	bool left_out;
	struct probe_site *s = inline_site(w->o, func, die, name, pc, w->q->file, &left_out);
	if (left_out)
		(*w->left_out)++;
	if (!s)
		return;
	pv_push(w->sites, s);
	w->found++;
}

static void walk_inlines(struct inline_walk *iw, Dwarf_Die *parent)
{
	Dwarf_Die die;
	if (dwarf_child(parent, &die) != 0)
		return;
	do {
		int tag = dwarf_tag(&die);
		if (tag == DW_TAG_inlined_subroutine && (!iw->origins || copy_of_matching(iw, &die))) {
			Dwarf_Attribute na;
			const char *name = dwarf_formstring(dwarf_attr_integrate(&die, DW_AT_name, &na));
			Dwarf_Addr pc;
			if (name && fnmatch(iw->w->q->function, name, 0) == 0 && function_entry(&die, &pc))
				add_inline_site(iw->w, iw->func, &die, name, pc);
		}
		if (tag == DW_TAG_inlined_subroutine || tag == DW_TAG_lexical_block)
			walk_inlines(iw, &die);
	} while (dwarf_siblingof(&die, &die) == 0);
}

/* The ']' closing the set that opens at p ('['), or NULL when nothing
 * closes it (fnmatch then takes the '[' as itself). A ']' first, after
 * any '!' or '^', is one of the set's characters. */
static const char *pattern_set_end(const char *p)
{
	const char *q = p + 1;
	if (*q == '!' || *q == '^')
		q++;
	if (*q == ']')
		q++;
	while (*q && *q != ']')
		q++;
	return *q ? q : NULL;
}

/* The fewest bytes a name fnmatch(pattern) takes can have. */
static size_t pattern_min_len(const char *p)
{
	size_t n = 0;
	while (*p) {
		if (*p == '*') {
			p++;
			continue;
		}
		if (*p == '[') {
			const char *end = pattern_set_end(p);
			p = end ? end + 1 : p + 1;
			n++;
			continue;
		}
		if (*p == '\\' && p[1])
			p++;
		p++;
		n++;
	}
	return n;
}

/* The longest run of characters every name pattern matches holds as
 * they are (none of *, ? or a [...] set; an escaped one counts as
 * itself), into run (cap bytes); its length. */
static size_t pattern_literal(const char *pattern, char *run, size_t cap)
{
	char cur[256];
	size_t best = 0, n = 0;
	for (const char *p = pattern;; p++) {
		if (*p && *p != '*' && *p != '?' && *p != '[') {
			if (*p == '\\' && p[1])
				p++;
			if (n + 1 < sizeof cur) {
				cur[n++] = *p;
				continue;
			}
		}
		if (n > best && n < cap) {
			memcpy(run, cur, n);
			run[n] = 0;
			best = n;
		}
		n = 0;
		if (!*p)
			return best;
		if (*p == '[' && pattern_set_end(p))
			p = pattern_set_end(p);
	}
}

/* Does a string of the table strs (size bytes, NUL-terminated strings)
 * match pattern? Only the strings holding its longest plain run are
 * matched against it: a module's table has tens of thousands. */
static bool strings_match(const char *strs, size_t size, const char *pattern)
{
	char run[256];
	size_t n = pattern_literal(pattern, run, sizeof run);
	const char *end = strs + size;
	/* The linker merges a string into the tail of a longer one
	 * ("activate_task" is the end of "deactivate_task"): a name is any
	 * string's tail. */
	if (!n) {
		for (const char *s = strs; s < end; s += strlen(s) + 1)
			for (const char *t = s; *t; t++)
				if (fnmatch(pattern, t, 0) == 0)
					return true;
		return false;
	}
	for (const char *at = strs; at < end && (at = memmem(at, (size_t)(end - at), run, n));) {
		const char *s = at;
		while (s > strs && s[-1])
			s--;
		for (const char *t = s; t <= at; t++)
			if (fnmatch(pattern, t, 0) == 0)
				return true;
		at = s + strlen(s) + 1;
	}
	return false;
}

/*
 * Might the archive member hold an inlined copy of a function pattern
 * matches? Its name would be in .debug_str: GCC puts every name longer
 * than a string offset (4 bytes) there, and merges them per module. Read
 * with pread, as member_symbols_match reads (a name may be the tail of a
 * longer string there: strings_match). 0 only when the pattern
 * needs more than 4 bytes, the member's .debug_str holds no match, and
 * no other file (.gnu_debugaltlink) holds strings for it; 1 otherwise.
 * Saves walking every function's body in every unit of each module of a
 * wildcard for copies most modules cannot have: the walk read all of
 * each module's DWARF.
 */
static int member_may_inline(struct dw *d, const struct debug_file *f, const char *pattern)
{
	if (pattern_min_len(pattern) <= 4)
		return 1;
	Elf64_Ehdr ehdr = { 0 }, *eh = &ehdr;
	struct mapped *m;
	Elf64_Shdr *sh = member_sections(d, f, eh, &m);
	char *secnames = NULL, *strs = NULL;
	int result = 1;
	size_t nsec = eh->e_shnum;
	const Elf64_Shdr *ns = sh ? &sh[eh->e_shstrndx] : NULL;
	secnames = ns && ns->sh_size ? member_read(m->fd, f, ns->sh_offset, ns->sh_size) : NULL;
	if (!secnames)
		goto out;
	secnames[ns->sh_size - 1] = 0;
	const Elf64_Shdr *str = NULL;
	for (size_t i = 0; i < nsec; i++) {
		if (sh[i].sh_name >= ns->sh_size)
			goto out;
		const char *name = secnames + sh[i].sh_name;
		if (!strcmp(name, ".gnu_debugaltlink") || !strncmp(name, ".zdebug", 7))
			goto out;
		if (!strcmp(name, ".debug_str"))
			str = &sh[i];
	}
	if (!str || str->sh_type != SHT_PROGBITS || (str->sh_flags & SHF_COMPRESSED) || !str->sh_size)
		goto out;
	strs = member_read(m->fd, f, str->sh_offset, str->sh_size);
	if (!strs)
		goto out;
	strs[str->sh_size - 1] = 0;
	result = strings_match(strs, str->sh_size, pattern);
out:
	free(strs);
	free(secnames);
	free(sh);
	return result;
}

/*
 * Which units can hold an inlined copy of a function, and of which
 * abstract instances? GCC, without LTO, describes each function inlined
 * in a unit by an abstract instance at the unit's top level
 * (DW_AT_inline), which its copies name: a unit with no instance of a
 * matching name has no copy to find, and its functions' bodies, most of
 * its DWARF, need no walk; in one that has, only copies naming those
 * instances are looked at. The instances of every unit are listed once
 * per object, by name, so that the tapsets' hundreds of function probes
 * (each also asking for inlined copies) cost one scan of the units' top
 * levels, not one each (syscall.* took 38 s on 6.1 with its DWARF). A
 * unit whose copies may name an instance in another (LTO's, clang's, any
 * of a user program) is "open": every copy in it is looked at.
 */
struct inline_origin {
	const char *name;  /* in the DWARF's strings (NULL: read from the index's text) */
	Dwarf_Off unit;    /* the unit's DIE */
	Dwarf_Off origin;  /* the abstract instance's DIE */
};

/*
 * The index is text, the same whether it was just made or read from the
 * cache: "O UNIT" per open unit, then "UNIT ORIGIN NAME" per instance,
 * by name, then unit, then origin. Only the open units are parsed up
 * front; an instance line is read only where a name is looked for (a
 * plain name by bisection): parsing all 110,000 of the kernel's was a
 * tenth of a 20-probe script's pass 2.
 */
struct inline_index {
	Dwarf_Off *open;    /* open units' DIEs, in order */
	size_t nopen;
	const char *text;   /* malloced, or the cache file mapped (map_len bytes) */
	size_t map_len;
	const char *lines, *lines_end; /* the instance lines */
};

void inline_index_free(struct inline_index *ix)
{
	if (ix) {
		free(ix->open);
		if (ix->map_len)
			munmap((void *)ix->text, ix->map_len);
		else
			free((void *)ix->text);
		free(ix);
	}
}

/* What the index is made of, unit by unit. */
struct index_build {
	struct dw_obj *o;
	Dwarf_Off unit;     /* the unit being read */
	struct inline_origin *v;
	size_t n, cap;
	Dwarf_Off *open;
	size_t nopen, open_cap;
};

static void add_origin(struct index_build *b, Dwarf_Die *die)
{
	const char *name = dwarf_diename(die);
	if (!name || strchr(name, '\n'))
		return;
	if (b->n == b->cap)
		b->v = xrealloc(b->v, (b->cap = b->cap ? 2 * b->cap : 256) * sizeof *b->v);
	b->v[b->n++] = (struct inline_origin){ name, b->unit, dwarf_dieoffset(die) };
}

static bool scanned_origin(const struct dwscan_func *f, void *ctx)
{
	struct index_build *b = ctx;
	Dwarf_Die die;
	if (dwarf_offdie(b->o->dbg, f->die, &die))
		add_origin(b, &die);
	return true;
}

static void index_unit_origins(struct index_build *b, Dwarf_Die *cu)
{
	struct dw_obj *o = b->o;
	b->unit = dwarf_dieoffset(cu);
	Dwarf_Attribute pa;
	const char *producer = dwarf_formstring(dwarf_attr(cu, DW_AT_producer, &pa));
	if (o->is_user || !producer || strncmp(producer, "GNU C", 5) || strstr(producer, "-flto")) {
		if (b->nopen == b->open_cap)
			b->open = xrealloc(b->open, (b->open_cap = b->open_cap ? 2 * b->open_cap : 16) *
							    sizeof *b->open);
		b->open[b->nopen++] = b->unit;
		return;
	}
	size_t before = b->n;
	Dwarf_Off unit_off;
	if (scannable(o, cu, &unit_off) &&
	    dwscan_abstract_functions(&o->scan, unit_off, scanned_origin, b))
		return;
	/* libdw's walk of the top level instead. */
	b->n = before;
	Dwarf_Die child;
	if (dwarf_child(cu, &child) == 0) {
		do {
			if (dwarf_tag(&child) == DW_TAG_subprogram && dwarf_hasattr(&child, DW_AT_inline))
				add_origin(b, &child);
		} while (dwarf_siblingof(&child, &child) == 0);
	}
}

static int origin_cmp(const void *a, const void *b)
{
	const struct inline_origin *x = a, *y = b;
	int c = strcmp(x->name, y->name);
	if (c)
		return c;
	if (x->unit != y->unit)
		return x->unit < y->unit ? -1 : 1;
	return x->origin < y->origin ? -1 : x->origin > y->origin;
}


/*
 * The index is kept in the cache by build-id (inlines/BUILD-ID-SIZE, SIZE
 * that of the file's .debug_info as stored, compressed or not): a
 * wildcard over an archive's 4,000 modules otherwise scans the top level
 * of every unit of the 2,800 whose strings could match, each run. The
 * file: a first line "tapline-inlines FORMAT BUILD-ID FILE", the index's
 * lines, and last the seal (write_sealed_file).
 */
#define INLINE_CACHE_FORMAT 2

/* A lowercase hex number at p (strtoull's locale and base handling were
 * most of parsing the kernel's index); *end is the byte after it. */
static uint64_t hex_at(const char *p, const char **end)
{
	uint64_t v = 0;
	for (;; p++) {
		unsigned d = *p >= '0' && *p <= '9' ? (unsigned)(*p - '0')
			   : *p >= 'a' && *p <= 'f' ? (unsigned)(*p - 'a' + 10) : 16;
		if (d == 16)
			break;
		v = v << 4 | d;
	}
	*end = p;
	return v;
}

static char *inline_cache_path(struct dw_obj *o)
{
	uint64_t size;
	if (!o->build_id || getenv("TAPLINE_NO_INLINE_CACHE") || !(size = debug_info_size(o)))
		return NULL;
	char *dir = cache_dir("inlines");
	char *path = xasprintf("%s/%s-%" PRIx64, dir, o->build_id, size);
	free(dir);
	return path;
}

/* The index over text (len bytes after its first line, ending in a
 * newline; map_len: mapped, else malloced), which it takes; NULL when
 * its open units' lines are damaged. */
static struct inline_index *index_from_text(const char *text, size_t len, size_t map_len)
{
	struct inline_index *ix = xcalloc(1, sizeof *ix);
	ix->text = text;
	ix->map_len = map_len;
	size_t cap = 0;
	bool ok = len && text[len - 1] == '\n';
	const char *p = ok ? text + strcspn(text, "\n") + 1 : text;
	while (ok && p < text + len && p[0] == 'O' && p[1] == ' ') {
		const char *end;
		Dwarf_Off unit = hex_at(p + 2, &end);
		ok = end > p + 2 && *end == '\n';
		if (ix->nopen == cap)
			ix->open = xrealloc(ix->open, (cap = cap ? 2 * cap : 16) * sizeof *ix->open);
		ix->open[ix->nopen++] = unit;
		p = end + 1;
	}
	if (!ok) {
		inline_index_free(ix);
		return NULL;
	}
	ix->lines = p;
	ix->lines_end = text + len;
	return ix;
}

static struct inline_index *read_inline_cache(struct dw_obj *o, const char *path)
{
	size_t len, map_len;
	const char *text = map_sealed_file(path, &len, &map_len);
	if (!text)
		return NULL;
	char *head = xasprintf("tapline-inlines %d %s ", INLINE_CACHE_FORMAT, o->build_id);
	bool ok = len > strlen(head) && !strncmp(text, head, strlen(head));
	free(head);
	if (!ok) {
		munmap((void *)text, map_len);
		return NULL;
	}
	return index_from_text(text, len, map_len);
}

/* The index from the cache, when it holds one (NULL otherwise). */
static struct inline_index *cached_inline_index(struct dw_obj *o)
{
	if (!o->inlines) {
		char *path = inline_cache_path(o);
		o->inlines = path ? read_inline_cache(o, path) : NULL;
		free(path);
	}
	return o->inlines;
}

/* The index, from the cache or made (and saved); NULL with o->why when
 * the object's DWARF cannot be read. */
static struct inline_index *inline_index(struct dw_obj *o)
{
	if (cached_inline_index(o))
		return o->inlines;
	if (!load_dwarf(o))
		return NULL;
	struct index_build b = { .o = o };
	Dwarf_Off off = 0, next;
	size_t hsize;
	while (dwarf_nextcu(o->dbg, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu;
		if (dwarf_offdie(o->dbg, off + hsize, &cu))
			index_unit_origins(&b, &cu);
		off = next;
	}
	if (b.n)
		qsort(b.v, b.n, sizeof *b.v, origin_cmp);
	struct strbuf t;
	sb_init(&t);
	sb_printf(&t, "tapline-inlines %d %s %s\n", INLINE_CACHE_FORMAT,
		  o->build_id ? o->build_id : "-", o->file);
	for (size_t i = 0; i < b.nopen; i++)
		sb_printf(&t, "O %" PRIx64 "\n", (uint64_t)b.open[i]);
	for (size_t i = 0; i < b.n; i++)
		sb_printf(&t, "%" PRIx64 " %" PRIx64 " %s\n", (uint64_t)b.v[i].unit,
			  (uint64_t)b.v[i].origin, b.v[i].name);
	free(b.v);
	free(b.open);
	/* The index keeps the text; the seal written after it is not read. */
	size_t len = t.len;
	char *path = inline_cache_path(o);
	if (path)
		write_sealed_file(path, &t);
	free(path);
	return o->inlines = index_from_text(sb_detach(&t), len, 0);
}

/* An instance line, "UNIT ORIGIN NAME\n": false when it is not one. */
static bool parse_instance(const char *p, struct inline_origin *x, const char **name, size_t *len)
{
	const char *end;
	x->unit = hex_at(p, &end);
	if (end == p || *end != ' ')
		return false;
	const char *at = end + 1;
	x->origin = hex_at(at, &end);
	if (end == at || *end != ' ' || end[1] == '\n')
		return false;
	*name = end + 1;
	*len = strcspn(*name, "\n");
	return true;
}

/* The instances whose names the pattern matches, into m (nm of them):
 * a plain name is found by bisection, a pattern is matched once per
 * distinct name. */
static void matching_instances(const struct inline_index *ix, const char *pattern,
			       struct inline_origin **m, size_t *nm)
{
	size_t cap = 16;
	*m = xmalloc(cap * sizeof **m);
	*nm = 0;
	const char *lo = ix->lines, *hi = ix->lines_end, *name;
	size_t len, plen = strlen(pattern);
	struct inline_origin x = { 0 };
	bool plain = !pattern[strcspn(pattern, "*?[\\")];
	if (plain) {
		/* The first line whose name is not below the pattern. */
		while (lo < hi) {
			const char *p = lo + (hi - lo) / 2;
			while (p > lo && p[-1] != '\n')
				p--;
			int c = -1;
			if (parse_instance(p, &x, &name, &len)) {
				c = memcmp(name, pattern, len < plen ? len : plen);
				if (!c)
					c = len < plen ? -1 : len > plen;
			}
			if (c < 0)
				lo = p + strcspn(p, "\n") + 1;
			else
				hi = p;
		}
	}
	char buf[512];
	const char *prev = NULL;
	size_t prev_len = 0;
	bool matched = false;
	for (const char *p = lo; p < ix->lines_end; p += strcspn(p, "\n") + 1) {
		if (!parse_instance(p, &x, &name, &len))
			continue;
		if (plain) {
			if (len != plen || memcmp(name, pattern, len))
				break;
			matched = true;
		} else if (!prev || len != prev_len || memcmp(name, prev, len)) {
			matched = len < sizeof buf && (memcpy(buf, name, len), buf[len] = 0,
						       fnmatch(pattern, buf, 0) == 0);
			prev = name;
			prev_len = len;
		}
		if (!matched)
			continue;
		if (*nm == cap)
			*m = xrealloc(*m, (cap *= 2) * sizeof **m);
		(*m)[(*nm)++] = x;
	}
}

/* The units to walk for the pattern, in order, each with its matching
 * abstract instances (sorted; none for an open unit: all are looked at). */
struct unit_to_walk {
	Dwarf_Off unit;
	Dwarf_Off *origins; /* NULL for an open unit */
	size_t norigins;
};

static int match_cmp(const void *a, const void *b)
{
	const struct inline_origin *x = a, *y = b;
	if (x->unit != y->unit)
		return x->unit < y->unit ? -1 : 1;
	return x->origin < y->origin ? -1 : x->origin > y->origin;
}

static size_t units_to_walk(struct inline_index *ix, const char *pattern,
			    struct unit_to_walk **out)
{
	struct inline_origin *m;
	size_t nm;
	matching_instances(ix, pattern, &m, &nm);
	qsort(m, nm, sizeof *m, match_cmp);
	struct unit_to_walk *u = xcalloc(nm + ix->nopen + 1, sizeof *u);
	size_t nu = 0, i = 0, k = 0;
	while (i < nm || k < ix->nopen) {
		if (k < ix->nopen && (i == nm || ix->open[k] < m[i].unit)) {
			u[nu++] = (struct unit_to_walk){ ix->open[k++], NULL, 0 };
			continue;
		}
		size_t j = i;
		while (j < nm && m[j].unit == m[i].unit)
			j++;
		struct unit_to_walk *w = &u[nu++];
		w->unit = m[i].unit;
		w->origins = xmalloc((j - i) * sizeof *w->origins);
		for (size_t t = i; t < j; t++)
			w->origins[w->norigins++] = m[t].origin;
		i = j;
	}
	free(m);
	*out = u;
	return nu;
}

int dw_inlines(struct dw *d, const char *module, const char *module_file,
	       const struct dw_query *q, struct ptrvec *sites, size_t *left_out, char **why)
{
	const struct debug_file *f = module_file ? NULL : debugfind(d->ix, module);
	/* A member's strings are searched for the name first, unless its
	 * index is at hand (the object open, its index made or cached). */
	struct dw_obj *open = find_obj(d, module);
	if (f && f->member && !(open && !open->why && cached_inline_index(open)) &&
	    !member_may_inline(d, f, q->function))
		return 0;
	/* The index may come from the cache: the DWARF is read only when a
	 * unit is to be walked. */
	struct dw_obj *o = usable_obj(d, module, module_file, false, why);
	if (!o)
		return -1;
	struct inline_index *ix = inline_index(o);
	if (!ix) {
		*why = xasprintf("%s: %s", o->file, o->why);
		return -1;
	}
	struct walk w = { .o = o, .q = q, .sites = sites, .left_out = left_out };
	struct unit_to_walk *units;
	size_t nunits = units_to_walk(ix, q->function, &units);
	if (nunits && !load_dwarf(o)) {
		for (size_t i = 0; i < nunits; i++)
			free(units[i].origins);
		free(units);
		*why = xasprintf("%s: %s", o->file, o->why);
		return -1;
	}
	for (size_t i = 0; i < nunits; i++) {
		Dwarf_Die cu, child;
		struct inline_walk iw = { &w, NULL, units[i].origins,
					  units[i].norigins };
		if (dwarf_offdie(o->dbg, units[i].unit, &cu) && dwarf_child(&cu, &child) == 0) {
			do {
				Dwarf_Addr pc;
				if (dwarf_tag(&child) != DW_TAG_subprogram || !function_entry(&child, &pc))
					continue;
				iw.func = &child;
				walk_inlines(&iw, &child);
			} while (dwarf_siblingof(&child, &child) == 0);
		}
		free(units[i].origins);
	}
	free(units);
	if (f && f->member && !o->is_kernel)
		member_release(d, f);
	o->kept |= w.found > 0;
	return w.found;
}
