/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The runtime API: everything generated C may use, and the only header it
 * includes. It includes no kernel header, so a script compiles in tens of
 * milliseconds against any kernel, and a kernel's internal changes can only
 * break the runtime (which is built and feature-tested per kernel), never
 * the generated code.
 *
 * Generated C defines one `const struct rt_script rt_script` describing its
 * probes and limits; the runtime (the prebuilt stub) does the rest.
 */
#ifndef TAPLINE_API_H
#define TAPLINE_API_H

#include "format.h" /* struct rt_fmt_arg: printf arguments */

#define RT_API_VERSION 2

typedef long long rt_long;
typedef unsigned long rt_size;

/*
 * One probe hit's state, per CPU. Generated code reads and writes these
 * fields directly; the runtime keeps more state around them.
 */
struct rt_context {
	const char *error;      /* set when the hit failed: the code unwinds */
	rt_long actions;        /* statements this hit may still execute */
	char *sp, *sp_end;      /* the per-CPU stack that holds script locals */
	int depth;              /* nested script function calls */
	int maxnesting;
	unsigned long stack_base; /* kernel stack address when the hit began */
};

/* Kernel stack that nested script functions may use in one hit. */
#define RT_STACK_BUDGET 3072

enum rt_probe_kind { RT_BEGIN, RT_END, RT_TIMER, RT_KPROBE, RT_KRETPROBE };

/* A global a handler uses, and whether it writes it (sorted by index). */
struct rt_lock {
	int global;
	int write;
};

struct rt_probe {
	enum rt_probe_kind kind;
	const char *pp;          /* the probe point as written */
	const char *symbol;      /* RT_KPROBE, RT_KRETPROBE */
	rt_long period_ns;       /* RT_TIMER */
	void (*handler)(struct rt_context *c);
	const struct rt_lock *locks;
	int nlocks;
	int optional;            /* written with '?': failing to place it is fine */
	int from_wildcard;       /* one of a wildcard's matches: failing to place it warns */
};

struct rt_script {
	int api_version;
	const struct rt_probe *probes; /* begin probes first, end probes last */
	int nprobes;
	int nglobals;
	rt_size frame_size;      /* bytes of script locals one CPU may need */
	rt_size maxstringlen;
	rt_long maxaction;
	rt_long maxaction_interruptible; /* for begin and end probes */
	rt_long maxnesting;
	rt_long maxtrylock;
	rt_long maxskipped;
	rt_long maxactive;       /* 0: chosen from the CPU count */
	rt_size buffer_size;     /* output bytes per CPU */
};

extern const struct rt_script rt_script;

/* --- failing and stopping --- */

/* End this hit with an error ("MSG near LOC"); the script then stops. */
void rt_fail(struct rt_context *c, const char *msg, const char *loc);
/* A limit ran out: names the limit and the -D that raises it. */
void rt_fail_limit(struct rt_context *c, const char *limit, rt_long value, const char *loc);
/* The statement budget ran out (MAXACTION, or MAXACTION_INTERRUPTIBLE in begin/end). */
void rt_fail_actions(struct rt_context *c, const char *loc);
/* A script function frame does not fit: past MAXNESTING, the frame stack
 * is full, or the calls used more than RT_STACK_BUDGET of the kernel stack
 * (frame: the caller's frame address). Fails the hit. */
void rt_frame_overflow(struct rt_context *c, rt_size size, unsigned long frame, const char *loc);
/* error("..."), warn("..."), exit() */
void rt_user_error(struct rt_context *c, const char *msg);
void rt_warn(struct rt_context *c, const char *msg);
void rt_exit(struct rt_context *c);

/* --- output --- */

void rt_print_str(struct rt_context *c, const char *s);
void rt_print_long(struct rt_context *c, rt_long v);
void rt_printf(struct rt_context *c, const char *fmt, const struct rt_fmt_arg *args, int nargs);
void rt_sprintf(struct rt_context *c, char *buf, rt_size size, const char *fmt,
		const struct rt_fmt_arg *args, int nargs);

/* --- strings (size: the destination's size; results are always terminated) --- */

void rt_strcpy(char *dst, const char *src, rt_size size);
void rt_strcat(char *dst, const char *src, rt_size size);
int rt_strcmp(const char *a, const char *b);
rt_long rt_strlen(const char *s);

/* --- context of the hit --- */

void rt_execname(struct rt_context *c, char *buf, rt_size size);
rt_long rt_pid(struct rt_context *c);
rt_long rt_tid(struct rt_context *c);
rt_long rt_ppid(struct rt_context *c);
rt_long rt_uid(struct rt_context *c);
rt_long rt_cpu(struct rt_context *c);
void rt_probefunc(struct rt_context *c, char *buf, rt_size size);
void rt_pp(struct rt_context *c, char *buf, rt_size size);
rt_long rt_target(struct rt_context *c);
rt_long rt_gettimeofday_ns(struct rt_context *c);
rt_long rt_local_clock_ns(struct rt_context *c);
rt_long rt_jiffies(struct rt_context *c);
rt_long rt_return_value(struct rt_context *c);

/* --- helpers the generated code inlines --- */

#define rt_unlikely(x) __builtin_expect(!!(x), 0)

/* A probe handler's frame: the runtime reserved room for the largest. */
static inline void *rt_handler_frame(struct rt_context *c, rt_size size)
{
	char *p = c->sp;

	c->sp += (size + 15) & ~(rt_size)15;
	return p;
}

/*
 * Take the next script function frame; NULL (and the hit fails) past
 * MAXNESTING, or when the C calls themselves have used too much of the
 * kernel stack (a probe may already run deep in an interrupt stack).
 */
static inline void *rt_frame_push(struct rt_context *c, rt_size size, const char *loc)
{
	char *p = c->sp;
	unsigned long frame = (unsigned long)__builtin_frame_address(0);
	/* One out-of-line call for every failure keeps each function small for
	 * gcc; returning NULL here (not its result) lets gcc see that nothing
	 * the caller holds must survive that call. */
	if (rt_unlikely(c->depth >= c->maxnesting || size > (rt_size)(c->sp_end - c->sp) ||
			c->stack_base - frame > RT_STACK_BUDGET)) {
		rt_frame_overflow(c, size, frame, loc);
		return (void *)0;
	}
	c->depth++;
	c->sp += (size + 15) & ~(rt_size)15;
	return p;
}

static inline void rt_frame_pop(struct rt_context *c, rt_size size)
{
	c->depth--;
	c->sp -= (size + 15) & ~(rt_size)15;
}

/* Arithmetic without undefined behaviour: wrapping, and shifts outside 0..63 give 0 or the sign. */
static inline rt_long rt_neg(rt_long a)
{
	return (rt_long)(0ULL - (unsigned long long)a);
}

static inline rt_long rt_add(rt_long a, rt_long b)
{
	return (rt_long)((unsigned long long)a + (unsigned long long)b);
}

static inline rt_long rt_sub(rt_long a, rt_long b)
{
	return (rt_long)((unsigned long long)a - (unsigned long long)b);
}

static inline rt_long rt_mul(rt_long a, rt_long b)
{
	return (rt_long)((unsigned long long)a * (unsigned long long)b);
}

/* Callers check b != 0 first; LLONG_MIN / -1 would trap. */
static inline rt_long rt_div(rt_long a, rt_long b)
{
	return b == -1 ? rt_neg(a) : a / b;
}

static inline rt_long rt_mod(rt_long a, rt_long b)
{
	return b == -1 ? 0 : a % b;
}

static inline rt_long rt_shl(rt_long a, rt_long b)
{
	return b < 0 || b > 63 ? 0 : (rt_long)((unsigned long long)a << b);
}

static inline rt_long rt_shr(rt_long a, rt_long b)
{
	return b < 0 || b > 63 ? (a < 0 ? -1 : 0) : a >> b;
}

#endif
