// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * User-space ELF files (userelf.h), read with libelf. Each is read once
 * per run and kept: a script usually names one program many times.
 */
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "debuginfo/userelf.h"
#include "util.h"

/* Where the dynamic linker looks when RUNPATH does not say (Debian, x86-64). */
static const char *const system_lib_dirs[] = {
	"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib64", "/usr/lib64", "/lib", "/usr/lib",
	"/usr/local/lib",
};

static struct ptrvec opened; /* struct user_elf *, and failed paths' reasons below */

char *user_find_program(const char *name, char **why)
{
	char *found = strchr(name, '/') ? xstrdup(name) : find_in_path(name);
	if (!found) {
		*why = xasprintf("no program '%s' on $PATH (give its absolute path)", name);
		return NULL;
	}
	char *real = realpath(found, NULL);
	if (!real) {
		*why = xasprintf("%s: %s", found, strerror(errno));
		free(found);
		return NULL;
	}
	free(found);
	return real;
}

static int sym_cmp(const void *a, const void *b)
{
	const struct user_sym *x = a, *y = b;
	int c = strcmp(x->name, y->name);
	return c ? c : (x->vaddr > y->vaddr) - (x->vaddr < y->vaddr);
}

/* The function and data symbols of one symbol table section. */
static void read_symtab(struct user_elf *u, Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh,
			size_t *cap)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t count = data && sh->sh_entsize ? sh->sh_size / sh->sh_entsize : 0;
	for (size_t i = 0; i < count; i++) {
		GElf_Sym sym;
		const char *name;
		int type;
		if (!gelf_getsym(data, (int)i, &sym) || sym.st_shndx == SHN_UNDEF ||
		    sym.st_shndx >= SHN_LORESERVE || !(name = elf_strptr(elf, sh->sh_link, sym.st_name)) ||
		    !*name)
			continue;
		type = GELF_ST_TYPE(sym.st_info);
		if (type != STT_FUNC && type != STT_OBJECT && type != STT_GNU_IFUNC)
			continue;
		if (u->nsyms == *cap) {
			*cap = *cap ? 2 * *cap : 256;
			u->syms = xrealloc(u->syms, *cap * sizeof *u->syms);
		}
		/* "malloc@@GLIBC_2.2.5" is malloc. */
		u->syms[u->nsyms++] = (struct user_sym){ xstrndup(name, strcspn(name, "@")), sym.st_value,
							 sym.st_size, type != STT_OBJECT };
	}
}

/* SDT notes: "stapsdt" type 3, descriptor pc, base, semaphore, then the
 * provider, name and argument strings. */
static void read_notes(struct user_elf *u, Elf *elf, Elf_Scn *scn, uint64_t stapsdt_base)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t off = 0, name_off, desc_off, cap = 0;
	GElf_Nhdr nh;
	while (data && (off = gelf_getnote(data, off, &nh, &name_off, &desc_off)) > 0) {
		const char *name = (const char *)data->d_buf + name_off;
		const char *desc = (const char *)data->d_buf + desc_off;
		if (nh.n_type != 3 || nh.n_namesz != 8 || memcmp(name, "stapsdt", 8) || nh.n_descsz < 27)
			continue;
		uint64_t w[3];
		memcpy(w, desc, sizeof w);
		const char *provider = desc + 24, *end = desc + nh.n_descsz;
		const char *mark = memchr(provider, 0, (size_t)(end - provider));
		const char *args = mark ? memchr(mark + 1, 0, (size_t)(end - mark - 1)) : NULL;
		if (!args || !memchr(args + 1, 0, (size_t)(end - args - 1)))
			continue;
		mark++;
		args++;
		/* Prelinking moves the code: the note's base says where
		 * .stapsdt.base was when the note was written. */
		int64_t delta = stapsdt_base && w[1] ? (int64_t)(stapsdt_base - w[1]) : 0;
		if (u->nnotes == cap) {
			cap = cap ? 2 * cap : 16;
			u->notes = xrealloc(u->notes, cap * sizeof *u->notes);
		}
		u->notes[u->nnotes++] = (struct sdt_note){ xstrdup(provider), xstrdup(mark),
							   xstrdup(args), w[0] + (uint64_t)delta,
							   w[2] ? w[2] + (uint64_t)delta : 0 };
	}
}

static void read_dynamic(struct user_elf *u, Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t count = data && sh->sh_entsize ? sh->sh_size / sh->sh_entsize : 0;
	for (size_t i = 0; i < count; i++) {
		GElf_Dyn dyn;
		const char *s;
		if (!gelf_getdyn(data, (int)i, &dyn))
			continue;
		if (dyn.d_tag != DT_NEEDED && dyn.d_tag != DT_RUNPATH && dyn.d_tag != DT_RPATH)
			continue;
		if (!(s = elf_strptr(elf, sh->sh_link, dyn.d_un.d_val)))
			continue;
		if (dyn.d_tag == DT_NEEDED) {
			u->needed = xrealloc(u->needed, (u->nneeded + 1) * sizeof *u->needed);
			u->needed[u->nneeded++] = xstrdup(s);
		} else if (dyn.d_tag == DT_RUNPATH || !u->runpath) {
			free(u->runpath);
			u->runpath = xstrdup(s);
		}
	}
}

/* Dynamic relocations: the address of each GOT slot they fill, and the
 * symbol named. */
struct got_slot {
	uint64_t addr;
	char *name;
};

static void read_relocs(Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh, struct got_slot **v, size_t *n)
{
	Elf_Scn *symscn = elf_getscn(elf, sh->sh_link);
	GElf_Shdr symsh;
	Elf_Data *data = elf_getdata(scn, NULL), *syms;
	size_t count = data && sh->sh_entsize ? sh->sh_size / sh->sh_entsize : 0;
	if (!symscn || !gelf_getshdr(symscn, &symsh) || !(syms = elf_getdata(symscn, NULL)))
		return;
	for (size_t i = 0; i < count; i++) {
		GElf_Rela r;
		GElf_Sym sym;
		const char *name;
		int type;
		if (!gelf_getrela(data, (int)i, &r))
			continue;
		type = (int)GELF_R_TYPE(r.r_info);
		if ((type != R_X86_64_JUMP_SLOT && type != R_X86_64_GLOB_DAT) ||
		    !gelf_getsym(syms, (int)GELF_R_SYM(r.r_info), &sym) ||
		    !(name = elf_strptr(elf, symsh.sh_link, sym.st_name)) || !*name)
			continue;
		*v = xrealloc(*v, (*n + 1) * sizeof **v);
		(*v)[(*n)++] = (struct got_slot){ r.r_offset, xstrndup(name, strcspn(name, "@")) };
	}
}

/*
 * PLT entries: each holds an indirect jump through a GOT slot, "jmp
 * *DISP(%rip)" (ff 25, after a bnd prefix and endbr64 in .plt.sec); the
 * slot's relocation names the function. An entry starts at its section's
 * entry size (16, or 8 in .plt.got) boundary.
 */
static void read_plt(struct user_elf *u, Elf_Scn *scn, const GElf_Shdr *sh,
		     const struct got_slot *slots, size_t nslots)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	const unsigned char *b = data ? data->d_buf : NULL;
	uint64_t ent = sh->sh_entsize >= 8 ? sh->sh_entsize : 16;
	for (size_t i = 0; b && i + 6 <= data->d_size; i++) {
		if (b[i] != 0xff || b[i + 1] != 0x25)
			continue;
		int32_t disp;
		memcpy(&disp, b + i + 2, 4);
		uint64_t slot = sh->sh_addr + i + 6 + (uint64_t)(int64_t)disp;
		for (size_t k = 0; k < nslots; k++)
			if (slots[k].addr == slot) {
				u->plts = xrealloc(u->plts, (u->nplts + 1) * sizeof *u->plts);
				u->plts[u->nplts++] = (struct user_sym){ xstrdup(slots[k].name),
									 sh->sh_addr + i / ent * ent, ent, true };
				break;
			}
	}
}

static struct user_elf *read_user_elf(const char *path, char **why)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		*why = xasprintf("%s: %s", path, strerror(errno));
		return NULL;
	}
	elf_version(EV_CURRENT);
	Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
	GElf_Ehdr eh;
	size_t nph = 0, shstrndx = 0;
	if (!elf || elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &eh)) {
		*why = xasprintf("%s is not an ELF file", path);
		goto fail;
	}
	if (eh.e_type != ET_EXEC && eh.e_type != ET_DYN) {
		*why = xasprintf("%s is not an executable or a shared library (ELF type %d)", path,
				 (int)eh.e_type);
		goto fail;
	}
	if (eh.e_machine != EM_X86_64 || gelf_getclass(elf) != ELFCLASS64) {
		*why = xasprintf("%s is not an x86-64 program (ELF machine %d, class %d)", path,
				 (int)eh.e_machine, gelf_getclass(elf));
		goto fail;
	}
	struct user_elf *u = xcalloc(1, sizeof *u);
	u->path = xstrdup(path);
	u->is_pie = eh.e_type == ET_DYN;
	if (elf_getphdrnum(elf, &nph) == 0) {
		u->segs = xcalloc(nph + 1, sizeof *u->segs);
		for (size_t i = 0; i < nph; i++) {
			GElf_Phdr ph;
			if (!gelf_getphdr(elf, (int)i, &ph))
				continue;
			if (ph.p_type == PT_LOAD)
				u->segs[u->nsegs++] = (struct user_segment){
					ph.p_vaddr, ph.p_memsz, ph.p_offset, ph.p_filesz,
					(ph.p_flags & PF_X) != 0, (ph.p_flags & PF_W) != 0 };
			if (ph.p_type == PT_INTERP && ph.p_filesz > 1 && ph.p_filesz < 4096) {
				char interp[4096];
				if (pread(fd, interp, ph.p_filesz, (off_t)ph.p_offset) ==
				    (ssize_t)ph.p_filesz)
					u->interp = xstrndup(interp, strnlen(interp, ph.p_filesz));
			}
		}
	}
	if (elf_getshdrstrndx(elf, &shstrndx) != 0)
		shstrndx = 0;
	uint64_t stapsdt_base = 0;
	Elf_Scn *notes = NULL, *symtab = NULL, *dynsym = NULL, *plts[3] = { 0 };
	struct got_slot *slots = NULL;
	size_t nslots = 0;
	for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn; scn = elf_nextscn(elf, scn)) {
		GElf_Shdr sh;
		const char *name;
		if (!gelf_getshdr(scn, &sh))
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (sh.sh_type == SHT_SYMTAB)
			symtab = scn;
		else if (sh.sh_type == SHT_DYNSYM)
			dynsym = scn;
		else if (sh.sh_type == SHT_DYNAMIC)
			read_dynamic(u, elf, scn, &sh);
		else if (sh.sh_type == SHT_RELA && (sh.sh_flags & SHF_ALLOC))
			read_relocs(elf, scn, &sh, &slots, &nslots);
		else if (name && !strcmp(name, ".plt"))
			plts[0] = scn;
		else if (name && !strcmp(name, ".plt.sec"))
			plts[1] = scn;
		else if (name && !strcmp(name, ".plt.got"))
			plts[2] = scn;
		else if (name && sh.sh_type == SHT_NOTE && !strcmp(name, ".note.stapsdt"))
			notes = scn;
		else if (name && !strcmp(name, ".stapsdt.base"))
			stapsdt_base = sh.sh_addr;
		else if (sh.sh_type == SHT_NOTE && !u->build_id) {
			Elf_Data *d = elf_getdata(scn, NULL);
			size_t off = 0, no, dno;
			GElf_Nhdr nh;
			while (d && (off = gelf_getnote(d, off, &nh, &no, &dno)) > 0)
				if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
				    !memcmp((char *)d->d_buf + no, "GNU", 4))
					u->build_id = hex_string((unsigned char *)d->d_buf + dno, nh.n_descsz);
		}
	}
	size_t cap = 0;
	Elf_Scn *syms = symtab ? symtab : dynsym;
	if (syms) {
		GElf_Shdr sh;
		if (gelf_getshdr(syms, &sh))
			read_symtab(u, elf, syms, &sh, &cap);
		u->syms_dynamic = syms == dynsym;
	}
	qsort(u->syms, u->nsyms, sizeof *u->syms, sym_cmp);
	if (notes)
		read_notes(u, elf, notes, stapsdt_base);
	for (int k = 0; k < 3; k++) {
		GElf_Shdr sh;
		if (plts[k] && gelf_getshdr(plts[k], &sh))
			read_plt(u, plts[k], &sh, slots, nslots);
	}
	for (size_t k = 0; k < nslots; k++)
		free(slots[k].name);
	free(slots);
	elf_end(elf);
	close(fd);
	return u;
fail:
	if (elf)
		elf_end(elf);
	close(fd);
	return NULL;
}

const struct user_elf *user_elf_open(const char *path, char **why)
{
	for (size_t i = 0; i < opened.n; i++)
		if (!strcmp(((struct user_elf *)opened.v[i])->path, path))
			return opened.v[i];
	struct user_elf *u = read_user_elf(path, why);
	if (u)
		pv_push(&opened, u);
	return u;
}

void user_elf_forget_all(void)
{
	opened = (struct ptrvec){ 0 };
}

bool user_elf_offset(const struct user_elf *u, uint64_t vaddr, uint64_t *offset)
{
	for (size_t i = 0; i < u->nsegs; i++) {
		const struct user_segment *s = &u->segs[i];
		if (vaddr >= s->vaddr && vaddr - s->vaddr < s->filesz) {
			*offset = vaddr - s->vaddr + s->offset;
			return true;
		}
	}
	return false;
}

const struct user_sym *user_elf_symbol(const struct user_elf *u, const char *name)
{
	size_t lo = 0, hi = u->nsyms;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (strcmp(u->syms[mid].name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < u->nsyms && !strcmp(u->syms[lo].name, name) ? &u->syms[lo] : NULL;
}

/* dir/name if it is a file, symlinks resolved; NULL otherwise. */
static char *lib_in(const char *dir, const char *name)
{
	char *p = path_join(dir, name);
	char *real = file_exists(p) ? realpath(p, NULL) : NULL;
	free(p);
	return real;
}

/* The directories the dynamic linker searches for prog's libraries. */
static void lib_dirs(const struct user_elf *prog, struct ptrvec *dirs)
{
	if (prog && prog->runpath) {
		char *dir = xstrdup(prog->path), *slash = strrchr(dir, '/');
		if (slash)
			*slash = 0;
		char *rp = str_replace_all(prog->runpath, "$ORIGIN", dir);
		char *save = NULL;
		for (char *t = strtok_r(rp, ":", &save); t; t = strtok_r(NULL, ":", &save))
			pv_push(dirs, xstrdup(t));
		free(rp);
		free(dir);
	}
	for (size_t i = 0; i < ARRAY_SIZE(system_lib_dirs); i++)
		pv_push(dirs, xstrdup(system_lib_dirs[i]));
}

/* The libraries prog needs, and theirs (what ldd lists), breadth first,
 * whose names match pattern: into found (paths), the first only when
 * first_only. */
static void needed_matching(const struct user_elf *prog, const struct ptrvec *dirs,
			    const char *pattern, bool first_only, struct ptrvec *found)
{
	struct ptrvec seen = { 0 };
	if (prog)
		pv_push(&seen, xstrdup(prog->path));
	for (size_t k = 0; k < seen.n && k < 64 && !(first_only && found->n); k++) {
		char *w = NULL;
		const struct user_elf *u = user_elf_open(seen.v[k], &w);
		free(w);
		for (size_t i = 0; u && i < u->nneeded && !(first_only && found->n); i++) {
			char *path = NULL;
			for (size_t d = 0; d < dirs->n && !path; d++)
				path = lib_in(dirs->v[d], u->needed[i]);
			if (!path)
				continue;
			if (!fnmatch(pattern, u->needed[i], 0) && !pv_has_string(found, path))
				pv_push(found, xstrdup(path));
			if (!pv_has_string(&seen, path))
				pv_push(&seen, path);
			else
				free(path);
		}
	}
	pv_free_all(&seen);
}

char *user_find_library(const struct user_elf *prog, const char *lib, char **why)
{
	if (strchr(lib, '/')) {
		char *real = realpath(lib, NULL);
		if (!real)
			*why = xasprintf("%s: %s", lib, strerror(errno));
		return real;
	}
	struct ptrvec dirs = { 0 }, found = { 0 };
	lib_dirs(prog, &dirs);
	needed_matching(prog, &dirs, lib, true, &found);
	char *path = found.n ? xstrdup(found.v[0]) : NULL;
	for (size_t d = 0; d < dirs.n && !path; d++)
		path = lib_in(dirs.v[d], lib);
	if (!path)
		*why = xasprintf("no library '%s'%s%s: it is not among the libraries the program needs, "
				 "nor in the system's library directories",
				 lib, prog ? " for " : "", prog ? prog->path : "");
	pv_free_all(&found);
	pv_free_all(&dirs);
	return path;
}

void user_runtime_files(const struct user_elf *prog, struct ptrvec *asked, struct ptrvec *real)
{
	pv_push(asked, xstrdup(prog->path));
	pv_push(real, xstrdup(prog->path));
	if (prog->interp) {
		char *r = realpath(prog->interp, NULL);
		if (r) {
			pv_push(asked, xstrdup(prog->interp));
			pv_push(real, r);
		}
	}
	struct ptrvec dirs = { 0 }, seen = { 0 };
	lib_dirs(prog, &dirs);
	pv_push(&seen, xstrdup(prog->path));
	for (size_t k = 0; k < seen.n && k < 256; k++) {
		char *w = NULL;
		const struct user_elf *u = user_elf_open(seen.v[k], &w);
		free(w);
		for (size_t i = 0; u && i < u->nneeded; i++) {
			for (size_t d = 0; d < dirs.n; d++) {
				char *p = path_join(dirs.v[d], u->needed[i]);
				char *r = file_exists(p) ? realpath(p, NULL) : NULL;
				if (!r) {
					free(p);
					continue;
				}
				if (!pv_has_string(asked, p)) {
					pv_push(asked, p);
					pv_push(real, xstrdup(r));
				} else {
					free(p);
				}
				if (!pv_has_string(&seen, r))
					pv_push(&seen, r);
				else
					free(r);
				break;
			}
		}
	}
	pv_free_all(&seen);
	pv_free_all(&dirs);
}

void user_find_libraries(const struct user_elf *prog, const char *pattern, struct ptrvec *paths)
{
	struct ptrvec dirs = { 0 };
	lib_dirs(prog, &dirs);
	needed_matching(prog, &dirs, pattern, false, paths);
	pv_free_all(&dirs);
}
