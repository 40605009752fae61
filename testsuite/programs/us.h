/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The user-stack test program's parts (see us.c). */
#ifndef US_H
#define US_H

/* libus.so: calls back into the program, so a chain crosses the library. */
int us_lib_hop(int n, int (*back)(int));
/* libus-late.so, loaded with dlopen: the same, from a library mapped later. */
int us_late_hop(int n, int (*back)(int));
/* us-nocfi.c: built without CFI and frame pointer. */
int us_nocfi(int n, int (*f)(int));
#endif
