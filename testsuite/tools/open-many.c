// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * open-many N PATH UNTIL: open PATH N times and read one byte from each
 * open, as a hostile reader of a script's procfs file would; print how
 * many opens succeeded and how many were refused and why, then hold them
 * open until the file UNTIL exists. The guest tests run it as another
 * user (drop-caps --uid) to show that such a reader can make the kernel
 * allocate only what the script was allowed. Static, libc only.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int n, i, opened = 0, busy = 0, denied = 0, nomem = 0, other = 0, read_ok = 0;
	struct timespec nap = { 0, 20 * 1000 * 1000 };
	char c;

	if (argc != 4 || (n = atoi(argv[1])) <= 0) {
		fprintf(stderr, "usage: open-many N PATH UNTIL\n");
		return 2;
	}
	for (i = 0; i < n; i++) {
		int fd = open(argv[2], O_RDONLY);

		if (fd < 0) {
			if (errno == EBUSY)
				busy++;
			else if (errno == EACCES || errno == EPERM)
				denied++;
			else if (errno == ENOMEM)
				nomem++;
			else
				other++;
			continue;
		}
		opened++;
		if (read(fd, &c, 1) == 1)
			read_ok++;
	}
	printf("opened %d, read %d, busy %d, denied %d, no memory %d, other %d\n", opened, read_ok,
	       busy, denied, nomem, other);
	fflush(stdout);
	while (access(argv[3], F_OK) != 0)
		nanosleep(&nap, NULL);
	return 0;
}
