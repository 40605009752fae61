/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The user-space test program's parts (see ut.c). */
#ifndef UT_H
#define UT_H

struct ut_point {
	int x, y;
	long sum;
	char name[16];
};

int ut_helper_a(int v);     /* ut-a.c: calls its static ut_helper */
int ut_helper_b(int v);     /* ut-b.c: calls its own static ut_helper */
int ut_guarded(int v);      /* ut-sem.c: a marker behind a semaphore */
unsigned short ut_guarded_semaphore_value(void);
long ut_lib_add(long a, long b); /* libut.so */
#endif
