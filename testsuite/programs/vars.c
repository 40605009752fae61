// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * vars: parameters, locals, globals and return values as gcc lays them
 * out at -O0, -O1 and -O2, PIE and not (testsuite/programs/build makes
 * each): ints, a string, a struct by value and by pointer, a struct
 * returned by value (its address passed first), a double, recursion.
 */
#include <stdio.h>

struct vars_pt {
	int x, y;
};

struct vars_big {
	long a, b, c;
};

int vars_global = 5;
long vars_counter;
static int vars_static = 7;

__attribute__((noinline)) int vars_compute(int a, long b, const char *s)
{
	int sum = a + (int)b;

	vars_counter += sum;
	return sum * 2 + (s[0] == 'x'); /* vars_compute_return */
}

__attribute__((noinline)) int vars_point(struct vars_pt p, struct vars_pt *q)
{
	q->x += p.x;
	q->y += p.y;
	return q->x * q->y;
}

__attribute__((noinline)) struct vars_big vars_big(long a)
{
	struct vars_big r = { a, a * 2, a * 3 + vars_static };

	__asm__ volatile("" : "+r"(r.c));
	return r;
}

__attribute__((noinline)) double vars_scale(double f, int k)
{
	return f * k;
}

__attribute__((noinline)) int vars_fact(int n)
{
	int r;

	if (n <= 1)
		return 1;
	r = vars_fact(n - 1);
	/* A real recursion at -O2 too, not a loop. */
	__asm__ volatile("" : "+r"(r));
	return n * r;
}

int main(int argc, char **argv)
{
	struct vars_pt q = { 1, 1 };
	struct vars_big big;
	int total = 0;

	for (int i = 1; i <= 3; i++)
		total += vars_compute(i, i * 10L, "xy");
	vars_point((struct vars_pt){ 2, 3 }, &q);
	big = vars_big(4);
	vars_static++;
	printf("total %d counter %ld q %d %d big %ld scale %g fact %d global %d args %d %s\n", total,
	       vars_counter, q.x, q.y, big.c, vars_scale(1.5, 4), vars_fact(5), vars_global, argc,
	       argv[0] ? "named" : "unnamed");
	return 0;
}
