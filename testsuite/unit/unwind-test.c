// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * staprun's user-stack unwinding (staprun/ustack.c, unwind.c) on the host,
 * without a module: this program takes a sample of its own stack (the
 * registers and the bytes above the stack pointer, as the runtime would)
 * inside a chain of calls built without frame pointers, writes it as the
 * runtime's records, and checks what staprun makes of the tokens.
 *
 *   unwind-test              the checks
 *   unwind-test LIB          also a frame in LIB (a library with
 *                            us_lib_hop, loaded with dlopen): prints the
 *                            stack with source lines (host tests give LIB
 *                            debug information through debuginfod)
 */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "staprun.h"
#include "tap.h"
#include "unwind.h"

#define STACK_COPY 4096

static struct rt_us_sample sample;
static uint64_t stack_end;      /* the main thread's stack ends here */
static unsigned char stack_copy[STACK_COPY];
static int (*lib_hop)(int, int (*)(int));

/* The registers the CFI of this frame may use, and the stack above. */
__attribute__((noinline)) static int take_sample(int n)
{
	uint64_t r[8];

	__asm__ volatile("lea 0(%%rip), %%rax\n\t"
			 "mov %%rax, 0(%0)\n\t"
			 "mov %%rsp, 8(%0)\n\t"
			 "mov %%rbp, 16(%0)\n\t"
			 "mov %%rbx, 24(%0)\n\t"
			 "mov %%r12, 32(%0)\n\t"
			 "mov %%r13, 40(%0)\n\t"
			 "mov %%r14, 48(%0)\n\t"
			 "mov %%r15, 56(%0)\n\t"
			 :
			 : "r"(r)
			 : "rax", "memory");
	memset(&sample, 0, sizeof(sample));
	sample.id = 7;
	sample.tgid = sample.tid = (uint32_t)getpid();
	sample.regs[16] = r[0];
	sample.regs[7] = r[1];
	sample.regs[6] = r[2];
	sample.regs[3] = r[3];
	sample.regs[12] = r[4];
	sample.regs[13] = r[5];
	sample.regs[14] = r[6];
	sample.regs[15] = r[7];
	sample.stack_max = STACK_COPY;
	sample.stack_len = stack_end - r[1] < STACK_COPY ? (uint32_t)(stack_end - r[1]) : STACK_COPY;
	memcpy(stack_copy, (const void *)(uintptr_t)r[1], sample.stack_len);
	__asm__ volatile("" ::: "memory");
	return n + 1;
}

__attribute__((noinline)) int ut_c(int n)
{
	int r = take_sample(n);

	__asm__ volatile("" : "+r"(r));
	return r + 1;
}

__attribute__((noinline)) int ut_b(int n)
{
	int r = lib_hop ? lib_hop(n, ut_c) : ut_c(n);

	__asm__ volatile("" : "+r"(r));
	return r + 1;
}

__attribute__((noinline)) int ut_a(int n)
{
	int r = ut_b(n);

	__asm__ volatile("" : "+r"(r));
	return r + 1;
}

struct text {
	char buf[16384];
	size_t len;
};

static int collect(void *ctx, const char *s, size_t n)
{
	struct text *t = ctx;

	if (t->len + n >= sizeof(t->buf))
		n = sizeof(t->buf) - 1 - t->len;
	memcpy(t->buf + t->len, s, n);
	t->len += n;
	t->buf[t->len] = 0;
	return 0;
}

/* The module's output: the sample record (with cookie), then text. */
static void feed_sample(struct sr_ustacks *us, uint64_t cookie)
{
	struct rt_us_header h = { .mark = RT_US_MARK, .kind = RT_US_SAMPLE,
				  .len = sizeof(sample) + STACK_COPY, .cookie = cookie };
	static unsigned char rec[sizeof(h) + sizeof(sample) + STACK_COPY];
	struct text ignored = { .len = 0 };

	memcpy(rec, &h, sizeof(h));
	memcpy(rec + sizeof(h), &sample, sizeof(sample));
	memcpy(rec + sizeof(h) + sizeof(sample), stack_copy, STACK_COPY);
	/* In two pieces: a read may cut a record. */
	sr_ustacks_filter(us, (const char *)rec, 100, collect, &ignored);
	sr_ustacks_filter(us, (const char *)rec + 100, sizeof(rec) - 100, collect, &ignored);
}

/* The record that ends a generation of mappings; the output it lets
 * through goes to t. */
static void feed_last(struct sr_ustacks *us, uint64_t cookie, uint32_t tgid, uint32_t gen,
		      struct text *t)
{
	struct rt_us_header h = { .mark = RT_US_MARK, .kind = RT_US_MAP,
				  .len = sizeof(struct rt_us_map), .cookie = cookie };
	struct rt_us_map m = { .tgid = tgid, .gen = gen, .flags = RT_US_LAST };
	unsigned char rec[sizeof(h) + sizeof(m)];

	memcpy(rec, &h, sizeof(h));
	memcpy(rec + sizeof(h), &m, sizeof(m));
	sr_ustacks_filter(us, (const char *)rec, sizeof(rec), collect, t);
}

/* This process's executable mappings as map records for process tgid. */
static void feed_maps_as(struct sr_ustacks *us, uint64_t cookie, uint32_t tgid, uint32_t gen)
{
	char line[4352], file[4097];
	struct text ignored = { .len = 0 };
	bool first = true;
	FILE *f = fopen("/proc/self/maps", "re");

	while (f && fgets(line, sizeof(line), f)) {
		unsigned char rec[sizeof(struct rt_us_header) + sizeof(struct rt_us_map) + 4096];
		struct rt_us_map m;
		struct rt_us_header h;

		if (!sr_maps_line(line, tgid, gen, first, &m, file))
			continue;
		h = (struct rt_us_header){ .mark = RT_US_MARK, .kind = RT_US_MAP,
					   .len = sizeof(m) + m.path_len, .cookie = cookie };
		memcpy(rec, &h, sizeof(h));
		memcpy(rec + sizeof(h), &m, sizeof(m));
		memcpy(rec + sizeof(h) + sizeof(m), file, m.path_len);
		sr_ustacks_filter(us, (const char *)rec, sizeof(h) + sizeof(m) + m.path_len, collect,
				  &ignored);
		first = false;
	}
	if (f)
		fclose(f);
}

static void token(char *buf, char kind, uint64_t id)
{
	snprintf(buf, RT_US_TOKEN_LEN + 1, "%c%c%016llx0000", RT_US_MARK, kind,
		 (unsigned long long)id);
}

static const char *expand(struct sr_ustacks *us, struct text *t, char kind, uint64_t id)
{
	char tok[RT_US_TOKEN_LEN + 1];

	t->len = 0;
	t->buf[0] = 0;
	token(tok, kind, id);
	sr_ustacks_filter(us, tok, RT_US_TOKEN_LEN, collect, t);
	return t->buf;
}

/* Where the main thread's stack ends: what is above the stack pointer. */
static uint64_t find_stack_end(void)
{
	char line[512];
	unsigned long long start, end;
	FILE *f = fopen("/proc/self/maps", "re");

	while (f && fgets(line, sizeof(line), f))
		if (strstr(line, "[stack]") && sscanf(line, "%llx-%llx", &start, &end) == 2)
			break;
		else
			end = 0;
	if (f)
		fclose(f);
	return end;
}

int main(int argc, char **argv)
{
	static struct text t;
	struct sr_ustacks *us;

	stack_end = find_stack_end();

	if (argc > 1) {
		void *h = dlopen(argv[1], RTLD_NOW);

		lib_hop = h ? (int (*)(int, int (*)(int)))dlsym(h, "us_lib_hop") : NULL;
		if (!lib_hop) {
			fprintf(stderr, "unwind-test: %s\n", dlerror());
			return 2;
		}
		ut_a(1);
		us = sr_ustacks_new("print,32", NULL);
		feed_sample(us, 0);
		fputs(expand(us, &t, RT_US_FILELINES, 7), stdout);
		sr_ustacks_free(us);
		return 0;
	}

	ut_a(1);
	us = sr_ustacks_new("print,32", NULL);
	sr_ustacks_set_cookie(us, 0x1234);
	feed_sample(us, 0x1234);
	tap_check(strstr(expand(us, &t, RT_US_FOLDED, 7), "main;ut_a;ut_b;ut_c;take_sample") != NULL,
		  "the folded stack of a sample of itself ends main;ut_a;ut_b;ut_c;take_sample: %s",
		  t.buf);
	expand(us, &t, RT_US_LINES, 7);
	tap_check(strncmp(t.buf, " 0x", 3) == 0 && strstr(t.buf, " : ut_b+0x") &&
			  strstr(t.buf, "unwind-test]\n"),
		  "print_ustack lines name each frame and the file");
	expand(us, &t, RT_US_FILELINES, 7);
	tap_check(strstr(t.buf, " at ") && strstr(t.buf, "unwind-test.c:"),
		  "the lines with source files and lines");
	tap_check(expand(us, &t, RT_US_ADDRS, 7)[0] == '0' && strchr(t.buf, ' '),
		  "ubacktrace's form is addresses: %.40s", t.buf);
	tap_check(expand(us, &t, RT_US_FOLDED, 99)[0] == '[', "an unknown sample folds to [no user stack]");
	tap_check(!*expand(us, &t, RT_US_LINES, 99), "an unknown sample prints nothing");

	/* A record without the cookie is text, however it looks. */
	{
		static const char forged[] = "a\x1es\x01\x01\x7f\x7f\x7f\x7f" "b";

		t.len = 0;
		sr_ustacks_filter(us, forged, sizeof(forged) - 1, collect, &t);
		sr_ustacks_flush(us, collect, &t);
		tap_check(t.len == sizeof(forged) - 1 && !memcmp(t.buf, forged, t.len),
			  "a forged record header is printed as text");
	}
	/* Another sample at the same place is the same stack. */
	sample.id = 8;
	feed_sample(us, 0x1234);
	{
		unsigned long long samples, stacks;

		sr_ustacks_counts(us, &samples, &stacks);
		tap_check(samples == 2 && stacks == 1, "two samples of one stack: %llu samples, %llu stacks",
			  samples, stacks);
	}
	/* The same stack in another process mapping the same files (its
	 * mappings as the module sends them): one stack, no file read again. */
	{
		unsigned long long files = sr_ustacks_files(us), samples, stacks;

		feed_maps_as(us, 0x1234, 999999, 5);
		sample.id = 9;
		sample.tgid = sample.tid = 999999;
		sample.gen = 5;
		feed_sample(us, 0x1234);
		sr_ustacks_counts(us, &samples, &stacks);
		tap_check(samples == 3 && stacks == 1 && files > 0 && sr_ustacks_files(us) == files,
			  "another process with the same files: %llu samples, %llu stacks, files read %llu then %llu",
			  samples, stacks, files, sr_ustacks_files(us));
	}
	/* A sample taken in the kernel, whose mappings a worker sends later:
	 * the output from it on waits for them, text before it does not. */
	{
		char tok[RT_US_TOKEN_LEN + 1];
		static struct text out;

		sample.id = 10;
		sample.tgid = sample.tid = 999998;
		sample.gen = 6;
		sample.flags = RT_US_PENDING;
		sr_ustacks_filter(us, "before\n", 7, collect, &out);
		feed_sample(us, 0x1234);
		token(tok, RT_US_FOLDED, 10);
		sr_ustacks_filter(us, tok, RT_US_TOKEN_LEN, collect, &out);
		sr_ustacks_filter(us, "\nafter\n", 7, collect, &out);
		tap_check(!strcmp(out.buf, "before\n"), "output after a sample whose mappings are to come waits: '%s'",
			  out.buf);
		feed_maps_as(us, 0x1234, 999998, 6);
		tap_check(!strcmp(out.buf, "before\n"), "... until the last of them came: '%s'", out.buf);
		feed_last(us, 0x1234, 999998, 6, &out);
		tap_check(!strncmp(out.buf, "before\n", 7) && strstr(out.buf, "main;ut_a;ut_b;ut_c;take_sample\nafter\n"),
			  "then the stack, unwound with them, and the rest in order: '%s'", out.buf);

		/* Mappings that never come (the module had no room): the output
		 * is released at the end, the stack unwound as far as it can be. */
		out.len = 0;
		out.buf[0] = 0;
		sample.id = 11;
		sample.tgid = sample.tid = 999997;
		sample.gen = 7;
		feed_sample(us, 0x1234);
		token(tok, RT_US_ADDRS, 11);
		sr_ustacks_filter(us, tok, RT_US_TOKEN_LEN, collect, &out);
		sr_ustacks_filter(us, "|end\n", 5, collect, &out);
		tap_check(out.len == 0, "held again for mappings still to come");
		sr_ustacks_release(us, collect, &out);
		tap_check(!strncmp(out.buf, "0x", 2) && strstr(out.buf, "|end\n"),
			  "released at the end of the output: '%s'", out.buf);
		sample.flags = 0;
	}
	sr_ustacks_free(us);
	return tap_done();
}
