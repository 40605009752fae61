// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A message over a vsock connection to this machine (the loopback
 * transport, vsock_loopback): the module tracepoints test's traffic, the
 * kernel's virtio vsock packets made and received. Prints what came back.
 *
 *   vsock-echo PORT MESSAGE
 */
#include <linux/vm_sockets.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: vsock-echo PORT MESSAGE\n");
		return 2;
	}
	struct sockaddr_vm a = { .svm_family = AF_VSOCK, .svm_cid = VMADDR_CID_LOCAL,
				 .svm_port = (unsigned)atoi(argv[1]) };
	int l = socket(AF_VSOCK, SOCK_STREAM, 0);
	if (l < 0 || bind(l, (struct sockaddr *)&a, sizeof a) < 0 || listen(l, 1) < 0) {
		perror("vsock-echo: listen");
		return 1;
	}
	int c = socket(AF_VSOCK, SOCK_STREAM, 0);
	if (c < 0 || connect(c, (struct sockaddr *)&a, sizeof a) < 0) {
		perror("vsock-echo: connect");
		return 1;
	}
	int s = accept(l, NULL, NULL);
	size_t n = strlen(argv[2]);
	char buf[256] = { 0 };
	if (s < 0 || write(c, argv[2], n) != (ssize_t)n || read(s, buf, sizeof buf - 1) <= 0) {
		perror("vsock-echo: transfer");
		return 1;
	}
	printf("got %s\n", buf);
	close(s);
	close(c);
	close(l);
	return 0;
}
