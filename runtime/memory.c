// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Reading the probed code's state for generated code: registers of the
 * hit, kernel memory through copy_from_kernel_nofault, which refuses user
 * addresses and non-canonical ones and survives unmapped pages, and the
 * current task's user memory through copy_from_user_nofault, which never
 * sleeps: a page that is not present is a failed read, not a fault-in. A
 * read that fails ends the hit with an error naming the script
 * expression; it never faults.
 */
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/ptrace.h>
#include <linux/uaccess.h>

#include "runtime.h"

/* x86-64 DWARF register numbers -> offsets in struct pt_regs. */
static const unsigned short rt_dwarf_regs[] = {
	offsetof(struct pt_regs, ax),  offsetof(struct pt_regs, dx),  offsetof(struct pt_regs, cx),
	offsetof(struct pt_regs, bx),  offsetof(struct pt_regs, si),  offsetof(struct pt_regs, di),
	offsetof(struct pt_regs, bp),  offsetof(struct pt_regs, sp),  offsetof(struct pt_regs, r8),
	offsetof(struct pt_regs, r9),  offsetof(struct pt_regs, r10), offsetof(struct pt_regs, r11),
	offsetof(struct pt_regs, r12), offsetof(struct pt_regs, r13), offsetof(struct pt_regs, r14),
	offsetof(struct pt_regs, r15), offsetof(struct pt_regs, ip),
};

/* rt_regval() (api.h) reads pt_regs by these word numbers. */
static_assert(offsetof(struct pt_regs, r15) == 0 * 8 && offsetof(struct pt_regs, r12) == 3 * 8 &&
	      offsetof(struct pt_regs, bp) == 4 * 8 && offsetof(struct pt_regs, bx) == 5 * 8 &&
	      offsetof(struct pt_regs, r11) == 6 * 8 && offsetof(struct pt_regs, r8) == 9 * 8 &&
	      offsetof(struct pt_regs, ax) == 10 * 8 && offsetof(struct pt_regs, cx) == 11 * 8 &&
	      offsetof(struct pt_regs, dx) == 12 * 8 && offsetof(struct pt_regs, si) == 13 * 8 &&
	      offsetof(struct pt_regs, di) == 14 * 8 && offsetof(struct pt_regs, ip) == 16 * 8 &&
	      offsetof(struct pt_regs, sp) == 19 * 8);

unsigned long rt_reg(struct rt_context *c, int regno, const char *what, const char *loc)
{
	struct pt_regs *regs = c->regs;

	if (!regs) {
		rt_failf(c, loc, NULL, "%s: this probe has no registers to read it from", what);
		return 0;
	}
	if (regno < 0 || regno >= (int)ARRAY_SIZE(rt_dwarf_regs)) {
		rt_failf(c, loc, NULL, "%s: register %d is not one Tapline reads", what, regno);
		return 0;
	}
	return *(unsigned long *)((char *)regs + rt_dwarf_regs[regno]);
}

/* @kregister(n) and @uregister(n): a register by DWARF number, the
 * kernel's at a kernel probe, the user's anywhere a user task is current
 * (its own at a uprobe, else those saved when it entered the kernel). */
rt_long rt_register(struct rt_context *c, rt_long regno, int user, const char *what,
		    const char *loc)
{
	struct pt_regs *regs = c->regs;

	if (regno < 0 || regno >= (rt_long)ARRAY_SIZE(rt_dwarf_regs)) {
		rt_failf(c, loc, NULL, "%s: there is no register %lld (0-16 are rax, rdx, rcx, rbx, "
			 "rsi, rdi, rbp, rsp, r8-r15, rip)", what, (long long)regno);
		return 0;
	}
	if (user && !(regs && user_mode(regs))) {
		if (!current->mm || (current->flags & PF_KTHREAD)) {
			rt_failf(c, loc, NULL, "%s: a kernel thread has no user registers", what);
			return 0;
		}
		regs = task_pt_regs(current);
	} else if (!user && regs && user_mode(regs)) {
		rt_failf(c, loc, NULL, "%s: this probe is in user space (@uregister reads its registers)",
			 what);
		return 0;
	}
	if (!regs) {
		rt_failf(c, loc, NULL, "%s: this probe has no registers to read it from", what);
		return 0;
	}
	return (rt_long)*(unsigned long *)((char *)regs + rt_dwarf_regs[regno]);
}

/* Guru mode's writes. The translator allows no stack or instruction
 * pointer: a kprobe, ftrace (with regs) and a uprobe all resume with the
 * registers the hit leaves. */
void rt_regset(struct rt_context *c, int regno, unsigned long v, const char *what, const char *loc)
{
	struct pt_regs *regs = c->regs;

	if (!regs) {
		rt_failf(c, loc, NULL, "%s: this probe has no registers to write it to", what);
		return;
	}
	if (regno < 0 || regno >= (int)ARRAY_SIZE(rt_dwarf_regs) || regno == 7 || regno == 16) {
		rt_failf(c, loc, NULL, "%s: register %d is not one Tapline writes", what, regno);
		return;
	}
	*(unsigned long *)((char *)regs + rt_dwarf_regs[regno]) = v;
}

rt_long rt_arg(struct rt_context *c, rt_long n, int size, int is_signed, const char *what,
	       const char *loc)
{
	static const int arg_regs[6] = { 5, 4, 1, 2, 8, 9 }; /* rdi rsi rdx rcx r8 r9 */
	unsigned long v;

	if (!c->regs) {
		rt_failf(c, loc, NULL, "%s: this probe has no registers to read it from", what);
		return 0;
	}
	if (n < 1 || n > 32) {
		rt_failf(c, loc, NULL, "%s: there is no argument %lld (they are counted from 1)", what,
			 (long long)n);
		return 0;
	}
	if (n <= 6) {
		v = rt_reg(c, arg_regs[n - 1], what, loc);
	} else {
		/* At the entry rsp points at the return address; argument 7 is above it. */
		unsigned long sp = rt_reg(c, 7, what, loc);

		unsigned long at = sp + 8 * (unsigned long)(n - 6);

		v = user_mode(c->regs) ? (unsigned long)rt_uread(c, at, 8, 0, what, loc)
						  : (unsigned long)rt_kread(c, at, 8, 0, what, loc);
	}
	if (size == 4)
		return is_signed ? (rt_long)(s32)v : (rt_long)(u32)v;
	return (rt_long)v;
}

unsigned long rt_static_addr(struct rt_context *c, rt_size i, const char *what, const char *loc)
{
	const struct rt_static *st = &rt_script.statics[i];
	unsigned long addr;

	if (st->uobject)
		return rt_ustatic_addr(c, st, what, loc);
	addr = READ_ONCE(st->addr);
	if (!addr) {
		if (st->module)
			rt_failf(c, loc, NULL, "%s: module %s is not loaded", what, st->module);
		else
			rt_failf(c, loc, NULL, "%s: the kernel's _text address is not known", what);
	}
	return addr;
}

/* A word read from memory, as many bytes as asked for. */
union rt_word {
	u8 b;
	u16 h;
	u32 w;
	u64 q;
};

/* Its value, sign- or zero-extended. */
static rt_long rt_widen(const union rt_word *v, int size, int is_signed)
{
	switch (size) {
	case 1:
		return is_signed ? (rt_long)(s8)v->b : (rt_long)v->b;
	case 2:
		return is_signed ? (rt_long)(s16)v->h : (rt_long)v->h;
	case 4:
		return is_signed ? (rt_long)(s32)v->w : (rt_long)v->w;
	}
	return (rt_long)v->q;
}

static void rt_read_failed(struct rt_context *c, unsigned long addr, rt_size size,
			   const char *what, const char *loc)
{
	rt_failf(c, loc, NULL, "cannot read %lu bytes at 0x%lx for %s: bad address",
		 (unsigned long)size, addr, what);
}

rt_long rt_kread(struct rt_context *c, unsigned long addr, int size, int is_signed,
		 const char *what, const char *loc)
{
	union rt_word v = { .q = 0 };

	if ((size != 1 && size != 2 && size != 4 && size != 8) ||
	    copy_from_kernel_nofault(&v, (const void *)addr, size)) {
		rt_read_failed(c, addr, size, what, loc);
		return 0;
	}
	return rt_widen(&v, size, is_signed);
}

int rt_kread_bytes(struct rt_context *c, void *dst, unsigned long addr, rt_size size,
		   const char *what, const char *loc)
{
	if (copy_from_kernel_nofault(dst, (const void *)addr, size)) {
		rt_read_failed(c, addr, size, what, loc);
		return -1;
	}
	return 0;
}

/*
 * The string at addr into dst, at most max bytes (max < 0: any) and
 * MAXSTRINGLEN - 1, always terminated; from user memory if user. Up to
 * the end of each page at a time: a string may end just before an
 * unmapped page. 0, or the size of the part at *bad that could not be read.
 */
static rt_size rt_copy_string(char *dst, unsigned long addr, rt_long max, bool user,
			      unsigned long *bad)
{
	rt_size room = rt_script.maxstringlen - 1, got = 0;

	if (max >= 0 && (rt_size)max < room)
		room = (rt_size)max;
	while (got < room) {
		rt_size chunk = min_t(rt_size, room - got, PAGE_SIZE - ((addr + got) & (PAGE_SIZE - 1)));
		long failed = user ? copy_from_user_nofault(dst + got, (const void __user *)(addr + got), chunk)
				   : copy_from_kernel_nofault(dst + got, (const void *)(addr + got), chunk);

		if (failed) {
			dst[0] = 0;
			*bad = addr + got;
			return chunk;
		}
		if (memchr(dst + got, 0, chunk))
			return 0;
		got += chunk;
	}
	dst[got] = 0;
	return 0;
}

int rt_kread_string(struct rt_context *c, char *dst, unsigned long addr, rt_long max,
		    const char *what, const char *loc)
{
	unsigned long bad;
	rt_size failed = rt_copy_string(dst, addr, max, false, &bad);

	if (!failed)
		return 0;
	if (what)
		rt_read_failed(c, bad, failed, what, loc);
	return -1;
}

rt_long rt_uread(struct rt_context *c, unsigned long addr, int size, int is_signed,
		 const char *what, const char *loc)
{
	union rt_word v = { .q = 0 };

	if ((size != 1 && size != 2 && size != 4 && size != 8) ||
	    copy_from_user_nofault(&v, (const void __user *)addr, size)) {
		rt_failf(c, loc, NULL,
			 "cannot read %d bytes of user memory at 0x%lx for %s: bad address or page not present",
			 size, addr, what);
		return 0;
	}
	return rt_widen(&v, size, is_signed);
}

int rt_uread_bytes(struct rt_context *c, void *dst, unsigned long addr, rt_size size,
		   const char *what, const char *loc)
{
	if (copy_from_user_nofault(dst, (const void __user *)addr, size)) {
		rt_failf(c, loc, NULL,
			 "cannot read %lu bytes of user memory at 0x%lx for %s: bad address or page not present",
			 (unsigned long)size, addr, what);
		return -1;
	}
	return 0;
}

int rt_uread_string(struct rt_context *c, char *dst, unsigned long addr, rt_long max,
		    const char *what, const char *loc)
{
	unsigned long bad;

	if (!rt_copy_string(dst, addr, max, true, &bad))
		return 0;
	if (what)
		rt_failf(c, loc, NULL,
			 "cannot read the user string at 0x%lx for %s: bad address or page not present",
			 addr, what);
	return -1;
}

/* The kernel does not export copy_to_kernel_nofault: the same, for one
 * word, through the exception table; addresses below the kernel's half
 * are refused as it refuses them. Nonzero on a fault. */
static long rt_kernel_write_nofault(unsigned long addr, const union rt_word *w, int size)
{
	long rc = 0;

	if (addr < TASK_SIZE_MAX)
		return -ERANGE;
	pagefault_disable();
	switch (size) {
	case 1:
		__put_kernel_nofault((u8 *)addr, &w->b, u8, fault);
		break;
	case 2:
		__put_kernel_nofault((u16 *)addr, &w->h, u16, fault);
		break;
	case 4:
		__put_kernel_nofault((u32 *)addr, &w->w, u32, fault);
		break;
	default:
		__put_kernel_nofault((u64 *)addr, &w->q, u64, fault);
		break;
	}
	goto out;
fault:
	rc = -EFAULT;
out:
	pagefault_enable();
	return rc;
}

/* size bytes of v at addr: a bad or read-only address fails the hit. */
static void rt_write(struct rt_context *c, unsigned long addr, int size, rt_long v, bool user,
		     const char *what, const char *loc)
{
	union rt_word w;
	long failed;

	switch (size) {
	case 1:
		w.b = (u8)v;
		break;
	case 2:
		w.h = (u16)v;
		break;
	case 4:
		w.w = (u32)v;
		break;
	case 8:
		w.q = (u64)v;
		break;
	default:
		rt_failf(c, loc, NULL, "cannot write %d bytes for %s", size, what);
		return;
	}
	failed = user ? copy_to_user_nofault((void __user *)addr, &w, size)
		      : rt_kernel_write_nofault(addr, &w, size);
	if (failed)
		rt_failf(c, loc, NULL, "cannot write %d bytes %sat 0x%lx for %s: bad or read-only address",
			 size, user ? "of user memory " : "", addr, what);
}

void rt_kwrite(struct rt_context *c, unsigned long addr, int size, rt_long v, const char *what,
	       const char *loc)
{
	rt_write(c, addr, size, v, false, what, loc);
}

void rt_uwrite(struct rt_context *c, unsigned long addr, int size, rt_long v, const char *what,
	       const char *loc)
{
	rt_write(c, addr, size, v, true, what, loc);
}

char *rt_entry_data(struct rt_context *c)
{
	return rt_cpu_of(c)->entry_data;
}

/* A string and its NUL at addr, at most max bytes of it (max < 0: all),
 * one byte at a time through rt_write: any byte that cannot be written
 * fails the hit, and the bytes before it stay written. */
static void rt_write_string(struct rt_context *c, unsigned long addr, rt_long max, const char *s,
			    bool user, const char *what, const char *loc)
{
	rt_size n = strlen(s), i;

	if (max >= 0 && (rt_size)max < n)
		n = max;
	for (i = 0; i <= n && !c->error; i++)
		rt_write(c, addr + i, 1, i < n ? s[i] : 0, user, what, loc);
}

void rt_set_kernel_string(struct rt_context *c, rt_long addr, const char *s, const char *what,
			  const char *loc)
{
	rt_write_string(c, addr, -1, s, false, what, loc);
}

void rt_set_kernel_string_n(struct rt_context *c, rt_long addr, rt_long n, const char *s,
			    const char *what, const char *loc)
{
	rt_write_string(c, addr, n < 0 ? 0 : n, s, false, what, loc);
}

void rt_set_user_string(struct rt_context *c, rt_long addr, const char *s, const char *what,
			const char *loc)
{
	rt_write_string(c, addr, -1, s, true, what, loc);
}

void rt_set_user_string_n(struct rt_context *c, rt_long addr, rt_long n, const char *s,
			  const char *what, const char *loc)
{
	rt_write_string(c, addr, n < 0 ? 0 : n, s, true, what, loc);
}

void rt_set_arg(struct rt_context *c, rt_long n, rt_long v, const char *what, const char *loc)
{
	static const int arg_regs[6] = { 5, 4, 1, 2, 8, 9 }; /* rdi rsi rdx rcx r8 r9 */

	if (n < 1 || n > 6) {
		rt_failf(c, loc, NULL, "%s: argument %lld is not in a register (1 to 6 are)", what, n);
		return;
	}
	rt_regset(c, arg_regs[n - 1], v, what, loc);
}

void rt_set_returnval(struct rt_context *c, rt_long v, const char *what, const char *loc)
{
	if (!rt_is_return(c)) {
		rt_failf(c, loc, NULL, "%s: only a return probe has a return value to set", what);
		return;
	}
	rt_regset(c, 0, v, what, loc);
}
