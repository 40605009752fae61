// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * GNU build-ids from ELF note buffers, such as /sys/kernel/notes or
 * /sys/module/NAME/notes/.note.gnu.build-id.
 *
 * The build-id is what ties a Tapline module to the kernel it was built for
 * (design lesson 2), so staprun reads it from the running kernel before it
 * loads anything.  A notes buffer is a sequence of notes, each a 12-byte
 * header (namesz, descsz, type) followed by the name and the descriptor,
 * each padded to 4 bytes.  The GNU build-id is not always the first note
 * (Debian's kernel puts Xen and Linux notes around it), so the whole buffer
 * is walked, and every size is checked in 64-bit arithmetic: a 32-bit
 * "(size + 3) & ~3" wraps to 0 for sizes near 4 GiB and would send the walk
 * backwards.
 */
#include "module.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Notes use the byte order of the machine that made them: here, ours. */
static uint32_t sr_get32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));	/* the buffer need not be aligned */
	return v;
}

static uint64_t sr_pad4(uint32_t n)
{
	return ((uint64_t)n + 3) & ~(uint64_t)3;
}

int sr_notes_build_id(const void *buf, size_t len, char *hex, size_t hexlen,
		      char *err, size_t errlen)
{
	static const char digits[] = "0123456789abcdef";
	const unsigned char *p = buf;
	uint64_t off = 0;
	unsigned int count = 0;

	if (!buf || len == 0) {
		sr_errf(err, errlen, "no notes (empty buffer)");
		return -1;
	}
	while (off < len) {
		uint64_t name_off, desc_off;
		uint32_t namesz, descsz, type;
		uint32_t i;

		if (len - off < 12) {
			sr_errf(err, errlen,
				"truncated note header at offset %llu (%llu bytes left)",
				(unsigned long long)off,
				(unsigned long long)(len - off));
			return -1;
		}
		namesz = sr_get32(p + off);
		descsz = sr_get32(p + off + 4);
		type = sr_get32(p + off + 8);
		name_off = off + 12;
		if (sr_pad4(namesz) > len - name_off) {
			sr_errf(err, errlen,
				"note at offset %llu: name size %u runs past the end of the notes (%zu bytes)",
				(unsigned long long)off, namesz, len);
			return -1;
		}
		desc_off = name_off + sr_pad4(namesz);
		if (descsz > len - desc_off) {
			sr_errf(err, errlen,
				"note at offset %llu: descriptor size %u runs past the end of the notes (%zu bytes)",
				(unsigned long long)off, descsz, len);
			return -1;
		}
		count++;
		if (namesz == 4 && memcmp(p + name_off, "GNU", 4) == 0 &&
		    type == NT_GNU_BUILD_ID) {
			if (descsz == 0) {
				sr_errf(err, errlen,
					"the GNU build-id note at offset %llu is empty",
					(unsigned long long)off);
				return -1;
			}
			if (descsz > SR_BUILD_ID_MAX ||
			    hexlen < 2 * (size_t)descsz + 1) {
				sr_errf(err, errlen,
					"the GNU build-id note at offset %llu is too long (%u bytes)",
					(unsigned long long)off, descsz);
				return -1;
			}
			for (i = 0; i < descsz; i++) {
				hex[2 * i] = digits[p[desc_off + i] >> 4];
				hex[2 * i + 1] = digits[p[desc_off + i] & 15];
			}
			hex[2 * descsz] = '\0';
			return 0;
		}
		/* The last note may stop without its descriptor's padding. */
		if (sr_pad4(descsz) >= len - desc_off)
			break;
		off = desc_off + sr_pad4(descsz);
	}
	sr_errf(err, errlen,
		"no GNU build-id note (name \"GNU\", type 3) among %u notes",
		count);
	return -1;
}

int sr_read_file(const char *path, size_t max, char **bufp, size_t *lenp,
		 char *err, size_t errlen)
{
	size_t cap = 4096, len = 0;
	char *buf = NULL;
	int fd;

	*bufp = NULL;
	*lenp = 0;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		sr_errf(err, errlen, "cannot open %s: %s", path,
			strerror(errno));
		return -1;
	}
	/*
	 * sysfs and proc files report sizes that mean nothing (0 or a page),
	 * so read until end of file instead of trusting fstat().
	 */
	for (;;) {
		ssize_t n;

		if (!buf || len == cap) {
			char *nbuf;

			if (buf)
				cap *= 2;
			nbuf = realloc(buf, cap + 1);
			if (!nbuf) {
				sr_errf(err, errlen, "%s: out of memory", path);
				goto fail;
			}
			buf = nbuf;
		}
		n = read(fd, buf + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			sr_errf(err, errlen, "cannot read %s: %s", path,
				strerror(errno));
			goto fail;
		}
		if (n == 0)
			break;
		len += (size_t)n;
		if (len > max) {
			sr_errf(err, errlen, "%s: larger than %zu bytes", path,
				max);
			goto fail;
		}
	}
	close(fd);
	buf[len] = '\0';	/* text files can then be used as strings */
	*bufp = buf;
	*lenp = len;
	return 0;
fail:
	close(fd);
	free(buf);
	return -1;
}

int sr_file_build_id(const char *path, char *hex, size_t hexlen, char *err,
		     size_t errlen)
{
	char why[SR_ERR_MAX];
	size_t len;
	char *buf;
	int ret;

	if (sr_read_file(path, 1 << 20, &buf, &len, err, errlen))
		return -1;
	ret = sr_notes_build_id(buf, len, hex, hexlen, why, sizeof(why));
	if (ret)
		sr_errf(err, errlen, "%s: %s", path, why);
	free(buf);
	return ret;
}
