// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ustack_replay: staprun's user-stack code (staprun/ustack.c, unwind.c)
 * run over a module's raw output kept with TAPLINE_RAW_OUTPUT=FILE, for
 * bench/ustack.
 *
 *   ustack_replay stats RAW
 *       Count the sample and map records: "@@stats samples N unique U
 *       bytes B cut C maps M" (B: mean stack bytes copied per sample; C:
 *       samples whose copy stopped at a page not present). Runs in the
 *       guest too (static).
 *   ustack_replay prepare RAW COLD WARM PASSES
 *       Write COLD: RAW with each map record's device and inode those of
 *       the file at its path here (the guest's copy of a file has its own;
 *       staprun uses a file only if they match), so a capture from a guest
 *       that was given the host's files at their paths unwinds here; and
 *       WARM: its sample records alone, PASSES times, each pass's sample
 *       ids moved past the last pass's (staprun takes a sample id once).
 *       "@@prepare ... split OFFSET": where the second half of the
 *       samples starts in COLD.
 *   ustack_replay run COLD SPLIT WARM [OUT]
 *       One fresh sr_ustacks, as staprun's relay has: COLD read 64 KiB at
 *       a time through sr_ustacks_filter (the script's text out to OUT),
 *       its bytes before SPLIT then the rest, then WARM through the same
 *       instance, every stack already seen. "@@run first samples N stacks
 *       S cpu SECONDS wall SECONDS" (S: stacks new to the instance), the
 *       same for "second" and "warm", and "@@run maxrss KB" (peak RSS of
 *       this process, which holds only what staprun would: the files are
 *       read, not loaded).
 *   ustack_replay frames COLD
 *       Each sample unwound with sr_unwind (libdwfl, the CFI) and walked
 *       by its frame-pointer chain inside the copied stack bytes (saved
 *       rbp at [rbp], return address at [rbp+8]; it stops when the chain
 *       leaves the copy or does not go up, or when a return address is in
 *       no executable mapping of the process): "@@frames samples N dwfl F1
 *       fp F2 dwfl_start S1 fp_start S2 dwfl_more K cut C" (F: mean frames
 *       per sample; S: samples whose outermost frame is _start; K: samples
 *       where libdwfl found more frames than the walk; C: libdwfl needed
 *       stack past the copy).
 */
#include "staprun.h"
#include "unwind.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* "ustack_replay: WHAT[ ARG]", and exit 1. */
static void die(const char *what, const char *arg)
{
	fprintf(stderr, "ustack_replay: %s%s%s\n", what, arg ? " " : "", arg ? arg : "");
	exit(1);
}

static unsigned char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	unsigned char *buf = NULL;
	size_t cap = 0, n = 0, k;

	if (!f)
		die("cannot open", path);
	for (;;) {
		if (n == cap) {
			cap = cap ? 2 * cap : 1 << 20;
			buf = realloc(buf, cap);
			if (!buf)
				die("no memory for", path);
		}
		k = fread(buf + n, 1, cap - n, f);
		if (!k)
			break;
		n += k;
	}
	fclose(f);
	*len = n;
	return buf;
}

static FILE *create(const char *path)
{
	FILE *f = fopen(path, "wb");

	if (!f)
		die("cannot create", path);
	return f;
}

/*
 * The records of a raw output, in order: cb(kind, payload, len) for each
 * ('s' or 'm'). Text between them (what the script printed, tokens in it)
 * is skipped: a record starts at a mark followed by its kind and a header
 * whose length fits, as in sr_ustacks_filter.
 */
static void walk_records(unsigned char *p, size_t len,
			 void (*cb)(void *ctx, char kind, unsigned char *rec, size_t reclen,
				    unsigned char *payload, size_t plen),
			 void *ctx)
{
	size_t i = 0;

	while (i + sizeof(struct rt_us_header) <= len) {
		struct rt_us_header h;

		if (p[i] != RT_US_MARK || (p[i + 1] != RT_US_SAMPLE && p[i + 1] != RT_US_MAP)) {
			i++;
			continue;
		}
		memcpy(&h, p + i, sizeof(h));
		if (h.len > len - i - sizeof(h)) {
			i++;
			continue;
		}
		cb(ctx, (char)p[i + 1], p + i, sizeof(h) + h.len, p + i + sizeof(h), h.len);
		i += sizeof(h) + h.len;
	}
}

/* ---- stats ---- */

struct stats {
	unsigned long long samples, maps, cut, bytes, unique;
	uint64_t last_id;
};

static void stats_cb(void *ctx, char kind, unsigned char *rec, size_t reclen,
		     unsigned char *payload, size_t plen)
{
	struct stats *st = ctx;
	struct rt_us_sample s;

	(void)rec;
	(void)reclen;
	if (kind == RT_US_MAP) {
		st->maps++;
		return;
	}
	if (plen < sizeof(s))
		return;
	memcpy(&s, payload, sizeof(s));
	st->samples++;
	st->bytes += s.stack_len;
	st->cut += !!(s.flags & RT_US_CUT);
	/* The runtime numbers samples in order: a new id is a higher one. */
	if (s.id > st->last_id) {
		st->unique++;
		st->last_id = s.id;
	}
}

static int cmd_stats(const char *raw)
{
	size_t len;
	unsigned char *p = slurp(raw, &len);
	struct stats st = { 0 };

	walk_records(p, len, stats_cb, &st);
	printf("@@stats samples %llu unique %llu bytes %.0f cut %llu maps %llu\n", st.samples,
	       st.unique, st.samples ? (double)st.bytes / (double)st.samples : 0.0, st.cut,
	       st.maps);
	free(p);
	return 0;
}

/* ---- prepare ---- */

struct prepare {
	FILE *cold;
	unsigned char *samples;         /* the sample records, back to back */
	size_t nsamples_bytes, cap;
	unsigned long long nsamples, nmaps, missing;
	uint64_t max_id;
	unsigned char *base;
	size_t *starts;                 /* where each sample record starts in the capture */
	size_t starts_cap;
};

static void prepare_cb(void *ctx, char kind, unsigned char *rec, size_t reclen,
		       unsigned char *payload, size_t plen)
{
	struct prepare *pr = ctx;

	if (kind == RT_US_MAP && plen >= sizeof(struct rt_us_map)) {
		struct rt_us_map m;
		char path[4096];
		struct stat st;

		memcpy(&m, payload, sizeof(m));
		pr->nmaps++;
		if (m.path_len && m.path_len < sizeof(path) && m.path_len <= plen - sizeof(m)) {
			memcpy(path, payload + sizeof(m), m.path_len);
			path[m.path_len] = 0;
			if (stat(path, &st) == 0) {
				m.dev = (uint64_t)st.st_dev;
				m.ino = (uint64_t)st.st_ino;
				m.size = (uint64_t)st.st_size;
				memcpy(payload, &m, sizeof(m));
			} else {
				pr->missing++;
				fprintf(stderr, "ustack_replay: %s (mapped in the guest) is not here\n",
					path);
			}
		}
	}
	if (kind == RT_US_SAMPLE && plen >= sizeof(struct rt_us_sample)) {
		struct rt_us_sample s;

		memcpy(&s, payload, sizeof(s));
		if (s.id > pr->max_id)
			pr->max_id = s.id;
		if (pr->nsamples_bytes + reclen > pr->cap) {
			pr->cap = 2 * pr->cap + reclen + (1 << 20);
			pr->samples = realloc(pr->samples, pr->cap);
			if (!pr->samples)
				die("no memory", NULL);
		}
		if (pr->nsamples == pr->starts_cap) {
			pr->starts_cap = pr->starts_cap ? 2 * pr->starts_cap : 1024;
			pr->starts = realloc(pr->starts, pr->starts_cap * sizeof(*pr->starts));
			if (!pr->starts)
				die("no memory", NULL);
		}
		pr->starts[pr->nsamples++] = (size_t)(rec - pr->base);
		memcpy(pr->samples + pr->nsamples_bytes, rec, reclen);
		pr->nsamples_bytes += reclen;
	}
}

static int cmd_prepare(const char *raw, const char *cold, const char *warm, int passes)
{
	size_t len;
	unsigned char *p = slurp(raw, &len);
	struct prepare pr = { .base = p };
	FILE *f;

	/* Rewritten in place, then written whole: text and records in order. */
	walk_records(p, len, prepare_cb, &pr);
	f = create(cold);
	if (fwrite(p, 1, len, f) != len || fclose(f))
		die("cannot write", cold);
	f = create(warm);
	for (int k = 1; k <= passes; k++) {
		/* Pass k's ids: the capture's plus k times its highest. */
		for (size_t i = 0; i < pr.nsamples_bytes;) {
			struct rt_us_header h;
			struct rt_us_sample s;

			memcpy(&h, pr.samples + i, sizeof(h));
			memcpy(&s, pr.samples + i + sizeof(h), sizeof(s));
			s.id += (uint64_t)k * pr.max_id;
			memcpy(pr.samples + i + sizeof(h), &s, sizeof(s));
			if (fwrite(pr.samples + i, 1, sizeof(h) + h.len, f) != sizeof(h) + h.len)
				die("cannot write", warm);
			s.id -= (uint64_t)k * pr.max_id;
			memcpy(pr.samples + i + sizeof(h), &s, sizeof(s));
			i += sizeof(h) + h.len;
		}
	}
	if (fclose(f))
		die("cannot write", warm);
	printf("@@prepare samples %llu maps %llu missing %llu bytes %zu split %zu\n", pr.nsamples,
	       pr.nmaps, pr.missing, len, pr.nsamples ? pr.starts[pr.nsamples / 2] : len);
	free(pr.samples);
	free(pr.starts);
	free(p);
	return pr.missing ? 1 : 0;
}

/* ---- run ---- */

static double seconds(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int emit_to(void *ctx, const char *s, size_t n)
{
	FILE *out = ctx;

	if (out && fwrite(s, 1, n, out) != n)
		return -1;
	return 0;
}

/* Feed bytes [from, to) of path to us as staprun's relay does, in reads
 * of 64 KiB; print what it took. */
static void feed(struct sr_ustacks *us, const char *path, off_t from, off_t to, FILE *out,
		 const char *what)
{
	static char buf[64 * 1024];
	unsigned long long s0, s1, st0, st1;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	double c0, w0;
	ssize_t n = 0;

	if (fd < 0 || lseek(fd, from, SEEK_SET) != from)
		die("cannot open", path);
	sr_ustacks_counts(us, &s0, &st0);
	c0 = seconds(CLOCK_PROCESS_CPUTIME_ID);
	w0 = seconds(CLOCK_MONOTONIC);
	while (from < to && (n = read(fd, buf, (size_t)(to - from) < sizeof(buf)
						   ? (size_t)(to - from) : sizeof(buf))) > 0) {
		from += n;
		if (sr_ustacks_filter(us, buf, (size_t)n, emit_to, out))
			die("cannot write the text", NULL);
	}
	if (n < 0)
		die("cannot read", path);
	double cpu = seconds(CLOCK_PROCESS_CPUTIME_ID) - c0, wall = seconds(CLOCK_MONOTONIC) - w0;
	close(fd);
	sr_ustacks_counts(us, &s1, &st1);
	printf("@@run %s samples %llu stacks %llu cpu %.6f wall %.6f\n", what, s1 - s0, st1 - st0,
	       cpu, wall);
}

/* The cookie the module's records carry (staprun reads it from ctl): the
 * first record's. */
static uint64_t first_cookie(const char *path)
{
	unsigned char buf[65536];
	uint64_t cookie = 0;
	FILE *f = fopen(path, "rb");
	size_t n = f ? fread(buf, 1, sizeof(buf), f) : 0;

	for (size_t i = 0; i + sizeof(struct rt_us_header) <= n; i++)
		if (buf[i] == RT_US_MARK && (buf[i + 1] == RT_US_SAMPLE || buf[i + 1] == RT_US_MAP)) {
			struct rt_us_header h;

			memcpy(&h, buf + i, sizeof(h));
			cookie = h.cookie;
			break;
		}
	if (f)
		fclose(f);
	return cookie;
}

static int cmd_run(const char *cold, off_t split, const char *warm, const char *outpath)
{
	struct sr_ustacks *us = sr_ustacks_new("keys", NULL);
	FILE *out = outpath ? create(outpath) : NULL;
	struct rusage ru;
	struct stat st;

	if (!us)
		die("no memory", NULL);
	sr_ustacks_set_cookie(us, first_cookie(cold));
	if (stat(cold, &st) || split < 0 || split > st.st_size)
		die("cannot split at that offset:", cold);
	/* The first half of the capture's samples, then the rest: a profile
	 * keeps meeting stacks it has not named yet. */
	feed(us, cold, 0, split, out, "first");
	feed(us, cold, split, st.st_size, out, "second");
	if (out)
		fclose(out);
	if (stat(warm, &st))
		die("cannot open", warm);
	feed(us, warm, 0, st.st_size, NULL, "warm");
	getrusage(RUSAGE_SELF, &ru);
	printf("@@run maxrss %ld\n", ru.ru_maxrss);
	sr_ustacks_free(us);
	return 0;
}

/* ---- frames ---- */

/* The executable mappings of each process, as its last map records said. */
struct emap {
	uint32_t tgid;
	uint64_t start, end;
};

struct frames {
	struct sr_unwinder *u;
	struct emap *maps;
	size_t nmaps, cap;
	unsigned long long samples, dwfl, fp, dwfl_start, fp_start, more, cut;
	struct sr_unwind_result r, w;
	struct sr_sym syms[32];
};

static bool executable(const struct frames *fr, uint32_t tgid, uint64_t addr)
{
	for (size_t i = 0; i < fr->nmaps; i++)
		if (fr->maps[i].tgid == tgid && addr >= fr->maps[i].start && addr < fr->maps[i].end)
			return true;
	return false;
}

/* The outermost frame of r is _start (the unwind reached the bottom). */
static bool at_start(struct frames *fr, const struct sr_unwind_result *r)
{
	int k;

	if (!r->proc || r->n < 1)
		return false;
	k = sr_symbolize(r, r->n - 1, fr->syms, 32);
	return k > 0 && fr->syms[k - 1].name && !strcmp(fr->syms[k - 1].name, "_start");
}

static void frames_cb(void *ctx, char kind, unsigned char *rec, size_t reclen,
		      unsigned char *payload, size_t plen)
{
	struct frames *fr = ctx;

	(void)rec;
	(void)reclen;
	if (kind == RT_US_MAP && plen >= sizeof(struct rt_us_map)) {
		struct rt_us_map m;

		memcpy(&m, payload, sizeof(m));
		if (m.path_len > plen - sizeof(m))
			return;
		sr_unwinder_map(fr->u, &m, (const char *)payload + sizeof(m), m.path_len);
		if (m.flags & RT_US_FIRST) {
			/* A new generation replaces the process's mappings. */
			size_t k = 0;

			for (size_t i = 0; i < fr->nmaps; i++)
				if (fr->maps[i].tgid != m.tgid)
					fr->maps[k++] = fr->maps[i];
			fr->nmaps = k;
		}
		if (!m.path_len)
			return;
		if (fr->nmaps == fr->cap) {
			fr->cap = fr->cap ? 2 * fr->cap : 64;
			fr->maps = realloc(fr->maps, fr->cap * sizeof(*fr->maps));
			if (!fr->maps)
				die("no memory", NULL);
		}
		fr->maps[fr->nmaps++] = (struct emap){ m.tgid, m.start, m.end };
		return;
	}
	if (kind != RT_US_SAMPLE || plen < sizeof(struct rt_us_sample))
		return;
	struct rt_us_sample s;
	const unsigned char *stack = payload + sizeof(s);

	memcpy(&s, payload, sizeof(s));
	if (s.stack_len > plen - sizeof(s) || (s.flags & RT_US_ADDR))
		return;
	fr->samples++;
	sr_unwind(fr->u, &s, stack, &fr->r);
	fr->dwfl += (unsigned long long)fr->r.n;
	fr->cut += fr->r.cut;
	fr->dwfl_start += at_start(fr, &fr->r);

	/* The frame-pointer walk, inside the copy. */
	uint64_t sp = s.regs[7], bp = s.regs[6], lo = sp;
	struct sr_unwind_result *w = &fr->w;

	memset(w, 0, sizeof(*w));
	w->proc = fr->r.proc;
	w->pcs[0] = s.regs[16];
	w->n = 1;
	while (w->n < SR_MAX_FRAMES && bp >= lo && bp - sp + 16 <= s.stack_len) {
		uint64_t next, ret;

		memcpy(&next, stack + (bp - sp), 8);
		memcpy(&ret, stack + (bp - sp) + 8, 8);
		if (!executable(fr, s.tgid, ret))
			break;
		w->return_addr[w->n] = true;
		w->pcs[w->n++] = ret;
		lo = bp + 16;
		bp = next;
	}
	fr->fp += (unsigned long long)w->n;
	fr->fp_start += at_start(fr, w);
	fr->more += fr->r.n > w->n;
}

static int cmd_frames(const char *cold)
{
	size_t len;
	unsigned char *p = slurp(cold, &len);
	struct frames *fr = calloc(1, sizeof(*fr));

	if (!fr || !(fr->u = sr_unwinder_new()))
		die("no memory", NULL);
	walk_records(p, len, frames_cb, fr);
	double n = fr->samples ? (double)fr->samples : 1.0;
	printf("@@frames samples %llu dwfl %.2f fp %.2f dwfl_start %llu fp_start %llu dwfl_more %llu cut %llu\n",
	       fr->samples, (double)fr->dwfl / n, (double)fr->fp / n, fr->dwfl_start, fr->fp_start,
	       fr->more, fr->cut);
	sr_unwinder_free(fr->u);
	free(fr->maps);
	free(fr);
	free(p);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "stats"))
		return cmd_stats(argv[2]);
	if (argc == 6 && !strcmp(argv[1], "prepare"))
		return cmd_prepare(argv[2], argv[3], argv[4], atoi(argv[5]));
	if ((argc == 5 || argc == 6) && !strcmp(argv[1], "run"))
		return cmd_run(argv[2], (off_t)atoll(argv[3]), argv[4], argc == 6 ? argv[5] : NULL);
	if (argc == 3 && !strcmp(argv[1], "frames"))
		return cmd_frames(argv[2]);
	fprintf(stderr, "usage: ustack_replay stats RAW | prepare RAW COLD WARM PASSES |\n"
			"       run COLD SPLIT WARM [OUT] | frames COLD\n");
	return 2;
}
