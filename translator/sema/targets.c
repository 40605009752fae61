// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Target expressions against a probe's site: `$var`, `$var->a[2].b`,
 * `&$var`, `$var$`, `$$parms`, `$return`, `@entry(...)`. Each becomes a
 * plan (struct target_access, session.h) made from the site's variables
 * and their types (debuginfo/target.h), whichever source filled them;
 * codegen follows the plan.
 *
 * In a .return probe the function's parameters are the values they had
 * at entry (SystemTap's rule): the raw value of each one used is saved at
 * entry, and members reached from it (`$p->x`) are read at return through
 * the saved pointer, so a script sees what the function did.
 */
#include <errno.h>
#include <string.h>

#include "debuginfo/btf.h"
#include "debuginfo/dw.h"
#include "debuginfo/headers.h"
#include "debuginfo/userelf.h"
#include "front/diag.h"
#include "sema/sema.h"

struct resolver {
	struct session *s;
	struct handler *h;
	struct node *n;
	bool quiet;        /* @defined: no diagnostics */
	bool at_entry;     /* evaluated at the function's entry (inside @entry) */
};

static void err(struct resolver *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void err(struct resolver *r, const char *fmt, ...)
{
	if (r->quiet)
		return;
	va_list ap;
	va_start(ap, fmt);
	char *msg = xvasprintf(fmt, ap);
	va_end(ap);
	diag_error(r->n->loc, D_TARGET_VARIABLE, "%s", msg);
	free(msg);
}

static void hint(struct resolver *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void hint(struct resolver *r, const char *fmt, ...)
{
	if (r->quiet)
		return;
	va_list ap;
	va_start(ap, fmt);
	char *msg = xvasprintf(fmt, ap);
	va_end(ap);
	diag_hint("%s", msg);
	free(msg);
}

static const char *where(const struct probe_site *site)
{
	return site->function;
}

/* "the variables here: a, b, c" with a "did you mean" first. */
static void scope_hint(struct resolver *r, const char *name)
{
	struct probe_site *site = r->h->site;
	struct suggest sg;
	suggest_init(&sg, name);
	struct strbuf b;
	sb_init(&b);
	for (size_t i = 0; i < site->nvars; i++) {
		const struct tvar *v = &site->vars[i];
		if (r->h->is_return && !r->at_entry && !v->is_param)
			continue;
		suggest_offer(&sg, v->name);
		sb_printf(&b, "%s$%s", b.len ? ", " : "", v->name);
	}
	if (r->h->is_return)
		sb_printf(&b, "%s$return", b.len ? ", " : "");
	if (!r->quiet && !suggest_hint(&sg, NULL) && b.len)
		hint(r, "available at this probe: %s", b.s);
	else if (!r->quiet && b.len)
		hint(r, "available at this probe: %s", b.s);
	if (!b.len)
		hint(r, "%s has no parameters or locals here", site->function);
	sb_free(&b);
}

static void offer_member(const char *name, void *sg)
{
	suggest_offer(sg, name);
}

static void push_step(struct target_access *a, enum tstep_kind kind, long long k,
		      struct node *index)
{
	a->steps = xrealloc(a->steps, (a->nsteps + 1) * sizeof *a->steps);
	a->steps[a->nsteps++] = (struct tstep){ kind, k, index };
}

/* What kind of thing the plan holds after its steps: an object in memory
 * (an address) or a value (in a register, or saved at entry). */
enum held { IN_MEMORY, AS_VALUE };

/* Follow the member chain from a's base; false after an error. */
static bool walk_members(struct resolver *r, struct target_access *a, enum held held)
{
	struct ctype *t = a->base_type;
	for (struct node *m = r->n->list; m; m = m->next) {
		if (a->bit_size) {
			err(r, "'%s': a bit-field has no members", a->text);
			return false;
		}
		if (m->name) {
			if (t->kind == CT_PTR) {
				push_step(a, TS_DEREF, 0, NULL);
				t = ctype_complete(t->target);
				held = IN_MEMORY;
			}
			if (t->kind != CT_STRUCT && t->kind != CT_UNION) {
				err(r, "'%s': cannot take member '%s' of %s, which is not a struct or "
				       "union", a->text, m->name, t->name ? t->name : "a value");
				return false;
			}
			if (!ctype_complete(t)->nmembers && t->size == 0) {
				err(r, "'%s': %s is not defined in the debug information", a->text,
				    t->name);
				return false;
			}
			uint64_t off;
			const struct cmember *cm = ctype_member(t, m->name, &off);
			if (!cm) {
				err(r, "'%s': %s has no member '%s'", a->text, t->name, m->name);
				struct suggest sg;
				suggest_init(&sg, m->name);
				ctype_member_names(t, offer_member, &sg);
				if (!r->quiet)
					suggest_hint(&sg, NULL);
				return false;
			}
			if (held == AS_VALUE) {
				err(r, "'%s': the struct is held in registers here, and its members "
				       "cannot be read one by one", a->text);
				return false;
			}
			push_step(a, TS_OFFSET, (long long)off, NULL);
			t = ctype_complete(cm->type);
			a->bit_size = cm->bit_size;
			a->bit_offset = cm->bit_offset;
		} else {
			struct ctype *elem;
			if (a->base_expr && m == r->n->list) {
				/* @cast(p, "type")[i] and an autocast's (p)[i]: p
				 * is the first of an array of them, as in C's p[i]
				 * (&@cast(0, "T")[1] is T's size; (argv)[1] of a
				 * char ** is the second char *). */
				elem = t;
			} else if (t->kind == CT_ARRAY) {
				if (held == AS_VALUE) {
					err(r, "'%s': the array is held in registers here", a->text);
					return false;
				}
				elem = ctype_complete(t->target);
			} else if (t->kind == CT_PTR) {
				push_step(a, TS_DEREF, 0, NULL);
				elem = ctype_complete(t->target);
			} else {
				err(r, "'%s': %s cannot be indexed", a->text,
				    t->name ? t->name : "the value");
				return false;
			}
			if (elem->size == 0) {
				err(r, "'%s': the elements (%s) have no known size", a->text, elem->name);
				return false;
			}
			push_step(a, TS_INDEX, (long long)elem->size, m->lhs);
			held = IN_MEMORY;
			t = elem;
		}
	}
	a->type = t;
	/* The result. */
	if (r->n->addr_of) {
		if (a->bit_size || held == AS_VALUE) {
			err(r, "'%s': %s has no address", a->text,
			    a->bit_size ? "a bit-field" : "a value held in a register");
			return false;
		}
		a->result = TA_ADDRESS;
		return true;
	}
	if (r->n->pretty) {
		a->result = TA_PRETTY;
		a->pretty = r->n->pretty;
		if (held == AS_VALUE && (t->kind == CT_STRUCT || t->kind == CT_UNION ||
					 t->kind == CT_ARRAY)) {
			err(r, "'%s': the %s is held in registers here", a->text, t->name);
			return false;
		}
		return true;
	}
	switch (t->kind) {
	case CT_INT:
	case CT_ENUM:
	case CT_PTR:
		if (t->size == 0 || t->size > 8) {
			err(r, "'%s' is %s, %llu bytes: too large for a number", a->text, t->name,
			    (unsigned long long)t->size);
			return false;
		}
		a->result = TA_INT;
		return true;
	case CT_ARRAY:
		if (ctype_is_string(t) && held == IN_MEMORY) {
			a->result = TA_STRING;
			return true;
		}
		err(r, "'%s' is an array (%s)", a->text, t->name);
		hint(r, "index it ('%s[0]'), or print it whole with '%s$'", a->text, a->text);
		return false;
	case CT_STRUCT:
	case CT_UNION:
		/* @cast(p, "T") itself, as SystemTap's @container_of gives it:
		 * the typed pointer's value, p. */
		if (a->base_expr && a->nsteps == 0) {
			a->result = TA_ADDRESS;
			return true;
		}
		err(r, "'%s' is %s, not a number or a string", a->text, t->name);
		hint(r, "name a member ('%s->...'), or print it whole with '%s$'", a->text, a->text);
		return false;
	case CT_VOID:
	case CT_FUNC:
		break;
	}
	err(r, "'%s' has no value (it is %s)", a->text, t->name ? t->name : "void");
	return false;
}

/* Can a parameter's value be saved at entry (a number or a pointer)? */
static bool savable(const struct tvar *v)
{
	return v->loc.kind != TL_NONE && v->type->kind != CT_STRUCT && v->type->kind != CT_UNION &&
	       v->type->kind != CT_ARRAY && v->type->size > 0 && v->type->size <= 8;
}

/* A parameter's value at entry, saved for the .return body: an
 * @entry($param) of its own, once per handler. Its offset in the entry data. */
static size_t entry_slot(struct resolver *r, const struct tvar *v)
{
	for (size_t i = 0; i < r->h->entry_exprs.n; i++) {
		struct node *e = r->h->entry_exprs.v[i];
		if (e->lhs->kind == N_TARGET && e->lhs->access && e->lhs->access->loc == &v->loc &&
		    !e->lhs->list)
			return e->access->entry_off;
	}
	struct node *t = ast_new(N_TARGET, r->n->loc);
	t->name = v->name;
	struct target_access *ea = xcalloc(1, sizeof *ea);
	ea->result = TA_INT;
	ea->text = xasprintf("$%s", v->name);
	ea->loc = &v->loc;
	ea->base_type = ea->type = v->type;
	t->access = ea;
	t->type = T_LONG;
	struct node *e = ast_new(N_ENTRY, r->n->loc);
	e->lhs = t;
	e->type = T_LONG;
	target_save_at_entry(r->h, e, 8);
	return e->access->entry_off;
}

static bool save_at_entry(struct resolver *r, const struct tvar *v, struct target_access *a)
{
	if (!savable(v)) {
		err(r, "'%s': parameter '%s' (%s) is passed by value and cannot be saved at entry",
		    a->text, v->name, v->type->name);
		hint(r, "save the parts you need with @entry($%s->member)", v->name);
		return false;
	}
	a->entry_off = r->quiet ? 0 : entry_slot(r, v);
	a->loc = NULL;
	return true;
}

/*
 * An object the compiler keeps in pieces (a struct in registers) may be
 * described only in part at this point (clang gives the first half of a
 * struct passed in one register): what the access reads of it, before any
 * pointer it follows, must be in the pieces described.
 */
static bool pieces_cover(struct resolver *r, const struct target_access *a, const struct tloc *l,
			 const char *name)
{
	uint64_t covered = 0, off = 0, need = a->type && a->type->size ? a->type->size : 8;
	for (size_t i = 0; i < l->npieces; i++)
		covered += l->pieces[i].size;
	for (size_t i = 0; i < a->nsteps; i++) {
		if (a->steps[i].kind == TS_INDEX) {
			need = a->base_type->size;
			off = 0;
			break;
		}
		if (a->steps[i].kind == TS_DEREF) {
			need = 8;
			break;
		}
		off += (uint64_t)a->steps[i].k;
	}
	if (off + need <= covered)
		return true;
	err(r, "'%s' cannot be read at this probe: the debug information describes only the "
	       "first %llu bytes of $%s here", a->text, (unsigned long long)covered, name);
	return false;
}

/* A parameter that cannot be read from the debug information: by its
 * position, where the calling convention puts it at the function's entry,
 * as a probe without debug information would (--symtab). */
static void position_hint(struct resolver *r, struct probe_site *site, const struct tvar *v)
{
	if (!v->is_param || !v->type || r->quiet)
		return;
	int n = 0;
	for (size_t i = 0; i < site->nvars && &site->vars[i] != v; i++)
		n += site->vars[i].is_param;
	struct ctype *t = ctype_complete(v->type);
	if (n >= 6 || (t->kind != CT_PTR && !(ctype_is_integer(t) && !t->is_float)))
		return;
	const char *fn = t->kind == CT_PTR ? "pointer_arg" : t->size > 4 ? (t->is_signed ? "long_arg" : "ulong_arg")
						: (t->is_signed ? "int_arg" : "uint_arg");
	hint(r, "at the function's entry (its .call probe) %s(%d) reads it by its position, as "
		"the calling convention passes it, without debug information", fn, n + 1);
}

/* A global or static variable's plan: read where it is when the body runs
 * (in a .return probe too: it is not the function's to save). */
static struct target_access *plan_static(struct resolver *r, const struct tvar *v,
					 struct target_access *a)
{
	if (v->loc.kind == TL_NONE) {
		err(r, "'%s' cannot be read: %s", a->text, v->loc.why ? v->loc.why : "it has no location");
		return NULL;
	}
	if (v->loc.stat && !strcmp(v->loc.stat->object, "kernel") && !sema_find_text(r->s)) {
		err(r, "'%s' cannot be read: the kernel's symbol addresses are not known here", a->text);
		return NULL;
	}
	if (v->loc.stat && v->loc.stat->object[0] == '/') {
		/* A user file's: the runtime finds it where the file is mapped. */
		char *why = NULL;
		const struct user_elf *u = user_elf_open(v->loc.stat->object, &why);
		if (!u) {
			err(r, "'%s' cannot be read: %s: %s", a->text, v->loc.stat->object,
			    why ? why : "cannot read it");
			free(why);
			return NULL;
		}
		uprobes_add_object(r->s, u);
		a->user = true;
	}
	a->loc = &v->loc;
	a->base_type = ctype_complete(v->type);
	return walk_members(r, a, v->loc.kind == TL_VALUE ? AS_VALUE : IN_MEMORY) ? a : NULL;
}

/* The global or static variable name as the code at the probe sees it:
 * one of its own unit. */
static const struct tvar *unit_global(struct resolver *r, const char *name)
{
	struct probe_site *site = r->h->site;
	if (!site->source || strcmp(site->source, "DWARF") || !site->src_key)
		return NULL;
	char *why = NULL;
	const struct tvar *v =
		dw_global(sema_debuginfo(r->s), site->object, name, NULL, site->src_key, &why);
	free(why);
	return v;
}

static struct target_access *resolve_var(struct resolver *r)
{
	struct probe_site *site = r->h->site;
	const char *name = r->n->name;
	struct target_access *a = xcalloc(1, sizeof *a);
	a->text = ast_expr_text(r->n);
	/* process.syscall.return's $return is a variable of its site. */
	if (!strcmp(name, "return") && !site_var(site, "return")) {
		if (!r->h->is_return) {
			err(r, "'$return' is only available in a '.return' probe");
			return NULL;
		}
		if (r->at_entry) {
			err(r, "'$return' inside @entry(...) has no value yet");
			return NULL;
		}
		if (!site->return_type || site->return_type->kind == CT_VOID) {
			err(r, "'$return': %s returns nothing", site->function);
			return NULL;
		}
		static struct tloc_op rax = { LO_REG, 0 };
		static const struct tloc ret = { .kind = TL_VALUE, .ops = &rax, .nops = 1 };
		a->loc = &ret;
		a->base_type = ctype_complete(site->return_type);
		return walk_members(r, a, AS_VALUE) ? a : NULL;
	}
	const struct tvar *v = site_var(site, name);
	const struct tvar *g = v ? NULL : unit_global(r, name);
	if (g)
		return plan_static(r, g, a);
	if (!v && site->mark_provider) {
		err(r, "marker %s:%s has %zu argument%s: no '$%s'", site->mark_provider, site->function,
		    site->nvars, site->nvars == 1 ? "" : "s", name);
		if (!r->quiet)
			hint(r, "@defined($%s) tells whether a marker has it", name);
		return NULL;
	}
	if (!v) {
		bool btf = site->source && !strcmp(site->source, "BTF");
		err(r, "'$%s' is not a parameter%s of %s at this probe", name,
		    btf ? " (the kernel's BTF gives parameters only)" : " or local variable",
		    where(site));
		scope_hint(r, name);
		if (btf && !r->quiet)
			sema_kernel_dwarf_hint(r->s, "locals and globals");
		return NULL;
	}
	if (v->loc.kind == TL_NONE) {
		err(r, "'$%s' cannot be read at this probe: %s", name,
		    v->loc.why ? v->loc.why : "it is optimized out");
		if (r->h->is_return)
			hint(r, "in a .return probe a parameter is read at entry");
		else
			position_hint(r, site, v);
		return NULL;
	}
	a->base_type = ctype_complete(v->type);
	if (r->h->is_return && !r->at_entry) {
		if (!v->is_param) {
			err(r, "'$%s' is a local variable of %s: a .return probe has only the "
			       "parameters (as they were at entry), $return and @entry(...)",
			    name, site->function);
			return NULL;
		}
		if (!save_at_entry(r, v, a))
			return NULL;
		return walk_members(r, a, AS_VALUE) ? a : NULL;
	}
	a->loc = &v->loc;
	enum held held = v->loc.kind == TL_VALUE ? AS_VALUE : IN_MEMORY;
	/* A small struct passed in a register: copied out to be read. */
	if (held == AS_VALUE && (a->base_type->kind == CT_STRUCT || a->base_type->kind == CT_UNION ||
				 a->base_type->kind == CT_ARRAY) && a->base_type->size <= 8) {
		a->materialize = true;
		held = IN_MEMORY;
	}
	if (!walk_members(r, a, held))
		return NULL;
	if (v->loc.kind == TL_PIECES && !pieces_cover(r, a, &v->loc, name))
		return NULL;
	return a;
}

/* $$vars, $$parms, $$locals, $$return */
static struct target_access *resolve_list(struct resolver *r)
{
	struct probe_site *site = r->h->site;
	const char *which = r->n->name + 1;
	bool parms = !strcmp(which, "vars") || !strcmp(which, "parms");
	bool locals = !strcmp(which, "vars") || !strcmp(which, "locals");
	bool ret = !strcmp(which, "return");
	/* A marker's name and provider; a PLT entry's function (SystemTap's
	 * $$name in .plt probes). */
	if ((site->mark_provider && (!strcmp(which, "name") || !strcmp(which, "provider"))) ||
	    (site->is_plt && !strcmp(which, "name"))) {
		struct target_access *a = xcalloc(1, sizeof *a);
		a->result = TA_CONSTANT;
		a->text = ast_expr_text(r->n);
		a->value = which[0] == 'n' ? site->function : site->mark_provider;
		return a;
	}
	if (!parms && !locals && !ret) {
		err(r, "'$$%s' is not one of $$vars, $$parms, $$locals, $$return%s", which,
		    site->mark_provider ? ", $$name, $$provider" : site->is_plt ? ", $$name" : "");
		return NULL;
	}
	if (r->n->list) {
		err(r, "'$$%s' is a string and has no members", which);
		return NULL;
	}
	if (r->h->is_return)
		locals = false;
	struct target_access *a = xcalloc(1, sizeof *a);
	a->result = TA_VARLIST;
	a->text = ast_expr_text(r->n);
	a->pretty = r->n->pretty;
	site_load_vars(site);
	a->vars = xcalloc(site->nvars + 1, sizeof *a->vars);
	for (size_t i = 0; i < site->nvars; i++) {
		const struct tvar *v = &site->vars[i];
		if (!(v->is_param ? parms : locals))
			continue;
		a->vars[a->nvars++] = v;
		/* A '?' in the list has its reason: -v says it. */
		if (v->loc.kind == TL_NONE && r->s->verbose && !r->quiet)
			fprintf(stderr, "stap: $$%s at %s shows %s as '?': %s\n", which, where(site),
				v->name, v->loc.why ? v->loc.why : "it is optimized out there");
	}
	if (ret || (r->h->is_return && !strcmp(which, "vars"))) {
		if (!r->h->is_return) {
			err(r, "'$$return' is only available in a '.return' probe");
			return NULL;
		}
		a->with_return = site->return_type && site->return_type->kind != CT_VOID;
		a->type = a->with_return ? ctype_complete(site->return_type) : NULL;
	}
	a->in_return = r->h->is_return;
	/* In a .return probe each parameter shown is its value at entry. */
	a->var_offs = xcalloc(a->nvars + 1, sizeof *a->var_offs);
	for (size_t i = 0; i < a->nvars; i++)
		a->var_offs[i] = r->h->is_return && !r->quiet
					 ? (savable(a->vars[i]) ? entry_slot(r, a->vars[i]) : NO_SLOT)
					 : NO_SLOT;
	return a;
}

bool target_is_special(const struct session *s, const struct handler *h, const struct node *n,
		       const char *name, enum probe_kind a, enum probe_kind b)
{
	if (!h || n->kind != N_TARGET || strcmp(n->name, name) || n->list || n->pretty || n->addr_of)
		return false;
	bool any = false;
	for (size_t i = 0; i < s->prog.probes.n; i++) {
		const struct probe *p = s->prog.probes.v[i];
		if (p->handler != h)
			continue;
		if (p->kind != a && p->kind != b)
			return false;
		any = true;
	}
	return any;
}

bool target_is_procfs_value(const struct session *s, const struct handler *h, const struct node *n)
{
	return target_is_special(s, h, n, "value", PK_PROCFS_READ, PK_PROCFS_WRITE);
}

bool target_is_nf_verdict(const struct session *s, const struct handler *h, const struct node *n)
{
	return target_is_special(s, h, n, "verdict", PK_NETFILTER, PK_NETFILTER);
}

struct target_access *target_resolve(struct session *s, struct handler *h, struct node *n,
				     bool at_entry, bool quiet)
{
	struct resolver r = { s, h, n, quiet, at_entry };
	if (!h || !h->site) {
		if (!quiet) {
			char *text = ast_expr_text(n);
			diag_error(n->loc, D_TARGET_VARIABLE,
				   "'%s' needs debug information for the probed code, and this probe "
				   "has none",
				   text);
			free(text);
			if (s->force_symtab)
				diag_hint("--symtab reads symbol tables only, no types: read arguments by "
					  "position (int_arg(N), pointer_arg(N), ...) and returnval()");
			else if (sema_kernel_dwarf_installed(s))
				diag_hint("the kernel's DWARF is installed, but this probe point reads "
					  "none: kernel.function(\"NAME\") does (kprobe.function, "
					  "symbol-table probes and probes outside functions do not); module "
					  "functions need the module's debug information (see "
					  "--debuginfo-path)");
			else if (sema_kernel_btf(s))
				diag_hint("the kernel's BTF has no prototype of this function (an alias "
					  "or an assembly entry point): install linux-image-%s-dbg for its "
					  "DWARF; module functions need the module's debug information (see "
					  "--debuginfo-path)",
					  s->release);
			else
				diag_hint("kernel functions need the kernel's DWARF (linux-image-%s-dbg) "
					  "or BTF; module functions need the module's debug information "
					  "(see --debuginfo-path)",
					  s->release);
		}
		return NULL;
	}
	struct target_access *a = n->name[0] == '$' ? resolve_list(&r) : resolve_var(&r);
	if (a)
		a->user = h->site->is_user;
	return a;
}

void target_save_at_entry(struct handler *h, struct node *entry, size_t size)
{
	struct target_access *a = xcalloc(1, sizeof *a);
	a->result = TA_SAVED;
	a->text = xstrdup("@entry(...)");
	/* Slots are 8-byte aligned: a long, or a string of MAXSTRINGLEN. */
	a->entry_off = h->entry_size;
	h->entry_size += (size + 7) & ~(size_t)7;
	entry->access = a;
	pv_push(&h->entry_exprs, entry);
}

/*
 * The type named in module (one of @cast's choices): a program or library
 * by path (a '/' before any header's '<', relative to where stap runs, as
 * process("./prog") takes it), a kernel module or the kernel (a
 * "kernel<linux/fs.h>" header list is the kernel's types), or headers
 * alone ("<sys/un.h>": compiled for their DWARF). *user: the type reads
 * user memory. NULL with *why.
 */
static struct ctype *cast_type_in(struct session *s, const char *spec, const char *type,
				  bool *user, char **why)
{
	size_t name_len = strcspn(spec, "<");
	char *module = NULL;
	*user = false;
	if (memchr(spec, '/', name_len)) {
		char *path = xstrndup(spec, name_len);
		module = realpath(path, NULL);
		if (!module)
			*why = xasprintf("the module '%s' cannot be found: %s", path, strerror(errno));
		free(path);
		if (!module)
			return NULL;
		*user = true;
	} else if (!name_len && spec[0] == '<') {
		module = headers_library(spec, why);
		if (!module)
			return NULL;
	} else {
		char *name = xstrndup(spec, name_len);
		module = debugfind_module_name(name);
		free(name);
	}
	struct ctype *t = NULL;
	/* The kernel's types from its DWARF if installed (and not --btf), else its BTF. */
	struct btf_source *kbtf = !strcmp(module, "kernel") ? sema_kernel_btf(s) : NULL;
	if (!kbtf || !s->force_btf)
		t = dw_find_type(sema_debuginfo(s), module, type, why);
	if (!t && kbtf) {
		free(*why);
		*why = NULL;
		t = btf_find_type(kbtf, type, why);
	}
	/* A module's types from its BTF when its DWARF is not installed (or
	 * with --btf): the .ko carries them, on top of the kernel's. */
	if (!t && strcmp(module, "kernel") && module[0] != '/' && !s->force_symtab &&
	    (s->force_btf || (*why && strstr(*why, "no debug information")) || !*why)) {
		char *mwhy = NULL;
		struct btf_source *mb = sema_module_btf(s, module, &mwhy);
		if (mb) {
			free(*why);
			*why = NULL;
			t = btf_find_type(mb, type, why);
			if (!t) {
				free(*why);
				*why = xasprintf("neither %s's BTF nor the kernel's has type '%s'", module,
						 type);
			}
		}
		free(mwhy);
	}
	if (!t && !*why)
		*why = xasprintf("no debug information for '%s': install it, or name another module: "
				 "@cast(p, \"type\", \"module\")", module);
	free(module);
	return t;
}

struct target_access *target_resolve_cast(struct session *s, struct handler *h, struct node *n,
					  bool quiet)
{
	struct resolver r = { s, h, n, quiet, false };
	/* The modules to look in, in order ("foo:kernel:bar", as SystemTap
	 * takes them): the first that has the type; none named: the probe's
	 * own, else the kernel. */
	char *specs = xstrdup(n->rhs ? n->rhs->str : h && h->site ? h->site->object : "kernel");
	char *why = NULL;
	struct ctype *t = NULL;
	bool user = false;
	for (char *spec = specs, *next; spec && !t; spec = next) {
		/* A ':' between choices, not one inside a header list. */
		next = strchr(spec, ':');
		char *lt = strchr(spec, '<');
		if (next && lt && lt < next)
			next = NULL;
		if (next)
			*next++ = 0;
		free(why);
		why = NULL;
		t = cast_type_in(s, spec, n->str, &user, &why);
	}
	free(specs);
	if (!t) {
		err(&r, "@cast: %s", why);
		free(why);
		return NULL;
	}
	free(why);
	struct target_access *a = xcalloc(1, sizeof *a);
	/* A program's type reads its memory; a header's, where the probe is. */
	a->user = user || (n->rhs && n->rhs->str[0] == '<' && h && h->site && h->site->is_user);
	a->text = ast_expr_text(n);
	a->base_expr = n->lhs;
	a->base_type = ctype_complete(t);
	return walk_members(&r, a, IN_MEMORY) ? a : NULL;
}

struct target_access *target_resolve_autocast(struct session *s, struct handler *h, struct node *n,
					      struct ctype *type, bool user, bool quiet)
{
	struct resolver r = { s, h, n, quiet, false };
	struct target_access *a = xcalloc(1, sizeof *a);
	a->user = user;
	a->text = ast_expr_text(n);
	a->base_expr = n->lhs;
	a->base_type = ctype_complete(type);
	return walk_members(&r, a, IN_MEMORY) ? a : NULL;
}

struct ctype *target_task_struct(struct session *s)
{
	if (!s->task_struct_tried && !s->force_symtab) {
		bool user;
		char *why = NULL;
		s->task_struct = cast_type_in(s, "kernel", "task_struct", &user, &why);
		free(why);
	}
	s->task_struct_tried = true;
	return s->task_struct;
}

/*
 * @var("name@file"[, "module"]): a global or static variable of the
 * module (named, else the probe's own, else the kernel) defined in a file
 * matching the pattern. Without "@file", in a probe with debug
 * information, the name as the probed code sees it: a parameter or local,
 * else a global of its unit.
 */
struct target_access *target_resolve_atvar(struct session *s, struct handler *h, struct node *n,
					   bool quiet)
{
	struct resolver r = { s, h, n, quiet, false };
	const char *at = strchr(n->str, '@');
	char *name = xstrndup(n->str, at ? (size_t)(at - n->str) : strlen(n->str));
	const char *file = at ? at + 1 : NULL;
	struct target_access *a = xcalloc(1, sizeof *a);
	a->text = ast_expr_text(n);
	struct probe_site *site = h ? h->site : NULL;
	char *module = n->rhs ? debugfind_module_name(n->rhs->str)
			      : xstrdup(site ? site->object : "kernel");
	const struct tvar *v = NULL;
	char *why = NULL;
	if (!*name || (file && !*file)) {
		err(&r, "@var(\"%s\"): name a variable, as @var(\"name\") or @var(\"name@file.c\")",
		    n->str);
		goto fail;
	}
	bool in_site = !file && site && !strcmp(module, site->object);
	/* A parameter or local: as $name (in a .return, its value at entry). */
	if (in_site && site_var(site, name)) {
		struct node *as_target = ast_new(N_TARGET, n->loc);
		as_target->name = name;
		as_target->list = n->list;
		as_target->pretty = n->pretty;
		as_target->addr_of = n->addr_of;
		struct target_access *ta = target_resolve(s, h, as_target, false, quiet);
		if (ta) {
			free(ta->text);
			ta->text = a->text;
		}
		free(a);
		free(module);
		return ta;
	}
	/* Else a global: of the probed function's unit, or of the file named. */
	v = dw_global(sema_debuginfo(s), module, name, file,
		      in_site && site->source && !strcmp(site->source, "DWARF") ? site->src_key : 0,
		      &why);
	if (!v) {
		err(&r, "@var(\"%s\"): %s", n->str, why ? why : "not found");
		if (!strcmp(module, "kernel") && why && strstr(why, "no debug information")) {
			if (!r.quiet)
				sema_kernel_dwarf_hint(s, "the kernel's globals");
		}
		else if (why && strstr(why, "no debug information"))
			hint(&r, "for a module you built, build it with -g and give its directory with "
				 "--debuginfo-path; for Debian's own, install linux-image-%s-dbg",
			     s->release);
		else if (!file)
			hint(&r, "a global of another file is named with it: @var(\"%s@file.c\"%s%s%s)",
			     name, n->rhs ? ", \"" : "", n->rhs ? n->rhs->str : "", n->rhs ? "\"" : "");
		goto fail;
	}
	free(name);
	free(why);
	free(module);
	return plan_static(&r, v, a);
fail:
	free(name);
	free(why);
	free(module);
	free(a->text);
	free(a);
	return NULL;
}

const char *target_write_problem(const struct target_access *a, int *regno)
{
	*regno = -1;
	if (a->result != TA_INT)
		return "only numbers (integers, enums and pointers) can be written";
	if (a->bit_size)
		return "a bit-field cannot be written";
	/* Where the object is: memory the probed code uses, or a register,
	 * or only a copy (a value saved at entry, a value the location
	 * computes, a struct gathered from registers). */
	bool memory = a->base_expr || (a->loc && a->loc->kind == TL_MEMORY);
	bool copy = !a->base_expr && (!a->loc || a->loc->kind != TL_MEMORY);
	for (size_t i = 0; i < a->nsteps; i++)
		if (a->steps[i].kind == TS_DEREF)
			memory = true, copy = false;
	if (memory && !copy)
		return NULL;
	if (a->nsteps == 0 && !a->materialize && a->loc && a->loc->kind == TL_VALUE &&
	    a->loc->nops == 1 && a->loc->ops[0].kind == LO_REG) {
		int r = (int)a->loc->ops[0].arg;
		if (r == 7 || r == 16 || r < 0 || r > 16)
			return "the stack pointer and the instruction pointer cannot be written";
		*regno = r;
		return NULL;
	}
	if (!a->loc && !a->base_expr)
		return "in a .return probe it is the value saved at entry: only $return and what "
		       "pointers lead to can be written";
	return "its value is computed here, not kept in memory or a register";
}
