// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The .modinfo section of a kernel module, found in the module's bytes
 * without libelf.
 *
 * staprun runs on bare target machines, so it parses the ELF section headers
 * itself.  Only ELF64 little-endian is read (what x86_64 modules are).  The
 * bytes are untrusted input: every offset and size is checked against the
 * image's size before it is used, in 64-bit arithmetic that cannot wrap, and
 * a corrupt image gives a one-line reason instead of a crash.  Headers are
 * copied out with memcpy, since nothing says the image is aligned.
 */
#include "module.h"

#include <elf.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "modinfo.c reads ELF64 little-endian headers in place; byte-swap them first"
#endif

/*
 * No module has anywhere near this many sections; a larger count means a
 * corrupt header.
 */
#define SR_MAX_SECTIONS (1u << 20)

/* A module image and the tables needed to find its sections by name. */
struct sr_elf {
	const char *path;		/* for messages */
	const unsigned char *image;
	uint64_t size;			/* the bound for every offset */
	Elf64_Ehdr eh;
	uint64_t shoff, shnum;		/* the section header table */
	const char *shstr;		/* section name table, inside image */
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

/* Does [off, off + len) lie inside an image of SIZE bytes?  Never wraps. */
static int sr_fits(uint64_t off, uint64_t len, uint64_t size)
{
	return off <= size && len <= size - off;
}

/* Section header I; the caller has checked I < e->shnum. */
static Elf64_Shdr sr_elf_shdr(const struct sr_elf *e, uint64_t i)
{
	Elf64_Shdr sh;

	memcpy(&sh, e->image + e->shoff + i * sizeof(sh), sizeof(sh));
	return sh;
}

/* Check the ELF header and copy it out. */
static int sr_elf_header(struct sr_elf *e, char *err, size_t errlen)
{
	const unsigned char *id = e->image;

	if (e->size < EI_NIDENT) {
		sr_errf(err, errlen, "%s: not an ELF file (only %llu bytes)",
			e->path, (unsigned long long)e->size);
		return -1;
	}
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
	memcpy(&e->eh, e->image, sizeof(e->eh));
	if (e->eh.e_version != EV_CURRENT) {
		sr_errf(err, errlen, "%s: corrupt ELF header (version %u)",
			e->path, (unsigned int)e->eh.e_version);
		return -1;
	}
	return 0;
}

/* Find the section header table, following the extended-numbering rules. */
static int sr_elf_sections(struct sr_elf *e, char *err, size_t errlen)
{
	uint64_t strndx = e->eh.e_shstrndx;
	Elf64_Shdr s;

	e->shoff = e->eh.e_shoff;
	e->shnum = e->eh.e_shnum;
	if (e->shoff == 0) {
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
	if (!sr_fits(e->shoff, sizeof(Elf64_Shdr), e->size)) {
		sr_errf(err, errlen,
			"%s: section headers at offset %llu lie beyond the end of the file (%llu bytes): truncated or corrupt",
			e->path, (unsigned long long)e->shoff,
			(unsigned long long)e->size);
		return -1;
	}
	/*
	 * With 0xff00 sections or more, e_shnum is 0 and e_shstrndx is
	 * SHN_XINDEX; the real values are in section 0's size and link.
	 */
	if (e->shnum == 0 || strndx == SHN_XINDEX) {
		s = sr_elf_shdr(e, 0);
		if (e->shnum == 0)
			e->shnum = s.sh_size;
		if (strndx == SHN_XINDEX)
			strndx = s.sh_link;
	}
	if (e->shnum == 0 || e->shnum > SR_MAX_SECTIONS) {
		sr_errf(err, errlen, "%s: corrupt ELF header (%llu sections)",
			e->path, (unsigned long long)e->shnum);
		return -1;
	}
	if (!sr_fits(e->shoff, e->shnum * sizeof(Elf64_Shdr), e->size)) {
		sr_errf(err, errlen,
			"%s: section headers (%llu at offset %llu) lie beyond the end of the file (%llu bytes): truncated or corrupt",
			e->path, (unsigned long long)e->shnum,
			(unsigned long long)e->shoff, (unsigned long long)e->size);
		return -1;
	}
	if (strndx == SHN_UNDEF || strndx >= e->shnum) {
		sr_errf(err, errlen,
			"%s: corrupt ELF header (section name table index %llu of %llu)",
			e->path, (unsigned long long)strndx,
			(unsigned long long)e->shnum);
		return -1;
	}
	s = sr_elf_shdr(e, strndx);
	if (s.sh_type != SHT_STRTAB || !sr_fits(s.sh_offset, s.sh_size, e->size)) {
		sr_errf(err, errlen,
			"%s: corrupt section name table (type %u, offset %llu, size %llu, file %llu bytes)",
			e->path, (unsigned int)s.sh_type,
			(unsigned long long)s.sh_offset,
			(unsigned long long)s.sh_size,
			(unsigned long long)e->size);
		return -1;
	}
	e->shstr = (const char *)e->image + s.sh_offset;
	e->shstrsize = s.sh_size;
	return 0;
}

/* Is section header S named NAME?  The name must end inside the table. */
static int sr_elf_named(const struct sr_elf *e, const Elf64_Shdr *s,
			const char *name)
{
	size_t n = strlen(name);
	uint64_t left = e->shstrsize - s->sh_name;

	return left > n && memcmp(e->shstr + s->sh_name, name, n + 1) == 0;
}

/* The header of the section named NAME, checked to lie inside the image. */
static int sr_elf_section(const struct sr_elf *e, const char *name,
			  Elf64_Shdr *out, char *err, size_t errlen)
{
	uint64_t i;

	for (i = 1; i < e->shnum; i++) {
		Elf64_Shdr s = sr_elf_shdr(e, i);

		if (s.sh_name >= e->shstrsize) {
			sr_errf(err, errlen,
				"%s: corrupt section header %llu (name offset %u outside the name table)",
				e->path, (unsigned long long)i,
				(unsigned int)s.sh_name);
			return -1;
		}
		if (!sr_elf_named(e, &s, name))
			continue;
		if (s.sh_type == SHT_NOBITS) {
			sr_errf(err, errlen, "%s: section %s has no contents",
				e->path, name);
			return -1;
		}
		if (!sr_fits(s.sh_offset, s.sh_size, e->size)) {
			sr_errf(err, errlen,
				"%s: section %s (offset %llu, size %llu) lies beyond the end of the file (%llu bytes): truncated or corrupt",
				e->path, name,
				(unsigned long long)s.sh_offset,
				(unsigned long long)s.sh_size,
				(unsigned long long)e->size);
			return -1;
		}
		*out = s;
		return 0;
	}
	sr_errf(err, errlen, "%s: has no %s section (not a kernel module)",
		e->path, name);
	return -1;
}

/* The header of the section named NAME in e's image, its ELF header and
 * section table checked on the way. */
static int sr_elf_find(struct sr_elf *e, const char *name, Elf64_Shdr *s, char *err,
		       size_t errlen)
{
	return sr_elf_header(e, err, errlen) || sr_elf_sections(e, err, errlen) ||
	       sr_elf_section(e, name, s, err, errlen) ? -1 : 0;
}

int sr_modinfo_parse(const void *image, size_t size, const char *path,
		     struct sr_modinfo *mi, char *err, size_t errlen)
{
	struct sr_elf e = { .path = path, .image = image, .size = size };
	Elf64_Shdr s;

	memset(mi, 0, sizeof(*mi));
	if (sr_elf_find(&e, ".modinfo", &s, err, errlen))
		return -1;
	/* sr_fits() bounded the size by the image's, so this is sane. */
	mi->data = malloc(s.sh_size + 1);
	if (!mi->data) {
		sr_errf(err, errlen, "%s: out of memory", path);
		return -1;
	}
	memcpy(mi->data, e.image + s.sh_offset, s.sh_size);
	/* So that the last value is a C string even if the file left off its NUL. */
	mi->data[s.sh_size] = '\0';
	mi->size = s.sh_size;
	mi->offset = s.sh_offset;
	mi->elf_type = e.eh.e_type;
	mi->machine = e.eh.e_machine;
	return 0;
}

int sr_section_find(const void *image, size_t size, const char *path, const char *name,
		    uint64_t *off, uint64_t *len, char *err, size_t errlen)
{
	struct sr_elf e = { .path = path, .image = image, .size = size };
	Elf64_Shdr s;

	if (sr_elf_find(&e, name, &s, err, errlen))
		return -1;
	*off = s.sh_offset;
	*len = s.sh_size;
	return 0;
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

int sr_valid_name(const char *name)
{
	size_t i;

	for (i = 0; name[i]; i++) {
		char c = name[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '_'))
			return 0;
	}
	return i > 0 && i <= SR_NAME_MAX;
}

const char *sr_shown(const char *value, char *buf, size_t buflen)
{
	static const char digits[] = "0123456789abcdef";
	size_t used = 0;
	const char *p;

	/* Room for the longest escape and "..." with the NUL. */
	if (buflen < 8)
		return "";
	for (p = value; *p; p++) {
		unsigned char c = (unsigned char)*p;

		if (used + 4 + 4 > buflen) {
			memcpy(buf + used, "...", 3);
			used += 3;
			break;
		}
		if (c >= 0x20 && c < 0x7f && c != '\\') {
			buf[used++] = (char)c;
		} else if (c == '\\') {
			buf[used++] = '\\';
			buf[used++] = '\\';
		} else {
			buf[used++] = '\\';
			buf[used++] = 'x';
			buf[used++] = digits[c >> 4];
			buf[used++] = digits[c & 15];
		}
	}
	buf[used] = '\0';
	return buf;
}
