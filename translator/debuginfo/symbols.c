// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Symbol tables: the kernel's symbols as a name-sorted array of struct ksym,
 * read from a kallsyms-format file ("ADDRESS TYPE NAME [MODULE]" per line,
 * as /proc/kallsyms gives them) or decoded from an image (kallsyms.c).
 */
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "debuginfo/kernel.h"
#include "util.h"

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

size_t symbols_sort_unique(char **names, size_t n)
{
	if (n == 0)
		return 0;
	qsort(names, n, sizeof(char *), cmp_str);
	size_t out = 1;
	for (size_t i = 1; i < n; i++) {
		if (strcmp(names[i], names[out - 1]))
			names[out++] = names[i];
		else
			free(names[i]);
	}
	return out;
}

static int cmp_sym(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;
	int c = strcmp(x->name, y->name);
	if (c)
		return c;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

void symbols_sort(struct ksym *syms, size_t n)
{
	qsort(syms, n, sizeof *syms, cmp_sym);
}

struct ksym *symbols_read_kallsyms(const char *path, size_t *n)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return NULL;
	size_t cap = 1024, count = 0;
	struct ksym *syms = xmalloc(cap * sizeof *syms);
	char line[512];
	while (fgets(line, sizeof line, f)) {
		uint64_t addr;
		char type, name[256];
		/* Module symbols ("[ext4]") are not the kernel's own. */
		if (sscanf(line, "%" SCNx64 " %c %255s", &addr, &type, name) != 3 ||
		    strchr(line, '['))
			continue;
		if (count == cap) {
			cap *= 2;
			syms = xrealloc(syms, cap * sizeof *syms);
		}
		syms[count++] = (struct ksym){ xstrdup(name), addr, type, 0 };
	}
	fclose(f);
	symbols_sort(syms, count);
	*n = count;
	return syms;
}

const struct ksym *symbols_find(const struct ksym *syms, size_t n, const char *name)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (strcmp(syms[mid].name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && !strcmp(syms[lo].name, name) ? &syms[lo] : NULL;
}

void symbols_free(struct ksym *syms, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(syms[i].name);
	free(syms);
}

/* An ELF file's function symbols (a module's .symtab), sorted likewise;
 * addr is each one's value (its offset in its section). NULL if the file
 * has no symbol table. */
struct ksym *symbols_read_elf_functions(const char *path, size_t *n)
{
	*n = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	elf_version(EV_CURRENT);
	Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
	struct ksym *syms = NULL;
	size_t cap = 0;
	size_t shstrndx = 0;
	if (elf && elf_getshdrstrndx(elf, &shstrndx) != 0)
		shstrndx = 0;
	for (Elf_Scn *scn = elf ? elf_nextscn(elf, NULL) : NULL; scn; scn = elf_nextscn(elf, scn)) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || !sh.sh_entsize)
			continue;
		Elf_Data *data = elf_getdata(scn, NULL);
		size_t count = data ? sh.sh_size / sh.sh_entsize : 0;
		for (size_t i = 0; i < count; i++) {
			GElf_Sym sym;
			const char *name;
			if (!gelf_getsym(data, (int)i, &sym) || GELF_ST_TYPE(sym.st_info) != STT_FUNC ||
			    sym.st_shndx == SHN_UNDEF || !(name = elf_strptr(elf, sh.sh_link, sym.st_name)) ||
			    !*name)
				continue;
			/* Init code is freed once the module is loaded. */
			GElf_Shdr ts;
			const char *sec = gelf_getshdr(elf_getscn(elf, sym.st_shndx), &ts)
						  ? elf_strptr(elf, shstrndx, ts.sh_name)
						  : NULL;
			if (sec && !strncmp(sec, ".init", 5))
				continue;
			if (*n == cap) {
				cap = cap ? 2 * cap : 256;
				syms = xrealloc(syms, cap * sizeof *syms);
			}
			syms[(*n)++] = (struct ksym){ xstrdup(name), sym.st_value, 't', sym.st_shndx };
		}
	}
	if (elf)
		elf_end(elf);
	close(fd);
	if (syms)
		symbols_sort(syms, *n);
	return syms;
}

char *symbols_elf_section_name(const char *path, unsigned shndx)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	elf_version(EV_CURRENT);
	Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
	size_t shstrndx;
	GElf_Shdr sh;
	const char *name = NULL;
	if (elf && elf_getshdrstrndx(elf, &shstrndx) == 0 &&
	    gelf_getshdr(elf_getscn(elf, shndx), &sh))
		name = elf_strptr(elf, shstrndx, sh.sh_name);
	char *copy = name ? xstrdup(name) : NULL;
	if (elf)
		elf_end(elf);
	close(fd);
	return copy;
}
