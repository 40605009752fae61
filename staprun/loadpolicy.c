// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What the running kernel demands before it loads a module, so that a
 * refused load can be explained: the kernel gives EPERM alike for a missing
 * CAP_SYS_MODULE, for kernel.modules_disabled and for lockdown's refusal of
 * an unsigned module, and EKEYREJECTED for a signature it will not take.
 *
 *   /sys/module/module/parameters/sig_enforce   Y: signed modules only
 *   /sys/kernel/security/lockdown               none [integrity] confidentiality
 *   /proc/sys/kernel/modules_disabled           1: no module loads until reboot
 *   /proc/self/status                           CapEff: the effective capabilities
 *
 * Any of them may be missing (no securityfs mounted, an old kernel); that
 * fact then stays unknown.
 */
#include "staprun.h"

#include <stdlib.h>
#include <string.h>

#define SR_SIG_ENFORCE "/sys/module/module/parameters/sig_enforce"
#define SR_LOCKDOWN "/sys/kernel/security/lockdown"
#define SR_MODULES_DISABLED "/proc/sys/kernel/modules_disabled"
#define SR_SELF_STATUS "/proc/self/status"
#define SR_CAP_SYS_MODULE 16

int sr_lockdown_mode(const char *text, char *mode, size_t len)
{
	const char *lb = strchr(text, '['), *rb;

	if (!lb || !(rb = strchr(lb + 1, ']')) || rb == lb + 1 || (size_t)(rb - lb - 1) >= len)
		return -1;
	memcpy(mode, lb + 1, (size_t)(rb - lb - 1));
	mode[rb - lb - 1] = '\0';
	return 0;
}

int sr_status_has_cap(const char *text, int cap)
{
	const char *p = strstr(text, "\nCapEff:");
	unsigned long long caps;
	char *end;

	if (!p)
		return -1;
	caps = strtoull(p + 8, &end, 16);
	if (end == p + 8)
		return -1;
	return (caps >> cap) & 1;
}

/* The first character of a small sysfs or proc file, or 0. */
static char sr_first_char(const char *path)
{
	size_t len;
	char *buf, c;

	if (sr_read_file(path, 4096, &buf, &len, NULL, 0))
		return 0;
	c = len ? buf[0] : 0;
	free(buf);
	return c;
}

void sr_load_policy_read(struct sr_load_policy *p)
{
	size_t len;
	char *buf, c;

	c = sr_first_char(SR_SIG_ENFORCE);
	p->sig_enforce = c == 'Y' ? 1 : c == 'N' ? 0 : -1;
	c = sr_first_char(SR_MODULES_DISABLED);
	p->modules_disabled = c == '1' ? 1 : c == '0' ? 0 : -1;
	p->lockdown[0] = '\0';
	if (sr_read_file(SR_LOCKDOWN, 4096, &buf, &len, NULL, 0) == 0) {
		if (sr_lockdown_mode(buf, p->lockdown, sizeof(p->lockdown)))
			p->lockdown[0] = '\0';
		free(buf);
	}
	p->cap_sys_module = -1;
	if (sr_read_file(SR_SELF_STATUS, 1 << 16, &buf, &len, NULL, 0) == 0) {
		p->cap_sys_module = sr_status_has_cap(buf, SR_CAP_SYS_MODULE);
		free(buf);
	}
}
