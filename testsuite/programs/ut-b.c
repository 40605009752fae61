// SPDX-License-Identifier: GPL-2.0-or-later
/* The second static ut_helper (the first: ut-a.c). */
#include "ut.h"

__attribute__((noinline)) static int ut_helper(int v)
{
	__asm__ volatile("" : "+r"(v));
	return v + 2;
}

int ut_helper_b(int v)
{
	return ut_helper(v) * 3;
}
