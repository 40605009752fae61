// SPDX-License-Identifier: GPL-2.0-or-later
/* One of two static functions named ut_helper (the other: ut-b.c). */
#include "ut.h"

__attribute__((noinline)) static int ut_helper(int v)
{
	__asm__ volatile("" : "+r"(v));
	return v + 1;
}

int ut_helper_a(int v)
{
	return ut_helper(v) * 2;
}
