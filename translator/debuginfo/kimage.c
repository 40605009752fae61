// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The kernel image: /boot/vmlinuz-RELEASE is a bzImage whose payload is the
 * compressed vmlinux ELF (xz on Debian). The ELF still carries the kernel's
 * build-id note and its .BTF section, which is all Tapline needs from it
 * when there is no debuginfo.
 */
#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <lzma.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "debuginfo/kernel.h"
#include "util.h"

/* bzImage header fields (Documentation/x86/boot.rst). */
#define BZ_SETUP_SECTS 0x1f1
#define BZ_HEADER_MAGIC 0x202
#define BZ_PAYLOAD_OFFSET 0x248
#define BZ_PAYLOAD_LENGTH 0x24c

static unsigned le32(const unsigned char *p)
{
	return (unsigned)p[0] | (unsigned)p[1] << 8 | (unsigned)p[2] << 16 | (unsigned)p[3] << 24;
}

static char *xz_decompress(const unsigned char *in, size_t in_len, size_t *out_len)
{
	lzma_stream strm = LZMA_STREAM_INIT;
	if (lzma_stream_decoder(&strm, UINT64_MAX, 0) != LZMA_OK)
		return NULL;
	size_t cap = in_len * 4, len = 0;
	char *out = xmalloc(cap);
	strm.next_in = in;
	strm.avail_in = in_len;
	/* One stream; the kernel appends the decompressed size after it, which
	 * LZMA_STREAM_END leaves unread. */
	lzma_action action = LZMA_RUN;
	for (;;) {
		if (len == cap) {
			cap *= 2;
			out = xrealloc(out, cap);
		}
		strm.next_out = (unsigned char *)out + len;
		strm.avail_out = cap - len;
		if (strm.avail_in == 0)
			action = LZMA_FINISH;
		lzma_ret r = lzma_code(&strm, action);
		len = cap - strm.avail_out;
		if (r == LZMA_STREAM_END)
			break;
		if (r != LZMA_OK) {
			lzma_end(&strm);
			free(out);
			return NULL;
		}
	}
	lzma_end(&strm);
	*out_len = len;
	return out;
}

char *kimage_extract_vmlinux(const char *vmlinuz, size_t *len)
{
	size_t n;
	unsigned char *img = (unsigned char *)read_file(vmlinuz, &n);
	if (!img)
		return NULL;
	char *out = NULL;
	if (n > BZ_PAYLOAD_LENGTH + 4 && !memcmp(img + BZ_HEADER_MAGIC, "HdrS", 4)) {
		size_t setup = (size_t)(img[BZ_SETUP_SECTS] ? img[BZ_SETUP_SECTS] : 4) + 1;
		size_t start = setup * 512 + le32(img + BZ_PAYLOAD_OFFSET);
		size_t plen = le32(img + BZ_PAYLOAD_LENGTH);
		static const unsigned char xz_magic[] = { 0xfd, '7', 'z', 'X', 'Z', 0 };
		if (start + plen <= n && plen > sizeof xz_magic &&
		    !memcmp(img + start, xz_magic, sizeof xz_magic))
			out = xz_decompress(img + start, plen, len);
		else
			errno = ENOTSUP; /* gzip, zstd, lz4...: not needed on Debian yet */
	} else {
		errno = ENOEXEC;
	}
	free(img);
	return out;
}

static Elf *open_mem(const char *elf, size_t len)
{
	elf_version(EV_CURRENT);
	Elf *e = elf_memory((char *)elf, len);
	if (e && elf_kind(e) != ELF_K_ELF) {
		elf_end(e);
		return NULL;
	}
	return e;
}

/* Call fn on each section header with contents in the file; stop when it returns true. */
static bool each_section(const char *elf, size_t len,
			 bool (*fn)(const char *name, const GElf_Shdr *sh, void *ctx), void *ctx)
{
	Elf *e = open_mem(elf, len);
	if (!e)
		return false;
	size_t shstrndx;
	bool stopped = false;
	if (elf_getshdrstrndx(e, &shstrndx) == 0) {
		for (Elf_Scn *scn = NULL; !stopped && (scn = elf_nextscn(e, scn));) {
			GElf_Shdr sh;
			if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS ||
			    sh.sh_offset > len || sh.sh_size > len - sh.sh_offset)
				continue;
			const char *sn = elf_strptr(e, shstrndx, sh.sh_name);
			stopped = fn(sn ? sn : "", &sh, ctx);
		}
	}
	elf_end(e);
	return stopped;
}

struct find_section {
	const char *name;
	uint64_t addr, size; /* by address when name is NULL */
	GElf_Shdr found;
};

static bool match_section(const char *name, const GElf_Shdr *sh, void *ctx)
{
	struct find_section *f = ctx;
	bool hit = f->name ? !strcmp(name, f->name)
			   : (sh->sh_flags & SHF_ALLOC) && f->addr >= sh->sh_addr &&
				     f->addr - sh->sh_addr <= sh->sh_size &&
				     f->size <= sh->sh_size - (f->addr - sh->sh_addr);
	if (hit)
		f->found = *sh;
	return hit;
}

const char *kimage_elf_section_at(const char *elf, size_t len, const char *name, size_t *size,
				  uint64_t *addr)
{
	struct find_section f = { .name = name };
	if (!each_section(elf, len, match_section, &f))
		return NULL;
	*size = f.found.sh_size;
	if (addr)
		*addr = f.found.sh_addr;
	return elf + f.found.sh_offset;
}

const char *kimage_elf_section(const char *elf, size_t len, const char *name, size_t *size)
{
	return kimage_elf_section_at(elf, len, name, size, NULL);
}

const char *kimage_elf_at(const char *elf, size_t len, uint64_t addr, size_t size)
{
	struct find_section f = { .addr = addr, .size = size };
	if (!each_section(elf, len, match_section, &f))
		return NULL;
	return elf + f.found.sh_offset + (addr - f.found.sh_addr);
}

char *kimage_elf_build_id(const char *elf, size_t len)
{
	Elf *e = open_mem(elf, len);
	if (!e)
		return NULL;
	char *hex = NULL;
	for (Elf_Scn *scn = NULL; !hex && (scn = elf_nextscn(e, scn));) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		size_t off = 0, name_off, desc_off;
		GElf_Nhdr nh;
		while (d && (off = gelf_getnote(d, off, &nh, &name_off, &desc_off)) > 0) {
			const char *nm = (const char *)d->d_buf + name_off;
			if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 && !memcmp(nm, "GNU", 4)) {
				const unsigned char *id = (const unsigned char *)d->d_buf + desc_off;
				hex = xmalloc(nh.n_descsz * 2 + 1);
				for (size_t i = 0; i < nh.n_descsz; i++)
					sprintf(hex + 2 * i, "%02x", id[i]);
				break;
			}
		}
	}
	elf_end(e);
	return hex;
}
