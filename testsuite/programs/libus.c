// SPDX-License-Identifier: GPL-2.0-or-later
/* The user-stack test program's shared library: one frame of the chain. */
#include "us.h"

__attribute__((noinline)) int us_lib_hop(int n, int (*back)(int))
{
	int r = back(n + 1);

	__asm__ volatile("" : "+r"(r));
	return r + 1;
}
