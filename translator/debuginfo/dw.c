// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * DWARF through libdwfl (dw.h). Each module's debug file (a loose file, or
 * a member of an offline archive) is reported to one offline Dwfl; libdwfl
 * lays out and relocates its sections. Addresses are kept two ways:
 * DWARF's own (dwarf_* calls, unbiased) for everything read from the DIEs,
 * and section-relative (through dwfl_module_relocate_address, after adding
 * the module's bias) for where a probe goes, which is the same whether the
 * file came from an archive or not.
 *
 * A probe goes at the function's entry address. There the x86-64 ABI
 * fixes the canonical frame address (rsp + 8), so frame-based locations
 * need no call frame information.
 *
 * This file holds the objects: finding and attaching a module's debug
 * file (an archive member is mapped, and its pages given back), its
 * sections and symbols, the objects by name, parked and revived
 * (dw_begin, dw_end, dw_release, usable_obj, load_dwarf). What is read
 * through them is in dw-types.c, dw-locations.c, dw-functions.c,
 * dw-statements.c, dw-inlines.c and dw-globals.c, apart because each is
 * a probe point or a question of its own; dw-private.h is what they share.
 */
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "debuginfo/dw-private.h"

static char *debuginfo_path = NULL;

/* Every file Tapline reports carries its DWARF (debugfind and debuginfod
 * found it): libdwfl need not search the disk for another. */
static int no_separate_debuginfo(Dwfl_Module *mod, void **ud, const char *modname,
				 GElf_Addr base, const char *file, const char *debuglink,
				 GElf_Word crc, char **debuginfo_file)
{
	return -1;
}

static const Dwfl_Callbacks offline_callbacks = {
	.find_debuginfo = no_separate_debuginfo,
	.section_address = dwfl_offline_section_address,
	.debuginfo_path = &debuginfo_path,
};

/* User programs and libraries: their debug files are found by libdwfl
 * (.gnu_debuglink, /usr/lib/debug/.build-id/, then debuginfod). */
static const Dwfl_Callbacks user_callbacks = {
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
	.debuginfo_path = &debuginfo_path,
};

void dw_user_debug_dirs(struct dw *d, const struct ptrvec *dirs)
{
	struct strbuf b;
	sb_init(&b);
	/* '+': check CRCs; the file's own directory and .debug/ under it;
	 * then the system's tree and each --debuginfo-path directory. */
	sb_puts(&b, "+:.debug:/usr/lib/debug");
	for (size_t i = 0; dirs && i < dirs->n; i++)
		sb_printf(&b, ":%s", (char *)dirs->v[i]);
	free(d->user_debug_path);
	d->user_debug_path = sb_detach(&b);
}

struct dw *dw_begin(struct debug_index *ix, const struct kernel *kernel, bool verbose)
{
	struct dw *d = xcalloc(1, sizeof *d);
	d->ix = ix;
	d->kernel = kernel;
	d->release = kernel ? kernel->release : NULL;
	d->kernel_build_id = kernel ? kernel->build_id : NULL;
	d->verbose = verbose;
	return d;
}

/* Symbols whose name another one has too are not unique: found through a
 * table of their names' hashes (sorting a large module's symbols cost
 * more than the rest of opening it). */
static void mark_shared_names(struct dw_sym *syms, size_t n)
{
	size_t cap = 16;
	while (cap < 2 * n)
		cap *= 2;
	size_t *slot = xmalloc(cap * sizeof *slot), none = SIZE_MAX;
	for (size_t i = 0; i < cap; i++)
		slot[i] = none;
	for (size_t i = 0; i < n; i++) {
		size_t k = syms[i].hash & (cap - 1);
		for (; slot[k] != none; k = (k + 1) & (cap - 1)) {
			struct dw_sym *y = &syms[slot[k]];
			if (y->hash == syms[i].hash && !strcmp(y->name, syms[i].name)) {
				y->unique = syms[i].unique = false;
				break;
			}
		}
		if (slot[k] == none)
			slot[k] = i;
	}
	free(slot);
}

static const char *section_name(Elf *elf, size_t shndx)
{
	size_t shstrndx;
	GElf_Shdr sh;
	Elf_Scn *scn = elf_getscn(elf, shndx);
	if (!scn || !gelf_getshdr(scn, &sh) || elf_getshdrstrndx(elf, &shstrndx) != 0)
		return NULL;
	return elf_strptr(elf, shstrndx, sh.sh_name);
}

/* The allocated sections of one ET_REL file as it is on disk. */
struct layout {
	char *member;        /* in an archive, else NULL */
	bool laid_out;       /* its sections have addresses already */
	struct dw_section *secs;
	size_t nsecs;
};

static void read_sections(Elf *elf, struct layout *lay)
{
	size_t shstrndx, cap = 0;
	GElf_Ehdr eh;
	if (!gelf_getehdr(elf, &eh) || eh.e_type != ET_REL || elf_getshdrstrndx(elf, &shstrndx) != 0)
		return;
	for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn; scn = elf_nextscn(elf, scn)) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_ALLOC))
			continue;
		/* Placed code says so; data may have an address anyway (6.12's
		 * ld -r gives .data and __patchable_function_entries one). */
		lay->laid_out |= (sh.sh_flags & SHF_EXECINSTR) && sh.sh_size && sh.sh_addr != 0;
		const char *name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (lay->nsecs == cap) {
			cap = cap ? 2 * cap : 8;
			lay->secs = xrealloc(lay->secs, cap * sizeof *lay->secs);
		}
		lay->secs[lay->nsecs++] = (struct dw_section){ xstrdup(name ? name : "?"), sh.sh_addr,
							       sh.sh_size };
	}
}

static struct mapped *archive_of(struct dw *d, const char *path)
{
	for (size_t i = 0; i < d->mapped.n; i++)
		if (!strcmp(((struct mapped *)d->mapped.v[i])->path, path))
			return d->mapped.v[i];
	struct mapped *m = xcalloc(1, sizeof *m);
	m->path = xstrdup(path);
	m->fd = -1;
	pv_push(&d->mapped, m);
	return m;
}

/* The archive open for pread (-1 if it cannot be). */
static int archive_fd(struct mapped *m)
{
	if (m->fd < 0)
		m->fd = open(m->path, O_RDONLY | O_CLOEXEC);
	return m->fd;
}

/* An archive member's bytes, from the archive mapped once; NULL when the
 * archive is shorter than its index says. */
char *member_bytes(struct dw *d, const struct debug_file *f)
{
	struct mapped *m = archive_of(d, f->path);
	if (!m->map_tried) {
		m->map_tried = true;
		int fd = open(f->path, O_RDONLY | O_CLOEXEC);
		struct stat st;
		if (fd >= 0 && fstat(fd, &st) == 0 && st.st_size > 0) {
			void *p = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
			if (p != MAP_FAILED) {
				m->base = p;
				m->size = (size_t)st.st_size;
			}
		}
		if (fd >= 0)
			close(fd);
	}
	if (!m->base || f->member_off < 0 || (size_t)f->member_off > m->size ||
	    f->member_size > m->size - (size_t)f->member_off)
		return NULL;
	return m->base + f->member_off;
}

static void read_layout(struct dw_obj *o, const struct debug_file *f)
{
	const struct layout *lay = NULL;
	struct layout own = { 0 };
	if (f->member) {
		char *data = member_bytes(o->d, f);
		Elf *elf = data ? elf_memory(data, f->member_size) : NULL;
		if (elf) {
			read_sections(elf, &own);
			elf_end(elf);
		}
		lay = &own;
	} else {
		int fd = open(f->path, O_RDONLY | O_CLOEXEC);
		Elf *elf = fd >= 0 ? elf_begin(fd, ELF_C_READ_MMAP, NULL) : NULL;
		if (elf) {
			read_sections(elf, &own);
			elf_end(elf);
		}
		if (fd >= 0)
			close(fd);
		lay = &own;
	}
	if (!lay)
		return;
	o->laid_out = lay->laid_out;
	o->secs = lay->secs;
	o->nsecs = lay->nsecs;
}

/*
 * A DWARF address as a section and an offset in it, which is what stays
 * the same however the module is laid out. libdwfl relocates a plain
 * module's DWARF into its own layout; an archive member arrives with its
 * sections already placed, and its DWARF says those addresses.
 */
const char *dwarf_to_section(struct dw_obj *o, Dwarf_Addr pc, uint64_t *off)
{
	if (!o->laid_out) {
		Dwarf_Addr a = pc + o->bias;
		int sec = dwfl_module_relocate_address(o->mod, &a);
		if (sec < 0)
			return NULL;
		*off = a;
		return dwfl_module_relocation_info(o->mod, (unsigned)sec, NULL);
	}
	for (size_t i = 0; i < o->nsecs; i++) {
		const struct dw_section *sc = &o->secs[i];
		if (pc >= sc->addr && pc < sc->addr + sc->size) {
			*off = pc - sc->addr;
			return sc->name;
		}
	}
	return NULL;
}

/* The module's function and data symbols, each marked unique or not. A
 * module is ET_REL: a symbol's value is its offset in its section. */
static void read_symbols(struct dw_obj *o)
{
	int n = dwfl_module_getsymtab(o->mod);
	if (n <= 0)
		return;
	o->syms = xcalloc((size_t)n, sizeof *o->syms);
	for (int i = 0; i < n; i++) {
		GElf_Sym sym;
		GElf_Word shndx;
		Elf *elf;
		GElf_Addr value;
		const char *name = dwfl_module_getsym_info(o->mod, i, &sym, &value, &shndx, &elf, NULL);
		int type = GELF_ST_TYPE(sym.st_info);
		if (!name || !*name || (type != STT_FUNC && type != STT_OBJECT) ||
		    shndx == SHN_UNDEF || shndx >= SHN_LORESERVE || !elf)
			continue;
		const char *sec = section_name(elf, shndx);
		if (!sec)
			continue;
		o->syms[o->nsyms++] = (struct dw_sym){ name, sec, sym.st_value, value, true,
						       type == STT_FUNC,
						       hash_bytes(HASH_INIT, name, strlen(name)) };
	}
	mark_shared_names(o->syms, o->nsyms);
}

/* The value (libdwfl's address) of the first symbol named name, of ELF
 * symbol type type (-1: any), in o's symbol table. */
bool symtab_value(struct dw_obj *o, const char *name, int type, GElf_Addr *value)
{
	int n = dwfl_module_getsymtab(o->mod);
	for (int i = 0; i < n; i++) {
		GElf_Sym sym;
		GElf_Addr v;
		const char *sn = dwfl_module_getsym_info(o->mod, i, &sym, &v, NULL, NULL, NULL);
		if (sn && (type < 0 || GELF_ST_TYPE(sym.st_info) == type) && !strcmp(sn, name)) {
			*value = v;
			return true;
		}
	}
	return false;
}

/* A global symbol's value read from the ELF symbol table itself, from
 * its first global (sh_info), raw: libdwfl's reader (symtab_value) gets
 * the whole table ready first, vmlinux's 100,000 local symbols come
 * before its globals, and libelf copies a table its archive left
 * unaligned; milliseconds a script probing named functions need not
 * spend. */
static bool elf_global_value(Elf *elf, GElf_Addr bias, const char *name, GElf_Addr *value)
{
	if (gelf_getclass(elf) != ELFCLASS64)
		return false;
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(elf, scn));) {
		GElf_Shdr sh;
		Elf_Data *data, *strs;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB ||
		    sh.sh_entsize != sizeof(Elf64_Sym) || !(data = elf_rawdata(scn, NULL)) ||
		    !(strs = elf_rawdata(elf_getscn(elf, sh.sh_link), NULL)) || !strs->d_size)
			continue;
		const char *str = strs->d_buf;
		size_t n = data->d_size / sizeof(Elf64_Sym), len = strlen(name);
		for (size_t i = sh.sh_info; i < n; i++) {
			Elf64_Sym sym;
			memcpy(&sym, (const char *)data->d_buf + i * sizeof sym, sizeof sym);
			if (len < strs->d_size && sym.st_name < strs->d_size - len &&
			    !memcmp(str + sym.st_name, name, len + 1)) {
				*value = sym.st_value + bias;
				return true;
			}
		}
	}
	return false;
}

/* Report one debug file (or archive member) for o; false with o->why. */
static bool attach(struct dw_obj *o, const struct debug_file *f)
{
	struct dw *d = o->d;
	/* Another file after one that would not do: start again. */
	if (o->dwfl)
		dwfl_end(o->dwfl);
	o->mod = NULL;
	free(o->syms);
	o->syms = NULL;
	o->nsyms = 0;
	o->is_user = o->name[0] == '/';
	if (o->is_user)
		debuginfo_path = d->user_debug_path;
	o->dwfl = dwfl_begin(o->is_user ? &user_callbacks : &offline_callbacks);
	if (!o->dwfl)
		fatal("libdwfl: %s", dwfl_errmsg(-1));
	free(o->file);
	o->file = f->member ? xasprintf("%s(%s)", f->path, f->member) : xstrdup(f->path);
	/* Before libdwfl sees the file: it rewrites the section addresses in
	 * its copy (for a member, the very bytes read here). */
	read_layout(o, f);
	if (f->member) {
		/* Only this member: reporting the whole archive would open every
		 * module in it. */
		char *data = member_bytes(d, f);
		if (!data) {
			o->why = xstrdup("the archive cannot be read (truncated?)");
			return false;
		}
		o->mod = dwfl_report_offline_memory(o->dwfl, o->name, o->file, data, f->member_size);
	} else {
		o->mod = dwfl_report_offline(o->dwfl, o->name, f->path, -1);
	}
	dwfl_report_end(o->dwfl, NULL, NULL);
	if (!o->mod) {
		o->why = xasprintf("libdwfl cannot read it: %s", dwfl_errmsg(-1));
		return false;
	}
	const unsigned char *id;
	GElf_Addr vaddr;
	int n = dwfl_module_build_id(o->mod, &id, &vaddr);
	free(o->build_id);
	o->build_id = n > 0 ? hex_string(id, (size_t)n) : NULL;
	GElf_Addr ebias;
	Elf *elf = dwfl_module_getelf(o->mod, &ebias);
	GElf_Ehdr eh;
	o->is_kernel = !strcmp(o->name, "kernel");
	if (o->is_user) {
		if (!elf || !gelf_getehdr(elf, &eh) || (eh.e_type != ET_EXEC && eh.e_type != ET_DYN)) {
			o->why = xstrdup("it is not an executable or a shared library");
			return false;
		}
		o->elf_bias = ebias;
		return true;
	}
	if (!elf || !gelf_getehdr(elf, &eh) || eh.e_type != (o->is_kernel ? ET_EXEC : ET_REL)) {
		o->why = xstrdup(o->is_kernel ? "it is not a vmlinux (an ET_EXEC file)"
					      : "it is not a kernel module (an ET_REL file)");
		return false;
	}
	if (o->is_kernel) {
		/* Where _text is: kernel probe sites are offsets from it. */
		if (!elf_global_value(elf, ebias, "_text", &o->text_addr))
			symtab_value(o, "_text", -1, &o->text_addr);
		if (!o->text_addr) {
			o->why = xstrdup("its symbol table has no _text");
			return false;
		}
		return true;
	}
	read_symbols(o);
	return true;
}

/*
 * The debug information of module, in this order: the module file itself
 * when it was named by path and carries DWARF; what debugfind found
 * (archives, then loose files), unless its build-id differs from the
 * module's; then debuginfod, by the module's build-id.
 */
static struct dw_obj **obj_slot(struct dw *d, const char *module)
{
	size_t mask = d->by_name_cap - 1;
	size_t i = hash_bytes(HASH_INIT, module, strlen(module)) & mask;
	while (d->by_name[i] && strcmp(d->by_name[i]->name, module))
		i = (i + 1) & mask;
	return &d->by_name[i];
}

/* The module's object if it was opened (or tried) already. */
struct dw_obj *find_obj(struct dw *d, const char *module)
{
	return d->by_name_cap ? *obj_slot(d, module) : NULL;
}

static void add_obj(struct dw *d, struct dw_obj *o)
{
	pv_push(&d->objs, o);
	if (2 * d->objs.n > d->by_name_cap) {
		free(d->by_name);
		d->by_name_cap = d->by_name_cap ? 2 * d->by_name_cap : 64;
		d->by_name = xcalloc(d->by_name_cap, sizeof *d->by_name);
		for (size_t i = 0; i < d->objs.n; i++) {
			struct dw_obj *x = d->objs.v[i];
			*obj_slot(d, x->name) = x;
		}
	} else {
		*obj_slot(d, o->name) = o;
	}
}

/* Takes o out of d's table (backward-shift deletion keeps every other
 * name's probe sequence unbroken). */
static void remove_obj(struct dw *d, struct dw_obj *o)
{
	for (size_t i = 0; i < d->objs.n; i++)
		if (d->objs.v[i] == o) {
			d->objs.v[i] = d->objs.v[--d->objs.n];
			break;
		}
	size_t mask = d->by_name_cap - 1;
	size_t hole = (size_t)(obj_slot(d, o->name) - d->by_name);
	d->by_name[hole] = NULL;
	for (size_t j = (hole + 1) & mask; d->by_name[j]; j = (j + 1) & mask) {
		size_t home = hash_bytes(HASH_INIT, d->by_name[j]->name,
					 strlen(d->by_name[j]->name)) & mask;
		/* Moves back unless its home lies cyclically in (hole, j]. */
		if ((j > hole && (home <= hole || home > j)) || (j < hole && home <= hole && home > j)) {
			d->by_name[hole] = d->by_name[j];
			d->by_name[j] = NULL;
			hole = j;
		}
	}
}

/* The size of the attached file's .debug_info as stored (compressed or
 * not); 0 when it has none: no DWARF. */
uint64_t debug_info_size(struct dw_obj *o)
{
	GElf_Addr bias;
	Elf *elf = dwfl_module_getelf(o->mod, &bias);
	size_t shstrndx;
	if (!elf || elf_getshdrstrndx(elf, &shstrndx) != 0)
		return 0;
	for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn; scn = elf_nextscn(elf, scn)) {
		GElf_Shdr sh;
		const char *n;
		if (gelf_getshdr(scn, &sh) && sh.sh_type != SHT_NOBITS &&
		    (n = elf_strptr(elf, shstrndx, sh.sh_name)) &&
		    (!strcmp(n, ".debug_info") || !strcmp(n, ".zdebug_info")))
			return sh.sh_size;
	}
	return 0;
}

static struct dw_obj *open_obj(struct dw *d, const char *module, const char *module_file)
{
	struct dw_obj *o = find_obj(d, module);
	if (o)
		return o;
	o = xcalloc(1, sizeof *o);
	o->d = d;
	o->name = xstrdup(module);
	bool kernel = !strcmp(module, "kernel");
	if (module[0] == '/') {
		/* A user file: libdwfl finds its debug file itself. */
		struct debug_file own = { .module = o->name, .path = (char *)module };
		if (!attach(o, &own) && !o->why)
			o->why = xstrdup("it cannot be read");
		add_obj(d, o);
		if (!o->why && d->verbose)
			fprintf(stderr, "Symbols of %s: %s (build-id %s)\n", module, o->file,
				o->build_id ? o->build_id : "unknown");
		return o;
	}
	const char *inst = kernel ? NULL : debugfind_installed(d->ix, module);
	char *installed = module_file ? xstrdup(module_file) : inst ? xstrdup(inst) : NULL;
	char *want = installed ? debugfind_build_id(installed) : NULL;
	if (kernel && d->kernel_build_id) {
		want = xstrdup(d->kernel_build_id);
		installed = xasprintf("kernel %s", d->release);
	}
	const struct debug_file *f = debugfind(d->ix, module), *stripped = NULL;
	struct debug_file own = { .module = o->name, .path = installed };
	bool ok = false;
	if (module_file && debugfind_has_dwarf(module_file)) {
		ok = attach(o, &own);
	} else {
		/* Each place that has it, in order, until one will do: an archive
		 * may hold a stripped kernel where a loose vmlinux has DWARF, and
		 * eu-make-debug-archive puts 6.12's modules in without theirs
		 * (it looks for ext4.ko.xz's debug file under that name). One
		 * without DWARF does only when no later one has it. */
		for (; f && !ok; f = debugfind_next(d->ix, f)) {
			free(o->why);
			o->why = NULL;
			ok = attach(o, f);
			if (ok && want && o->build_id && strcmp(want, o->build_id)) {
				fprintf(stderr,
					"stap: warning: skipping %s: its build-id %s is not the build-id "
					"%s of the module %s\n",
					o->file, o->build_id, want, installed);
				pv_push(&d->ix->looked,
					xasprintf("%s (stale: build-id %s, the module has %s)", o->file,
						  o->build_id, want));
				ok = false;
				o->why = xasprintf("its build-id %s differs from the module's %s (%s)",
						   o->build_id, want, installed);
			} else if (!ok) {
				pv_push(&d->ix->looked, xasprintf("%s (%s)", o->file, o->why));
			} else if (!debug_info_size(o)) {
				if (!stripped)
					stripped = f;
				pv_push(&d->ix->looked, xasprintf("%s (no DWARF)", o->file));
				o->why = xstrdup("it has no DWARF");
				ok = false;
			}
		}
	}
	/* The build-id link a -dbg package installs: .build-id/ab/cdef....debug */
	if (!ok && want && strlen(want) > 2 && !getenv("TAPLINE_NO_SYSTEM_DEBUGINFO")) {
		char *link = xasprintf("/usr/lib/debug/.build-id/%.2s/%s.debug", want, want + 2);
		if (file_exists(link)) {
			free(o->why);
			o->why = NULL;
			struct debug_file byid = { .module = o->name, .path = link };
			ok = attach(o, &byid);
		} else {
			pv_push(&d->ix->looked, xasprintf("%s (no such file)", link));
		}
		free(link);
	}
	if (!ok && want) {
		char *path = debugfind_debuginfod(d->ix, want, module);
		if (path) {
			free(o->why);
			o->why = NULL;
			struct debug_file got = { .module = o->name, .path = path };
			ok = attach(o, &got);
			free(path);
		}
	}
	/* Its symbols, at least (kprobe.function, .call by name). */
	if (!ok && stripped) {
		free(o->why);
		o->why = NULL;
		ok = attach(o, stripped);
	}
	free(installed);
	free(want);
	if (!ok && !o->why && !o->mod) {
		free(o->name);
		free(o->file);
		free(o);
		return NULL;
	}
	add_obj(d, o);
	if (ok && d->verbose)
		fprintf(stderr, "Debuginfo of %s: %s (build-id %s)\n", module, o->file,
			o->build_id ? o->build_id : "unknown");
	return o;
}

/* The module's DWARF, read (and, for a plain file, relocated) only when
 * something needs it. */
bool load_dwarf(struct dw_obj *o)
{
	if (o->dbg || o->why)
		return o->dbg != NULL;
	o->dbg = dwfl_module_getdwarf(o->mod, &o->bias);
	if (!o->dbg)
		o->why = xasprintf("it has no usable DWARF (%s)", dwfl_errmsg(-1));
	return o->dbg != NULL;
}

struct dw_obj *usable_obj(struct dw *d, const char *module, const char *module_file,
			  bool dwarf, char **why)
{
	struct dw_obj *o = open_obj(d, module, module_file);
	if (!o) {
		*why = NULL;
		return NULL;
	}
	if (o->why || !revive(o) || (dwarf && !load_dwarf(o))) {
		*why = xasprintf("%s: %s", o->file, o->why);
		return NULL;
	}
	o->src = (struct type_source){ complete_type, o };
	return o;
}

/* len bytes at off of the member into a new buffer, or NULL when they
 * are not all inside it or cannot be read. */
void *member_read(int fd, const struct debug_file *f, uint64_t off, uint64_t len)
{
	if (off > f->member_size || len > f->member_size - off || len > ((uint64_t)1 << 31))
		return NULL;
	char *buf = xmalloc(len ? (size_t)len : 1);
	if (pread(fd, buf, (size_t)len, (off_t)(f->member_off + (long long)off)) != (ssize_t)len) {
		free(buf);
		return NULL;
	}
	return buf;
}

/*
 * An archive member's ELF header (into *eh) and section headers (a new
 * array of eh->e_shnum), read with pread, which brings into memory only
 * what is read; NULL when it is not a plain 64-bit little-endian ELF file
 * or cannot be read. *m: its archive, open.
 */
Elf64_Shdr *member_sections(struct dw *d, const struct debug_file *f, Elf64_Ehdr *eh,
			    struct mapped **m)
{
	*m = archive_of(d, f->path);
	Elf64_Ehdr *h = archive_fd(*m) >= 0 ? member_read((*m)->fd, f, 0, sizeof *h) : NULL;
	if (!h)
		return NULL;
	*eh = *h;
	free(h);
	if (memcmp(eh->e_ident, ELFMAG, SELFMAG) || eh->e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh->e_ident[EI_DATA] != ELFDATA2LSB || eh->e_shentsize != sizeof(Elf64_Shdr) ||
	    !eh->e_shnum || eh->e_shstrndx >= eh->e_shnum)
		return NULL;
	return member_read((*m)->fd, f, eh->e_shoff, (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr));
}

void dw_end(struct dw *d)
{
	for (size_t i = 0; i < d->objs.n; i++) {
		struct dw_obj *o = d->objs.v[i];
		if (o->dwfl)
			dwfl_end(o->dwfl);
	}
	free(d->by_name);
	for (size_t i = 0; i < d->mapped.n; i++) {
		struct mapped *m = d->mapped.v[i];
		if (m->base)
			munmap(m->base, m->size);
		if (m->fd >= 0)
			close(m->fd);
		free(m->path);
		free(m);
	}
	pv_free(&d->mapped);
	pv_free(&d->objs);
	free(d);
}

/*
 * A wildcard over modules opens each one that may match; one that gave
 * nothing keeps libdw's copy of its DWARF (decompressed, for 6.12's loose
 * debug files: 5.7 GB over every module) for nothing. Closed here, it is
 * opened again if a later query asks.
 */

/* Closes o's files, and drops all that points into their data: symbol
 * names, the inline index, the type definitions' index, file tables. */
static void close_files(struct dw_obj *o)
{
	inline_index_free(o->inlines);
	o->inlines = NULL;
	for (size_t i = 0; i < o->unit_files.n; i++) {
		struct unit_files *uf = o->unit_files.v[i];
		line_files_free(&uf->lf);
		free(uf);
	}
	pv_free(&o->unit_files);
	o->raw_read = false;
	memset(&o->lines, 0, sizeof o->lines);
	memset(&o->scan, 0, sizeof o->scan);
	free(o->fsyms);
	o->fsyms = NULL;
	o->nfsyms = 0;
	o->fsyms_made = false;
	free(o->syms);
	o->syms = NULL;
	o->nsyms = 0;
	free(o->defs);
	o->defs = NULL;
	o->ndefs = o->defs_cap = 0;
	o->defs_next_unit = 0;
	o->defs_all_read = false;
	if (o->dwfl)
		dwfl_end(o->dwfl);
	o->dwfl = NULL;
	o->mod = NULL;
	o->dbg = NULL;
}

/* A parked object's files again, the same build; false with o->why. */
bool revive(struct dw_obj *o)
{
	if (!o->parked)
		return true;
	o->parked = false;
	char *path = xstrdup(o->file), *id = o->build_id ? xstrdup(o->build_id) : NULL;
	struct debug_file f = { .module = o->name, .path = path };
	bool ok = attach(o, &f);
	if (ok && id && (!o->build_id || strcmp(id, o->build_id))) {
		o->why = xasprintf("it changed while the script was being translated");
		ok = false;
	}
	free(path);
	free(id);
	return ok;
}

/*
 * A wildcard over modules opens each one that may match, and libdwfl
 * keeps each one's DWARF in memory, relocated (6.12's loose debug files:
 * 3.2 GB over every module with a *_probe function). One that gave
 * nothing is freed; one that gave sites is parked, and its files opened
 * again only if its sites' variables or types are asked for. Archive
 * members stay: their pages are given back already (member_release),
 * and libdwfl rewrote their headers in place, so they cannot be read
 * afresh.
 */
void dw_release(struct dw *d, const char *module)
{
	struct dw_obj *o = find_obj(d, module);
	if (!o || o->is_kernel || o->is_user || o->parked)
		return;
	if (o->kept) {
		if (o->why || !o->file || strchr(o->file, '('))
			return;
		close_files(o);
		o->parked = true;
		return;
	}
	remove_obj(d, o);
	close_files(o);
	for (size_t i = 0; i < o->nsecs; i++)
		free(o->secs[i].name);
	free(o->secs);
	free(o->cu_ranges);
	free(o->types);
	free(o->name);
	free(o->file);
	free(o->build_id);
	free(o->why);
	free(o);
}

static void release_range(char *lo, char *hi)
{
	if (hi > lo)
		madvise(lo, (size_t)(hi - lo), MADV_DONTNEED);
}

/*
 * Gives back the pages of an archive member mapped into the process, after
 * a wildcard's walk of its DWARF: a later read maps them again from the
 * page cache. A wildcard over every module otherwise ends with most of the
 * archive mapped (2.4 GiB of Debian's 2.9 GB). Only the member's own whole
 * pages, less those of its section headers (libdwfl writes the sections'
 * addresses there, into private copies a release would throw away), and
 * only for a member without relocations of its DWARF (libdwfl would have
 * applied them in place, in private copies too; eu-make-debug-archive
 * applies them beforehand).
 */
void member_release(struct dw *d, const struct debug_file *f)
{
	Elf64_Ehdr ehdr = { 0 }, *eh = &ehdr;
	struct mapped *m;
	Elf64_Shdr *sh = member_sections(d, f, eh, &m);
	if (!sh || !m->base || (size_t)f->member_off > m->size ||
	    f->member_size > m->size - (size_t)f->member_off)
		goto out;
	/* libdwfl relocates the sections that are not loaded (the DWARF);
	 * eu-unstrip -R leaves their relocation sections empty. */
	for (size_t i = 0; i < eh->e_shnum; i++)
		if ((sh[i].sh_type == SHT_REL || sh[i].sh_type == SHT_RELA) && sh[i].sh_size &&
		    (sh[i].sh_info >= eh->e_shnum || (!(sh[sh[i].sh_info].sh_flags & SHF_ALLOC) &&
						      sh[sh[i].sh_info].sh_type != SHT_NOBITS)))
			goto out;
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t start = (uintptr_t)m->base + (uintptr_t)f->member_off;
	uintptr_t lo = (start + page - 1) & ~(page - 1);
	uintptr_t hi = (start + f->member_size) & ~(page - 1);
	uintptr_t hdr_lo = (start + eh->e_shoff) & ~(page - 1);
	uintptr_t hdr_hi = (start + eh->e_shoff + eh->e_shnum * sizeof *sh + page - 1) & ~(page - 1);
	release_range((char *)lo, (char *)(hdr_lo < hi ? hdr_lo : hi));
	release_range((char *)(hdr_hi > lo ? hdr_hi : lo), (char *)hi);
out:
	free(sh);
}
