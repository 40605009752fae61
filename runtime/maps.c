// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The script's arrays: hash tables of fixed capacity, allocated whole when
 * the module loads, so a probe hit never allocates. An entry holds its
 * keys (numbers, or strings of MAXSTRINGLEN bytes) and its value, and is
 * linked into its hash chain and into the table's insertion order, which
 * is the order of an unsorted foreach and says which entry is oldest when
 * a '%' array wraps around. Keys are hashed once per access, with a seed
 * chosen at load time; keys are compared only when hashes are equal.
 *
 * An array of statistics has one table per CPU, which only that CPU adds
 * to (under a shared lock), and one more into which foreach merges them
 * (under the exclusive lock), only when one of them changed since.
 *
 * A sorted foreach sorts a snapshot of entry pointers taken from this
 * CPU's slot area, never the table itself.
 */
#include <asm/word-at-a-time.h>
#include <linux/log2.h>
#include <linux/overflow.h>
#include <linux/percpu.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/vmalloc.h>

#include "runtime.h"
#include "stats.h"

struct rt_entry {
	u32 hash;
	s32 next;          /* the next entry in its hash chain, or -1 */
	s32 older, newer;  /* insertion order */
	u32 seq;           /* when it was inserted: sorting ties keep this order */
	u32 unused;
	/* the keys, then the value (offsets in struct rt_map) */
};

struct rt_table {
	s32 *heads;        /* hash buckets: the first entry of each chain, or -1 */
	u32 mask;
	char *mem;         /* capacity entries of esize bytes */
	int capacity;
	int used;          /* entries ever taken from mem */
	s32 free;          /* deleted entries to reuse, chained through next */
	int count;
	s32 oldest, newest;
	u32 seq;
	int dirty;         /* statistics: changed since the last merge */
	u32 fold_gen;      /* user-stack aliases it was last folded by */
};

struct rt_map {
	const struct rt_map_desc *d;
	size_t koff[9], voff, esize, maxstr;
	u32 seed;
	struct rt_table *table;  /* the array; for statistics, the merged copy */
	struct rt_table **cpu;   /* statistics: each CPU's own table */
	bool fold;               /* string keys in a script that keys by user stacks */
};

/* A sorted foreach's snapshot: the entry, and the value it sorts by. */
struct rt_slot {
	struct rt_entry *e;
	s64 v;
};

static struct rt_entry *rt_entry_at(const struct rt_map *m, const struct rt_table *t, s32 i)
{
	return (struct rt_entry *)(t->mem + (size_t)i * m->esize);
}

static s32 rt_entry_index(const struct rt_map *m, const struct rt_table *t,
			  const struct rt_entry *e)
{
	return (s32)(((const char *)e - t->mem) / m->esize);
}

static s64 *rt_key_long(const struct rt_map *m, struct rt_entry *e, int i)
{
	return (s64 *)((char *)e + m->koff[i]);
}

static char *rt_key_str(const struct rt_map *m, struct rt_entry *e, int i)
{
	return (char *)e + m->koff[i];
}

static void *rt_value(const struct rt_map *m, struct rt_entry *e)
{
	return (char *)e + m->voff;
}

/* --- tables --- */

static void rt_table_reset(struct rt_table *t)
{
	memset(t->heads, 0xff, (size_t)(t->mask + 1) * sizeof(*t->heads));
	t->used = 0;
	t->free = -1;
	t->count = 0;
	t->oldest = t->newest = -1;
	t->dirty = 0;
}

static void rt_table_free(struct rt_table *t)
{
	if (!t)
		return;
	rt_free_big(t->heads);
	rt_free_big(t->mem);
	kfree(t);
}

/* Hash buckets for a table of capacity entries. */
static u32 rt_table_heads(int capacity)
{
	u32 nheads = 16;

	while (nheads < (u32)capacity && nheads < (1u << 30))
		nheads <<= 1;
	return nheads;
}

static struct rt_table *rt_table_new(const struct rt_map *m)
{
	struct rt_table *t = kzalloc(sizeof(*t), GFP_KERNEL);
	u32 nheads = rt_table_heads(m->d->capacity);

	if (!t)
		return NULL;
	t->mask = nheads - 1;
	t->capacity = m->d->capacity;
	t->heads = rt_alloc_big(nheads * sizeof(*t->heads));
	t->mem = rt_alloc_big((size_t)t->capacity * m->esize);
	if (!t->heads || !t->mem) {
		rt_table_free(t);
		return NULL;
	}
	rt_table_reset(t);
	return t;
}

/*
 * String keys are hashed and compared a word (8 bytes) at a time: keys are
 * on every hot path (m[execname()]++). A word is read only when it does
 * not cross into the next page, so a short string at the end of a page
 * never makes us touch memory it does not own; otherwise bytes are read
 * one by one. Either way the result depends only on the string's first
 * max bytes, as an entry keeps them.
 */
/* How many of max bytes from p lie in p's page (reading those cannot fault
 * if p can be read). */
static __always_inline size_t rt_in_page(const char *p, size_t max)
{
	size_t room = PAGE_SIZE - ((unsigned long)p & (PAGE_SIZE - 1));

	return room < max ? room : max;
}

static __always_inline u64 rt_mix(u64 h, u64 w)
{
	h = (h ^ w) * 0x100000001b3ULL;
	return h ^ (h >> 29);
}

/* The hash of s (at most max bytes), as 8-byte little-endian chunks, the
 * last one zero-padded, then its length. */
static __always_inline u64 rt_str_hash(u64 h, const char *s, size_t max)
{
	const struct word_at_a_time zero = WORD_AT_A_TIME_CONSTANTS;
	size_t i = 0, n, words = rt_in_page(s, max);
	u64 w = 0;

	while (i + sizeof(unsigned long) <= words) {
		unsigned long x, z;

		memcpy(&x, s + i, sizeof(x));
		if (has_zero(x, &z, &zero)) {
			z = create_zero_mask(prep_zero_mask(x, z, &zero));
			n = find_zero(z);
			if (n)
				h = rt_mix(h, x & zero_bytemask(z));
			return rt_mix(h, i + n);
		}
		h = rt_mix(h, x);
		i += sizeof(x);
	}
	for (n = 0; i + n < max && s[i + n]; n++) {
		w |= (u64)(unsigned char)s[i + n] << (8 * (n % 8));
		if (n % 8 == 7) {
			h = rt_mix(h, w);
			w = 0;
		}
	}
	if (n % 8)
		h = rt_mix(h, w);
	return rt_mix(h, i + n);
}

/* Are a and b the same string in their first max bytes? */
static __always_inline bool rt_str_equal(const char *a, const char *b, size_t max)
{
	const struct word_at_a_time zero = WORD_AT_A_TIME_CONSTANTS;
	size_t i = 0, words = rt_in_page(b, rt_in_page(a, max));

	while (i + sizeof(unsigned long) <= words) {
		unsigned long x, y, z;

		memcpy(&x, a + i, sizeof(x));
		memcpy(&y, b + i, sizeof(y));
		if (has_zero(x, &z, &zero)) {
			/* a ends here: b must match up to and including a's NUL. */
			z = create_zero_mask(prep_zero_mask(x, z, &zero));
			return ((x ^ y) & ((zero_bytemask(z) << 8) | 0xff)) == 0;
		}
		if (x != y)
			return false;
		i += sizeof(x);
	}
	for (; i < max; i++) {
		if (a[i] != b[i])
			return false;
		if (!a[i])
			return true;
	}
	return true;
}

static __always_inline u32 rt_hash(const struct rt_map *m, const struct rt_key *k)
{
	u64 h = 0xcbf29ce484222325ULL ^ m->seed;
	int i;

	for (i = 0; i < m->d->nkeys; i++) {
		/* Only what an entry keeps of a long string counts. */
		if (m->d->key_kinds[i] == RT_STRING)
			h = rt_str_hash(h, k[i].s, m->maxstr - 1);
		else
			h = rt_mix(h, (u64)k[i].n);
	}
	return (u32)(h ^ (h >> 32));
}

/* Do the entry's keys match k, those where star has no bit set (a slice's
 * '*' keys match anything)? */
static __always_inline bool rt_keys_match(const struct rt_map *m, struct rt_entry *e,
					  const struct rt_key *k, int star)
{
	int i;

	for (i = 0; i < m->d->nkeys; i++) {
		if (star & (1 << i))
			continue;
		if (m->d->key_kinds[i] == RT_STRING) {
			if (!rt_str_equal(rt_key_str(m, e, i), k[i].s, m->maxstr - 1))
				return false;
		} else if (*rt_key_long(m, e, i) != k[i].n) {
			return false;
		}
	}
	return true;
}

static __always_inline struct rt_entry *rt_lookup(const struct rt_map *m, const struct rt_table *t,
				  const struct rt_key *k, u32 h)
{
	s32 i;

	/* i < used: a link another CPU is rewriting (a fold of its own
	 * table of statistics) ends the search rather than leaving the table. */
	for (i = t->heads[h & t->mask]; i >= 0 && i < READ_ONCE(t->used);) {
		struct rt_entry *e = rt_entry_at(m, t, i);

		if (e->hash == h && rt_keys_match(m, e, k, 0))
			return e;
		i = READ_ONCE(e->next);
	}
	return NULL;
}

/* Take e out of its hash chain only. */
static void rt_unchain(const struct rt_map *m, struct rt_table *t, struct rt_entry *e)
{
	s32 idx = rt_entry_index(m, t, e), *link = &t->heads[e->hash & t->mask];

	while (*link != idx)
		link = &rt_entry_at(m, t, *link)->next;
	*link = e->next;
}

static void rt_unlink(const struct rt_map *m, struct rt_table *t, struct rt_entry *e)
{
	s32 idx = rt_entry_index(m, t, e);

	rt_unchain(m, t, e);
	if (e->older >= 0)
		rt_entry_at(m, t, e->older)->newer = e->newer;
	else
		t->oldest = e->newer;
	if (e->newer >= 0)
		rt_entry_at(m, t, e->newer)->older = e->older;
	else
		t->newest = e->older;
	e->next = t->free;
	t->free = idx;
	t->count--;
}

static void rt_map_full(struct rt_context *c, const struct rt_map *m, const char *loc)
{
	char hint[RT_HINT_LEN];

	if (m->d->declared) {
		rt_failf(c, loc, "declare it larger, or with '%' to replace the oldest entry",
			 "array '%s' is full (declared with %d entries)", m->d->name,
			 m->d->capacity);
		return;
	}
	scnprintf(hint, sizeof(hint),
		  "raise the limit with -D MAXMAPENTRIES=N, or declare a size: global %s[N]",
		  m->d->name);
	rt_failf(c, loc, hint, "array '%s' is full (MAXMAPENTRIES = %d)", m->d->name,
		 m->d->capacity);
}

/* A new entry with these keys and a zero value; NULL when the table is full. */
static struct rt_entry *rt_insert(const struct rt_map *m, struct rt_table *t,
				  const struct rt_key *k, u32 h)
{
	struct rt_entry *e;
	s32 idx;
	int i;

	if (t->count == t->capacity) {
		if (!m->d->wrap || t->oldest < 0)
			return NULL;
		rt_unlink(m, t, rt_entry_at(m, t, t->oldest));
	}
	if (t->free >= 0) {
		idx = t->free;
		t->free = rt_entry_at(m, t, idx)->next;
	} else {
		idx = t->used++;
	}
	e = rt_entry_at(m, t, idx);
	memset(e, 0, m->esize);
	e->hash = h;
	e->next = t->heads[h & t->mask];
	t->heads[h & t->mask] = idx;
	e->older = t->newest;
	e->newer = -1;
	if (t->newest >= 0)
		rt_entry_at(m, t, t->newest)->newer = idx;
	else
		t->oldest = idx;
	t->newest = idx;
	e->seq = ++t->seq;
	t->count++;
	for (i = 0; i < m->d->nkeys; i++) {
		if (m->d->key_kinds[i] == RT_STRING)
			strscpy(rt_key_str(m, e, i), k[i].s, m->maxstr);
		else
			*rt_key_long(m, e, i) = k[i].n;
	}
	return e;
}

/*
 * User stacks as keys (ustack.c): an entry whose key names a sample that
 * staprun found equal to an earlier one is renamed to that one, and merged
 * into the entry already there: statistics combine, numbers add, a string
 * keeps the newer value. While the script runs, only a table that is full
 * is folded, and only RT_FOLD_BUDGET of its newest entries, by whoever
 * inserts, under the lock that insert holds (a CPU's own table of
 * statistics is read by other CPUs meanwhile: their reads may miss a
 * merged entry until the end); a statistics array's tables likewise when
 * foreach merges them. Every array is folded whole once the probes have
 * stopped, before the end probes (rt_ustack_final_fold).
 */
#define RT_FOLD_BUDGET 4096

static void rt_merge_value(const struct rt_map *m, struct rt_entry *into, struct rt_entry *e)
{
	switch (m->d->value_kind) {
	case RT_STATS:
		rt_stat_merge(&m->d->stat, rt_value(m, into), rt_value(m, e));
		break;
	case RT_STRING:
		if (e->seq > into->seq)
			strscpy(rt_value(m, into), rt_value(m, e), m->maxstr);
		break;
	default:
		*(s64 *)rt_value(m, into) += *(s64 *)rt_value(m, e);
		break;
	}
}

/* Fold at most budget entries of t, newest first (budget < 0: all, in
 * process context). */
static noinline void rt_table_fold(const struct rt_map *m, struct rt_table *t, long budget)
{
	long seen = 0;
	s32 i;

	for (i = t->newest; i >= 0 && (budget < 0 || seen < budget); seen++) {
		struct rt_entry *e = rt_entry_at(m, t, i), *into;
		struct rt_key k[9];
		bool any = false;
		int j;
		u32 h;

		i = e->older;
		if (budget < 0 && !(seen % 4096))
			cond_resched();
		for (j = 0; j < m->d->nkeys && !any; j++)
			if (m->d->key_kinds[j] == RT_STRING)
				any = rt_ustack_fold_key(rt_key_str(m, e, j), m->maxstr, false);
		if (!any)
			continue;
		rt_unchain(m, t, e);
		for (j = 0; j < m->d->nkeys; j++) {
			if (m->d->key_kinds[j] == RT_STRING)
				rt_ustack_fold_key(rt_key_str(m, e, j), m->maxstr, true);
			k[j].s = rt_key_str(m, e, j);
			k[j].n = *rt_key_long(m, e, j);
		}
		h = rt_hash(m, k);
		into = rt_lookup(m, t, k, h);
		if (into) {
			rt_merge_value(m, into, e);
			/* Back in a chain for a moment: rt_unlink takes it out with the rest. */
			e->next = t->heads[e->hash & t->mask];
			t->heads[e->hash & t->mask] = rt_entry_index(m, t, e);
			rt_unlink(m, t, e);
		} else {
			e->hash = h;
			e->next = t->heads[h & t->mask];
			t->heads[h & t->mask] = rt_entry_index(m, t, e);
		}
		t->dirty = 1;
	}
}

/* Fold t in a hit if aliases came since it was last folded. */
static void rt_table_fold_new(const struct rt_map *m, struct rt_table *t)
{
	u32 gen = rt_ustack_alias_gen();

	if (t->fold_gen == gen)
		return;
	t->fold_gen = gen;
	rt_table_fold(m, t, RT_FOLD_BUDGET);
}

static __always_inline struct rt_entry *rt_find_or_insert(struct rt_context *c, struct rt_map *m,
					  struct rt_table *t, const struct rt_key *k,
					  const char *loc)
{
	u32 h = rt_hash(m, k);
	struct rt_entry *e = rt_lookup(m, t, k, h);

	if (e)
		return e;
	e = rt_insert(m, t, k, h);
	if (!e && unlikely(m->fold)) {
		/* Full: maybe of samples whose stacks are known by now. */
		rt_table_fold_new(m, t);
		e = rt_lookup(m, t, k, h);
		if (!e)
			e = rt_insert(m, t, k, h);
	}
	if (!e)
		rt_map_full(c, m, loc);
	return e;
}

/* The user-stack sample ids in the keys of every folded array (no probe
 * may run): how many, and the first cap of them into ids. */
size_t rt_maps_tokens(u64 *ids, size_t cap)
{
	size_t n = 0;
	int i, cpu, j;

	for (i = 0; rt_maps && i < rt_script.nmaps; i++) {
		struct rt_map *m = rt_maps[i];

		for (cpu = -1; m && m->fold && cpu < (int)nr_cpu_ids; cpu++) {
			struct rt_table *t = cpu < 0 ? m->table : m->cpu ? m->cpu[cpu] : NULL;
			s32 k;

			if (!t || (cpu >= 0 && !cpu_possible(cpu)))
				continue;
			for (k = t->oldest; k >= 0;) {
				struct rt_entry *e = rt_entry_at(m, t, k);

				k = e->newer;
				for (j = 0; j < m->d->nkeys; j++)
					if (m->d->key_kinds[j] == RT_STRING)
						n += rt_ustack_key_tokens(rt_key_str(m, e, j), m->maxstr,
									  n < cap ? ids + n : NULL,
									  n < cap ? cap - n : 0);
			}
			cond_resched();
		}
	}
	return n;
}

void rt_maps_fold_all(void)
{
	int i, cpu;

	for (i = 0; rt_maps && i < rt_script.nmaps; i++) {
		struct rt_map *m = rt_maps[i];

		if (!m || !m->fold)
			continue;
		rt_table_fold(m, m->table, -1);
		if (m->cpu)
			for_each_possible_cpu(cpu)
				rt_table_fold(m, m->cpu[cpu], -1);
	}
}


/* --- making and freeing --- */

/* An entry's layout: where its keys and value are, and its size. */
static size_t rt_map_layout(const struct rt_map_desc *d, size_t *koff, size_t *voff)
{
	size_t off = sizeof(struct rt_entry), maxstr = rt_script.maxstringlen;
	int i;

	for (i = 0; i < d->nkeys; i++) {
		if (koff)
			koff[i] = off;
		off += d->key_kinds[i] == RT_STRING ? ALIGN(maxstr, 8) : sizeof(s64);
	}
	if (voff)
		*voff = off;
	switch (d->value_kind) {
	case RT_STRING:
		off += ALIGN(maxstr, 8);
		break;
	case RT_STATS:
		off += ALIGN(rt_stat_size(&d->stat), 8);
		break;
	default:
		off += sizeof(s64);
		break;
	}
	return off;
}

/* Saturating (SIZE_MAX rather than a wrap): a script chooses the sizes. */
size_t rt_map_bytes(const struct rt_map_desc *d)
{
	size_t table = size_add(sizeof(struct rt_table) + rt_table_heads(d->capacity) * sizeof(s32),
				size_mul(d->capacity, rt_map_layout(d, NULL, NULL)));

	/* Statistics: one table per CPU, and the merged one. */
	if (d->value_kind == RT_STATS)
		table = size_mul(num_possible_cpus() + 1, table);
	return size_add(sizeof(struct rt_map), table);
}

struct rt_map *rt_map_new(const struct rt_map_desc *d)
{
	struct rt_map *m = kzalloc(sizeof(*m), GFP_KERNEL);
	int cpu;

	if (!m)
		return NULL;
	m->d = d;
	m->maxstr = rt_script.maxstringlen;
	m->esize = rt_map_layout(d, m->koff, &m->voff);
	m->seed = get_random_u32();
	for (cpu = 0; cpu < d->nkeys; cpu++)
		m->fold |= rt_script.ustack_keys && d->key_kinds[cpu] == RT_STRING;
	m->table = rt_table_new(m);
	if (!m->table)
		goto fail;
	if (d->value_kind == RT_STATS) {
		m->cpu = kcalloc(nr_cpu_ids, sizeof(*m->cpu), GFP_KERNEL);
		if (!m->cpu)
			goto fail;
		for_each_possible_cpu(cpu) {
			m->cpu[cpu] = rt_table_new(m);
			if (!m->cpu[cpu])
				goto fail;
		}
	}
	return m;
fail:
	rt_map_free(m);
	return NULL;
}

void rt_map_free(struct rt_map *m)
{
	int cpu;

	if (!m)
		return;
	if (m->cpu) {
		for_each_possible_cpu(cpu)
			rt_table_free(m->cpu[cpu]);
		kfree(m->cpu);
	}
	rt_table_free(m->table);
	kfree(m);
}

const struct rt_stat_desc *rt_map_stat_desc(const struct rt_map *m)
{
	return &m->d->stat;
}

/* --- numbers and strings --- */

rt_long rt_map_get_long(struct rt_context *c, struct rt_map *m, const struct rt_key *k)
{
	struct rt_entry *e = rt_lookup(m, m->table, k, rt_hash(m, k));

	return e ? *(s64 *)rt_value(m, e) : 0;
}

void rt_map_get_str(struct rt_context *c, struct rt_map *m, const struct rt_key *k, char *buf,
		    rt_size size)
{
	struct rt_entry *e = rt_lookup(m, m->table, k, rt_hash(m, k));

	strscpy(buf, e ? (char *)rt_value(m, e) : "", size);
}

rt_long *rt_map_ref_long(struct rt_context *c, struct rt_map *m, const struct rt_key *k,
			 const char *loc)
{
	struct rt_entry *e = rt_find_or_insert(c, m, m->table, k, loc);

	return e ? rt_value(m, e) : NULL;
}

char *rt_map_ref_str(struct rt_context *c, struct rt_map *m, const struct rt_key *k,
		     const char *loc)
{
	struct rt_entry *e = rt_find_or_insert(c, m, m->table, k, loc);

	return e ? rt_value(m, e) : NULL;
}

void rt_map_set_long(struct rt_context *c, struct rt_map *m, const struct rt_key *k, rt_long v,
		     const char *loc)
{
	rt_long *p = rt_map_ref_long(c, m, k, loc);

	if (p)
		*p = v;
}

void rt_map_set_str(struct rt_context *c, struct rt_map *m, const struct rt_key *k,
		    const char *v, const char *loc)
{
	char *p = rt_map_ref_str(c, m, k, loc);

	if (p && p != v)
		strscpy(p, v, m->maxstr);
}

/*
 * A walk over a whole table (a slice, a merge, a sort, emptying it) takes
 * as long as the array is large, within one statement: each entry it
 * visits is charged to rt_work() at its size (keys are compared), and the
 * walk stops, leaving the table consistent, once the hit has run too long
 * (the hit has failed then).
 */
static inline bool rt_walk_overtime(struct rt_context *c, const struct rt_map *m)
{
	return rt_work(c, m->esize);
}

/* Every entry of t removed, one by one, so that a walk cut short leaves a
 * consistent table; false if it was. Time is spent on the entries there
 * are, not on the capacity. */
static bool rt_table_empty(struct rt_context *c, const struct rt_map *m, struct rt_table *t)
{
	while (t->newest >= 0) {
		if (rt_walk_overtime(c, m))
			return false;
		rt_unlink(m, t, rt_entry_at(m, t, t->newest));
	}
	/* Nothing is in use: the whole area is free again. */
	t->used = 0;
	t->free = -1;
	t->dirty = 1;
	return true;
}

/* --- membership and deletion (every table of a statistics array) --- */

static bool rt_table_has(struct rt_context *c, const struct rt_map *m, const struct rt_table *t,
			 const struct rt_key *k, int star, u32 h)
{
	s32 i;

	if (!star)
		return rt_lookup(m, t, k, h) != NULL;
	for (i = t->oldest; i >= 0 && !rt_walk_overtime(c, m);) {
		struct rt_entry *e = rt_entry_at(m, t, i);

		if (rt_keys_match(m, e, k, star))
			return true;
		i = e->newer;
	}
	return false;
}

rt_long rt_map_exists(struct rt_context *c, struct rt_map *m, const struct rt_key *k, int star)
{
	u32 h = star ? 0 : rt_hash(m, k);
	int cpu;

	if (!m->cpu)
		return rt_table_has(c, m, m->table, k, star, h);
	for_each_possible_cpu(cpu)
		if (c->error || rt_table_has(c, m, m->cpu[cpu], k, star, h))
			return !c->error;
	return 0;
}

static void rt_table_delete(struct rt_context *c, const struct rt_map *m, struct rt_table *t,
			    const struct rt_key *k, int star, u32 h)
{
	s32 i;

	if (!star) {
		struct rt_entry *e = rt_lookup(m, t, k, h);

		if (e)
			rt_unlink(m, t, e);
		t->dirty = 1;
		return;
	}
	for (i = t->oldest; i >= 0 && !rt_walk_overtime(c, m);) {
		struct rt_entry *e = rt_entry_at(m, t, i);

		i = e->newer;
		if (rt_keys_match(m, e, k, star))
			rt_unlink(m, t, e);
	}
	t->dirty = 1;
}

void rt_map_delete(struct rt_context *c, struct rt_map *m, const struct rt_key *k, int star)
{
	u32 h = star ? 0 : rt_hash(m, k);
	int cpu;

	rt_table_delete(c, m, m->table, k, star, h);
	if (m->cpu)
		for_each_possible_cpu(cpu)
			if (!c->error)
				rt_table_delete(c, m, m->cpu[cpu], k, star, h);
}

void rt_map_clear(struct rt_context *c, struct rt_map *m)
{
	int cpu;

	if (!rt_table_empty(c, m, m->table) || !m->cpu)
		return;
	for_each_possible_cpu(cpu)
		if (!rt_table_empty(c, m, m->cpu[cpu]))
			return;
}

/* --- statistics --- */

void rt_map_add(struct rt_context *c, struct rt_map *m, const struct rt_key *k, rt_long v,
		const char *loc)
{
	struct rt_table *t = m->cpu[smp_processor_id()];
	struct rt_entry *e = rt_find_or_insert(c, m, t, k, loc);

	if (!e)
		return;
	rt_stat_add_value(&m->d->stat, rt_value(m, e), v);
	t->dirty = 1;
}

struct rt_stat *rt_map_merged_stat(struct rt_context *c, struct rt_map *m,
				   const struct rt_key *k, const struct rt_stat_desc **d,
				   const char *loc)
{
	struct rt_stat *sum = rt_stat_scratch(c);
	u32 h = rt_hash(m, k);
	int cpu;

	*d = &m->d->stat;
	rt_stat_clear(*d, sum);
	for_each_possible_cpu(cpu) {
		struct rt_entry *e = rt_lookup(m, m->cpu[cpu], k, h);

		if (e)
			rt_stat_merge(*d, sum, rt_value(m, e));
	}
	return sum;
}

rt_long rt_map_stat(struct rt_context *c, struct rt_map *m, const struct rt_key *k,
		    enum rt_agg agg, const char *loc)
{
	const struct rt_stat_desc *d;
	struct rt_stat *st = rt_map_merged_stat(c, m, k, &d, loc);

	return rt_stat_value(c, d, st, agg, "aggregate element not found", loc);
}

/* The CPUs' tables merged into m->table, if any changed; false when the
 * union does not fit. */
static bool rt_map_merge(struct rt_context *c, struct rt_map *m, const char *loc)
{
	bool dirty = false;
	int cpu;

	for_each_possible_cpu(cpu)
		dirty |= m->cpu[cpu]->dirty;
	if (!dirty)
		return true;
	/* Cut short, the CPUs' tables stay dirty: the next merge starts again. */
	if (!rt_table_empty(c, m, m->table))
		return false;
	for_each_possible_cpu(cpu) {
		struct rt_table *t = m->cpu[cpu];
		s32 i;

		for (i = t->oldest; i >= 0;) {
			struct rt_entry *e = rt_entry_at(m, t, i), *into;
			struct rt_key k[9];
			int j;

			i = e->newer;
			if (rt_walk_overtime(c, m))
				return false;
			for (j = 0; j < m->d->nkeys; j++) {
				k[j].s = rt_key_str(m, e, j);
				k[j].n = *rt_key_long(m, e, j);
			}
			into = rt_lookup(m, m->table, k, e->hash);
			if (!into)
				into = rt_insert(m, m->table, k, e->hash);
			if (!into) {
				rt_failf(c, loc,
					 "raise the limit with -D MAXMAPENTRIES=N, or declare a larger size",
					 "aggregation overflow: the CPUs' copies of array '%s' hold more than %d entries together",
					 m->d->name, m->d->capacity);
				return false;
			}
			rt_stat_merge(&m->d->stat, rt_value(m, into), rt_value(m, e));
		}
	}
	for_each_possible_cpu(cpu)
		m->cpu[cpu]->dirty = 0;
	return true;
}

/* --- foreach --- */

struct rt_sort {
	const struct rt_map *m;
	int sort_by, dir, value_str;
};

static int rt_slot_cmp(const struct rt_sort *s, const struct rt_slot *a, const struct rt_slot *b)
{
	int r = 0;

	if (s->sort_by >= 0) {
		if (s->m->d->key_kinds[s->sort_by] == RT_STRING)
			r = strcmp(rt_key_str(s->m, a->e, s->sort_by),
				   rt_key_str(s->m, b->e, s->sort_by));
		else
			r = a->v < b->v ? -1 : a->v > b->v;
	} else if (s->value_str) {
		r = strcmp(rt_value(s->m, a->e), rt_value(s->m, b->e));
	} else {
		r = a->v < b->v ? -1 : a->v > b->v;
	}
	r = r < 0 ? -s->dir : r > 0 ? s->dir : 0;
	if (r)
		return r;
	/* Equal: the order of insertion. */
	return a->e->seq < b->e->seq ? -1 : a->e->seq > b->e->seq;
}

static void rt_sift(const struct rt_sort *s, struct rt_slot *v, long root, long n)
{
	for (;;) {
		long child = 2 * root + 1;
		struct rt_slot tmp;

		if (child >= n)
			return;
		if (child + 1 < n && rt_slot_cmp(s, &v[child], &v[child + 1]) < 0)
			child++;
		if (rt_slot_cmp(s, &v[root], &v[child]) >= 0)
			return;
		tmp = v[root];
		v[root] = v[child];
		v[child] = tmp;
		root = child;
	}
}

/* Heapsort: no recursion and no memory beyond the slots. Gives up
 * (the hit has failed) if the hit runs too long meanwhile. */
static void rt_sort_slots(struct rt_context *c, const struct rt_sort *s, struct rt_slot *v,
			  long n)
{
	/* A sift compares along a path of up to log2(n) entries. */
	unsigned long cost = (unsigned long)s->m->esize * (ilog2(n | 1) + 1);
	long i;

	for (i = n / 2 - 1; i >= 0; i--)
		if (!rt_work(c, cost))
			rt_sift(s, v, i, n);
		else
			return;
	for (i = n - 1; i > 0 && !rt_work(c, cost); i--) {
		struct rt_slot tmp = v[0];

		v[0] = v[i];
		v[i] = tmp;
		rt_sift(s, v, 0, i);
	}
}

void rt_iter_begin(struct rt_context *c, struct rt_iter *it, struct rt_map *m, int sort_by,
		   int dir, enum rt_agg agg, const struct rt_key *slice, int star, rt_long limit,
		   const char *loc)
{
	struct rt_table *t = m->table;
	struct rt_slot *slots;
	struct rt_sort s = { m, sort_by, dir, 0 };
	s32 i;
	long n = 0;

	memset(it, 0, sizeof(*it));
	it->map = m;
	it->table = t;
	it->next = -1;
	it->left = limit;
	it->mark = c->iter_top;
	it->slice = slice;
	it->star = slice ? star : -1;
	if (m->cpu && m->fold) {
		/* The exclusive lock is held: every CPU's table may be folded. */
		int cpu;

		for_each_possible_cpu(cpu)
			rt_table_fold_new(m, m->cpu[cpu]);
	}
	if (m->cpu && !rt_map_merge(c, m, loc))
		return;
	if (dir == 0) {
		it->next = t->oldest;
		return;
	}
	if (t->count > (long)(rt_cpu_iter_room(c) - c->iter_top)) {
		rt_failf(c, loc, NULL,
			 "too many sorted foreach loops are open at once: %ld entries of array '%s' do not fit in the %lu left",
			 (long)t->count, m->d->name, (unsigned long)(rt_cpu_iter_room(c) - c->iter_top));
		return;
	}
	slots = (struct rt_slot *)rt_cpu_iter_slots(c) + c->iter_top;
	s.value_str = sort_by < 0 && m->d->value_kind == RT_STRING;
	for (i = t->oldest; i >= 0;) {
		struct rt_entry *e = rt_entry_at(m, t, i);

		i = e->newer;
		if (rt_walk_overtime(c, m))
			return;
		if (slice && !rt_keys_match(m, e, slice, star))
			continue;
		slots[n].e = e;
		if (sort_by >= 0)
			slots[n].v = m->d->key_kinds[sort_by] == RT_STRING ? 0 :
									     *rt_key_long(m, e, sort_by);
		else if (m->d->value_kind == RT_STATS)
			slots[n].v = rt_stat_sort_value(rt_value(m, e), agg);
		else if (m->d->value_kind == RT_LONG)
			slots[n].v = *(s64 *)rt_value(m, e);
		n++;
	}
	rt_sort_slots(c, &s, slots, n);
	if (c->error)
		return;
	c->iter_top += n;
	it->slots = slots;
	it->count = n;
}

int rt_iter_next(struct rt_context *c, struct rt_iter *it)
{
	const struct rt_map *m = it->map;
	const struct rt_table *t = it->table;

	if (c->error || it->left == 0)
		return 0;
	if (it->slots) {
		if (it->pos >= it->count)
			return 0;
		it->entry = ((struct rt_slot *)it->slots)[it->pos++].e;
	} else {
		struct rt_entry *e = NULL;

		while (it->next >= 0 && !rt_walk_overtime(c, m)) {
			e = rt_entry_at(m, t, it->next);
			it->next = e->newer;
			if (it->star < 0 || rt_keys_match(m, e, it->slice, it->star))
				break;
			e = NULL;
		}
		if (!e)
			return 0;
		it->entry = e;
	}
	if (it->left > 0)
		it->left--;
	return 1;
}

void rt_iter_end(struct rt_context *c, struct rt_iter *it)
{
	c->iter_top = it->mark;
}

rt_long rt_iter_key_long(const struct rt_iter *it, int i)
{
	return *rt_key_long(it->map, it->entry, i);
}

const char *rt_iter_key_str(const struct rt_iter *it, int i)
{
	return rt_key_str(it->map, it->entry, i);
}

rt_long rt_iter_value_long(const struct rt_iter *it)
{
	return *(s64 *)rt_value(it->map, it->entry);
}

const char *rt_iter_value_str(const struct rt_iter *it)
{
	return rt_value(it->map, it->entry);
}
