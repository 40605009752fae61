// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The checksum a Tapline module carries of itself, and the signature the
 * kernel's sign-file may have appended after it.
 *
 * stap builds the module with a .modinfo entry tapline_sha256= followed by
 * 64 '0' characters, then hashes the whole finished file (zeros and all)
 * with SHA-256 and writes the digest over the zeros.  staprun hashes the
 * bytes it is about to load the same way, with those 64 characters taken
 * as '0's again, and refuses the module when the digests differ: a byte
 * changed anywhere since stap wrote it (a disk, a copy, an edit) would
 * otherwise go into the kernel.  It is a check against damage, not a
 * signature: anyone can recompute it.
 *
 * Signing comes after the checksum, so a signed file is the checksummed
 * module, then the PKCS#7 signature, then struct module_signature (its
 * length), then the magic string; that trailer is left out of the hash.
 */
#include "module.h"

#include <stdio.h>
#include <string.h>

/* The kernel's struct module_signature, which ends a signed module. */
struct sr_module_signature {
	uint8_t algo;		/* 0: given by the PKCS#7 data */
	uint8_t hash;		/* 0: likewise */
	uint8_t id_type;	/* 2: PKCS#7 */
	uint8_t signer_len;	/* 0 */
	uint8_t key_id_len;	/* 0 */
	uint8_t pad[3];
	uint8_t sig_len[4];	/* the signature's length, big-endian */
};

#define SR_SIG_ID_PKCS7 2

int sr_signature_split(const unsigned char *image, size_t len, size_t *content_len,
		       size_t *sig_len, const char *path, char *err, size_t errlen)
{
	const size_t magic_len = sizeof(SR_SIG_MAGIC) - 1;
	struct sr_module_signature ms;
	size_t trailer = magic_len + sizeof(ms);
	uint32_t n;

	*content_len = len;
	*sig_len = 0;
	if (len < magic_len || memcmp(image + len - magic_len, SR_SIG_MAGIC, magic_len) != 0)
		return 0;	/* not signed */
	if (len < trailer) {
		sr_errf(err, errlen,
			"%s: the module is damaged: it ends with the signature marker but is too short to hold a signature; rebuild it",
			path);
		return -1;
	}
	memcpy(&ms, image + len - trailer, sizeof(ms));
	n = (uint32_t)ms.sig_len[0] << 24 | (uint32_t)ms.sig_len[1] << 16 |
	    (uint32_t)ms.sig_len[2] << 8 | ms.sig_len[3];
	/* What the kernel accepts (its mod_check_sig()), and no more. */
	if (ms.id_type != SR_SIG_ID_PKCS7 || ms.algo || ms.hash || ms.signer_len ||
	    ms.key_id_len || ms.pad[0] || ms.pad[1] || ms.pad[2]) {
		sr_errf(err, errlen,
			"%s: the module is damaged: its appended signature is not the kernel's PKCS#7 kind (id type %u); rebuild and sign it again",
			path, ms.id_type);
		return -1;
	}
	if (n == 0 || n > len - trailer) {
		sr_errf(err, errlen,
			"%s: the module is damaged: its appended signature claims %u bytes of a %zu-byte file; rebuild and sign it again",
			path, n, len);
		return -1;
	}
	*sig_len = n;
	*content_len = len - trailer - n;
	return 0;
}

/* Are the LEN bytes at P a checksum as stap writes it: lowercase hex? */
static int sr_is_digest(const char *p, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (!((p[i] >= '0' && p[i] <= '9') || (p[i] >= 'a' && p[i] <= 'f')))
			return 0;
	return 1;
}

int sr_checksum_locate(const struct sr_modinfo *mi, uint64_t *at, const char *path,
		       char *err, size_t errlen)
{
	const char *v = sr_modinfo_get(mi, SR_CHECKSUM_KEY);

	if (!v) {
		sr_errf(err, errlen,
			"%s: has no checksum (no " SR_CHECKSUM_KEY " in .modinfo): it was built by an older stap, or it is damaged; rebuild it with this stap",
			path);
		return -1;
	}
	if (strlen(v) != SR_CHECKSUM_DIGITS || !sr_is_digest(v, SR_CHECKSUM_DIGITS)) {
		sr_errf(err, errlen,
			"%s: the module is damaged: its recorded checksum is not %d hex digits; rebuild it",
			path, SR_CHECKSUM_DIGITS);
		return -1;
	}
	if (sr_modinfo_next(mi, SR_CHECKSUM_KEY, v)) {
		sr_errf(err, errlen,
			"%s: the module is damaged: it records more than one checksum; rebuild it",
			path);
		return -1;
	}
	*at = mi->offset + (uint64_t)(v - mi->data);
	return 0;
}

int sr_checksum_find_raw(const unsigned char *image, size_t len, uint64_t *at)
{
	static const char key[] = SR_CHECKSUM_KEY "=";
	const size_t klen = sizeof(key) - 1;
	const unsigned char *p = image, *end = image + len;
	int found = 0;

	while ((p = memmem(p, (size_t)(end - p), key, klen)) != NULL) {
		const unsigned char *d = p + klen;

		p++;
		/* Digits, then the entry's NUL, inside the image. */
		if ((size_t)(end - d) <= SR_CHECKSUM_DIGITS || d[SR_CHECKSUM_DIGITS] != '\0' ||
		    !sr_is_digest((const char *)d, SR_CHECKSUM_DIGITS))
			continue;
		*at = (uint64_t)(d - image);
		found++;
	}
	return found == 1 ? 0 : -1;
}

void sr_checksum_compute(const unsigned char *image, size_t len, uint64_t at,
			 char hex[SHA256_HEX])
{
	static const char zeros[SR_CHECKSUM_DIGITS + 1] =
		"0000000000000000000000000000000000000000000000000000000000000000";
	unsigned char digest[SHA256_BYTES];
	struct sha256 c;

	/* The caller located AT inside the image: at + 64 <= len. */
	sha256_init(&c);
	sha256_update(&c, image, (size_t)at);
	sha256_update(&c, zeros, SR_CHECKSUM_DIGITS);
	sha256_update(&c, image + at + SR_CHECKSUM_DIGITS, len - (size_t)at - SR_CHECKSUM_DIGITS);
	sha256_final(&c, digest);
	sha256_to_hex(digest, hex);
}

int sr_checksum_matches(const unsigned char *image, size_t len, uint64_t at)
{
	char hex[SHA256_HEX];

	if (at > len || len - at < SR_CHECKSUM_DIGITS)
		return 0;
	sr_checksum_compute(image, len, at, hex);
	return memcmp(hex, image + at, SR_CHECKSUM_DIGITS) == 0;
}
