// SPDX-License-Identifier: GPL-2.0-or-later
/* A marker behind a semaphore: the probe's argument is computed only
 * while a tracer has the marker enabled, which the semaphore says. */
#define _SDT_HAS_SEMAPHORES 1
#include <sys/sdt.h>

#include "ut.h"

__extension__ unsigned short ut_guarded_semaphore __attribute__((unused, section(".probes")));

unsigned short ut_guarded_semaphore_value(void)
{
	return *(volatile unsigned short *)&ut_guarded_semaphore;
}

__attribute__((noinline)) int ut_guarded(int v)
{
	if (ut_guarded_semaphore)
		STAP_PROBE1(ut, guarded, v * 100);
	return v;
}
