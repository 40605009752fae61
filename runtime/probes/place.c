// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Placing and removing the script's probes, each by its family's file:
 * function entries through one ftrace_ops callback shared by all of them
 * (where the kernel has that API, and the translator knew the function's
 * address: ftrace.c), else kprobes by symbol name (kprobes.c); returns
 * likewise through one fprobe where the kernel has it (6.12: fprobe.c),
 * else kretprobes; tracepoints; timers; perf counters; netfilter hooks.
 * Every hit goes through rt_run_probe() (hit.h), begin and end probes
 * through rt_run_begin_end() (lifecycle.c).
 *
 * Addresses: the translator gives each function's offset from _text,
 * valid for exactly the kernel build the module was made for (staprun
 * checks the build-id before loading); _text itself is found from the
 * address of _printk, whose offset the translator gives too. An address
 * is used only if the kernel's own symbol table says a function starts
 * there and ftrace accepts it; anything else falls back to a kprobe by name.
 */
#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/tracepoint.h>

#include "hit.h"
#include "runtime.h"
#include "probes/probes.h"

struct rt_placed *rt_placed;
bool rt_module_coming_now;
/* Placing and removing probes: at start and stop, and when a probed
 * module comes or goes (the module notifier). */
static DEFINE_MUTEX(rt_placing);
static bool rt_notifier_registered;

static int rt_place(struct rt_placed *pl)
{
	const struct rt_probe *p = pl->p;

	switch (p->kind) {
	case RT_KPROBE:
		return rt_kprobe_place(pl);
	case RT_KRETPROBE:
		return rt_kretprobe_place(pl);
	case RT_TIMER:
		return rt_timer_place(pl);
	case RT_TRACEPOINT:
		return rt_tracepoint_place(pl);
	case RT_SYSCALL:
	case RT_SYSCALL_RETURN:
		return rt_syscall_place(pl);
	case RT_PROFILE:
		return rt_profile_place(pl);
	case RT_PERF:
		return rt_perf_place(pl);
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
		return rt_netfilter_place(pl);
	case RT_HWBKPT:
		return rt_hwbkpt_place(pl);
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

/*
 * A module coming is seen after the kernel's jump label (priority 1) and
 * static call notifiers have set up its sites, so that enabling its
 * tracepoints patches them as usual; a module going is seen before the
 * kernel's own tracepoint notifier (0), which warns about any probe still
 * on a leaving module's tracepoints, and the trace events' (1).
 */
static struct notifier_block rt_module_nb = {
	.notifier_call = rt_module_event,
	.priority = 0,
};
static struct notifier_block rt_module_going_nb = {
	.notifier_call = rt_module_event,
	.priority = 2,
};

/* The probe table and, at most, the ftrace entry tables and the batches
 * of kprobes to unregister (all allocated in pieces of their own). */
size_t rt_probes_bytes(void)
{
	return rt_script.nprobes * (sizeof(struct rt_placed) + 2 * sizeof(void *)) +
	       rt_ftrace_bytes() + rt_counters_bytes();
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
	if (modules && register_module_notifier(&rt_module_going_nb) == 0) {
		if (register_module_notifier(&rt_module_nb) == 0)
			rt_notifier_registered = true;
		else
			unregister_module_notifier(&rt_module_going_nb);
	}
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
	rt_ftrace_place_all();
	rt_fprobe_place_all();
	for (i = 0; i < rt_script.nprobes; i++) {
		struct rt_placed *pl = &rt_placed[i];

		if (rt_is_begin_end(pl->p) || pl->registered)
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
		if (pl->p->kind == RT_HWBKPT)
			rt_message("error", "cannot place probe %s: %s (%d)", pl->p->pp,
				   rc == -ENOSPC ? "every debug register is taken (x86 has 4; other "
						   "watchpoints or debuggers hold them)"
				   : rc == -EINVAL ? "the kernel refuses a watchpoint there"
						   : rt_errno_text(rc),
				   rc);
		else if (pl->p->kind == RT_PERF)
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
		rt_module_coming_now = true;
		rc = rt_place(pl);
		rt_module_coming_now = false;
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


/* A probed module leaves: its probes go, and wait for it again. */
static void rt_module_going(struct module *mod)
{
	int i, ntp = 0;

	for (i = 0; i < rt_script.nprobes; i++) {
		struct rt_placed *pl = &rt_placed[i];

		if (!pl->registered || !pl->p->module || strcmp(pl->p->module, mod->name))
			continue;
		if (pl->p->kind == RT_TRACEPOINT) {
			rt_tracepoint_remove(pl);
			ntp++;
		} else {
			rt_kprobe_unplace(pl);
		}
		pl->registered = false;
		pl->waiting = true;
	}
	/* No hit is still in a callback on the module's tracepoints when
	 * they go with it. */
	if (ntp)
		tracepoint_synchronize_unregister();
}

static int rt_module_event(struct notifier_block *nb, unsigned long event, void *data)
{
	struct module *mod = data;

	if (event != (nb == &rt_module_nb ? MODULE_STATE_COMING : MODULE_STATE_GOING))
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
		unregister_module_notifier(&rt_module_going_nb);
		rt_notifier_registered = false;
	}
	rt_tasks_stop();
	rt_procfs_stop();
	mutex_lock(&rt_placing);
	rt_ftrace_remove_all();
	rt_fprobe_remove_all();
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
			rt_timer_remove(pl);
			break;
		case RT_TRACEPOINT:
			rt_tracepoint_remove(pl);
			ntp++;
			break;
		case RT_SYSCALL:
		case RT_SYSCALL_RETURN:
			rt_syscall_remove(pl);
			ntp++;
			break;
		case RT_PROFILE:
			rt_profile_remove(pl);
			break;
		case RT_PERF:
		case RT_HWBKPT:
			rt_perf_remove(pl);
			break;
		case RT_NETFILTER:
			rt_netfilter_remove(pl);
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
			rt_kprobe_report_missed(pl);
		if (pl->registered &&
		    (pl->p->kind == RT_SYSCALL || pl->p->kind == RT_SYSCALL_RETURN))
			rt_syscall_release(pl);
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
