// SPDX-License-Identifier: GPL-2.0-or-later
/* RT_HAVE_DO_SOCK_GETSOCKOPT: getsockopt on a kernel socket goes through
 * do_sock_getsockopt() (Linux 6.8), as SystemTap's STAPCONF_ of the name. */
#include <net/sock.h>

static __used void *rt_feature_probe(void)
{
	return (void *)do_sock_getsockopt;
}
