/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef TAPLINE_TEST_H
#define TAPLINE_TEST_H

#include <linux/types.h>

struct tt_point {
	int x;
	int y;
};

struct tt_pair {
	long first;
	long second;
};

enum tt_color { TT_RED, TT_GREEN = 5, TT_BLUE };

struct tt_nested {
	struct tt_point origin;
	union {
		u32 word;
		u8 bytes[4];
	} u;
	int arr[4];
	unsigned int flag_a : 1, level : 3, rest : 12;
	int signed_bits : 5;
	char name[16];
	struct tt_nested *next;
};

/* Results land here so that no call can be optimized away. */
extern long tapline_test_global;

/* The functions the tests probe are global on purpose; declared here since
 * kbuild warns about a global function without a prototype (6.12). */
int call_dup_a(int x);
int tt_calls_sub(int v);
int tt_sub_guarded(int v);
int call_dup_b(int x);
void tt_move(struct tt_point *p, int dx);
int tt_recurse(int depth);
int tt_args1(int a);
long tt_args3(const char *s, struct tt_point *p, enum tt_color c);
u64 tt_args6(u64 big, bool flag, char ch, short sh, unsigned int u, long l);
int tt_nested_fn(struct tt_nested *n);
int tt_calls_inline(int v);
long tt_args8(const char *s, struct tt_point *p, enum tt_color c, u64 big, bool flag,
	      struct tt_pair pv, int a7, long a8);
long tt_ptr_only(struct tt_point *p);
int tt_labelled(int v);

#endif
