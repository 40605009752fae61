// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target for everything staprun does to a module file before it
 * loads it: the signature trailer, the ELF and .modinfo parsing, the
 * checksum, the type, machine and name checks (sr_module_check), then what
 * main() reads from .modinfo next (the kernel build-id, each probed
 * module's NAME:HEX, the version) and how it shows those values.
 *
 * A mutated module almost never has a checksum that matches, which would
 * stop every input at the checksum; so each input runs twice: as it is, and
 * with its checksum made right (when one can be found), which takes it
 * through the checks after the checksum. Nothing may crash or trip a
 * sanitizer, a module with its checksum made right must not be called
 * damaged for its checksum, and no message may carry a control character
 * from the input.
 */
#include "staprun.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Abort (a crash libFuzzer records) when a message shows raw input bytes. */
static void assert_printable(const char *what, const char *msg)
{
	const char *p;

	for (p = msg; *p; p++)
		if ((unsigned char)*p < 0x20 || (unsigned char)*p >= 0x7f) {
			fprintf(stderr, "staprun-fuzz: a control byte 0x%02x in %s: %s\n",
				(unsigned char)*p, what, msg);
			abort();
		}
}

/* The .modinfo values main() reads after the checks, shown as it shows them. */
static void read_values(const struct sr_modinfo *mi)
{
	char shown[SR_SHOWN_MAX];
	const char *v, *entry = NULL;

	v = sr_modinfo_get(mi, "tapline_kernel_build_id");
	if (v) {
		(void)strcasecmp(v, "0123456789abcdef0123456789abcdef01234567");
		assert_printable("a build-id", sr_shown(v, shown, sizeof(shown)));
	}
	v = sr_modinfo_get(mi, "tapline_version");
	if (v)
		assert_printable("a version", sr_shown(v, shown, sizeof(shown)));
	while ((entry = sr_modinfo_next(mi, "tapline_module_build_id", entry)) != NULL) {
		const char *colon = strchr(entry, ':');
		char name[SR_NAME_MAX + 1];

		if (!colon || (size_t)(colon - entry) > SR_NAME_MAX)
			continue;
		snprintf(name, sizeof(name), "%.*s", (int)(colon - entry), entry);
		assert_printable("a module name", sr_shown(name, shown, sizeof(shown)));
		assert_printable("a module build-id", sr_shown(colon + 1, shown, sizeof(shown)));
	}
}

/* staprun's checks on exactly SIZE bytes (a copy, so that overreads show). */
static int check(const uint8_t *data, size_t size, char *err, size_t errlen)
{
	struct sr_module m;
	int ret;

	memset(&m, 0, sizeof(m));
	m.path = "fuzz.ko";
	m.size = size;
	m.image = malloc(size ? size : 1);
	if (!m.image)
		return -1;
	memcpy(m.image, data, size);
	err[0] = '\0';
	ret = sr_module_check(&m, err, errlen);
	assert_printable("an error", err);
	if (ret == 0)
		read_values(&m.mi);
	sr_module_free(&m);
	return ret;
}

/* Where .modinfo says the checksum of an image is, or -1. */
static int64_t checksum_at(const uint8_t *data, size_t size, size_t *content)
{
	struct sr_modinfo mi;
	uint64_t at;
	size_t sig;
	int found;

	if (sr_signature_split(data, size, content, &sig, "fuzz.ko", NULL, 0) ||
	    sr_modinfo_parse(data, *content, "fuzz.ko", &mi, NULL, 0))
		return -1;
	found = sr_checksum_locate(&mi, &at, "fuzz.ko", NULL, 0) == 0;
	sr_modinfo_free(&mi);
	return found ? (int64_t)at : -1;
}

/*
 * The input with its checksum made right, as stap would have written it;
 * *STABLE when the digits written change nothing about where they are
 * found (in a hostile file .modinfo may overlap the headers).
 */
static uint8_t *resealed(const uint8_t *data, size_t size, int *stable)
{
	char hex[SHA256_HEX];
	size_t content, again;
	int64_t at = checksum_at(data, size, &content);
	uint8_t *copy;

	if (at < 0 || !(copy = malloc(size)))
		return NULL;
	memcpy(copy, data, size);
	sr_checksum_compute(copy, content, (uint64_t)at, hex);
	memcpy(copy + at, hex, SR_CHECKSUM_DIGITS);
	*stable = checksum_at(copy, size, &again) == at && again == content;
	return copy;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* The start of the message: the input's bytes may come later in one. */
	static const char damaged[] = "fuzz.ko: the module is damaged: its checksum does not match";
	char err[SR_ERR_MAX];
	uint8_t *copy;
	int stable = 0;

	check(data, size, err, sizeof(err));
	copy = resealed(data, size, &stable);
	if (copy) {
		if (check(copy, size, err, sizeof(err)) && stable &&
		    strncmp(err, damaged, strlen(damaged)) == 0) {
			fprintf(stderr, "staprun-fuzz: resealed, yet: %s\n", err);
			abort();
		}
		free(copy);
	}
	return 0;
}
