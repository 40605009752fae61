// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * SDT marker operands (userelf.h): "[-]SIZE[f]@OPERAND" in AT&T syntax, as
 * <sys/sdt.h> writes them for x86-64, become locations of the target model.
 * Forms: %reg (64, 32, 16 or 8-bit names), $imm, N(%reg), (%reg),
 * N(%base,%index,S), and a symbol relative to %rip (sym(%rip),
 * sym+N(%rip), N+sym(%rip)). At a uprobe the instruction pointer is the
 * marker's own address, so a symbol is found from it: the program's load
 * base never needs to be known.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "debuginfo/userelf.h"
#include "util.h"

/* DWARF numbers (target.h) of the x86-64 registers, by their names. */
static const struct {
	const char *name[4]; /* 64, 32, 16 and 8-bit names */
} regs[] = {
	{ { "rax", "eax", "ax", "al" } },     { { "rdx", "edx", "dx", "dl" } },
	{ { "rcx", "ecx", "cx", "cl" } },     { { "rbx", "ebx", "bx", "bl" } },
	{ { "rsi", "esi", "si", "sil" } },    { { "rdi", "edi", "di", "dil" } },
	{ { "rbp", "ebp", "bp", "bpl" } },    { { "rsp", "esp", "sp", "spl" } },
	{ { "r8", "r8d", "r8w", "r8b" } },    { { "r9", "r9d", "r9w", "r9b" } },
	{ { "r10", "r10d", "r10w", "r10b" } }, { { "r11", "r11d", "r11w", "r11b" } },
	{ { "r12", "r12d", "r12w", "r12b" } }, { { "r13", "r13d", "r13w", "r13b" } },
	{ { "r14", "r14d", "r14w", "r14b" } }, { { "r15", "r15d", "r15w", "r15b" } },
	{ { "rip", "eip", "ip", NULL } },
};

/* "%name" at *p: its DWARF number, or -1. */
static int parse_reg(const char **p)
{
	if (**p != '%')
		return -1;
	const char *s = *p + 1;
	size_t len = 0;
	while (isalnum((unsigned char)s[len]))
		len++;
	for (size_t r = 0; r < ARRAY_SIZE(regs); r++)
		for (int k = 0; k < 4; k++)
			if (regs[r].name[k] && strlen(regs[r].name[k]) == len &&
			    !strncmp(regs[r].name[k], s, len)) {
				*p = s + len;
				return (int)r;
			}
	return -1;
}

static bool parse_num(const char **p, int64_t *v)
{
	char *end;
	long long x = strtoll(*p, &end, 0);
	if (end == *p)
		return false;
	*v = x;
	*p = end;
	return true;
}

static void push(struct tloc *l, enum tloc_op_kind k, int64_t arg)
{
	l->ops = xrealloc(l->ops, (l->nops + 1) * sizeof *l->ops);
	l->ops[l->nops++] = (struct tloc_op){ k, arg };
}

/* The n-th (from 1) space-separated operand, malloced, or NULL. */
static char *nth_operand(const char *args, int n)
{
	const char *p = args;
	for (int i = 1;; i++) {
		while (*p == ' ')
			p++;
		if (!*p)
			return NULL;
		size_t len = strcspn(p, " ");
		if (i == n)
			return xstrndup(p, len);
		p += len;
	}
}

int sdt_nargs(const struct sdt_note *note)
{
	int n = 0;
	while (true) {
		char *op = nth_operand(note->args, n + 1);
		if (!op)
			return n;
		free(op);
		n++;
	}
}

/* "sym", "sym+N" or "N+sym" before "(%rip)": the symbol's address plus N. */
static bool rip_symbol(const struct user_elf *u, const char *text, size_t len, uint64_t *addr,
		       char **why)
{
	char *s = xstrndup(text, len), *plus = strchr(s, '+');
	int64_t off = 0;
	const char *name = s;
	if (plus) {
		*plus = 0;
		const char *a = s, *b = plus + 1;
		if (parse_num(&a, &off) && !*a)
			name = plus + 1;
		else if (parse_num(&b, &off) && !*b)
			name = s;
		else
			name = NULL;
	}
	const struct user_sym *sym = name ? user_elf_symbol(u, name) : NULL;
	if (!sym)
		*why = xasprintf("the symbol '%s' of the operand is not in %s's symbol table",
				 name ? name : s, u->path);
	else
		*addr = sym->vaddr + (uint64_t)off;
	free(s);
	return sym != NULL;
}

static bool parse_operand(const struct user_elf *u, const struct sdt_note *note, const char *p,
			  struct tloc *l, char **why)
{
	int64_t disp = 0;
	int r;
	if (*p == '$') {
		p++;
		if (!parse_num(&p, &disp) || *p)
			return false;
		l->kind = TL_VALUE;
		push(l, LO_CONST, disp);
		return true;
	}
	if ((r = parse_reg(&p)) >= 0) {
		l->kind = TL_VALUE;
		push(l, LO_REG, r);
		return !*p;
	}
	const char *paren = strchr(p, '(');
	if (!paren || p[strlen(p) - 1] != ')')
		return false;
	if (!strcmp(paren, "(%rip)")) {
		uint64_t addr;
		if (!rip_symbol(u, p, (size_t)(paren - p), &addr, why))
			return false;
		l->kind = TL_MEMORY;
		push(l, LO_REG, 16);
		push(l, LO_PLUS, (int64_t)(addr - note->pc));
		return true;
	}
	if (paren != p && (!parse_num(&p, &disp) || p != paren))
		return false;
	p = paren + 1;
	if ((r = parse_reg(&p)) < 0 || r == 16)
		return false;
	l->kind = TL_MEMORY;
	push(l, LO_REG, r);
	if (*p == ',') {
		int64_t scale = 1;
		p++;
		int x = parse_reg(&p);
		if (x < 0 || x == 16)
			return false;
		if (*p == ',') {
			p++;
			if (!parse_num(&p, &scale))
				return false;
		}
		push(l, LO_REG, x);
		push(l, LO_CONST, scale);
		push(l, LO_MUL, 0);
		push(l, LO_ADD, 0);
	}
	if (strcmp(p, ")"))
		return false;
	if (disp)
		push(l, LO_PLUS, disp);
	return true;
}

/* A C integer type of size bytes (1, 2, 4, 8), signed or not. */
static struct ctype *int_type(int size, bool is_signed)
{
	static struct ctype types[2][9];
	static const char *const names[2][9] = {
		{ [1] = "uint8_t", [2] = "uint16_t", [4] = "uint32_t", [8] = "uint64_t" },
		{ [1] = "int8_t", [2] = "int16_t", [4] = "int32_t", [8] = "int64_t" },
	};
	struct ctype *t = &types[is_signed][size];
	if (!t->name)
		*t = (struct ctype){ .kind = CT_INT, .name = (char *)names[is_signed][size],
				     .size = (uint64_t)size, .is_signed = is_signed, .complete = true };
	return t;
}

bool sdt_arg(const struct user_elf *u, const struct sdt_note *note, int n, struct tvar *out,
	     char **why)
{
	char *op = nth_operand(note->args, n);
	*why = NULL;
	if (!op) {
		*why = xasprintf("marker %s:%s has %d arguments", note->provider, note->name,
				 sdt_nargs(note));
		return false;
	}
	const char *p = op, *at = strchr(op, '@');
	int64_t size = 8;
	bool is_signed = true;
	if (at) {
		is_signed = *p == '-';
		if (is_signed)
			p++;
		if (!parse_num(&p, &size) || (*p != '@' && *p != 'f'))
			size = 0;
		p = at + 1;
	}
	struct tloc loc = { 0 };
	bool ok = (size == 1 || size == 2 || size == 4 || size == 8) &&
		  parse_operand(u, note, p, &loc, why);
	if (!ok) {
		if (!*why)
			*why = xasprintf("argument %d of marker %s:%s is '%s', an operand Tapline does not read",
					 n, note->provider, note->name, op);
		free(loc.ops);
		free(op);
		return false;
	}
	*out = (struct tvar){ .name = xasprintf("arg%d", n), .type = int_type((int)size, is_signed),
			      .loc = loc, .is_param = true };
	free(op);
	return true;
}
