// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The user side of the module's /proc files (doc/protocol.md): commands to
 * and status from /proc/tapline_NAME/ctl, and the relay that copies
 * /proc/tapline_NAME/out to the script's output.
 *
 * The relay uses read(2) and write(2) only: in the test guest the output is
 * a serial console, and stdio buffering would hold back (or, on a crash,
 * lose) output the script already produced.  ctl is opened afresh for every
 * command and every status read, so each one starts at offset 0 whatever the
 * kernel side does with file positions.
 */
#include "staprun.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* One read of out; the kernel never splits a probe hit's output across reads. */
#define SR_RELAY_BUF (64 * 1024)

static char sr_relay_buf[SR_RELAY_BUF];

static void sr_ctl_path(char *path, size_t len, const char *name)
{
	snprintf(path, len, SR_PROC_DIR "/tapline_%s/ctl", name);
}

int sr_write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN) {
			/* stdout may have been left non-blocking by whoever
			 * shares it; wait rather than lose output. */
			struct pollfd pfd = { .fd = fd, .events = POLLOUT };

			poll(&pfd, 1, 1000);
			continue;
		}
		if (n < 0)
			return -1;
		if (n == 0) {
			errno = EIO;
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int sr_ctl_write(const char *name, const char *cmd, char *err, size_t errlen)
{
	char path[128];
	size_t len = strlen(cmd);
	ssize_t n;
	int fd, saved;

	sr_ctl_path(path, sizeof(path), name);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		saved = errno;
		sr_errf(err, errlen, "cannot open %s: %s", path,
			strerror(errno));
		errno = saved;
		return -1;
	}
	/* One command per write(), without a newline (doc/protocol.md). */
	do
		n = write(fd, cmd, len);
	while (n < 0 && errno == EINTR);
	saved = errno;
	close(fd);
	if (n < 0) {
		sr_errf(err, errlen, "writing '%s' to %s: %s", cmd, path,
			strerror(saved));
		errno = saved;
		return -1;
	}
	if ((size_t)n != len) {
		sr_errf(err, errlen, "writing '%s' to %s: only %zd of %zu bytes taken",
			cmd, path, n, len);
		errno = EIO;
		return -1;
	}
	return 0;
}

/*
 * Parse "key value" lines; keys this version does not know are skipped.
 * The first line of each key counts: the module's status lines come before
 * any message text.
 */
static void sr_status_parse(struct sr_status *st)
{
	char *line = st->text;
	unsigned seen = 0;

	while (line && *line) {
		char *nl = strchr(line, '\n');
		char *val = strchr(line, ' ');
		size_t klen;

		if (nl)
			*nl = '\0';
		klen = val ? (size_t)(val - line) : strlen(line);
		if (val)
			val++;
		else
			val = line + klen;
		if (klen == 5 && !strncmp(line, "state", 5) && !(seen & 1)) {
			snprintf(st->state, sizeof(st->state), "%s", val);
			seen |= 1;
		} else if (klen == 11 && !strncmp(line, "exit_status", 11) && !(seen & 2)) {
			st->exit_status = atoi(val);
			seen |= 2;
		} else if (klen == 15 && !strncmp(line, "dropped_records", 15) && !(seen & 4)) {
			st->dropped_records = strtoull(val, NULL, 10);
			seen |= 4;
		} else if (klen == 13 && !strncmp(line, "dropped_bytes", 13) && !(seen & 8)) {
			st->dropped_bytes = strtoull(val, NULL, 10);
			seen |= 8;
		} else if (klen == 7 && !strncmp(line, "skipped", 7) && !(seen & 16)) {
			st->skipped = strtoull(val, NULL, 10);
			seen |= 16;
		} else if (klen == 14 && !strncmp(line, "skipped_locked", 14) && !(seen & 32)) {
			st->skipped_locked = strtoull(val, NULL, 10);
			seen |= 32;
		} else if (klen == 14 && !strncmp(line, "skipped_unsafe", 14) && !(seen & 64)) {
			st->skipped_unsafe = strtoull(val, NULL, 10);
			seen |= 64;
		} else if (klen == 8 && !strncmp(line, "orphaned", 8) && !(seen & 128)) {
			st->orphaned = atoi(val);
			seen |= 128;
		}
		/* Put the newline back: sr_status_report() walks the text again. */
		if (!nl)
			break;
		*nl = '\n';
		line = nl + 1;
	}
}

int sr_ctl_read(const char *name, struct sr_status *st, char *err,
		size_t errlen)
{
	char path[128];
	size_t len;

	memset(st, 0, sizeof(*st));
	st->exit_status = -1;
	sr_ctl_path(path, sizeof(path), name);
	if (sr_read_file(path, 1 << 20, &st->text, &len, err, errlen))
		return -1;
	sr_status_parse(st);
	return 0;
}

int sr_ctl_read_fd(int fd, struct sr_status *st)
{
	size_t cap = 4096, len = 0;
	ssize_t n = 0;

	memset(st, 0, sizeof(*st));
	st->exit_status = -1;
	if (lseek(fd, 0, SEEK_SET) < 0)
		return -1;
	st->text = malloc(cap);
	if (!st->text)
		return -1;
	for (;;) {
		if (len + 1 >= cap) {
			char *more = len < (1 << 20) ? realloc(st->text, cap * 2) : NULL;

			if (!more)
				break;
			st->text = more;
			cap *= 2;
		}
		n = read(fd, st->text + len, cap - 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	st->text[len] = 0;
	if (n < 0 || len == 0) {
		sr_status_free(st);
		return -1;
	}
	sr_status_parse(st);
	return 0;
}

int sr_status_report(const struct sr_status *st)
{
	const char *line = st->text;
	int nerr = 0;

	while (line && *line) {
		const char *nl = strchr(line, '\n');
		int len = nl ? (int)(nl - line) : (int)strlen(line);

		if (len >= 6 && !strncmp(line, "error ", 6)) {
			fprintf(stderr, "ERROR: %.*s\n", len - 6, line + 6);
			nerr++;
		} else if (len >= 8 && !strncmp(line, "warning ", 8)) {
			fprintf(stderr, "WARNING: %.*s\n", len - 8, line + 8);
		} else if (len >= 7 && !strncmp(line, "report ", 7)) {
			/* -t: the probe hit report, as it is */
			fprintf(stderr, "%.*s\n", len - 7, line + 7);
		}
		line = nl ? nl + 1 : NULL;
	}
	/* Lost data is never silent (design: users' complaint 10). */
	if (st->dropped_records || st->dropped_bytes)
		fprintf(stderr,
			"WARNING: %llu output record%s (%llu bytes) %s dropped because a per-CPU output buffer was full; raise the buffer size with -s MB\n",
			st->dropped_records,
			st->dropped_records == 1 ? "" : "s",
			st->dropped_bytes,
			st->dropped_records == 1 ? "was" : "were");
	if (st->skipped) {
		unsigned long long locked = st->skipped_locked, unsafe = st->skipped_unsafe;
		unsigned long long busy = 0;

		if (locked + unsafe <= st->skipped)
			busy = st->skipped - locked - unsafe;
		fprintf(stderr, "WARNING: %llu probe hit%s %s skipped:", st->skipped,
			st->skipped == 1 ? "" : "s", st->skipped == 1 ? "was" : "were");
		if (busy)
			fprintf(stderr, " %llu because another hit was running on the same CPU%s", busy,
				locked || unsafe ? "," : "");
		if (locked)
			fprintf(stderr, " %llu because a global stayed locked (-D MAXTRYLOCK=N waits longer)%s",
				locked, unsafe ? "," : "");
		if (unsafe)
			fprintf(stderr, " %llu in code where RCU is not watching (idle or entry code)",
				unsafe);
		fputc('\n', stderr);
	}
	return nerr;
}

void sr_status_free(struct sr_status *st)
{
	free(st->text);
	st->text = NULL;
}

int sr_relay_commands(struct sr_relay *r)
{
	char buf[1100];
	ssize_t n;
	int ran = 0;

	if (r->cmd_fd < 0 || !r->system)
		return 0;
	while ((n = read(r->cmd_fd, buf, sizeof(buf) - 1)) > 0) {
		buf[n] = 0;
		r->system(buf);
		ran++;
	}
	return ran;
}

static int sr_relay_emit(void *ctx, const char *buf, size_t n)
{
	struct sr_relay *r = ctx;

	return r->write ? r->write(buf, n) : sr_write_all(r->dst_fd, buf, n);
}

int sr_relay_release(struct sr_relay *r)
{
	if (!r->ustacks || r->dst_fd < 0)
		return 0;
	if (sr_ustacks_release(r->ustacks, sr_relay_emit, r)) {
		r->errnum = errno;
		r->dst_fd = -1;
		return -1;
	}
	return 0;
}

enum sr_relay_end sr_relay_run(struct sr_relay *r, int (*stop_now)(void))
{
	for (;;) {
		ssize_t n;

		if (stop_now && stop_now())
			return SR_RELAY_STOP;
		n = read(r->out_fd, sr_relay_buf, sizeof(sr_relay_buf));
		if (n == 0) {
			if (r->ustacks && r->dst_fd >= 0 && sr_ustacks_flush(r->ustacks, sr_relay_emit, r)) {
				r->errnum = errno;
				r->dst_fd = -1;
				return SR_RELAY_WRITE_ERROR;
			}
			return SR_RELAY_EOF;
		}
		if (n < 0 && errno == EINTR)
			continue;	/* a signal: stop_now() decides */
		if (n < 0 && errno == EAGAIN) {
			/*
			 * No output, but system() commands waiting (see
			 * doc/protocol.md): run them.  Should the kernel say
			 * so with none waiting, sleep a little instead of
			 * spinning; a signal still ends the sleep.
			 */
			if (sr_relay_commands(r) == 0)
				poll(NULL, 0, 10);
			continue;
		}
		if (n < 0) {
			r->errnum = errno;
			return SR_RELAY_READ_ERROR;
		}
		r->bytes += (unsigned long long)n;
		if (r->raw_fd >= 0 && sr_write_all(r->raw_fd, sr_relay_buf, (size_t)n)) {
			close(r->raw_fd);
			r->raw_fd = -1;
		}
		if (r->dst_fd < 0)
			continue;	/* dst failed: keep draining the module */
		if (r->ustacks ? sr_ustacks_filter(r->ustacks, sr_relay_buf, (size_t)n, sr_relay_emit, r)
			       : sr_relay_emit(r, sr_relay_buf, (size_t)n)) {
			r->errnum = errno;
			r->dst_fd = -1;
			return SR_RELAY_WRITE_ERROR;
		}
	}
}
