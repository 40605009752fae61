// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for what staprun checks in a module file before it loads it
 * (module.c, checksum.c), for how it shows module values in messages
 * (sr_shown) and for how it reads the kernel's load policy (loadpolicy.c).
 *
 * The module is synthetic and small: an ELF header, a .modinfo section, a
 * section name table and three section headers, given its checksum by the
 * same code stap uses.  Being small, every one of its bytes can be flipped
 * in turn (`module-test --seed FILE` writes it, for make fuzz-staprun).
 */
#include "staprun.h"

#include <elf.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tap.h"

/* A synthetic module of LEN bytes in IMAGE. */
struct image {
	unsigned char buf[4096];
	size_t len;
};

static const char good_modinfo[] =
	"name=unit_mod\0"
	"\0\0tapline_kernel_build_id=0123456789abcdef0123456789abcdef01234567\0"
	"tapline_version=9.8.7\0"
	"tapline_sha256=0000000000000000000000000000000000000000000000000000000000000000";

/* An ELF64 relocatable object for x86_64 whose .modinfo holds MODINFO. */
static void make_module(struct image *im, const char *modinfo, size_t modinfo_len)
{
	static const char shstr[] = "\0.modinfo\0.shstrtab";
	Elf64_Ehdr eh = { 0 };
	Elf64_Shdr sh[3] = { { 0 } };
	size_t at = sizeof(eh);

	memset(im->buf, 0, sizeof(im->buf));
	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = ELFCLASS64;
	eh.e_ident[EI_DATA] = ELFDATA2LSB;
	eh.e_ident[EI_VERSION] = EV_CURRENT;
	eh.e_type = ET_REL;
	eh.e_machine = EM_X86_64;
	eh.e_version = EV_CURRENT;
	eh.e_ehsize = sizeof(eh);
	eh.e_shentsize = sizeof(Elf64_Shdr);
	eh.e_shnum = 3;
	eh.e_shstrndx = 2;

	sh[1].sh_name = 1;
	sh[1].sh_type = SHT_PROGBITS;
	sh[1].sh_flags = SHF_ALLOC;
	sh[1].sh_offset = at;
	sh[1].sh_size = modinfo_len;
	sh[1].sh_addralign = 1;
	memcpy(im->buf + at, modinfo, modinfo_len);
	at += modinfo_len;

	sh[2].sh_name = 10;
	sh[2].sh_type = SHT_STRTAB;
	sh[2].sh_offset = at;
	sh[2].sh_size = sizeof(shstr);
	sh[2].sh_addralign = 1;
	memcpy(im->buf + at, shstr, sizeof(shstr));
	at += sizeof(shstr);

	at = (at + 7) & ~(size_t)7;
	eh.e_shoff = at;
	memcpy(im->buf + at, sh, sizeof(sh));
	at += sizeof(sh);
	memcpy(im->buf, &eh, sizeof(eh));
	im->len = at;
}

/* Write the checksum over the zeros, as stap does after the link. */
static int seal(struct image *im)
{
	struct sr_modinfo mi;
	char hex[SHA256_HEX], err[SR_ERR_MAX];
	uint64_t at;
	int ret;

	if (sr_modinfo_parse(im->buf, im->len, "unit.ko", &mi, err, sizeof(err)))
		return -1;
	ret = sr_checksum_locate(&mi, &at, "unit.ko", err, sizeof(err));
	sr_modinfo_free(&mi);
	if (ret)
		return -1;
	sr_checksum_compute(im->buf, im->len, at, hex);
	memcpy(im->buf + at, hex, SR_CHECKSUM_DIGITS);
	return 0;
}

/* Append a made-up PKCS#7 signature of N bytes and the kernel's trailer. */
static void add_signature(struct image *im, size_t n, unsigned char id_type)
{
	unsigned char ms[12] = { 0, 0, id_type, 0, 0, 0, 0, 0 };

	memset(im->buf + im->len, 0x30, n);
	im->len += n;
	ms[8] = (unsigned char)(n >> 24);
	ms[9] = (unsigned char)(n >> 16);
	ms[10] = (unsigned char)(n >> 8);
	ms[11] = (unsigned char)n;
	memcpy(im->buf + im->len, ms, sizeof(ms));
	im->len += sizeof(ms);
	memcpy(im->buf + im->len, SR_SIG_MAGIC, strlen(SR_SIG_MAGIC));
	im->len += strlen(SR_SIG_MAGIC);
}

/* sr_module_check() on a copy of IMAGE, as staprun would read it. */
static int check(const struct image *im, struct sr_module *m, char *err, size_t errlen)
{
	int ret;

	memset(m, 0, sizeof(*m));
	m->path = "unit.ko";
	m->size = im->len;
	/* Exactly the bytes, so that AddressSanitizer sees any overread. */
	m->image = malloc(im->len ? im->len : 1);
	if (!m->image)
		return -2;
	memcpy(m->image, im->buf, im->len);
	err[0] = '\0';
	ret = sr_module_check(m, err, errlen);
	return ret;
}

static int has_control_bytes(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || (unsigned char)*s >= 0x7f)
			return 1;
	return 0;
}

static void test_checksum(void)
{
	struct image im, bad;
	struct sr_module m;
	char err[SR_ERR_MAX], hex[SHA256_HEX], zeroed[SHA256_HEX];
	size_t i, refused = 0, said_damaged = 0, content;
	int ret;

	make_module(&im, good_modinfo, sizeof(good_modinfo));
	ret = check(&im, &m, err, sizeof(err));
	tap_check(ret == -1 && strstr(err, "the module is damaged: its checksum does not match"),
		  "a module whose checksum is still zeros is refused as damaged");
	printf("#   (%s)\n", err);
	sr_module_free(&m);

	tap_check(seal(&im) == 0, "the synthetic module gets its checksum");
	ret = check(&im, &m, err, sizeof(err));
	tap_check(ret == 0 && strcmp(m.name, "unit_mod") == 0 && m.sig_size == 0 &&
		  m.content_size == im.len, "the sealed module passes every check");
	if (ret)
		printf("#   %s\n", err);
	sr_module_free(&m);

	/* The digest is SHA-256 of the file with its 64 digits as zeros. */
	{
		const unsigned char *d = memmem(im.buf, im.len, "tapline_sha256=", 15);
		unsigned char copy[sizeof(im.buf)];

		memcpy(copy, im.buf, im.len);
		memset(copy + (d - im.buf) + 15, '0', 64);
		sha256_hex(copy, im.len, zeroed);
		memcpy(hex, d + 15, 64);
		hex[64] = '\0';
		tap_check(strcmp(hex, zeroed) == 0,
			  "the recorded checksum is SHA-256 of the file with the digits as '0's");
	}

	/* Every byte flipped in turn: each one refused, as damage. */
	for (i = 0; i < im.len; i++) {
		bad = im;
		bad.buf[i] ^= 0x01;
		if (check(&bad, &m, err, sizeof(err)) == -1) {
			refused++;
			if (strstr(err, "damaged"))
				said_damaged++;
			else
				printf("#   byte %zu: %s\n", i, err);
		} else {
			printf("#   byte %zu flipped: accepted\n", i);
		}
		sr_module_free(&m);
	}
	tap_check(refused == im.len, "each of the %zu bytes flipped: the module is refused (%zu)",
		  im.len, refused);
	tap_check(said_damaged == im.len, "and each time the error says it is damaged (%zu)",
		  said_damaged);

	/* A signed module: the trailer is left out of the checksum. */
	bad = im;
	add_signature(&bad, 300, 2);
	ret = check(&bad, &m, err, sizeof(err));
	tap_check(ret == 0 && m.sig_size == 300 && m.content_size == im.len,
		  "a signed module passes, its signature trailer stripped before hashing");
	if (ret)
		printf("#   %s\n", err);
	sr_module_free(&m);
	tap_check(sr_signature_split(bad.buf, bad.len, &content, &i, "x", err, sizeof(err)) == 0 &&
		  content == im.len && i == 300, "sr_signature_split finds where the module ends");

	bad.buf[100] ^= 0x40;
	ret = check(&bad, &m, err, sizeof(err));
	tap_check(ret == -1 && strstr(err, "its checksum does not match"),
		  "a signed module with a flipped byte is refused as damaged");
	sr_module_free(&m);

	bad = im;
	add_signature(&bad, 300, 2);
	bad.buf[bad.len - 40 - 1] = 0xff;	/* the signature's own bytes */
	ret = check(&bad, &m, err, sizeof(err));
	tap_check(ret == 0, "a flipped byte inside the signature is the kernel's to judge");
	sr_module_free(&m);

	bad = im;
	add_signature(&bad, 300, 1);
	ret = check(&bad, &m, err, sizeof(err));
	tap_check(ret == -1 && strstr(err, "not the kernel's PKCS#7 kind"),
		  "a trailer that is not PKCS#7 is refused");
	printf("#   (%s)\n", err);
	sr_module_free(&m);

	bad = im;
	add_signature(&bad, 300, 2);
	bad.buf[bad.len - 28 - 4] = 0x7f;	/* sig_len's top byte */
	ret = check(&bad, &m, err, sizeof(err));
	tap_check(ret == -1 && strstr(err, "claims"), "a signature longer than the file is refused");
	printf("#   (%s)\n", err);
	sr_module_free(&m);

	bad = im;
	add_signature(&bad, 300, 2);
	bad.buf[bad.len - 28 - 1] = 0;
	bad.buf[bad.len - 28 - 2] = 0;
	ret = check(&bad, &m, err, sizeof(err));
	tap_check(ret == -1 && strstr(err, "claims 0 bytes"), "a zero-length signature is refused");
	sr_module_free(&m);

	/* The magic with less than a struct module_signature before it. */
	memset(bad.buf, 0, 11);
	memcpy(bad.buf + 11, SR_SIG_MAGIC, strlen(SR_SIG_MAGIC));
	bad.len = 11 + strlen(SR_SIG_MAGIC);
	ret = check(&bad, &m, err, sizeof(err));
	tap_check(ret == -1 && strstr(err, "too short"), "a file too short for its trailer is refused");
	sr_module_free(&m);

	/* No checksum at all: built by an older stap. */
	make_module(&bad, good_modinfo, sizeof(good_modinfo) - 80);
	ret = check(&bad, &m, err, sizeof(err));
	tap_check(ret == -1 && strstr(err, "has no checksum") && strstr(err, "older stap"),
		  "a module without a checksum: built by an older stap, rebuild it");
	printf("#   (%s)\n", err);
	sr_module_free(&m);

	/* Two of them. */
	{
		char two[sizeof(good_modinfo) + 81];

		memcpy(two, good_modinfo, sizeof(good_modinfo));
		memcpy(two + sizeof(good_modinfo), good_modinfo + sizeof(good_modinfo) - 80, 80);
		two[sizeof(two) - 1] = '\0';
		make_module(&bad, two, sizeof(two));
		ret = check(&bad, &m, err, sizeof(err));
		tap_check(ret == -1 && strstr(err, "more than one checksum"),
			  "a module recording two checksums is refused");
		sr_module_free(&m);
	}

	/* Upper-case or short digits are not what stap writes. */
	bad = im;
	{
		unsigned char *d = memmem(bad.buf, bad.len, "tapline_sha256=", 15);

		d[15 + 10] = 'A';
		ret = check(&bad, &m, err, sizeof(err));
		tap_check(ret == -1 && strstr(err, "not 64 hex digits"),
			  "a checksum with a non-digit is refused");
		sr_module_free(&m);
	}
}

static void test_names_shown(void)
{
	static const char evil[] =
		"name=bad\001name\033[31m\0"
		"tapline_sha256=0000000000000000000000000000000000000000000000000000000000000000";
	struct image im;
	struct sr_module m;
	char err[SR_ERR_MAX], buf[SR_SHOWN_MAX], small[12];
	char longer[400];
	int ret;

	make_module(&im, evil, sizeof(evil));
	seal(&im);
	ret = check(&im, &m, err, sizeof(err));
	tap_check(ret == -1 && strstr(err, "invalid module name 'bad\\x01name\\x1b[31m'") &&
		  !has_control_bytes(err),
		  "an invalid name is shown with its control characters escaped");
	printf("#   (%s)\n", err);
	sr_module_free(&m);

	tap_check(strcmp(sr_shown("plain-1.0", buf, sizeof(buf)), "plain-1.0") == 0,
		  "printable text is shown as it is");
	tap_check(strcmp(sr_shown("a\\b\tc\n\x7f\xff", buf, sizeof(buf)),
			 "a\\\\b\\x09c\\x0a\\x7f\\xff") == 0,
		  "a backslash, tab, newline, DEL and high bytes are escaped");
	memset(longer, 'x', sizeof(longer) - 1);
	longer[sizeof(longer) - 1] = '\0';
	sr_shown(longer, buf, sizeof(buf));
	tap_check(strlen(buf) < SR_SHOWN_MAX && strcmp(buf + strlen(buf) - 3, "...") == 0,
		  "a long value is cut to fit, with \"...\" (%zu characters)", strlen(buf));
	memset(longer, '\001', sizeof(longer) - 1);
	sr_shown(longer, small, sizeof(small));
	tap_check(strlen(small) < sizeof(small) && !has_control_bytes(small),
		  "escapes are never cut in half (\"%s\")", small);
}

static void test_policy(void)
{
	char mode[32];

	tap_check(sr_lockdown_mode("none [integrity] confidentiality\n", mode, sizeof(mode)) == 0 &&
		  strcmp(mode, "integrity") == 0, "lockdown: the mode in brackets (integrity)");
	tap_check(sr_lockdown_mode("[none] integrity confidentiality\n", mode, sizeof(mode)) == 0 &&
		  strcmp(mode, "none") == 0, "lockdown: the mode in brackets (none)");
	tap_check(sr_lockdown_mode("none integrity\n", mode, sizeof(mode)) == -1 &&
		  sr_lockdown_mode("[]", mode, sizeof(mode)) == -1 &&
		  sr_lockdown_mode("[integrity", mode, sizeof(mode)) == -1 &&
		  sr_lockdown_mode("[integrity]", mode, 5) == -1,
		  "lockdown: no mode, an empty one, an unclosed one, one too long: unknown");
	tap_check(sr_status_has_cap("Name:\tx\nCapInh:\t0\nCapEff:\t000001ffffffffff\n", 16) == 1 &&
		  sr_status_has_cap("Name:\tx\nCapEff:\t00000000a80425fb\n", 16) == 0 &&
		  sr_status_has_cap("Name:\tx\n", 16) == -1,
		  "CAP_SYS_MODULE from /proc/self/status: there, missing, unknown");
}

static void test_read(void)
{
	const char *path = "/tmp/tapline-module-test.ko";
	struct image im;
	struct sr_module m;
	char err[SR_ERR_MAX];
	FILE *f;
	int ret;

	make_module(&im, good_modinfo, sizeof(good_modinfo));
	seal(&im);
	f = fopen(path, "wb");
	if (!f || fwrite(im.buf, 1, im.len, f) != im.len || fclose(f)) {
		tap_check(0, "cannot write %s", path);
		return;
	}
	ret = sr_module_read(path, &m, err, sizeof(err));
	tap_check(ret == 0 && m.size == im.len && memcmp(m.image, im.buf, im.len) == 0 &&
		  sr_module_check(&m, err, sizeof(err)) == 0,
		  "a module file is read whole, and passes");
	sr_module_free(&m);
	unlink(path);
	ret = sr_module_read("/tmp", &m, err, sizeof(err));
	tap_check(ret == -1 && strstr(err, "not a regular file"), "a directory is refused");
	ret = sr_module_read("/nonexistent/x.ko", &m, err, sizeof(err));
	tap_check(ret == -1 && strstr(err, "/nonexistent/x.ko"), "a missing file is named");
}

int main(int argc, char **argv)
{
	/* --seed FILE: the synthetic module, sealed, for make fuzz-staprun. */
	if (argc == 3 && strcmp(argv[1], "--seed") == 0) {
		struct image im;
		FILE *f = fopen(argv[2], "wb");

		make_module(&im, good_modinfo, sizeof(good_modinfo));
		return !f || seal(&im) || fwrite(im.buf, 1, im.len, f) != im.len || fclose(f);
	}
	test_checksum();
	test_names_shown();
	test_policy();
	test_read();
	return tap_done();
}
