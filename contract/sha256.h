// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * SHA-256 (FIPS 180-4), for the checksum a Tapline module carries of
 * itself.  staprun is static and libc-only, so it has its own; the
 * translator, which writes the checksum, links the same file.
 */
#ifndef TAPLINE_SHA256_H
#define TAPLINE_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define SHA256_BYTES 32
/* A digest in lowercase hex, with its NUL. */
#define SHA256_HEX (2 * SHA256_BYTES + 1)

struct sha256 {
	uint32_t h[8];			/* the running hash value */
	uint64_t length;		/* bytes hashed so far */
	unsigned char block[64];	/* input waiting for a whole block */
	size_t used;			/* bytes of block in use */
};

void sha256_init(struct sha256 *c);
void sha256_update(struct sha256 *c, const void *data, size_t len);
void sha256_final(struct sha256 *c, unsigned char digest[SHA256_BYTES]);
/* The digest of LEN bytes at DATA, as lowercase hex. */
void sha256_hex(const void *data, size_t len, char hex[SHA256_HEX]);
void sha256_to_hex(const unsigned char digest[SHA256_BYTES], char hex[SHA256_HEX]);

#endif /* TAPLINE_SHA256_H */
