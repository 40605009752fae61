// SPDX-License-Identifier: GPL-2.0-or-later
/* A library the user-stack test program loads with dlopen, after the
 * script has started. */
#include "us.h"

__attribute__((noinline)) int us_late_hop(int n, int (*back)(int))
{
	int r = back(n + 2);

	__asm__ volatile("" : "+r"(r));
	return r + 2;
}
