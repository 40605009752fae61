// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * User stacks in the relayed output (doc/ustack.md): staprun takes the
 * runtime's sample and map records out of the stream, unwinds each sample
 * as it comes (unwind.c), and replaces each token the script printed with
 * that sample's frames in the token's form.
 *
 * Equal stacks are one stack: a sample whose frames (each its file and
 * offset in it) equal an earlier sample's is an alias of that sample, the
 * first to have them. Frames are named once per stack, when it is first
 * seen, while the process's files are at hand. For a script that keeps
 * stacks as array keys, the aliases go back to the module (the `ustack`
 * file), which folds keys naming an alias onto its stack's first sample
 * before an array is walked: `s[ubacktrace()] <<< 1` counts per stack.
 */
#include "staprun.h"
#include "unwind.h"
#include "contract/linetable.h"

#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* One named entry of a frame (a frame in inlined code has several). */
struct sr_name {
	char *text;     /* the name, or NULL */
	char *module;   /* the file's base name, or NULL */
	char *path;     /* the file, or NULL */
	uint64_t offset, size;
	char *src;      /* source file, or NULL */
	int line;
	bool inlined, replaced;
};

/* A code address, named once however many samples pass through it. */
struct sr_place {
	uint64_t file, rel;     /* identity (unwind.c) */
	bool return_addr;
	struct sr_name *names;
	int nnames;
	struct sr_place *chain;
};

struct sr_frame {
	uint64_t pc;
	uint64_t file, rel;
	struct sr_name *names;  /* its place's */
	int nnames;
};

/* A distinct stack: the first sample that had it. */
struct sr_stack {
	uint64_t id;
	uint64_t hash;
	struct sr_frame *frames;
	int n;
	bool cut, addr_only;
	char *note;
	uint32_t maxustack, copied;     /* bytes asked for, bytes copied */
	bool page_cut;                  /* a page was not present */
	struct sr_stack *chain;
};

/* A sample: its stack, and its own addresses when they differ. */
struct sr_sample {
	uint64_t id;
	struct sr_stack *stack;
	uint64_t *pcs;          /* NULL: the stack's */
	struct sr_sample *chain;
};

#define SR_BUCKETS 65536
/* The largest record the runtime writes: a sample of MAXUSTACK at most 64 KiB. */
#define SR_RECORD_MAX (sizeof(struct rt_us_sample) + 65536 + 4096)

struct sr_ustacks {
	struct sr_unwinder *u;
	uint64_t cookie;        /* records carry it (ctl's ustack_cookie) */
	bool keys;
	int maxframes;
	int alias_fd;
	char name[64];          /* the module's */
	unsigned char *pend;    /* bytes not parsed yet (a record or token cut by a read) */
	size_t npend, pend_cap;
	struct sr_stack *stacks[SR_BUCKETS];
	struct sr_place *places[SR_BUCKETS];
	struct sr_sample *samples[SR_BUCKETS];
	uint64_t (*aliases)[2];
	size_t naliases, aliases_cap;
	unsigned long long nsamples, nstacks;
	struct sr_unwind_result r;
	struct sr_sym syms[32];
	/* Kernel source lines (RT_K_* tokens): the module's table, and where
	 * the running kernel's _text is (0: unknown, lines print as hex). */
	const struct lt_table *klines;
	uint64_t ktext;
	/* A sample whose mappings are still to come (RT_US_PENDING) holds the
	 * output from it on, unparsed in pend, until they came. */
	double hold_since;      /* when the hold began; 0: none */
	size_t ahead;           /* bytes after the held sample looked through */
	bool draining;          /* the end of the output: hold nothing */
	uint64_t given_up[64];  /* tgid << 32 | gen of mappings waited for too long */
	unsigned int ngiven_up;
};

/* How long output waits for the mappings of a sample taken in the kernel
 * (the module's worker sends them within tens of milliseconds), and how
 * much of it is held meanwhile. */
#define SR_HOLD_SECONDS 5.0
#define SR_HOLD_BYTES ((size_t)64 << 20)

struct sr_ustacks *sr_ustacks_new(const char *mode, const char *name)
{
	struct sr_ustacks *us = calloc(1, sizeof(*us));
	char path[128];

	if (!us)
		return NULL;
	us->u = sr_unwinder_new();
	if (!us->u) {
		free(us);
		return NULL;
	}
	us->keys = !strncmp(mode, "keys", 4);
	us->maxframes = 32;
	const char *comma = strchr(mode, ',');
	if (comma && atoi(comma + 1) > 0)
		us->maxframes = atoi(comma + 1);
	us->alias_fd = -1;
	if (name)
		snprintf(us->name, sizeof(us->name), "%s", name);
	if (us->keys && name) {
		snprintf(path, sizeof(path), SR_PROC_DIR "/tapline_%s/ustack", name);
		us->alias_fd = open(path, O_WRONLY | O_CLOEXEC);
	}
	return us;
}

static void sr_place_free(struct sr_place *pl)
{
	for (int k = 0; k < pl->nnames; k++) {
		free(pl->names[k].text);
		free(pl->names[k].module);
		free(pl->names[k].path);
		free(pl->names[k].src);
	}
	free(pl->names);
	free(pl);
}

static void sr_stack_free(struct sr_stack *st)
{
	free(st->frames);
	free(st->note);
	free(st);
}

void sr_ustacks_set_cookie(struct sr_ustacks *us, uint64_t cookie)
{
	us->cookie = cookie;
}

/* The running kernel's _text, from the first lines of /proc/kallsyms
 * (it comes among the first symbols; root sees real addresses); 0 if not
 * there. */
static uint64_t sr_kernel_text(void)
{
	FILE *f = fopen("/proc/kallsyms", "re");
	char line[256];
	uint64_t addr = 0;
	int n = 0;

	if (!f)
		return 0;
	while (n++ < 100000 && fgets(line, sizeof(line), f)) {
		unsigned long long a;
		char type, name[200];

		if (sscanf(line, "%llx %c %199s", &a, &type, name) == 3 && !strcmp(name, "_text")) {
			addr = a;
			break;
		}
	}
	fclose(f);
	return addr;
}

void sr_ustacks_set_klines(struct sr_ustacks *us, const struct lt_table *t)
{
	us->klines = t;
	us->ktext = sr_kernel_text();
}

void sr_ustacks_free(struct sr_ustacks *us)
{
	if (!us)
		return;
	for (size_t b = 0; b < SR_BUCKETS; b++) {
		for (struct sr_stack *st = us->stacks[b], *next; st; st = next) {
			next = st->chain;
			sr_stack_free(st);
		}
		for (struct sr_sample *s = us->samples[b], *next; s; s = next) {
			next = s->chain;
			free(s->pcs);
			free(s);
		}
		for (struct sr_place *pl = us->places[b], *next; pl; pl = next) {
			next = pl->chain;
			sr_place_free(pl);
		}
	}
	if (us->alias_fd >= 0)
		close(us->alias_fd);
	sr_unwinder_free(us->u);
	free(us->aliases);
	free(us->pend);
	free(us);
}

static char *sr_dup(const char *s)
{
	return s ? strdup(s) : NULL;
}

static uint64_t sr_mix(uint64_t h, uint64_t v)
{
	h ^= v;
	h *= 0x100000001b3ull;
	return h ^ (h >> 29);
}

static struct sr_sample *sr_sample_find(struct sr_ustacks *us, uint64_t id)
{
	for (struct sr_sample *s = us->samples[id % SR_BUCKETS]; s; s = s->chain)
		if (s->id == id)
			return s;
	return NULL;
}

/* Frame i of the unwind result: its place, named the first time. */
static struct sr_place *sr_place(struct sr_ustacks *us, int i, uint64_t file, uint64_t rel)
{
	const struct sr_unwind_result *r = &us->r;
	bool ret = r->return_addr[i];
	uint64_t h = sr_mix(sr_mix(sr_mix(0x9e3779b97f4a7c15ull, file), rel), ret);
	struct sr_place *pl;
	int k;

	/* Only a frame in a file has a place of its own. */
	for (pl = file ? us->places[h % SR_BUCKETS] : NULL; pl; pl = pl->chain)
		if (pl->file == file && pl->rel == rel && pl->return_addr == ret)
			return pl;
	pl = calloc(1, sizeof(*pl));
	if (!pl)
		return NULL;
	k = sr_symbolize(r, i, us->syms, (int)(sizeof(us->syms) / sizeof(us->syms[0])));
	pl->file = file;
	pl->rel = rel;
	pl->return_addr = ret;
	pl->names = calloc((size_t)k, sizeof(*pl->names));
	if (pl->names)
		pl->nnames = k;
	for (int j = 0; j < pl->nnames; j++) {
		pl->names[j] = (struct sr_name){ .text = sr_dup(us->syms[j].name),
						 .module = sr_dup(us->syms[j].module),
						 .path = sr_dup(us->syms[j].file),
						 .offset = us->syms[j].offset,
						 .size = us->syms[j].size,
						 .src = sr_dup(us->syms[j].src),
						 .line = us->syms[j].line,
						 .inlined = us->syms[j].inlined,
						 .replaced = us->syms[j].replaced };
		/* A versioned symbol's name without its version ("@@GLIBC_2.34"). */
		char *at = pl->names[j].text ? strchr(pl->names[j].text, '@') : NULL;
		if (at && at != pl->names[j].text)
			*at = 0;
	}
	/* An address in no file is named afresh each time (and freed with
	 * its stack's place list all the same). */
	pl->chain = us->places[h % SR_BUCKETS];
	us->places[h % SR_BUCKETS] = pl;
	return pl;
}

/* The stack r unwound to: found among those seen, or named and added. */
static struct sr_stack *sr_intern(struct sr_ustacks *us, uint64_t id, const struct rt_us_sample *s)
{
	struct sr_unwind_result *r = &us->r;
	uint64_t file[SR_MAX_FRAMES], rel[SR_MAX_FRAMES], h = 0xcbf29ce484222325ull;
	struct sr_stack *st;

	for (int i = 0; i < r->n; i++) {
		sr_frame_identity(r, i, &file[i], &rel[i]);
		h = sr_mix(sr_mix(h, file[i]), rel[i]);
	}
	h = sr_mix(h, (uint64_t)r->n << 2 | r->cut << 1 | r->addr_only);
	for (st = us->stacks[h % SR_BUCKETS]; st; st = st->chain) {
		bool same = st->hash == h && st->n == r->n && st->cut == r->cut &&
			    st->addr_only == r->addr_only;

		for (int i = 0; same && i < r->n; i++)
			same = st->frames[i].file == file[i] && st->frames[i].rel == rel[i];
		if (same)
			return st;
	}
	st = calloc(1, sizeof(*st));
	if (!st)
		return NULL;
	st->frames = calloc((size_t)r->n, sizeof(*st->frames));
	if (!st->frames) {
		free(st);
		return NULL;
	}
	st->id = id;
	st->hash = h;
	st->n = r->n;
	st->cut = r->cut;
	st->addr_only = r->addr_only;
	st->note = sr_dup(r->note);
	st->maxustack = s->stack_max;
	st->copied = s->stack_len;
	st->page_cut = s->flags & RT_US_CUT;
	for (int i = 0; i < r->n; i++) {
		struct sr_frame *f = &st->frames[i];
		struct sr_place *pl = sr_place(us, i, file[i], rel[i]);

		f->pc = r->pcs[i];
		f->file = file[i];
		f->rel = rel[i];
		if (pl) {
			f->names = pl->names;
			f->nnames = pl->nnames;
		}
	}
	st->chain = us->stacks[h % SR_BUCKETS];
	us->stacks[h % SR_BUCKETS] = st;
	us->nstacks++;
	return st;
}

static void sr_alias(struct sr_ustacks *us, uint64_t id, uint64_t canon)
{
	if (!us->keys || us->alias_fd < 0 || id == canon)
		return;
	if (us->naliases == us->aliases_cap) {
		size_t cap = us->aliases_cap ? 2 * us->aliases_cap : 256;
		void *more = realloc(us->aliases, cap * sizeof(*us->aliases));

		if (!more)
			return;
		us->aliases = more;
		us->aliases_cap = cap;
	}
	us->aliases[us->naliases][0] = id;
	us->aliases[us->naliases][1] = canon;
	us->naliases++;
}

static void sr_take_sample(struct sr_ustacks *us, const unsigned char *p, size_t len)
{
	struct rt_us_sample s;
	struct sr_sample *sm;
	struct sr_stack *st;

	if (len < sizeof(s))
		return;
	memcpy(&s, p, sizeof(s));
	if (s.stack_len > len - sizeof(s) || sr_sample_find(us, s.id))
		return;
	sr_unwind(us->u, &s, p + sizeof(s), &us->r);
	st = sr_intern(us, s.id, &s);
	sm = calloc(1, sizeof(*sm));
	if (!st || !sm) {
		free(sm);
		return;
	}
	sm->id = s.id;
	sm->stack = st;
	/* Another process with the same stack has it at other addresses. */
	for (int i = 0; i < us->r.n && i < st->n; i++)
		if (us->r.pcs[i] != st->frames[i].pc) {
			sm->pcs = malloc(sizeof(*sm->pcs) * (size_t)st->n);
			if (sm->pcs)
				memcpy(sm->pcs, us->r.pcs, sizeof(*sm->pcs) * (size_t)st->n);
			break;
		}
	sm->chain = us->samples[s.id % SR_BUCKETS];
	us->samples[s.id % SR_BUCKETS] = sm;
	us->nsamples++;
	sr_alias(us, s.id, st->id);
}

static void sr_take_map(struct sr_ustacks *us, const unsigned char *p, size_t len)
{
	struct rt_us_map m;

	if (len < sizeof(m))
		return;
	memcpy(&m, p, sizeof(m));
	if (m.path_len > len - sizeof(m) || m.path_len > 4096)
		return;
	sr_unwinder_map(us->u, &m, (const char *)p + sizeof(m), m.path_len);
}

/* --- tokens into text --- */

struct sr_text {
	char *s;
	size_t n, cap;
};

static void sr_put(struct sr_text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sr_put(struct sr_text *t, const char *fmt, ...)
{
	va_list ap;
	int k;

	for (;;) {
		va_start(ap, fmt);
		k = vsnprintf(t->s + t->n, t->cap - t->n, fmt, ap);
		va_end(ap);
		if (k < 0)
			return;
		if ((size_t)k < t->cap - t->n) {
			t->n += (size_t)k;
			return;
		}
		size_t cap = t->cap * 2 + (size_t)k + 256;
		char *more = realloc(t->s, cap);
		if (!more)
			return;
		t->s = more;
		t->cap = cap;
	}
}

static void sr_append(struct sr_text *t, const void *s, size_t n)
{
	if (t->n + n > t->cap) {
		size_t cap = t->cap * 2 + n + 256;
		char *more = realloc(t->s, cap);

		if (!more)
			return;
		t->s = more;
		t->cap = cap;
	}
	memcpy(t->s + t->n, s, n);
	t->n += n;
}

static void sr_name_brief(struct sr_text *t, const struct sr_name *nm, uint64_t pc)
{
	if (nm->text && nm->inlined)
		sr_put(t, "%s", nm->text);
	else if (nm->text)
		sr_put(t, "%s+0x%llx", nm->text, (unsigned long long)nm->offset);
	else if (nm->module)
		sr_put(t, "0x%llx", (unsigned long long)pc);
	else
		sr_put(t, "0x%llx", (unsigned long long)pc);
}

static void sr_format(struct sr_ustacks *us, struct sr_text *t, char kind, uint64_t id, int skip,
		      int count)
{
	struct sr_sample *sm = id ? sr_sample_find(us, id) : NULL;
	struct sr_stack *st = sm ? sm->stack : NULL;
	int first = skip, last, shown = 0;

	if (!st) {
		/* A sample that was dropped, or none (no user context). */
		if (kind == RT_US_FOLDED)
			sr_put(t, "[no user stack]");
		return;
	}
	last = count ? skip + count : st->n;
	if (last > st->n)
		last = st->n;
	if (last - first > us->maxframes)
		last = first + us->maxframes;
	if (kind == RT_US_FILELINE || kind == RT_US_FILE || kind == RT_US_LINE) {
		const struct sr_name *nm = st->n && st->frames[0].nnames ? &st->frames[0].names[0] : NULL;
		uint64_t pc = sm->pcs ? sm->pcs[0] : st->frames[0].pc;

		if (nm && nm->src && kind == RT_US_FILE)
			sr_put(t, "%s", nm->src);
		else if (nm && nm->src && kind == RT_US_LINE)
			sr_put(t, "%d", nm->line);
		else if (nm && nm->src)
			sr_put(t, "%s:%d", nm->src, nm->line);
		else
			sr_put(t, "0x%llx", (unsigned long long)pc);
		return;
	}
	if (kind == RT_US_FOLDED) {
		for (int i = last - 1; i >= first; i--) {
			const struct sr_frame *f = &st->frames[i];

			for (int k = f->nnames - 1; k >= 0; k--) {
				const struct sr_name *nm = &f->names[k];

				sr_put(t, "%s", shown++ ? ";" : "");
				if (nm->text)
					sr_put(t, "%s", nm->text);
				else if (nm->module)
					sr_put(t, "[%s]", nm->module);
				else
					sr_put(t, "[unknown]");
			}
		}
		return;
	}
	for (int i = first; i < last; i++) {
		const struct sr_frame *f = &st->frames[i];
		uint64_t pc = sm->pcs ? sm->pcs[i] : f->pc;

		if (kind == RT_US_ADDRS) {
			sr_put(t, "%s0x%llx", i > first ? " " : "", (unsigned long long)pc);
			continue;
		}
		for (int k = 0; k < f->nnames; k++) {
			const struct sr_name *nm = &f->names[k];

			if (kind == RT_US_BRIEF || kind == RT_US_NAMES) {
				sr_name_brief(t, nm, pc);
				if (nm->module && kind == RT_US_BRIEF)
					sr_put(t, " [%s]", nm->module);
				sr_put(t, "%s\n", nm->inlined ? " (inlined)" : "");
				continue;
			}
			sr_put(t, " 0x%llx : ", (unsigned long long)pc);
			if (kind == RT_US_FILELINES && nm->src && !nm->replaced) {
				if (nm->text && nm->inlined)
					sr_put(t, "%s (inlined)", nm->text);
				else if (nm->text)
					sr_put(t, "%s+0x%llx/0x%llx", nm->text,
					       (unsigned long long)nm->offset,
					       (unsigned long long)nm->size);
				else
					sr_put(t, "0x%llx", (unsigned long long)nm->offset);
				sr_put(t, " at %s:%d [%s]\n", nm->src, nm->line, nm->path);
			} else if (nm->replaced)
				sr_put(t, "? [%s: replaced on disk since it was mapped]\n", nm->path);
			else if (nm->text && nm->inlined)
				sr_put(t, "%s (inlined) [%s]\n", nm->text, nm->path);
			else if (nm->text)
				sr_put(t, "%s+0x%llx/0x%llx [%s]\n", nm->text,
				       (unsigned long long)nm->offset, (unsigned long long)nm->size,
				       nm->path);
			else if (nm->path && nm->offset)
				sr_put(t, "0x%llx [%s]\n", (unsigned long long)nm->offset, nm->path);
			else if (nm->path)
				sr_put(t, "? [%s]\n", nm->path);
			else
				sr_put(t, "?\n");
		}
	}
	if ((kind == RT_US_LINES || kind == RT_US_FILELINES) && last == st->n && st->cut &&
	    st->page_cut)
		sr_put(t, " (the stack copy ends here: the page after its %u bytes was not present)\n",
		       st->copied);
	else if ((kind == RT_US_LINES || kind == RT_US_FILELINES) && last == st->n && st->cut &&
		 st->copied < st->maxustack)
		sr_put(t, " (the stack copy ends here: the output buffer had room for %u bytes)\n",
		       st->copied);
	else if ((kind == RT_US_LINES || kind == RT_US_FILELINES) && last == st->n && st->cut)
		sr_put(t, " (the %u bytes of stack copied end here: -D MAXUSTACK=N copies more)\n",
		       st->maxustack);
	else if ((kind == RT_US_LINES || kind == RT_US_FILELINES) && last == st->n && st->note)
		sr_put(t, " (no further frames: %s)\n", st->note);
}

/* A kernel address's source line in the form of kind (RT_K_*). */
static void sr_format_kline(struct sr_ustacks *us, struct sr_text *t, char kind, uint64_t addr,
			    int flags)
{
	const char *file = NULL;
	int line = 0;
	uint64_t at = addr - ((flags & RT_K_RETURN) ? 1 : 0);
	bool known = us->klines && us->ktext && at >= us->ktext &&
		     !lt_lookup(us->klines, at - us->ktext, &file, &line);

	if (kind == RT_K_AT) {
		if (known)
			sr_put(t, " at %s:%d", file, line);
	} else if (!known)
		sr_put(t, "0x%llx", (unsigned long long)addr);
	else if (kind == RT_K_FILE)
		sr_put(t, "%s", file);
	else if (kind == RT_K_LINE)
		sr_put(t, "%d", line);
	else
		sr_put(t, "%s:%d", file, line);
}

static int sr_hexval(const unsigned char *s, int n, uint64_t *v)
{
	*v = 0;
	for (int i = 0; i < n; i++) {
		int c = s[i], d;

		if (c >= '0' && c <= '9')
			d = c - '0';
		else if (c >= 'a' && c <= 'f')
			d = c - 'a' + 10;
		else
			return -1;
		*v = *v << 4 | (uint64_t)d;
	}
	return 0;
}

/* Send the aliases gathered so far to the module. */
static void sr_flush_aliases(struct sr_ustacks *us)
{
	size_t done = 0;

	while (us->alias_fd >= 0 && done < us->naliases) {
		/* At most 4096 pairs a write (the module takes each write whole). */
		size_t k = us->naliases - done < 4096 ? us->naliases - done : 4096;
		ssize_t w = write(us->alias_fd, us->aliases + done, k * sizeof(*us->aliases));

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			break;
		done += k;
	}
	us->naliases = 0;
}

static double sr_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The module's record at p[i] (len bytes there): its header and whole
 * size, 0 when it is not one (text), SIZE_MAX when it is cut by the end. */
static size_t sr_record_at(const struct sr_ustacks *us, const unsigned char *p, size_t len,
			   size_t i, struct rt_us_header *h)
{
	if (p[i] != RT_US_MARK)
		return 0;
	if (len - i < 2)
		return SIZE_MAX;
	if (p[i + 1] != RT_US_SAMPLE && p[i + 1] != RT_US_MAP)
		return 0;
	if (len - i < sizeof(*h))
		return SIZE_MAX;
	memcpy(h, p + i, sizeof(*h));
	/* Only the module's own records; anything else is text. */
	if (h->cookie != us->cookie || h->len > SR_RECORD_MAX)
		return 0;
	return len - i < sizeof(*h) + h->len ? SIZE_MAX : sizeof(*h) + h->len;
}

static bool sr_given_up(const struct sr_ustacks *us, uint32_t tgid, uint32_t gen)
{
	uint64_t key = (uint64_t)tgid << 32 | gen;

	for (unsigned int k = 0; k < us->ngiven_up && k < 64; k++)
		if (us->given_up[k] == key)
			return true;
	return false;
}

/*
 * A sample at p[at] whose process's mappings are still to come: take the
 * map records of its generation from the output after it (*len bytes
 * in all), out of their place, until its last one. True when they have all
 * come; false: hold the output from the sample on.
 */
static bool sr_pull_gen(struct sr_ustacks *us, unsigned char *p, size_t *len, size_t at,
			size_t size, const struct rt_us_sample *s)
{
	size_t i = at + size + us->ahead;

	while (i < *len) {
		struct rt_us_header h;
		struct rt_us_map m;
		size_t n = sr_record_at(us, p, *len, i, &h);

		if (n == SIZE_MAX)
			break;
		if (!n) {
			i++;
			continue;
		}
		if (h.kind != RT_US_MAP || h.len < sizeof(m)) {
			i += n;
			continue;
		}
		memcpy(&m, p + i + sizeof(h), sizeof(m));
		if (m.tgid != s->tgid || m.gen != s->gen) {
			i += n;
			continue;
		}
		sr_take_map(us, p + i + sizeof(h), h.len);
		memmove(p + i, p + i + n, *len - i - n);
		*len -= n;
		if (m.flags & RT_US_LAST)
			break;
	}
	us->ahead = i - at - size;
	return sr_unwinder_has_gen(us->u, s->tgid, s->gen);
}

/* Whether the sample record at p[at] waits for its mappings. */
static bool sr_must_hold(struct sr_ustacks *us, unsigned char *p, size_t *len, size_t at,
			 size_t size)
{
	struct rt_us_sample s;

	if (size < sizeof(struct rt_us_header) + sizeof(s))
		return false;
	memcpy(&s, p + at + sizeof(struct rt_us_header), sizeof(s));
	if (!(s.flags & RT_US_PENDING) || sr_unwinder_has_gen(us->u, s.tgid, s.gen) ||
	    sr_given_up(us, s.tgid, s.gen) || sr_pull_gen(us, p, len, at, size, &s)) {
		us->hold_since = 0;
		us->ahead = 0;
		return false;
	}
	if (!us->hold_since)
		us->hold_since = sr_now();
	/* Never sent (the module dropped them) or too much held: unwind with
	 * what is known. */
	if (us->draining || *len - at > SR_HOLD_BYTES || sr_now() - us->hold_since > SR_HOLD_SECONDS) {
		us->given_up[us->ngiven_up++ % 64] = (uint64_t)s.tgid << 32 | s.gen;
		us->hold_since = 0;
		us->ahead = 0;
		return false;
	}
	return true;
}

int sr_ustacks_filter(struct sr_ustacks *us, const char *buf, size_t n,
		      int (*emit)(void *ctx, const char *s, size_t n), void *ctx)
{
	struct sr_text t = { 0 };
	size_t i = 0, from = 0;
	int rc = 0;

	if (us->npend + n > us->pend_cap) {
		/* Doubling: output held for a sample's mappings grows it read by read. */
		size_t cap = 2 * us->pend_cap > us->npend + n + 65536 ? 2 * us->pend_cap
								     : us->npend + n + 65536;
		unsigned char *more = realloc(us->pend, cap);

		if (!more)
			return -1;
		us->pend = more;
		us->pend_cap = cap;
	}
	memcpy(us->pend + us->npend, buf, n);
	us->npend += n;
	unsigned char *p = us->pend;
	size_t len = us->npend;

	while (i < len) {
		if (p[i] != RT_US_MARK) {
			i++;
			continue;
		}
		if (len - i < 2)
			break;
		char kind = (char)p[i + 1];
		size_t need;
		uint64_t id, skip, count;

		if (kind == RT_US_SAMPLE || kind == RT_US_MAP) {
			struct rt_us_header h;

			need = sr_record_at(us, p, len, i, &h);
			if (need == SIZE_MAX)
				break;
			if (!need) {
				i++;
				continue;
			}
			if (i > from)
				sr_append(&t, p + from, i - from);
			from = i;
			if (kind == RT_US_SAMPLE && sr_must_hold(us, p, &len, i, need))
				break;
			if (kind == RT_US_SAMPLE)
				sr_take_sample(us, p + i + sizeof(h), h.len);
			else
				sr_take_map(us, p + i + sizeof(h), h.len);
			i += need;
			from = i;
			continue;
		}
		/* A token: a user stack's, or a kernel address's source line. */
		if (rt_us_token_kind(kind) || rt_k_token_kind(kind)) {
			if (len - i < RT_US_TOKEN_LEN)
				break;
			if (!sr_hexval(p + i + 2, 16, &id) && !sr_hexval(p + i + 18, 2, &skip) &&
			    !sr_hexval(p + i + 20, 2, &count)) {
				if (i > from)
					sr_append(&t, p + from, i - from);
				if (rt_k_token_kind(kind))
					sr_format_kline(us, &t, kind, id, (int)skip);
				else
					sr_format(us, &t, kind, id, (int)skip, (int)count);
				i += RT_US_TOKEN_LEN;
				from = i;
				continue;
			}
		}
		i++; /* a byte the script printed itself */
	}
	if (i > from)
		sr_append(&t, p + from, i - from);
	memmove(us->pend, p + i, len - i);
	us->npend = len - i;
	if (us->keys)
		sr_flush_aliases(us);
	if (t.n)
		rc = emit(ctx, t.s, t.n);
	free(t.s);
	return rc;
}

/*
 * After `quiesce`, with every sample taken: the module says which samples
 * its arrays' keys still name, and gets the alias of each that has one;
 * it folds every array with them before the end probes.
 */
void sr_ustacks_final(struct sr_ustacks *us)
{
	uint64_t *ids = NULL;
	size_t n = 0, cap = 0;
	ssize_t got;
	int fd;
	char path[128];

	if (!us || !us->keys || us->alias_fd < 0 || !us->name[0])
		return;
	snprintf(path, sizeof(path), SR_PROC_DIR "/tapline_%s/ustack", us->name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	for (;;) {
		if (n == cap) {
			size_t more = cap ? 2 * cap : 4096;
			uint64_t *bigger = realloc(ids, more * sizeof(*ids));

			if (!bigger)
				break;
			ids = bigger;
			cap = more;
		}
		got = read(fd, ids + n, (cap - n) * sizeof(*ids));
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		n += (size_t)got / sizeof(*ids);
	}
	close(fd);
	us->naliases = 0;
	for (size_t i = 0; i < n; i++) {
		struct sr_sample *s = sr_sample_find(us, ids[i]);

		if (s)
			sr_alias(us, s->id, s->stack->id);
		if (us->naliases >= 4096)
			sr_flush_aliases(us);
	}
	sr_flush_aliases(us);
	free(ids);
}

int sr_ustacks_release(struct sr_ustacks *us, int (*emit)(void *ctx, const char *s, size_t n),
		       void *ctx)
{
	int rc;

	us->draining = true;
	rc = sr_ustacks_filter(us, "", 0, emit, ctx);
	us->draining = false;
	return rc;
}

/* The end of the output: what is still held (the start of what looked
 * like a record or token, cut by the end) is text. */
int sr_ustacks_flush(struct sr_ustacks *us, int (*emit)(void *ctx, const char *s, size_t n),
		     void *ctx)
{
	int rc = 0;

	if (us && us->npend)
		rc = sr_ustacks_release(us, emit, ctx);
	if (us && us->npend && !rc)
		rc = emit(ctx, (const char *)us->pend, us->npend);
	if (us)
		us->npend = 0;
	return rc;
}

void sr_ustacks_counts(const struct sr_ustacks *us, unsigned long long *samples,
		       unsigned long long *stacks)
{
	*samples = us ? us->nsamples : 0;
	*stacks = us ? us->nstacks : 0;
}

unsigned long long sr_ustacks_files(const struct sr_ustacks *us)
{
	return us ? sr_unwinder_files(us->u) : 0;
}
