// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tapline_test: functions for the translator's DWARF tests, called from
 * user space by writing a command to /proc/tapline_test. Every call uses
 * the fixed arguments below, which tests assert exactly. Every function
 * writes tapline_test_global, so no call can be optimized away.
 *
 *   move N      tt_move(&p, N), p = {10, 20} fresh each time: p->x += N
 *   recurse N   tt_recurse(N) for N <= 20: calls itself down to 0
 *   args1       tt_args1(42)
 *   args3       tt_args3("three", &{3, 4}, TT_BLUE)
 *   args6       tt_args6(0x123456789abcdef0, true, 'z', -7, 4000000000, -123456789)
 *   args8       tt_args8("eight", &{8, 9}, TT_GREEN, 1 << 40, true, {-1, 2}, 7, -8)
 *   nested      tt_nested_fn(&n): n.origin {1, 2}, n.u.word 0x04030201,
 *               n.arr {10, 20, 30, 40}, flag_a 1, level 5, rest 1234,
 *               signed_bits -3, name "nested-name", n.next -> m with
 *               m.origin {5, 6}, m.next NULL
 *   inline N    tt_calls_inline(N): tt_inline_add(N, 100) inlined into it
 *   dup N       call_dup_a(N), then call_dup_b(N): each calls its own file's
 *               static dup_static(N)
 *   badptr      tt_ptr_only((void *)0x10), then tt_ptr_only(NULL): the
 *               function does not dereference its argument
 *
 * Reading the file gives "global G counter C\n".
 */
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/proc_fs.h>
#include <linux/uaccess.h>

#include "tapline_test.h"

long tapline_test_global;
static int tt_static_counter;

noinline void tt_move(struct tt_point *p, int dx)
{
	p->x += dx;
	tapline_test_global += p->x;
}

noinline int tt_recurse(int depth)
{
	int r = depth > 0 ? tt_recurse(depth - 1) + 1 : 0;

	/* Work after the call keeps it a real recursion, not a loop. */
	barrier();
	tapline_test_global += r;
	return r;
}

noinline int tt_args1(int a)
{
	tapline_test_global += a;
	return a + 1;
}

noinline long tt_args3(const char *s, struct tt_point *p, enum tt_color c)
{
	tapline_test_global += s[0] + p->x + c;
	return tapline_test_global;
}

noinline u64 tt_args6(u64 big, bool flag, char ch, short sh, unsigned int u, long l)
{
	tapline_test_global += big + flag + ch + sh + u + l;
	return big ^ l;
}

noinline long tt_args8(const char *s, struct tt_point *p, enum tt_color c, u64 big, bool flag,
		       struct tt_pair pv, int a7, long a8)
{
	tapline_test_global += s[0] + p->y + c + big + flag + pv.first + pv.second + a7 + a8;
	return a7 + a8;
}

noinline int tt_nested_fn(struct tt_nested *n)
{
	tapline_test_global += n->arr[2] + n->level + n->origin.y;
	return n->level;
}

static __always_inline int tt_inline_add(int a, int b)
{
	tapline_test_global += a;
	return a + b;
}

noinline int tt_calls_inline(int v)
{
	return tt_inline_add(v, 100) * 2;
}

/*
 * guarded N: tt_calls_sub(N), then tt_sub_guarded(N), each with
 * tt_inline_sub(N, 1) inlined, the second on the kernel's kprobe
 * blacklist (NOKPROBE_SYMBOL). (Tests name lines above: keep them.)
 */
#include <linux/kprobes.h>

static __always_inline int tt_inline_sub(int a, int b)
{
	tapline_test_global -= b;
	return a - b;
}

noinline int tt_calls_sub(int v)
{
	return tt_inline_sub(v, 1) * 2;
}

/* The kernel refuses any probe inside it: one of tt_inline_sub's copies. */
noinline int tt_sub_guarded(int v)
{
	return tt_inline_sub(v, 1) * 3;
}
NOKPROBE_SYMBOL(tt_sub_guarded);

noinline long tt_ptr_only(struct tt_point *p)
{
	tapline_test_global++;
	return (long)p;
}

/* label N: tt_labelled(N) passes its label "big" when N >= 10, "out" always. */
noinline int tt_labelled(int v)
{
	int r;

	if (v >= 10)
		goto big;
	tapline_test_global += 1;
	r = v * 2;
	goto out;
big:
	tapline_test_global += 2;
	r = v * 3;
out:
	barrier();
	tapline_test_global += r;
	return r;
}

static void tt_run(const char *cmd, long n)
{
	if (!strcmp(cmd, "move")) {
		struct tt_point p = { 10, 20 };

		tt_move(&p, (int)n);
	} else if (!strcmp(cmd, "recurse")) {
		tt_recurse((int)min(n, 20L));
	} else if (!strcmp(cmd, "args1")) {
		tt_args1(42);
	} else if (!strcmp(cmd, "args3")) {
		struct tt_point p = { 3, 4 };

		tt_args3("three", &p, TT_BLUE);
	} else if (!strcmp(cmd, "args6")) {
		tt_args6(0x123456789abcdef0ULL, true, 'z', -7, 4000000000U, -123456789L);
	} else if (!strcmp(cmd, "args8")) {
		struct tt_point p = { 8, 9 };
		struct tt_pair pv = { -1, 2 };

		tt_args8("eight", &p, TT_GREEN, 1ULL << 40, true, pv, 7, -8);
	} else if (!strcmp(cmd, "nested")) {
		static struct tt_nested m = { .origin = { 5, 6 } };
		static struct tt_nested n = {
			.origin = { 1, 2 }, .u.word = 0x04030201, .arr = { 10, 20, 30, 40 },
			.flag_a = 1, .level = 5, .rest = 1234, .signed_bits = -3,
			.name = "nested-name", .next = &m,
		};

		tt_nested_fn(&n);
	} else if (!strcmp(cmd, "inline")) {
		tt_calls_inline((int)n);
	} else if (!strcmp(cmd, "dup")) {
		call_dup_a((int)n);
		call_dup_b((int)n);
	} else if (!strcmp(cmd, "guarded")) {
		tt_calls_sub((int)n);
		tt_sub_guarded((int)n);
	} else if (!strcmp(cmd, "label")) {
		tt_labelled((int)n);
	} else if (!strcmp(cmd, "badptr")) {
		tt_ptr_only((struct tt_point *)0x10);
		tt_ptr_only(NULL);
	}
	tt_static_counter++;
}

static ssize_t tt_write(struct file *f, const char __user *ubuf, size_t len, loff_t *off)
{
	char buf[64], cmd[16];
	long n = 0;

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = 0;
	if (sscanf(buf, "%15s %ld", cmd, &n) < 1)
		return -EINVAL;
	tt_run(cmd, n);
	return len;
}

static ssize_t tt_read(struct file *f, char __user *ubuf, size_t len, loff_t *off)
{
	char buf[64];
	int n = scnprintf(buf, sizeof(buf), "global %ld counter %d\n", tapline_test_global,
			  tt_static_counter);

	return simple_read_from_buffer(ubuf, len, off, buf, n);
}

static const struct proc_ops tt_ops = {
	.proc_read = tt_read,
	.proc_write = tt_write,
};

static int __init tt_init(void)
{
	return proc_create("tapline_test", 0600, NULL, &tt_ops) ? 0 : -ENOMEM;
}

static void __exit tt_exit(void)
{
	remove_proc_entry("tapline_test", NULL);
}

module_init(tt_init);
module_exit(tt_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Functions for Tapline's debug-information tests");
