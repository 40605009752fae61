// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The built-in probe point families: a point that is not an alias becomes
 * one or more concrete probes (a kprobe on a symbol, a timer with a period,
 * begin/end). Kernel function names are checked against the target
 * kernel's function list: a function the kernel would refuse
 * (debuginfo/kfuncs.c says why) or that the runtime itself calls while it
 * handles a hit is an error when named, and left out of a wildcard's
 * matches (-v says which and why). A misspelt name gets the closest names;
 * an optional point that matches nothing is dropped quietly.
 */
#include <fnmatch.h>
#include <limits.h>
#include <inttypes.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "debuginfo/btf.h"
#include "debuginfo/dw.h"
#include "debuginfo/kernel.h"
#include "debuginfo/tracepoints.h"
#include "debuginfo/userelf.h"
#include "front/diag.h"
#include "sema/points.h"
#include "sema/probes.h"
#include "sema/sema.h"


/* The probe point shapes Tapline knows, for "did you mean". */
static const char *const known_shapes[] = {
	"begin", "end", "error", "never", "timer.ms", "timer.s", "timer.us", "timer.ns", "timer.sec",
	"timer.msec", "timer.usec", "timer.nsec", "timer.hz", "timer.jiffies", "timer.ms.randomize",
	"timer.s.randomize", "timer.jiffies.randomize", "timer.profile", "perf.hw", "perf.sw",
	"perf.type.config", "perf.type.config.sample", "perf.hw.counter", "perf.sw.counter",
	"perf.hw.process.counter", "perf.sw.process.counter", "kernel.function",
	"kernel.function.return", "kernel.function.call", "kprobe.function",
	"kprobe.function.return", "module.function", "module.function.call",
	"module.function.return", "module.function.inline", "module.statement", "kernel.trace",
	"process.function", "process.function.call", "process.function.return",
	"process.function.inline", "process.statement", "process.mark", "process.provider.mark",
	"process.library.function", "process.library.function.return", "process.library.mark",
	"process.begin", "process.end", "process.thread.begin", "process.thread.end",
	"process.plt", "process.plt.return", "procfs.read", "procfs.write", "procfs.umask.read",
	"procfs.umask.write", "procfs.read.maxsize", "procfs.umask.read.maxsize",
	"netfilter.hook.pf", "netfilter.pf.hook", "netfilter.hook.pf.priority",
	"netfilter.pf.hook.priority",
};

/* Every probe point family, as the hint lists them. */
static const char *const families[] = {
	"begin[(N)]", "end[(N)]", "error[(N)]", "never", "timer.ns/us/ms/s(N)[.randomize(M)]",
	"timer.nsec/usec/msec/sec(N)[.randomize(M)]", "timer.jiffies(N)[.randomize(M)]",
	"timer.hz(N)", "timer.profile",
	"perf.hw.NAME[.sample(N)]", "perf.sw.NAME[.sample(N)]", "perf.type(T).config(C)[.sample(N)]",
	"perf.EVENT[.process(\"PATH\")].counter(\"NAME\")",
	"kernel.function(\"name\")[.call|.return[.maxactive(N)]]",
	"kprobe.function(\"name\")[.return]",
	"module(\"m\").function(\"name[@file[:line]]\")[.call|.return|.inline]",
	"module(\"m\").statement(\"name@file:line\")",
	"kernel.statement(\"name@file:line\")",
	"kernel.trace(\"[system:]name\")",
	"process(\"PATH\")[.library(\"LIB\")].function(\"name[@file[:line]]\")[.call|.return|.inline]",
	"process(\"PATH\")[.library(\"LIB\")].statement(\"name@file:line\")",
	"process(\"PATH\")[.library(\"LIB\")][.provider(\"p\")].mark(\"name\")",
	"process[(\"PATH\"|PID)][.thread].begin|end",
	"procfs[(\"NAME\")][.umask(U)].read[.maxsize(N)]", "procfs[(\"NAME\")][.umask(U)].write",
	"netfilter.hook(\"HOOK\").pf(\"PF\")[.priority(\"N\")]",
	"process(\"PATH\").plt[(\"name\")][.return]",
};

/* Families that SystemTap has and Tapline will have, but not yet. */
static const char *const later_families[] = { "tp_syscall",
					      "kprobe.module", "kernel.data", "java", "python2",
					      "python3" };


/* arg: the period of a timer (its spread is set after), the priority of begin/end. */
struct probe *add_probe(struct pp_ctx *c, enum probe_kind kind, const char *symbol,
			       long long arg)
{
	struct probe *p = xcalloc(1, sizeof *p);
	p->kind = kind;
	p->pp = c->pp;
	/* pp() names the concrete point: a wildcard's match, not the pattern. */
	if (symbol)
		p->pp_text = xasprintf("%s.function(\"%s\")%s", c->comps[0].name, symbol,
				       kind == PK_KRETPROBE ? ".return" : "");
	else
		p->pp_text = ast_probe_point_text(c->pp);
	p->handler = c->pt->handler(c->pt->arg, false);
	if (p->handler->site && sema_uses_targets(p->handler->body))
		p->handler = c->pt->handler(c->pt->arg, true);
	c->made++;
	p->maxactive = c->maxactive;
	p->needs_regs = sema_uses_registers(p->handler->body);
	p->symbol = symbol ? xstrdup(symbol) : NULL;
	if (kind == PK_TIMER)
		p->period_ns = arg;
	else
		p->priority = arg;
	p->optional = c->pt->optional;
	pv_push(&c->s->prog.probes, p);
	return p;
}

/*
 * A probe placed through debug information. A body that reads target
 * variables is compiled for one site, so each such probe gets its own
 * copy of the handler.
 */
struct probe *add_site_probe(struct pp_ctx *c, enum probe_kind kind, struct probe_site *site)
{
	struct probe *p = xcalloc(1, sizeof *p);
	p->kind = kind;
	p->pp = c->pp;
	struct strbuf b;
	sb_init(&b);
	bool ret = kind == PK_KRETPROBE || kind == PK_URETPROBE;
	if (site->is_user)
		sb_printf(&b, "process(\"%s\").", site->object);
	else if (strcmp(site->object, "kernel"))
		sb_printf(&b, "module(\"%s\").", site->object);
	else
		sb_puts(&b, "kernel.");
	if (site->mark_provider)
		sb_printf(&b, "provider(\"%s\").mark(\"%s", site->mark_provider, site->function);
	else if (site->is_plt)
		sb_printf(&b, "plt(\"%s", site->function);
	else
		sb_printf(&b, "%s(\"%s", site->is_statement ? "statement" : "function", site->function);
	if (site->decl_file)
		sb_printf(&b, "@%s", site->decl_file);
	if (site->decl_file && site->decl_line)
		sb_printf(&b, ":%d", site->decl_line);
	sb_printf(&b, "\")%s", ret ? ".return" : site->is_inline ? ".inline" : "");
	p->pp_text = sb_detach(&b);
	struct handler *h = c->pt->handler(c->pt->arg, false);
	if (sema_uses_targets(h->body) && h->site)
		h = c->pt->handler(c->pt->arg, true);
	if (!h->site) {
		h->site = site;
		h->is_return = ret;
	}
	p->handler = h;
	c->made++;
	p->maxactive = c->maxactive;
	p->symbol = site->anchor ? xstrdup(site->anchor) : NULL;
	p->module = strcmp(site->object, "kernel") && !site->is_user ? xstrdup(site->object) : NULL;
	p->offset = site->anchor_offset;
	p->site = site;
	p->needs_regs = sema_uses_registers(h->body);
	p->optional = c->pt->optional;
	pv_push(&c->s->prog.probes, p);
	return p;
}

bool comp_is(const struct pp_ctx *c, int i, const char *name)
{
	return i < c->n && !strcmp(c->comps[i].name, name);
}

static char *shape_of(const struct pp_ctx *c)
{
	struct strbuf b;
	sb_init(&b);
	for (int i = 0; i < c->n; i++) {
		if (i)
			sb_putc(&b, '.');
		sb_puts(&b, c->comps[i].name);
	}
	return sb_detach(&b);
}

bool want_number(const struct pp_ctx *c, int i, bool required, long long *out)
{
	const struct comp *k = &c->comps[i];
	if (!k->arg) {
		if (required)
			diag_error(k->loc, D_BAD_PROBE_ARG, "'%s' needs a number in parentheses",
				   k->name);
		return !required;
	}
	if (k->arg->kind != N_NUM) {
		diag_error(k->arg->loc, D_BAD_PROBE_ARG, "'%s' takes a number, not a string",
			   k->name);
		return false;
	}
	*out = k->arg->num;
	return true;
}

/* No name is near: the aliases of the same family ("vm." for vm.kmalloc),
 * which is what a user reaching for one is looking for. False if none. */
static bool hint_family_aliases(const struct pp_ctx *c, const char *shape)
{
	const struct ptrvec *names = c->pt->alias_names;
	size_t fam = strcspn(shape, ".");
	if (!names || !shape[fam])
		return false;
	struct strbuf b;
	sb_init(&b);
	size_t shown = 0, more = 0;
	for (size_t i = 0; i < names->n; i++) {
		const char *a = names->v[i];
		bool again = false;
		for (size_t k = 0; k < i && !again; k++)
			again = !strcmp(names->v[k], a);
		if (again || strncmp(a, shape, fam + 1))
			continue;
		if (shown < 12)
			sb_printf(&b, "%s%s", shown++ ? ", " : "", a);
		else
			more++;
	}
	if (shown) {
		if (more)
			sb_printf(&b, " and %zu more (stap -l '%.*s.**')", more, (int)fam, shape);
		diag_hint("the '%.*s' probe aliases: %s", (int)fam, shape, b.s);
	}
	sb_free(&b);
	return shown > 0;
}

void unknown_shape(struct pp_ctx *c)
{
	if (c->pt->optional)
		return;
	char *shape = shape_of(c);
	for (size_t i = 0; i < ARRAY_SIZE(later_families); i++) {
		size_t n = strlen(later_families[i]);
		if (!strncmp(shape, later_families[i], n) && (shape[n] == 0 || shape[n] == '.')) {
			diag_error(c->pp->loc, D_UNSUPPORTED,
				   "'%s' probes are not supported by Tapline yet", later_families[i]);
			free(shape);
			return;
		}
	}
	diag_error(c->pp->loc, D_UNKNOWN_PROBE, "unknown probe point '%s'", shape);
	struct suggest sg;
	suggest_init(&sg, shape);
	for (size_t i = 0; i < ARRAY_SIZE(known_shapes); i++)
		suggest_offer(&sg, known_shapes[i]);
	for (size_t i = 0; c->pt->alias_names && i < c->pt->alias_names->n; i++)
		suggest_offer(&sg, c->pt->alias_names->v[i]);
	if (!suggest_hint(&sg, NULL) && !hint_family_aliases(c, shape)) {
		struct strbuf b;
		sb_init(&b);
		for (size_t i = 0; i < ARRAY_SIZE(families); i++)
			sb_printf(&b, "%s%s", i ? ", " : "", families[i]);
		diag_hint("the probe points Tapline knows: %s", b.s);
		sb_free(&b);
	}
	free(shape);
}

/*
 * Wildcards could name thousands of functions, each a kprobe: at most
 * -D MAXWILDCARD (1000) for one probe point. True (after the error) when
 * n matches, of what names them, are more.
 */
bool too_many_matches(const struct pp_ctx *c, struct loc loc, const char *what, size_t n,
			     const char *noun)
{
	size_t limit = (size_t)c->s->limits[LIMIT_MAXWILDCARD];
	if (n <= limit || c->s->list)
		return false;
	diag_error(loc, D_BAD_PROBE_ARG,
		   "%s matches %zu %s; Tapline places at most %zu probes for one probe point "
		   "(-D MAXWILDCARD)",
		   what, n, noun, limit);
	diag_hint("narrow the pattern, or raise the limit: -D MAXWILDCARD=%zu", n);
	return true;
}

static void begin_end(struct pp_ctx *c, enum probe_kind kind)
{
	long long prio = 0;
	if (!want_number(c, 0, false, &prio))
		return;
	add_probe(c, kind, NULL, prio);
}

/*
 * procfs[("NAME")][.umask(U)].read[.maxsize(N)] and .write: the file
 * /proc/systemtap/MODULE/NAME ("command" when unnamed), read or written
 * by anyone its mode lets (0444 for reading, 0200 for writing, less the
 * umask and PROCFS_UMASK, which leaves root alone by default). $value
 * holds MAXSTRINGLEN bytes, or N; each of the PROCFS_MAXOPEN opens the
 * file may have at once has one, so N that many times must fit in
 * MAXMEMORY (the runtime checks the default, a share of the machine's).
 */
static void procfs_point(struct pp_ctx *c)
{
	const char *name = "command";
	long long umask = 0, maxsize = 0;
	int i = 1;
	if (c->comps[0].arg) {
		if (c->comps[0].arg->kind != N_STR) {
			diag_error(c->comps[0].arg->loc, D_BAD_PROBE_ARG,
				   "procfs(\"NAME\") takes a file name");
			return;
		}
		name = c->comps[0].arg->str;
		bool ok = *name && strcmp(name, ".") && strcmp(name, "..") && strlen(name) < 64;
		for (const char *p = name; ok && *p; p++)
			ok = isalnum((unsigned char)*p) || *p == '_' || *p == '-' || *p == '.';
		if (!ok) {
			diag_error(c->comps[0].arg->loc, D_BAD_PROBE_ARG,
				   "procfs(\"%s\"): a file name is letters, digits, '_', '-' and '.' "
				   "(at most 63, not '.' or '..')", name);
			return;
		}
	}
	if (i < c->n && comp_is(c, i, "umask")) {
		if (!want_number(c, i, true, &umask))
			return;
		if (umask < 0 || umask > 0777) {
			diag_error(c->comps[i].loc, D_BAD_PROBE_ARG,
				   "umask(%llo): a umask is 0 to 0777", (unsigned long long)umask);
			return;
		}
		i++;
	}
	enum probe_kind kind;
	if (i < c->n && comp_is(c, i, "read"))
		kind = PK_PROCFS_READ;
	else if (i < c->n && comp_is(c, i, "write"))
		kind = PK_PROCFS_WRITE;
	else {
		unknown_shape(c);
		return;
	}
	i++;
	if (kind == PK_PROCFS_READ && i < c->n && comp_is(c, i, "maxsize")) {
		if (!want_number(c, i, true, &maxsize))
			return;
		if (maxsize < 1 || maxsize > 1 << 24) {
			diag_error(c->comps[i].loc, D_BAD_PROBE_ARG,
				   "maxsize(%lld): 1 to 16777216 bytes", maxsize);
			return;
		}
		long long opens = c->s->limits[LIMIT_PROCFS_MAXOPEN];
		long long memory_kb = c->s->limits[LIMIT_MAXMEMORY];
		if (memory_kb && maxsize * opens > memory_kb * 1024) {
			diag_error(c->comps[i].loc, D_BAD_PROBE_ARG,
				   "maxsize(%lld): PROCFS_MAXOPEN = %lld opens of %lld bytes each "
				   "need %lld KiB, more than MAXMEMORY = %lld KiB",
				   maxsize, opens, maxsize, (maxsize * opens + 1023) / 1024, memory_kb);
			diag_hint("a smaller maxsize, -D PROCFS_MAXOPEN=N, or a larger -D MAXMEMORY=KIB");
			return;
		}
		i++;
	}
	if (i != c->n) {
		unknown_shape(c);
		return;
	}
	struct probe *p = add_probe(c, kind, name, 0);
	p->procfs_umask = umask | c->s->limits[LIMIT_PROCFS_UMASK];
	p->procfs_maxsize = maxsize;
}

/* netfilter's names for protocol families and hooks, with their numbers. */
static const struct { const char *name; int value; } nf_pfs[] = {
	{ "NFPROTO_IPV4", 2 }, { "PF_INET", 2 }, { "NFPROTO_IPV6", 10 }, { "PF_INET6", 10 },
	{ "NFPROTO_ARP", 3 }, { "NFPROTO_BRIDGE", 7 }, { "PF_BRIDGE", 7 },
};
static const struct { const char *name; int pf, value; } nf_hooks[] = {
	{ "NF_INET_PRE_ROUTING", 0, 0 }, { "NF_INET_LOCAL_IN", 0, 1 }, { "NF_INET_FORWARD", 0, 2 },
	{ "NF_INET_LOCAL_OUT", 0, 3 }, { "NF_INET_POST_ROUTING", 0, 4 },
	{ "NF_IP_PRE_ROUTING", 2, 0 }, { "NF_IP_LOCAL_IN", 2, 1 }, { "NF_IP_FORWARD", 2, 2 },
	{ "NF_IP_LOCAL_OUT", 2, 3 }, { "NF_IP_POST_ROUTING", 2, 4 },
	{ "NF_IP6_PRE_ROUTING", 10, 0 }, { "NF_IP6_LOCAL_IN", 10, 1 }, { "NF_IP6_FORWARD", 10, 2 },
	{ "NF_IP6_LOCAL_OUT", 10, 3 }, { "NF_IP6_POST_ROUTING", 10, 4 },
	{ "NF_ARP_IN", 3, 0 }, { "NF_ARP_OUT", 3, 1 }, { "NF_ARP_FORWARD", 3, 2 },
	{ "NF_BR_PRE_ROUTING", 7, 0 }, { "NF_BR_LOCAL_IN", 7, 1 }, { "NF_BR_FORWARD", 7, 2 },
	{ "NF_BR_LOCAL_OUT", 7, 3 }, { "NF_BR_POST_ROUTING", 7, 4 },
};

/* A component's argument: a number, or a name from the table (by *out). */
static bool nf_arg(struct pp_ctx *c, int i, bool hook, long long *out)
{
	const struct node *a = c->comps[i].arg;
	if (!a) {
		diag_error(c->comps[i].loc, D_BAD_PROBE_ARG, "'%s' needs an argument", c->comps[i].name);
		return false;
	}
	if (a->kind == N_NUM) {
		*out = a->num;
		return true;
	}
	const char *s = a->str;
	char *end;
	long long v = strtoll(s, &end, 0);
	if (*s && !*end) {
		*out = v;
		return true;
	}
	if (hook) {
		for (size_t k = 0; k < ARRAY_SIZE(nf_hooks); k++)
			if (!strcmp(nf_hooks[k].name, s))
				return *out = nf_hooks[k].value, true;
	} else {
		for (size_t k = 0; k < ARRAY_SIZE(nf_pfs); k++)
			if (!strcmp(nf_pfs[k].name, s))
				return *out = nf_pfs[k].value, true;
	}
	diag_error(a->loc, D_BAD_PROBE_ARG, "netfilter: unknown %s '%s'", hook ? "hook" : "protocol family",
		   s);
	struct suggest sg;
	suggest_init(&sg, s);
	if (hook)
		for (size_t k = 0; k < ARRAY_SIZE(nf_hooks); k++)
			suggest_offer(&sg, nf_hooks[k].name);
	else
		for (size_t k = 0; k < ARRAY_SIZE(nf_pfs); k++)
			suggest_offer(&sg, nf_pfs[k].name);
	suggest_hint(&sg, NULL);
	return false;
}

/*
 * netfilter.hook("HOOK").pf("PF")[.priority("N")] (the two in either
 * order): a netfilter hook in the initial network namespace. The body
 * sees the hook function's arguments, $priv, $skb (struct sk_buff *) and
 * $state (struct nf_hook_state *: ->hook, ->in, ->out, ...), through the
 * kernel's nf_hookfn prototype in its BTF, and $verdict.
 */
static void netfilter_point(struct pp_ctx *c)
{
	long long hook = -1, pf = -1, prio = 0;
	int hi = comp_is(c, 1, "hook") ? 1 : comp_is(c, 2, "hook") ? 2 : 0;
	int pi = comp_is(c, 1, "pf") ? 1 : comp_is(c, 2, "pf") ? 2 : 0;
	int ri = comp_is(c, 3, "priority") ? 3 : 0;
	if (!hi || !pi || hi == pi || c->n != (ri ? 4 : 3)) {
		unknown_shape(c);
		return;
	}
	if (!nf_arg(c, hi, true, &hook) || !nf_arg(c, pi, false, &pf))
		return;
	if (ri) {
		const struct node *a = c->comps[ri].arg;
		char *end = NULL;
		if (a && a->kind == N_NUM)
			prio = a->num;
		else if (!a || (prio = strtoll(a->str, &end, 0), !*a->str || *end)) {
			diag_error(c->comps[ri].loc, D_BAD_PROBE_ARG, "priority needs a number");
			return;
		}
	}
	if (hook < 0 || hook > 4 || (pf != 2 && pf != 10 && pf != 3 && pf != 7) ||
	    (pf == 3 && hook > 2)) {
		diag_error(c->comps[hi].loc, D_BAD_PROBE_ARG,
			   "netfilter: no hook %lld for protocol family %lld", hook, pf);
		return;
	}
	struct btf_source *b = sema_kernel_btf(c->s);
	struct probe_site *site = b ? btf_typedef_site(b, "nf_hookfn") : NULL;
	struct probe *p;
	if (site) {
		if (!site->object)
			site->object = xstrdup("kernel");
		/* A typedef's prototype has no parameter names: the kernel's are these. */
		static const char *const names[] = { "priv", "skb", "state" };
		if (!site->vars_loaded && site->load_vars)
			site->load_vars(site);
		site->vars_loaded = true;
		for (size_t k = 0; k < site->nvars && k < ARRAY_SIZE(names); k++) {
			free(site->vars[k].name);
			site->vars[k].name = xstrdup(names[k]);
		}
		p = add_site_probe(c, PK_NETFILTER, site);
		free(p->symbol);
		p->symbol = NULL;
	} else {
		p = add_probe(c, PK_NETFILTER, NULL, 0);
	}
	free(p->pp_text);
	p->pp_text = xasprintf("netfilter.hook(%lld).pf(%lld).priority(%lld)", hook, pf, prio);
	p->nf_hook = hook;
	p->nf_pf = pf;
	p->nf_priority = prio;
}

/* The target kernel's HZ (CONFIG_HZ in its configuration), or 0 with an error. */
static long long kernel_hz(struct pp_ctx *c, struct loc loc)
{
	const char *path = c->s->prog.env.config_path;
	long long hz = strtoll(pp_config_value(&c->s->prog.env, "CONFIG_HZ"), NULL, 10);
	if (hz <= 0) {
		diag_error(loc, D_BAD_PROBE_ARG,
			   "timer.jiffies needs the kernel's HZ, but %s gives no CONFIG_HZ",
			   path ? path : "no kernel configuration");
		diag_hint("timer.ms(N) and the other units do not depend on HZ");
	}
	return hz;
}

/*
 * timer.UNIT(N), and timer.UNIT(N).randomize(M): each period is N plus a
 * random whole number of UNITs from -M to M (SystemTap's rule: M < N, and
 * hz cannot be randomized). jiffies are N * (1000000000 / HZ) ns.
 */
static void timer(struct pp_ctx *c)
{
	static const struct {
		const char *unit;
		long long ns;
	} units[] = { { "ns", 1 },         { "nsec", 1 },         { "us", 1000 },
		      { "usec", 1000 },    { "ms", 1000000 },     { "msec", 1000000 },
		      { "s", 1000000000 }, { "sec", 1000000000 }, { "hz", 0 },
		      { "jiffies", -1 } };
	bool randomize = c->n == 3 && comp_is(c, 2, "randomize");
	if (c->n != 2 && !randomize) {
		unknown_shape(c);
		return;
	}
	for (size_t i = 0; i < ARRAY_SIZE(units); i++) {
		if (!comp_is(c, 1, units[i].unit))
			continue;
		long long v = 0, r = 0;
		if (!want_number(c, 1, true, &v) || (randomize && !want_number(c, 2, true, &r)))
			return;
		if (v <= 0) {
			diag_error(c->comps[1].arg->loc, D_BAD_PROBE_ARG,
				   "a timer period must be positive, not %lld", v);
			return;
		}
		if (randomize && units[i].ns == 0) {
			diag_error(c->comps[2].loc, D_BAD_PROBE_ARG,
				   "a timer.hz probe cannot be randomized");
			diag_hint("give the period instead: timer.ms(N).randomize(M)");
			return;
		}
		if (randomize && (r < 0 || r >= v)) {
			if (r < 0)
				diag_error(c->comps[2].arg->loc, D_BAD_PROBE_ARG,
					   "randomize(%lld) cannot be negative", r);
			else
				diag_error(c->comps[2].arg->loc, D_BAD_PROBE_ARG,
					   "randomize(%lld) must be less than the period, %lld", r, v);
			return;
		}
		long long unit_ns = units[i].ns;
		if (unit_ns < 0) {
			long long hz = kernel_hz(c, c->comps[1].loc);
			if (hz <= 0)
				return;
			unit_ns = 1000000000LL / hz;
		}
		long long period;
		if (unit_ns == 0) {
			period = 1000000000LL / v;
		} else if (v > 3600LL * 1000000000LL / unit_ns) {
			diag_error(c->comps[1].arg->loc, D_BAD_PROBE_ARG,
				   "timer period is longer than an hour");
			return;
		} else {
			period = v * unit_ns;
		}
		long long spread = r * unit_ns; /* r < v: no overflow */
		/* Shorter periods would keep a CPU busy in the handler. */
		if (period - spread < 100000) {
			struct loc at = spread ? c->comps[2].arg->loc : c->comps[1].arg->loc;
			if (spread)
				diag_error(at, D_BAD_PROBE_ARG,
					   "the shortest period of this timer, %lld ns, is shorter than "
					   "the 100 us minimum",
					   period - spread);
			else
				diag_error(at, D_BAD_PROBE_ARG,
					   "timer period %lld ns is shorter than the 100 us minimum",
					   period);
			return;
		}
		add_probe(c, PK_TIMER, NULL, period)->spread_ns = spread;
		return;
	}
	unknown_shape(c);
}

/* timer.profile: on every CPU at each of the kernel's ticks, in the
 * context the tick interrupted (a process, or the kernel). */
static void timer_profile(struct pp_ctx *c)
{
	if (c->comps[1].arg) {
		diag_error(c->comps[1].arg->loc, D_BAD_PROBE_ARG,
			   "timer.profile takes no argument: it fires at every tick (HZ)");
		diag_hint("for another rate on one CPU: timer.hz(N)");
		return;
	}
	add_probe(c, PK_PROFILE, NULL, 0);
}

/* The kernel's generic perf events (perf_event_attr's type and config),
 * under the names SystemTap gives them. */
static const struct {
	const char *name;
	int type; /* 0 hardware, 1 software */
	int config;
} perf_events[] = {
	{ "cpu_cycles", 0, 0 },          { "cycles", 0, 0 },
	{ "instructions", 0, 1 },        { "cache_references", 0, 2 },
	{ "cache_misses", 0, 3 },        { "branch_instructions", 0, 4 },
	{ "branches", 0, 4 },            { "branch_misses", 0, 5 },
	{ "bus_cycles", 0, 6 },          { "stalled_cycles_frontend", 0, 7 },
	{ "stalled_cycles_backend", 0, 8 }, { "ref_cpu_cycles", 0, 9 },
	{ "cpu_clock", 1, 0 },           { "task_clock", 1, 1 },
	{ "page_faults", 1, 2 },         { "context_switches", 1, 3 },
	{ "cpu_migrations", 1, 4 },      { "page_faults_min", 1, 5 },
	{ "page_faults_maj", 1, 6 },     { "alignment_faults", 1, 7 },
	{ "emulation_faults", 1, 8 },
};

/*
 * ...[.process[("PATH")]].counter("NAME"): not a probe that fires, but a
 * counting event in each thread of the processes running PATH (without
 * one, of the -c or -x target), which @perf("NAME") reads in that
 * thread's probes. The body never runs.
 */
static void perf_counter_point(struct pp_ctx *c, int next, long long type, long long config)
{
	char *path = NULL, *why = NULL;
	int pi = comp_is(c, next, "process") ? next++ : -1;
	if (next + 1 != c->n || !comp_is(c, next, "counter") || !c->comps[next].arg ||
	    c->comps[next].arg->kind != N_STR) {
		if (next < c->n && comp_is(c, next, "counter"))
			diag_error(c->comps[next].loc, D_BAD_PROBE_ARG,
				   "counter needs the counter's name: .counter(\"NAME\"), which @perf(\"NAME\") reads");
		else if (pi >= 0)
			diag_error(c->comps[pi].loc, D_UNKNOWN_PROBE,
				   "perf events of one program are counters here: add .counter(\"NAME\") and read it with @perf(\"NAME\")");
		else
			unknown_shape(c);
		return;
	}
	const struct comp *cc = &c->comps[next];
	const struct node *prog = pi >= 0 ? c->comps[pi].arg : NULL;
	if (prog && prog->kind != N_STR) {
		unknown_shape(c);
		return;
	}
	if (prog) {
		path = user_find_program(prog->str, &why);
		if (!path) {
			if (!c->pt->optional)
				diag_error(prog->loc, D_NO_PROGRAM, "%s", why);
			free(why);
			return;
		}
	} else if (!c->s->target_cmd && !c->s->target_pid) {
		diag_error(pi >= 0 ? c->comps[pi].loc : cc->loc, D_NO_PROGRAM,
			   "a counter without a program counts the -c or -x target: give -c CMD or -x PID, or name the program: .process(\"PATH\")");
		return;
	}
	for (size_t i = 0; i < c->s->prog.probes.n; i++) {
		const struct probe *o = c->s->prog.probes.v[i];
		if (o->kind == PK_PERF_COUNTER && !strcmp(o->symbol, cc->arg->str)) {
			diag_error(cc->arg->loc, D_BAD_PROBE_ARG, "counter \"%s\" is defined twice",
				   cc->arg->str);
			free(path);
			return;
		}
	}
	struct probe *p = add_probe(c, PK_PERF_COUNTER, NULL, 0);
	p->symbol = xstrdup(cc->arg->str);
	p->perf_type = type;
	p->perf_config = config;
	p->user_file = path;
}

/*
 * perf.hw.NAME, perf.sw.NAME and perf.type(T).config(C), each with an
 * optional .sample(N): a counter on every CPU, and a hit every N events
 * (1000000 by default, as in SystemTap), with the registers where the Nth
 * happened. Whether the CPU has the counter is known only when the
 * module starts: a guest under emulation has no hardware ones.
 */
static void perf_point(struct pp_ctx *c)
{
	long long type = -1, config = -1, sample = 1000000;
	int next;
	if (c->n >= 3 && (comp_is(c, 1, "hw") || comp_is(c, 1, "sw"))) {
		int want = comp_is(c, 1, "hw") ? 0 : 1;
		struct suggest sg;
		suggest_init(&sg, c->comps[2].name);
		for (size_t i = 0; i < ARRAY_SIZE(perf_events) && type < 0; i++) {
			if (perf_events[i].type != want)
				continue;
			suggest_offer(&sg, perf_events[i].name);
			if (!strcmp(perf_events[i].name, c->comps[2].name)) {
				type = perf_events[i].type;
				config = perf_events[i].config;
			}
		}
		if (type < 0) {
			diag_error(c->comps[2].loc, D_UNKNOWN_PROBE, "no perf event perf.%s.%s",
				   c->comps[1].name, c->comps[2].name);
			suggest_hint(&sg, NULL);
			return;
		}
		next = 3;
	} else if (c->n >= 3 && comp_is(c, 1, "type") && comp_is(c, 2, "config")) {
		if (!want_number(c, 1, true, &type) || !want_number(c, 2, true, &config))
			return;
		if (type < 0 || type > 0xffffffffLL) {
			diag_error(c->comps[1].arg->loc, D_BAD_PROBE_ARG,
				   "perf.type(%lld): a perf event type is 0 to 4294967295", type);
			return;
		}
		next = 3;
	} else {
		unknown_shape(c);
		return;
	}
	if (next < c->n && comp_is(c, next, "sample")) {
		if (!want_number(c, next, true, &sample))
			return;
		if (sample <= 0) {
			diag_error(c->comps[next].arg->loc, D_BAD_PROBE_ARG,
				   "sample(%lld): a hit every N events needs N > 0", sample);
			return;
		}
		next++;
	}
	if (next < c->n && (comp_is(c, next, "process") || comp_is(c, next, "counter"))) {
		perf_counter_point(c, next, type, config);
		return;
	}
	if (next != c->n) {
		unknown_shape(c);
		return;
	}
	struct probe *p = add_probe(c, PK_PERF, NULL, 0);
	p->perf_type = type;
	p->perf_config = config;
	p->perf_sample = sample;
}

static void unknown_kernel_function(const struct kernel *k, const char *name, struct loc loc)
{
	diag_error(loc, D_UNKNOWN_KERNEL_FUNCTION, "kernel %s has no function '%s'", k->release,
		   name);
	struct suggest sg;
	suggest_init(&sg, name);
	for (size_t i = 0; i < k->nfuncs; i++)
		suggest_offer(&sg, k->funcs[i].name);
	if (!suggest_hint(&sg, NULL))
		diag_hint("the function names come from %s", k->funcs_from);
}

/*
 * The kernel functions the runtime calls while it handles a hit
 * (runtime/kernel-calls.txt, "hit NAME-OR-PATTERN" lines): a probe there
 * would fire inside the runtime, where it can only be skipped.
 */
struct ptrvec probes_runtime_calls(const char *runtime_dir)
{
	struct ptrvec pats = { 0 };
	char *path = path_join(runtime_dir, "kernel-calls.txt");
	char *text = read_file(path, NULL);
	if (!text)
		fatal("cannot read %s: %m", path);
	free(path);
	char *save = NULL;
	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char kind[16], name[256];
		if (sscanf(line, "%15s %255s", kind, name) == 2 && !strcmp(kind, "hit"))
			pv_push(&pats, xstrdup(name));
	}
	free(text);
	return pats;
}

static bool runtime_calls(const struct pp_ctx *c, const char *name)
{
	const struct ptrvec *calls = c->pt->runtime_calls;
	for (size_t i = 0; i < calls->n; i++)
		if (fnmatch(calls->v[i], name, 0) == 0)
			return true;
	return false;
}

#define RUNTIME_REASON "is called by Tapline's runtime while it handles a probe hit"

/*
 * Why a probe on f cannot be placed, or NULL. A function without an ftrace
 * site (notrace) takes a kprobe when it is named; a wildcard leaves it out
 * (such functions are mostly code that runs where probes should not:
 * tracing, idle and low-level entry helpers), which -v says. In guru mode a
 * function the runtime calls is allowed (the kernel would take the probe;
 * its hits inside the runtime are skipped and counted).
 */
static const char *refusal(const struct pp_ctx *c, const struct kfunc *f, bool wild)
{
	if (f->why == KF_NOTRACE && !wild)
		return !c->s->guru && runtime_calls(c, f->name) ? RUNTIME_REASON : NULL;
	if (f->why != KF_OK)
		return kfunc_why_text(f->why);
	if (!c->s->guru && runtime_calls(c, f->name))
		return RUNTIME_REASON;
	return NULL;
}

/* The functions a wildcard left out, by reason, for -v. */
struct left_out {
	const char *reason;
	size_t count;
	struct strbuf examples;
};

static void note_left_out(struct left_out *lo, size_t *nlo, const char *reason, const char *name)
{
	size_t i = 0;
	while (i < *nlo && strcmp(lo[i].reason, reason))
		i++;
	if (i == *nlo) {
		lo[i] = (struct left_out){ reason, 0, { 0 } };
		sb_init(&lo[i].examples);
		(*nlo)++;
	}
	if (lo[i].count < 5)
		sb_printf(&lo[i].examples, "%s%s", lo[i].count ? ", " : "", name);
	lo[i].count++;
}

/*
 * Where the runtime can put an entry probe by address (through ftrace,
 * cheaper than a kprobe; with the registers saved for one that reads
 * arguments), or a return probe (through fprobe, where the kernel has
 * it; its handlers get the registers): the function's offset
 * from _text, and _printk's, by which the runtime finds _text. Not for a
 * name several functions share (a kprobe by name picks the kernel's
 * first), nor when the addresses are unknown (/proc/kallsyms read without
 * root shows zeros).
 */
static void set_entry_offset(struct pp_ctx *c, struct probe *p, const struct kfunc *f)
{
	if ((p->kind != PK_KPROBE && p->kind != PK_KRETPROBE) || f->copies != 1 || !f->offset ||
	    f->why != KF_OK || !sema_find_text(c->s))
		return;
	p->text_offset = f->offset;
}

bool sema_find_text(struct session *s)
{
	if (s->prog.printk_offset)
		return true;
	const struct kfunc *ref = s->kernel ? kernel_function(s->kernel, "_printk") : NULL;
	if (!ref || !ref->offset || ref->copies != 1)
		return false;
	s->prog.printk_offset = ref->offset;
	return true;
}

/*
 * A kernel function whose name several static functions share: every copy,
 * each by its own address (_text + offset) and named by it in pp()
 * ("NAME@_text+0xOFFSET"), not only the one the kernel's lookup by name
 * picks. How many were placed.
 */
static size_t add_every_copy(struct pp_ctx *c, enum probe_kind kind, const struct kfunc *f,
			     bool from_wildcard)
{
	size_t placed = 0;
	for (unsigned k = 0; k < f->copies; k++) {
		/* Each copy's own why: refusal() judges the first copy only. A
		 * copy without an ftrace site takes a kprobe when named. */
		enum kfunc_why why = f->whys[k];
		if ((why != KF_OK && (why != KF_NOTRACE || from_wildcard)) ||
		    (!c->s->guru && runtime_calls(c, f->name)))
			continue;
		struct probe *p = add_probe(c, kind, f->name, 0);
		free(p->pp_text);
		p->pp_text = xasprintf("%s.function(\"%s@_text+0x%llx\")%s", c->comps[0].name, f->name,
				       (unsigned long long)f->offsets[k],
				       kind == PK_KRETPROBE ? ".return" : "");
		free(p->symbol);
		p->symbol = xstrdup("_text");
		p->offset = (int64_t)f->offsets[k];
		p->function = xstrdup(f->name);
		p->from_wildcard = from_wildcard;
		placed++;
	}
	return placed;
}

static void kernel_wildcard(struct pp_ctx *c, const char *pattern, enum probe_kind kind,
			    struct loc loc)
{
	const struct kernel *k = c->s->kernel;
	struct left_out lo[KF_NREASONS + 1];
	size_t nlo = 0, matches = 0, placed = 0;
	for (size_t i = 0; i < k->nfuncs; i++) {
		const struct kfunc *f = &k->funcs[i];
		if (fnmatch(pattern, f->name, 0))
			continue;
		matches++;
		const char *why = refusal(c, f, true);
		if (why)
			note_left_out(lo, &nlo, why, f->name);
		else
			placed++;
	}
	if (c->s->verbose && matches) {
		char *pp = ast_probe_point_text(c->pp);
		fprintf(stderr, "%s: %zu functions match, %zu left out\n", pp, matches,
			matches - placed);
		for (size_t i = 0; i < nlo; i++)
			fprintf(stderr, "  %zu left out because the function %s: %s%s\n", lo[i].count, lo[i].reason, lo[i].examples.s,
				lo[i].count > 5 ? ", ..." : "");
		free(pp);
	}
	for (size_t i = 0; i < nlo; i++)
		sb_free(&lo[i].examples);
	if (placed == 0) {
		if (c->pt->optional)
			return;
		if (matches == 0)
			diag_error(loc, D_UNKNOWN_KERNEL_FUNCTION,
				   "no function of kernel %s matches '%s'", k->release, pattern);
		else
			diag_error(loc, D_UNPROBEABLE,
				   "'%s' matches %zu functions of kernel %s, but none can be probed",
				   pattern, matches, k->release);
		if (matches)
			diag_hint("run with -v to see why each was left out");
		return;
	}
	char *what = xasprintf("'%s'", pattern);
	bool too_many = too_many_matches(c, loc, what, placed, "functions");
	free(what);
	if (too_many)
		return;
	for (size_t i = 0; i < k->nfuncs; i++) {
		const struct kfunc *f = &k->funcs[i];
		if (fnmatch(pattern, f->name, 0))
			continue;
		if (f->copies > 1 && f->offsets) {
			add_every_copy(c, kind, f, true);
		} else if (!refusal(c, f, true)) {
			struct probe *p = add_probe(c, kind, f->name, 0);
			p->from_wildcard = true;
			set_entry_offset(c, p, f);
		}
	}
}

static struct dw *debuginfo(struct session *s);

static void find_return(struct node *n, void *found)
{
	if (n->kind == N_TARGET && n->name && !strcmp(n->name, "return"))
		*(bool *)found = true;
	else if (n->kind != N_DEFINED)
		ast_for_children(n, find_return, found);
}

/*
 * A wildcard's .return match that returns nothing, when the body reads
 * $return (not under @defined): left out, as a function $return cannot
 * mean, instead of failing the whole script.
 */
bool returns_nothing_for(struct pp_ctx *c, enum probe_kind kind, bool wild,
				const struct probe_site *site)
{
	if (!wild || kind != PK_KRETPROBE || (site->return_type && site->return_type->kind != CT_VOID))
		return false;
	bool uses = false;
	find_return(c->pt->handler(c->pt->arg, false)->body, &uses);
	return uses;
}


/*
 * The sites of a DWARF query on object (build_id: its file's, for the
 * probe cache; NULL: not cached): from the cache when it has them, which
 * then needs no debug information, else from dw.c. As dw_functions: how
 * many, or -1 with *why (NULL when there is no DWARF at all).
 */
int query_sites(struct pp_ctx *c, enum query_kind kind, const char *object,
		       const char *module_file, const char *build_id, const struct dw_query *q,
		       struct ptrvec *sites, size_t *left_out, char **why)
{
	static const char *const names[] = { "functions", "statements", "inlines" };
	struct probe_cache_ref ref;
	size_t from = sites->n;
	if (probe_cache_query(c->s, c->pt->handler(c->pt->arg, false), object, build_id, names[kind],
			      q, &ref, sites))
		return (int)(sites->n - from);
	struct dw *d = debuginfo(c->s);
	int r = -1;
	if (strcmp(object, "kernel") || debugfind(c->s->debug_ix, "kernel"))
		r = kind == Q_STATEMENTS ? dw_statements(d, object, module_file, q, sites, left_out, why)
		    : kind == Q_INLINES  ? dw_inlines(d, object, module_file, q, sites, left_out, why)
					 : dw_functions(d, object, module_file, q, sites, left_out, why);
	if (r > 0)
		probe_cache_remember(c->s, &ref, sites, from);
	else
		probe_cache_forget(&ref);
	return r;
}

/* The module's own file: named by path, installed, or else the loose
 * debug file found for it (the same build); NULL if none. */
static const char *module_elf(struct pp_ctx *c, const char *module, const char *module_file)
{
	if (module_file)
		return module_file;
	const char *ko = debugfind_installed(c->s->debug_ix, module);
	if (ko)
		return ko;
	const struct debug_file *f = debugfind(c->s->debug_ix, module);
	return f && !f->member ? f->path : NULL;
}

/* The build-id of the module's file, for the probe cache (NULL without
 * one, or if unknown). */
static char *module_build_id(struct pp_ctx *c, const char *module, const char *module_file)
{
	const char *elf = c->s->probe_cache ? module_elf(c, module, module_file) : NULL;
	return elf ? debugfind_build_id(elf) : NULL;
}

/*
 * A probe on a site in the kernel's DWARF, if the kernel would take one on
 * its function: placed by the function's name when that names it, else by
 * _text and the site's offset (a name several functions share, or a copy
 * the compiler made, "f.part.0", which DWARF calls f); a function entry
 * placed by name may go through ftrace.
 */
static bool add_kernel_site(struct pp_ctx *c, enum probe_kind kind, struct probe_site *site,
			    bool wild)
{
	const struct kfunc *f = kernel_function(c->s->kernel, site->function);
	/* A function that exists only inlined (context_switch, kmalloc) has
	 * no symbol: its copies are checked by the functions that hold them. */
	if (f ? refusal(c, f, wild) != NULL : !site->is_inline && !site->is_statement)
		return false;
	/* An inlined copy or a statement is inside some function, which the
	 * kernel may refuse (__init code, freed after boot; noinstr, entry
	 * and blacklisted code) whatever the inlined function is. */
	enum kfunc_why in_why = KF_OK;
	const struct kfunc *in = (site->is_inline || site->is_statement) && site->text_offset
					 ? kernel_function_at(c->s->kernel, site->text_offset, &in_why)
					 : NULL;
	if (in && in_why != KF_OK && in_why != KF_NOTRACE) {
		if (c->s->verbose)
			fprintf(stderr, "stap: %s@_text+0x%llx (in %s) left out: %s %s\n",
				site->function, (unsigned long long)site->text_offset, in->name, in->name,
				kfunc_why_text(in_why));
		return false;
	}
	uint64_t entry = site->text_offset - (uint64_t)site->anchor_offset;
	bool by_name = f && f->copies == 1 && (!f->offset || !site->text_offset || entry == f->offset);
	if (!by_name) {
		free(site->anchor);
		site->anchor = xstrdup("_text");
		site->anchor_offset = (int64_t)site->text_offset;
	}
	struct probe *p = add_site_probe(c, kind, site);
	if (by_name && !site->is_statement)
		set_entry_offset(c, p, f);
	return true;
}

/* .function("f") with nothing after it: the entry of f wherever its code
 * is, inlined copies included. */
static bool plain_function(const struct pp_ctx *c)
{
	return c->n == 2 && comp_is(c, 1, "function");
}

/*
 * kernel.function("f[@file[:line]]") through the kernel's DWARF, when a
 * debug file for it exists (Debian's linux-image-R-dbg): each match is
 * checked like any kernel function, and placed by its name when that is
 * unique, else by _text and its offset. False when there is no DWARF.
 */
static bool kernel_dwarf_point(struct pp_ctx *c, const char *spec, enum probe_kind kind,
			       struct loc loc)
{
	debuginfo(c->s);
	if (!debugfind(c->s->debug_ix, "kernel") && !c->s->probe_cache)
		return false;
	char *func, *file;
	struct dw_query q = { 0 };
	if (!split_function_spec(spec, &func, &file, &q.line, &q.line_last) || q.line_last) {
		diag_error(loc, D_BAD_PROBE_ARG, "'%s' is not NAME, NAME@FILE or NAME@FILE:LINE", spec);
		if (q.line_last)
			diag_hint("a range of lines is for statement probes: kernel.statement(\"%s\")",
				  spec);
		free(func);
		free(file);
		return true;
	}
	q.function = func;
	q.file = file;
	struct ptrvec sites = { 0 };
	size_t left_out = 0;
	char *why = NULL;
	bool inlines_only = c->n == 3 && comp_is(c, 2, "inline");
	int r = query_sites(c, inlines_only ? Q_INLINES : Q_FUNCTIONS, "kernel", NULL,
			    c->s->kernel->build_id, &q, &sites, &left_out, &why);
	/* .function is also every copy inlined into a caller, as in SystemTap
	 * (vfs_getattr inside vfs_statx); .call and .return are not. */
	if (r >= 0 && plain_function(c)) {
		char *inline_why = NULL;
		query_sites(c, Q_INLINES, "kernel", NULL, c->s->kernel->build_id, &q, &sites,
			    &left_out, &inline_why);
		free(inline_why);
	}
	if (r < 0 && !why) {
		/* No DWARF (and nothing cached): BTF or the symbols answer. */
		free(func);
		free(file);
		return false;
	}
	if (r < 0) {
		diag_error(loc, D_NO_DEBUGINFO, "cannot use the kernel's debug information: %s", why);
		free(why);
		free(func);
		free(file);
		return true;
	}
	/* A name DWARF does not know (an alias like __x64_sys_getpid): the
	 * symbol path still gives $return. */
	if (sites.n == 0 && !q.file && !inlines_only) {
		free(func);
		free(file);
		return false;
	}
	size_t placed = 0;
	bool wild = strpbrk(func, "*?[") != NULL;
	for (size_t i = 0; i < sites.n; i++) {
		struct probe_site *site = sites.v[i];
		if (!returns_nothing_for(c, kind, wild, site) && add_kernel_site(c, kind, site, wild))
			placed++;
	}
	char *what = xasprintf("'%s'", spec);
	if (!too_many_matches(c, loc, what, sites.n, wild ? "functions" : "places (its inlined copies)") &&
	    !placed && !c->pt->optional)
		diag_error(loc, D_UNKNOWN_KERNEL_FUNCTION,
			   "no function of kernel %s that can be probed matches '%s' in its debug "
			   "information", c->s->release, spec);
	free(what);
	pv_free(&sites);
	free(func);
	free(file);
	return true;
}

struct btf_source *sema_kernel_btf(struct session *s)
{
	if (!s->kernel_btf_tried && !s->force_symtab) {
		s->kernel_btf_tried = true;
		char *why = NULL;
		if (s->kernel && s->kernel->btf_path)
			s->kernel_btf = btf_open(s->kernel->btf_path, &why);
		if (why && s->verbose)
			fprintf(stderr, "stap: %s\n", why);
		free(why);
	}
	return s->kernel_btf;
}

struct btf_source *sema_module_btf(struct session *s, const char *module, char **why)
{
	for (size_t i = 0; i < s->module_btf_names.n; i++)
		if (!strcmp(s->module_btf_names.v[i], module)) {
			if (!s->module_btfs.v[i])
				*why = xasprintf("module %s has no BTF Tapline can read", module);
			return s->module_btfs.v[i];
		}
	struct btf_source *kb = sema_kernel_btf(s), *mb = NULL;
	debuginfo(s);
	const char *ko = s->debug_ix ? debugfind_installed(s->debug_ix, module) : NULL;
	if (!ko)
		*why = xasprintf("module %s is not installed for kernel %s", module, s->release);
	else if (!kb)
		*why = xstrdup("the kernel has no BTF for the module's to build on");
	else
		mb = btf_open_module(ko, kb, why);
	pv_push(&s->module_btf_names, xstrdup(module));
	pv_push(&s->module_btfs, mb);
	return mb;
}

/* A BTF site of kernel function f: placed by name, or by _text + offset
 * when several functions share the name. false if it cannot be placed. */
static bool btf_place(const struct kernel *k, struct probe_site *site, const struct kfunc *f)
{
	if (f->copies != 1 && !f->offset)
		return false;
	site->object = xstrdup("kernel");
	site->object_file = xstrdup(k->btf_path);
	site->build_id = k->build_id ? xstrdup(k->build_id) : NULL;
	site->anchor = xstrdup(f->copies == 1 ? f->name : "_text");
	site->anchor_offset = f->copies == 1 ? 0 : (int64_t)f->offset;
	site->text_offset = f->offset;
	return true;
}

/*
 * kernel.function("f") whose body reads $parameters, without the kernel's
 * DWARF (or with --btf): the function's BTF prototype gives them at its
 * entry, and saved there, in .return. false when BTF cannot answer (none,
 * or no such function in it): the symbol path then says what is missing.
 */
static bool kernel_btf_point(struct pp_ctx *c, const char *spec, enum probe_kind kind,
			     struct loc loc)
{
	struct btf_source *b = sema_kernel_btf(c->s);
	const struct kernel *k = c->s->kernel;
	if (!b)
		return false;
	struct ptrvec sites = { 0 };
	bool wild = strpbrk(spec, "*?[") != NULL;
	for (size_t i = 0; i < k->nfuncs; i++) {
		const struct kfunc *f = &k->funcs[i];
		if (wild ? fnmatch(spec, f->name, 0) != 0 : strcmp(spec, f->name) != 0)
			continue;
		if (refusal(c, f, wild))
			continue;
		struct probe_site *site = btf_function_site(b, f->name);
		if (site && !returns_nothing_for(c, kind, wild, site) && btf_place(k, site, f))
			pv_push(&sites, site);
	}
	if (!sites.n) {
		pv_free(&sites);
		return false;
	}
	char *what = xasprintf("'%s'", spec);
	if (!too_many_matches(c, loc, what, sites.n, "functions")) {
		for (size_t i = 0; i < sites.n; i++) {
			struct probe_site *site = sites.v[i];
			struct probe *p = add_site_probe(c, kind, site);
			p->from_wildcard = wild;
			const struct kfunc *f = kernel_function(k, site->function);
			if (f && f->copies == 1)
				set_entry_offset(c, p, f);
		}
	}
	free(what);
	pv_free(&sites);
	return true;
}

/* Where statements of the function do begin, near the line asked for. */
void statement_hint(struct dw *d, const char *module, const char *module_file,
		    const struct dw_query *q)
{
	int below, above;
	dw_statement_lines_near(d, module, module_file, q, &below, &above);
	if (below && above)
		diag_hint("the nearest lines where one begins: %d and %d", below, above);
	else if (below || above)
		diag_hint("the nearest line where one begins: %d", below ? below : above);
}

/* kernel.statement("f@file:LINE"): through the kernel's DWARF only. */
static void kernel_statement_point(struct pp_ctx *c)
{
	const struct comp *sc = &c->comps[1];
	if (c->n != 2 || !sc->arg || sc->arg->kind != N_STR) {
		unknown_shape(c);
		return;
	}
	char *func, *file;
	struct dw_query q = { 0 };
	if (!split_function_spec(sc->arg->str, &func, &file, &q.line, &q.line_last) || !file ||
	    !q.line) {
		diag_error(sc->arg->loc, D_BAD_PROBE_ARG,
			   "a statement probe needs a function, a file and a line (or FIRST-LAST, "
			   "or *): statement(\"%s@FILE:LINE\")",
			   func ? func : "NAME");
		free(func);
		free(file);
		return;
	}
	q.function = func;
	q.file = file;
	struct dw *d = debuginfo(c->s);
	struct ptrvec sites = { 0 };
	size_t left_out = 0, placed = 0;
	char *why = NULL;
	int r = query_sites(c, Q_STATEMENTS, "kernel", NULL, c->s->kernel->build_id, &q, &sites,
			    &left_out, &why);
	if (r < 0 && !why) {
		if (!c->pt->optional) {
			diag_error(sc->arg->loc, D_NO_DEBUGINFO,
				   "a statement probe needs the kernel's debug information (DWARF: "
				   "BTF has no lines)");
			sema_kernel_dwarf_hint(c->s, "statement probes");
		}
		free(func);
		free(file);
		return;
	}
	if (r < 0)
		diag_error(sc->arg->loc, D_NO_DEBUGINFO, "cannot use the kernel's debug information: %s",
			   why ? why : "not found");
	for (size_t i = 0; i < sites.n; i++)
		placed += add_kernel_site(c, PK_KPROBE, sites.v[i], strpbrk(func, "*?[") != NULL);
	if (!placed && !why && !c->pt->optional) {
		diag_error(sc->arg->loc, D_UNKNOWN_KERNEL_FUNCTION,
			   "no statement of a function matching '%s' begins at %s:%d in kernel %s", func,
			   file, q.line, c->s->release);
		statement_hint(d, "kernel", NULL, &q);
	}
	free(why);
	pv_free(&sites);
	free(func);
	free(file);
}

static void kernel_function_point(struct pp_ctx *c)
{
	const struct comp *fn = &c->comps[1];
	bool is_return = false, inlines_only = false;
	if (c->n == 3 && comp_is(c, 2, "return"))
		is_return = true;
	else if (c->n == 3 && comp_is(c, 2, "call") && comp_is(c, 0, "kernel"))
		is_return = false;
	else if (c->n == 3 && comp_is(c, 2, "inline") && comp_is(c, 0, "kernel"))
		inlines_only = true;
	else if (c->n != 2) {
		unknown_shape(c);
		return;
	}
	if (!fn->arg || fn->arg->kind != N_STR) {
		diag_error(fn->arg ? fn->arg->loc : fn->loc, D_BAD_PROBE_ARG,
			   "'function' takes a function name in quotes, e.g. function(\"vfs_read\")");
		return;
	}
	const char *name = fn->arg->str;
	const struct kernel *k = c->s->kernel;
	enum probe_kind kind = is_return ? PK_KRETPROBE : PK_KPROBE;
	/* Target variables and source files need the kernel's DWARF. */
	bool wants_types = (c->pt->uses_targets || c->s->list == 2) && !c->s->force_symtab;
	bool wants_dwarf = strpbrk(name, "@:") || inlines_only || plain_function(c) ||
			   (wants_types && !c->s->force_btf);
	if (wants_dwarf && !c->s->force_btf && !c->s->force_symtab && comp_is(c, 0, "kernel") &&
	    kernel_dwarf_point(c, name, kind, fn->arg->loc))
		return;
	if (inlines_only) {
		if (!c->pt->optional) {
			diag_error(fn->arg->loc, D_NO_DEBUGINFO,
				   "inlined copies ('.inline') are known only from the kernel's DWARF "
				   "(BTF and the symbol table know only the out-of-line copy)");
			sema_kernel_dwarf_hint(c->s, "'.inline' probes");
		}
		return;
	}
	/* Without DWARF only the function's own code is probed: a copy the
	 * compiler inlined into a caller is invisible to BTF and the symbols. */
	if (plain_function(c) && (c->s->verbose || c->s->list == 2)) {
		static bool said;
		if (!said)
			fprintf(stderr, "stap: note: without the kernel's DWARF, kernel.function(...) "
					"probes only each function's out-of-line copy: calls inlined "
					"into other functions are not seen\n");
		said = true;
	}
	/* Without DWARF, BTF gives parameters (not locals, lines or inlines). */
	if (wants_types && !strpbrk(name, "@:") && comp_is(c, 0, "kernel") &&
	    kernel_btf_point(c, name, kind, fn->arg->loc))
		return;
	if (strpbrk(name, "@:")) {
		diag_error(fn->arg->loc, D_NO_DEBUGINFO,
			   "function names with a file or line ('%s') need the kernel's debug "
			   "information (DWARF)",
			   name);
		sema_kernel_dwarf_hint(c->s, "file and line names");
		return;
	}
	if (strpbrk(name, "*?[")) {
		kernel_wildcard(c, name, kind, fn->arg->loc);
		return;
	}
	const struct kfunc *f = kernel_function(k, name);
	if (!f) {
		if (!c->pt->optional)
			unknown_kernel_function(k, name, fn->arg->loc);
		return;
	}
	const char *why = refusal(c, f, false);
	if (f->copies > 1 && f->offsets && add_every_copy(c, kind, f, false)) {
		if (c->s->verbose)
			fprintf(stderr, "%s: %u functions are named '%s': each is probed by its address\n",
				k->release, f->copies, name);
	} else if (!why) {
		set_entry_offset(c, add_probe(c, kind, name, 0), f);
		if (runtime_calls(c, name))
			diag_warning(fn->arg->loc, D_UNPROBEABLE,
				     "'%s' %s: its hits inside the runtime will be skipped", name,
				     RUNTIME_REASON);
	} else if (!c->pt->optional) {
		diag_error(fn->arg->loc, D_UNPROBEABLE, "cannot probe '%s' in kernel %s: it %s",
			   name, k->release, why);
		if (f->why == KF_INIT)
			diag_hint("an __init function runs only while the kernel boots");
		else if (!strcmp(why, RUNTIME_REASON))
			diag_hint("guru mode (-g) allows it; hits inside the runtime are then skipped");
	}
}

/* --- kernel.trace("system:name") --- */

/* Does tracepoint tp match pattern "[SYSTEM:]NAME" (fnmatch in each part)? */
static bool tracepoint_matches(const struct tracepoint *tp, const char *pattern)
{
	const char *colon = strchr(pattern, ':');
	if (!colon)
		return !fnmatch(pattern, tp->name, 0);
	char *sys = xstrndup(pattern, (size_t)(colon - pattern));
	bool ok = tp->system && !fnmatch(sys, tp->system, 0) && !fnmatch(colon + 1, tp->name, 0);
	free(sys);
	return ok;
}

/*
 * kernel.trace("[SYSTEM:]NAME"), wildcards in either part: the kernel's
 * tracepoints, from its BTF, each with its arguments as $variables typed
 * by the BTF prototype of the kernel's BPF entry for its event class.
 */
static void kernel_trace_point(struct pp_ctx *c)
{
	const struct comp *tc = &c->comps[1];
	if (c->n != 2 || !tc->arg || tc->arg->kind != N_STR) {
		if (c->n == 2 && (!tc->arg || tc->arg->kind != N_STR))
			diag_error(tc->arg ? tc->arg->loc : tc->loc, D_BAD_PROBE_ARG,
				   "'trace' takes a tracepoint's name in quotes, e.g. "
				   "trace(\"sched:sched_switch\")");
		else
			unknown_shape(c);
		return;
	}
	const char *pattern = tc->arg->str;
	struct btf_source *b = sema_kernel_btf(c->s);
	if (!b) {
		if (!c->pt->optional)
			diag_error(tc->arg->loc, D_NO_DEBUGINFO,
				   "tracepoints are found through the kernel's BTF, and kernel %s has "
				   "none%s",
				   c->s->release, c->s->force_symtab ? " in use (--symtab)" : "");
		return;
	}
	if (!c->s->tracepoints)
		c->s->tracepoints =
			tracepoints_list(b, c->s->kernel->build_dir, c->s->kernel->running,
					 &c->s->tracepoint_systems_from, &c->s->ntracepoints);
	/* Without headers or tracefs, no tracepoint has a system: "SYS:NAME"
	 * is matched by its name, which only works for a name without
	 * wildcards; "sched:*" would be every tracepoint. */
	const char *colon = strchr(pattern, ':');
	bool by_name = colon && !c->s->tracepoint_systems_from;
	if (by_name && strpbrk(colon + 1, "*?[")) {
		if (!c->pt->optional)
			diag_error(tc->arg->loc, D_UNKNOWN_KERNEL_FUNCTION,
				   "which tracepoints are in system '%.*s' is unknown for kernel %s: it "
				   "has no headers here and tracefs cannot be read; install "
				   "linux-headers-%s, or name the tracepoints without their system",
				   (int)(colon - pattern), pattern, c->s->release, c->s->release);
		return;
	}
	if (by_name && c->s->verbose)
		fprintf(stderr, "stap: note: kernel %s has no headers here and tracefs cannot be "
				"read: tracepoint '%s' is matched by its name, its system unchecked\n",
			c->s->release, pattern);
	struct ptrvec sites = { 0 };
	size_t matched = 0;
	for (size_t i = 0; i < c->s->ntracepoints; i++) {
		const struct tracepoint *tp = &c->s->tracepoints[i];
		if (by_name ? fnmatch(colon + 1, tp->name, 0) != 0 : !tracepoint_matches(tp, pattern))
			continue;
		matched++;
		struct probe_site *site = tracepoint_site(b, tp);
		if (!site) {
			if (c->s->verbose)
				fprintf(stderr, "stap: tracepoint %s left out: BTF has no prototype for "
						"its event class\n", tp->name);
			continue;
		}
		if (site->nvars > TRACEPOINT_MAX_ARGS) {
			if (c->s->verbose)
				fprintf(stderr, "stap: tracepoint %s left out: it passes %zu arguments, "
						"more than the %d a probe can take\n",
					tp->name, site->nvars, TRACEPOINT_MAX_ARGS);
			continue;
		}
		site->object = xstrdup("kernel");
		site->object_file = xstrdup(c->s->kernel->btf_path);
		site->build_id = c->s->kernel->build_id ? xstrdup(c->s->kernel->build_id) : NULL;
		site->anchor = xstrdup(tp->name);
		site->decl_file = tp->system ? xstrdup(tp->system) : NULL;
		pv_push(&sites, site);
	}
	bool wild = strpbrk(pattern, "*?[") != NULL;
	char *what = xasprintf("'%s'", pattern);
	if (!too_many_matches(c, tc->arg->loc, what, sites.n, "tracepoints")) {
		for (size_t i = 0; i < sites.n; i++) {
			struct probe_site *site = sites.v[i];
			struct probe *p = add_site_probe(c, PK_TRACEPOINT, site);
			free(p->pp_text);
			p->pp_text = site->decl_file
					     ? xasprintf("kernel.trace(\"%s:%s\")", site->decl_file, site->function)
					     : xasprintf("kernel.trace(\"%s\")", site->function);
			p->from_wildcard = wild;
		}
	}
	free(what);
	if (!sites.n && !c->pt->optional) {
		if (matched)
			diag_error(tc->arg->loc, D_NO_DEBUGINFO,
				   "kernel %s has no BTF prototype for the tracepoints '%s' matches",
				   c->s->release, pattern);
		else {
			diag_error(tc->arg->loc, D_UNKNOWN_KERNEL_FUNCTION,
				   "kernel %s has no tracepoint matching '%s'", c->s->release, pattern);
			/* Offered as written: with the system when the pattern has one. */
			struct suggest sg;
			struct ptrvec full = { 0 };
			suggest_init(&sg, pattern);
			for (size_t i = 0; i < c->s->ntracepoints; i++) {
				const struct tracepoint *tp = &c->s->tracepoints[i];
				if (strchr(pattern, ':') && tp->system) {
					pv_push(&full, xasprintf("%s:%s", tp->system, tp->name));
					suggest_offer(&sg, full.v[full.n - 1]);
				} else {
					suggest_offer(&sg, tp->name);
				}
			}
			suggest_hint(&sg, NULL);
			pv_free_all(&full);
		}
	}
	pv_free(&sites);
}

/* --- module("m").function("f") through DWARF --- */

struct dw *sema_debuginfo(struct session *s)
{
	return debuginfo(s);
}

/*
 * What to tell a user who needs the kernel's DWARF for what (a phrase
 * like "locals"): install linux-image-R-dbg, unless it is installed (then
 * the reason is elsewhere: --btf, or a probe point that reads no debug
 * information). Hints must not send people to install what they have.
 */
bool sema_kernel_dwarf_installed(struct session *s)
{
	debuginfo(s);
	return debugfind(s->debug_ix, "kernel") != NULL;
}

void sema_kernel_dwarf_hint(struct session *s, const char *what)
{
	if (!sema_kernel_dwarf_installed(s))
		diag_hint("%s need%s the kernel's DWARF: install linux-image-%s-dbg", what,
			  strchr(what, ' ') || what[strlen(what) - 1] == 's' ? "" : "s", s->release);
	else if (s->force_btf)
		diag_hint("%s need%s the kernel's DWARF, which is installed: drop --btf to use it",
			  what, strchr(what, ' ') || what[strlen(what) - 1] == 's' ? "" : "s");
	else
		diag_hint("the kernel's DWARF is installed, but this probe point reads none: "
			  "kernel.function(\"NAME\") does (kprobe.function and symbol-table probes "
			  "do not)");
}

static struct dw *debuginfo(struct session *s)
{
	if (!s->dw) {
		s->debug_ix = debugfind_index(s->release, &s->debuginfo_dirs, s->debug_archive,
					      s->verbose > 0);
		s->dw = dw_begin(s->debug_ix, s->kernel, s->verbose > 0);
	}
	return s->dw;
}

/* "name", "name@file" or "name@file:line" */
/*
 * "NAME", "NAME@FILE", "NAME@FILE:LINE", and for statements a range of
 * lines, "NAME@FILE:FIRST-LAST", or "NAME@FILE:*" (every line: first 1,
 * last INT_MAX). *line_last is 0 unless a range was given.
 */
bool split_function_spec(const char *spec, char **func, char **file, int *line, int *line_last)
{
	const char *at = strchr(spec, '@');
	*file = NULL;
	*line = *line_last = 0;
	if (!at) {
		*func = xstrdup(spec);
		return true;
	}
	*func = xstrndup(spec, (size_t)(at - spec));
	const char *colon = strrchr(at + 1, ':');
	if (colon) {
		char *end;
		if (!strcmp(colon + 1, "*")) {
			*line = 1;
			*line_last = INT_MAX;
		} else {
			long v = strtol(colon + 1, &end, 10);
			if (v <= 0 || v > INT_MAX || (*end && *end != '-'))
				return false;
			*line = (int)v;
			if (*end == '-') {
				long last = strtol(end + 1, &end, 10);
				if (*end || last < v || last > INT_MAX)
					return false;
				*line_last = (int)last;
			}
		}
		*file = xstrndup(at + 1, (size_t)(colon - at - 1));
	} else {
		*file = xstrdup(at + 1);
	}
	return **func && **file;
}

void offer_name(const char *name, void *sg)
{
	suggest_offer(sg, name);
}

static void collect_name(const char *name, void *names)
{
	pv_push(names, (void *)name);
}

/* The nearest function to y in its section whose name is unique in the
 * module: before y, else after it (a negative offset); NULL if none. */
static const struct ksym *unique_neighbour(const struct ksym *syms, size_t n, const struct ksym *y)
{
	const struct ksym *best = NULL;
	for (size_t i = 0; i < n; i++) {
		const struct ksym *k = &syms[i];
		if (k->shndx != y->shndx || (i > 0 && !strcmp(syms[i - 1].name, k->name)) ||
		    (i + 1 < n && !strcmp(syms[i + 1].name, k->name)))
			continue;
		bool before = k->addr <= y->addr, best_before = best && best->addr <= y->addr;
		if (!best || (before && !best_before) ||
		    (before == best_before && (before ? k->addr > best->addr : k->addr < best->addr)))
			best = k;
	}
	return best;
}

/*
 * module("m").function("f") without the module's DWARF: the functions its
 * BTF describes (on top of the kernel's), with their parameters, or with
 * --symtab (or no BTF) those of its symbol table, without. Each is placed
 * through the module's symbol table: by its name, or, when several static
 * functions share it, each copy by a unique neighbour in its section. -1
 * with *why when the module has no BTF and the body reads $variables, or
 * is not installed.
 */
static int module_btf_sites(struct pp_ctx *c, const char *module, const char *module_file,
			    const char *func, enum probe_kind kind, struct ptrvec *sites,
			    size_t *left_out, char **why)
{
	struct btf_source *kb = sema_kernel_btf(c->s);
	const char *ko = module_elf(c, module, module_file);
	if (!ko) {
		*why = xasprintf("module %s is not installed for kernel %s", module, c->s->release);
		return -1;
	}
	struct btf_source *mb = kb && !c->s->force_symtab ? btf_open_module(ko, kb, why) : NULL;
	if (!mb && c->pt->uses_targets) {
		/* $variables need types: the caller says what would give them. */
		if (!*why)
			*why = xstrdup(c->s->force_symtab ? "--symtab reads no types"
							  : "the kernel has no BTF for the module's to build on");
		return -1;
	}
	free(*why);
	*why = NULL;
	size_t nsyms = 0;
	struct ksym *syms = symbols_read_elf_functions(ko, &nsyms);
	char *build_id = debugfind_build_id(ko);
	struct ptrvec names = { 0 };
	if (mb)
		btf_each_function(mb, func, collect_name, &names);
	else
		for (size_t i = 0; i < nsyms; i++)
			if ((i == 0 || strcmp(syms[i].name, syms[i - 1].name)) &&
			    !fnmatch(func, syms[i].name, 0))
				pv_push(&names, syms[i].name);
	bool wild = strpbrk(func, "*?[") != NULL;
	int found = 0;
	for (size_t i = 0; i < names.n; i++) {
		const char *name = names.v[i];
		const struct ksym *y = symbols_find(syms, nsyms, name);
		size_t copies = 0;
		while (y && y + copies < syms + nsyms && !strcmp(y[copies].name, name))
			copies++;
		if (!copies)
			(*left_out)++; /* not in its text */
		for (size_t k = 0; k < copies; k++) {
			/* Several static functions of that name: each by a unique neighbour. */
			const struct ksym *anchor = copies == 1 ? y : unique_neighbour(syms, nsyms, &y[k]);
			if (!anchor) {
				(*left_out)++;
				continue;
			}
			struct probe_site *site = mb ? btf_function_site(mb, name) : NULL;
			if (!mb) {
				/* Symbols only: no parameters, no return type. */
				site = xcalloc(1, sizeof *site);
				site->function = xstrdup(name);
				site->source = "symbol table";
				site->vars_loaded = true;
			}
			if (!site || returns_nothing_for(c, kind, wild, site))
				continue;
			site->object = xstrdup(module);
			site->object_file = xstrdup(ko);
			site->build_id = build_id ? xstrdup(build_id) : NULL;
			site->anchor = xstrdup(anchor->name);
			site->anchor_offset = (int64_t)(y[k].addr - anchor->addr);
			if (copies > 1) {
				/* pp() tells the copies apart by where each is. */
				char *sec = symbols_elf_section_name(ko, y[k].shndx);
				site->decl_file = xasprintf("%s+0x%" PRIx64, sec ? sec : "?", y[k].addr);
				free(sec);
			}
			pv_push(sites, site);
			found++;
		}
	}
	pv_free(&names);
	symbols_free(syms, nsyms);
	free(build_id);
	return found;
}

/* No debug information for module: where it was looked for, what gives
 * it, and (btf_why) why BTF could not stand in. */
static void no_debuginfo(struct pp_ctx *c, const char *module, char *why, const char *btf_why,
			 struct loc loc)
{
	const struct debug_index *ix = c->s->debug_ix;
	if (why) {
		diag_error(loc, D_NO_DEBUGINFO, "cannot use the debug information of module '%s': %s",
			   module, why);
		return;
	}
	diag_error(loc, D_NO_DEBUGINFO, "no debug information for module '%s' (kernel %s)", module,
		   c->s->release);
	if (btf_why)
		diag_note(loc, "and no BTF to read its types from instead: %s", btf_why);
	struct strbuf b;
	sb_init(&b);
	for (size_t i = 0; i < ix->looked.n; i++)
		sb_printf(&b, "%s%s", i ? "; " : "", (char *)ix->looked.v[i]);
	diag_note(loc, "looked in: %s", b.s);
	sb_free(&b);
	diag_hint("for Debian's own modules install linux-image-%s-dbg and run "
		  "'eu-make-debug-archive --kernel %s'; for a module you built, build it with -g "
		  "and give its directory with --debuginfo-path",
		  c->s->release, c->s->release);
}

static void module_function_point(struct pp_ctx *c)
{
	const struct comp *mc = &c->comps[0], *fc = &c->comps[1];
	enum probe_kind kind = PK_KPROBE;
	bool statement = comp_is(c, 1, "statement"), inline_copies = false;
	if (statement && c->n != 2) {
		unknown_shape(c);
		return;
	}
	if (!statement && c->n == 3 && comp_is(c, 2, "return")) {
		kind = PK_KRETPROBE;
	} else if (!statement && c->n == 3 && comp_is(c, 2, "inline")) {
		inline_copies = true;
	} else if (!statement && !(c->n == 2 || (c->n == 3 && comp_is(c, 2, "call")))) {
		unknown_shape(c);
		return;
	}
	if (!mc->arg || mc->arg->kind != N_STR) {
		diag_error(mc->arg ? mc->arg->loc : mc->loc, D_BAD_PROBE_ARG,
			   "'module' takes a module name in quotes, e.g. module(\"ext4\")");
		return;
	}
	if (!fc->arg || fc->arg->kind != N_STR) {
		diag_error(fc->arg ? fc->arg->loc : fc->loc, D_BAD_PROBE_ARG,
			   "'function' takes a function name in quotes, e.g. function(\"ext4_read\")");
		return;
	}
	char *func, *file;
	struct dw_query q = { 0 };
	if (!split_function_spec(fc->arg->str, &func, &file, &q.line, &q.line_last) ||
	    (q.line_last && !statement)) {
		diag_error(fc->arg->loc, D_BAD_PROBE_ARG,
			   "'%s' is not NAME, NAME@FILE or NAME@FILE:LINE", fc->arg->str);
		if (q.line_last)
			diag_hint("a range of lines is for statement probes: statement(\"%s\")",
				  fc->arg->str);
		free(func);
		free(file);
		return;
	}
	q.function = func;
	q.file = file;
	if (statement && (!file || !q.line)) {
		diag_error(fc->arg->loc, D_BAD_PROBE_ARG,
			   "a statement probe needs a file and a line: statement(\"%s@FILE:LINE\")",
			   func);
		free(func);
		free(file);
		return;
	}
	struct dw *d = debuginfo(c->s);
	char *pattern = debugfind_module_name(mc->arg->str);
	/* module("/path/to/m.ko"): that file is the module. */
	const char *module_file = strchr(mc->arg->str, '/') ? mc->arg->str : NULL;
	struct ptrvec modules = { 0 };
	if (!module_file && strpbrk(pattern, "*?[")) {
		/* Each module once, in name order, whatever places hold it. */
		const struct debug_index *ix = c->s->debug_ix;
		for (size_t i = 0; i < ix->nmodules; i++)
			if (!fnmatch(pattern, ix->by_name[i]->module, 0) &&
			    strcmp(ix->by_name[i]->module, "kernel"))
				pv_push(&modules, ix->by_name[i]->module);
		/* None has debug information: the installed ones, through BTF or
		 * the probe cache. */
		if (!modules.n && ((!statement && !inline_copies && !file) || c->s->probe_cache))
			debugfind_installed_matching(c->s->debug_ix, pattern, &modules);
	} else {
		pv_push(&modules, pattern);
	}
	struct ptrvec sites = { 0 };
	size_t left_out = 0;
	bool broken = false, too_many = false;
	bool wild_modules = !module_file && strpbrk(pattern, "*?[");
	for (size_t i = 0; i < modules.n; i++) {
		char *why = NULL;
		char *build_id = module_build_id(c, modules.v[i], module_file);
		int r = c->s->force_symtab
				? -1
				: query_sites(c, statement ? Q_STATEMENTS : inline_copies ? Q_INLINES : Q_FUNCTIONS,
					      modules.v[i], module_file, build_id, &q, &sites, &left_out, &why);
		/* .function, as in SystemTap, is also every copy inlined into a
		 * caller (.call and .return are the out-of-line copy alone). */
		if (r >= 0 && plain_function(c)) {
			char *inline_why = NULL;
			query_sites(c, Q_INLINES, modules.v[i], module_file, build_id, &q, &sites,
				    &left_out, &inline_why);
			free(inline_why);
		}
		free(build_id);
		/* No DWARF at all: BTF gives functions and parameters (not files, lines,
		 * statements or inlined copies). */
		char *btf_why = NULL;
		if (r < 0 && !why && !statement && !inline_copies && !file &&
		    module_btf_sites(c, modules.v[i], module_file, func, kind, &sites, &left_out,
				     &btf_why) >= 0)
			r = 0;
		if (r < 0 && btf_why && c->s->verbose && modules.n > 1)
			fprintf(stderr, "stap: no BTF either: %s\n", btf_why);
		if (r < 0) {
			if (modules.n == 1 && !c->pt->optional)
				no_debuginfo(c, modules.v[i], why, btf_why, mc->arg->loc);
			broken = true;
		}
		free(btf_why);
		free(why);
		if (wild_modules)
			dw_release(d, modules.v[i]);
	}
	if (modules.n == 0 && !c->pt->optional) {
		diag_error(mc->arg->loc, D_NO_DEBUGINFO,
			   "no module with debug information matches '%s'", mc->arg->str);
		struct strbuf b;
		sb_init(&b);
		for (size_t i = 0; i < c->s->debug_ix->looked.n; i++)
			sb_printf(&b, "%s%s", i ? "; " : "", (char *)c->s->debug_ix->looked.v[i]);
		diag_note(mc->arg->loc, "looked in: %s", b.s);
		sb_free(&b);
	}
	char *what = xasprintf("'%s' in '%s'", fc->arg->str, mc->arg->str);
	if (too_many_matches(c, fc->arg->loc, what, sites.n, "places")) {
		sites.n = 0;
		too_many = broken = true;
	}
	free(what);
	for (size_t i = 0; i < sites.n; i++)
		add_site_probe(c, kind, sites.v[i]);
	if (c->s->verbose && left_out) {
		char *pp = ast_probe_point_text(c->pp);
		fprintf(stderr, "%s: %zu functions left out: only in init code (freed after loading) "
				"or with no symbol to place a probe by\n", pp, left_out);
		free(pp);
	}
	if (sites.n == 0 && !(broken && modules.n == 1) && !too_many && modules.n &&
	    !c->pt->optional) {
		if (modules.n == 1 && !left_out && statement) {
			diag_error(fc->arg->loc, D_UNKNOWN_KERNEL_FUNCTION,
				   "no statement of a function matching '%s' begins at %s:%d in module "
				   "'%s'",
				   func, file, q.line, (char *)modules.v[0]);
			statement_hint(d, modules.v[0], module_file, &q);
		} else if (modules.n == 1 && !left_out) {
			diag_error(fc->arg->loc, D_UNKNOWN_KERNEL_FUNCTION,
				   "module '%s' has no function matching '%s'", (char *)modules.v[0],
				   fc->arg->str);
			struct suggest sg;
			suggest_init(&sg, func);
			dw_each_function(d, modules.v[0], offer_name, &sg);
			suggest_hint(&sg, NULL);
		} else {
			diag_error(fc->arg->loc, D_UNKNOWN_KERNEL_FUNCTION,
				   "no function matching '%s' can be probed in module%s '%s'",
				   fc->arg->str, modules.n > 1 ? "s" : "", mc->arg->str);
			if (left_out)
				diag_hint("run with -v to see what was left out");
		}
	}
	pv_free(&modules);
	pv_free(&sites);
	free(pattern);
	free(func);
	free(file);
}

int probe_point_resolve(struct session *s, struct point *pt)
{
	struct pp_ctx c = { .s = s, .pt = pt, .pp = pt->pp };
	for (struct node *k = pt->pp->list; k; k = k->next) {
		if (c.n == (int)ARRAY_SIZE(c.comps)) {
			if (!pt->optional)
				unknown_shape(&c);
			return 0;
		}
		c.comps[c.n++] = (struct comp){ k->name, k->lhs, k->loc };
	}
	int before = diag_errors();
	/* ".return.maxactive(N)" on a function: the calls its return probes track. */
	if (c.n >= 4 && comp_is(&c, c.n - 1, "maxactive") && comp_is(&c, c.n - 2, "return") &&
	    comp_is(&c, 1, "function")) {
		if (!want_number(&c, c.n - 1, true, &c.maxactive))
			return 0;
		if (c.maxactive < 1 || c.maxactive > 4096) {
			diag_error(c.comps[c.n - 1].loc, D_BAD_PROBE_ARG,
				   "maxactive(%lld): a return probe tracks 1 to 4096 calls at once",
				   c.maxactive);
			return 0;
		}
		c.n--;
	}
	if (c.n == 1 && comp_is(&c, 0, "begin"))
		begin_end(&c, PK_BEGIN);
	else if (c.n == 1 && comp_is(&c, 0, "end"))
		begin_end(&c, PK_END);
	else if (c.n == 1 && comp_is(&c, 0, "error"))
		/* Instead of the end probes, when an error stops the script. */
		begin_end(&c, PK_ERROR);
	else if (c.n == 1 && comp_is(&c, 0, "never"))
		/* A probe that never fires: its body is still checked. */
		pt->handler(pt->arg, false)->check_only = true;
	else if (c.n == 2 && comp_is(&c, 0, "timer") && comp_is(&c, 1, "profile"))
		timer_profile(&c);
	else if (comp_is(&c, 0, "timer"))
		timer(&c);
	else if (comp_is(&c, 0, "perf"))
		perf_point(&c);
	else if ((comp_is(&c, 0, "kernel") || comp_is(&c, 0, "kprobe")) && comp_is(&c, 1, "function"))
		kernel_function_point(&c);
	else if (comp_is(&c, 0, "kernel") && comp_is(&c, 1, "statement"))
		kernel_statement_point(&c);
	else if (comp_is(&c, 0, "kernel") && comp_is(&c, 1, "trace"))
		kernel_trace_point(&c);
	else if (comp_is(&c, 0, "module") && (comp_is(&c, 1, "function") || comp_is(&c, 1, "statement")))
		module_function_point(&c);
	else if (comp_is(&c, 0, "process"))
		process_point(&c);
	else if (comp_is(&c, 0, "procfs"))
		procfs_point(&c);
	else if (comp_is(&c, 0, "netfilter"))
		netfilter_point(&c);
	else if (!pt->optional)
		unknown_shape(&c);
	/* "never" counts as resolved. */
	if (c.n == 1 && comp_is(&c, 0, "never"))
		return 1;
	return diag_errors() == before ? c.made : 0;
}
