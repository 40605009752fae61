// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * drop-caps [--uid N] COMMAND [ARG]...: run COMMAND without capabilities,
 * as root (uid 0, every capability dropped, including from the bounding
 * set, so that exec does not give them back), or as uid and gid N. The
 * guest tests use it to show that owning Tapline's /proc files is not
 * enough to read them or stop a script. Static, libc only.
 */
#include <errno.h>
#include <grp.h>
#include <linux/capability.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct none[_LINUX_CAPABILITY_U32S_3];
	int first = 1, cap;

	if (argc > 2 && !strcmp(argv[1], "--uid")) {
		int uid = atoi(argv[2]);

		if (setgroups(0, NULL) || setgid(uid) || setuid(uid)) {
			fprintf(stderr, "drop-caps: cannot become uid %d: %s\n", uid, strerror(errno));
			return 126;
		}
		first = 3;
	} else {
		for (cap = 0; cap <= 63; cap++)
			if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) && errno != EINVAL) {
				fprintf(stderr, "drop-caps: PR_CAPBSET_DROP %d: %s\n", cap,
					strerror(errno));
				return 126;
			}
		memset(none, 0, sizeof(none));
		if (syscall(SYS_capset, &hdr, none)) {
			fprintf(stderr, "drop-caps: capset: %s\n", strerror(errno));
			return 126;
		}
	}
	if (first >= argc) {
		fprintf(stderr, "usage: drop-caps [--uid N] COMMAND [ARG]...\n");
		return 2;
	}
	execvp(argv[first], argv + first);
	fprintf(stderr, "drop-caps: cannot run %s: %s\n", argv[first], strerror(errno));
	return 127;
}
