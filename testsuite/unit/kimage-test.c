// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for the kernel image reader (translator/debuginfo/kimage.c):
 * bzImages built here around a payload compressed with each of xz, zstd,
 * gzip and lz4 (legacy frames, as kernel builds make them, with the
 * kernel's 4-byte size trailer) unpack to the same bytes; a truncated
 * image, an unknown compression and corrupted payloads are refused, never
 * read past their end (run it under the sanitizers to see the latter).
 */
#include <errno.h>
#include <lz4.h>
#include <lzma.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>

#include "debuginfo/kernel.h"
#include "tap.h"

#define PM_START 1024     /* (setup_sects 1 + 1) * 512 */
#define PAYLOAD_AT 0x100  /* from PM_START */

static void put32(unsigned char *p, size_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

/* A bzImage around payload (followed by the kernel's size trailer). */
static unsigned char *bzimage(const unsigned char *payload, size_t plen, size_t raw_len,
			      size_t *n)
{
	*n = PM_START + PAYLOAD_AT + plen + 4 + 64;
	unsigned char *img = calloc(1, *n);
	img[0x1f1] = 1;
	memcpy(img + 0x202, "HdrS", 4);
	put32(img + 0x248, PAYLOAD_AT);
	put32(img + 0x24c, plen + 4);
	memcpy(img + PM_START + PAYLOAD_AT, payload, plen);
	put32(img + PM_START + PAYLOAD_AT + plen, raw_len);
	return img;
}

static unsigned char *xz(const unsigned char *in, size_t n, size_t *out_n)
{
	size_t cap = n + n / 2 + 4096;
	unsigned char *out = malloc(cap);
	*out_n = 0;
	lzma_easy_buffer_encode(1, LZMA_CHECK_CRC32, NULL, in, n, out, out_n, cap);
	return out;
}

static unsigned char *zst(const unsigned char *in, size_t n, size_t *out_n)
{
	size_t cap = ZSTD_compressBound(n);
	unsigned char *out = malloc(cap);
	*out_n = ZSTD_compress(out, cap, in, n, 3);
	return out;
}

static unsigned char *gz(const unsigned char *in, size_t n, size_t *out_n)
{
	z_stream z = { 0 };
	deflateInit2(&z, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY);
	size_t cap = deflateBound(&z, n) + 64;
	unsigned char *out = malloc(cap);
	z.next_in = (Bytef *)in;
	z.avail_in = (uInt)n;
	z.next_out = out;
	z.avail_out = (uInt)cap;
	deflate(&z, Z_FINISH);
	*out_n = cap - z.avail_out;
	deflateEnd(&z);
	return out;
}

static unsigned char *lz4_legacy(const unsigned char *in, size_t n, size_t *out_n)
{
	const size_t block = 8 << 20;
	size_t cap = 4 + (n / block + 1) * (4 + (size_t)LZ4_compressBound((int)block));
	unsigned char *out = malloc(cap);
	put32(out, 0x184c2102);
	size_t at = 4;
	for (size_t done = 0; done < n; done += block) {
		size_t chunk = n - done < block ? n - done : block;
		int c = LZ4_compress_default((const char *)in + done, (char *)out + at + 4, (int)chunk,
					     LZ4_compressBound((int)chunk));
		put32(out + at, (size_t)c);
		at += 4 + (size_t)c;
	}
	*out_n = at;
	return out;
}

int main(void)
{
	/* 9 MiB of a vmlinux-like mixture: runs, text and noise (two lz4 blocks). */
	size_t raw_len = 9 << 20;
	unsigned char *raw = malloc(raw_len);
	unsigned x = 12345;
	for (size_t i = 0; i < raw_len; i++) {
		x = x * 1103515245 + 12345;
		raw[i] = (i / 4096) % 3 == 0 ? (unsigned char)(x >> 24) : (unsigned char)("ELF kernel "[i % 11]);
	}
	static const struct {
		const char *name;
		unsigned char *(*compress)(const unsigned char *, size_t, size_t *);
	} formats[] = { { "xz", xz }, { "zstd", zst }, { "gzip", gz }, { "lz4", lz4_legacy } };
	for (size_t f = 0; f < sizeof formats / sizeof *formats; f++) {
		size_t plen, n, len = 0;
		unsigned char *payload = formats[f].compress(raw, raw_len, &plen);
		unsigned char *img = bzimage(payload, plen, raw_len, &n);
		char *out = kimage_unpack(img, n, &len);
		tap_check(out && len == raw_len && !memcmp(out, raw, raw_len),
			  "%s: a %zu-byte payload unpacks to the %zu bytes packed", formats[f].name, plen,
			  raw_len);
		free(out);

		/* The header says the payload runs past the end of the file. */
		out = kimage_unpack(img, PM_START + PAYLOAD_AT + plen / 2, &len);
		tap_check(!out && errno == EINVAL, "%s: a truncated image is refused (EINVAL)",
			  formats[f].name);
		free(out);

		/* Bytes flipped through the payload: refused, or read within bounds. */
		int refused = 0, read = 0;
		for (size_t at = 8; at < plen; at += plen / 23 + 1) {
			unsigned char *bad = malloc(n);
			memcpy(bad, img, n);
			bad[PM_START + PAYLOAD_AT + at] ^= 0x5a;
			out = kimage_unpack(bad, n, &len);
			if (out)
				read++;
			else
				refused++;
			free(out);
			free(bad);
		}
		tap_check(refused > 0, "%s: corrupted payloads: %d refused, %d read, none crashed",
			  formats[f].name, refused, read);
		free(img);
		free(payload);
	}
	size_t n, len;
	unsigned char junk[16] = "BZh91AY&SY......"; /* bzip2: not read */
	unsigned char *img = bzimage(junk, sizeof junk, 16, &n);
	char *out = kimage_unpack(img, n, &len);
	tap_check(!out && errno == ENOTSUP, "a bzip2 payload is refused as unsupported (ENOTSUP)");
	free(out);
	memset(img + 0x202, 0, 4);
	out = kimage_unpack(img, n, &len);
	tap_check(!out && errno == ENOEXEC, "a file without the bzImage header is refused (ENOEXEC)");
	free(out);
	free(img);
	free(raw);
	return tap_done();
}
