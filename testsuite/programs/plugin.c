// SPDX-License-Identifier: GPL-2.0-or-later
/* A library the test program loads with dlopen: probes on it wait until
 * it is mapped. */
__attribute__((noinline)) int ut_plugin(int v)
{
	__asm__ volatile("" : "+r"(v));
	return v * 7;
}
