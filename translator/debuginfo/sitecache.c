// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The probe cache's file format (sitecache.h). A file is a stream of
 * tokens separated by white space: numbers, strings in double quotes
 * (with \\, \", \n and \t escaped) and ~ for a missing string. Types come
 * first, each numbered by its place, so that members and pointers can
 * refer to any of them (type graphs have cycles); then the sites:
 *
 *   tapline-sites 1 build-id "ID" key "KEY"
 *   types N
 *     t KIND "name" SIZE FLAGS TARGET COUNT NMEMBERS NENUMS
 *       m "name" TYPE OFFSET BIT_SIZE BIT_OFFSET      (NMEMBERS of them)
 *       e "name" VALUE                                (NENUMS of them)
 *   sites N
 *     s "object" "file" "build-id" "function" "decl_file" LINE FLAGS
 *       "anchor" ANCHOR_OFFSET TEXT_OFFSET RETURN "return_name" "source"
 *       SRC_KEY SRC_PC SRC_FRAME NVARS
 *       v "name" TYPE "type_name" IS_PARAM LOCATION     (NVARS of them)
 *   end
 *   sum HASH
 *
 * with a location: l KIND "why" NOPS NPIECES HAS_STATIC, its ops (o KIND
 * ARG), its static (x "object" "build-id" "symbol" OFFSET TEXT_OFFSET) and
 * its pieces (p SIZE LOCATION). A type index of -1 is none. HASH, 16 hex
 * digits of FNV-1a over everything before it, catches a damaged file that
 * would still parse (a changed digit in an offset).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "debuginfo/sitecache.h"

#define FORMAT "tapline-sites"
#define FORMAT_VERSION 2

enum { TF_SIGNED = 1, TF_CHAR = 2, TF_BOOL = 4, TF_COMPLETE = 8, TF_FLOAT = 16 };
enum { SF_STATEMENT = 1, SF_INLINE = 2, SF_VARS = 4 };

/* --- writing --- */

/* Types by address -> their number in the file (open addressing). */
struct type_numbers {
	const struct ctype **keys;
	long *nums;
	size_t cap;
	struct ptrvec order; /* the types, by number */
};

static size_t ptr_slot(const struct type_numbers *tn, const struct ctype *t)
{
	size_t i = (size_t)(((uintptr_t)t >> 4) * 0x9e3779b97f4a7c15ULL) & (tn->cap - 1);
	while (tn->keys[i] && tn->keys[i] != t)
		i = (i + 1) & (tn->cap - 1);
	return i;
}

static long type_number(struct type_numbers *tn, const struct ctype *t)
{
	if (!t)
		return -1;
	if ((tn->order.n + 1) * 2 > tn->cap) {
		struct type_numbers old = *tn;
		tn->cap = old.cap ? old.cap * 2 : 256;
		tn->keys = xcalloc(tn->cap, sizeof *tn->keys);
		tn->nums = xcalloc(tn->cap, sizeof *tn->nums);
		for (size_t i = 0; i < old.cap; i++)
			if (old.keys[i]) {
				size_t j = ptr_slot(tn, old.keys[i]);
				tn->keys[j] = old.keys[i];
				tn->nums[j] = old.nums[i];
			}
		free(old.keys);
		free(old.nums);
	}
	size_t i = ptr_slot(tn, t);
	if (!tn->keys[i]) {
		tn->keys[i] = t;
		tn->nums[i] = (long)tn->order.n;
		pv_push(&tn->order, (void *)t);
	}
	return tn->nums[i];
}

static void put_str(struct strbuf *b, const char *s)
{
	if (!s) {
		sb_puts(b, " ~");
		return;
	}
	sb_puts(b, " \"");
	for (; *s; s++) {
		if (*s == '\\' || *s == '"')
			sb_putc(b, '\\'), sb_putc(b, *s);
		else if (*s == '\n')
			sb_puts(b, "\\n");
		else if (*s == '\t')
			sb_puts(b, "\\t");
		else
			sb_putc(b, *s);
	}
	sb_putc(b, '"');
}

static void put_loc(struct strbuf *b, struct type_numbers *tn, const struct tloc *l)
{
	sb_printf(b, " l %d", (int)l->kind);
	put_str(b, l->why);
	sb_printf(b, " %zu %zu %d", l->nops, l->npieces, l->stat != NULL);
	for (size_t i = 0; i < l->nops; i++)
		sb_printf(b, " o %d %" PRId64, (int)l->ops[i].kind, l->ops[i].arg);
	if (l->stat) {
		sb_puts(b, " x");
		put_str(b, l->stat->object);
		put_str(b, l->stat->build_id);
		put_str(b, l->stat->symbol);
		sb_printf(b, " %" PRId64 " %" PRIu64 " %" PRIu64, l->stat->offset, l->stat->text_offset,
			  l->stat->user_vaddr);
	}
	for (size_t i = 0; i < l->npieces; i++) {
		sb_printf(b, " p %" PRIu64, l->pieces[i].size);
		put_loc(b, tn, &l->pieces[i].loc);
	}
}

static void put_site(struct strbuf *b, struct type_numbers *tn, const struct probe_site *s)
{
	sb_puts(b, "s");
	put_str(b, s->object);
	put_str(b, s->object_file);
	put_str(b, s->build_id);
	put_str(b, s->function);
	put_str(b, s->decl_file);
	sb_printf(b, " %d %d", s->decl_line,
		  (s->is_statement ? SF_STATEMENT : 0) | (s->is_inline ? SF_INLINE : 0) |
			  (s->vars_loaded ? SF_VARS : 0));
	put_str(b, s->anchor);
	sb_printf(b, " %" PRId64 " %" PRIu64 " %ld", s->anchor_offset, s->text_offset,
		  type_number(tn, s->return_type));
	put_str(b, s->return_type_name);
	put_str(b, s->source);
	sb_printf(b, " %" PRIu64 " %" PRIu64 " %" PRIu64 " %zu\n", s->src_key, s->src_pc,
		  s->src_frame, s->vars_loaded ? s->nvars : 0);
	for (size_t i = 0; s->vars_loaded && i < s->nvars; i++) {
		const struct tvar *v = &s->vars[i];
		sb_puts(b, " v");
		put_str(b, v->name);
		sb_printf(b, " %ld", type_number(tn, v->type));
		put_str(b, v->type_name);
		sb_printf(b, " %d", v->is_param);
		put_loc(b, tn, &v->loc);
		sb_putc(b, '\n');
	}
}

/* Type t, and number every type it refers to (they follow it). Only what
 * a translation completed is saved with its parts. */
static void put_type(struct strbuf *b, struct type_numbers *tn, const struct ctype *t)
{
	bool parts = t->complete;
	sb_printf(b, "t %d", (int)t->kind);
	put_str(b, t->name);
	sb_printf(b, " %" PRIu64 " %d %ld %" PRIu64 " %zu %zu\n", t->size,
		  (t->is_signed ? TF_SIGNED : 0) | (t->is_char ? TF_CHAR : 0) |
			  (t->is_bool ? TF_BOOL : 0) | (t->is_float ? TF_FLOAT : 0) |
			  (parts ? TF_COMPLETE : 0),
		  parts ? type_number(tn, t->target) : -1, t->count, parts ? t->nmembers : 0,
		  parts ? t->nenums : 0);
	for (size_t i = 0; parts && i < t->nmembers; i++) {
		const struct cmember *m = &t->members[i];
		sb_puts(b, " m");
		put_str(b, m->name);
		sb_printf(b, " %ld %" PRIu64 " %d %d\n", type_number(tn, m->type), m->offset,
			  m->bit_size, m->bit_offset);
	}
	for (size_t i = 0; parts && i < t->nenums; i++) {
		sb_puts(b, " e");
		put_str(b, t->enums[i].name);
		sb_printf(b, " %lld\n", t->enums[i].value);
	}
}

#define SUM_LINE 21 /* "sum " 16 digits "\n" */

static uint64_t text_hash(const char *text, size_t len)
{
	return hash_bytes(0xcbf29ce484222325ULL, text, len);
}

bool sitecache_write(const char *path, const char *build_id, const char *key,
		     const struct ptrvec *sites, char **why)
{
	struct type_numbers tn = { 0 };
	struct strbuf body, types;
	sb_init(&body);
	sb_init(&types);
	/* Sites first, into their own buffer, so that the types they reach are
	 * numbered; each type written may number more. */
	sb_printf(&body, "sites %zu\n", sites->n);
	for (size_t i = 0; i < sites->n; i++)
		put_site(&body, &tn, sites->v[i]);
	sb_puts(&body, "end\n");
	struct strbuf tb;
	sb_init(&tb);
	for (size_t i = 0; i < tn.order.n; i++)
		put_type(&tb, &tn, tn.order.v[i]);
	sb_printf(&types, FORMAT " %d build-id", FORMAT_VERSION);
	put_str(&types, build_id);
	sb_puts(&types, " key");
	put_str(&types, key);
	sb_printf(&types, "\ntypes %zu\n", tn.order.n);
	sb_add(&types, tb.s, tb.len);
	sb_add(&types, body.s, body.len);
	sb_printf(&types, "sum %016llx\n", (unsigned long long)text_hash(types.s, types.len));
	sb_free(&tb);
	sb_free(&body);
	free(tn.keys);
	free(tn.nums);
	pv_free(&tn.order);

	char *tmp = xasprintf("%s.%d.tmp", path, (int)getpid());
	bool ok = write_file(tmp, types.s, types.len) && rename(tmp, path) == 0;
	if (!ok) {
		*why = xasprintf("cannot write %s: %s", path, strerror(errno));
		unlink(tmp);
	}
	free(tmp);
	sb_free(&types);
	return ok;
}

/* --- reading --- */

struct reader {
	const char *p, *end;
	bool bad;
	struct ctype **types;
	long ntypes;
	struct ptrvec owned; /* everything allocated: freed whole if the file is damaged */
};

/* What files read whole made: the model lives until exit (sitecache_free_all). */
static struct ptrvec kept;

static void *rcalloc(struct reader *r, size_t n, size_t size)
{
	void *p = xcalloc(n, size);
	pv_push(&r->owned, p);
	return p;
}

static void skip_space(struct reader *r)
{
	while (r->p < r->end && (*r->p == ' ' || *r->p == '\n' || *r->p == '\t'))
		r->p++;
}

/* The next bare word (not a string), or "" at the end. */
static const char *word(struct reader *r, char *buf, size_t size)
{
	skip_space(r);
	size_t n = 0;
	while (r->p < r->end && *r->p != ' ' && *r->p != '\n' && *r->p != '\t' && *r->p != '"') {
		if (n + 1 < size)
			buf[n++] = *r->p;
		else
			r->bad = true;
		r->p++;
	}
	buf[n] = 0;
	if (!n)
		r->bad = true;
	return buf;
}

static void expect(struct reader *r, const char *what)
{
	char buf[32];
	if (strcmp(word(r, buf, sizeof buf), what))
		r->bad = true;
}

static int64_t get_s64(struct reader *r)
{
	char buf[32], *e;
	const char *w = word(r, buf, sizeof buf);
	errno = 0;
	long long v = strtoll(w, &e, 10);
	if (*e || errno)
		r->bad = true;
	return r->bad ? 0 : v;
}

static uint64_t get_u64(struct reader *r)
{
	char buf[32], *e;
	const char *w = word(r, buf, sizeof buf);
	errno = 0;
	unsigned long long v = strtoull(w, &e, 10);
	if (*e || errno || *w == '-')
		r->bad = true;
	return r->bad ? 0 : v;
}

/* A count of things each taking at least min bytes of what is left. */
static size_t get_count(struct reader *r, size_t min)
{
	uint64_t n = get_u64(r);
	if (n > (uint64_t)(r->end - r->p) / min)
		r->bad = true;
	return r->bad ? 0 : (size_t)n;
}

/* A string (malloced) or NULL for ~; on a damaged token, NULL and bad. */
static char *get_str(struct reader *r)
{
	skip_space(r);
	if (r->p < r->end && *r->p == '~') {
		r->p++;
		return NULL;
	}
	if (r->p >= r->end || *r->p != '"') {
		r->bad = true;
		return NULL;
	}
	struct strbuf b;
	sb_init(&b);
	for (r->p++; r->p < r->end && *r->p != '"'; r->p++) {
		char ch = *r->p;
		if (ch == '\\') {
			if (++r->p >= r->end)
				break;
			ch = *r->p == 'n' ? '\n' : *r->p == 't' ? '\t' : *r->p;
		}
		sb_putc(&b, ch);
	}
	if (r->p >= r->end) {
		r->bad = true;
		sb_free(&b);
		return NULL;
	}
	r->p++;
	if (!b.s)
		sb_putc(&b, 0), b.len = 0;
	char *s = sb_detach(&b);
	pv_push(&r->owned, s);
	return s;
}

static struct ctype *get_type(struct reader *r)
{
	int64_t i = get_s64(r);
	if (i < -1 || i >= r->ntypes)
		r->bad = true;
	return r->bad || i < 0 ? NULL : r->types[i];
}

/* A part of the graph the saving translation never looked into: it is
 * saved by name only. Reaching it means the cache's key missed a use. */
static const char *first_gap;

static void gap(struct ctype *t)
{
	static struct ctype void_type = { .kind = CT_VOID, .name = "void", .complete = true };
	if (!first_gap)
		first_gap = t->name ? t->name : "a type";
	if (t->kind == CT_PTR || t->kind == CT_ARRAY)
		t->target = &void_type;
}

static const struct type_source gap_source = { gap, NULL };

const char *sitecache_first_gap(void)
{
	return first_gap;
}

static void get_type_parts(struct reader *r, struct ctype *t)
{
	expect(r, "t");
	int kind = (int)get_s64(r);
	if (kind < CT_VOID || kind > CT_FUNC)
		r->bad = true;
	t->kind = (enum ctype_kind)kind;
	t->name = get_str(r);
	t->size = get_u64(r);
	int64_t flags = get_s64(r);
	t->is_signed = flags & TF_SIGNED;
	t->is_char = flags & TF_CHAR;
	t->is_bool = flags & TF_BOOL;
	t->is_float = flags & TF_FLOAT;
	t->complete = flags & TF_COMPLETE;
	if (!t->complete)
		t->src = &gap_source;
	t->target = get_type(r);
	t->count = get_u64(r);
	t->nmembers = get_count(r, 12);
	t->nenums = get_count(r, 6);
	if (r->bad)
		return;
	t->members = t->nmembers ? rcalloc(r, t->nmembers, sizeof *t->members) : NULL;
	for (size_t i = 0; i < t->nmembers && !r->bad; i++) {
		struct cmember *m = &t->members[i];
		expect(r, "m");
		m->name = get_str(r);
		m->type = get_type(r);
		m->offset = get_u64(r);
		m->bit_size = (int)get_s64(r);
		m->bit_offset = (int)get_s64(r);
		if (!m->type)
			r->bad = true;
	}
	t->enums = t->nenums ? rcalloc(r, t->nenums, sizeof *t->enums) : NULL;
	for (size_t i = 0; i < t->nenums && !r->bad; i++) {
		expect(r, "e");
		t->enums[i].name = get_str(r);
		t->enums[i].value = get_s64(r);
	}
	/* What the model promises of a complete pointer or array: a target. */
	if (t->complete && (t->kind == CT_PTR || t->kind == CT_ARRAY) && !t->target)
		r->bad = true;
}

static void get_loc(struct reader *r, struct tloc *l, int depth)
{
	expect(r, "l");
	int kind = (int)get_s64(r);
	if (kind < TL_NONE || kind > TL_PIECES || depth > 4)
		r->bad = true;
	l->kind = (enum tloc_kind)kind;
	l->why = get_str(r);
	l->nops = get_count(r, 4);
	l->npieces = get_count(r, 4);
	bool has_static = get_s64(r) != 0;
	if (r->bad)
		return;
	l->ops = l->nops ? rcalloc(r, l->nops, sizeof *l->ops) : NULL;
	for (size_t i = 0; i < l->nops && !r->bad; i++) {
		expect(r, "o");
		int op = (int)get_s64(r);
		if (op < LO_REG || op > LO_STATIC)
			r->bad = true;
		l->ops[i].kind = (enum tloc_op_kind)op;
		l->ops[i].arg = get_s64(r);
	}
	if (has_static && !r->bad) {
		expect(r, "x");
		struct tstatic *st = rcalloc(r, 1, sizeof *st);
		st->object = get_str(r);
		st->build_id = get_str(r);
		st->symbol = get_str(r);
		st->offset = get_s64(r);
		st->text_offset = get_u64(r);
		st->user_vaddr = get_u64(r);
		l->stat = st;
		if (!st->object)
			r->bad = true;
	}
	l->pieces = l->npieces ? rcalloc(r, l->npieces, sizeof *l->pieces) : NULL;
	for (size_t i = 0; i < l->npieces && !r->bad; i++) {
		expect(r, "p");
		l->pieces[i].size = get_u64(r);
		get_loc(r, &l->pieces[i].loc, depth + 1);
	}
}

/* The source names the model uses are constants: give back the same. */
static const char *known_source(const char *s)
{
	static const char *const names[] = { "DWARF", "BTF", "symbol table" };
	for (size_t i = 0; s && i < sizeof names / sizeof names[0]; i++)
		if (!strcmp(s, names[i]))
			return names[i];
	return s;
}

static struct probe_site *get_site(struct reader *r)
{
	struct probe_site *s = rcalloc(r, 1, sizeof *s);
	expect(r, "s");
	s->object = get_str(r);
	s->object_file = get_str(r);
	s->build_id = get_str(r);
	s->function = get_str(r);
	s->decl_file = get_str(r);
	s->decl_line = (int)get_s64(r);
	int64_t flags = get_s64(r);
	s->is_statement = flags & SF_STATEMENT;
	s->is_inline = flags & SF_INLINE;
	/* Saved without variables: the saving script read none, nor will this one. */
	s->vars_loaded = true;
	s->anchor = get_str(r);
	s->anchor_offset = get_s64(r);
	s->text_offset = get_u64(r);
	s->return_type = get_type(r);
	s->return_type_name = get_str(r);
	s->source = known_source(get_str(r));
	s->src_key = get_u64(r);
	s->src_pc = get_u64(r);
	s->src_frame = get_u64(r);
	s->nvars = get_count(r, 16);
	if (!s->object || !s->function || !s->anchor)
		r->bad = true;
	if (r->bad)
		return s;
	s->vars = s->nvars ? rcalloc(r, s->nvars, sizeof *s->vars) : NULL;
	for (size_t i = 0; i < s->nvars && !r->bad; i++) {
		struct tvar *v = &s->vars[i];
		expect(r, "v");
		v->name = get_str(r);
		v->type = get_type(r);
		v->type_name = get_str(r);
		v->is_param = get_s64(r) != 0;
		get_loc(r, &v->loc, 0);
		if (!v->name || !v->type)
			r->bad = true;
	}
	return s;
}

bool sitecache_read(const char *path, const char *build_id, const char *key, struct ptrvec *sites,
		    char **why)
{
	size_t len;
	char *text = read_file(path, &len);
	if (!text) {
		*why = xasprintf("%s: %s", path, strerror(errno));
		return false;
	}
	/* The sum first: nothing of a damaged file is looked at. */
	char *e;
	bool summed = len > SUM_LINE && !memcmp(text + len - SUM_LINE, "sum ", 4) &&
		      text[len - 1] == '\n' &&
		      strtoull(text + len - SUM_LINE + 4, &e, 16) == text_hash(text, len - SUM_LINE) &&
		      e == text + len - 1;
	struct reader r = { .p = text, .end = text + (summed ? len - SUM_LINE : 0) };
	char buf[32];
	expect(&r, FORMAT);
	bool same_format = !r.bad && get_s64(&r) == FORMAT_VERSION;
	expect(&r, "build-id");
	char *file_id = get_str(&r);
	expect(&r, "key");
	char *file_key = get_str(&r);
	bool ok = false;
	if (!summed) {
		*why = xasprintf("%s: damaged (its sum does not match)", path);
	} else if (r.bad || !same_format) {
		*why = xasprintf("%s: not a probe cache file of this version", path);
	} else if (!file_id || strcmp(file_id, build_id)) {
		*why = xasprintf("%s: made for build-id %s, not %s", path, file_id ? file_id : "?",
				 build_id);
	} else if (!file_key || strcmp(file_key, key)) {
		*why = xasprintf("%s: saved for another query", path);
	} else {
		expect(&r, "types");
		r.ntypes = (long)get_count(&r, 16);
		r.types = xcalloc((size_t)r.ntypes + 1, sizeof *r.types);
		for (long i = 0; i < r.ntypes; i++)
			r.types[i] = rcalloc(&r, 1, sizeof **r.types);
		for (long i = 0; i < r.ntypes && !r.bad; i++)
			get_type_parts(&r, r.types[i]);
		expect(&r, "sites");
		size_t n = get_count(&r, 16);
		struct ptrvec got = { 0 };
		for (size_t i = 0; i < n && !r.bad; i++)
			pv_push(&got, get_site(&r));
		if (strcmp(word(&r, buf, sizeof buf), "end") || r.bad || !n) {
			*why = xasprintf("%s: damaged", path);
		} else {
			for (size_t i = 0; i < got.n; i++)
				pv_push(sites, got.v[i]);
			ok = true;
		}
		pv_free(&got);
		free(r.types);
	}
	for (size_t i = 0; i < r.owned.n; i++) {
		if (ok)
			pv_push(&kept, r.owned.v[i]);
		else
			free(r.owned.v[i]);
	}
	pv_free(&r.owned);
	free(text);
	return ok;
}

void sitecache_free_all(void)
{
	pv_free_all(&kept);
}
