// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Placing and removing the script's probes: function entries through one
 * ftrace_ops callback shared by all of them (where the kernel has that
 * API, and the translator knew the function's address), else kprobes by
 * symbol name; kretprobes; tracepoints; timers. Every hit goes through rt_run_probe()
 * (hit.h), begin and end probes through rt_run_begin_end() (session.c).
 * Counts of missed hits (kprobe reentrancy, kretprobe instances
 * exhausted) become warnings at stop that name the limit to raise.
 *
 * Addresses: the translator gives each function's offset from _text,
 * valid for exactly the kernel build the module was made for (staprun
 * checks the build-id before loading); _text itself is found from the
 * address of _printk, whose offset the translator gives too. An address
 * is used only if the kernel's own symbol table says a function starts
 * there and ftrace accepts it; anything else falls back to a kprobe by name.
 */
#include <asm/irq_regs.h>
#include <linux/hrtimer.h>
#include <linux/perf_event.h>
#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/tracepoint.h>

#include "hit.h"
#include "runtime.h"

struct rt_placed {
	const struct rt_probe *p;
	char *name;		/* "MODULE:SYMBOL" for a module's probe */
	bool registered;
	bool waiting;		/* its module is not loaded: placed when it is */
	bool ever;		/* it was placed at some time */
	bool via_ftrace;	/* an entry probe in rt_fops' filter, not a kprobe */
	unsigned long addr;	/* RT_KPROBE through ftrace: where (addr()) */
	union {
		struct kprobe kp;
		struct kretprobe krp;
		struct hrtimer timer;
		struct tracepoint *tp;
		struct rt_cpu_timer *cpu_timers; /* RT_PROFILE: one per possible CPU */
		struct perf_event **events;      /* RT_PERF: one per possible CPU */
	};
};

/* timer.profile's timer on one CPU, pinned there. */
struct rt_cpu_timer {
	struct hrtimer timer;
	struct rt_placed *pl;
	bool started;
};

static struct rt_placed *rt_placed;
/* Placing and removing probes: at start and stop, and when a probed
 * module comes or goes (the module notifier). */
static DEFINE_MUTEX(rt_placing);
static bool rt_notifier_registered;

#if RT_FTRACE_ENTRY
/* The entry probes rt_fops calls, sorted by address (several may share one). */
struct rt_fentry {
	unsigned long ip;
	struct rt_placed *pl;
};
static struct rt_fentry *rt_fentries;
static int rt_nfentries;
static struct ftrace_ops rt_fops;
static bool rt_fops_registered;

/*
 * ip is the function's ftrace site, at or just after its start (after an
 * ENDBR instruction where there is one): the entry with the highest
 * address not above ip is the function it is in.
 */
static RT_FTRACE_CALLBACK(rt_ftrace_hit)
{
	int lo = 0, hi = rt_nfentries - 1, k = -1;
	unsigned long at;

	/* Functions where RCU is not watching (idle, entry code) are left
	 * alone: the runtime's own calls may need it. */
	if (unlikely(!rcu_is_watching())) {
		rt_count_skip(&rt_sess.skipped_unsafe);
		return;
	}
	while (lo <= hi) {
		int mid = (lo + hi) / 2;

		if (rt_fentries[mid].ip <= ip) {
			k = mid;
			lo = mid + 1;
		} else {
			hi = mid - 1;
		}
	}
	if (k < 0)
		return;
	at = rt_fentries[k].ip;
	while (k > 0 && rt_fentries[k - 1].ip == at)
		k--;
	for (; k < rt_nfentries && rt_fentries[k].ip == at; k++)
		rt_run_probe(rt_fentries[k].pl->p, NULL);
}

static int rt_fentry_cmp(const void *a, const void *b)
{
	const struct rt_fentry *x = a, *y = b;

	return x->ip < y->ip ? -1 : x->ip > y->ip;
}

/* Where the function of p starts in this kernel, or 0 if that is not certain. */
static unsigned long rt_entry_address(const struct rt_probe *p)
{
	char sym[KSYM_SYMBOL_LEN];
	unsigned long text, ip;

	if (!rt_script.printk_offset || !p->text_offset)
		return 0;
	text = (unsigned long)&_printk - rt_script.printk_offset;
	ip = text + p->text_offset;
	sprint_symbol(sym, ip);
	return strstr(sym, "+0x0/") ? ip : 0;
}

/*
 * Put every entry probe whose address is known into rt_fops' filter and
 * register it once; the others (and any ftrace refuses) stay for kprobes.
 */
static void rt_place_ftrace_entries(void)
{
	unsigned long *ips;
	int i, n = 0, placed = 0;

	rt_fentries = kvcalloc(rt_script.nprobes, sizeof(*rt_fentries), GFP_KERNEL | __GFP_NOWARN);
	ips = kvcalloc(rt_script.nprobes, sizeof(*ips), GFP_KERNEL | __GFP_NOWARN);
	if (!rt_fentries || !ips)
		goto out;
	for (i = 0; i < rt_script.nprobes; i++) {
		struct rt_placed *pl = &rt_placed[i];
		unsigned long ip;

		if (pl->p->kind != RT_KPROBE || pl->p->needs_regs || pl->p->module || pl->p->offset)
			continue;
		ip = rt_entry_address(pl->p);
		if (ip)
			rt_fentries[n++] = (struct rt_fentry){ ip, pl };
	}
	if (!n)
		goto out;
	sort(rt_fentries, n, sizeof(*rt_fentries), rt_fentry_cmp, NULL);
	rt_fops.func = rt_ftrace_hit;
	/* No FTRACE_OPS_FL_RECURSION: ftrace would then call through its
	 * assist function; the runtime skips nested hits itself. */
	rt_fops.flags = 0;
	for (i = 0; i < n; i++)
		ips[i] = rt_fentries[i].ip;
	if (rt_ftrace_filter_ips(&rt_fops, ips, n) == 0) {
		placed = n;
	} else {
		/* One address ftrace does not know fails the batch: go one by one. */
		ftrace_free_filter(&rt_fops);
		for (i = 0; i < n; i++)
			if (ftrace_set_filter_ip(&rt_fops, rt_fentries[i].ip, 0, 0) == 0)
				rt_fentries[placed++] = rt_fentries[i];
	}
	/* Hits may come as soon as the ops are registered: addr() knows where. */
	for (i = 0; i < placed; i++)
		rt_fentries[i].pl->addr = rt_fentries[i].ip;
	if (placed && register_ftrace_function(&rt_fops) != 0)
		placed = 0;
	if (!placed) {
		ftrace_free_filter(&rt_fops);
		goto out;
	}
	rt_fops_registered = true;
	rt_nfentries = placed;
	for (i = 0; i < placed; i++) {
		rt_fentries[i].pl->via_ftrace = true;
		rt_fentries[i].pl->registered = true;
	}
out:
	kvfree(ips);
	if (!rt_fops_registered) {
		kvfree(rt_fentries);
		rt_fentries = NULL;
	}
}

static void rt_remove_ftrace_entries(void)
{
	if (rt_fops_registered) {
		unregister_ftrace_function(&rt_fops);
		ftrace_free_filter(&rt_fops);
		rt_fops_registered = false;
	}
	rt_nfentries = 0;
	kvfree(rt_fentries);
	rt_fentries = NULL;
}
#else
static void rt_place_ftrace_entries(void)
{
}

static void rt_remove_ftrace_entries(void)
{
}
#endif

static int rt_kprobe_pre(struct kprobe *kp, struct pt_regs *regs)
{
	struct rt_placed *pl = container_of(kp, struct rt_placed, kp);

	rt_run_probe(pl->p, regs);
	return 0;
}

static int rt_kretprobe_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct kretprobe *krp = rt_get_kretprobe(ri);
	const struct rt_probe *p;

	if (krp) {
		p = container_of(krp, struct rt_placed, krp)->p;
		rt_run_hit(p, p->handler, regs, p->entry ? ri->data : NULL);
	}
	return 0;
}

/* A return probe's entry part: saves this call's values in ri->data. If
 * it did not run (a busy CPU, a lock) or failed, the kernel is told to
 * skip the return for this call: its body would read nothing valid. */
static int rt_kretprobe_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct kretprobe *krp = rt_get_kretprobe(ri);
	const struct rt_probe *p;

	if (!krp)
		return 1;
	p = container_of(krp, struct rt_placed, krp)->p;
	return rt_run_hit(p, p->entry, regs, ri->data) ? 1 : 0;
}

/*
 * Where a probe by symbol goes: the kernel resolves "SYMBOL" or
 * "MODULE:SYMBOL" plus a non-negative offset itself. A negative offset (a
 * function before the only unique symbol of its section) needs the
 * symbol's address first: a disabled kprobe on it tells.
 */
static int rt_locate(struct rt_placed *pl, struct kprobe *kp)
{
	const struct rt_probe *p = pl->p;
	struct kprobe probe = { 0 };
	unsigned long addr;
	int rc;

	if (p->module && !pl->name) {
		pl->name = kasprintf(GFP_KERNEL, "%s:%s", p->module, p->symbol);
		if (!pl->name)
			return -ENOMEM;
	}
	if (p->offset >= 0) {
		kp->symbol_name = pl->name ? pl->name : p->symbol;
		kp->offset = (unsigned int)p->offset;
		return 0;
	}
	probe.symbol_name = pl->name ? pl->name : p->symbol;
	probe.flags = KPROBE_FLAG_DISABLED;
	rc = register_kprobe(&probe);
	if (rc)
		return rc;
	addr = (unsigned long)probe.addr;
	unregister_kprobe(&probe);
	kp->addr = (kprobe_opcode_t *)(addr + p->offset);
	return 0;
}

/*
 * The kernel calls a tracepoint's probes as f(data, its arguments). Each
 * rt_tp_hitN takes exactly the N arguments its tracepoint passes (the
 * translator gives N from the tracepoint's prototype) and lays them out
 * as a function's would be at its entry, data first: in registers, then on
 * a stack above a return address; the translator's locations for the
 * arguments are those of such a call. A callback taking more arguments
 * than passed would read past its caller's frame: at the top of an
 * interrupt stack, off the stack.
 */
#define RT_TP_MAX_ARGS 12

static void rt_tp_run(void *data, const unsigned long *a, int n)
{
	struct rt_placed *pl = data;
	unsigned long stack[1 + RT_TP_MAX_ARGS - 5] = { 0 };
	struct pt_regs regs = { 0 };
	int i;

	regs.di = (unsigned long)data;
	regs.si = n > 0 ? a[0] : 0;
	regs.dx = n > 1 ? a[1] : 0;
	regs.cx = n > 2 ? a[2] : 0;
	regs.r8 = n > 3 ? a[3] : 0;
	regs.r9 = n > 4 ? a[4] : 0;
	for (i = 5; i < n; i++)
		stack[1 + i - 5] = a[i];
	regs.sp = (unsigned long)stack;
	rt_run_probe(pl->p, &regs);
}

/* ", unsigned long a1, ..., unsigned long aN" and "a1, ..., aN" */
#define RT_TP_ARGS0
#define RT_TP_ARGS1 , unsigned long a1
#define RT_TP_ARGS2 RT_TP_ARGS1, unsigned long a2
#define RT_TP_ARGS3 RT_TP_ARGS2, unsigned long a3
#define RT_TP_ARGS4 RT_TP_ARGS3, unsigned long a4
#define RT_TP_ARGS5 RT_TP_ARGS4, unsigned long a5
#define RT_TP_ARGS6 RT_TP_ARGS5, unsigned long a6
#define RT_TP_ARGS7 RT_TP_ARGS6, unsigned long a7
#define RT_TP_ARGS8 RT_TP_ARGS7, unsigned long a8
#define RT_TP_ARGS9 RT_TP_ARGS8, unsigned long a9
#define RT_TP_ARGS10 RT_TP_ARGS9, unsigned long a10
#define RT_TP_ARGS11 RT_TP_ARGS10, unsigned long a11
#define RT_TP_ARGS12 RT_TP_ARGS11, unsigned long a12
#define RT_TP_VALS0 0
#define RT_TP_VALS1 a1
#define RT_TP_VALS2 RT_TP_VALS1, a2
#define RT_TP_VALS3 RT_TP_VALS2, a3
#define RT_TP_VALS4 RT_TP_VALS3, a4
#define RT_TP_VALS5 RT_TP_VALS4, a5
#define RT_TP_VALS6 RT_TP_VALS5, a6
#define RT_TP_VALS7 RT_TP_VALS6, a7
#define RT_TP_VALS8 RT_TP_VALS7, a8
#define RT_TP_VALS9 RT_TP_VALS8, a9
#define RT_TP_VALS10 RT_TP_VALS9, a10
#define RT_TP_VALS11 RT_TP_VALS10, a11
#define RT_TP_VALS12 RT_TP_VALS11, a12
#define RT_TP_HIT(n)                                                  \
	static void rt_tp_hit##n(void *data RT_TP_ARGS##n)            \
	{                                                             \
		const unsigned long a[] = { RT_TP_VALS##n };          \
		rt_tp_run(data, a, n);                                \
	}
RT_TP_HIT(0)
RT_TP_HIT(1)
RT_TP_HIT(2)
RT_TP_HIT(3)
RT_TP_HIT(4)
RT_TP_HIT(5)
RT_TP_HIT(6)
RT_TP_HIT(7)
RT_TP_HIT(8)
RT_TP_HIT(9)
RT_TP_HIT(10)
RT_TP_HIT(11)
RT_TP_HIT(12)

static void *const rt_tp_hits[RT_TP_MAX_ARGS + 1] = {
	rt_tp_hit0, rt_tp_hit1, rt_tp_hit2, rt_tp_hit3, rt_tp_hit4, rt_tp_hit5, rt_tp_hit6,
	rt_tp_hit7, rt_tp_hit8, rt_tp_hit9, rt_tp_hit10, rt_tp_hit11, rt_tp_hit12,
};

/* The callback of pl's tracepoint: the one taking exactly its arguments. */
static void *rt_tp_callback(const struct rt_placed *pl)
{
	return rt_tp_hits[pl->p->nargs];
}

struct rt_tp_search {
	const char *name;
	struct tracepoint *found;
};

static void rt_tp_match(struct tracepoint *tp, void *priv)
{
	struct rt_tp_search *s = priv;

	if (!s->found && !strcmp(tp->name, s->name))
		s->found = tp;
}

static int rt_place_tracepoint(struct rt_placed *pl)
{
	struct rt_tp_search s = { pl->p->symbol, NULL };

	if (pl->p->nargs < 0 || pl->p->nargs > RT_TP_MAX_ARGS)
		return -EINVAL;
	for_each_kernel_tracepoint(rt_tp_match, &s);
	if (!s.found)
		return -ENOENT;
	pl->tp = s.found;
	return tracepoint_probe_register(s.found, rt_tp_callback(pl), pl);
}

/* A timer's next period: randomize(M) adds a uniform -M..M to each. */
static ktime_t rt_timer_period(const struct rt_probe *p)
{
	u64 span, r;

	if (p->spread_ns <= 0)
		return ns_to_ktime(p->period_ns);
	span = 2 * (u64)p->spread_ns + 1;
	r = get_random_u32();
	if (span > U32_MAX)
		r = r << 32 | get_random_u32();
	return ns_to_ktime(p->period_ns - p->spread_ns + (s64)(r % span));
}

static enum hrtimer_restart rt_timer_fn(struct hrtimer *t)
{
	struct rt_placed *pl = container_of(t, struct rt_placed, timer);

	if (rt_state() != RT_RUNNING)
		return HRTIMER_NORESTART;
	rt_run_probe(pl->p, get_irq_regs());
	hrtimer_forward_now(t, rt_timer_period(pl->p));
	return HRTIMER_RESTART;
}

/* timer.profile: on every CPU at each tick, in the interrupted context. */
static enum hrtimer_restart rt_profile_fn(struct hrtimer *t)
{
	struct rt_cpu_timer *ct = container_of(t, struct rt_cpu_timer, timer);

	if (rt_state() != RT_RUNNING)
		return HRTIMER_NORESTART;
	rt_run_probe(ct->pl->p, get_irq_regs());
	hrtimer_forward_now(t, ns_to_ktime(TICK_NSEC));
	return HRTIMER_RESTART;
}

/* Run on each CPU (on_each_cpu): start that CPU's timer, pinned to it. */
static void rt_profile_start_here(void *arg)
{
	struct rt_placed *pl = arg;
	struct rt_cpu_timer *ct = &pl->cpu_timers[smp_processor_id()];

	ct->pl = pl;
	rt_hrtimer_setup(&ct->timer, rt_profile_fn, CLOCK_MONOTONIC, HRTIMER_MODE_REL_PINNED);
	hrtimer_start(&ct->timer, ns_to_ktime(TICK_NSEC), HRTIMER_MODE_REL_PINNED);
	ct->started = true;
}

static int rt_place_profile(struct rt_placed *pl)
{
	pl->cpu_timers = kcalloc(nr_cpu_ids, sizeof(*pl->cpu_timers), GFP_KERNEL);
	if (!pl->cpu_timers)
		return -ENOMEM;
	/* CPUs that come online later get none (they are not watched). */
	on_each_cpu(rt_profile_start_here, pl, 1);
	return 0;
}

static void rt_remove_profile(struct rt_placed *pl)
{
	unsigned int cpu;

	for (cpu = 0; cpu < nr_cpu_ids; cpu++)
		if (pl->cpu_timers[cpu].started)
			hrtimer_cancel(&pl->cpu_timers[cpu].timer);
	kfree(pl->cpu_timers);
	pl->cpu_timers = NULL;
}

/* A perf event's counter overflowed on this CPU: one hit, with the
 * registers where it happened (an NMI for hardware counters). */
static void rt_perf_fn(struct perf_event *event, struct perf_sample_data *data,
		       struct pt_regs *regs)
{
	struct rt_placed *pl = event->overflow_handler_context;

	rt_run_probe(pl->p, regs);
}

static void rt_remove_perf(struct rt_placed *pl)
{
	unsigned int cpu;

	for (cpu = 0; cpu < nr_cpu_ids; cpu++)
		if (pl->events[cpu])
			perf_event_release_kernel(pl->events[cpu]);
	kfree(pl->events);
	pl->events = NULL;
}

/* One counter on each online CPU; any that fails fails the probe. */
static int rt_place_perf(struct rt_placed *pl)
{
	const struct rt_probe *p = pl->p;
	/* Not pinned: a counter others need too is shared by time slices,
	 * where a pinned one could be left in an error state, never firing. */
	struct perf_event_attr attr = {
		.type = (u32)p->perf_type,
		.size = sizeof(attr),
		.config = (u64)p->perf_config,
		.sample_period = (u64)p->perf_sample,
	};
	unsigned int cpu;

	pl->events = kcalloc(nr_cpu_ids, sizeof(*pl->events), GFP_KERNEL);
	if (!pl->events)
		return -ENOMEM;
	/* No CPU hotplug lock around this: setting up some events (a
	 * tracepoint's) takes it again. A CPU going offline meanwhile is
	 * skipped (-ENODEV). */
	for_each_online_cpu(cpu) {
		struct perf_event *e = perf_event_create_kernel_counter(&attr, cpu, NULL,
									rt_perf_fn, pl);

		if (IS_ERR(e) && PTR_ERR(e) == -ENODEV)
			continue;
		if (IS_ERR(e)) {
			rt_remove_perf(pl);
			return PTR_ERR(e);
		}
		pl->events[cpu] = e;
	}
	return 0;
}

static int rt_maxactive(const struct rt_probe *p)
{
	if (p->maxactive > 0)
		return (int)p->maxactive;
	if (rt_script.maxactive > 0)
		return (int)rt_script.maxactive;
	/* The kernel's default (about 10 here) loses returns under load. */
	return max_t(int, 20, 4 * num_possible_cpus());
}

static int rt_place(struct rt_placed *pl)
{
	const struct rt_probe *p = pl->p;

	int rc;

	switch (p->kind) {
	case RT_KPROBE:
		rc = rt_locate(pl, &pl->kp);
		if (rc)
			return rc;
		pl->kp.pre_handler = rt_kprobe_pre;
		return register_kprobe(&pl->kp);
	case RT_KRETPROBE:
		rc = rt_locate(pl, &pl->krp.kp);
		if (rc)
			return rc;
		pl->krp.handler = rt_kretprobe_ret;
		if (p->entry) {
			pl->krp.entry_handler = rt_kretprobe_entry;
			pl->krp.data_size = p->entry_size;
		}
		pl->krp.maxactive = rt_maxactive(pl->p);
		return register_kretprobe(&pl->krp);
	case RT_TIMER:
		rt_hrtimer_setup(&pl->timer, rt_timer_fn, CLOCK_MONOTONIC, HRTIMER_MODE_REL);
		hrtimer_start(&pl->timer, rt_timer_period(p), HRTIMER_MODE_REL);
		return 0;
	case RT_TRACEPOINT:
		return rt_place_tracepoint(pl);
	case RT_PROFILE:
		return rt_place_profile(pl);
	case RT_PERF:
		return rt_place_perf(pl);
	case RT_BEGIN:
	case RT_END:
	case RT_ERROR:
		break;
	}
	return 0;
}

rt_long rt_probe_addr(const struct rt_probe *p)
{
	long i = p - rt_script.probes;

	if (!rt_placed || i < 0 || i >= rt_script.nprobes)
		return 0;
	/* register_kprobe() fills kp.addr in before it arms the probe. */
	if (!rt_placed[i].via_ftrace)
		return (rt_long)(unsigned long)READ_ONCE(rt_placed[i].kp.addr);
	return (rt_long)rt_placed[i].addr;
}

static const char *rt_errno_text(int rc)
{
	switch (rc) {
	case -ENOENT:
		return "no such symbol in the running kernel";
	case -EINVAL:
		return "the kernel does not allow probing there (blacklisted, notrace or not a function entry)";
	case -EILSEQ:
		return "not an instruction boundary";
	case -EBUSY:
		return "already probed in an incompatible way";
	case -ENOMEM:
		return "out of memory";
	case -EOPNOTSUPP:
		return "not supported by this kernel";
	}
	return "registration failed";
}

/* Is place failing with rc for pl only because its module is not loaded? */
static bool rt_waits_for_module(const struct rt_placed *pl, int rc)
{
	return pl->p->module && rc == -ENOENT;
}

static int rt_module_event(struct notifier_block *nb, unsigned long event, void *data);
static void rt_statics_start(void);

static struct notifier_block rt_module_nb = {
	.notifier_call = rt_module_event,
};

/* The probe table and, at most, the ftrace entry tables and the batches
 * of kprobes to unregister (all allocated in pieces of their own). */
size_t rt_probes_bytes(void)
{
	return rt_script.nprobes * (sizeof(struct rt_placed) + 2 * sizeof(void *) +
#if RT_FTRACE_ENTRY
				    sizeof(struct rt_fentry) + sizeof(unsigned long) +
#endif
				    0);
}

/* Before the begin probes: what they may read (static objects' addresses),
 * and the module notifier that keeps those and the probes up to date.
 * Tens of thousands of probes make tables of megabytes: kvcalloc, which
 * takes them from vmalloc when they are large. */
int rt_probes_prepare(void)
{
	int i;
	bool modules = false;

	rt_placed = kvcalloc(rt_script.nprobes, sizeof(*rt_placed), GFP_KERNEL | __GFP_NOWARN);
	if (!rt_placed)
		return -ENOMEM;
	for (i = 0; i < rt_script.nprobes; i++) {
		rt_placed[i].p = &rt_script.probes[i];
		modules |= rt_script.probes[i].module != NULL;
	}
	for (i = 0; i < (int)rt_script.nstatics; i++)
		modules |= rt_script.statics[i].module != NULL;
	/* First, so that a module loaded while the others are placed is seen. */
	if (modules && register_module_notifier(&rt_module_nb) == 0)
		rt_notifier_registered = true;
	mutex_lock(&rt_placing);
	rt_statics_start();
	mutex_unlock(&rt_placing);
	return 0;
}

int rt_probes_start(void)
{
	int i, rc, err = 0;

	mutex_lock(&rt_placing);
	rt_place_ftrace_entries();
	for (i = 0; i < rt_script.nprobes; i++) {
		struct rt_placed *pl = &rt_placed[i];

		if (pl->p->kind == RT_BEGIN || pl->p->kind == RT_END || pl->p->kind == RT_ERROR ||
		    pl->registered)
			continue;
		rc = rt_place(pl);
		if (rc == 0) {
			pl->registered = true;
			continue;
		}
		if (rt_waits_for_module(pl, rc)) {
			pl->waiting = true;
			continue;
		}
		if (pl->p->optional)
			continue;
		if (pl->p->from_wildcard) {
			/* The translator leaves out what it knows the kernel refuses;
			 * anything else the kernel refuses costs this one match only. */
			rt_message("warning", "probe %s on %s was not placed: %s (%d)", pl->p->pp,
				   pl->p->symbol, rt_errno_text(rc), rc);
			continue;
		}
		if (pl->p->kind == RT_PERF)
			/* A virtual machine, or a CPU without that counter. */
			rt_message("error", "cannot place probe %s: %s (%d)", pl->p->pp,
				   rc == -ENOENT || rc == -EOPNOTSUPP || rc == -EINVAL
					   ? "this CPU or kernel does not offer that perf counter"
					   : rt_errno_text(rc),
				   rc);
		else
			rt_message("error", "cannot place probe %s on %s: %s (%d)", pl->p->pp,
				   pl->name ? pl->name : pl->p->symbol ? pl->p->symbol : "?",
				   rt_errno_text(rc), rc);
		rt_request_stop(1);
		err = -EIO;
		break;
	}
	mutex_unlock(&rt_placing);
	return err;
}

/* The GNU build-id note in a module's read-only data, found by its header
 * (the kernel keeps no pointer to it where a module could reach it). */
static bool rt_module_build_id(struct module *mod, char *hex, size_t len)
{
	const char *base;
	size_t size, off, i;

	rt_module_rodata(mod, &base, &size);
	for (off = 0; base && off + 16 <= size; off += 4) {
		const u32 *w = (const u32 *)(base + off);
		u32 descsz = w[1];

		if (w[0] != 4 || w[2] != 3 /* NT_GNU_BUILD_ID */ || memcmp(base + off + 12, "GNU", 4) ||
		    descsz < 8 || descsz > 64 || off + 16 + descsz > size || 2 * descsz + 1 > len)
			continue;
		for (i = 0; i < descsz; i++)
			snprintf(hex + 2 * i, 3, "%02x", (unsigned char)base[off + 16 + i]);
		return true;
	}
	return false;
}

/* A probed module arrives: check it is the build the script was made
 * for, then place its probes. */
static void rt_module_coming(struct module *mod)
{
	char have[129] = "";
	bool checked = false, ok = true;
	int i, rc;

	for (i = 0; i < rt_script.nprobes; i++) {
		struct rt_placed *pl = &rt_placed[i];
		const struct rt_probe *p = pl->p;

		if (!pl->waiting || strcmp(p->module, mod->name))
			continue;
		if (!checked) {
			checked = true;
			if (p->module_build_id && !rt_module_build_id(mod, have, sizeof(have)))
				strscpy(have, "(none found)", sizeof(have));
			ok = !p->module_build_id || !strcmp(have, p->module_build_id);
			if (!ok)
				rt_message("error",
					   "module %s was loaded, but its build-id %s is not %s, the build the script was made for: its probes are not placed",
					   mod->name, have, p->module_build_id);
		}
		if (!ok)
			continue;
		rc = rt_place(pl);
		if (rc == 0) {
			pl->registered = pl->ever = true;
			pl->waiting = false;
		} else if (!p->optional) {
			rt_message("warning", "probe %s was not placed in module %s: %s (%d)", p->pp,
				   mod->name, rt_errno_text(rc), rc);
		}
	}
}

/*
 * Static objects' addresses: the kernel's from _text at start; a module's
 * from its own symbol table while it is loaded (at start, or when it
 * arrives). A module of another build gets none.
 */
static void rt_statics_of(struct module *mod, bool check_build_id)
{
	char have[129] = "";
	bool checked = false;
	rt_size i;

	for (i = 0; i < rt_script.nstatics; i++) {
		struct rt_static *st = &rt_script.statics[i];
		unsigned long base;

		if (!st->module || strcmp(st->module, mod->name))
			continue;
		if (check_build_id && st->module_build_id) {
			if (!checked && !rt_module_build_id(mod, have, sizeof(have)))
				strscpy(have, "(none found)", sizeof(have));
			checked = true;
			if (strcmp(have, st->module_build_id))
				continue;
		}
		preempt_disable();
		base = rt_module_symbol(mod, st->symbol);
		preempt_enable();
		WRITE_ONCE(st->addr, base ? base + st->offset : 0);
	}
}

static void rt_statics_start(void)
{
	rt_size i;

	for (i = 0; i < rt_script.nstatics; i++) {
		struct rt_static *st = &rt_script.statics[i];
		struct module *mod;

		if (!st->module) {
			if (rt_script.printk_offset)
				st->addr = (unsigned long)&_printk - rt_script.printk_offset +
					   st->text_offset;
			continue;
		}
		if (st->addr)
			continue;
		/* staprun checked the build-id of a module loaded now. */
		preempt_disable();
		mod = rt_find_module(st->module);
		if (mod)
			rt_statics_of(mod, false);
		preempt_enable();
	}
}

static void rt_statics_going(struct module *mod)
{
	rt_size i;

	for (i = 0; i < rt_script.nstatics; i++)
		if (rt_script.statics[i].module && !strcmp(rt_script.statics[i].module, mod->name))
			WRITE_ONCE(rt_script.statics[i].addr, 0);
}

static void rt_unplace(struct rt_placed *pl);

/* A probed module leaves: its probes go, and wait for it again. */
static void rt_module_going(struct module *mod)
{
	int i;

	for (i = 0; i < rt_script.nprobes; i++) {
		struct rt_placed *pl = &rt_placed[i];

		if (!pl->registered || !pl->p->module || strcmp(pl->p->module, mod->name))
			continue;
		rt_unplace(pl);
		pl->registered = false;
		pl->waiting = true;
	}
}

static int rt_module_event(struct notifier_block *nb, unsigned long event, void *data)
{
	struct module *mod = data;

	if (event != MODULE_STATE_COMING && event != MODULE_STATE_GOING)
		return NOTIFY_DONE;
	mutex_lock(&rt_placing);
	if (rt_placed && event == MODULE_STATE_COMING) {
		rt_module_coming(mod);
		rt_statics_of(mod, true);
	} else if (rt_placed) {
		rt_module_going(mod);
		rt_statics_going(mod);
	}
	mutex_unlock(&rt_placing);
	return NOTIFY_DONE;
}

static void rt_report_missed(const struct rt_placed *pl)
{
	if (pl->p->kind == RT_KPROBE && !pl->via_ftrace && pl->kp.nmissed)
		rt_message("warning", "%lu hits of %s were missed (the kernel was already in a kprobe)",
			   pl->kp.nmissed, pl->p->pp);
	if (pl->p->kind == RT_KRETPROBE && pl->krp.nmissed && pl->p->maxactive > 0)
		rt_message("warning",
			   "%d returns of %s were missed: more than maxactive(%d) calls were in flight; raise it in the probe point, .return.maxactive(N)",
			   pl->krp.nmissed, pl->p->pp, pl->krp.maxactive);
	else if (pl->p->kind == RT_KRETPROBE && pl->krp.nmissed)
		rt_message("warning",
			   "%d returns of %s were missed: more than MAXACTIVE = %d calls were in flight; raise it with -D MAXACTIVE=N",
			   pl->krp.nmissed, pl->p->pp, pl->krp.maxactive);
	if (pl->p->kind == RT_KRETPROBE && pl->krp.kp.nmissed)
		rt_message("warning", "%lu calls of %s were missed (the kernel was already in a kprobe)",
			   pl->krp.kp.nmissed, pl->p->pp);
}

static void rt_unplace(struct rt_placed *pl)
{
	rt_report_missed(pl);
	if (pl->p->kind == RT_KPROBE)
		unregister_kprobe(&pl->kp);
	else if (pl->p->kind == RT_KRETPROBE)
		unregister_kretprobe(&pl->krp);
	/* A kprobe can be registered again only from a clean state. */
	if (pl->p->kind == RT_KPROBE)
		memset(&pl->kp, 0, sizeof(pl->kp));
	else
		memset(&pl->krp, 0, sizeof(pl->krp));
}

void rt_probes_stop(void)
{
	struct kprobe **kps;
	struct kretprobe **krps;
	int i, nk = 0, nkr = 0, ntp = 0;

	if (!rt_placed)
		return;
	/* No module event runs after this returns. */
	if (rt_notifier_registered) {
		unregister_module_notifier(&rt_module_nb);
		rt_notifier_registered = false;
	}
	mutex_lock(&rt_placing);
	rt_remove_ftrace_entries();
	/* Unregistering in batches waits for running handlers once, not once per probe. */
	kps = kvcalloc(rt_script.nprobes, sizeof(*kps), GFP_KERNEL | __GFP_NOWARN);
	krps = kvcalloc(rt_script.nprobes, sizeof(*krps), GFP_KERNEL | __GFP_NOWARN);
	for (i = 0; i < rt_script.nprobes; i++) {
		struct rt_placed *pl = &rt_placed[i];

		if (!pl->registered)
			continue;
		switch (pl->p->kind) {
		case RT_KPROBE:
			if (pl->via_ftrace)
				break;
			if (kps)
				kps[nk++] = &pl->kp;
			else
				unregister_kprobe(&pl->kp);
			break;
		case RT_KRETPROBE:
			if (krps)
				krps[nkr++] = &pl->krp;
			else
				unregister_kretprobe(&pl->krp);
			break;
		case RT_TIMER:
			hrtimer_cancel(&pl->timer);
			break;
		case RT_TRACEPOINT:
			tracepoint_probe_unregister(pl->tp, rt_tp_callback(pl), pl);
			ntp++;
			break;
		case RT_PROFILE:
			rt_remove_profile(pl);
			break;
		case RT_PERF:
			rt_remove_perf(pl);
			break;
		case RT_BEGIN:
		case RT_END:
		case RT_ERROR:
			break;
		}
	}
	/* No tracepoint hit is still running when the handlers go. */
	if (ntp)
		tracepoint_synchronize_unregister();
	if (nk)
		unregister_kprobes(kps, nk);
	if (nkr)
		unregister_kretprobes(krps, nkr);
	kvfree(kps);
	kvfree(krps);
	for (i = 0; i < rt_script.nprobes; i++) {
		struct rt_placed *pl = &rt_placed[i];

		if (pl->registered)
			rt_report_missed(pl);
		if (pl->waiting && !pl->ever && !pl->p->optional)
			rt_message("warning", "probe %s was never placed: module %s was not loaded",
				   pl->p->pp, pl->p->module);
		pl->registered = false;
		kfree(pl->name);
	}
	kvfree(rt_placed);
	rt_placed = NULL;
	mutex_unlock(&rt_placing);
}

void rt_probes_run_all(enum rt_probe_kind kind)
{
	int i;

	for (i = 0; i < rt_script.nprobes; i++) {
		const struct rt_probe *p = &rt_script.probes[i];

		/* A begin probe that ends the script stops the rest of them. */
		if (kind == RT_BEGIN && rt_state() != RT_RUNNING)
			return;
		if (p->kind == kind)
			rt_run_begin_end(p);
	}
}
