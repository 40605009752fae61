// SPDX-License-Identifier: GPL-2.0-or-later
/* The test program's shared library. */
#include "ut.h"

/* A global of the library: read where the library is mapped. */
long ut_lib_calls;

__attribute__((noinline)) long ut_lib_add(long a, long b)
{
	__asm__ volatile("" : "+r"(a));
	ut_lib_calls++;
	return a + b;
}
