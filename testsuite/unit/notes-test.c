// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for staprun's file readers: the ELF note walker that finds the
 * GNU build-id (notes.c) and the .modinfo reader (modinfo.c, on a file read
 * whole by module.c).
 *
 * Both read untrusted bytes on the target machine, so besides the normal
 * cases these tests feed them truncated buffers, absurd sizes and corrupted
 * copies of an ELF file, and only ask for a clean error.  The test binary
 * carries its own .modinfo section (below), so /proc/self/exe serves as a
 * module file without needing a kernel build.  Output is TAP-like: one
 * "ok N - what" or "not ok N - what" line per check, "#" lines with detail.
 */
#include "staprun.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tap.h"

/*
 * The test's own .modinfo, laid out as modpost lays out a module's: key=value
 * strings, with NUL padding between some entries.
 */
static const char mi_name[] __attribute__((section(".modinfo"), used,
					    aligned(1))) = "name=unit_mod";
static const char mi_bid[] __attribute__((section(".modinfo"), used,
					   aligned(1))) =
	"\0\0\0tapline_kernel_build_id=0123456789abcdef0123456789abcdef01234567\0\0";
static const char mi_ver[] __attribute__((section(".modinfo"), used,
					   aligned(1))) = "tapline_version=9.8.7";


/*
 * .modinfo of the file PATH, as staprun reads it: the file whole into
 * memory, then parsed there.  OFFSET gets the section's place in the file.
 */
static int read_modinfo(const char *path, struct sr_modinfo *mi, uint64_t *offset,
			char *err, size_t errlen)
{
	struct sr_module m;
	int ret;

	memset(mi, 0, sizeof(*mi));
	if (sr_module_read(path, &m, err, errlen))
		return -1;
	ret = sr_modinfo_parse(m.image, m.size, path, mi, err, errlen);
	if (offset)
		*offset = mi->offset;
	sr_module_free(&m);
	return ret;
}

/* Detail for the check just made, printed only when it failed. */
static void note_if(int failed, const char *what, const char *text)
{
	if (failed)
		printf("#   %s: %s\n", what, text);
}

/* Append one note to BUF at *LEN, with the standard 4-byte padding. */
static void add_note(unsigned char *buf, size_t *len, const char *name,
		     uint32_t namesz, uint32_t type, const void *desc,
		     uint32_t descsz)
{
	uint32_t hdr[3] = { namesz, descsz, type };

	memcpy(buf + *len, hdr, sizeof(hdr));
	*len += sizeof(hdr);
	memset(buf + *len, 0, (namesz + 3) & ~3u);
	memcpy(buf + *len, name, namesz);
	*len += (namesz + 3) & ~3u;
	memset(buf + *len, 0, (descsz + 3) & ~3u);
	memcpy(buf + *len, desc, descsz);
	*len += (descsz + 3) & ~3u;
}

/* Append a note header only, with whatever sizes, and no body. */
static void add_header(unsigned char *buf, size_t *len, uint32_t namesz,
		       uint32_t descsz, uint32_t type)
{
	uint32_t hdr[3] = { namesz, descsz, type };

	memcpy(buf + *len, hdr, sizeof(hdr));
	*len += sizeof(hdr);
}

static const unsigned char id20[20] = {
	0xab, 0xf9, 0xec, 0x0e, 0xc5, 0x94, 0x66, 0x00, 0xc9, 0x06,
	0x41, 0xcf, 0x5d, 0xb9, 0x98, 0x47, 0x2f, 0xac, 0x41, 0x0b,
};
static const char id20_hex[] = "abf9ec0ec5946600c90641cf5db998472fac410b";

/* Expect success with HEX_WANT, or failure when HEX_WANT is NULL. */
static void expect_id(const void *buf, size_t len, const char *hex_want,
		      const char *desc)
{
	char hex[SR_BUILD_ID_HEX] = "";
	char err[SR_ERR_MAX] = "";
	int ret = sr_notes_build_id(buf, len, hex, sizeof(hex), err,
				    sizeof(err));

	if (hex_want) {
		int ok = ret == 0 && strcmp(hex, hex_want) == 0;

		tap_check(ok, "%s", desc);
		note_if(!ok, "error", err);
		note_if(!ok, "got", hex);
		note_if(!ok, "want", hex_want);
	} else {
		int ok = ret == -1 && err[0] != '\0';

		tap_check(ok, "%s", desc);
		note_if(!ok, "unexpected build-id", hex);
		if (ok)
			printf("#   (%s)\n", err);
	}
}

static void test_notes(void)
{
	unsigned char buf[512];
	unsigned char big[2 * SR_BUILD_ID_MAX];
	static const unsigned char xen[4] = { 0, 0, 0, 1 };
	static const unsigned char abi[16] = { 0, 0, 0, 0, 3, 0, 0, 0 };
	static const unsigned char odd5[5] = { 1, 2, 3, 4, 5 };
	static const unsigned char id13[13] = {
		0xde, 0xad, 0xbe, 0xef, 0x00, 0x11, 0x22, 0x33,
		0x44, 0x55, 0x66, 0x77, 0x88,
	};
	char small[8], what[80];
	char err[SR_ERR_MAX];
	size_t len = 0, full, i;
	int all_fail;

	/* Xen first, then a GNU note of another type, then the build-id. */
	add_note(buf, &len, "Xen", 4, 6, xen, sizeof(xen));
	add_note(buf, &len, "GNU", 4, NT_GNU_ABI_TAG, abi, sizeof(abi));
	add_note(buf, &len, "GNU", 4, NT_GNU_BUILD_ID, id20, sizeof(id20));
	full = len;
	expect_id(buf, len, id20_hex,
		  "build-id found after a Xen note and a GNU ABI-tag note");

	/* Every truncation loses part of the build-id: all must fail. */
	all_fail = 1;
	for (i = 0; i < full; i++) {
		char hex[SR_BUILD_ID_HEX];

		if (sr_notes_build_id(buf, i, hex, sizeof(hex), err,
				      sizeof(err)) == 0) {
			all_fail = 0;
			printf("#   length %zu gave %s\n", i, hex);
		}
	}
	tap_check(all_fail, "every truncation (0..%zu bytes) is an error", full - 1);

	/* Odd name and descriptor sizes with their padding, like "Linux". */
	len = 0;
	add_note(buf, &len, "LinuxOdd", 9, 1, odd5, sizeof(odd5));
	add_note(buf, &len, "Linux", 6, 0x100, "9.9.9-test-extra-long-version",
		 30);
	add_note(buf, &len, "GNU", 4, NT_GNU_BUILD_ID, id13, sizeof(id13));
	expect_id(buf, len, "deadbeef0011223344556677" "88",
		  "odd name/descriptor sizes are padded to 4 bytes");
	/* The last note may lack its descriptor padding. */
	expect_id(buf, len - 3, "deadbeef0011223344556677" "88",
		  "a final note without descriptor padding is accepted");

	/* The real layout of a kernel's notes (as read from a 6.1 kernel). */
	len = 0;
	add_note(buf, &len, "GNU", 4, NT_GNU_BUILD_ID, id20, sizeof(id20));
	add_note(buf, &len, "Linux", 6, 0x101, "\1", 1);
	add_note(buf, &len, "Linux", 6, 0x100, "9.9.9-test-rel", 15);
	add_note(buf, &len, "Xen", 4, 0x13, "\0\0\0\1\0\0\0\1", 8);
	expect_id(buf, len, id20_hex, "build-id as the first note");

	/* No GNU build-id at all. */
	len = 0;
	add_note(buf, &len, "Xen", 4, 6, xen, sizeof(xen));
	add_note(buf, &len, "GNU", 4, NT_GNU_ABI_TAG, abi, sizeof(abi));
	add_note(buf, &len, "GNX", 4, NT_GNU_BUILD_ID, id20, sizeof(id20));
	add_note(buf, &len, "GNU", 3, NT_GNU_BUILD_ID, id20, sizeof(id20));
	expect_id(buf, len, NULL, "no GNU build-id note is an error");
	expect_id(buf, 0, NULL, "empty buffer is an error");
	expect_id(NULL, 0, NULL, "NULL buffer is an error");

	/* Absurd sizes, including ones that wrap a 32-bit "+ 3 & ~3". */
	len = 0;
	add_header(buf, &len, 0xffffffffu, 20, NT_GNU_BUILD_ID);
	memcpy(buf + len, "GNU\0", 4);
	len += 4;
	expect_id(buf, len, NULL, "name size 0xffffffff is an error");
	len = 0;
	add_header(buf, &len, 0xfffffffeu, 20, NT_GNU_BUILD_ID);
	add_note(buf, &len, "GNU", 4, NT_GNU_BUILD_ID, id20, sizeof(id20));
	expect_id(buf, len, NULL,
		  "name size 0xfffffffe (wraps to 0 in 32 bits) is an error");
	len = 0;
	add_header(buf, &len, 4, 0xfffffffcu, NT_GNU_BUILD_ID);
	memcpy(buf + len, "GNU\0", 4);
	len += 4;
	memcpy(buf + len, id20, sizeof(id20));
	len += sizeof(id20);
	expect_id(buf, len, NULL, "descriptor size 0xfffffffc is an error");
	len = 0;
	add_header(buf, &len, 4, 0xffffffffu, 1);
	memcpy(buf + len, "Xen\0", 4);
	len += 4;
	expect_id(buf, len, NULL,
		  "descriptor size 0xffffffff on another note is an error");
	len = 0;
	add_note(buf, &len, "GNU", 4, NT_GNU_BUILD_ID, "", 0);
	expect_id(buf, len, NULL, "an empty build-id is an error");
	memset(big, 0x5a, sizeof(big));
	len = 0;
	add_note(buf, &len, "GNU", 4, NT_GNU_BUILD_ID, big, sizeof(big));
	snprintf(what, sizeof(what), "a %zu-byte build-id is an error",
		 sizeof(big));
	expect_id(buf, len, NULL, what);
	len = 0;
	add_note(buf, &len, "GNU", 4, NT_GNU_BUILD_ID, id20, sizeof(id20));
	tap_check(sr_notes_build_id(buf, len, small, sizeof(small), err,
				sizeof(err)) == -1,
	      "a build-id longer than the caller's buffer is an error");
	/* Trailing bytes too short for a header, after non-GNU notes. */
	len = 0;
	add_note(buf, &len, "Xen", 4, 6, xen, sizeof(xen));
	memset(buf + len, 0, 7);
	expect_id(buf, len + 7, NULL, "a partial trailing header is an error");
}

/*
 * The host's own notes, when it has them: a smoke test of the file path.
 * Containers without sysfs skip it.
 */
static void test_kernel_notes(void)
{
	char hex[SR_BUILD_ID_HEX] = "", err[SR_ERR_MAX] = "";
	int ret;

	if (access(SR_KERNEL_NOTES, R_OK) != 0) {
		tap_skip(SR_KERNEL_NOTES " is not readable here");
		return;
	}
	ret = sr_file_build_id(SR_KERNEL_NOTES, hex, sizeof(hex), err,
			       sizeof(err));
	tap_check(ret == 0 && strlen(hex) >= 2,
	      "the running kernel's build-id is read from %s",
	      SR_KERNEL_NOTES);
	note_if(ret != 0, "error", err);
	if (ret == 0)
		printf("#   kernel build-id %s\n", hex);
	ret = sr_file_build_id("/nonexistent/notes", hex, sizeof(hex), err,
			       sizeof(err));
	tap_check(ret == -1 && strstr(err, "/nonexistent/notes"),
	      "a missing notes file is an error naming the file");
}

/* The file of this test binary, read into memory. */
static unsigned char *self_image(size_t *len)
{
	char err[SR_ERR_MAX];
	char *buf;

	if (sr_read_file("/proc/self/exe", 256u << 20, &buf, len, err,
			 sizeof(err))) {
		printf("#   %s\n", err);
		return NULL;
	}
	return (unsigned char *)buf;
}

static int write_file(const char *path, const void *buf, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	const char *p = buf;

	if (fd < 0)
		return -1;
	while (len) {
		ssize_t n = write(fd, p, len);

		if (n <= 0) {
			close(fd);
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return close(fd);
}

/* Write IMG (possibly changed) to PATH and expect a clean modinfo error. */
static void expect_bad(const char *path, const unsigned char *img,
		       size_t len, const char *desc)
{
	struct sr_modinfo mi;
	char err[SR_ERR_MAX] = "";
	int r1, r2;

	if (write_file(path, img, len)) {
		tap_check(0, "%s (cannot write %s: %s)", desc, path,
		      strerror(errno));
		return;
	}
	r1 = read_modinfo(path, &mi, NULL, err, sizeof(err));
	if (r1 == 0)
		sr_modinfo_free(&mi);
	/* The same bytes straight from memory, with no NUL after them. */
	r2 = sr_modinfo_parse(img, len, path, &mi, NULL, 0);
	if (r2 == 0)
		sr_modinfo_free(&mi);
	tap_check(r1 == -1 && r2 == -1 && err[0] != '\0', "%s", desc);
	if (r1 == -1)
		printf("#   (%s)\n", err);
}

/* Index of the .modinfo section header in an ELF image, or -1. */
static long find_modinfo_shdr(const unsigned char *img, size_t len)
{
	Elf64_Ehdr eh;
	Elf64_Shdr sh, str;
	unsigned int i;

	memcpy(&eh, img, sizeof(eh));
	if (eh.e_shoff + (uint64_t)eh.e_shnum * sizeof(sh) > len ||
	    eh.e_shstrndx >= eh.e_shnum)
		return -1;
	memcpy(&str, img + eh.e_shoff + eh.e_shstrndx * sizeof(sh),
	       sizeof(str));
	for (i = 0; i < eh.e_shnum; i++) {
		memcpy(&sh, img + eh.e_shoff + i * sizeof(sh), sizeof(sh));
		if (str.sh_offset + sh.sh_name + 9 <= len &&
		    memcmp(img + str.sh_offset + sh.sh_name, ".modinfo", 9) == 0)
			return i;
	}
	return -1;
}


static void test_modinfo(void)
{
	const char *path = "/tmp/tapline-notes-test.ko";
	char err[SR_ERR_MAX] = "";
	struct sr_modinfo mi;
	uint64_t off = 0, size = 0;
	unsigned char *img, *copy;
	const char *v;
	size_t len, i;
	long idx;
	Elf64_Ehdr eh;
	Elf64_Shdr sh;
	int ret, crashes_none = 1;

	/* Keep the compiler from warning that the arrays are unused. */
	(void)mi_name;
	(void)mi_bid;
	(void)mi_ver;

	ret = read_modinfo("/proc/self/exe", &mi, &off, err, sizeof(err));
	size = mi.size;
	tap_check(ret == 0, "/proc/self/exe: .modinfo is read");
	note_if(ret != 0, "error", err);
	if (ret != 0)
		return;
	v = sr_modinfo_get(&mi, "name");
	tap_check(v && strcmp(v, "unit_mod") == 0, "name=unit_mod is found");
	v = sr_modinfo_get(&mi, "tapline_kernel_build_id");
	tap_check(v && strcmp(v, "0123456789abcdef0123456789abcdef01234567") == 0,
	      "tapline_kernel_build_id is found across NUL padding");
	v = sr_modinfo_get(&mi, "tapline_version");
	tap_check(v && strcmp(v, "9.8.7") == 0, "tapline_version is found");
	tap_check(sr_modinfo_get(&mi, "license") == NULL, "a missing key is not found");
	tap_check(sr_modinfo_get(&mi, "nam") == NULL &&
	      sr_modinfo_get(&mi, "name=unit") == NULL &&
	      sr_modinfo_get(&mi, "tapline") == NULL,
	      "a key prefix does not match a longer key");
	tap_check(mi.elf_type == ET_EXEC || mi.elf_type == ET_DYN,
	      "the ELF type is reported (%u)", mi.elf_type);
	sr_modinfo_free(&mi);
	tap_check(size >= sizeof(mi_name) + sizeof(mi_bid) + sizeof(mi_ver),
		  ".modinfo is located (offset %llu, size %llu)",
		  (unsigned long long)off, (unsigned long long)size);

	/* A hand-made section: padding, an unterminated last entry. */
	{
		char data[] = "\0\0key=a\0\0\0\0other=b\0last=zz";
		struct sr_modinfo m = { data, sizeof(data) - 1, 0, ET_REL,
					EM_X86_64 };

		v = sr_modinfo_get(&m, "last");
		tap_check(v && strcmp(v, "zz") == 0,
		      "an entry at the very end of the section is found");
		v = sr_modinfo_get(&m, "other");
		tap_check(v && strcmp(v, "b") == 0, "an entry after padding is found");
		m.size = 0;
		tap_check(sr_modinfo_get(&m, "key") == NULL,
		      "an empty section has no keys");
	}

	/* Files that are not modules at all. */
	ret = read_modinfo("/nonexistent/x.ko", &mi, NULL, err, sizeof(err));
	tap_check(ret == -1 && strstr(err, "/nonexistent/x.ko"),
	      "a missing file is an error naming it");
	ret = read_modinfo("/tmp", &mi, NULL, err, sizeof(err));
	tap_check(ret == -1, "a directory is an error");
	printf("#   (%s)\n", err);

	img = self_image(&len);
	tap_check(img != NULL && len > sizeof(Elf64_Ehdr),
	      "/proc/self/exe is read (%zu bytes)", len);
	if (!img)
		return;
	copy = malloc(len);
	if (!copy)
		return;

	expect_bad(path, img, 0, "an empty file is an error");
	expect_bad(path, (const unsigned char *)"hello, world\n", 13,
		   "a text file is an error");
	expect_bad(path, img, 10, "a 10-byte ELF prefix is an error");
	expect_bad(path, img, sizeof(Elf64_Ehdr) - 1,
		   "a truncated ELF header is an error");
	expect_bad(path, img, len / 2, "a file cut in half is an error");
	expect_bad(path, img, off + size - 1 < len ? off + size - 1 : len - 1,
		   "a file cut inside .modinfo is an error");

	memcpy(copy, img, len);
	copy[EI_CLASS] = ELFCLASS32;
	expect_bad(path, copy, len, "a 32-bit class is an error");
	memcpy(copy, img, len);
	copy[EI_DATA] = ELFDATA2MSB;
	expect_bad(path, copy, len, "big-endian data is an error");
	memcpy(copy, img, len);
	copy[1] = 'X';
	expect_bad(path, copy, len, "a bad magic number is an error");

	memcpy(&eh, img, sizeof(eh));
	memcpy(copy, img, len);
	((Elf64_Ehdr *)copy)->e_shoff = 0xffffffffffffff00ull;
	expect_bad(path, copy, len, "e_shoff near 2^64 is an error");
	memcpy(copy, img, len);
	((Elf64_Ehdr *)copy)->e_shoff = len - 8;
	expect_bad(path, copy, len, "e_shoff at the end of the file is an error");
	memcpy(copy, img, len);
	((Elf64_Ehdr *)copy)->e_shnum = 0xfeff;
	expect_bad(path, copy, len, "e_shnum too large is an error");
	memcpy(copy, img, len);
	((Elf64_Ehdr *)copy)->e_shstrndx = eh.e_shnum;
	expect_bad(path, copy, len, "e_shstrndx out of range is an error");
	memcpy(copy, img, len);
	((Elf64_Ehdr *)copy)->e_shentsize = 32;
	expect_bad(path, copy, len, "a wrong e_shentsize is an error");
	memcpy(copy, img, len);
	((Elf64_Ehdr *)copy)->e_shstrndx = 0;
	expect_bad(path, copy, len, "a missing section name table is an error");

	idx = find_modinfo_shdr(img, len);
	tap_check(idx > 0, "the test finds .modinfo's header itself (%ld)", idx);
	if (idx > 0) {
		size_t at = eh.e_shoff + (size_t)idx * sizeof(sh);

		memcpy(copy, img, len);
		memcpy(&sh, copy + at, sizeof(sh));
		sh.sh_size = 0xfffffffffffffff0ull;
		memcpy(copy + at, &sh, sizeof(sh));
		expect_bad(path, copy, len, ".modinfo size near 2^64 is an error");

		memcpy(copy, img, len);
		memcpy(&sh, copy + at, sizeof(sh));
		sh.sh_offset = len;
		memcpy(copy + at, &sh, sizeof(sh));
		expect_bad(path, copy, len, ".modinfo offset at end of file is an error");

		memcpy(copy, img, len);
		memcpy(&sh, copy + at, sizeof(sh));
		sh.sh_name = 0x7fffffff;
		memcpy(copy + at, &sh, sizeof(sh));
		expect_bad(path, copy, len,
			   "a section name offset beyond the name table is an error");

		memcpy(copy, img, len);
		memcpy(&sh, copy + at, sizeof(sh));
		sh.sh_type = SHT_NOBITS;
		memcpy(copy + at, &sh, sizeof(sh));
		expect_bad(path, copy, len, "a NOBITS .modinfo is an error");
	}

	/* Random damage to the headers: any answer but a crash is fine. */
	if (write_file(path, img, len) == 0) {
		int fd = open(path, O_WRONLY);
		uint64_t shbytes = (uint64_t)eh.e_shnum * sizeof(sh);

		for (i = 0; fd >= 0 && i < 3000; i++) {
			unsigned char b[8];
			uint64_t where;
			size_t n = 1 + tap_rand() % 8;

			/* Hit the ELF header or the section header table. */
			if (i % 2 || eh.e_shoff + shbytes > len)
				where = tap_rand() % sizeof(Elf64_Ehdr);
			else
				where = eh.e_shoff + tap_rand() % shbytes;
			if (where + n > len)
				n = len - where;
			for (size_t k = 0; k < n; k++)
				b[k] = (unsigned char)tap_rand();
			if (pwrite(fd, b, n, (off_t)where) != (ssize_t)n)
				crashes_none = 0;
			if (read_modinfo(path, &mi, NULL, err, sizeof(err)) == 0) {
				(void)sr_modinfo_get(&mi, "name");
				sr_modinfo_free(&mi);
			}
			/* Undo it, so damage does not pile up past repair. */
			if (pwrite(fd, img + where, n, (off_t)where) !=
			    (ssize_t)n)
				crashes_none = 0;
		}
		if (fd >= 0)
			close(fd);
		tap_check(fd >= 0 && crashes_none,
		      "3000 random header corruptions: no crash");
	}

	unlink(path);
	free(copy);
	free(img);
}

int main(void)
{
	test_notes();
	test_kernel_notes();
	test_modinfo();
	return tap_done();
}
