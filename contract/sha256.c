// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * SHA-256 as FIPS 180-4 defines it (section 6.2), written for reading:
 * the message is taken in 64-byte blocks, each expanded into a schedule of
 * 64 words and mixed into eight working words by 64 rounds.  The last
 * block is padded with a 1 bit, zeros, and the message length in bits as a
 * big-endian 64-bit number.  Speed is not the point (a module is a few
 * MiB, hashed once), clarity and no dependencies are.
 */
#include "sha256.h"

#include <string.h>

/* The first 32 bits of the fractional parts of the cube roots of the
 * first 64 primes (FIPS 180-4, 4.2.2). */
static const uint32_t sha256_k[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
	0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
	0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
	0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
	0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
	0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

static uint32_t rotr(uint32_t x, unsigned int n)
{
	return (x >> n) | (x << (32 - n));
}

/* The functions of FIPS 180-4, 4.1.2. */
static uint32_t ch(uint32_t x, uint32_t y, uint32_t z) { return (x & y) ^ (~x & z); }
static uint32_t maj(uint32_t x, uint32_t y, uint32_t z) { return (x & y) ^ (x & z) ^ (y & z); }
static uint32_t big_sigma0(uint32_t x) { return rotr(x, 2) ^ rotr(x, 13) ^ rotr(x, 22); }
static uint32_t big_sigma1(uint32_t x) { return rotr(x, 6) ^ rotr(x, 11) ^ rotr(x, 25); }
static uint32_t small_sigma0(uint32_t x) { return rotr(x, 7) ^ rotr(x, 18) ^ (x >> 3); }
static uint32_t small_sigma1(uint32_t x) { return rotr(x, 17) ^ rotr(x, 19) ^ (x >> 10); }

static uint32_t load_be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void store_be32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)(v >> 24);
	p[1] = (unsigned char)(v >> 16);
	p[2] = (unsigned char)(v >> 8);
	p[3] = (unsigned char)v;
}

/* Mix one 64-byte block into the hash value (FIPS 180-4, 6.2.2). */
static void sha256_block(struct sha256 *ctx, const unsigned char *block)
{
	uint32_t w[64], a, b, c, d, e, f, g, h, t1, t2;
	int t;

	for (t = 0; t < 16; t++)
		w[t] = load_be32(block + 4 * t);
	for (t = 16; t < 64; t++)
		w[t] = small_sigma1(w[t - 2]) + w[t - 7] + small_sigma0(w[t - 15]) + w[t - 16];
	a = ctx->h[0], b = ctx->h[1], c = ctx->h[2], d = ctx->h[3];
	e = ctx->h[4], f = ctx->h[5], g = ctx->h[6], h = ctx->h[7];
	for (t = 0; t < 64; t++) {
		t1 = h + big_sigma1(e) + ch(e, f, g) + sha256_k[t] + w[t];
		t2 = big_sigma0(a) + maj(a, b, c);
		h = g, g = f, f = e, e = d + t1;
		d = c, c = b, b = a, a = t1 + t2;
	}
	ctx->h[0] += a, ctx->h[1] += b, ctx->h[2] += c, ctx->h[3] += d;
	ctx->h[4] += e, ctx->h[5] += f, ctx->h[6] += g, ctx->h[7] += h;
}

void sha256_init(struct sha256 *c)
{
	/* The first 32 bits of the fractional parts of the square roots of
	 * the first 8 primes (FIPS 180-4, 5.3.3). */
	static const uint32_t h0[8] = {
		0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
		0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
	};

	memcpy(c->h, h0, sizeof(h0));
	c->length = 0;
	c->used = 0;
}

void sha256_update(struct sha256 *c, const void *data, size_t len)
{
	const unsigned char *p = data;

	c->length += len;
	while (len) {
		size_t n = sizeof(c->block) - c->used;

		if (c->used == 0 && len >= sizeof(c->block)) {
			/* Whole blocks straight from the input. */
			sha256_block(c, p);
			p += sizeof(c->block);
			len -= sizeof(c->block);
			continue;
		}
		if (n > len)
			n = len;
		memcpy(c->block + c->used, p, n);
		c->used += n;
		p += n;
		len -= n;
		if (c->used == sizeof(c->block)) {
			sha256_block(c, c->block);
			c->used = 0;
		}
	}
}

void sha256_final(struct sha256 *c, unsigned char digest[SHA256_BYTES])
{
	uint64_t bits = c->length * 8;
	int i;

	/* A 1 bit, then zeros up to 8 bytes short of a block's end. */
	c->block[c->used++] = 0x80;
	if (c->used > sizeof(c->block) - 8) {
		memset(c->block + c->used, 0, sizeof(c->block) - c->used);
		sha256_block(c, c->block);
		c->used = 0;
	}
	memset(c->block + c->used, 0, sizeof(c->block) - 8 - c->used);
	/* The length in bits, big-endian. */
	store_be32(c->block + 56, (uint32_t)(bits >> 32));
	store_be32(c->block + 60, (uint32_t)bits);
	sha256_block(c, c->block);
	for (i = 0; i < 8; i++)
		store_be32(digest + 4 * i, c->h[i]);
	memset(c, 0, sizeof(*c));
}

void sha256_to_hex(const unsigned char digest[SHA256_BYTES], char hex[SHA256_HEX])
{
	static const char digits[] = "0123456789abcdef";
	int i;

	for (i = 0; i < SHA256_BYTES; i++) {
		hex[2 * i] = digits[digest[i] >> 4];
		hex[2 * i + 1] = digits[digest[i] & 15];
	}
	hex[2 * SHA256_BYTES] = '\0';
}

void sha256_hex(const void *data, size_t len, char hex[SHA256_HEX])
{
	unsigned char digest[SHA256_BYTES];
	struct sha256 c;

	sha256_init(&c);
	sha256_update(&c, data, len);
	sha256_final(&c, digest);
	sha256_to_hex(digest, hex);
}
