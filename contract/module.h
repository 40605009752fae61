/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The module format, as stap writes it and staprun checks it: .modinfo
 * (modinfo.c), the module's checksum of itself and its appended signature
 * (checksum.c), GNU build-ids from ELF notes (notes.c). The translator
 * and staprun link the same code, so the two cannot disagree on where a
 * checksum is or what it covers; the unit tests and the fuzz target link
 * it alone, so it only reads files and buffers.
 *
 * Every function that can fail returns 0 on success and -1 on failure,
 * with a one-line reason (no "staprun:" prefix, no newline) written to the
 * caller's err buffer, so that the caller decides how to present it.
 */
#ifndef TAPLINE_CONTRACT_MODULE_H
#define TAPLINE_CONTRACT_MODULE_H

#include <stddef.h>
#include <sys/types.h>
#include <stdint.h>

#include "sha256.h"

/* Size of the error buffers handed to the functions below. */
#define SR_ERR_MAX 512

/*
 * Longest GNU build-id accepted, in bytes: SHA-1 ids are 20 bytes, and
 * anything beyond this is taken as a corrupt note rather than a real id.
 */
#define SR_BUILD_ID_MAX 64
/* Buffer size for a build-id in lowercase hex with its NUL. */
#define SR_BUILD_ID_HEX (2 * SR_BUILD_ID_MAX + 1)

/* Where the running kernel publishes its ELF notes. */
#define SR_KERNEL_NOTES "/sys/kernel/notes"

/* Longest module name: the kernel's MODULE_NAME_LEN less its NUL. */
#define SR_NAME_MAX 55

/* modinfo.c: the .modinfo section of a module image */

/* Format a reason into ERR (the convention above); ERR may be NULL. */
void sr_errf(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

struct sr_modinfo {
	char *data;		/* a copy of the section's bytes, plus one NUL */
	size_t size;		/* the section's size, without that NUL */
	uint64_t offset;	/* where the section starts in the image */
	unsigned int elf_type;	/* e_type: ET_REL for a kernel module */
	unsigned int machine;	/* e_machine */
};

/*
 * Find .modinfo in the ELF image of SIZE bytes at IMAGE (named PATH in
 * messages) and copy it to MI; free it with sr_modinfo_free().
 */
int sr_modinfo_parse(const void *image, size_t size, const char *path,
		     struct sr_modinfo *mi, char *err, size_t errlen);
/* Where the section NAME of the ELF image is (checked to lie inside it). */
int sr_section_find(const void *image, size_t size, const char *path, const char *name,
		    uint64_t *off, uint64_t *len, char *err, size_t errlen);
/* The value of the first KEY=value entry, or NULL when there is none. */
const char *sr_modinfo_get(const struct sr_modinfo *mi, const char *key);
/* The value of the next entry KEY after the value prev (NULL: the first). */
const char *sr_modinfo_next(const struct sr_modinfo *mi, const char *key, const char *prev);
void sr_modinfo_free(struct sr_modinfo *mi);
/* A name that is safe in /proc/tapline_NAME and that the kernel accepts. */
int sr_valid_name(const char *name);

/* Buffer size for sr_shown(): a value shown in a message. */
#define SR_SHOWN_MAX 160
/*
 * VALUE, from the module, made fit for a message in BUF: bytes that are
 * not printable ASCII written as \xNN, a backslash as \\, and cut with
 * "..." to fit BUFLEN.  Returns BUF.
 */
const char *sr_shown(const char *value, char *buf, size_t buflen);

/* checksum.c: the module's checksum of itself, its appended signature */

/* The .modinfo entry stap fills with the module's SHA-256, in hex. */
#define SR_CHECKSUM_KEY "tapline_sha256"
#define SR_CHECKSUM_DIGITS 64
/* What ends a module the kernel's sign-file signed. */
#define SR_SIG_MAGIC "~Module signature appended~\n"

/*
 * Split a module image of LEN bytes into the module (*CONTENT_LEN bytes)
 * and its appended signature (*SIG_LEN bytes of PKCS#7, 0 when unsigned).
 * A damaged trailer is an error.
 */
int sr_signature_split(const unsigned char *image, size_t len, size_t *content_len,
		       size_t *sig_len, const char *path, char *err, size_t errlen);
/*
 * Where the checksum's 64 hex digits are in the image, from .modinfo: the
 * one SR_CHECKSUM_KEY entry, which must hold exactly 64 lowercase hex digits.
 */
int sr_checksum_locate(const struct sr_modinfo *mi, uint64_t *at, const char *path,
		       char *err, size_t errlen);
/*
 * The same found among the raw bytes, for an image whose structure is too
 * damaged to find .modinfo: 0 when exactly one entry is there.
 */
int sr_checksum_find_raw(const unsigned char *image, size_t len, uint64_t *at);
/* SHA-256 of LEN bytes with the 64 at AT taken as '0's, in hex. */
void sr_checksum_compute(const unsigned char *image, size_t len, uint64_t at,
			 char hex[SHA256_HEX]);
/* Do the 64 digits at AT hold the checksum of the image's LEN bytes? */
int sr_checksum_matches(const unsigned char *image, size_t len, uint64_t at);

/* notes.c: GNU build-ids from ELF note buffers */

/*
 * Walk the ELF notes in BUF and write the descriptor of the first GNU
 * build-id note (name "GNU", type 3) to HEX as lowercase hex.
 */
int sr_notes_build_id(const void *buf, size_t len, char *hex, size_t hexlen,
		      char *err, size_t errlen);
/* Read a whole (possibly sysfs or proc) file, at most MAX bytes. */
int sr_read_file(const char *path, size_t max, char **buf, size_t *len,
		 char *err, size_t errlen);
/*
 * The GNU build-id from a file of notes: SR_KERNEL_NOTES, or
 * /sys/module/NAME/notes/.note.gnu.build-id.
 */
int sr_file_build_id(const char *path, char *hex, size_t hexlen, char *err,
		     size_t errlen);

#endif
