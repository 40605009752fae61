// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Which kernel functions a probe can be placed on. The kernel refuses a
 * kprobe outside its text (init code is freed after boot), on anything in
 * its kprobe blacklist (NOKPROBE_SYMBOL entries, and everything in the
 * .kprobes.text, .noinstr.text and entry text areas; a "name.constprop.0"
 * copy goes with "name"). Functions without an ftrace site (notrace) take
 * a kprobe, but wildcards leave them out: they are mostly code that runs
 * where a probe should not. Deciding this in pass 2 lets a wildcard expand
 * to what will actually be placed.
 *
 * The facts come from the image itself (the blacklist and the ftrace sites
 * are arrays the kernel keeps in .init.data, found through kallsyms), or,
 * for the running kernel, from its lists in debugfs and tracefs. Checked
 * against a booted Debian 6.1 guest: the blacklist derived from the image
 * is exactly the one /sys/kernel/debug/kprobes/blacklist shows.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "debuginfo/kernel.h"
#include "util.h"

struct facts {
	uint64_t text;            /* _text: offsets are from here */
	uint64_t stext, etext;    /* 0, 0: unknown */
	uint64_t sinit, einit;
	char **blacklisted;       /* sorted names; NULL: unknown */
	size_t nblacklisted;
	uint64_t *sites;          /* sorted ftrace call sites (image) */
	size_t nsites;
	const char *elf;          /* the image, to read a function's first bytes */
	size_t len;
	char **traceable;         /* sorted names (running kernel) */
	size_t ntraceable;
};

static bool is_text(char type)
{
	return type == 't' || type == 'T' || type == 'w' || type == 'W';
}

static uint64_t addr_of(const struct ksym *syms, size_t n, const char *name)
{
	const struct ksym *s = symbols_find(syms, n, name);
	return s ? s->addr : 0;
}

static int cmp_key(const void *key, const void *elem)
{
	return strcmp(key, *(char *const *)elem);
}

static bool in_names(char **names, size_t n, const char *name)
{
	return bsearch(name, names, n, sizeof(char *), cmp_key) != NULL;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static bool is_site(const struct facts *f, uint64_t at)
{
	return bsearch(&at, f->sites, f->nsites, sizeof(uint64_t), cmp_u64) != NULL;
}

/* The call to __fentry__ is a function's first instruction, or follows the
 * ENDBR64 that starts it on kernels built for indirect branch tracking. */
static bool has_site(const struct facts *f, uint64_t addr)
{
	static const unsigned char endbr64[] = { 0xf3, 0x0f, 0x1e, 0xfa };
	if (is_site(f, addr))
		return true;
	const char *code = kimage_elf_at(f->elf, f->len, addr, sizeof endbr64);
	return code && !memcmp(code, endbr64, sizeof endbr64) && is_site(f, addr + 4);
}

static enum kfunc_why classify(const struct facts *f, const struct ksym *s)
{
	if (f->einit && s->addr >= f->sinit && s->addr < f->einit)
		return KF_INIT;
	if (f->etext && (s->addr < f->stext || s->addr >= f->etext))
		return KF_NOT_TEXT;
	if (f->blacklisted) {
		if (in_names(f->blacklisted, f->nblacklisted, s->name))
			return KF_BLACKLIST;
		const char *dot = strchr(s->name, '.');
		if (dot) {
			char *base = xstrndup(s->name, (size_t)(dot - s->name));
			bool bl = in_names(f->blacklisted, f->nblacklisted, base);
			free(base);
			if (bl)
				return KF_BLACKLIST;
		}
	}
	if (f->sites && !has_site(f, s->addr))
		return KF_NOTRACE;
	if (f->traceable && !in_names(f->traceable, f->ntraceable, s->name))
		return KF_NOTRACE;
	return KF_OK;
}

/* One kfunc per text symbol name: the first copy by address decides, as the
 * kernel resolves a probe by name to that copy. */
static struct kfunc *collect(const struct ksym *syms, size_t n, const struct facts *f,
			     size_t *nfuncs)
{
	struct kfunc *funcs = xcalloc(n ? n : 1, sizeof *funcs);
	size_t count = 0;
	for (size_t i = 0; i < n;) {
		size_t j = i;
		unsigned copies = 0;
		const struct ksym *first = NULL;
		for (; j < n && !strcmp(syms[j].name, syms[i].name); j++) {
			if (!is_text(syms[j].type))
				continue;
			copies++;
			if (!first)
				first = &syms[j];
		}
		if (first) {
			struct kfunc *k = &funcs[count++];
			*k = (struct kfunc){ xstrdup(first->name), first->addr - f->text,
					     classify(f, first), copies, NULL, NULL };
			/* Every copy, so that each can be probed by its own address. */
			if (copies > 1) {
				k->offsets = xcalloc(copies, sizeof *k->offsets);
				k->whys = xcalloc(copies, sizeof *k->whys);
				unsigned c = 0;
				for (size_t m = i; m < j; m++) {
					if (!is_text(syms[m].type))
						continue;
					k->offsets[c] = syms[m].addr - f->text;
					k->whys[c++] = (unsigned char)classify(f, &syms[m]);
				}
			}
		}
		i = j;
	}
	*nfuncs = count;
	return funcs;
}

static void facts_free(struct facts *f)
{
	for (size_t i = 0; i < f->nblacklisted; i++)
		free(f->blacklisted[i]);
	free(f->blacklisted);
	free(f->sites);
	for (size_t i = 0; i < f->ntraceable; i++)
		free(f->traceable[i]);
	free(f->traceable);
}

static void ranges(struct facts *f, const struct ksym *syms, size_t n)
{
	f->text = addr_of(syms, n, "_text");
	f->stext = addr_of(syms, n, "_stext");
	f->etext = addr_of(syms, n, "_etext");
	f->sinit = addr_of(syms, n, "_sinittext");
	f->einit = addr_of(syms, n, "_einittext");
	/* Addresses hidden (kptr_restrict) or missing: no range checks. */
	if (!f->stext || f->etext <= f->stext)
		f->stext = f->etext = 0;
	if (f->einit <= f->sinit)
		f->sinit = f->einit = 0;
}

/* The u64 array between two symbols, read from the image. */
static uint64_t *read_array(const char *elf, size_t len, const struct ksym *syms, size_t n,
			    const char *start, const char *stop, size_t *count)
{
	uint64_t a = addr_of(syms, n, start), b = addr_of(syms, n, stop);
	if (!a || b < a || (b - a) % 8 || b - a > (64u << 20))
		return NULL;
	const char *data = kimage_elf_at(elf, len, a, (size_t)(b - a));
	if (!data)
		return NULL;
	*count = (size_t)(b - a) / 8;
	uint64_t *v = xmalloc((*count ? *count : 1) * sizeof *v);
	memcpy(v, data, *count * 8);
	return v;
}

static int cmp_addr_index(const void *a, const void *b, void *syms)
{
	const struct ksym *s = syms;
	uint64_t x = s[*(const size_t *)a].addr, y = s[*(const size_t *)b].addr;
	return x < y ? -1 : x > y;
}

/* Names of the text symbols at an address or in an area, into bl. */
static void blacklist_range(const struct ksym *syms, const size_t *by_addr, size_t n, uint64_t lo,
			    uint64_t hi, struct ptrvec *bl)
{
	size_t a = 0, b = n;
	while (a < b) {
		size_t mid = a + (b - a) / 2;
		if (syms[by_addr[mid]].addr < lo)
			a = mid + 1;
		else
			b = mid;
	}
	for (; a < n && syms[by_addr[a]].addr < hi; a++)
		pv_push(bl, xstrdup(syms[by_addr[a]].name));
}

struct kfunc *kfuncs_from_image(const char *elf, size_t len, const struct ksym *syms, size_t n,
				size_t *nfuncs)
{
	struct facts f = { .elf = elf, .len = len };
	ranges(&f, syms, n);

	f.sites = read_array(elf, len, syms, n, "__start_mcount_loc", "__stop_mcount_loc", &f.nsites);
	if (f.sites)
		qsort(f.sites, f.nsites, sizeof(uint64_t), cmp_u64);

	size_t nlist = 0;
	uint64_t *list = read_array(elf, len, syms, n, "__start_kprobe_blacklist",
				    "__stop_kprobe_blacklist", &nlist);
	if (list) {
		size_t ntext = 0;
		size_t *by_addr = xmalloc((n ? n : 1) * sizeof(size_t));
		for (size_t i = 0; i < n; i++)
			if (is_text(syms[i].type))
				by_addr[ntext++] = i;
		qsort_r(by_addr, ntext, sizeof(size_t), cmp_addr_index, (void *)syms);
		struct ptrvec bl = { 0 };
		for (size_t i = 0; i < nlist; i++)
			blacklist_range(syms, by_addr, ntext, list[i], list[i] + 1, &bl);
		static const char *const areas[][2] = {
			{ "__kprobes_text_start", "__kprobes_text_end" },
			{ "__noinstr_text_start", "__noinstr_text_end" },
			{ "__entry_text_start", "__entry_text_end" },
		};
		for (size_t i = 0; i < ARRAY_SIZE(areas); i++)
			blacklist_range(syms, by_addr, ntext, addr_of(syms, n, areas[i][0]),
					addr_of(syms, n, areas[i][1]), &bl);
		f.blacklisted = (char **)bl.v;
		f.nblacklisted = symbols_sort_unique(f.blacklisted, bl.n);
		if (!f.blacklisted)
			f.blacklisted = xcalloc(1, sizeof(char *));
		free(by_addr);
		free(list);
	}
	struct kfunc *funcs = collect(syms, n, &f, nfuncs);
	facts_free(&f);
	return funcs;
}

/* The first word of each line of a file, sorted; NULL if unreadable. */
static char **read_words(const char *path, int word, size_t *n)
{
	FILE *fp = fopen(path, "r");
	if (!fp)
		return NULL;
	struct ptrvec v = { 0 };
	char line[512];
	while (fgets(line, sizeof line, fp)) {
		/* Module functions ("name [module]") are not the kernel's own. */
		if (strchr(line, '['))
			continue;
		char *save = NULL, *w = strtok_r(line, " \t\n", &save);
		for (int i = 0; w && i < word; i++)
			w = strtok_r(NULL, " \t\n", &save);
		if (w)
			pv_push(&v, xstrdup(w));
	}
	fclose(fp);
	size_t count = symbols_sort_unique((char **)v.v, v.n);
	*n = count;
	return v.v ? (char **)v.v : xcalloc(1, sizeof(char *));
}

struct kfunc *kfuncs_from_running(const struct ksym *syms, size_t n, size_t *nfuncs,
				  bool *complete)
{
	struct facts f = { 0 };
	ranges(&f, syms, n);
	/* "0xSTART-0xEND\tNAME" lines. */
	f.blacklisted = read_words("/sys/kernel/debug/kprobes/blacklist", 1, &f.nblacklisted);
	f.traceable = read_words("/sys/kernel/tracing/available_filter_functions", 0, &f.ntraceable);
	if (!f.traceable)
		f.traceable = read_words("/sys/kernel/debug/tracing/available_filter_functions", 0,
					 &f.ntraceable);
	*complete = f.blacklisted && f.traceable && f.etext;
	struct kfunc *funcs = collect(syms, n, &f, nfuncs);
	facts_free(&f);
	return funcs;
}
