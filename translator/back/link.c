// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The few ELF facts of a finished module that the build relies on: its name
 * (the stub is built under a placeholder name, patched in place here in
 * .gnu.linkonce.this_module and .modinfo), its imports (every undefined
 * symbol needs a CRC in __versions, or the kernel refuses the module with
 * "no symbol version for ...") and its checksum of itself (written over
 * the placeholder in .modinfo, found and computed by staprun's own code,
 * so that the two cannot disagree on where it is or what it covers).
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "back/back.h"
#include "contract/module.h"

struct ko {
	int fd;
	Elf *elf;
	size_t shstrndx;
};

static bool ko_open(struct ko *k, const char *path, bool write, char **why)
{
	elf_version(EV_CURRENT);
	k->fd = open(path, (write ? O_RDWR : O_RDONLY) | O_CLOEXEC);
	k->elf = k->fd >= 0 ? elf_begin(k->fd, ELF_C_READ, NULL) : NULL;
	if (!k->elf || elf_kind(k->elf) != ELF_K_ELF || elf_getshdrstrndx(k->elf, &k->shstrndx)) {
		*why = xasprintf("%s is not a readable ELF file", path);
		if (k->fd >= 0)
			close(k->fd);
		return false;
	}
	return true;
}

static void ko_close(struct ko *k)
{
	elf_end(k->elf);
	close(k->fd);
}

static Elf_Scn *ko_section(struct ko *k, const char *name, GElf_Shdr *sh)
{
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(k->elf, scn));) {
		if (!gelf_getshdr(scn, sh))
			continue;
		const char *n = elf_strptr(k->elf, k->shstrndx, sh->sh_name);
		if (n && !strcmp(n, name))
			return scn;
	}
	return NULL;
}

/* Overwrite the one NUL-terminated occurrence of from inside section name with to. */
static bool patch_string(struct ko *k, const char *section, const char *from, const char *to,
			 char **why)
{
	GElf_Shdr sh;
	Elf_Scn *scn = ko_section(k, section, &sh);
	Elf_Data *d = scn ? elf_getdata(scn, NULL) : NULL;
	if (!d || !d->d_buf) {
		*why = xasprintf("the module has no %s section", section);
		return false;
	}
	size_t n = strlen(from) + 1;
	const char *base = d->d_buf;
	const char *hit = NULL;
	for (size_t off = 0; off + n <= d->d_size; off++) {
		if (!memcmp(base + off, from, n)) {
			if (hit) {
				*why = xasprintf("'%s' occurs twice in %s", from, section);
				return false;
			}
			hit = base + off;
		}
	}
	if (!hit) {
		*why = xasprintf("'%s' is not in %s", from, section);
		return false;
	}
	/* Same length as the placeholder, padded with NULs: the layout stays. */
	char *buf = xcalloc(1, n);
	memcpy(buf, to, strlen(to));
	off_t at = (off_t)(sh.sh_offset + (size_t)(hit - base));
	bool ok = pwrite(k->fd, buf, n, at) == (ssize_t)n;
	free(buf);
	if (!ok)
		*why = xasprintf("cannot write the module name into %s", section);
	return ok;
}

bool link_set_module_name(const char *path, const char *name, char **why)
{
	if (strlen(name) > strlen(STUB_MODULE_NAME)) {
		*why = xasprintf("module name '%s' is longer than %zu characters", name,
				 strlen(STUB_MODULE_NAME));
		return false;
	}
	struct ko k;
	if (!ko_open(&k, path, true, why))
		return false;
	char *from = xasprintf("name=%s", STUB_MODULE_NAME);
	char *to = xasprintf("name=%s", name);
	bool ok = patch_string(&k, ".gnu.linkonce.this_module", STUB_MODULE_NAME, name, why) &&
		  patch_string(&k, ".modinfo", from, to, why);
	free(from);
	free(to);
	ko_close(&k);
	return ok;
}

/* __versions: struct modversion_info { unsigned long crc; char name[56]; } */
#define MODVERSION_SIZE 64
#define MODVERSION_NAME 8

bool link_check_imports(const char *path, char **why)
{
	struct ko k;
	if (!ko_open(&k, path, false, why))
		return false;
	GElf_Shdr vsh, ssh;
	Elf_Scn *vscn = ko_section(&k, "__versions", &vsh);
	Elf_Scn *sscn = ko_section(&k, ".symtab", &ssh);
	Elf_Data *vd = vscn ? elf_getdata(vscn, NULL) : NULL;
	Elf_Data *sd = sscn ? elf_getdata(sscn, NULL) : NULL;
	if (!vd || !sd) {
		*why = xasprintf("the module has no %s", vd ? ".symtab" : "__versions");
		ko_close(&k);
		return false;
	}
	struct strbuf missing;
	sb_init(&missing);
	size_t nsyms = ssh.sh_entsize ? ssh.sh_size / ssh.sh_entsize : 0;
	for (size_t i = 1; i < nsyms; i++) {
		GElf_Sym sym;
		if (!gelf_getsym(sd, (int)i, &sym) || sym.st_shndx != SHN_UNDEF)
			continue;
		const char *name = elf_strptr(k.elf, ssh.sh_link, sym.st_name);
		if (!name || !*name)
			continue;
		bool found = false;
		for (size_t off = 0; off + MODVERSION_SIZE <= vd->d_size && !found;
		     off += MODVERSION_SIZE)
			found = !strcmp((const char *)vd->d_buf + off + MODVERSION_NAME, name);
		if (!found)
			sb_printf(&missing, "%s%s", missing.len ? ", " : "", name);
	}
	ko_close(&k);
	if (missing.len) {
		*why = xasprintf("the module uses kernel symbols the runtime stub has no version "
				 "(CRC) for, so the kernel would refuse it: %s",
				 missing.s);
		sb_free(&missing);
		return false;
	}
	return true;
}

bool link_write_checksum(const char *path, char **why)
{
	size_t len;
	unsigned char *image = (unsigned char *)read_file(path, &len);
	if (!image) {
		*why = xasprintf("cannot read %s: %s", path, strerror(errno));
		return false;
	}
	struct sr_modinfo mi;
	char err[SR_ERR_MAX];
	uint64_t at = 0;
	bool ok = !sr_modinfo_parse(image, len, path, &mi, err, sizeof err) &&
		  !sr_checksum_locate(&mi, &at, path, err, sizeof err);
	sr_modinfo_free(&mi);
	if (!ok) {
		*why = xstrdup(err);
	} else if (strspn((const char *)image + at, "0") < SR_CHECKSUM_DIGITS) {
		*why = xasprintf("%s already has a checksum", path);
		ok = false;
	} else {
		char hex[SHA256_HEX];
		sr_checksum_compute(image, len, at, hex);
		int fd = open(path, O_WRONLY | O_CLOEXEC);
		ok = fd >= 0 && pwrite(fd, hex, SR_CHECKSUM_DIGITS, (off_t)at) == SR_CHECKSUM_DIGITS;
		if (fd >= 0 && close(fd) < 0)
			ok = false;
		if (!ok)
			*why = xasprintf("cannot write the checksum into %s: %s", path, strerror(errno));
	}
	free(image);
	return ok;
}
