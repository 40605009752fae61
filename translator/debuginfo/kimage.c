// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The kernel image: /boot/vmlinuz-RELEASE is a bzImage whose payload is the
 * compressed vmlinux ELF (xz on Debian; zstd, gzip or lz4 elsewhere). The ELF still carries the kernel's
 * build-id note and its .BTF section, which is all Tapline needs from it
 * when there is no debuginfo.
 */
#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <lz4.h>
#include <lzma.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>

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

static char *gzip_decompress(const unsigned char *in, size_t in_len, size_t *out_len)
{
	z_stream z = { 0 };
	if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) /* 16: a gzip header */
		return NULL;
	size_t cap = in_len * 4, len = 0;
	char *out = xmalloc(cap);
	z.next_in = (Bytef *)in;
	z.avail_in = (uInt)in_len;
	for (;;) {
		if (len == cap) {
			cap *= 2;
			out = xrealloc(out, cap);
		}
		z.next_out = (Bytef *)out + len;
		z.avail_out = (uInt)(cap - len);
		int r = inflate(&z, Z_NO_FLUSH);
		len = cap - z.avail_out;
		if (r == Z_STREAM_END)
			break;
		if (r != Z_OK) {
			inflateEnd(&z);
			free(out);
			return NULL;
		}
	}
	inflateEnd(&z);
	*out_len = len;
	return out;
}

static char *zstd_decompress(const unsigned char *in, size_t in_len, size_t *out_len)
{
	ZSTD_DStream *z = ZSTD_createDStream();
	if (!z)
		return NULL;
	ZSTD_initDStream(z);
	size_t cap = in_len * 4;
	char *out = xmalloc(cap);
	ZSTD_inBuffer ib = { in, in_len, 0 };
	ZSTD_outBuffer ob = { out, cap, 0 };
	for (;;) {
		if (ob.pos == ob.size) {
			cap *= 2;
			out = xrealloc(out, cap);
			ob.dst = out;
			ob.size = cap;
		}
		size_t r = ZSTD_decompressStream(z, &ob, &ib);
		if (ZSTD_isError(r) || (r != 0 && ib.pos == ib.size && ob.pos < ob.size)) {
			ZSTD_freeDStream(z);
			free(out);
			return NULL;
		}
		if (r == 0)
			break; /* the frame is complete; the kernel's size trailer follows */
	}
	ZSTD_freeDStream(z);
	*out_len = ob.pos;
	return out;
}

/* lz4's legacy format, as the kernel builds use it (lz4 -l): a magic, then
 * blocks each with a 32-bit compressed size, each decompressing to at most
 * 8 MiB. The kernel appends its own 32-bit size after the last block. */
static char *lz4_decompress(const unsigned char *in, size_t in_len, size_t *out_len)
{
	const size_t block_max = 8 << 20;
	size_t at = 4, len = 0, cap = 0;
	char *out = NULL;
	while (at + 4 <= in_len) {
		size_t n = le32(in + at);
		if (n == 0x184c2102) { /* another stream's magic: concatenated */
			at += 4;
			continue;
		}
		if (n == 0 || n > in_len - at - 4)
			break; /* the size trailer, or the end */
		if (cap - len < block_max) {
			cap = cap ? 2 * cap : 4 * block_max;
			out = xrealloc(out, cap);
		}
		int got = LZ4_decompress_safe((const char *)in + at + 4, out + len, (int)n,
					      (int)block_max);
		if (got < 0) {
			free(out);
			return NULL;
		}
		len += (size_t)got;
		at += 4 + n;
	}
	if (!len) {
		free(out);
		return NULL;
	}
	*out_len = len;
	return out;
}

/* The payload's compression, by its magic number. */
static const struct {
	const char *name;
	unsigned char magic[6];
	size_t magic_len;
	char *(*decompress)(const unsigned char *in, size_t in_len, size_t *out_len);
} payload_formats[] = {
	{ "xz", { 0xfd, '7', 'z', 'X', 'Z', 0 }, 6, xz_decompress },
	{ "zstd", { 0x28, 0xb5, 0x2f, 0xfd }, 4, zstd_decompress },
	{ "gzip", { 0x1f, 0x8b }, 2, gzip_decompress },
	{ "lz4", { 0x02, 0x21, 0x4c, 0x18 }, 4, lz4_decompress },
};

char *kimage_extract_vmlinux(const char *vmlinuz, size_t *len)
{
	size_t n;
	unsigned char *img = (unsigned char *)read_file(vmlinuz, &n);
	if (!img)
		return NULL;
	char *out = kimage_unpack(img, n, len);
	int saved = errno;
	free(img);
	errno = saved;
	return out;
}

char *kimage_unpack(const unsigned char *img, size_t n, size_t *len)
{
	if (n <= BZ_PAYLOAD_LENGTH + 4 || memcmp(img + BZ_HEADER_MAGIC, "HdrS", 4)) {
		errno = ENOEXEC;
		return NULL;
	}
	size_t setup = (size_t)(img[BZ_SETUP_SECTS] ? img[BZ_SETUP_SECTS] : 4) + 1;
	size_t start = setup * 512 + le32(img + BZ_PAYLOAD_OFFSET);
	size_t plen = le32(img + BZ_PAYLOAD_LENGTH);
	if (start > n || plen > n - start) {
		errno = EINVAL; /* the header points past the file: truncated */
		return NULL;
	}
	for (size_t i = 0; i < sizeof payload_formats / sizeof *payload_formats; i++) {
		if (plen <= payload_formats[i].magic_len ||
		    memcmp(img + start, payload_formats[i].magic, payload_formats[i].magic_len))
			continue;
		char *out = payload_formats[i].decompress(img + start, plen, len);
		if (!out)
			errno = EBADMSG; /* a corrupted payload */
		return out;
	}
	errno = ENOTSUP; /* bzip2, lzma, lzo: not read here */
	return NULL;
}

char *kimage_decompress(const unsigned char *in, size_t n, size_t *len)
{
	for (size_t i = 0; i < sizeof payload_formats / sizeof *payload_formats; i++)
		if (n > payload_formats[i].magic_len &&
		    !memcmp(in, payload_formats[i].magic, payload_formats[i].magic_len))
			return payload_formats[i].decompress(in, n, len);
	errno = ENOTSUP;
	return NULL;
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
				hex = hex_string(id, nh.n_descsz);
				break;
			}
		}
	}
	elf_end(e);
	return hex;
}
