// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The kernel's tracepoints (tracepoints.h). The names come from the
 * kernel's BTF: every tracepoint a BPF program may attach to has a
 * btf_trace_NAME typedef. BTF does not say which subsystem a tracepoint
 * belongs to, nor which event class (template) defines its arguments, so
 * those come from the trace event headers of the kernel's headers package
 * (include/trace/events/SYSTEM.h): each names its TRACE_SYSTEM and defines
 * its events with TRACE_EVENT(name, ...), DEFINE_EVENT(template, name, ...)
 * and their variants. Tracepoints of drivers, whose headers are not
 * shipped, have no system here.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gelf.h>
#include <libelf.h>

#include "debuginfo/btf.h"
#include "debuginfo/debugfind.h"
#include "debuginfo/kernel.h"
#include "private.h"
#include "debuginfo/tracepoints.h"
#include "util.h"

/* An event a header defines. */
struct defined {
	char *name, *system, *template;
};

static int defined_cmp(const void *a, const void *b)
{
	return strcmp(((const struct defined *)a)->name, ((const struct defined *)b)->name);
}

/* Append an event (copies of its strings; template may be NULL). */
static void add_event(struct defined **evs, size_t *n, size_t *cap, const char *name,
		      const char *system, const char *template)
{
	if (*n == *cap) {
		*cap = *cap ? 2 * *cap : 512;
		*evs = xrealloc(*evs, *cap * sizeof **evs);
	}
	(*evs)[(*n)++] = (struct defined){ xstrdup(name), xstrdup(system),
					    template ? xstrdup(template) : NULL };
}

/* The identifier at *p (advanced past it), or NULL. */
static char *ident(const char **p)
{
	while (**p == ' ' || **p == '\t' || **p == '\n' || **p == '\\')
		(*p)++;
	const char *s = *p;
	while (isalnum((unsigned char)**p) || **p == '_')
		(*p)++;
	return *p > s ? xstrndup(s, (size_t)(*p - s)) : NULL;
}

/* The macros that define an event: whether the first argument is its
 * template (the rest take the event's own name first). */
static const struct {
	const char *macro;
	bool template_first;
} event_macros[] = {
	{ "TRACE_EVENT", false }, { "TRACE_EVENT_FN", false }, { "TRACE_EVENT_FN_COND", false },
	{ "TRACE_EVENT_CONDITION", false }, { "DECLARE_TRACE", false },
	{ "DECLARE_TRACE_CONDITION", false }, { "DEFINE_EVENT", true }, { "DEFINE_EVENT_FN", true },
	{ "DEFINE_EVENT_PRINT", true }, { "DEFINE_EVENT_CONDITION", true },
};

/* The events one header defines, under the TRACE_SYSTEM in force at each. */
static void read_header(const char *path, struct defined **evs, size_t *n, size_t *cap)
{
	char *text = read_file(path, NULL);
	if (!text)
		return;
	char *system = NULL;
	for (const char *line = text; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
		const char *p = line;
		while (*p == ' ' || *p == '\t')
			p++;
		if (!strncmp(p, "#define TRACE_SYSTEM ", 21)) {
			p += 21;
			char *s = ident(&p);
			if (s) {
				free(system);
				system = s;
			}
			continue;
		}
		for (size_t m = 0; m < ARRAY_SIZE(event_macros); m++) {
			size_t len = strlen(event_macros[m].macro);
			if (strncmp(p, event_macros[m].macro, len) || p[len] != '(')
				continue;
			const char *q = p + len + 1;
			char *first = ident(&q), *second = NULL;
			if (event_macros[m].template_first && first) {
				while (*q == ' ' || *q == '\t' || *q == ',' || *q == '\n')
					q++;
				second = ident(&q);
			}
			const char *name = event_macros[m].template_first ? second : first;
			if (name && system)
				add_event(evs, n, cap, name, system, first);
			free(first);
			free(second);
			break;
		}
	}
	free(system);
	free(text);
}

/* The headers' directory: the build tree's own, or the one its Makefile
 * includes (Debian splits the headers into -common and -ARCH packages). */
static char *events_dir(const char *build_dir)
{
	char *dir = xasprintf("%s/include/trace/events", build_dir);
	if (is_dir(dir))
		return dir;
	free(dir);
	char *mk = xasprintf("%s/Makefile", build_dir);
	char *text = read_file(mk, NULL);
	free(mk);
	dir = NULL;
	if (text && !strncmp(text, "include ", 8)) {
		char *end = strstr(text + 8, "/Makefile");
		if (end) {
			*end = 0;
			dir = xasprintf("%s/include/trace/events", text + 8);
			if (!is_dir(dir)) {
				free(dir);
				dir = NULL;
			}
		}
	}
	free(text);
	return dir;
}

/* tracefs's events directory lists each event as SYSTEM/NAME. */
static void read_events_dir(const char *events, struct defined **evs, size_t *n, size_t *cap)
{
	DIR *d = opendir(events);
	for (struct dirent *sys; d && (sys = readdir(d));) {
		if (sys->d_name[0] == '.' || sys->d_type != DT_DIR)
			continue;
		char *sub = path_join(events, sys->d_name);
		DIR *e = opendir(sub);
		for (struct dirent *ev; e && (ev = readdir(e));) {
			if (ev->d_name[0] == '.' || ev->d_type != DT_DIR)
				continue;
			add_event(evs, n, cap, ev->d_name, sys->d_name, NULL);
		}
		if (e)
			closedir(e);
		free(sub);
	}
	if (d)
		closedir(d);
}

/*
 * The running kernel's events from tracefs: where it is mounted, else (as
 * root) mounted for a moment in a child's own mount namespace, which
 * nobody else sees. True if some were found.
 */
static bool read_tracefs(struct defined **evs, size_t *n, size_t *cap)
{
	static const char *const mounted[] = { "/sys/kernel/tracing/events",
					       "/sys/kernel/debug/tracing/events" };
	for (size_t i = 0; i < ARRAY_SIZE(mounted); i++) {
		read_events_dir(mounted[i], evs, n, cap);
		if (*n)
			return true;
	}
	if (geteuid() != 0)
		return false;
	int p[2];
	if (pipe2(p, O_CLOEXEC) < 0)
		return false;
	pid_t pid = fork();
	if (pid == 0) {
		close(p[0]);
		struct defined *mine = NULL;
		size_t k = 0, kcap = 0;
		if (unshare(CLONE_NEWNS) == 0 &&
		    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == 0 &&
		    mount("tracefs", "/sys/kernel/tracing", "tracefs", MS_NOSUID | MS_NODEV | MS_NOEXEC | MS_RDONLY,
			  NULL) == 0)
			read_events_dir("/sys/kernel/tracing/events", &mine, &k, &kcap);
		FILE *out = fdopen(p[1], "w");
		for (size_t i = 0; out && i < k; i++)
			fprintf(out, "%s %s\n", mine[i].system, mine[i].name);
		if (out)
			fclose(out);
		_exit(0);
	}
	close(p[1]);
	if (pid < 0) {
		close(p[0]);
		return false;
	}
	FILE *in = fdopen(p[0], "r");
	char sys[256], name[256];
	while (in && fscanf(in, "%255s %255s", sys, name) == 2)
		add_event(evs, n, cap, name, sys, NULL);
	if (in)
		fclose(in);
	else
		close(p[0]);
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
	return *n > 0;
}

struct collect {
	struct tracepoint *tps;
	size_t n, cap;
};

static void add_name(const char *name, void *ctx)
{
	struct collect *c = ctx;
	if (c->n == c->cap) {
		c->cap = c->cap ? 2 * c->cap : 1024;
		c->tps = xrealloc(c->tps, c->cap * sizeof *c->tps);
	}
	c->tps[c->n++] = (struct tracepoint){ xstrdup(name), NULL, NULL };
}

static int tp_cmp(const void *a, const void *b)
{
	return strcmp(((const struct tracepoint *)a)->name, ((const struct tracepoint *)b)->name);
}

/* The event classes: each kernel BPF entry __bpf_trace_CLASS, with its
 * argument types (btf_signature). */
struct class {
	char *name, *sig;
};

struct classes {
	struct btf_source *btf;
	struct class *v;
	size_t n, cap;
};

static void add_class(const char *fn, void *ctx)
{
	struct classes *cs = ctx;
	if (cs->n == cs->cap) {
		cs->cap = cs->cap ? 2 * cs->cap : 512;
		cs->v = xrealloc(cs->v, cs->cap * sizeof *cs->v);
	}
	char *sig = btf_signature(cs->btf, fn);
	if (sig)
		cs->v[cs->n++] = (struct class){ xstrdup(fn + strlen("__bpf_trace_")), sig };
}

static size_t common_prefix(const char *a, const char *b)
{
	size_t k = 0;
	while (a[k] && a[k] == b[k])
		k++;
	return k;
}

/* The arguments' names of class, "a,b,c". */
static char *class_arg_names(struct btf_source *b, const char *class)
{
	char *fn = xasprintf("__bpf_trace_%s", class);
	struct probe_site *s = btf_function_site(b, fn);
	free(fn);
	struct strbuf names;
	sb_init(&names);
	for (size_t i = 0; s && i < s->nvars; i++)
		sb_printf(&names, "%s,", s->vars[i].name);
	sb_puts(&names, "");
	return sb_detach(&names);
}

/*
 * The event class of a tracepoint no header named (none were read, or a
 * driver's): its own name when there is a class of that name (TRACE_EVENT),
 * else a class whose entry takes the same argument types; of several, one
 * whose arguments are named alike, or the one whose name shares the most
 * with the event's (sched_wakeup_template for sched_wakeup). NULL if that
 * leaves a doubt: the arguments are then $arg1, $arg2, ...
 */
static char *guess_class(struct btf_source *b, const struct classes *cs, const char *event)
{
	char *td = xasprintf("btf_trace_%s", event);
	char *sig = btf_signature(b, td);
	free(td);
	const struct class *best = NULL;
	size_t best_len = 0;
	bool tie = false;
	for (size_t i = 0; sig && i < cs->n; i++) {
		if (strcmp(cs->v[i].sig, sig))
			continue;
		if (!strcmp(cs->v[i].name, event)) {
			best = &cs->v[i];
			tie = false;
			break;
		}
		size_t len = common_prefix(cs->v[i].name, event);
		if (!best || len > best_len) {
			best = &cs->v[i];
			best_len = len;
			tie = false;
		} else if (len == best_len) {
			char *x = class_arg_names(b, best->name), *y = class_arg_names(b, cs->v[i].name);
			tie |= strcmp(x, y) != 0;
			free(x);
			free(y);
		}
	}
	free(sig);
	return best && !tie ? xstrdup(best->name) : NULL;
}

struct tracepoint *tracepoints_list(struct btf_source *kernel_btf, const char *build_dir,
				    bool running, const char **systems_from, size_t *n)
{
	struct collect c = { 0 };
	btf_each_typedef(kernel_btf, "btf_trace_", add_name, &c);
	qsort(c.tps, c.n, sizeof *c.tps, tp_cmp);

	struct defined *evs = NULL;
	size_t nevs = 0, cap = 0;
	char *dir = build_dir ? events_dir(build_dir) : NULL;
	DIR *d = dir ? opendir(dir) : NULL;
	for (struct dirent *e; d && (e = readdir(d));) {
		size_t len = strlen(e->d_name);
		if (len > 2 && !strcmp(e->d_name + len - 2, ".h")) {
			char *path = path_join(dir, e->d_name);
			read_header(path, &evs, &nevs, &cap);
			free(path);
		}
	}
	if (d)
		closedir(d);
	free(dir);
	*systems_from = nevs ? "the kernel's trace event headers" : NULL;
	if (!nevs && running && read_tracefs(&evs, &nevs, &cap))
		*systems_from = "tracefs";
	if (nevs)
		qsort(evs, nevs, sizeof *evs, defined_cmp);
	/* An event no header names gets its class guessed when a probe is
	 * placed on it (tracepoint_site): few scripts name many, and the
	 * guess compares the types of about a thousand classes. */
	for (size_t i = 0; i < c.n; i++) {
		struct defined key = { c.tps[i].name, NULL, NULL };
		const struct defined *ev = nevs ? bsearch(&key, evs, nevs, sizeof *evs, defined_cmp) : NULL;
		if (ev) {
			c.tps[i].system = xstrdup(ev->system);
			c.tps[i].template = ev->template ? xstrdup(ev->template) : NULL;
		}
	}
	for (size_t i = 0; i < nevs; i++) {
		free(evs[i].name);
		free(evs[i].system);
		free(evs[i].template);
	}
	free(evs);
	*n = c.n;
	return c.tps;
}

/* The kernel's event classes, read once per BTF on the first guess. */
static struct classes class_cache;

void tracepoints_forget_classes(void)
{
	class_cache = (struct classes){ 0 };
}

static char *guessed_class(struct btf_source *b, const char *event)
{
	if (class_cache.btf != b) {
		for (size_t i = 0; i < class_cache.n; i++) {
			free(class_cache.v[i].name);
			free(class_cache.v[i].sig);
		}
		free(class_cache.v);
		class_cache = (struct classes){ .btf = b };
		btf_each_function(b, "__bpf_trace_*", add_class, &class_cache);
	}
	return guess_class(b, &class_cache, event);
}

struct probe_site *tracepoint_site(struct btf_source *kernel_btf, const struct tracepoint *tp)
{
	/* The kernel's BPF entry for the event's class has its arguments, named,
	 * after the tracepoint's data pointer. */
	char *guess = tp->template ? NULL : guessed_class(kernel_btf, tp->name);
	const char *class = tp->template ? tp->template : guess ? guess : tp->name;
	char *fn = xasprintf("__bpf_trace_%s", class);
	free(guess);
	struct probe_site *s = btf_function_site(kernel_btf, fn);
	free(fn);
	/* Else the tracepoint's own prototype, whose arguments BTF leaves
	 * unnamed: $arg1, $arg2, ... */
	bool unnamed = !s;
	if (unnamed) {
		fn = xasprintf("btf_trace_%s", tp->name);
		s = btf_typedef_site(kernel_btf, fn);
		free(fn);
	}
	if (!s || s->nvars == 0)
		return NULL;
	free(s->vars[0].name);
	memmove(s->vars, s->vars + 1, (s->nvars - 1) * sizeof *s->vars);
	s->nvars--;
	for (size_t i = 0; unnamed && i < s->nvars; i++) {
		free(s->vars[i].name);
		s->vars[i].name = xasprintf("arg%zu", i + 1);
	}
	free(s->function);
	s->function = xstrdup(tp->name);
	s->return_type = NULL;
	s->return_type_name = NULL;
	return s;
}

/* A variable at member `member` of the struct pt_regs that regs points to. */
static bool regs_member_var(const struct tvar *regs, const char *member, const char *name,
			    struct tvar *out)
{
	if (regs->loc.kind != TL_VALUE || !regs->type || regs->type->kind != CT_PTR)
		return false;
	struct ctype *pt = ctype_complete(regs->type->target);
	uint64_t off;
	const struct cmember *m = pt ? ctype_member(pt, member, &off) : NULL;
	if (!m)
		return false;
	*out = (struct tvar){ .name = xstrdup(name), .type = m->type, .is_param = true };
	out->loc.kind = TL_MEMORY;
	out->loc.nops = regs->loc.nops + 1;
	out->loc.ops = xcalloc(out->loc.nops, sizeof *out->loc.ops);
	memcpy(out->loc.ops, regs->loc.ops, regs->loc.nops * sizeof *out->loc.ops);
	out->loc.ops[regs->loc.nops] = (struct tloc_op){ LO_PLUS, (int64_t)off };
	return true;
}

static struct tvar copy_var(const struct tvar *v, const char *name)
{
	struct tvar c = { .name = xstrdup(name), .type = v->type, .is_param = true };
	c.loc.kind = v->loc.kind;
	c.loc.nops = v->loc.nops;
	c.loc.ops = xcalloc(v->loc.nops ? v->loc.nops : 1, sizeof *c.loc.ops);
	memcpy(c.loc.ops, v->loc.ops, v->loc.nops * sizeof *c.loc.ops);
	return c;
}

struct probe_site *syscall_site(struct btf_source *kernel_btf, const struct tracepoint *tp,
				bool ret)
{
	struct probe_site *s = tracepoint_site(kernel_btf, tp);
	if (!s)
		return NULL;
	site_load_vars(s);
	const struct tvar *regs = site_var(s, "regs");
	const struct tvar *second = site_var(s, ret ? "ret" : "id");
	if (!regs || !second || second->loc.kind == TL_NONE)
		return NULL;
	/* x86-64's system call convention: the number in orig_ax (ax is
	 * the return value by the exit), the arguments in these registers. */
	static const char *const arg_regs[] = { "di", "si", "dx", "r10", "r8", "r9" };
	struct tvar *vars = xcalloc(8, sizeof *vars);
	size_t n = 0;
	if (ret) {
		if (!regs_member_var(regs, "orig_ax", "syscall", &vars[n++]))
			return NULL;
		vars[n++] = copy_var(second, "return");
	} else {
		vars[n++] = copy_var(second, "syscall");
		for (int i = 0; i < 6; i++) {
			char name[8];
			snprintf(name, sizeof name, "arg%d", i + 1);
			if (!regs_member_var(regs, arg_regs[i], name, &vars[n++]))
				return NULL;
		}
	}
	/* Only these: SystemTap's names. The runtime still lays the
	 * tracepoint's two arguments out as a call's, which is what their
	 * locations read. */
	for (size_t i = 0; i < s->nvars; i++) {
		free(s->vars[i].name);
		free(s->vars[i].type_name);
		tloc_free(&s->vars[i].loc);
	}
	free(s->vars);
	s->vars = vars;
	s->nvars = n;
	s->source = "system call registers";
	return s;
}

struct mtp_list {
	struct module_tracepoint *v;
	size_t n, cap;
};

static void mtp_add(struct mtp_list *l, const char *module, const char *name,
		    const char *systems)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 256;
		l->v = xrealloc(l->v, l->cap * sizeof *l->v);
	}
	l->v[l->n++] = (struct module_tracepoint){ xstrdup(module), xstrdup(name),
						   xstrdup(systems) };
}

/* The tracepoints one module file defines: its defined __tracepoint_NAME
 * symbols (a module using another's, as kvm_intel uses kvm's, has them
 * undefined), and the trace systems its event headers name, from the
 * string each defines as str__SYSTEM__trace_system_name. */
static void module_file_tracepoints(const char *module, const char *path, void *ctx)
{
	size_t n = 0, len = 0;
	char *raw = read_file(path, &n);
	if (!raw)
		return;
	char *plain = NULL;
	if (n >= 4 && memcmp(raw, "\177ELF", 4)) {
		plain = kimage_decompress((unsigned char *)raw, n, &len);
		free(raw);
		raw = NULL;
		if (!plain)
			return;
	} else {
		plain = raw;
		len = n;
	}
	elf_version(EV_CURRENT);
	Elf *e = elf_memory(plain, len);
	Elf_Scn *scn = NULL;
	struct ptrvec names = { 0 };
	struct strbuf systems;
	sb_init(&systems);
	while (e && (scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB)
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		size_t count = d && sh.sh_entsize ? sh.sh_size / sh.sh_entsize : 0;
		for (size_t i = 0; i < count; i++) {
			GElf_Sym sym;
			if (!gelf_getsym(d, (int)i, &sym) || sym.st_shndx == SHN_UNDEF ||
			    GELF_ST_TYPE(sym.st_info) != STT_OBJECT)
				continue;
			const char *name = elf_strptr(e, sh.sh_link, sym.st_name);
			size_t k = name ? strlen(name) : 0;
			if (k > 13 && !strncmp(name, "__tracepoint_", 13))
				pv_push(&names, xstrdup(name + 13));
			else if (k > 24 && !strncmp(name, "str__", 5) &&
				 !strcmp(name + k - 19, "__trace_system_name")) {
				/* One string per header: several headers may share a system. */
				char *one = xasprintf(",%.*s,", (int)(k - 24), name + 5);
				char *all = xasprintf(",%s,", systems.len ? systems.s : "");
				if (!strstr(all, one))
					sb_printf(&systems, "%s%.*s", systems.len ? "," : "",
						  (int)(k - 24), name + 5);
				free(one);
				free(all);
			}
		}
	}
	for (size_t i = 0; i < names.n; i++)
		mtp_add(ctx, module, names.v[i], systems.len ? systems.s : module);
	pv_free_all(&names);
	sb_free(&systems);
	if (e)
		elf_end(e);
	free(plain);
}

static int mtp_cmp(const void *a, const void *b)
{
	const struct module_tracepoint *x = a, *y = b;
	int c = strcmp(x->name, y->name);
	return c ? c : strcmp(x->module, y->module);
}

struct module_tracepoint *module_tracepoints_list(struct debug_index *ix, const char *cache_file,
						  size_t *n)
{
	struct mtp_list l = { 0 };
	size_t size = 0;
	char *cached = cache_file ? read_sealed_file(cache_file, &size) : NULL;
	if (cached) {
		/* "MODULE NAME SYSTEM[,SYSTEM...]" lines */
		for (char *line = cached, *next; line && *line; line = next) {
			next = strchr(line, '\n');
			if (next)
				*next++ = 0;
			char *name = strchr(line, ' ');
			char *systems = name ? strchr(name + 1, ' ') : NULL;
			if (systems) {
				*name++ = 0;
				*systems++ = 0;
				mtp_add(&l, line, name, systems);
			}
		}
		free(cached);
		*n = l.n;
		return l.v;
	}
	debugfind_installed_each(ix, module_file_tracepoints, &l);
	qsort(l.v, l.n, sizeof *l.v, mtp_cmp);
	if (cache_file) {
		struct strbuf b;
		sb_init(&b);
		for (size_t i = 0; i < l.n; i++)
			sb_printf(&b, "%s %s %s\n", l.v[i].module, l.v[i].name, l.v[i].systems);
		write_sealed_file(cache_file, &b);
		sb_free(&b);
	}
	*n = l.n;
	return l.v;
}
