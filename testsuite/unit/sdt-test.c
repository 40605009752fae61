// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * SDT marker operands (translator/debuginfo/sdt.c): each x86-64 form
 * Debian's packages use becomes the location and integer type it means;
 * forms Tapline does not read are refused with the operand named.
 */
#include <stdlib.h>
#include <string.h>

#include "debuginfo/userelf.h"
#include "tap.h"
#include "util.h"

static struct user_sym syms[] = {
	{ "CheckpointStats", 0x9000, 64, false },
	{ "buffers", 0xa000, 8, false },
};
static struct user_elf elf = { .path = "/test/prog", .syms = syms, .nsyms = 2 };

/* "REG 16, PLUS 0x10": the location's ops in a line. */
static char *ops_text(const struct tloc *l)
{
	static const char *const names[] = { [LO_REG] = "REG",     [LO_CONST] = "CONST",
					     [LO_PLUS] = "PLUS",   [LO_DEREF] = "DEREF",
					     [LO_ADD] = "ADD",     [LO_SUB] = "SUB",
					     [LO_MUL] = "MUL",     [LO_AND] = "AND",
					     [LO_OR] = "OR",       [LO_NEG] = "NEG",
					     [LO_STATIC] = "STATIC" };
	struct strbuf b;
	sb_init(&b);
	sb_puts(&b, l->kind == TL_MEMORY ? "mem:" : l->kind == TL_VALUE ? "value:" : "?:");
	for (size_t i = 0; i < l->nops; i++)
		sb_printf(&b, " %s %lld", names[l->ops[i].kind], (long long)l->ops[i].arg);
	return sb_detach(&b);
}

static void check(const char *args, int n, const char *want_loc, const char *want_type)
{
	struct sdt_note note = { "p", "m", (char *)args, 0x1000, 0 };
	struct tvar v;
	char *why = NULL;
	bool ok = sdt_arg(&elf, &note, n, &v, &why);
	char *loc = ok ? ops_text(&v.loc) : NULL;
	if (!tap_check(ok && !strcmp(loc, want_loc) && !strcmp(v.type->name, want_type),
		       "'%s' argument %d: %s %s", args, n, want_loc, want_type))
		printf("# got %s %s (%s)\n", loc ? loc : "-", ok ? v.type->name : "-", why ? why : "");
	free(loc);
	free(why);
}

static void refused(const char *args, int n, const char *want)
{
	struct sdt_note note = { "p", "m", (char *)args, 0x1000, 0 };
	struct tvar v;
	char *why = NULL;
	bool ok = sdt_arg(&elf, &note, n, &v, &why);
	if (!tap_check(!ok && why && strstr(why, want), "'%s' argument %d refused: %s", args, n, want))
		printf("# got %s\n", why ? why : "(accepted)");
	free(why);
}

int main(void)
{
	check("8@%rax", 1, "value: REG 0", "uint64_t");
	check("-4@%eax", 1, "value: REG 0", "int32_t");
	check("-4@%edx 8@%rbp", 2, "value: REG 6", "uint64_t");
	check("1@%sil", 1, "value: REG 4", "uint8_t");
	check("-2@%r9w", 1, "value: REG 9", "int16_t");
	check("8@%r12", 1, "value: REG 12", "uint64_t");
	check("-8@$1234567890123", 1, "value: CONST 1234567890123", "int64_t");
	check("-4@$-9", 1, "value: CONST -9", "int32_t");
	check("8@-80(%rbx)", 1, "mem: REG 3 PLUS -80", "uint64_t");
	check("4@(%rdi)", 1, "mem: REG 5", "uint32_t");
	check("8@16(%rax,%rcx,8)", 1, "mem: REG 0 REG 2 CONST 8 MUL 0 ADD 0 PLUS 16", "uint64_t");
	/* At the uprobe %rip is the marker's own address (0x1000 here). */
	check("8@buffers(%rip)", 1, "mem: REG 16 PLUS 36864", "uint64_t");
	check("-4@CheckpointStats+12(%rip)", 1, "mem: REG 16 PLUS 32780", "int32_t");
	check("-4@12+CheckpointStats(%rip)", 1, "mem: REG 16 PLUS 32780", "int32_t");
	check("%rdi", 1, "value: REG 5", "int64_t"); /* no size: signed 64 bits */
	refused("8@%xmm0", 1, "an operand Tapline does not read");
	refused("3@%rax", 1, "an operand Tapline does not read");
	refused("8@nosuch(%rip)", 1, "'nosuch'");
	refused("8@%rax", 2, "has 1 arguments");
	tap_check(sdt_nargs(&(struct sdt_note){ .args = "8@%rax -4@$1  4@(%rdi)" }) == 3,
		  "three operands counted");
	return tap_done();
}
