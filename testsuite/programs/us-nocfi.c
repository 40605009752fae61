// SPDX-License-Identifier: GPL-2.0-or-later
/* A function with neither CFI nor a frame pointer (built -g0 without
 * unwind tables): a stack cannot be unwound past it. */
__attribute__((noinline)) int us_nocfi(int n, int (*f)(int))
{
	volatile int r = f(n);

	__asm__ volatile("" ::: "memory");
	return r * 5;
}
