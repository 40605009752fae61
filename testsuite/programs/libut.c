// SPDX-License-Identifier: GPL-2.0-or-later
/* The test program's shared library. */
#include "ut.h"

__attribute__((noinline)) long ut_lib_add(long a, long b)
{
	__asm__ volatile("" : "+r"(a));
	return a + b;
}
