/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Inside runtime/probes/: one file per probe family (ftrace.c, fprobe.c,
 * kprobes.c, tracepoints.c, timers.c, perf.c, netfilter.c, uprobes.c,
 * procfs.c), each placing and removing its probes; place.c holds the
 * lifecycle (prepare, start, stop, modules coming and going) and chooses
 * the family by the probe's kind.
 */
#ifndef TAPLINE_PROBES_PROBES_H
#define TAPLINE_PROBES_PROBES_H

#include <linux/ftrace.h>
#include <linux/hrtimer.h>
#include <linux/kprobes.h>
#include <linux/netfilter.h>
#include <linux/path.h>

#include "runtime.h"

struct rt_placed {
	const struct rt_probe *p;
	char *name;		/* "MODULE:SYMBOL" for a module's probe */
	bool registered;
	bool waiting;		/* its module is not loaded: placed when it is */
	bool ever;		/* it was placed at some time */
	bool via_ftrace;	/* an entry probe through an ftrace_ops, a return through fprobe */
	unsigned long addr;	/* RT_KPROBE through ftrace: where (addr()) */
	const char *why;	/* RT_UPROBE, RT_URETPROBE: why it was not placed */
	union {
		struct kprobe kp;
		struct kretprobe krp;
		struct hrtimer timer;
		struct tracepoint *tp;
		struct {                         /* RT_SYSCALL, RT_SYSCALL_RETURN */
			struct tracepoint *tp;
			struct path prog;        /* the program's executable, if named */
			struct inode *inode;     /* its inode; NULL: any program */
		} sys;
		struct rt_cpu_timer *cpu_timers; /* RT_PROFILE: one per possible CPU */
		struct perf_event **events;      /* RT_PERF: one per possible CPU */
		struct nf_hook_ops nfo;          /* RT_NETFILTER */
	};
};

/* timer.profile's timer on one CPU, pinned there. */
struct rt_cpu_timer {
	struct hrtimer timer;
	struct rt_placed *pl;
	bool started;
};

/* place.c: every probe's place, by index in rt_script.probes. */
extern struct rt_placed *rt_placed;
/* place.c: true while the module notifier places a coming module's probes. */
extern bool rt_module_coming_now;

#if RT_FTRACE_ENTRY
/* An entry probe an ftrace_ops (or the fprobe) calls, by its function's address. */
struct rt_fentry {
	unsigned long ip;
	struct rt_placed *pl;
};

/*
 * ip is the function's ftrace site, at or just after its start (after an
 * ENDBR instruction where there is one): the entry with the highest
 * address not above ip is the function it is in. Its index in v (sorted
 * by address), or -1.
 */
static __always_inline int rt_fentry_at(const struct rt_fentry *v, int n, unsigned long ip)
{
	int lo = 0, hi = n - 1, k = -1;

	while (lo <= hi) {
		int mid = (lo + hi) / 2;

		if (v[mid].ip <= ip) {
			k = mid;
			lo = mid + 1;
		} else {
			hi = mid - 1;
		}
	}
	return k;
}

int rt_fentry_cmp(const void *a, const void *b);
#endif

/* ftrace.c: the entry probes ftrace can take, at once (before the kprobes). */
void rt_ftrace_place_all(void);
void rt_ftrace_remove_all(void);
size_t rt_ftrace_bytes(void);
/* Where the function of p starts in this kernel, or 0 if that is not certain. */
unsigned long rt_entry_address(const struct rt_probe *p);

/* fprobe.c: the return probes one fprobe can take, at once. */
void rt_fprobe_place_all(void);
void rt_fprobe_remove_all(void);

/* kprobes.c */
int rt_kprobe_place(struct rt_placed *pl);
int rt_kretprobe_place(struct rt_placed *pl);
/* One probe of a module that leaves (stop removes them in batches). */
void rt_kprobe_unplace(struct rt_placed *pl);
void rt_kprobe_report_missed(const struct rt_placed *pl);
/* The calls one return probe tracks at once. */
int rt_maxactive(const struct rt_probe *p);

/* tracepoints.c, timers.c, perf.c, netfilter.c */
int rt_tracepoint_place(struct rt_placed *pl);
void rt_tracepoint_remove(struct rt_placed *pl);
int rt_syscall_place(struct rt_placed *pl);
void rt_syscall_remove(struct rt_placed *pl);
/* After every hit is done (tracepoint_synchronize_unregister). */
void rt_syscall_release(struct rt_placed *pl);
int rt_timer_place(struct rt_placed *pl);
void rt_timer_remove(struct rt_placed *pl);
int rt_profile_place(struct rt_placed *pl);
void rt_profile_remove(struct rt_placed *pl);
int rt_perf_place(struct rt_placed *pl);
int rt_hwbkpt_place(struct rt_placed *pl);
void rt_perf_remove(struct rt_placed *pl);
int rt_netfilter_place(struct rt_placed *pl);
void rt_netfilter_remove(struct rt_placed *pl);

#endif
