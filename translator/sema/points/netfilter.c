// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * netfilter.hook("HOOK").pf("PF")[.priority("N")]: a netfilter hook.
 */
#include <fnmatch.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "debuginfo/btf.h"
#include "front/diag.h"
#include "sema/points/points.h"
#include "sema/sema.h"

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

static const char *const netfilter_usage[] = {
	"netfilter.hook(\"HOOK\").pf(\"PF\")[.priority(\"N\")]",
	NULL,
};
static const char *const netfilter_shapes[] = {
	"netfilter.hook.pf",
	"netfilter.pf.hook",
	"netfilter.hook.pf.priority",
	"netfilter.pf.hook.priority",
	NULL,
};

const struct family netfilter_family = {
	.first = "netfilter",
	.usage = netfilter_usage,
	.shapes = netfilter_shapes,
	.resolve = netfilter_point,
};
