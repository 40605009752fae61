// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * kernel.data(ADDRESS|"SYMBOL")[.length(N)].write|.rw: a hardware
 * watchpoint on kernel memory, as SystemTap has them. A number is an
 * address in the running kernel (from /proc/kallsyms, say); a name is a
 * kernel variable, found in the image's kallsyms tables and placed by its
 * offset from _text, which KASLR does not change.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "debuginfo/kernel.h"
#include "front/diag.h"
#include "sema/points/points.h"
#include "sema/sema.h"

static bool data_takes(const struct pp_ctx *c)
{
	return c->n >= 2 && comp_is(c, 0, "kernel") && comp_is(c, 1, "data");
}

/* A kernel variable's offset from _text, from the image's symbol tables;
 * 0 after saying why not. */
static uint64_t data_symbol_offset(struct pp_ctx *c, const char *name, struct loc loc)
{
	const struct kernel *k = c->s->kernel;
	if (!k || !k->vmlinuz) {
		diag_error(loc, D_UNKNOWN_KERNEL_FUNCTION,
			   "kernel.data(\"%s\"): the kernel image, whose symbols say where it is, "
			   "is not installed", name);
		diag_hint("give its address instead (grep ' %s$' /proc/kallsyms)", name);
		return 0;
	}
	size_t len = 0, n = 0;
	char *elf = kimage_extract_vmlinux(k->vmlinuz, &len), *why = NULL;
	struct ksym *syms = elf ? kallsyms_decode(elf, len, &n, &why) : NULL;
	const struct ksym *sym = syms ? symbols_find(syms, n, name) : NULL;
	const struct ksym *text = syms ? symbols_find(syms, n, "_text") : NULL;
	uint64_t offset = 0;
	if (!syms)
		diag_error(loc, D_UNKNOWN_KERNEL_FUNCTION,
			   "kernel.data(\"%s\"): the kernel image's symbols cannot be read: %s", name,
			   why ? why : "no image");
	else if (!sym || !text || sym->addr <= text->addr)
		diag_error(loc, D_UNKNOWN_KERNEL_FUNCTION, "kernel %s has no variable '%s'", k->release,
			   name);
	else if (strchr("tTwW", sym->type))
		diag_error(loc, D_BAD_PROBE_ARG,
			   "kernel.data(\"%s\"): '%s' is a function; a watchpoint watches data", name,
			   name);
	else
		offset = sym->addr - text->addr;
	if (syms)
		symbols_free(syms, n);
	free(why);
	free(elf);
	return offset;
}

/*
 * kernel.data(A).write, .rw, .length(N).write, .length(N).rw: the x86
 * debug registers watch 1, 2, 4 or 8 aligned bytes (the default: 1), for
 * writes or for reads and writes alike (x86 has no read-only kind).
 */
static void data_resolve(struct pp_ctx *c)
{
	int i = 2;
	long long length = 1;
	if (i < c->n && comp_is(c, i, "length")) {
		if (!want_number(c, i, true, &length))
			return;
		i++;
	}
	bool write = i < c->n && comp_is(c, i, "write");
	if (i + 1 != c->n || (!write && !comp_is(c, i, "rw"))) {
		unknown_shape(c);
		return;
	}
	const struct node *arg = c->comps[1].arg;
	if (!arg) {
		diag_error(c->comps[1].loc, D_BAD_PROBE_ARG,
			   "kernel.data needs an address or a variable's name");
		return;
	}
	if (length != 1 && length != 2 && length != 4 && length != 8) {
		diag_error(c->comps[i - 1].loc, D_BAD_PROBE_ARG,
			   "length(%lld): a watchpoint watches 1, 2, 4 or 8 bytes", length);
		return;
	}
	uint64_t addr = 0, text_offset = 0;
	if (arg->kind == N_NUM) {
		addr = (uint64_t)arg->num;
		if (addr < 0xffff800000000000ULL) {
			diag_error(arg->loc, D_BAD_PROBE_ARG,
				   "kernel.data(0x%llx): not a kernel address", (unsigned long long)addr);
			return;
		}
	} else {
		text_offset = data_symbol_offset(c, arg->str, arg->loc);
		if (!text_offset)
			return;
		/* The runtime finds _text from _printk's address and offset. */
		if (!sema_find_text(c->s)) {
			diag_error(arg->loc, D_UNKNOWN_KERNEL_FUNCTION,
				   "kernel.data(\"%s\"): the kernel's symbols do not say where its "
				   "text starts (_printk)", arg->str);
			diag_hint("give its address instead (grep ' %s$' /proc/kallsyms)", arg->str);
			return;
		}
	}
	if ((addr | text_offset) & (uint64_t)(length - 1)) {
		diag_error(arg->loc, D_BAD_PROBE_ARG,
			   "kernel.data: a watchpoint of %lld bytes needs an address aligned to them",
			   length);
		return;
	}
	struct probe *p = add_probe(c, PK_HWBKPT, NULL, 0);
	free(p->pp_text);
	char *where = arg->kind == N_NUM ? xasprintf("0x%llx", (unsigned long long)addr)
					 : xasprintf("\"%s\"", arg->str);
	char len_text[32] = "";
	if (i > 2)
		snprintf(len_text, sizeof len_text, ".length(%lld)", length);
	p->pp_text = xasprintf("kernel.data(%s)%s.%s", where, len_text, write ? "write" : "rw");
	free(where);
	p->offset = (int64_t)addr;
	p->text_offset = text_offset;
	p->perf_type = write ? 2 : 3; /* HW_BREAKPOINT_W, HW_BREAKPOINT_RW */
	p->perf_config = length;
}

static const char *const data_usage[] = {
	"kernel.data(ADDRESS|\"NAME\")[.length(N)].write",
	"kernel.data(ADDRESS|\"NAME\")[.length(N)].rw",
	NULL,
};
static const char *const data_shapes[] = {
	"kernel.data.write", "kernel.data.rw", "kernel.data.length.write", "kernel.data.length.rw",
	NULL,
};

const struct family data_family = {
	.takes = data_takes,
	.usage = data_usage,
	.shapes = data_shapes,
	.resolve = data_resolve,
};
