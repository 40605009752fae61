// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Reading the .modinfo section of a kernel module file, without libelf.
 *
 * staprun runs on bare target machines, so it parses the ELF section headers
 * itself.  Only ELF64 little-endian is read (what x86_64 modules are).  The
 * file is untrusted input: every offset and size is checked against the file
 * size before it is used, in 64-bit arithmetic that cannot wrap, and a
 * corrupt file gives a one-line reason instead of a crash.  Only the header,
 * the section header table, the section name table and .modinfo itself are
 * read, so a module with large debug sections costs nothing extra.
 */
#include "staprun.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "modinfo.c reads ELF64 little-endian headers in place; byte-swap them first"
#endif

/*
 * No module has anywhere near this many sections; a larger count means a
 * corrupt header, and refusing it keeps the allocation below bounded even
 * for a sparse file of absurd size.
 */
#define SR_MAX_SECTIONS (1u << 20)

/* An open ELF file and the tables needed to find sections by name. */
struct sr_elf {
	const char *path;
	int fd;
	uint64_t size;		/* file size: the bound for every offset */
	Elf64_Ehdr eh;
	Elf64_Shdr *sh;		/* all section headers */
	uint64_t shnum;
	char *shstr;		/* section name table, plus a NUL after it */
	uint64_t shstrsize;
};

void sr_errf(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!err || !errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

/* Does [off, off + len) lie inside a file of SIZE bytes?  Never wraps. */
static int sr_fits(uint64_t off, uint64_t len, uint64_t size)
{
	return off <= size && len <= size - off;
}

/*
 * Read exactly LEN bytes at OFF.  Callers have checked the range against
 * the size from fstat(), so a short read means the file changed under us.
 */
static int sr_pread_all(const struct sr_elf *e, void *buf, size_t len,
			uint64_t off, char *err, size_t errlen)
{
	char *p = buf;

	while (len) {
		ssize_t n = pread(e->fd, p, len, (off_t)off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			sr_errf(err, errlen, "%s: read error: %s", e->path,
				strerror(errno));
			return -1;
		}
		if (n == 0) {
			sr_errf(err, errlen,
				"%s: file ended early (changed while being read?)",
				e->path);
			return -1;
		}
		p += n;
		off += (uint64_t)n;
		len -= (size_t)n;
	}
	return 0;
}

static void sr_elf_close(struct sr_elf *e)
{
	if (e->fd >= 0)
		close(e->fd);
	free(e->sh);
	free(e->shstr);
	e->fd = -1;
	e->sh = NULL;
	e->shstr = NULL;
}

/* Check the ELF header of an open file and read its e_ident and header. */
static int sr_elf_header(struct sr_elf *e, char *err, size_t errlen)
{
	const unsigned char *id = e->eh.e_ident;

	if (e->size < EI_NIDENT) {
		sr_errf(err, errlen, "%s: not an ELF file (only %llu bytes)",
			e->path, (unsigned long long)e->size);
		return -1;
	}
	if (sr_pread_all(e, &e->eh, EI_NIDENT, 0, err, errlen))
		return -1;
	if (memcmp(id, ELFMAG, SELFMAG) != 0) {
		sr_errf(err, errlen, "%s: not an ELF file (bad magic number)",
			e->path);
		return -1;
	}
	if (id[EI_CLASS] == ELFCLASS32) {
		sr_errf(err, errlen,
			"%s: is a 32-bit ELF file; only 64-bit modules are supported",
			e->path);
		return -1;
	}
	if (id[EI_CLASS] != ELFCLASS64) {
		sr_errf(err, errlen, "%s: corrupt ELF header (unknown class %u)",
			e->path, id[EI_CLASS]);
		return -1;
	}
	if (id[EI_DATA] != ELFDATA2LSB) {
		sr_errf(err, errlen,
			"%s: is not a little-endian ELF file; only x86_64 modules are supported",
			e->path);
		return -1;
	}
	if (id[EI_VERSION] != EV_CURRENT) {
		sr_errf(err, errlen, "%s: corrupt ELF header (version %u)",
			e->path, id[EI_VERSION]);
		return -1;
	}
	if (e->size < sizeof(e->eh)) {
		sr_errf(err, errlen, "%s: truncated ELF header (%llu bytes)",
			e->path, (unsigned long long)e->size);
		return -1;
	}
	if (sr_pread_all(e, &e->eh, sizeof(e->eh), 0, err, errlen))
		return -1;
	if (e->eh.e_version != EV_CURRENT) {
		sr_errf(err, errlen, "%s: corrupt ELF header (version %u)",
			e->path, (unsigned int)e->eh.e_version);
		return -1;
	}
	return 0;
}

/* Read the section header table, following the extended-numbering rules. */
static int sr_elf_sections(struct sr_elf *e, char *err, size_t errlen)
{
	Elf64_Shdr sh0;
	uint64_t shoff = e->eh.e_shoff;
	uint64_t shnum = e->eh.e_shnum;
	uint64_t strndx = e->eh.e_shstrndx;
	const Elf64_Shdr *s;

	if (shoff == 0) {
		sr_errf(err, errlen, "%s: has no section headers", e->path);
		return -1;
	}
	if (e->eh.e_shentsize != sizeof(Elf64_Shdr)) {
		sr_errf(err, errlen,
			"%s: corrupt ELF header (section header size %u, expected %zu)",
			e->path, (unsigned int)e->eh.e_shentsize,
			sizeof(Elf64_Shdr));
		return -1;
	}
	if (!sr_fits(shoff, sizeof(sh0), e->size)) {
		sr_errf(err, errlen,
			"%s: section headers at offset %llu lie beyond the end of the file (%llu bytes): truncated or corrupt",
			e->path, (unsigned long long)shoff,
			(unsigned long long)e->size);
		return -1;
	}
	/*
	 * With 0xff00 sections or more, e_shnum is 0 and e_shstrndx is
	 * SHN_XINDEX; the real values are in section 0's size and link.
	 */
	if (shnum == 0 || strndx == SHN_XINDEX) {
		if (sr_pread_all(e, &sh0, sizeof(sh0), shoff, err, errlen))
			return -1;
		if (shnum == 0)
			shnum = sh0.sh_size;
		if (strndx == SHN_XINDEX)
			strndx = sh0.sh_link;
	}
	if (shnum == 0 || shnum > SR_MAX_SECTIONS) {
		sr_errf(err, errlen, "%s: corrupt ELF header (%llu sections)",
			e->path, (unsigned long long)shnum);
		return -1;
	}
	if (!sr_fits(shoff, shnum * sizeof(Elf64_Shdr), e->size)) {
		sr_errf(err, errlen,
			"%s: section headers (%llu at offset %llu) lie beyond the end of the file (%llu bytes): truncated or corrupt",
			e->path, (unsigned long long)shnum,
			(unsigned long long)shoff, (unsigned long long)e->size);
		return -1;
	}
	e->sh = malloc(shnum * sizeof(Elf64_Shdr));
	if (!e->sh) {
		sr_errf(err, errlen, "%s: out of memory", e->path);
		return -1;
	}
	e->shnum = shnum;
	if (sr_pread_all(e, e->sh, shnum * sizeof(Elf64_Shdr), shoff, err,
			 errlen))
		return -1;

	if (strndx == SHN_UNDEF || strndx >= shnum) {
		sr_errf(err, errlen,
			"%s: corrupt ELF header (section name table index %llu of %llu)",
			e->path, (unsigned long long)strndx,
			(unsigned long long)shnum);
		return -1;
	}
	s = &e->sh[strndx];
	if (s->sh_type != SHT_STRTAB || !sr_fits(s->sh_offset, s->sh_size,
						 e->size)) {
		sr_errf(err, errlen,
			"%s: corrupt section name table (type %u, offset %llu, size %llu, file %llu bytes)",
			e->path, (unsigned int)s->sh_type,
			(unsigned long long)s->sh_offset,
			(unsigned long long)s->sh_size,
			(unsigned long long)e->size);
		return -1;
	}
	/* The extra NUL ends every name, even an unterminated last one. */
	e->shstrsize = s->sh_size;
	e->shstr = malloc(e->shstrsize + 1);
	if (!e->shstr) {
		sr_errf(err, errlen, "%s: out of memory", e->path);
		return -1;
	}
	if (sr_pread_all(e, e->shstr, e->shstrsize, s->sh_offset, err, errlen))
		return -1;
	e->shstr[e->shstrsize] = '\0';
	return 0;
}

static int sr_elf_open(struct sr_elf *e, const char *path, char *err,
		       size_t errlen)
{
	struct stat st;

	memset(e, 0, sizeof(*e));
	e->path = path;
	e->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (e->fd < 0) {
		sr_errf(err, errlen, "cannot open %s: %s", path,
			strerror(errno));
		return -1;
	}
	if (fstat(e->fd, &st) < 0) {
		sr_errf(err, errlen, "cannot stat %s: %s", path,
			strerror(errno));
		goto fail;
	}
	if (!S_ISREG(st.st_mode)) {
		sr_errf(err, errlen, "%s: not a regular file", path);
		goto fail;
	}
	e->size = (uint64_t)st.st_size;
	if (sr_elf_header(e, err, errlen) || sr_elf_sections(e, err, errlen))
		goto fail;
	return 0;
fail:
	sr_elf_close(e);
	return -1;
}

/* The header of the section named NAME, checked to lie inside the file. */
static const Elf64_Shdr *sr_elf_section(const struct sr_elf *e,
					const char *name, char *err,
					size_t errlen)
{
	uint64_t i;

	for (i = 1; i < e->shnum; i++) {
		const Elf64_Shdr *s = &e->sh[i];

		if (s->sh_name >= e->shstrsize) {
			sr_errf(err, errlen,
				"%s: corrupt section header %llu (name offset %u outside the name table)",
				e->path, (unsigned long long)i,
				(unsigned int)s->sh_name);
			return NULL;
		}
		if (strcmp(e->shstr + s->sh_name, name) != 0)
			continue;
		if (s->sh_type == SHT_NOBITS) {
			sr_errf(err, errlen, "%s: section %s has no contents",
				e->path, name);
			return NULL;
		}
		if (!sr_fits(s->sh_offset, s->sh_size, e->size)) {
			sr_errf(err, errlen,
				"%s: section %s (offset %llu, size %llu) lies beyond the end of the file (%llu bytes): truncated or corrupt",
				e->path, name,
				(unsigned long long)s->sh_offset,
				(unsigned long long)s->sh_size,
				(unsigned long long)e->size);
			return NULL;
		}
		return s;
	}
	sr_errf(err, errlen, "%s: has no %s section (not a kernel module)",
		e->path, name);
	return NULL;
}

int sr_modinfo_locate(const char *path, uint64_t *offset, uint64_t *size,
		      char *err, size_t errlen)
{
	struct sr_elf e;
	const Elf64_Shdr *s;

	if (sr_elf_open(&e, path, err, errlen))
		return -1;
	s = sr_elf_section(&e, ".modinfo", err, errlen);
	if (s) {
		*offset = s->sh_offset;
		*size = s->sh_size;
	}
	sr_elf_close(&e);
	return s ? 0 : -1;
}

int sr_modinfo_read(const char *path, struct sr_modinfo *mi, char *err,
		    size_t errlen)
{
	struct sr_elf e;
	const Elf64_Shdr *s;
	int ret = -1;

	memset(mi, 0, sizeof(*mi));
	if (sr_elf_open(&e, path, err, errlen))
		return -1;
	s = sr_elf_section(&e, ".modinfo", err, errlen);
	if (!s)
		goto out;
	/* sr_fits() bounded the size by the file size, so this is sane. */
	mi->data = malloc(s->sh_size + 1);
	if (!mi->data) {
		sr_errf(err, errlen, "%s: out of memory", path);
		goto out;
	}
	if (sr_pread_all(&e, mi->data, s->sh_size, s->sh_offset, err,
			 errlen)) {
		sr_modinfo_free(mi);
		goto out;
	}
	/* So that the last value is a C string even if the file left off its NUL. */
	mi->data[s->sh_size] = '\0';
	mi->size = s->sh_size;
	mi->elf_type = e.eh.e_type;
	mi->machine = e.eh.e_machine;
	ret = 0;
out:
	sr_elf_close(&e);
	return ret;
}

const char *sr_modinfo_get(const struct sr_modinfo *mi, const char *key)
{
	return sr_modinfo_next(mi, key, NULL);
}

const char *sr_modinfo_next(const struct sr_modinfo *mi, const char *key, const char *prev)
{
	size_t klen = strlen(key);
	const char *p = mi->data;
	const char *end;

	if (!p)
		return NULL;
	end = p + mi->size;
	if (prev)
		p = prev + strnlen(prev, (size_t)(end - prev)) + 1;
	/* Entries are NUL-separated; runs of NULs (padding) are empty entries. */
	while (p < end) {
		size_t n = strnlen(p, (size_t)(end - p));

		if (n > klen && memcmp(p, key, klen) == 0 && p[klen] == '=')
			return p + klen + 1;
		p += n + 1;
	}
	return NULL;
}

void sr_modinfo_free(struct sr_modinfo *mi)
{
	free(mi->data);
	mi->data = NULL;
	mi->size = 0;
}
