/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A writer for "newc" cpio archives, the format the kernel unpacks as an
 * initramfs. The guest runner builds its initramfs with it, so no cpio
 * binary is needed on the host. The archive is built in memory: initramfs
 * contents are a few megabytes at most.
 *
 * Paths are given as guest paths ("/bin/busybox"); missing parent
 * directories are added automatically (mode 0755), once per archive.
 * The kernel accepts several archives concatenated, so an archive can be
 * built once, cached, and followed by a small per-run one.
 */
#ifndef TAPLINE_RUN_CPIO_H
#define TAPLINE_RUN_CPIO_H

#include <stdbool.h>
#include <stddef.h>

#include "util.h"

struct cpio {
	struct strbuf buf;	/* the archive so far */
	struct ptrvec dirs;	/* directories already in this archive */
	unsigned int next_ino;
	bool finished;
};

void cpio_init(struct cpio *c);
void cpio_free(struct cpio *c);

/* A directory; its parents are added as needed. */
void cpio_add_dir(struct cpio *c, const char *path, int mode);
/* A regular file with the given bytes and permission bits. */
void cpio_add_data(struct cpio *c, const char *path, const void *data, size_t len, int mode);
/*
 * A regular file with the contents of host_path. mode < 0 takes the host
 * file's permission bits. False (errno set) if host_path cannot be read.
 */
bool cpio_add_file(struct cpio *c, const char *path, const char *host_path, int mode);
/* A symbolic link at path pointing to target. */
void cpio_add_symlink(struct cpio *c, const char *path, const char *target);
/*
 * Append the TRAILER!!! entry and pad the archive to a multiple of 512
 * bytes, so another archive can follow it (the kernel wants each to start
 * 4-byte aligned). Nothing may be added afterwards.
 */
void cpio_finish(struct cpio *c);

static inline const char *cpio_data(const struct cpio *c)
{
	return c->buf.s;
}

static inline size_t cpio_size(const struct cpio *c)
{
	return c->buf.len;
}

#endif
