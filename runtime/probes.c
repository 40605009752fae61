// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Placing and removing the script's probes: function entries through one
 * ftrace_ops callback shared by all of them (where the kernel has that
 * API, and the translator knew the function's address), else kprobes by
 * symbol name; returns likewise through one fprobe where the kernel has
 * it (6.12), else kretprobes; tracepoints; timers. Every hit goes through rt_run_probe()
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
#include <linux/netfilter.h>
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
	bool via_ftrace;	/* an entry probe through an ftrace_ops, a return through fprobe */
	unsigned long addr;	/* RT_KPROBE through ftrace: where (addr()) */
	const char *why;	/* RT_UPROBE, RT_URETPROBE: why it was not placed */
	union {
		struct kprobe kp;
		struct kretprobe krp;
		struct hrtimer timer;
		struct tracepoint *tp;
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

static struct rt_placed *rt_placed;
/* Placing and removing probes: at start and stop, and when a probed
 * module comes or goes (the module notifier). */
static DEFINE_MUTEX(rt_placing);
static bool rt_notifier_registered;

#if RT_FTRACE_ENTRY
/* An entry probe an ftrace_ops calls, by its function's address. */
struct rt_fentry {
	unsigned long ip;
	struct rt_placed *pl;
};

/*
 * The entry probes one ftrace_ops calls, sorted by address (several may
 * share one). Two of them: one for probes that read no registers, and one
 * that has ftrace save them (FTRACE_OPS_FL_SAVE_REGS) for probes that
 * read arguments, as a kprobe on the same ftrace site would get them.
 */
struct rt_fentry_set {
	struct ftrace_ops ops;
	struct rt_fentry *v;
	int n;
	bool registered;
};
static struct rt_fentry_set rt_fentry_plain, rt_fentry_regs;

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

static __always_inline void rt_fentry_run(const struct rt_fentry_set *set, unsigned long ip,
					  struct pt_regs *regs)
{
	int k;
	unsigned long at;

	/* Hits where RCU is not watching (idle, entry code) are skipped
	 * (rt_run_hit_ftrace): the runtime's own calls may need it. */
	if (set->n == 1) {
		/* Its filter holds one address: every call is for this probe
		 * (the search and its loops cost a hit about 25 instructions). */
		rt_run_hit_ftrace(set->v[0].pl->p, set->v[0].pl->p->handler, regs, NULL);
		return;
	}
	k = rt_fentry_at(set->v, set->n, ip);
	if (k < 0)
		return;
	at = set->v[k].ip;
	while (k > 0 && set->v[k - 1].ip == at)
		k--;
	for (; k < set->n && set->v[k].ip == at; k++)
		rt_run_hit_ftrace(set->v[k].pl->p, set->v[k].pl->p->handler, regs, NULL);
}

static notrace RT_FTRACE_CALLBACK(rt_ftrace_hit)
{
	rt_fentry_run(&rt_fentry_plain, ip, NULL);
}

static notrace RT_FTRACE_CALLBACK(rt_ftrace_hit_regs)
{
	struct pt_regs *regs = ftrace_get_regs(fregs);

	/* (Always there with SAVE_REGS; a hit without them reads nothing.) */
	if (likely(regs))
		rt_fentry_run(&rt_fentry_regs, ip, regs);
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
 * Put every entry probe whose address is known and that reads registers
 * (or not, as with_regs says) into set's filter and register it once; the
 * others (and any ftrace refuses) stay for kprobes.
 */
static void rt_place_fentry_set(struct rt_fentry_set *set, bool with_regs)
{
	unsigned long *ips;
	int i, n = 0, placed = 0;

	set->v = kvcalloc(rt_script.nprobes, sizeof(*set->v), GFP_KERNEL | __GFP_NOWARN);
	ips = kvcalloc(rt_script.nprobes, sizeof(*ips), GFP_KERNEL | __GFP_NOWARN);
	if (!set->v || !ips)
		goto out;
	for (i = 0; i < rt_script.nprobes; i++) {
		struct rt_placed *pl = &rt_placed[i];
		unsigned long ip;

		if (pl->p->kind != RT_KPROBE || !!pl->p->needs_regs != with_regs || pl->p->module ||
		    pl->p->offset || pl->registered)
			continue;
		ip = rt_entry_address(pl->p);
		if (ip)
			set->v[n++] = (struct rt_fentry){ ip, pl };
	}
	if (!n)
		goto out;
	sort(set->v, n, sizeof(*set->v), rt_fentry_cmp, NULL);
	set->ops.func = with_regs ? rt_ftrace_hit_regs : rt_ftrace_hit;
	/* No FTRACE_OPS_FL_RECURSION: ftrace would then call through its
	 * assist function; the runtime skips nested hits itself. */
	set->ops.flags = with_regs ? FTRACE_OPS_FL_SAVE_REGS : 0;
	for (i = 0; i < n; i++)
		ips[i] = set->v[i].ip;
	if (rt_ftrace_filter_ips(&set->ops, ips, n) == 0) {
		placed = n;
	} else {
		/* One address ftrace does not know fails the batch: go one by one. */
		ftrace_free_filter(&set->ops);
		for (i = 0; i < n; i++)
			if (ftrace_set_filter_ip(&set->ops, set->v[i].ip, 0, 0) == 0)
				set->v[placed++] = set->v[i];
	}
	/* Hits may come as soon as the ops are registered: addr() knows where. */
	for (i = 0; i < placed; i++)
		set->v[i].pl->addr = set->v[i].ip;
	set->n = placed;
	if (placed && register_ftrace_function(&set->ops) != 0)
		placed = 0;
	if (!placed) {
		set->n = 0;
		ftrace_free_filter(&set->ops);
		goto out;
	}
	set->registered = true;
	for (i = 0; i < placed; i++) {
		set->v[i].pl->via_ftrace = true;
		set->v[i].pl->registered = true;
	}
out:
	kvfree(ips);
	if (!set->registered) {
		kvfree(set->v);
		set->v = NULL;
	}
}

static void rt_remove_fentry_set(struct rt_fentry_set *set)
{
	if (set->registered) {
		unregister_ftrace_function(&set->ops);
		ftrace_free_filter(&set->ops);
		set->registered = false;
	}
	set->n = 0;
	kvfree(set->v);
	set->v = NULL;
}

static void rt_place_ftrace_entries(void)
{
	rt_place_fentry_set(&rt_fentry_plain, false);
	rt_place_fentry_set(&rt_fentry_regs, true);
}

static void rt_remove_ftrace_entries(void)
{
	rt_remove_fentry_set(&rt_fentry_plain);
	rt_remove_fentry_set(&rt_fentry_regs);
}
#else
static void rt_place_ftrace_entries(void)
{
}

static void rt_remove_ftrace_entries(void)
{
}
#endif

#if RT_FPROBE_RETURN && RT_FTRACE_ENTRY
static int rt_maxactive(const struct rt_probe *p);

/*
 * Return probes through one fprobe, for the functions whose address is
 * known and that have one return probe each (the rest are kretprobes):
 * no kretprobe, and no kprobe, per function. The entry handler records
 * the call's probe in the fprobe's per-call data (with what the probe's
 * entry part saves), the exit handler runs the body.
 */
static struct rt_fentry *rt_fexits;	/* sorted by address, one per function */
static int rt_nfexits;
static struct fprobe rt_fprobe;
static bool rt_fprobe_registered;
static struct ftrace_ops rt_fexit_check;

struct rt_fexit_call {
	const struct rt_probe *p;
	char data[];
};

/* The return probe of the function entry_ip (its ftrace site) is in. */
static const struct rt_probe *rt_fexit_probe(unsigned long entry_ip)
{
	int k = rt_fentry_at(rt_fexits, rt_nfexits, entry_ip);

	return k < 0 ? NULL : rt_fexits[k].pl->p;
}

/* Non-zero: no exit handler for this call (as a kretprobe's entry handler). */
static notrace RT_FPROBE_ENTRY(rt_fprobe_entry)
{
	struct rt_fexit_call *call = entry_data;
	const struct rt_probe *p;

	/* (fprobe calls its handlers with preemption off.) */
	if (unlikely(!rt_rcu_watching())) {
		rt_count_skip(&rt_sess.skipped_unsafe);
		return 1;
	}
	p = rt_fexit_probe(entry_ip);
	if (!p)
		return 1;
	call->p = p;
	/* (Registers are always given here; without them the entry part
	 * runs as a hit, which fails cleanly.) */
	if (p->entry_regs && regs) {
		p->entry_regs(regs, call->data);
		return 0;
	}
	return p->entry && rt_run_hit(p, p->entry, regs, call->data) ? 1 : 0;
}

static notrace RT_FPROBE_EXIT(rt_fprobe_exit)
{
	struct rt_fexit_call *call = entry_data;
	const struct rt_probe *p = call->p;

	rt_run_hit(p, p->handler, regs, p->entry ? call->data : NULL);
}

/* The exit handler when no return probe has an entry part: the probe from
 * the function's address, and no entry handler at all (an indirect call
 * fewer per hit, through retpolines and return thunks). */
static notrace RT_FPROBE_EXIT(rt_fprobe_exit_only)
{
	const struct rt_probe *p;

	if (unlikely(!rt_rcu_watching())) {
		rt_count_skip(&rt_sess.skipped_unsafe);
		return;
	}
	p = rt_fexit_probe(entry_ip);
	if (p)
		rt_run_hit(p, p->handler, regs, NULL);
}

static void rt_place_fprobe_returns(void)
{
	unsigned long *ips;
	size_t data = 0;
	int i, k, n = 0;

	rt_fexits = kvcalloc(rt_script.nprobes, sizeof(*rt_fexits), GFP_KERNEL | __GFP_NOWARN);
	ips = kvcalloc(rt_script.nprobes, sizeof(*ips), GFP_KERNEL | __GFP_NOWARN);
	if (!rt_fexits || !ips)
		goto out;
	for (i = 0; i < rt_script.nprobes; i++) {
		struct rt_placed *pl = &rt_placed[i];
		unsigned long ip;

		/* .maxactive(N) is a kretprobe's own pool: those stay kretprobes. */
		if (pl->p->kind != RT_KRETPROBE || pl->p->module || pl->p->offset ||
		    pl->p->maxactive > 0)
			continue;
		ip = rt_entry_address(pl->p);
		if (ip)
			rt_fexits[n++] = (struct rt_fentry){ ip, pl };
	}
	sort(rt_fexits, n, sizeof(*rt_fexits), rt_fentry_cmp, NULL);
	/* A call carries one probe: a function with two stays with kretprobes. */
	for (i = 0, k = 0; i < n;) {
		int j = i + 1;

		while (j < n && rt_fexits[j].ip == rt_fexits[i].ip)
			j++;
		if (j == i + 1)
			rt_fexits[k++] = rt_fexits[i];
		i = j;
	}
	n = k;
	/* One address ftrace does not take fails the whole registration:
	 * those are left to kretprobes, found through a filter of a scratch
	 * ops that is never registered. */
	for (i = 0, k = 0; i < n; i++)
		if (ftrace_set_filter_ip(&rt_fexit_check, rt_fexits[i].ip, 0, 0) == 0)
			rt_fexits[k++] = rt_fexits[i];
	ftrace_free_filter(&rt_fexit_check);
	n = k;
	if (!n)
		goto out;
	for (i = 0; i < n; i++) {
		ips[i] = rt_fexits[i].ip;
		data = max_t(size_t, data, rt_fexits[i].pl->p->entry ? rt_fexits[i].pl->p->entry_size : 0);
		/* Hits may come as soon as it is registered: addr() knows where. */
		rt_fexits[i].pl->addr = rt_fexits[i].ip;
	}
	rt_nfexits = n;
	for (i = 0; i < n && !rt_fexits[i].pl->p->entry; i++)
		;
	if (i < n) {
		rt_fprobe.entry_handler = rt_fprobe_entry;
		rt_fprobe.exit_handler = rt_fprobe_exit;
		rt_fprobe.entry_data_size = sizeof(struct rt_fexit_call) + data;
	} else {
		rt_fprobe.exit_handler = rt_fprobe_exit_only;
	}
	/* Calls in flight at once, all functions together: as many as their
	 * kretprobes would have had, up to 8192 (the kernel's default, two per
	 * CPU and function, loses returns of blocking calls at once). */
	rt_fprobe.nr_maxactive = (int)min_t(long, 8192, (long)n * rt_maxactive(rt_fexits[0].pl->p));
	if (register_fprobe_ips(&rt_fprobe, ips, n) != 0) {
		for (i = 0; i < n; i++)
			rt_fexits[i].pl->addr = 0;
		rt_nfexits = 0;
		memset(&rt_fprobe, 0, sizeof(rt_fprobe));
		goto out;
	}
	rt_fprobe_registered = true;
	for (i = 0; i < n; i++) {
		rt_fexits[i].pl->via_ftrace = true;
		rt_fexits[i].pl->registered = true;
	}
out:
	kvfree(ips);
	if (!rt_fprobe_registered) {
		kvfree(rt_fexits);
		rt_fexits = NULL;
	}
}

static void rt_remove_fprobe_returns(void)
{
	if (rt_fprobe_registered) {
		/* (Calls while it is being removed count as missed: not those.) */
		unsigned long missed = READ_ONCE(rt_fprobe.nmissed);

		unregister_fprobe(&rt_fprobe);
		if (missed)
			rt_message("warning",
				   "%lu calls of functions with return probes were missed: already in a probe, or more calls in flight than the kernel keeps room for; raise it with -D MAXACTIVE=N (per function)",
				   missed);
		memset(&rt_fprobe, 0, sizeof(rt_fprobe));
		rt_fprobe_registered = false;
	}
	rt_nfexits = 0;
	kvfree(rt_fexits);
	rt_fexits = NULL;
}
#else
static void rt_place_fprobe_returns(void)
{
}

static void rt_remove_fprobe_returns(void)
{
}
#endif

static notrace int rt_kprobe_pre(struct kprobe *kp, struct pt_regs *regs)
{
	struct rt_placed *pl = container_of(kp, struct rt_placed, kp);

	rt_run_probe(pl->p, regs);
	return 0;
}

static notrace int rt_kretprobe_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
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
static notrace int rt_kretprobe_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct kretprobe *krp = rt_get_kretprobe(ri);
	const struct rt_probe *p;

	if (!krp)
		return 1;
	p = container_of(krp, struct rt_placed, krp)->p;
	if (p->entry_regs && regs) {
		p->entry_regs(regs, (char *)ri->data);
		return 0;
	}
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

/* The registers a call of the handler's function would have: see above. */
static notrace void rt_tp_run_regs(struct rt_placed *pl, const unsigned long *a, int n)
{
	unsigned long stack[1 + RT_TP_MAX_ARGS - 5] = { 0 };
	struct pt_regs regs = { 0 };
	int i;

	regs.di = (unsigned long)pl;
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

/* ", unsigned long a1, ..., unsigned long aN", "a1, ..., aN" and ", a1, ..., aN" */
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
#define RT_TP_PASS0
#define RT_TP_PASS1 , a1
#define RT_TP_PASS2 RT_TP_PASS1, a2
#define RT_TP_PASS3 RT_TP_PASS2, a3
#define RT_TP_PASS4 RT_TP_PASS3, a4
#define RT_TP_PASS5 RT_TP_PASS4, a5
#define RT_TP_PASS6 RT_TP_PASS5, a6
#define RT_TP_PASS7 RT_TP_PASS6, a7
#define RT_TP_PASS8 RT_TP_PASS7, a8
#define RT_TP_PASS9 RT_TP_PASS8, a9
#define RT_TP_PASS10 RT_TP_PASS9, a10
#define RT_TP_PASS11 RT_TP_PASS10, a11
#define RT_TP_PASS12 RT_TP_PASS11, a12
/*
 * A handler that reads no argument gets no registers (as an entry probe
 * through the plain ftrace_ops): its hit lays out and clears nothing, and
 * has no array on the stack (which would cost it the stack protector's
 * check too).
 */
#define RT_TP_HIT(n)                                                        \
	static noinline notrace void rt_tp_regs##n(void *data RT_TP_ARGS##n) \
	{                                                                   \
		const unsigned long a[] = { RT_TP_VALS##n };                \
		rt_tp_run_regs(data, a, n);                                 \
	}                                                                   \
	static notrace void rt_tp_hit##n(void *data RT_TP_ARGS##n)          \
	{                                                                   \
		const struct rt_placed *pl = data;                          \
		if (likely(!pl->p->needs_regs))                             \
			rt_run_probe(pl->p, NULL);                          \
		else                                                        \
			rt_tp_regs##n(data RT_TP_PASS##n);                  \
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

static notrace enum hrtimer_restart rt_timer_fn(struct hrtimer *t)
{
	struct rt_placed *pl = container_of(t, struct rt_placed, timer);

	if (rt_state() != RT_RUNNING)
		return HRTIMER_NORESTART;
	rt_run_probe(pl->p, get_irq_regs());
	hrtimer_forward_now(t, rt_timer_period(pl->p));
	return HRTIMER_RESTART;
}

/* timer.profile: on every CPU at each tick, in the interrupted context. */
static notrace enum hrtimer_restart rt_profile_fn(struct hrtimer *t)
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
static notrace void rt_perf_fn(struct perf_event *event, struct perf_sample_data *data,
		       struct pt_regs *regs)
{
	struct rt_placed *pl = event->overflow_handler_context;

	rt_run_probe(pl->p, regs);
}

/*
 * A netfilter hook: the handler sees the hook function's own arguments
 * (the translator's site for it is the kernel's nf_hookfn prototype: priv,
 * skb, state in rdi, rsi, rdx of stand-in registers) and the verdict
 * ($verdict, NF_ACCEPT unless a guru-mode script drops the packet).
 */
static notrace unsigned int rt_nf_hook(void *priv, struct sk_buff *skb,
				       const struct nf_hook_state *state)
{
	struct rt_placed *pl = priv;
	unsigned int verdict = NF_ACCEPT;
	struct pt_regs regs;

	memset(&regs, 0, sizeof(regs));
	regs.di = (unsigned long)priv;
	regs.si = (unsigned long)skb;
	regs.dx = (unsigned long)state;
	rt_run_hit(pl->p, pl->p->handler, &regs, (char *)&verdict);
	return verdict;
}

static int rt_place_netfilter(struct rt_placed *pl)
{
	pl->nfo.hook = rt_nf_hook;
	pl->nfo.priv = pl;
	pl->nfo.pf = (u8)pl->p->nf_pf;
	pl->nfo.hooknum = (unsigned int)pl->p->nf_hook;
	pl->nfo.priority = (int)pl->p->nf_priority;
	return nf_register_net_hook(&init_net, &pl->nfo);
}

rt_long rt_nf_verdict(struct rt_context *c)
{
	unsigned int *v = (unsigned int *)rt_entry_data(c);

	return v ? *v : NF_ACCEPT;
}

void rt_nf_set_verdict(struct rt_context *c, rt_long v, const char *loc)
{
	unsigned int *verdict = (unsigned int *)rt_entry_data(c);

	if (v != NF_DROP && v != NF_ACCEPT) {
		rt_failf(c, loc, "set NF_DROP (0) or NF_ACCEPT (1)",
			 "$verdict = %lld: only NF_DROP and NF_ACCEPT can be set (a stolen or queued packet needs more than a verdict)",
			 v);
		return;
	}
	if (verdict)
		*verdict = (unsigned int)v;
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
	case RT_UPROBE:
	case RT_URETPROBE:
		return rt_uprobe_place((int)(pl - rt_placed), &pl->why);
	case RT_PROCESS_BEGIN:
	case RT_PROCESS_END:
	case RT_THREAD_BEGIN:
	case RT_THREAD_END:
	case RT_PERF_COUNTER:
		/* All of them at once, by rt_tasks_start(). */
		return 0;
	case RT_PROCFS_READ:
	case RT_PROCFS_WRITE:
		/* Their files, at once, by rt_procfs_start(). */
		return 0;
	case RT_NETFILTER:
		return rt_place_netfilter(pl);
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
				    0) +
	       rt_counters_bytes();
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
	if (!rt_placed || rt_uprobes_prepare()) {
		kvfree(rt_placed);
		rt_placed = NULL;
		return -ENOMEM;
	}
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

/*
 * A probe point of several sites (a wildcard's matches, a function's
 * inlined copies) whose every site the kernel refused: the script fails,
 * as in SystemTap; one or more placed (or waiting for their module) is
 * enough, each refused site having been warned about, and how many of
 * the point's sites were placed said once.
 */
static int rt_points_check(void)
{
	struct { int sites, placed; } *n;
	int i, rc = 0;

	for (i = 0; i < rt_script.nprobes && !rt_script.probes[i].point; i++)
		;
	if (i == rt_script.nprobes)
		return 0;
	n = kvcalloc(rt_script.nprobes, sizeof(*n), GFP_KERNEL);
	if (!n)
		return 0; /* each refused site was warned about */
	for (i = 0; i < rt_script.nprobes; i++) {
		int pt = rt_placed[i].p->point;

		if (!pt)
			continue;
		n[pt - 1].sites++;
		n[pt - 1].placed += rt_placed[i].registered || rt_placed[i].waiting;
	}
	for (i = 0; i < rt_script.nprobes && !rc; i++) {
		const struct rt_probe *p = rt_placed[i].p;

		if (p->point != i + 1 || p->optional)
			continue;
		if (n[i].placed) {
			if (n[i].placed < n[i].sites)
				rt_message("warning", "%d of the %d probes of %s were placed",
					   n[i].placed, n[i].sites, p->pp);
			continue;
		}
		rt_message("error", "cannot place any of the %d probes of %s: the kernel refused each (see the warnings above)",
			   n[i].sites, p->pp);
		rt_request_stop(1);
		rc = -EIO;
	}
	kvfree(n);
	return rc;
}

int rt_probes_start(void)
{
	int i, rc, err = 0;

	/* First, processes are watched (and @perf's threads counted): a
	 * process that starts while the probes are placed is then not missed
	 * by both, though its probes fire; and the begin probes of those
	 * already running run now. */
	if (rt_tasks_start()) {
		rt_request_stop(1);
		return -EIO;
	}
	mutex_lock(&rt_placing);
	rt_place_ftrace_entries();
	rt_place_fprobe_returns();
	for (i = 0; i < rt_script.nprobes; i++) {
		struct rt_placed *pl = &rt_placed[i];

		if (pl->p->kind == RT_BEGIN || pl->p->kind == RT_END || pl->p->kind == RT_ERROR ||
		    pl->registered)
			continue;
		/* Placing tens of thousands of probes takes a while, all of it
		 * in staprun's `start`: Ctrl-C (or kill) ends it here. */
		if (signal_pending(current)) {
			rt_message("error", "the script was interrupted while its probes were placed (%d of %d done)",
				   i, rt_script.nprobes);
			rt_request_stop(1);
			err = -EINTR;
			break;
		}
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
			 * anything else the kernel refuses costs this one site only
			 * (of a wildcard's matches, or of a function's copies). */
			if (pl->p->offset)
				rt_message("warning", "probe %s on %s%+lld was not placed: %s (%d)",
					   pl->p->pp, pl->p->symbol, (long long)pl->p->offset,
					   rt_errno_text(rc), rc);
			else
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
				   pl->why ? pl->why : rt_errno_text(rc), rc);
		rt_request_stop(1);
		err = -EIO;
		break;
	}
	mutex_unlock(&rt_placing);
	if (!err)
		err = rt_points_check();
	if (!err && rt_procfs_start()) {
		rt_request_stop(1);
		err = -EIO;
	}
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

		if (st->uobject)
			continue; /* found in the hit's process (rt_static_addr) */
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
	rt_tasks_stop();
	rt_procfs_stop();
	mutex_lock(&rt_placing);
	rt_remove_ftrace_entries();
	rt_remove_fprobe_returns();
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
			if (pl->via_ftrace)
				break;
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
		case RT_NETFILTER:
			/* Waits for the hooks that are running. */
			nf_unregister_net_hook(&init_net, &pl->nfo);
			break;
		case RT_PROCFS_READ:
		case RT_PROCFS_WRITE:
		case RT_UPROBE:
		case RT_URETPROBE:
		case RT_PROCESS_BEGIN:
		case RT_PROCESS_END:
		case RT_THREAD_BEGIN:
		case RT_THREAD_END:
		case RT_PERF_COUNTER:
		case RT_BEGIN:
		case RT_END:
		case RT_ERROR:
			break;
		}
	}
	rt_uprobes_stop();
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
