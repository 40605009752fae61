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

int call_dup_a(int x);
int call_dup_b(int x);

#endif
