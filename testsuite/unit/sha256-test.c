// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for contract/sha256.c against known digests: FIPS 180-4's
 * examples (NIST's "abc", the two-block messages, a million 'a's) and
 * messages whose lengths sit on either side of the padding's boundaries
 * (55/56 bytes: the length still fits in the last block or not; 63/64/65:
 * a whole block), computed with another implementation.  Feeding the same
 * message in pieces of every size must give the same digest.
 */
#include "contract/sha256.h"

#include <stdlib.h>
#include <string.h>

#include "tap.h"

static void expect(const void *data, size_t len, const char *want, const char *what)
{
	char hex[SHA256_HEX];

	sha256_hex(data, len, hex);
	if (!tap_check(strcmp(hex, want) == 0, "%s", what))
		printf("#   got  %s\n#   want %s\n", hex, want);
}

/* The digest of LEN bytes fed STEP bytes at a time. */
static void digest_in_steps(const unsigned char *data, size_t len, size_t step,
			    char hex[SHA256_HEX])
{
	unsigned char digest[SHA256_BYTES];
	struct sha256 c;
	size_t i;

	sha256_init(&c);
	for (i = 0; i < len; i += step)
		sha256_update(&c, data + i, len - i < step ? len - i : step);
	sha256_final(&c, digest);
	sha256_to_hex(digest, hex);
}

int main(void)
{
	static const struct {
		size_t n;
		const char *hex;
	} as[] = {
		{ 55, "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318" },
		{ 56, "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a" },
		{ 63, "7d3e74a05d7db15bce4ad9ec0658ea98e3f06eeecf16b4c6fff2da457ddc2f34" },
		{ 64, "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb" },
		{ 65, "635361c48bb9eab14198e76ea8ab7f1a41685d6ad62aa9146d301d4f17eb0ae0" },
		{ 119, "31eba51c313a5c08226adf18d4a359cfdfd8d2e816b13f4af952f7ea6584dcfb" },
		{ 120, "2f3d335432c70b580af0e8e1b3674a7c020d683aa5f73aaaedfdc55af904c21c" },
	};
	unsigned char bytes[256], *million;
	char one[SHA256_HEX], hex[SHA256_HEX];
	size_t i, step, len;
	int same;

	expect("", 0, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
	       "the empty message");
	expect("abc", 3, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
	       "\"abc\" (FIPS 180-4 example, one block)");
	expect("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", 56,
	       "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1",
	       "the 448-bit message (FIPS 180-4 example, two blocks)");
	expect("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
	       112, "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1",
	       "the 896-bit message");
	expect("The quick brown fox jumps over the lazy dog", 43,
	       "d7a8fbb307d7809469ca9abcb0082e4f8d5651e46d3cdb762d02d0bf37c9e592",
	       "the quick brown fox");
	million = malloc(1000000);
	if (!million)
		return 1;
	memset(million, 'a', 1000000);
	expect(million, 1000000, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0",
	       "a million 'a's");
	for (i = 0; i < sizeof(as) / sizeof(as[0]); i++) {
		char what[64];

		snprintf(what, sizeof(what), "%zu 'a's (a padding boundary)", as[i].n);
		expect(million, as[i].n, as[i].hex, what);
	}
	for (i = 0; i < sizeof(bytes); i++)
		bytes[i] = (unsigned char)i;
	expect(bytes, sizeof(bytes),
	       "40aff2e9d2d8922e47afd4648e6967497158785fbd1da870e7110266bf944880",
	       "the bytes 0 to 255 (every byte value, high bits included)");

	/* Pieces of 1 to 130 bytes, for messages of 0 to 200 bytes. */
	same = 1;
	for (len = 0; len <= 200 && same; len++) {
		sha256_hex(bytes, len, one);
		for (step = 1; step <= 130 && same; step++) {
			digest_in_steps(bytes, len, step, hex);
			if (strcmp(hex, one) != 0) {
				printf("#   %zu bytes in pieces of %zu: %s, not %s\n", len, step, hex, one);
				same = 0;
			}
		}
	}
	tap_check(same, "any split of the message into pieces gives the same digest");
	digest_in_steps(million, 1000000, 4099, hex);
	tap_check(strcmp(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0") == 0,
		  "a million 'a's in pieces of 4099 bytes");
	free(million);
	return tap_done();
}
