// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * newc cpio writer; see cpio.h. Each entry is a 110-byte ASCII header
 * ("070701" and thirteen 8-digit hex fields), the NUL-terminated name
 * padded to 4 bytes, then the data padded to 4 bytes. Names are stored
 * without the leading "/", as cpio tools write them.
 */
#include "cpio.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

void cpio_init(struct cpio *c)
{
	sb_init(&c->buf);
	c->dirs.v = NULL;
	c->dirs.n = c->dirs.cap = 0;
	/* Inode numbers only matter for hard links (nlink > 1), which we never write. */
	c->next_ino = 1000;
	c->finished = false;
}

void cpio_free(struct cpio *c)
{
	for (size_t i = 0; i < c->dirs.n; i++)
		free(c->dirs.v[i]);
	pv_free(&c->dirs);
	sb_free(&c->buf);
}

static void pad4(struct cpio *c)
{
	static const char zeros[4];

	if (c->buf.len & 3)
		sb_add(&c->buf, zeros, 4 - (c->buf.len & 3));
}

/* "/a//b/" -> "a/b": the archive's spelling of a guest path. */
static char *archive_name(const char *path)
{
	struct strbuf b;

	sb_init(&b);
	for (const char *p = path; *p; p++) {
		if (*p == '/' && (b.len == 0 || b.s[b.len - 1] == '/' || !p[1]))
			continue;
		sb_putc(&b, *p);
	}
	return sb_detach(&b);
}

static void put_entry(struct cpio *c, const char *name, unsigned int mode, unsigned int nlink,
		      long mtime, const void *data, size_t len)
{
	char hdr[111];

	if (c->finished)
		fatal("cpio: entry %s added after the trailer", name);
	/* newc fields are 32 bits wide. */
	if (len > 0xffffffffu)
		fatal("cpio: %s is too large for a newc archive", name);
	snprintf(hdr, sizeof(hdr), "070701%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X",
		 c->next_ino++, mode, 0u, 0u, nlink, (unsigned int)mtime, (unsigned int)len,
		 0u, 0u, 0u, 0u, (unsigned int)strlen(name) + 1, 0u);
	sb_add(&c->buf, hdr, 110);
	sb_add(&c->buf, name, strlen(name) + 1);
	pad4(c);
	if (len)
		sb_add(&c->buf, data, len);
	pad4(c);
}

static bool have_dir(const struct cpio *c, const char *name)
{
	for (size_t i = 0; i < c->dirs.n; i++)
		if (!strcmp(c->dirs.v[i], name))
			return true;
	return false;
}

static void put_dir(struct cpio *c, const char *name, int mode)
{
	if (!*name || have_dir(c, name))
		return;
	put_entry(c, name, S_IFDIR | (mode & 07777), 2, 0, NULL, 0);
	pv_push(&c->dirs, xstrdup(name));
}

/* The kernel does not create missing parents, so every ancestor needs an entry. */
static void put_parents(struct cpio *c, const char *name)
{
	char *p = xstrdup(name);

	for (char *s = strchr(p, '/'); s; s = strchr(s + 1, '/')) {
		*s = 0;
		put_dir(c, p, 0755);
		*s = '/';
	}
	free(p);
}

void cpio_add_dir(struct cpio *c, const char *path, int mode)
{
	char *name = archive_name(path);

	put_parents(c, name);
	put_dir(c, name, mode);
	free(name);
}

void cpio_add_data(struct cpio *c, const char *path, const void *data, size_t len, int mode)
{
	char *name = archive_name(path);

	put_parents(c, name);
	put_entry(c, name, S_IFREG | (mode & 07777), 1, 0, data, len);
	free(name);
}

bool cpio_add_file(struct cpio *c, const char *path, const char *host_path, int mode)
{
	struct stat st;
	size_t len;
	char *data;

	if (stat(host_path, &st) < 0)
		return false;
	data = read_file(host_path, &len);
	if (!data)
		return false;
	if (mode < 0)
		mode = st.st_mode & 07777;

	char *name = archive_name(path);

	put_parents(c, name);
	put_entry(c, name, S_IFREG | (mode & 07777), 1, st.st_mtime, data, len);
	free(name);
	free(data);
	return true;
}

void cpio_add_symlink(struct cpio *c, const char *path, const char *target)
{
	char *name = archive_name(path);

	put_parents(c, name);
	/* A symlink's data is its target, without a terminating NUL. */
	put_entry(c, name, S_IFLNK | 0777, 1, 0, target, strlen(target));
	free(name);
}

void cpio_finish(struct cpio *c)
{
	static const char zeros[512];

	if (c->finished)
		return;
	put_entry(c, "TRAILER!!!", 0, 1, 0, NULL, 0);
	c->finished = true;
	if (c->buf.len % 512)
		sb_add(&c->buf, zeros, 512 - c->buf.len % 512);
}
