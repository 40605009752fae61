// SPDX-License-Identifier: GPL-2.0-or-later
/* One of two files with a static function named dup_static. */
#include <linux/compiler.h>
#include "tapline_test.h"

static noinline int dup_static(int x)
{
	tapline_test_global += x;
	return x + 1;
}

noinline int call_dup_a(int x)
{
	return dup_static(x) * 2;
}
