// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The regular expression matcher (a Pike VM); see rematch.h. Threads are a
 * program counter and capture positions. At each input position every
 * live thread takes its instruction; the threads a byte lets through are
 * collected, with the empty moves (SPLIT, JMP, SAVE, anchors) followed
 * right away and each program counter taken once per position, in
 * priority order. A new thread starts at every position until a match is
 * found; the match kept is the leftmost, and of those the longest.
 *
 * No recursion (the empty moves use an explicit stack) and no allocation:
 * the caller gives RT_RE_SCRATCH(nprog) bytes.
 */
#include "rematch.h"

struct rt_re_thread {
	int pc;
	int caps[RT_RE_SLOTS];
};

struct rt_re_vm {
	const struct rt_regex *re;
	const char *s;
	unsigned long len;
	struct rt_re_thread *stack;
	int *mark;
	int gen;
	int nslots;
};

static void rt_re_copy(int *dst, const int *src, int n)
{
	int i;

	for (i = 0; i < n; i++)
		dst[i] = src[i];
}

/* Add the thread at pc (and what its empty moves reach) to list. */
static void rt_re_add(struct rt_re_vm *vm, struct rt_re_thread *list, int *nlist, int pc,
		      const int *caps, unsigned long sp)
{
	const struct rt_re_insn *prog = vm->re->prog;
	int top = 0;

	vm->stack[top].pc = pc;
	rt_re_copy(vm->stack[top].caps, caps, vm->nslots);
	top++;
	while (top > 0) {
		struct rt_re_thread *t = &vm->stack[--top];
		const struct rt_re_insn *in;

		if (t->pc < 0 || t->pc >= vm->re->nprog || vm->mark[t->pc] == vm->gen)
			continue;
		vm->mark[t->pc] = vm->gen;
		in = &prog[t->pc];
		switch (in->op) {
		case RT_RE_JMP:
			t->pc = in->x;
			top++;
			break;
		case RT_RE_SPLIT:
			/* t's slot now holds y; x goes on top, so its moves come first. */
			t->pc = in->y;
			top++;
			vm->stack[top].pc = in->x;
			rt_re_copy(vm->stack[top].caps, vm->stack[top - 1].caps, vm->nslots);
			top++;
			break;
		case RT_RE_SAVE:
			if (in->x < vm->nslots)
				t->caps[in->x] = (int)sp;
			t->pc++;
			top++;
			break;
		case RT_RE_BOL:
			if (sp == 0) {
				t->pc++;
				top++;
			}
			break;
		case RT_RE_EOL:
			if (sp == vm->len) {
				t->pc++;
				top++;
			}
			break;
		default:
			list[*nlist].pc = t->pc;
			rt_re_copy(list[*nlist].caps, t->caps, vm->nslots);
			(*nlist)++;
			break;
		}
	}
}

int rt_re_match(const struct rt_regex *re, const char *s, unsigned long len, int *caps,
		void *scratch, unsigned long *steps, int (*stop)(void *arg, unsigned long steps),
		void *arg)
{
	unsigned long asked = *steps;
	struct rt_re_vm vm;
	struct rt_re_thread *clist, *nlist, *swap;
	int nc = 0, nn = 0, matched = 0, i, fresh[RT_RE_SLOTS];
	unsigned long sp, n = 0;
	char *p = scratch;

	while (n < len && s[n])
		n++;
	vm.re = re;
	vm.s = s;
	vm.len = n;
	vm.nslots = 2 * (re->ngroups + 1);
	clist = (struct rt_re_thread *)p;
	nlist = clist + re->nprog;
	vm.stack = nlist + re->nprog;
	vm.mark = (int *)(vm.stack + 2 * re->nprog + 1);
	for (i = 0; i < re->nprog; i++)
		vm.mark[i] = 0;
	for (i = 0; i < RT_RE_SLOTS; i++)
		fresh[i] = -1;
	vm.gen = 1;
	rt_re_add(&vm, clist, &nc, 0, fresh, 0);
	for (sp = 0;; sp++) {
		unsigned char c = sp < n ? (unsigned char)s[sp] : 0;

		vm.gen++;
		nn = 0;
		*steps += (unsigned long)nc + 1;
		if (stop && *steps - asked >= 1024) {
			asked = *steps;
			if (stop(arg, *steps))
				return -1;
		}
		for (i = 0; i < nc; i++) {
			struct rt_re_thread *t = &clist[i];
			const struct rt_re_insn *in = &re->prog[t->pc];
			int pass = 0;

			if (matched && t->caps[0] > caps[0])
				continue;
			switch (in->op) {
			case RT_RE_CHAR:
				pass = sp < n && c == in->x;
				break;
			case RT_RE_ANY:
				pass = sp < n;
				break;
			case RT_RE_CLASS:
				pass = sp < n && (re->classes[in->x][c >> 3] >> (c & 7)) & 1;
				break;
			case RT_RE_MATCH:
				if (!matched || t->caps[0] < caps[0] ||
				    (t->caps[0] == caps[0] && t->caps[1] > caps[1])) {
					rt_re_copy(caps, t->caps, vm.nslots);
					matched = 1;
				}
				break;
			default:
				break;
			}
			if (pass)
				rt_re_add(&vm, nlist, &nn, t->pc + 1, t->caps, sp + 1);
		}
		if (sp >= n)
			break;
		if (!matched)
			rt_re_add(&vm, nlist, &nn, 0, fresh, sp + 1);
		if (nn == 0 && matched)
			break;
		swap = clist;
		clist = nlist;
		nlist = swap;
		nc = nn;
	}
	return matched;
}
