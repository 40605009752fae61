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
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "debuginfo/dw.h"
#include "debuginfo/dwscan.h"
#include "debuginfo/linefiles.h"
#include "private.h"

/* A function symbol of a module: where the kernel's kallsyms will find it. */
struct dw_sym {
	const char *name;
	const char *section; /* its section's name */
	uint64_t offset;     /* from the section's start */
	uint64_t value;      /* its address in libdwfl's layout */
	bool unique;         /* the only symbol of this name in the module */
	bool is_func;        /* else a data object */
	uint64_t hash;       /* of the name */
};

struct dw_section {
	char *name;
	uint64_t addr, size;
};

/* Types by DIE offset. */
struct type_slot {
	uint64_t key;
	struct ctype *t;
};

struct dw_obj {
	struct dw *d;
	char *name;
	char *file;          /* for messages: "PATH" or "ARCHIVE(MEMBER)" */
	Dwfl *dwfl;          /* its own: one shared by thousands of modules costs n^2 to report */
	Dwfl_Module *mod;
	Dwarf *dbg;
	Dwarf_Addr bias;
	char *build_id;
	char *why;           /* why it cannot be used, or NULL */
	struct dw_sym *syms;
	size_t nsyms;
	/* A file whose sections were already given addresses (eu-unstrip -R,
	 * as archive members are made): DWARF's addresses are those, and these
	 * are its allocated sections as the file has them (libdwfl changes the
	 * addresses in its copy of the headers when it lays the module out). */
	bool laid_out;
	bool is_kernel;      /* vmlinux: sites are offsets from _text */
	bool is_user;        /* a program or library: sites are its virtual addresses */
	GElf_Addr elf_bias;  /* is_user: libdwfl's address of a byte minus the file's */
	Dwarf_Addr text_addr;
	struct dw_section *secs;
	size_t nsecs;
	struct type_slot *types;
	size_t ntypes, types_cap;
	struct type_source src;
	struct ptrvec global_keys, globals; /* dw_global's answers: "name@file" and its tvar */
	/* The units' address ranges, for files without .debug_aranges (clang
	 * leaves them out): made when first needed. */
	struct cu_range *cu_ranges;
	size_t ncu_ranges;
	bool cu_ranges_made;
	struct line_sections lines;      /* for the units' file tables */
	struct dwscan_sections scan;     /* for finding functions in a unit */
	bool raw_read;                   /* lines and scan */
	struct ptrvec unit_files;        /* struct unit_files: the tables read */
	/* find_definition's index of the units' named struct, union, class
	 * and enum definitions, filled one unit at a time as lookups need. */
	struct def_slot *defs;
	size_t ndefs, defs_cap;
	Dwarf_Off defs_next_unit;
	bool defs_all_read;
	/* dw_inlines' index of the units' abstract instances, made once. */
	struct inline_index *inlines;
	/* The kernel's or a user file's function symbols by name, made once:
	 * hundreds of function probes each matched them all (a third of
	 * syscall.*'s pass 2 with the kernel's DWARF). */
	struct func_sym *fsyms;
	size_t nfsyms;
	bool fsyms_made;
	/* Something read from it went out (sites, types, variables, names):
	 * it is not freed before dw_end, only parked. */
	bool kept;
	/* Its files are closed, and what pointed into them dropped; revive
	 * opens them again when it is next needed. */
	bool parked;
};

static bool revive(struct dw_obj *o);
static bool load_dwarf(struct dw_obj *o);

struct func_sym {
	const char *name;
	size_t len;        /* of the name without a clone's ".isra.0" */
	GElf_Addr value;
	uint64_t key;      /* name_key(name, len) */
};

struct def_slot {
	const char *name; /* in the DWARF's string table */
	int tag;
	Dwarf_Off off;
};

struct unit_files {
	uint64_t off;                    /* of the header in .debug_line */
	bool ok;                         /* read; else libdw answers */
	struct line_files lf;
};

/* An archive: mapped into memory for libdwfl (copy-on-write: it may
 * write), once a member is opened; open for pread before that. */
struct mapped {
	char *path;
	char *base;
	size_t size;
	bool map_tried;
	int fd;          /* -1 until member_symbols_match reads through it */
};

struct dw {
	struct debug_index *ix;
	const char *release;
	const char *kernel_build_id;
	bool verbose;
	struct ptrvec objs;      /* struct dw_obj * */
	struct dw_obj **by_name; /* objs hashed by name (open addressing) */
	size_t by_name_cap;
	struct ptrvec mapped;    /* archives mapped into memory (struct mapped *) */
	char *user_debug_path;   /* libdwfl's search path for user files' debug files */
};

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

struct dw *dw_begin(struct debug_index *ix, const char *release, const char *kernel_build_id,
		     bool verbose)
{
	struct dw *d = xcalloc(1, sizeof *d);
	d->ix = ix;
	d->release = release;
	d->kernel_build_id = kernel_build_id;
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

static void member_release(struct dw *d, const struct debug_file *f);

/* An archive member's bytes, from the archive mapped once; NULL when the
 * archive is shorter than its index says. */
static char *member_bytes(struct dw *d, const struct debug_file *f)
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
static const char *dwarf_to_section(struct dw_obj *o, Dwarf_Addr pc, uint64_t *off)
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
static bool symtab_value(struct dw_obj *o, const char *name, int type, GElf_Addr *value)
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
static struct dw_obj *find_obj(struct dw *d, const char *module)
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
static uint64_t debug_info_size(struct dw_obj *o)
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

/* --- types --- */

static void complete_type(struct ctype *t);

static struct ctype **type_slot(struct dw_obj *o, uint64_t key)
{
	if (2 * (o->ntypes + 1) > o->types_cap) {
		size_t cap = o->types_cap ? 2 * o->types_cap : 256;
		struct type_slot *old = o->types;
		size_t oldcap = o->types_cap;
		o->types = xcalloc(cap, sizeof *o->types);
		o->types_cap = cap;
		o->ntypes = 0;
		for (size_t i = 0; i < oldcap; i++)
			if (old[i].t)
				*type_slot(o, old[i].key) = old[i].t;
		free(old);
	}
	size_t i = (size_t)(key * 0x9e3779b97f4a7c15ULL) & (o->types_cap - 1);
	while (o->types[i].t && o->types[i].key != key)
		i = (i + 1) & (o->types_cap - 1);
	if (!o->types[i].t) {
		o->types[i].key = key;
		o->ntypes++;
	}
	return &o->types[i].t;
}

static uint64_t die_udata(Dwarf_Die *die, unsigned attr, uint64_t dflt)
{
	Dwarf_Attribute a;
	Dwarf_Word w;
	if (!dwarf_attr_integrate(die, attr, &a) || dwarf_formudata(&a, &w) != 0)
		return dflt;
	return w;
}

static bool die_type(Dwarf_Die *die, Dwarf_Die *out)
{
	Dwarf_Attribute a;
	return dwarf_attr_integrate(die, DW_AT_type, &a) && dwarf_formref_die(&a, out);
}

static struct ctype *dw_type(struct dw_obj *o, Dwarf_Die *die);

static struct ctype *new_type(struct dw_obj *o, Dwarf_Die *die, enum ctype_kind kind)
{
	struct ctype *t = xcalloc(1, sizeof *t);
	t->kind = kind;
	t->src = &o->src;
	t->key = dwarf_dieoffset(die);
	t->complete = true; /* unless a kind below fills parts later */
	*type_slot(o, t->key) = t;
	return t;
}

static char *tag_name(const char *kw, Dwarf_Die *die)
{
	const char *n = dwarf_diename(die);
	return n ? xasprintf("%s %s", kw, n) : xasprintf("%s <anonymous>", kw);
}

static size_t def_hash(int tag, const char *name)
{
	return (size_t)hash_bytes((uint64_t)tag * 0x9e3779b97f4a7c15ULL, name, strlen(name));
}

/* The slot of (tag, name): its definition, or the empty slot for it. */
static struct def_slot *def_slot(struct dw_obj *o, int tag, const char *name)
{
	size_t i = def_hash(tag, name) & (o->defs_cap - 1);
	while (o->defs[i].name && (o->defs[i].tag != tag || strcmp(o->defs[i].name, name)))
		i = (i + 1) & (o->defs_cap - 1);
	return &o->defs[i];
}

static void def_add(struct dw_obj *o, int tag, const char *name, Dwarf_Off off)
{
	if (2 * (o->ndefs + 1) > o->defs_cap) {
		struct def_slot *old = o->defs;
		size_t oldcap = o->defs_cap;
		o->defs_cap = oldcap ? 2 * oldcap : 1024;
		o->defs = xcalloc(o->defs_cap, sizeof *o->defs);
		for (size_t i = 0; i < oldcap; i++)
			if (old[i].name)
				*def_slot(o, old[i].tag, old[i].name) = old[i];
		free(old);
	}
	struct def_slot *slot = def_slot(o, tag, name);
	if (!slot->name) { /* the first unit's definition, as a search in order finds */
		*slot = (struct def_slot){ name, tag, off };
		o->ndefs++;
	}
}

/*
 * A declaration-only struct: its definition, found by name in any unit.
 * The units are indexed as far as a lookup needs, once: a script meeting
 * many declarations (a 20-probe script, $$parms) no longer rescans every
 * unit for each.
 */
static bool find_definition(struct dw_obj *o, Dwarf_Die *decl, Dwarf_Die *out)
{
	const char *name = dwarf_diename(decl);
	int tag = dwarf_tag(decl);
	if (!name)
		return false;
	for (;;) {
		if (o->defs_cap) {
			struct def_slot *slot = def_slot(o, tag, name);
			if (slot->name)
				return dwarf_offdie(o->dbg, slot->off, out) != NULL;
		}
		if (o->defs_all_read)
			return false;
		Dwarf_Off off = o->defs_next_unit, next;
		size_t hsize;
		if (dwarf_nextcu(o->dbg, off, &next, &hsize, NULL, NULL, NULL) != 0) {
			o->defs_all_read = true;
			continue;
		}
		o->defs_next_unit = next;
		Dwarf_Die cu, child;
		if (dwarf_offdie(o->dbg, off + hsize, &cu) && dwarf_child(&cu, &child) == 0) {
			do {
				int t = dwarf_tag(&child);
				if ((t == DW_TAG_structure_type || t == DW_TAG_union_type ||
				     t == DW_TAG_class_type || t == DW_TAG_enumeration_type) &&
				    !dwarf_hasattr(&child, DW_AT_declaration)) {
					const char *n = dwarf_diename(&child);
					if (n)
						def_add(o, t, n, dwarf_dieoffset(&child));
				}
			} while (dwarf_siblingof(&child, &child) == 0);
		}
	}
}

static struct ctype *dw_type(struct dw_obj *o, Dwarf_Die *die)
{
	if (!die) {
		static struct ctype void_type = { .kind = CT_VOID, .name = "void", .complete = true };
		return &void_type;
	}
	struct ctype **slot = type_slot(o, dwarf_dieoffset(die));
	if (*slot)
		return *slot;
	Dwarf_Die inner, *ip;
	struct ctype *t;
	switch (dwarf_tag(die)) {
	case DW_TAG_typedef:
	case DW_TAG_const_type:
	case DW_TAG_volatile_type:
	case DW_TAG_restrict_type:
	case DW_TAG_atomic_type:
		/* Seen through: the model has no qualifiers. */
		ip = die_type(die, &inner) ? &inner : NULL;
		t = dw_type(o, ip);
		*type_slot(o, dwarf_dieoffset(die)) = t;
		return t;
	case DW_TAG_base_type: {
		t = new_type(o, die, CT_INT);
		t->size = die_udata(die, DW_AT_byte_size, 0);
		uint64_t enc = die_udata(die, DW_AT_encoding, 0);
		t->is_signed = enc == DW_ATE_signed || enc == DW_ATE_signed_char;
		t->is_char = enc == DW_ATE_signed_char || enc == DW_ATE_unsigned_char;
		t->is_bool = enc == DW_ATE_boolean;
		t->is_float = enc == DW_ATE_float || enc == DW_ATE_complex_float;
		const char *n = dwarf_diename(die);
		t->name = xstrdup(n ? n : "int");
		return t;
	}
	case DW_TAG_enumeration_type:
		t = new_type(o, die, CT_ENUM);
		t->size = die_udata(die, DW_AT_byte_size, 4);
		t->name = tag_name("enum", die);
		t->is_signed = true;
		if (die_type(die, &inner)) {
			struct ctype *u = dw_type(o, &inner);
			t->is_signed = u->is_signed;
		}
		t->complete = false;
		return t;
	case DW_TAG_pointer_type:
	case DW_TAG_reference_type:
	case DW_TAG_rvalue_reference_type: {
		t = new_type(o, die, CT_PTR);
		t->size = die_udata(die, DW_AT_byte_size, 8);
		ip = die_type(die, &inner) ? &inner : NULL;
		t->target = dw_type(o, ip);
		/* As SystemTap's -L writes them: "struct file*", "char**". */
		t->name = xasprintf("%s*", t->target->name ? t->target->name : "void");
		return t;
	}
	case DW_TAG_array_type: {
		t = new_type(o, die, CT_ARRAY);
		ip = die_type(die, &inner) ? &inner : NULL;
		struct ctype *elem = dw_type(o, ip);
		/* int a[2][3]: subranges outermost first; build from the last. */
		Dwarf_Die sub;
		uint64_t counts[8];
		int nd = 0;
		if (dwarf_child(die, &sub) == 0) {
			do {
				if (dwarf_tag(&sub) != DW_TAG_subrange_type || nd == 8)
					continue;
				uint64_t c = die_udata(&sub, DW_AT_count, 0);
				if (!c && dwarf_hasattr(&sub, DW_AT_upper_bound)) {
					Dwarf_Attribute a;
					Dwarf_Sword ub;
					if (dwarf_attr(&sub, DW_AT_upper_bound, &a) &&
					    dwarf_formsdata(&a, &ub) == 0 && ub >= 0)
						c = (uint64_t)ub + 1;
				}
				counts[nd++] = c;
			} while (dwarf_siblingof(&sub, &sub) == 0);
		}
		if (nd == 0)
			counts[nd++] = 0;
		for (int i = nd - 1; i > 0; i--) {
			struct ctype *a = xcalloc(1, sizeof *a);
			a->kind = CT_ARRAY;
			a->complete = true;
			a->target = elem;
			a->count = counts[i];
			a->size = elem->size * counts[i];
			a->name = xasprintf("%s[%llu]", elem->name, (unsigned long long)counts[i]);
			elem = a;
		}
		t->target = elem;
		t->count = counts[0];
		t->size = elem->size * counts[0];
		t->name = xasprintf("%s[%llu]", elem->name, (unsigned long long)counts[0]);
		return t;
	}
	case DW_TAG_structure_type:
	case DW_TAG_class_type:
	case DW_TAG_union_type: {
		bool is_union = dwarf_tag(die) == DW_TAG_union_type;
		/* A declaration's definition is looked for when the type is
		 * completed (complete_type), not here: task_struct's pointers
		 * alone lead to dozens, and finding one may mean reading the
		 * kernel's units up to it (40% of a 20-probe script's pass 2).
		 * Its size is known once it is complete. */
		t = new_type(o, die, is_union ? CT_UNION : CT_STRUCT);
		t->size = die_udata(die, DW_AT_byte_size, 0);
		t->name = tag_name(is_union ? "union" : "struct", die);
		t->complete = false;
		return t;
	}
	case DW_TAG_subroutine_type:
		t = new_type(o, die, CT_FUNC);
		t->name = xstrdup("function");
		return t;
	default:
		t = new_type(o, die, CT_VOID);
		t->name = xstrdup("void");
		return t;
	}
}

static void complete_members(struct dw_obj *o, struct ctype *t, Dwarf_Die *die)
{
	Dwarf_Die m;
	size_t cap = 0;
	if (dwarf_child(die, &m) != 0)
		return;
	do {
		if (dwarf_tag(&m) != DW_TAG_member)
			continue;
		Dwarf_Die ty;
		struct cmember cm = { 0 };
		const char *n = dwarf_diename(&m);
		cm.name = n ? xstrdup(n) : NULL;
		cm.type = dw_type(o, die_type(&m, &ty) ? &ty : NULL);
		uint64_t byte = 0;
		Dwarf_Attribute a;
		Dwarf_Word w;
		if (dwarf_attr(&m, DW_AT_data_member_location, &a) && dwarf_formudata(&a, &w) == 0)
			byte = w;
		uint64_t bits = die_udata(&m, DW_AT_bit_size, 0);
		if (bits) {
			uint64_t at; /* bits from the start of the aggregate, little-endian */
			if (dwarf_hasattr(&m, DW_AT_data_bit_offset)) {
				at = die_udata(&m, DW_AT_data_bit_offset, 0);
			} else {
				/* DWARF 2/3: counted from the most significant bit of the unit. */
				uint64_t unit = die_udata(&m, DW_AT_byte_size, cm.type->size);
				uint64_t msb = die_udata(&m, DW_AT_bit_offset, 0);
				at = byte * 8 + unit * 8 - msb - bits;
			}
			cm.offset = at / 8;
			cm.bit_offset = (int)(at % 8);
			cm.bit_size = (int)bits;
		} else {
			cm.offset = byte;
		}
		if (t->nmembers == cap) {
			cap = cap ? 2 * cap : 8;
			t->members = xrealloc(t->members, cap * sizeof *t->members);
		}
		t->members[t->nmembers++] = cm;
	} while (dwarf_siblingof(&m, &m) == 0);
}

static void complete_enum(struct ctype *t, Dwarf_Die *die)
{
	Dwarf_Die e;
	size_t cap = 0;
	if (dwarf_child(die, &e) != 0)
		return;
	do {
		if (dwarf_tag(&e) != DW_TAG_enumerator)
			continue;
		Dwarf_Attribute a;
		Dwarf_Sword v = 0;
		Dwarf_Word u;
		if (dwarf_attr(&e, DW_AT_const_value, &a)) {
			if (t->is_signed)
				dwarf_formsdata(&a, &v);
			else if (dwarf_formudata(&a, &u) == 0)
				v = (Dwarf_Sword)u;
		}
		if (t->nenums == cap) {
			cap = cap ? 2 * cap : 8;
			t->enums = xrealloc(t->enums, cap * sizeof *t->enums);
		}
		const char *n = dwarf_diename(&e);
		t->enums[t->nenums++] = (struct cenum){ xstrdup(n ? n : "?"), v };
	} while (dwarf_siblingof(&e, &e) == 0);
}

static void complete_type(struct ctype *t)
{
	struct dw_obj *o = t->src->ctx;
	Dwarf_Die die, def;
	if (!revive(o) || !load_dwarf(o) || !dwarf_offdie(o->dbg, t->key, &die))
		return;
	if ((t->kind == CT_STRUCT || t->kind == CT_UNION) && dwarf_hasattr(&die, DW_AT_declaration)) {
		/* The definition's parts, as it has them. */
		if (find_definition(o, &die, &def)) {
			struct ctype *d = ctype_complete(dw_type(o, &def));
			t->size = d->size;
			t->members = d->members;
			t->nmembers = d->nmembers;
		}
		return;
	}
	if (t->kind == CT_STRUCT || t->kind == CT_UNION)
		complete_members(o, t, &die);
	else if (t->kind == CT_ENUM)
		complete_enum(t, &die);
}

/* --- locations --- */

struct loc_builder {
	struct tloc *l;
	size_t cap;
};

static void emit(struct loc_builder *b, enum tloc_op_kind k, int64_t arg)
{
	if (b->l->nops == b->cap) {
		b->cap = b->cap ? 2 * b->cap : 4;
		b->l->ops = xrealloc(b->l->ops, b->cap * sizeof *b->l->ops);
	}
	b->l->ops[b->l->nops++] = (struct tloc_op){ k, arg };
}

/* The names of the DWARF operations a location may hold that Tapline
 * cannot use somewhere, for messages. */
static const char *op_name(unsigned op)
{
	static const struct { unsigned op; const char *name; } names[] = {
		{ DW_OP_addr, "DW_OP_addr" }, { DW_OP_fbreg, "DW_OP_fbreg" },
		{ DW_OP_call_frame_cfa, "DW_OP_call_frame_cfa" },
		{ DW_OP_entry_value, "DW_OP_entry_value" }, { DW_OP_GNU_entry_value, "DW_OP_GNU_entry_value" },
		{ DW_OP_implicit_value, "DW_OP_implicit_value" },
		{ DW_OP_implicit_pointer, "DW_OP_implicit_pointer" },
		{ DW_OP_GNU_implicit_pointer, "DW_OP_GNU_implicit_pointer" },
		{ DW_OP_GNU_parameter_ref, "DW_OP_GNU_parameter_ref" },
		{ DW_OP_convert, "DW_OP_convert" }, { DW_OP_GNU_convert, "DW_OP_GNU_convert" },
		{ DW_OP_piece, "DW_OP_piece" }, { DW_OP_bit_piece, "DW_OP_bit_piece" },
		{ DW_OP_form_tls_address, "DW_OP_form_tls_address" },
		{ DW_OP_GNU_push_tls_address, "DW_OP_GNU_push_tls_address" },
	};
	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		if (names[i].op == op)
			return names[i].name;
	return NULL;
}

static void unusable(struct tloc *l, const char *what, unsigned op)
{
	free(l->ops);
	l->ops = NULL;
	l->nops = 0;
	l->kind = TL_NONE;
	const char *name = op_name(op);
	l->why = name ? xasprintf("%s (its location uses %s)", what, name)
		      : xasprintf("%s (its location uses DWARF operation 0x%x)", what, op);
}

/* Where a location is evaluated. */
struct where {
	struct dw_obj *o;
	Dwarf_Die *func;
	Dwarf_Addr pc;       /* DWARF's address */
	bool at_entry;       /* pc is the function's entry */
};

/*
 * The canonical frame address at pc. At the function's entry it is
 * rsp + 8 (only the return address was pushed); elsewhere the call frame
 * information says (.debug_frame, or .eh_frame).
 */
static bool emit_cfa(struct loc_builder *b, const struct where *w)
{
	if (w->at_entry) {
		emit(b, LO_REG, 7);
		emit(b, LO_PLUS, 8);
		return true;
	}
	Dwarf_Addr bias;
	Dwarf_CFI *cfi = dwarf_getcfi(w->o->dbg);
	Dwarf_Frame *frame = NULL;
	if (!cfi || dwarf_cfi_addrframe(cfi, w->pc, &frame) != 0) {
		/* .eh_frame's addresses are its file's: DWARF's moved by the
		 * one bias, back by the other (a user program's DWARF and
		 * .eh_frame may sit in two files). */
		cfi = dwfl_module_eh_cfi(w->o->mod, &bias);
		if (!cfi || dwarf_cfi_addrframe(cfi, w->pc + w->o->bias - bias, &frame) != 0)
			return false;
	}
	Dwarf_Op *ops;
	size_t n;
	bool ok = dwarf_frame_cfa(frame, &ops, &n) == 0 && n == 1;
	/* libdw gives a register-plus-offset rule as DW_OP_bregx. */
	if (ok && ops[0].atom == DW_OP_bregx) {
		emit(b, LO_REG, (int64_t)ops[0].number);
		emit(b, LO_PLUS, (int64_t)ops[0].number2);
	} else if (ok && ops[0].atom >= DW_OP_breg0 && ops[0].atom <= DW_OP_breg31) {
		emit(b, LO_REG, ops[0].atom - DW_OP_breg0);
		emit(b, LO_PLUS, (int64_t)ops[0].number);
	} else {
		ok = false;
	}
	free(frame);
	return ok;
}

/* The frame base of the function (DW_AT_frame_base) at pc. */
static bool emit_frame_base(struct loc_builder *b, const struct where *w)
{
	Dwarf_Attribute a;
	Dwarf_Op *ops;
	size_t n;
	if (!dwarf_attr_integrate(w->func, DW_AT_frame_base, &a) ||
	    dwarf_getlocation_addr(&a, w->pc, &ops, &n, 1) != 1 || n != 1)
		return false;
	if (ops[0].atom == DW_OP_call_frame_cfa)
		return emit_cfa(b, w);
	/* clang: the frame pointer's value (set by the prologue). */
	if (ops[0].atom >= DW_OP_reg0 && ops[0].atom <= DW_OP_reg31) {
		emit(b, LO_REG, ops[0].atom - DW_OP_reg0);
		return true;
	}
	if (ops[0].atom >= DW_OP_breg0 && ops[0].atom <= DW_OP_breg31) {
		emit(b, LO_REG, ops[0].atom - DW_OP_breg0);
		emit(b, LO_PLUS, (int64_t)ops[0].number);
		return true;
	}
	return false;
}

/*
 * The symbol of o unique by name nearest at or before offset off of
 * section sec (the one named name itself if it is there), else the nearest
 * after it; only functions if funcs. NULL if the section has none.
 */
static const struct dw_sym *nearest_unique(const struct dw_obj *o, const char *sec, uint64_t off,
					   bool funcs, const char *name)
{
	const struct dw_sym *below = NULL, *above = NULL;
	for (size_t i = 0; i < o->nsyms; i++) {
		const struct dw_sym *y = &o->syms[i];
		if (!y->unique || (funcs && !y->is_func) || strcmp(y->section, sec))
			continue;
		if (name && !strcmp(y->name, name) && y->offset == off)
			return y;
		if (y->offset <= off && (!below || y->offset > below->offset))
			below = y;
		if (y->offset > off && (!above || y->offset < above->offset))
			above = y;
	}
	return below ? below : above;
}

/*
 * A static object at DWARF's address addr, as the runtime can find it: an
 * offset from _text in the kernel; in a module, an offset from the
 * nearest unique symbol of the same section; in a user file, its virtual
 * address there. NULL if there is none.
 */
static struct tstatic *static_at(struct dw_obj *o, Dwarf_Addr addr)
{
	if (o->is_user) {
		/* Found at run time through the file's mapping in the process. */
		struct tstatic *st = xcalloc(1, sizeof *st);
		st->object = xstrdup(o->name);
		st->build_id = o->build_id ? xstrdup(o->build_id) : NULL;
		st->user_vaddr = addr + o->bias - o->elf_bias;
		return st;
	}
	if (o->is_kernel) {
		struct tstatic *st = xcalloc(1, sizeof *st);
		st->object = xstrdup(o->name);
		st->text_offset = addr + o->bias - o->text_addr;
		return st;
	}
	uint64_t off;
	const char *sec = dwarf_to_section(o, addr, &off);
	if (!sec)
		return NULL;
	const struct dw_sym *best = nearest_unique(o, sec, off, false, NULL);
	if (!best)
		return NULL;
	struct tstatic *st = xcalloc(1, sizeof *st);
	st->object = xstrdup(o->name);
	st->build_id = o->build_id ? xstrdup(o->build_id) : NULL;
	st->symbol = xstrdup(best->name);
	st->offset = (int64_t)(off - best->offset);
	return st;
}

/* One DWARF expression (without pieces) into l. */
static void translate_ops(struct tloc *l, struct loc_builder *b, Dwarf_Attribute *attr,
			  Dwarf_Op *ops, size_t n, const struct where *w)
{
	l->kind = TL_MEMORY;
	for (size_t i = 0; i < n; i++) {
		unsigned op = ops[i].atom;
		if (op >= DW_OP_reg0 && op <= DW_OP_reg31) {
			emit(b, LO_REG, op - DW_OP_reg0);
			l->kind = TL_VALUE;
		} else if (op == DW_OP_regx) {
			emit(b, LO_REG, (int64_t)ops[i].number);
			l->kind = TL_VALUE;
		} else if (op >= DW_OP_breg0 && op <= DW_OP_breg31) {
			emit(b, LO_REG, op - DW_OP_breg0);
			emit(b, LO_PLUS, (int64_t)ops[i].number);
		} else if (op == DW_OP_bregx) {
			emit(b, LO_REG, (int64_t)ops[i].number);
			emit(b, LO_PLUS, (int64_t)ops[i].number2);
		} else if (op >= DW_OP_lit0 && op <= DW_OP_lit31) {
			emit(b, LO_CONST, op - DW_OP_lit0);
		} else if (op == DW_OP_const1u || op == DW_OP_const2u || op == DW_OP_const4u ||
			   op == DW_OP_const8u || op == DW_OP_constu || op == DW_OP_const1s ||
			   op == DW_OP_const2s || op == DW_OP_const4s || op == DW_OP_const8s ||
			   op == DW_OP_consts) {
			emit(b, LO_CONST, (int64_t)ops[i].number);
		} else if (op == DW_OP_plus_uconst) {
			emit(b, LO_PLUS, (int64_t)ops[i].number);
		} else if (op == DW_OP_fbreg) {
			if (!emit_frame_base(b, w))
				return unusable(l, "its frame base is not known here", op);
			emit(b, LO_PLUS, (int64_t)ops[i].number);
		} else if (op == DW_OP_call_frame_cfa) {
			if (!emit_cfa(b, w))
				return unusable(l, "no call frame information covers this point", op);
		} else if (op == DW_OP_deref) {
			emit(b, LO_DEREF, 8);
		} else if (op == DW_OP_deref_size) {
			emit(b, LO_DEREF, (int64_t)ops[i].number);
		} else if (op == DW_OP_plus || op == DW_OP_minus || op == DW_OP_mul || op == DW_OP_and ||
			   op == DW_OP_or) {
			emit(b, op == DW_OP_plus ? LO_ADD : op == DW_OP_minus ? LO_SUB :
				op == DW_OP_mul ? LO_MUL : op == DW_OP_and ? LO_AND : LO_OR, 0);
		} else if (op == DW_OP_neg) {
			emit(b, LO_NEG, 0);
		} else if (op == DW_OP_stack_value) {
			l->kind = TL_VALUE;
		} else if ((op == DW_OP_entry_value || op == DW_OP_GNU_entry_value) && w->at_entry) {
			/* At the entry a register's entry value is the register. */
			Dwarf_Attribute ea;
			Dwarf_Op *eops;
			size_t en;
			if (dwarf_getlocation_attr(attr, &ops[i], &ea) != 0 ||
			    dwarf_getlocation(&ea, &eops, &en) != 0 || en != 1 ||
			    eops[0].atom < DW_OP_reg0 || eops[0].atom > DW_OP_reg31)
				return unusable(l, "an entry value Tapline cannot read", op);
			emit(b, LO_REG, eops[0].atom - DW_OP_reg0);
		} else if ((op == DW_OP_addr || op == DW_OP_addrx || op == DW_OP_GNU_addr_index) &&
			   !l->stat) {
			/* DWARF 5 (clang's default) keeps the address in .debug_addr. */
			Dwarf_Addr addr = ops[i].number;
			Dwarf_Attribute aa;
			if (op != DW_OP_addr &&
			    (dwarf_getlocation_attr(attr, &ops[i], &aa) != 0 || dwarf_formaddr(&aa, &addr) != 0))
				return unusable(l, "its address could not be read", op);
			l->stat = static_at(w->o, addr);
			if (!l->stat)
				return unusable(l, "its static address has no symbol of its module to "
						   "find it by", op);
			emit(b, LO_STATIC, 0);
		} else {
			return unusable(l, "its location uses an operation Tapline does not "
					   "handle", op);
		}
	}
}

static void translate_location(struct tloc *l, Dwarf_Attribute *attr, Dwarf_Op *ops, size_t n,
			       const struct where *w)
{
	size_t npieces = 0;
	for (size_t i = 0; i < n; i++)
		npieces += ops[i].atom == DW_OP_piece;
	if (!npieces) {
		struct loc_builder b = { l, 0 };
		translate_ops(l, &b, attr, ops, n, w);
		return;
	}
	l->kind = TL_PIECES;
	l->pieces = xcalloc(npieces, sizeof *l->pieces);
	size_t start = 0;
	for (size_t i = 0; i < n; i++) {
		if (ops[i].atom != DW_OP_piece)
			continue;
		struct tloc_piece *p = &l->pieces[l->npieces++];
		p->size = ops[i].number;
		if (i == start) {
			p->loc.kind = TL_NONE;
			p->loc.why = xstrdup("part of it is optimized out");
		} else {
			struct loc_builder b = { &p->loc, 0 };
			translate_ops(&p->loc, &b, attr, ops + start, i - start, w);
		}
		if (p->loc.kind == TL_NONE) {
			char *why = p->loc.why;
			l->kind = TL_NONE;
			l->why = why;
			return;
		}
		start = i + 1;
	}
}

/* --- functions and their variables --- */

/* Where a function's code starts: its low_pc, or for a function split
 * into hot and cold parts (DW_AT_ranges) the start of its first range. */
static bool function_entry(Dwarf_Die *die, Dwarf_Addr *pc)
{
	if (dwarf_lowpc(die, pc) == 0 || dwarf_entrypc(die, pc) == 0)
		return true;
	Dwarf_Addr base, start, end;
	return dwarf_ranges(die, 0, &base, &start, &end) > 0 && (*pc = start, true);
}

/*
 * A type's name as its declaration writes it, for listings: typedef names
 * kept ("size_t", "loff_t*"), qualifiers after what they qualify ("char
 * const*"), as SystemTap's -L shows them. NULL where the model's own name
 * will do (structs, arrays, functions).
 */
static char *declared_name(Dwarf_Die *die, int depth)
{
	if (!die)
		return xstrdup("void");
	if (depth > 8)
		return NULL;
	Dwarf_Die inner;
	bool has_inner = die_type(die, &inner);
	const char *n = dwarf_diename(die);
	char *in;
	switch (dwarf_tag(die)) {
	case DW_TAG_typedef:
	case DW_TAG_base_type:
		return n ? xstrdup(n) : NULL;
	case DW_TAG_structure_type:
	case DW_TAG_union_type:
	case DW_TAG_enumeration_type:
		if (!n)
			return NULL;
		return xasprintf("%s %s", dwarf_tag(die) == DW_TAG_structure_type ? "struct"
					  : dwarf_tag(die) == DW_TAG_union_type   ? "union"
										    : "enum",
				 n);
	case DW_TAG_pointer_type:
		in = declared_name(has_inner ? &inner : NULL, depth + 1);
		if (!in)
			return NULL;
		n = in;
		in = xasprintf("%s*", n);
		free((char *)n);
		return in;
	case DW_TAG_const_type:
	case DW_TAG_volatile_type:
		in = declared_name(has_inner ? &inner : NULL, depth + 1);
		if (!in)
			return NULL;
		n = in;
		in = xasprintf("%s %s", n, dwarf_tag(die) == DW_TAG_const_type ? "const" : "volatile");
		free((char *)n);
		return in;
	default:
		return NULL;
	}
}

static void load_var(const struct where *w, Dwarf_Die *v, struct tvar *tv)
{
	struct dw_obj *o = w->o;
	Dwarf_Die ty;
	tv->type = dw_type(o, die_type(v, &ty) ? &ty : NULL);
	tv->type_name = declared_name(die_type(v, &ty) ? &ty : NULL, 0);
	Dwarf_Attribute a;
	if (dwarf_attr_integrate(v, DW_AT_const_value, &a)) {
		Dwarf_Sword c;
		Dwarf_Word u;
		tv->loc.kind = TL_VALUE;
		tv->loc.ops = xcalloc(1, sizeof *tv->loc.ops);
		tv->loc.nops = 1;
		if (dwarf_formsdata(&a, &c) == 0)
			tv->loc.ops[0] = (struct tloc_op){ LO_CONST, c };
		else if (dwarf_formudata(&a, &u) == 0)
			tv->loc.ops[0] = (struct tloc_op){ LO_CONST, (int64_t)u };
		else
			tv->loc = (struct tloc){ .kind = TL_NONE,
						 .why = xstrdup("its constant value is not a number") };
		return;
	}
	Dwarf_Op *ops;
	size_t n;
	int r = dwarf_attr_integrate(v, DW_AT_location, &a) ? dwarf_getlocation_addr(&a, w->pc, &ops, &n, 1)
							       : 0;
	if (r <= 0 || n == 0) {
		tv->loc = (struct tloc){ .kind = TL_NONE,
					 .why = xstrdup("it is optimized out at this point") };
		return;
	}
	translate_location(&tv->loc, &a, ops, n, w);
}

static void push_var(struct probe_site *s, size_t *cap, struct tvar tv)
{
	if (s->nvars == *cap) {
		*cap = *cap ? 2 * *cap : 8;
		s->vars = xrealloc(s->vars, *cap * sizeof *s->vars);
	}
	s->vars[s->nvars++] = tv;
}

static bool have_var(const struct probe_site *s, const char *name)
{
	for (size_t i = 0; i < s->nvars; i++)
		if (!strcmp(s->vars[i].name, name))
			return true;
	return false;
}

/*
 * Is parameter v, at the entry of its function, in a stack slot of the
 * function's own frame, which the prologue has yet to store it in? So
 * unoptimized code says where a parameter lives once the prologue ran
 * (DW_OP_fbreg below the canonical frame address, or against a frame
 * register the prologue sets up): at the entry that slot holds whatever
 * an earlier call left there.
 */
static bool stored_by_prologue(const struct where *w, Dwarf_Die *v)
{
	Dwarf_Attribute a, fa;
	Dwarf_Op *ops, *fops;
	size_t n, fn;
	if (!dwarf_attr_integrate(v, DW_AT_location, &a) ||
	    dwarf_getlocation_addr(&a, w->pc, &ops, &n, 1) != 1 || n != 1 || ops[0].atom != DW_OP_fbreg)
		return false;
	if (!dwarf_attr_integrate(w->func, DW_AT_frame_base, &fa) ||
	    dwarf_getlocation_addr(&fa, w->pc, &fops, &fn, 1) != 1 || fn != 1)
		return false;
	/* CFA - 8 holds the return address; below it is the callee's own. */
	return fops[0].atom != DW_OP_call_frame_cfa || (int64_t)ops[0].number < 0;
}

/* Parameters in order, then the locals of every scope around the entry. */
static void load_vars(struct probe_site *s)
{
	struct dw_obj *o = s->src_ctx;
	Dwarf_Die func, cudie, own;
	if (!revive(o) || !load_dwarf(o) || !dwarf_offdie(o->dbg, s->src_frame ? s->src_frame : s->src_key, &func) ||
	    !dwarf_offdie(o->dbg, s->src_key, &own) || !dwarf_diecu(&func, &cudie, NULL, NULL))
		return;
	size_t cap = 0;
	Dwarf_Addr entry = 0;
	function_entry(&func, &entry);
	struct where w = { o, &func, s->src_pc, s->src_pc == entry };
	Dwarf_Die *scopes = NULL;
	/* An inlined copy's variables are its own DIE's children; the frame
	 * base is the function it was inlined into. */
	int nscopes = s->src_frame ? 0 : dwarf_getscopes(&cudie, s->src_pc, &scopes);
	/* The function itself, then the blocks inside it that hold the pc. */
	Dwarf_Die *chain[16];
	int nchain = 0;
	chain[nchain++] = &own;
	for (int i = nscopes - 1; i >= 0 && nchain < 16; i--) {
		int tag = dwarf_tag(&scopes[i]);
		if (tag == DW_TAG_lexical_block && dwarf_dieoffset(&scopes[i]) != s->src_key)
			chain[nchain++] = &scopes[i];
	}
	/* At the entry of a function (not an inlined copy), parameters its
	 * prologue has yet to store are where the calling convention put
	 * them: every parameter, named or not, takes its place in order. */
	struct abi abi;
	bool by_abi = w.at_entry && !s->src_frame;
	abi_start(&abi, s->return_type);
	for (int pass = 0; pass < 2; pass++) {
		for (int c = 0; c < nchain; c++) {
			Dwarf_Die v;
			if (dwarf_child(chain[c], &v) != 0)
				continue;
			do {
				int tag = dwarf_tag(&v);
				bool param = tag == DW_TAG_formal_parameter;
				if (pass == 0 ? !param : tag != DW_TAG_variable)
					continue;
				struct tloc entry_loc = { .kind = TL_NONE };
				bool use_abi = false;
				if (param && c == 0 && by_abi) {
					Dwarf_Die ty;
					abi_place(&abi, dw_type(o, die_type(&v, &ty) ? &ty : NULL), &entry_loc);
					use_abi = stored_by_prologue(&w, &v);
				}
				Dwarf_Attribute na;
				const char *name = dwarf_formstring(dwarf_attr_integrate(&v, DW_AT_name, &na));
				if (!name || have_var(s, name)) {
					tloc_free(&entry_loc);
					continue;
				}
				struct tvar tv = { .name = xstrdup(name), .is_param = param };
				load_var(&w, &v, &tv);
				if (use_abi) {
					tloc_free(&tv.loc);
					tv.loc = entry_loc;
				} else {
					tloc_free(&entry_loc);
				}
				push_var(s, &cap, tv);
			} while (dwarf_siblingof(&v, &v) == 0);
		}
	}
	free(scopes);
}

/* Does a file pattern match the declaring file? Against its last
 * components, as many as the pattern has. */
static bool file_matches(const char *pattern, const char *file)
{
	if (!file)
		return false;
	int slashes = 0;
	for (const char *p = pattern; *p; p++)
		slashes += *p == '/';
	const char *tail = file + strlen(file);
	while (tail > file) {
		tail--;
		if (*tail == '/' && slashes-- == 0) {
			tail++;
			break;
		}
	}
	return fnmatch(pattern, tail, 0) == 0;
}

/*
 * Where the kernel will find the function: itself if its name is unique,
 * else the nearest unique function before it in the same section, or
 * (when it is the section's first) the nearest after it, at a negative
 * offset.
 */
static bool anchor_for(struct dw_obj *o, const char *name, const char *sec, uint64_t off,
		       struct probe_site *s)
{
	const struct dw_sym *best = nearest_unique(o, sec, off, true, name);
	if (!best)
		return false;
	s->anchor = xstrdup(best->name);
	s->anchor_offset = (int64_t)(off - best->offset);
	return true;
}

struct walk {
	struct dw_obj *o;
	const struct dw_query *q;
	struct ptrvec *sites;
	size_t *left_out;
	int found;
	/* The candidate's symbol matched: a user function is one whose DWARF
	 * names it otherwise (libc's malloc is __libc_malloc). A C++ symbol
	 * is mangled: its DWARF name and scopes must match instead. */
	bool symbol_matched;
	void (*each)(const char *name, void *ctx);
	void *ctx;
};

static const unsigned char *section_bytes(Elf *elf, size_t shstrndx, const char *name,
					  size_t *size)
{
	for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn; scn = elf_nextscn(elf, scn)) {
		GElf_Shdr sh;
		const char *n;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS ||
		    !(n = elf_strptr(elf, shstrndx, sh.sh_name)) || strcmp(n, name))
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		if (!d || !d->d_buf)
			return NULL;
		*size = d->d_size;
		return d->d_buf;
	}
	return NULL;
}

/* The bytes dwscan.c and linefiles.c read without libdw, once per object:
 * libdw's own view of them, as the sanity check in scan_unit requires. */
static void read_raw_sections(struct dw_obj *o)
{
	if (o->raw_read)
		return;
	o->raw_read = true;
	Elf *elf = dwarf_getelf(o->dbg);
	size_t shstrndx;
	if (!elf || elf_getshdrstrndx(elf, &shstrndx) != 0)
		return;
	struct line_sections *ls = &o->lines;
	ls->line = section_bytes(elf, shstrndx, ".debug_line", &ls->line_size);
	ls->line_str = section_bytes(elf, shstrndx, ".debug_line_str", &ls->line_str_size);
	ls->str = section_bytes(elf, shstrndx, ".debug_str", &ls->str_size);
	struct dwscan_sections *ss = &o->scan;
	ss->info = section_bytes(elf, shstrndx, ".debug_info", &ss->info_size);
	ss->abbrev = section_bytes(elf, shstrndx, ".debug_abbrev", &ss->abbrev_size);
}

/*
 * The file a DIE was declared in, from its unit's line table header
 * (linefiles.c): dwarf_decl_file would decode the unit's whole line
 * program, the larger part of a wildcard's cost over thousands of
 * modules. libdw answers when the header cannot be read here.
 */
static const char *decl_file(struct dw_obj *o, Dwarf_Die *die)
{
	Dwarf_Attribute a, sl, cd;
	Dwarf_Word idx, off;
	Dwarf_Die cu;
	if (!dwarf_attr_integrate(die, DW_AT_decl_file, &a) || dwarf_formudata(&a, &idx) != 0)
		return NULL;
	if (!dwarf_cu_die(a.cu, &cu, NULL, NULL, NULL, NULL, NULL, NULL) ||
	    !dwarf_attr(&cu, DW_AT_stmt_list, &sl) || dwarf_formudata(&sl, &off) != 0)
		return dwarf_decl_file(die);
	read_raw_sections(o);
	struct unit_files *uf = NULL;
	for (size_t i = o->unit_files.n; i-- > 0 && !uf;)
		if (((struct unit_files *)o->unit_files.v[i])->off == off)
			uf = o->unit_files.v[i];
	if (!uf) {
		uf = xcalloc(1, sizeof *uf);
		uf->off = off;
		uf->ok = line_files_read(&o->lines, off,
					 dwarf_formstring(dwarf_attr(&cu, DW_AT_comp_dir, &cd)), &uf->lf);
		pv_push(&o->unit_files, uf);
	}
	if (!uf->ok)
		return dwarf_decl_file(die);
	return line_files_name(&uf->lf, idx);
}

/* The file's virtual address of DWARF address pc. */
static uint64_t user_vaddr(const struct dw_obj *o, Dwarf_Addr pc)
{
	return pc + o->bias - o->elf_bias;
}

/* Was the unit compiled without optimization (gcc's -O0, its default)?
 * Then parameters reach their DWARF locations only after the prologue. */
static bool unoptimized(Dwarf_Die *die)
{
	Dwarf_Die cu;
	Dwarf_Attribute a;
	const char *producer = dwarf_diecu(die, &cu, NULL, NULL)
				       ? dwarf_formstring(dwarf_attr(&cu, DW_AT_producer, &a))
				       : NULL;
	if (!producer || strncmp(producer, "GNU ", 4))
		return false;
	const char *o = NULL;
	for (const char *p = strstr(producer, " -O"); p; p = strstr(p + 1, " -O"))
		o = p;
	return !o || o[3] == '0';
}

/* The end of the function's prologue: the first line-table row after its
 * entry (or the one marked prologue_end), if inside the function. */
static bool prologue_end(Dwarf_Die *func, Dwarf_Addr entry, Dwarf_Addr *out)
{
	Dwarf_Die cu;
	Dwarf_Lines *lines;
	size_t n;
	Dwarf_Addr high;
	if (!dwarf_diecu(func, &cu, NULL, NULL) || dwarf_getsrclines(&cu, &lines, &n) != 0 ||
	    dwarf_highpc(func, &high) != 0)
		return false;
	Dwarf_Addr first = 0, marked = 0;
	for (size_t i = 0; i < n; i++) {
		Dwarf_Line *l = dwarf_onesrcline(lines, i);
		Dwarf_Addr a;
		bool flag = false;
		if (!l || dwarf_lineaddr(l, &a) != 0 || a <= entry || a >= high)
			continue;
		if (!first || a < first)
			first = a;
		if (dwarf_lineprologueend(l, &flag) == 0 && flag && (!marked || a < marked))
			marked = a;
	}
	*out = marked ? marked : first;
	return *out != 0;
}

/* Where a probe on a user function goes: its entry, or for unoptimized
 * code (unless at_entry: a .return's uretprobe must take the return
 * address as the call left it) after the prologue, as SystemTap does. */
static void place_user(struct dw_obj *o, struct probe_site *s, Dwarf_Die *die, Dwarf_Addr pc,
		       bool at_entry)
{
	Dwarf_Addr body = pc;
	if (!at_entry && unoptimized(die))
		prologue_end(die, pc, &body);
	s->is_user = true;
	s->src_pc = body;
	s->user_vaddr = user_vaddr(o, body);
	s->user_entry_vaddr = user_vaddr(o, pc);
}

/* Is the unit C++? Only its names have scopes and template arguments. */
static bool is_cxx(Dwarf_Die *die)
{
	Dwarf_Die cu;
	Dwarf_Attribute a;
	Dwarf_Word lang;
	if (!dwarf_diecu(die, &cu, NULL, NULL) || !dwarf_attr(&cu, DW_AT_language, &a) ||
	    dwarf_formudata(&a, &lang) != 0)
		return false;
	return lang == DW_LANG_C_plus_plus || lang == DW_LANG_C_plus_plus_03 ||
	       lang == DW_LANG_C_plus_plus_11 || lang == DW_LANG_C_plus_plus_14;
}

/* Does a DIE's subtree describe a call? */
static bool has_call_site(Dwarf_Die *die, int depth)
{
	Dwarf_Die c;
	if (depth > 16 || dwarf_child(die, &c) != 0)
		return false;
	do {
		int tag = dwarf_tag(&c);
		if (tag == DW_TAG_call_site || tag == DW_TAG_GNU_call_site || has_call_site(&c, depth + 1))
			return true;
	} while (dwarf_siblingof(&c, &c) == 0);
	return false;
}

/* May an exception leave this C++ function? Not if it calls nothing: gcc
 * says when its DWARF describes every call (DW_AT_call_all_calls), and
 * throwing is a call too. */
static bool cxx_may_throw(Dwarf_Die *die)
{
	bool all_calls = false;
	Dwarf_Attribute a;
	if (dwarf_attr(die, DW_AT_call_all_calls, &a) || dwarf_attr(die, DW_AT_GNU_all_call_sites, &a))
		dwarf_formflag(&a, &all_calls);
	return !all_calls || has_call_site(die, 0);
}

/*
 * A C++ function's name with the namespaces and classes around its
 * declaration, "geo::Rect::area" (an out-of-line definition points at its
 * declaration, an inlined copy at its origin); NULL when it has none or
 * is not C++.
 */
static char *cxx_qualified_name(Dwarf_Die *die, const char *name)
{
	if (!is_cxx(die))
		return NULL;
	Dwarf_Die decl = *die, next;
	Dwarf_Attribute a;
	for (int i = 0; i < 4; i++) {
		if (!dwarf_attr(&decl, DW_AT_specification, &a) &&
		    !dwarf_attr(&decl, DW_AT_abstract_origin, &a))
			break;
		if (!dwarf_formref_die(&a, &next))
			break;
		decl = next;
	}
	Dwarf_Die *scopes = NULL;
	int n = dwarf_getscopes_die(&decl, &scopes);
	struct strbuf b;
	sb_init(&b);
	/* scopes[0] is the declaration, scopes[n - 1] the unit. */
	for (int i = n - 2; i >= 1; i--) {
		int tag = dwarf_tag(&scopes[i]);
		if (tag != DW_TAG_namespace && tag != DW_TAG_class_type &&
		    tag != DW_TAG_structure_type && tag != DW_TAG_union_type)
			continue;
		const char *sn = dwarf_diename(&scopes[i]);
		sb_printf(&b, "%s::", sn ? sn : "(anonymous namespace)");
	}
	free(scopes);
	if (!b.len) {
		sb_free(&b);
		return NULL;
	}
	sb_printf(&b, "%s", name);
	return sb_detach(&b);
}

/* s without its template arguments ("twice<int>" -> "twice"), or NULL if
 * it has none; an operator's '<' is its name. */
static char *without_template_args(const char *s)
{
	const char *op = strstr(s, "operator");
	const char *lt = strchr(op ? op + 8 + strspn(op + 8, "<=>") : s, '<');
	return lt && lt > s ? xstrndup(s, (size_t)(lt - s)) : NULL;
}

/* Does the pattern name the function: by its own name, or (C++) its
 * qualified name or the end of it ("Rect::area" for "geo::Rect::area"),
 * either with or without template arguments? */
static bool cxx_name_matches(const char *pattern, const char *name, const char *qualified)
{
	if (fnmatch(pattern, name, 0) == 0)
		return true;
	if (!qualified && !strchr(name, '<'))
		return false;
	for (const char *q = qualified; q; q = strstr(q, "::") ? strstr(q, "::") + 2 : NULL) {
		if (fnmatch(pattern, q, 0) == 0)
			return true;
		char *bare = without_template_args(q);
		bool match = bare && fnmatch(pattern, bare, 0) == 0;
		free(bare);
		if (match)
			return true;
	}
	char *bare = without_template_args(name);
	bool match = bare && fnmatch(pattern, bare, 0) == 0;
	free(bare);
	return match;
}

static void consider(struct walk *w, Dwarf_Die *die)
{
	Dwarf_Attribute na;
	const char *name = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_name, &na));
	Dwarf_Addr pc;
	if (!name || dwarf_hasattr(die, DW_AT_declaration) || !function_entry(die, &pc))
		return;
	if (w->each) {
		w->each(name, w->ctx);
		return;
	}
	char *qualified = cxx_qualified_name(die, name);
	if (!w->symbol_matched && !cxx_name_matches(w->q->function, name, qualified)) {
		free(qualified);
		return;
	}
	bool cxx = qualified || is_cxx(die);
	if (qualified)
		name = qualified; /* the site is named so: -l, pp() */
	const char *file = decl_file(w->o, die);
	if (getenv("TAPLINE_CHECK_DECL_FILE")) {
		const char *lib = dwarf_decl_file(die);
		if (!file != !lib || (file && strcmp(file, lib)))
			fprintf(stderr, "decl_file mismatch in %s: %s vs libdw %s\n", w->o->file,
				file ? file : "(null)", lib ? lib : "(null)");
	}
	/* Relative to the compilation directory, as kernel builds name files. */
	Dwarf_Die cu;
	Dwarf_Attribute ca;
	const char *comp_dir = dwarf_diecu(die, &cu, NULL, NULL)
				       ? dwarf_formstring(dwarf_attr(&cu, DW_AT_comp_dir, &ca))
				       : NULL;
	size_t cl = comp_dir ? strlen(comp_dir) : 0;
	if (file && cl && !strncmp(file, comp_dir, cl) && file[cl] == '/')
		file += cl + 1;
	int line = 0;
	dwarf_decl_line(die, &line);
	if (w->q->file && !file_matches(w->q->file, file))
		return;
	if (w->q->line && w->q->line != line)
		return;
	struct dw_obj *o = w->o;
	uint64_t a = 0;
	const char *secname = o->is_kernel || o->is_user ? ".text" : dwarf_to_section(o, pc, &a);
	if (!secname || !strncmp(secname, ".init", 5)) {
		(*w->left_out)++;
		return;
	}
	struct probe_site *s = xcalloc(1, sizeof *s);
	s->may_throw = cxx && cxx_may_throw(die);
	if (o->is_user)
		place_user(o, s, die, pc, w->q->at_entry);
	s->object = xstrdup(o->name);
	s->object_file = xstrdup(o->file);
	s->build_id = o->build_id ? xstrdup(o->build_id) : NULL;
	s->function = xstrdup(name);
	s->decl_file = file ? xstrdup(file) : NULL;
	s->decl_line = line;
	s->source = "DWARF";
	s->load_vars = load_vars;
	s->src_ctx = o;
	s->src_key = dwarf_dieoffset(die);
	if (!s->is_user)
		s->src_pc = pc;
	Dwarf_Die ty;
	if (die_type(die, &ty)) {
		s->return_type = dw_type(o, &ty);
		s->return_type_name = declared_name(&ty, 0);
	}
	if (o->is_kernel) {
		/* Placed by name, or _text + offset: probes.c knows which names
		 * are unique and which functions the kernel refuses. */
		s->anchor = xstrdup(name);
		s->text_offset = pc + o->bias - o->text_addr;
	} else if (!o->is_user && !anchor_for(o, name, secname, a, s)) {
		(*w->left_out)++;
		free(s);
		return;
	}
	pv_push(w->sites, s);
	w->found++;
}

static void walk_units(struct walk *w)
{
	Dwarf_Off off = 0, next;
	size_t hsize;
	while (dwarf_nextcu(w->o->dbg, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu, child;
		if (dwarf_offdie(w->o->dbg, off + hsize, &cu) && dwarf_child(&cu, &child) == 0) {
			do {
				if (dwarf_tag(&child) == DW_TAG_subprogram)
					consider(w, &child);
			} while (dwarf_siblingof(&child, &child) == 0);
		}
		off = next;
	}
}

/* The module's DWARF, read (and, for a plain file, relocated) only when
 * something needs it. */
static bool load_dwarf(struct dw_obj *o)
{
	if (o->dbg || o->why)
		return o->dbg != NULL;
	o->dbg = dwfl_module_getdwarf(o->mod, &o->bias);
	if (!o->dbg)
		o->why = xasprintf("it has no usable DWARF (%s)", dwfl_errmsg(-1));
	return o->dbg != NULL;
}

/* A matching symbol's address, and the unit that holds it. */
struct candidate {
	Dwarf_Off cu;
	Dwarf_Addr pc;
	bool found;
	bool by_symbol; /* its symbol matched the pattern itself */
};

static int candidate_cmp(const void *x, const void *y)
{
	const struct candidate *a = x, *b = y;
	if (a->cu != b->cu)
		return a->cu < b->cu ? -1 : 1;
	return a->pc < b->pc ? -1 : a->pc > b->pc;
}

struct cu_range {
	Dwarf_Addr lo, hi;
	Dwarf_Off cu;
};

/* The unit whose code holds pc: through .debug_aranges, or else each
 * unit's own ranges (DW_AT_low_pc/high_pc or DW_AT_ranges). */
static bool unit_of(struct dw_obj *o, Dwarf_Addr pc, Dwarf_Die *cu)
{
	if (dwarf_addrdie(o->dbg, pc, cu))
		return true;
	if (!o->cu_ranges_made) {
		o->cu_ranges_made = true;
		size_t cap = 0;
		Dwarf_Off off = 0, next;
		size_t hsize;
		while (dwarf_nextcu(o->dbg, off, &next, &hsize, NULL, NULL, NULL) == 0) {
			Dwarf_Die die;
			if (dwarf_offdie(o->dbg, off + hsize, &die)) {
				Dwarf_Addr base, start, end;
				ptrdiff_t it = 0;
				while ((it = dwarf_ranges(&die, it, &base, &start, &end)) > 0) {
					if (o->ncu_ranges == cap) {
						cap = cap ? 2 * cap : 64;
						o->cu_ranges = xrealloc(o->cu_ranges, cap * sizeof *o->cu_ranges);
					}
					o->cu_ranges[o->ncu_ranges++] = (struct cu_range){ start, end, off + hsize };
				}
			}
			off = next;
		}
	}
	for (size_t i = 0; i < o->ncu_ranges; i++)
		if (pc >= o->cu_ranges[i].lo && pc < o->cu_ranges[i].hi)
			return dwarf_offdie(o->dbg, o->cu_ranges[i].cu, cu) != NULL;
	return false;
}

static void add_candidate(struct walk *w, Dwarf_Addr pc, struct candidate **v, size_t *n,
			  size_t *cap, bool by_symbol)
{
	Dwarf_Die cu;
	if (!unit_of(w->o, pc, &cu))
		return;
	if (*n == *cap) {
		*cap = *cap ? 2 * *cap : 64;
		*v = xrealloc(*v, *cap * sizeof **v);
	}
	(*v)[(*n)++] = (struct candidate){ dwarf_dieoffset(&cu), pc, false, by_symbol };
}

/* The candidates of one unit, v[i..j), sorted by address, and how many of
 * those addresses are still to be found. */
struct unit_candidates {
	struct walk *w;
	struct candidate *v;
	size_t i, j, left;
};

/* A function of the unit whose code starts at entry: a match if that is
 * a candidate's address not found before. */
static void match_entry(struct unit_candidates *uc, Dwarf_Die *die, Dwarf_Addr entry)
{
	size_t lo = uc->i, hi = uc->j;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (uc->v[mid].pc < entry)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < uc->j && uc->v[lo].pc == entry && !uc->v[lo].found) {
		uc->v[lo].found = true;
		uc->left--;
		/* Two symbols at one address (a C++ constructor's C1 and C2):
		 * either may have matched by name. */
		bool by_symbol = false;
		for (size_t k = lo; k < uc->j && uc->v[k].pc == entry; k++)
			by_symbol |= uc->v[k].by_symbol;
		uc->w->symbol_matched = by_symbol;
		consider(uc->w, die);
	}
}

/* Can dwscan.c read the unit: are its bytes the very ones libdw reads (a
 * compressed section's, for one, are not)? Its header's offset if so. */
static bool scannable(struct dw_obj *o, Dwarf_Die *cu, Dwarf_Off *unit_off)
{
	read_raw_sections(o);
	Dwarf_Off die_off = dwarf_dieoffset(cu);
	*unit_off = die_off - dwarf_cuoffset(cu);
	return o->scan.info && die_off < o->scan.info_size &&
	       (const unsigned char *)cu->addr == o->scan.info + die_off &&
	       !getenv("TAPLINE_NO_DWSCAN");
}

static bool scanned_function(const struct dwscan_func *f, void *ctx)
{
	struct unit_candidates *uc = ctx;
	Dwarf_Die die;
	Dwarf_Addr entry = f->entry;
	if (!dwarf_offdie(uc->w->o->dbg, f->die, &die))
		return true;
	if (f->have_entry || function_entry(&die, &entry))
		match_entry(uc, &die, entry);
	return uc->left > 0;
}

/* The unit's functions through dwscan.c; false when it cannot read the
 * unit (libdw's walk then finds what is left). */
static bool scan_unit(struct unit_candidates *uc, Dwarf_Die *cu)
{
	Dwarf_Off unit_off;
	return scannable(uc->w->o, cu, &unit_off) &&
	       dwscan_functions(&uc->w->o->scan, unit_off, scanned_function, uc);
}

/* Each unit holding candidates is scanned once (found through
 * .debug_aranges): its functions whose code starts at a candidate's
 * address are the matches. */
static void consider_candidates(struct walk *w, struct candidate *v, size_t n)
{
	if (!n)
		return;
	qsort(v, n, sizeof *v, candidate_cmp);
	for (size_t i = 0; i < n;) {
		size_t j = i;
		while (j < n && v[j].cu == v[i].cu)
			j++;
		struct unit_candidates uc = { w, v, i, j, 0 };
		for (size_t k = i; k < j; k++)
			uc.left += k == i || v[k].pc != v[k - 1].pc;
		Dwarf_Die cu, die;
		/* A unit can hold thousands of types before its functions: the
		 * scan ends when every candidate has been found. */
		if (dwarf_offdie(w->o->dbg, v[i].cu, &cu) && !scan_unit(&uc, &cu) && uc.left &&
		    dwarf_child(&cu, &die) == 0) {
			do {
				Dwarf_Addr entry;
				if (dwarf_tag(&die) == DW_TAG_subprogram && function_entry(&die, &entry))
					match_entry(&uc, &die, entry);
			} while (uc.left && dwarf_siblingof(&die, &die) == 0);
		}
		i = j;
	}
}

/* Does the symbol's name, without a clone's ".isra.0" and the like, match
 * the pattern? Its literal head and tail are compared first: fnmatch over
 * every symbol of thousands of modules is a visible part of a wildcard. */
static bool base_name_matches(const char *pattern, const char *sym)
{
	size_t len = strcspn(sym, ".");
	size_t head = strcspn(pattern, "*?[\\");
	if (!pattern[head])
		return len == head && !memcmp(pattern, sym, len);
	if (len < head || memcmp(pattern, sym, head))
		return false;
	const char *last = strrchr(pattern, '*');
	if (last && !strpbrk(last, "?[\\")) {
		size_t tail = strlen(last + 1);
		if (len < head + tail || memcmp(last + 1, sym + len - tail, tail))
			return false;
	}
	char base[256];
	if (len >= sizeof base)
		return false;
	memcpy(base, sym, len);
	base[len] = 0;
	return fnmatch(pattern, base, 0) == 0;
}

/*
 * Might a C++ function whose mangled symbol is sym be what the pattern
 * names ("area", "geo::Rect::area", "twice<int>", "geo::*")? Mangling
 * spells each name of the chain as it is, so the longest plain run of
 * the pattern's last part, without template arguments, must be in it.
 * Its DWARF name and scopes are then compared.
 */
static bool cxx_may_match(const char *pattern, const char *sym)
{
	if (strncmp(sym, "_Z", 2))
		return false;
	const char *last = pattern;
	for (const char *p = pattern; *p; p++)
		if (p[0] == ':' && p[1] == ':')
			last = p + 2;
	size_t end = strcspn(last, "<");
	size_t best = 0, best_len = 0;
	for (size_t i = 0; i < end;) {
		size_t run = strcspn(last + i, "*?[\\<");
		if (run > end - i)
			run = end - i;
		if (run > best_len)
			best = i, best_len = run;
		i += run + 1;
	}
	if (!best_len)
		return true;
	char lit[256];
	if (best_len >= sizeof lit)
		return false;
	memcpy(lit, last + best, best_len);
	lit[best_len] = 0;
	return strstr(sym, lit) != NULL;
}

/*
 * Instead of every unit of the DWARF (the kernel's is large, and a
 * module's units are mostly the types of the headers it includes), only
 * the units holding a function whose symbol matches: a clone's symbol is
 * NAME.isra.0 and the like, at the address its DWARF gives.
 */
static int func_sym_cmp(const void *a, const void *b)
{
	const struct func_sym *x = a, *y = b;
	int c = memcmp(x->name, y->name, x->len < y->len ? x->len : y->len);
	if (c)
		return c;
	return x->len < y->len ? -1 : x->len > y->len;
}

static void make_func_syms(struct dw_obj *o)
{
	o->fsyms_made = true;
	int nsyms = dwfl_module_getsymtab(o->mod);
	if (nsyms <= 0)
		return;
	o->fsyms = xmalloc((size_t)nsyms * sizeof *o->fsyms);
	for (int i = 0; i < nsyms; i++) {
		GElf_Sym sym;
		GElf_Addr value;
		const char *name = dwfl_module_getsym_info(o->mod, i, &sym, &value, NULL, NULL, NULL);
		if (name && GELF_ST_TYPE(sym.st_info) == STT_FUNC) {
			size_t len = strcspn(name, ".");
			o->fsyms[o->nfsyms++] = (struct func_sym){ name, len, value, name_key(name, len) };
		}
	}
	sort_by_key(o->fsyms, o->nfsyms, sizeof *o->fsyms, offsetof(struct func_sym, key));
	sort_key_runs(o->fsyms, o->nfsyms, sizeof *o->fsyms, offsetof(struct func_sym, key),
		      func_sym_cmp);
}

/* The function symbols [*lo, *hi) whose names begin with the pattern's
 * first head bytes (its literal part): in name order, they are adjacent. */
static void func_syms_with_head(struct dw_obj *o, const char *pattern, size_t head, size_t *lo,
				size_t *hi)
{
	if (!o->fsyms_made)
		make_func_syms(o);
	size_t a = 0, b = o->nfsyms;
	while (a < b) {
		size_t mid = (a + b) / 2;
		const struct func_sym *y = &o->fsyms[mid];
		int c = memcmp(y->name, pattern, y->len < head ? y->len : head);
		if (c < 0 || (c == 0 && y->len < head))
			a = mid + 1;
		else
			b = mid;
	}
	*lo = a;
	b = a;
	while (b < o->nfsyms && o->fsyms[b].len >= head && !memcmp(o->fsyms[b].name, pattern, head))
		b++;
	*hi = b;
}

static void walk_symbols(struct walk *w)
{
	struct dw_obj *o = w->o;
	struct candidate *v = NULL;
	size_t n = 0, cap = 0;
	if (!o->is_kernel && !o->is_user) {
		for (size_t i = 0; i < o->nsyms; i++) {
			const struct dw_sym *y = &o->syms[i];
			if (!y->is_func || !base_name_matches(w->q->function, y->name))
				continue;
			Dwarf_Addr pc = y->value - o->bias;
			if (o->laid_out) {
				size_t k = 0;
				while (k < o->nsecs && strcmp(o->secs[k].name, y->section))
					k++;
				if (k == o->nsecs)
					continue;
				pc = o->secs[k].addr + y->offset;
			}
			add_candidate(w, pc, &v, &n, &cap, false);
		}
	} else {
		const char *pat = w->q->function;
		size_t head = strcspn(pat, "*?[\\");
		size_t lo, hi;
		func_syms_with_head(o, pat, head, &lo, &hi);
		for (size_t i = lo; i < hi; i++)
			if (base_name_matches(pat, o->fsyms[i].name))
				add_candidate(w, o->fsyms[i].value - o->bias, &v, &n, &cap, o->is_user);
		/* A C++ name is mangled: its symbol begins otherwise. */
		for (size_t i = 0; o->is_user && i < o->nfsyms; i++)
			if (!base_name_matches(pat, o->fsyms[i].name) &&
			    cxx_may_match(pat, o->fsyms[i].name))
				add_candidate(w, o->fsyms[i].value - o->bias, &v, &n, &cap, false);
	}
	consider_candidates(w, v, n);
	w->symbol_matched = false;
	free(v);
}

static struct dw_obj *usable_obj(struct dw *d, const char *module, const char *module_file,
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

/* Might a function named by pattern be here? Its symbol says (a clone's
 * symbol is NAME.isra.0 and the like). Saves reading DWARF for every
 * module of a wildcard. */
static bool symbol_matches(const struct dw_obj *o, const char *pattern)
{
	for (size_t i = 0; i < o->nsyms; i++)
		if (o->syms[i].is_func && base_name_matches(pattern, o->syms[i].name))
			return true;
	return false;
}

/* len bytes at off of the member into a new buffer, or NULL when they
 * are not all inside it or cannot be read. */
static void *member_read(int fd, const struct debug_file *f, uint64_t off, uint64_t len)
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
static Elf64_Shdr *member_sections(struct dw *d, const struct debug_file *f, Elf64_Ehdr *eh,
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

/*
 * An archive member's symbol tables, read with pread: 1 when a function
 * symbol matches pattern, 0 when none does, -1 when it has no symbol
 * table or is not a plain ELF file (then libelf reads it). Not through
 * the mapping libdwfl needs: a page read there stays in the process.
 */
static int member_symbols_match(struct dw *d, const struct debug_file *f, const char *pattern)
{
	Elf64_Ehdr ehdr = { 0 }, *eh = &ehdr;
	struct mapped *m;
	Elf64_Shdr *sh = member_sections(d, f, eh, &m);
	if (!sh)
		return -1;
	int result = -1;
	size_t nsec = eh->e_shnum;
	for (size_t i = 0; i < nsec && result != 1; i++) {
		if (sh[i].sh_type != SHT_SYMTAB || sh[i].sh_entsize != sizeof(Elf64_Sym) ||
		    sh[i].sh_link >= nsec)
			continue;
		const Elf64_Shdr *st = &sh[sh[i].sh_link];
		Elf64_Sym *syms = member_read(m->fd, f, sh[i].sh_offset, sh[i].sh_size);
		char *names = st->sh_type == SHT_STRTAB ? member_read(m->fd, f, st->sh_offset, st->sh_size)
						       : NULL;
		if (syms && names && st->sh_size) {
			result = 0;
			names[st->sh_size - 1] = 0;
			for (size_t k = 0; k < sh[i].sh_size / sizeof *syms && !result; k++)
				result = ELF64_ST_TYPE(syms[k].st_info) == STT_FUNC &&
					 syms[k].st_name < st->sh_size &&
					 base_name_matches(pattern, names + syms[k].st_name);
		}
		free(syms);
		free(names);
	}
	free(sh);
	return result;
}

/*
 * Could module have a function pattern matches? Its symbol table, read
 * straight from the file, says so before libdwfl is asked to open it: a
 * wildcard over thousands of modules opens only those that match.
 */
static bool file_has_function(struct dw *d, const struct debug_file *f, const char *pattern)
{
	int fd = -1;
	Elf *elf;
	if (f->member) {
		int found = member_symbols_match(d, f, pattern);
		if (found >= 0)
			return found;
		char *data = member_bytes(d, f);
		elf = data ? elf_memory(data, f->member_size) : NULL;
	} else {
		fd = open(f->path, O_RDONLY | O_CLOEXEC);
		elf = fd >= 0 ? elf_begin(fd, ELF_C_READ_MMAP, NULL) : NULL;
	}
	bool found = false, have_symtab = false;
	for (Elf_Scn *scn = elf ? elf_nextscn(elf, NULL) : NULL; scn && !found;
	     scn = elf_nextscn(elf, scn)) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || !sh.sh_entsize)
			continue;
		have_symtab = true;
		Elf_Data *data = elf_getdata(scn, NULL);
		size_t n = data ? sh.sh_size / sh.sh_entsize : 0;
		for (size_t i = 0; i < n && !found; i++) {
			GElf_Sym sym;
			const char *name;
			found = gelf_getsym(data, (int)i, &sym) && GELF_ST_TYPE(sym.st_info) == STT_FUNC &&
				(name = elf_strptr(elf, sh.sh_link, sym.st_name)) &&
				base_name_matches(pattern, name);
		}
	}
	if (elf)
		elf_end(elf);
	if (fd >= 0)
		close(fd);
	/* No symbol table to tell: let the full reader decide. */
	return found || !have_symtab;
}

int dw_functions(struct dw *d, const char *module, const char *module_file,
		 const struct dw_query *q, struct ptrvec *sites, size_t *left_out, char **why)
{
	const struct debug_file *f = module_file ? NULL : debugfind(d->ix, module);
	const struct dw_obj *seen = find_obj(d, module);
	bool opened = seen && !seen->parked;
	if (f && !opened && strcmp(module, "kernel") && !file_has_function(d, f, q->function))
		return 0;
	struct dw_obj *o = usable_obj(d, module, module_file, false, why);
	if (!o)
		return -1;
	if (o->nsyms && !symbol_matches(o, q->function))
		return 0;
	if (!load_dwarf(o)) {
		*why = xasprintf("%s: %s", o->file, o->why);
		return -1;
	}
	struct walk w = { .o = o, .q = q, .sites = sites, .left_out = left_out };
	if (o->is_kernel || o->is_user || o->nsyms)
		walk_symbols(&w);
	else
		walk_units(&w);
	if (f && f->member)
		member_release(d, f);
	o->kept |= w.found > 0;
	return w.found;
}

void dw_each_function(struct dw *d, const char *module, void (*fn)(const char *name, void *ctx),
		      void *ctx)
{
	char *why = NULL;
	struct dw_obj *o = usable_obj(d, module, NULL, true, &why);
	free(why);
	if (!o)
		return;
	o->kept = true;
	struct walk w = { .o = o, .each = fn, .ctx = ctx };
	walk_units(&w);
}

/* --- statements --- */

/* The function (not an inlined copy) whose code holds pc. */
static bool function_at(Dwarf_Die *cu, Dwarf_Addr pc, Dwarf_Die *out)
{
	Dwarf_Die *scopes = NULL;
	int n = dwarf_getscopes(cu, pc, &scopes);
	bool found = false;
	for (int i = 0; i < n && !found; i++) {
		if (dwarf_tag(&scopes[i]) == DW_TAG_subprogram) {
			*out = scopes[i];
			found = true;
		}
	}
	free(scopes);
	return found;
}

static const char *unit_file(Dwarf_Die *cu)
{
	Dwarf_Attribute a;
	return dwarf_formstring(dwarf_attr(cu, DW_AT_name, &a));
}

/* A line where a statement begins, in a function the query matches. */
struct stmt_line {
	Dwarf_Die func;
	const char *name, *file;
	int lineno;
	Dwarf_Addr pc;
};

/* One unit's functions that match a statement query, by their code's
 * address ranges (sorted), so that each line's function is found without
 * asking libdw for its scopes (thousands of lines a unit). */
struct func_range {
	Dwarf_Addr lo, hi;
	Dwarf_Off die;
};

struct unit_funcs {
	struct dw_obj *o;
	const char *pattern;
	struct func_range *v;
	size_t n, cap;
};

static bool ranged_function(const struct dwscan_func *f, void *ctx)
{
	struct unit_funcs *u = ctx;
	Dwarf_Die die;
	Dwarf_Attribute na;
	const char *name;
	if (!dwarf_offdie(u->o->dbg, f->die, &die) ||
	    !(name = dwarf_formstring(dwarf_attr_integrate(&die, DW_AT_name, &na))) ||
	    fnmatch(u->pattern, name, 0) != 0)
		return true;
	Dwarf_Addr base, lo, hi;
	for (ptrdiff_t it = 0; (it = dwarf_ranges(&die, it, &base, &lo, &hi)) > 0;) {
		if (u->n == u->cap)
			u->v = xrealloc(u->v, (u->cap = u->cap ? 2 * u->cap : 16) * sizeof *u->v);
		u->v[u->n++] = (struct func_range){ lo, hi, f->die };
	}
	return true;
}

static int func_range_cmp(const void *a, const void *b)
{
	const struct func_range *x = a, *y = b;
	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* The unit's matching functions, through dwscan.c: false when it cannot
 * tell (not C, whose functions may sit inside namespaces and classes, or
 * a unit it cannot read): libdw's scopes answer for each line then. */
static bool unit_functions(struct dw_obj *o, Dwarf_Die *cu, const char *pattern,
			   struct unit_funcs *u)
{
	*u = (struct unit_funcs){ o, pattern, NULL, 0, 0 };
	Dwarf_Attribute pa;
	const char *producer = dwarf_formstring(dwarf_attr(cu, DW_AT_producer, &pa));
	Dwarf_Off unit_off;
	if (!producer || strncmp(producer, "GNU C", 5) || !strncmp(producer, "GNU C++", 7) ||
	    !scannable(o, cu, &unit_off) || !dwscan_functions(&o->scan, unit_off, ranged_function, u)) {
		free(u->v);
		u->v = NULL;
		return false;
	}
	if (u->n)
		qsort(u->v, u->n, sizeof *u->v, func_range_cmp);
	return true;
}

static bool function_in(const struct unit_funcs *u, Dwarf_Addr pc, Dwarf_Die *out)
{
	size_t lo = 0, hi = u->n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (u->v[mid].lo <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo > 0 && pc < u->v[lo - 1].hi && dwarf_offdie(u->o->dbg, u->v[lo - 1].die, out);
}

static int offset_cmp(const void *a, const void *b)
{
	const Dwarf_Off *x = a, *y = b;
	return *x < *y ? -1 : *x > *y;
}

/* The kernel's units that hold a function the pattern may name, by its
 * symbols (sorted DIE offsets); NULL for every unit ("*"). A statement
 * query over every file ("do_sys_open@*:*") otherwise decoded all 2,800
 * line tables. */
static Dwarf_Off *units_of_symbols(struct dw_obj *o, const char *pattern, size_t *n)
{
	size_t head = strcspn(pattern, "*?[\\"), lo, hi;
	*n = 0;
	if (!o->is_kernel || !head)
		return NULL;
	func_syms_with_head(o, pattern, head, &lo, &hi);
	Dwarf_Off *v = xmalloc((hi - lo + 1) * sizeof *v);
	for (size_t i = lo; i < hi; i++) {
		Dwarf_Die cu;
		if (base_name_matches(pattern, o->fsyms[i].name) &&
		    unit_of(o, o->fsyms[i].value - o->bias, &cu))
			v[(*n)++] = dwarf_dieoffset(&cu);
	}
	qsort(v, *n, sizeof *v, offset_cmp);
	return v;
}

/*
 * Each line where a statement begins, in a file matching q->file and a
 * function matching q->function, for which want(lineno) holds (asked
 * first). Of the kernel's 2800 units only those of the file and, for a
 * named function, those its symbols are in are read, and of those only
 * the ones with a matching function have their line tables decoded.
 */
static void each_statement_line(struct dw_obj *o, const struct dw_query *q,
				bool (*want)(int lineno, void *ctx),
				void (*fn)(struct stmt_line *l, void *ctx), void *ctx)
{
	size_t nunits;
	Dwarf_Off *units = units_of_symbols(o, q->function, &nunits);
	Dwarf_Off off = 0, next;
	size_t hsize;
	for (; dwarf_nextcu(o->dbg, off, &next, &hsize, NULL, NULL, NULL) == 0; off = next) {
		Dwarf_Die cu;
		Dwarf_Lines *lines;
		size_t nlines;
		Dwarf_Off unit = off + hsize;
		if ((units && !bsearch(&unit, units, nunits, sizeof *units, offset_cmp)) ||
		    !dwarf_offdie(o->dbg, unit, &cu) ||
		    (o->is_kernel && !file_matches(q->file, unit_file(&cu))))
			continue;
		struct unit_funcs uf;
		bool scanned = unit_functions(o, &cu, q->function, &uf);
		if ((scanned && !uf.n) || dwarf_getsrclines(&cu, &lines, &nlines) != 0) {
			free(uf.v);
			continue;
		}
		for (size_t i = 0; i < nlines; i++) {
			Dwarf_Line *ln = dwarf_onesrcline(lines, i);
			struct stmt_line l;
			bool stmt;
			Dwarf_Attribute na;
			if (dwarf_lineno(ln, &l.lineno) != 0 || !want(l.lineno, ctx) ||
			    dwarf_linebeginstatement(ln, &stmt) != 0 || !stmt ||
			    dwarf_lineaddr(ln, &l.pc) != 0 ||
			    !(scanned ? function_in(&uf, l.pc, &l.func) : function_at(&cu, l.pc, &l.func)) ||
			    !file_matches(q->file, l.file = dwarf_linesrc(ln, NULL, NULL)) ||
			    !(l.name = dwarf_formstring(dwarf_attr_integrate(&l.func, DW_AT_name, &na))) ||
			    fnmatch(q->function, l.name, 0) != 0)
				continue;
			fn(&l, ctx);
		}
		free(uf.v);
	}
	free(units);
}

struct stmt_walk {
	struct dw_obj *o;
	const struct dw_query *q;
	struct ptrvec *sites;
	size_t *left_out;
	int found;
	struct ptrvec done; /* lines of functions placed (DIE offset ^ line << 40) */
};

static bool is_the_line(int lineno, void *ctx)
{
	const struct dw_query *q = ((struct stmt_walk *)ctx)->q;
	return lineno >= q->line && lineno <= (q->line_last ? q->line_last : q->line);
}

/* A line may be split into several blocks of code: the probe goes at the
 * first address of each function's first block of it (a range: of each
 * line). */
static void add_statement_site(struct stmt_line *l, void *ctx)
{
	struct stmt_walk *w = ctx;
	struct dw_obj *o = w->o;
	Dwarf_Off key = dwarf_dieoffset(&l->func);
	uintptr_t done = (uintptr_t)key ^ ((uintptr_t)(unsigned)l->lineno << 40);
	for (size_t k = 0; k < w->done.n; k++)
		if ((uintptr_t)w->done.v[k] == done)
			return;
	pv_push(&w->done, (void *)done);
	struct probe_site *s = xcalloc(1, sizeof *s);
	Dwarf_Addr entry;
	if (o->is_kernel) {
		/* The function by name plus the offset, or _text + offset. */
		if (!function_entry(&l->func, &entry) || l->pc < entry) {
			(*w->left_out)++;
			free(s);
			return;
		}
		s->anchor = xstrdup(l->name);
		s->anchor_offset = (int64_t)(l->pc - entry);
		s->text_offset = l->pc + o->bias - o->text_addr;
	} else if (o->is_user) {
		s->is_user = true;
		s->user_vaddr = s->user_entry_vaddr = user_vaddr(o, l->pc);
	} else {
		uint64_t a;
		const char *secname = dwarf_to_section(o, l->pc, &a);
		if (!secname || !strncmp(secname, ".init", 5) || !anchor_for(o, l->name, secname, a, s)) {
			(*w->left_out)++;
			free(s);
			return;
		}
	}
	s->object = xstrdup(o->name);
	s->object_file = xstrdup(o->file);
	s->build_id = o->build_id ? xstrdup(o->build_id) : NULL;
	s->function = xstrdup(l->name);
	s->decl_file = xstrdup(l->file);
	s->decl_line = l->lineno;
	s->is_statement = true;
	s->source = "DWARF";
	s->load_vars = load_vars;
	s->src_ctx = o;
	s->src_key = key;
	s->src_pc = l->pc;
	pv_push(w->sites, s);
	w->found++;
}

int dw_statements(struct dw *d, const char *module, const char *module_file,
		  const struct dw_query *q, struct ptrvec *sites, size_t *left_out, char **why)
{
	struct dw_obj *o = usable_obj(d, module, module_file, true, why);
	if (!o)
		return -1;
	struct stmt_walk w = { .o = o, .q = q, .sites = sites, .left_out = left_out };
	each_statement_line(o, q, is_the_line, add_statement_site, &w);
	pv_free(&w.done);
	o->kept |= w.found > 0;
	return w.found;
}

struct near_lines {
	int line, below, above;
};

/* A line nearer than the nearest so far, on its side of the one asked for. */
static bool is_nearer(int lineno, void *ctx)
{
	const struct near_lines *n = ctx;
	return lineno < n->line ? lineno > n->below : lineno > n->line && (!n->above || lineno < n->above);
}

static void note_near(struct stmt_line *l, void *ctx)
{
	struct near_lines *n = ctx;
	if (l->lineno < n->line)
		n->below = l->lineno;
	else
		n->above = l->lineno;
}

void dw_statement_lines_near(struct dw *d, const char *module, const char *module_file,
			     const struct dw_query *q, int *below, int *above)
{
	char *why = NULL;
	struct near_lines n = { q->line, 0, 0 };
	struct dw_obj *o = usable_obj(d, module, module_file, true, &why);
	free(why);
	if (o) {
		o->kept = true;
		each_statement_line(o, q, is_nearer, note_near, &n);
	}
	*below = n.below;
	*above = n.above;
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
static void inline_index_free(struct inline_index *ix);

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
static bool revive(struct dw_obj *o)
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

/* --- types by name (@cast) --- */

static bool type_named(Dwarf_Die *die, const char *tag_word, const char *name)
{
	int tag = dwarf_tag(die);
	const char *n = dwarf_diename(die);
	if (!n || strcmp(n, name) || dwarf_hasattr(die, DW_AT_declaration))
		return false;
	if (!tag_word)
		return tag == DW_TAG_structure_type || tag == DW_TAG_union_type ||
		       tag == DW_TAG_typedef || tag == DW_TAG_base_type ||
		       tag == DW_TAG_enumeration_type;
	return (!strcmp(tag_word, "struct") && tag == DW_TAG_structure_type) ||
	       (!strcmp(tag_word, "union") && tag == DW_TAG_union_type) ||
	       (!strcmp(tag_word, "enum") && tag == DW_TAG_enumeration_type);
}

struct ctype *dw_find_type(struct dw *d, const char *module, const char *type, char **why)
{
	struct dw_obj *o = usable_obj(d, module, NULL, true, why);
	if (!o)
		return NULL;
	o->kept = true;
	/* "struct file", "union u", "enum e", or a bare name; a trailing '*'
	 * makes a pointer to it. */
	char *want = xstrdup(type);
	size_t len = strlen(want);
	int pointers = 0;
	while (len && (want[len - 1] == '*' || want[len - 1] == ' ')) {
		pointers += want[len - 1] == '*';
		want[--len] = 0;
	}
	const char *tag_word = NULL, *name = want;
	static const char *const words[] = { "struct ", "union ", "enum " };
	for (size_t i = 0; i < sizeof words / sizeof *words; i++) {
		size_t n = strlen(words[i]);
		if (!strncmp(want, words[i], n)) {
			want[n - 1] = 0;
			tag_word = want;
			name = want + n;
		}
	}
	struct ctype *found = NULL;
	Dwarf_Off off = 0, next;
	size_t hsize;
	while (!found && dwarf_nextcu(o->dbg, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu, child;
		if (dwarf_offdie(o->dbg, off + hsize, &cu) && dwarf_child(&cu, &child) == 0) {
			do {
				if (type_named(&child, tag_word, name)) {
					found = dw_type(o, &child);
					break;
				}
			} while (dwarf_siblingof(&child, &child) == 0);
		}
		off = next;
	}
	for (int i = 0; found && i < pointers; i++) {
		struct ctype *p = xcalloc(1, sizeof *p);
		p->kind = CT_PTR;
		p->size = 8;
		p->complete = true;
		p->target = found;
		p->name = xasprintf("%s*", found->name);
		found = p;
	}
	if (!found)
		*why = xasprintf("%s has no type '%s'", o->file, type);
	free(want);
	return found;
}

/* --- inlined copies (.inline) --- */

struct inline_walk {
	struct walk *w;
	Dwarf_Die *func;   /* the function being walked */
	/* The unit's abstract instances whose names match (their offsets,
	 * sorted), when its copies can name no other (units_to_walk). */
	const Dwarf_Off *origins;
	size_t norigins;
};

/* Does the copy die name one of iw's abstract instances? Its name is
 * not read, nor matched: most copies in a unit are of other functions. */
static bool copy_of_matching(struct inline_walk *iw, Dwarf_Die *die)
{
	Dwarf_Attribute a;
	Dwarf_Die origin;
	if (!dwarf_attr(die, DW_AT_abstract_origin, &a) || !dwarf_formref_die(&a, &origin))
		return true;
	Dwarf_Off off = dwarf_dieoffset(&origin);
	size_t lo = 0, hi = iw->norigins;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (iw->origins[mid] < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < iw->norigins && iw->origins[lo] == off;
}

static void add_inline_site(struct walk *w, Dwarf_Die *func, Dwarf_Die *die, const char *name,
			    Dwarf_Addr pc)
{
	struct dw_obj *o = w->o;
	uint64_t a = 0;
	const char *secname = o->is_kernel || o->is_user ? ".text" : dwarf_to_section(o, pc, &a);
	struct probe_site *s = xcalloc(1, sizeof *s);
	if (!secname || !strncmp(secname, ".init", 5) ||
	    (!o->is_kernel && !o->is_user && !anchor_for(o, name, secname, a, s))) {
		(*w->left_out)++;
		free(s);
		return;
	}
	Dwarf_Attribute fa;
	Dwarf_Die origin;
	const char *file = NULL;
	int line = 0;
	if (dwarf_formref_die(dwarf_attr(die, DW_AT_abstract_origin, &fa), &origin)) {
		file = dwarf_decl_file(&origin);
		dwarf_decl_line(&origin, &line);
	}
	if (w->q->file && !file_matches(w->q->file, file)) {
		free(s);
		return;
	}
	s->object = xstrdup(o->name);
	s->object_file = xstrdup(o->file);
	s->build_id = o->build_id ? xstrdup(o->build_id) : NULL;
	s->function = xstrdup(name);
	s->decl_file = file ? xstrdup(file) : NULL;
	s->decl_line = line;
	s->is_inline = true;
	s->source = "DWARF";
	s->load_vars = load_vars;
	s->src_ctx = o;
	s->src_key = dwarf_dieoffset(die);
	s->src_frame = dwarf_dieoffset(func);
	s->src_pc = pc;
	if (o->is_kernel) {
		s->anchor = xstrdup("_text");
		s->text_offset = pc + o->bias - o->text_addr;
		s->anchor_offset = (int64_t)s->text_offset;
	} else if (o->is_user) {
		s->is_user = true;
		s->user_vaddr = s->user_entry_vaddr = user_vaddr(o, pc);
	}
	pv_push(w->sites, s);
	w->found++;
}

static void walk_inlines(struct inline_walk *iw, Dwarf_Die *parent)
{
	Dwarf_Die die;
	if (dwarf_child(parent, &die) != 0)
		return;
	do {
		int tag = dwarf_tag(&die);
		if (tag == DW_TAG_inlined_subroutine && (!iw->origins || copy_of_matching(iw, &die))) {
			Dwarf_Attribute na;
			const char *name = dwarf_formstring(dwarf_attr_integrate(&die, DW_AT_name, &na));
			Dwarf_Addr pc;
			if (name && fnmatch(iw->w->q->function, name, 0) == 0 && function_entry(&die, &pc))
				add_inline_site(iw->w, iw->func, &die, name, pc);
		}
		if (tag == DW_TAG_inlined_subroutine || tag == DW_TAG_lexical_block)
			walk_inlines(iw, &die);
	} while (dwarf_siblingof(&die, &die) == 0);
}

/* The ']' closing the set that opens at p ('['), or NULL when nothing
 * closes it (fnmatch then takes the '[' as itself). A ']' first, after
 * any '!' or '^', is one of the set's characters. */
static const char *pattern_set_end(const char *p)
{
	const char *q = p + 1;
	if (*q == '!' || *q == '^')
		q++;
	if (*q == ']')
		q++;
	while (*q && *q != ']')
		q++;
	return *q ? q : NULL;
}

/* The fewest bytes a name fnmatch(pattern) takes can have. */
static size_t pattern_min_len(const char *p)
{
	size_t n = 0;
	while (*p) {
		if (*p == '*') {
			p++;
			continue;
		}
		if (*p == '[') {
			const char *end = pattern_set_end(p);
			p = end ? end + 1 : p + 1;
			n++;
			continue;
		}
		if (*p == '\\' && p[1])
			p++;
		p++;
		n++;
	}
	return n;
}

/* The longest run of characters every name pattern matches holds as
 * they are (none of *, ? or a [...] set; an escaped one counts as
 * itself), into run (cap bytes); its length. */
static size_t pattern_literal(const char *pattern, char *run, size_t cap)
{
	char cur[256];
	size_t best = 0, n = 0;
	for (const char *p = pattern;; p++) {
		if (*p && *p != '*' && *p != '?' && *p != '[') {
			if (*p == '\\' && p[1])
				p++;
			if (n + 1 < sizeof cur) {
				cur[n++] = *p;
				continue;
			}
		}
		if (n > best && n < cap) {
			memcpy(run, cur, n);
			run[n] = 0;
			best = n;
		}
		n = 0;
		if (!*p)
			return best;
		if (*p == '[' && pattern_set_end(p))
			p = pattern_set_end(p);
	}
}

/* Does a string of the table strs (size bytes, NUL-terminated strings)
 * match pattern? Only the strings holding its longest plain run are
 * matched against it: a module's table has tens of thousands. */
static bool strings_match(const char *strs, size_t size, const char *pattern)
{
	char run[256];
	size_t n = pattern_literal(pattern, run, sizeof run);
	const char *end = strs + size;
	/* The linker merges a string into the tail of a longer one
	 * ("activate_task" is the end of "deactivate_task"): a name is any
	 * string's tail. */
	if (!n) {
		for (const char *s = strs; s < end; s += strlen(s) + 1)
			for (const char *t = s; *t; t++)
				if (fnmatch(pattern, t, 0) == 0)
					return true;
		return false;
	}
	for (const char *at = strs; at < end && (at = memmem(at, (size_t)(end - at), run, n));) {
		const char *s = at;
		while (s > strs && s[-1])
			s--;
		for (const char *t = s; t <= at; t++)
			if (fnmatch(pattern, t, 0) == 0)
				return true;
		at = s + strlen(s) + 1;
	}
	return false;
}

/*
 * Might the archive member hold an inlined copy of a function pattern
 * matches? Its name would be in .debug_str: GCC puts every name longer
 * than a string offset (4 bytes) there, and merges them per module. Read
 * with pread, as member_symbols_match reads (a name may be the tail of a
 * longer string there: strings_match). 0 only when the pattern
 * needs more than 4 bytes, the member's .debug_str holds no match, and
 * no other file (.gnu_debugaltlink) holds strings for it; 1 otherwise.
 * Saves walking every function's body in every unit of each module of a
 * wildcard for copies most modules cannot have: the walk read all of
 * each module's DWARF.
 */
static int member_may_inline(struct dw *d, const struct debug_file *f, const char *pattern)
{
	if (pattern_min_len(pattern) <= 4)
		return 1;
	Elf64_Ehdr ehdr = { 0 }, *eh = &ehdr;
	struct mapped *m;
	Elf64_Shdr *sh = member_sections(d, f, eh, &m);
	char *secnames = NULL, *strs = NULL;
	int result = 1;
	size_t nsec = eh->e_shnum;
	const Elf64_Shdr *ns = sh ? &sh[eh->e_shstrndx] : NULL;
	secnames = ns && ns->sh_size ? member_read(m->fd, f, ns->sh_offset, ns->sh_size) : NULL;
	if (!secnames)
		goto out;
	secnames[ns->sh_size - 1] = 0;
	const Elf64_Shdr *str = NULL;
	for (size_t i = 0; i < nsec; i++) {
		if (sh[i].sh_name >= ns->sh_size)
			goto out;
		const char *name = secnames + sh[i].sh_name;
		if (!strcmp(name, ".gnu_debugaltlink") || !strncmp(name, ".zdebug", 7))
			goto out;
		if (!strcmp(name, ".debug_str"))
			str = &sh[i];
	}
	if (!str || str->sh_type != SHT_PROGBITS || (str->sh_flags & SHF_COMPRESSED) || !str->sh_size)
		goto out;
	strs = member_read(m->fd, f, str->sh_offset, str->sh_size);
	if (!strs)
		goto out;
	strs[str->sh_size - 1] = 0;
	result = strings_match(strs, str->sh_size, pattern);
out:
	free(strs);
	free(secnames);
	free(sh);
	return result;
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
static void member_release(struct dw *d, const struct debug_file *f)
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

/*
 * Which units can hold an inlined copy of a function, and of which
 * abstract instances? GCC, without LTO, describes each function inlined
 * in a unit by an abstract instance at the unit's top level
 * (DW_AT_inline), which its copies name: a unit with no instance of a
 * matching name has no copy to find, and its functions' bodies, most of
 * its DWARF, need no walk; in one that has, only copies naming those
 * instances are looked at. The instances of every unit are listed once
 * per object, by name, so that the tapsets' hundreds of function probes
 * (each also asking for inlined copies) cost one scan of the units' top
 * levels, not one each (syscall.* took 38 s on 6.1 with its DWARF). A
 * unit whose copies may name an instance in another (LTO's, clang's, any
 * of a user program) is "open": every copy in it is looked at.
 */
struct inline_origin {
	const char *name;  /* in the DWARF's strings */
	Dwarf_Off unit;    /* the unit's DIE */
	Dwarf_Off origin;  /* the abstract instance's DIE */
};

struct inline_index {
	struct inline_origin *v; /* by name, then unit, then origin */
	size_t n, cap;
	Dwarf_Off *open;         /* open units' DIEs, in order */
	size_t nopen, open_cap;
	char *saved;             /* the cache file read, which names point into */
};

static void inline_index_free(struct inline_index *ix)
{
	if (ix) {
		free(ix->v);
		free(ix->open);
		free(ix->saved);
		free(ix);
	}
}

struct index_unit {
	struct dw_obj *o;
	struct inline_index *ix;
	Dwarf_Off unit;
};

static void add_open_unit(struct inline_index *ix, Dwarf_Off unit)
{
	if (ix->nopen == ix->open_cap)
		ix->open = xrealloc(ix->open, (ix->open_cap = ix->open_cap ? 2 * ix->open_cap : 16) *
						      sizeof *ix->open);
	ix->open[ix->nopen++] = unit;
}

static void add_origin(struct index_unit *u, Dwarf_Die *die)
{
	const char *name = dwarf_diename(die);
	if (!name)
		return;
	struct inline_index *ix = u->ix;
	if (ix->n == ix->cap)
		ix->v = xrealloc(ix->v, (ix->cap = ix->cap ? 2 * ix->cap : 256) * sizeof *ix->v);
	ix->v[ix->n++] = (struct inline_origin){ name, u->unit, dwarf_dieoffset(die) };
}

static bool scanned_origin(const struct dwscan_func *f, void *ctx)
{
	struct index_unit *u = ctx;
	Dwarf_Die die;
	if (dwarf_offdie(u->o->dbg, f->die, &die))
		add_origin(u, &die);
	return true;
}

static void index_unit_origins(struct dw_obj *o, struct inline_index *ix, Dwarf_Die *cu)
{
	struct index_unit u = { o, ix, dwarf_dieoffset(cu) };
	Dwarf_Attribute pa;
	const char *producer = dwarf_formstring(dwarf_attr(cu, DW_AT_producer, &pa));
	if (o->is_user || !producer || strncmp(producer, "GNU C", 5) || strstr(producer, "-flto")) {
		add_open_unit(ix, u.unit);
		return;
	}
	size_t before = ix->n;
	Dwarf_Off unit_off;
	if (scannable(o, cu, &unit_off) &&
	    dwscan_abstract_functions(&o->scan, unit_off, scanned_origin, &u))
		return;
	/* libdw's walk of the top level instead. */
	ix->n = before;
	Dwarf_Die child;
	if (dwarf_child(cu, &child) == 0) {
		do {
			if (dwarf_tag(&child) == DW_TAG_subprogram && dwarf_hasattr(&child, DW_AT_inline))
				add_origin(&u, &child);
		} while (dwarf_siblingof(&child, &child) == 0);
	}
}

static int origin_cmp(const void *a, const void *b)
{
	const struct inline_origin *x = a, *y = b;
	int c = strcmp(x->name, y->name);
	if (c)
		return c;
	if (x->unit != y->unit)
		return x->unit < y->unit ? -1 : 1;
	return x->origin < y->origin ? -1 : x->origin > y->origin;
}


/*
 * The index is kept in the cache by build-id (inlines/BUILD-ID-SIZE, SIZE
 * that of the file's .debug_info as stored, compressed or not): a
 * wildcard over an archive's 4,000 modules otherwise scans the top level
 * of every unit of the 2,800 whose strings could match, each run. The
 * file: a first line "tapline-inlines FORMAT BUILD-ID FILE", then "O UNIT"
 * per open unit and "UNIT ORIGIN NAME" per instance, by name, and last
 * "end HASH" (FNV-1a of all before it): written whole under another name,
 * then renamed; one cut short or changed is made again.
 */
#define INLINE_CACHE_FORMAT 2

/* A lowercase hex number at p (strtoull's locale and base handling were
 * most of parsing the kernel's index); *end is the byte after it. */
static uint64_t hex_at(const char *p, const char **end)
{
	uint64_t v = 0;
	for (;; p++) {
		unsigned d = *p >= '0' && *p <= '9' ? (unsigned)(*p - '0')
			   : *p >= 'a' && *p <= 'f' ? (unsigned)(*p - 'a' + 10) : 16;
		if (d == 16)
			break;
		v = v << 4 | d;
	}
	*end = p;
	return v;
}

static char *inline_cache_path(struct dw_obj *o)
{
	uint64_t size;
	if (!o->build_id || getenv("TAPLINE_NO_INLINE_CACHE") || !(size = debug_info_size(o)))
		return NULL;
	char *dir = cache_dir("inlines");
	char *path = xasprintf("%s/%s-%" PRIx64, dir, o->build_id, size);
	free(dir);
	return path;
}

static struct inline_index *read_inline_cache(struct dw_obj *o, const char *path)
{
	size_t len;
	char *why = NULL;
	char *text = file_exists(path) ? read_private_file(path, &len, &why) : NULL;
	free(why);
	if (!text || !len) {
		free(text);
		return NULL;
	}
	/* Kept while the object is: as small as it is (read_fd reads in
	 * 64 KiB steps, and a wildcard reads thousands). */
	text = xrealloc(text, len + 1);
	/* The last line: "end HASH" of all before it. */
	char *last = len >= 2 ? text + len - 2 : text;
	while (last > text && last[-1] != '\n')
		last--;
	char *end_hash;
	if (last == text || strncmp(last, "end ", 4) ||
	    strtoull(last + 4, &end_hash, 16) != hash_words(HASH_INIT, text, (size_t)(last - text)) ||
	    *end_hash != '\n') {
		free(text);
		return NULL;
	}
	len = (size_t)(last - text);
	text[len] = 0;
	struct inline_index *ix = xcalloc(1, sizeof *ix);
	ix->saved = text;
	char *p = text, *nl = strchr(p, '\n');
	char *head = xasprintf("tapline-inlines %d %s", INLINE_CACHE_FORMAT, o->build_id);
	bool ok = nl && (size_t)(nl - p) > strlen(head) && !strncmp(p, head, strlen(head)) &&
		  text[len - 1] == '\n';
	free(head);
	for (p = nl ? nl + 1 : NULL; ok && p < text + len; p = nl + 1) {
		nl = strchr(p, '\n');
		*nl = 0;
		const char *end;
		if (p[0] == 'O' && p[1] == ' ') {
			add_open_unit(ix, hex_at(p + 2, &end));
			ok = end > p + 2 && !*end;
			continue;
		}
		Dwarf_Off unit = hex_at(p, &end);
		ok = end > p && *end == ' ';
		const char *at = end + 1;
		Dwarf_Off origin = ok ? hex_at(at, &end) : 0;
		ok = ok && end > at && *end == ' ' && end[1];
		if (!ok)
			break;
		if (ix->n == ix->cap)
			ix->v = xrealloc(ix->v, (ix->cap = ix->cap ? 2 * ix->cap : 256) * sizeof *ix->v);
		ix->v[ix->n++] = (struct inline_origin){ end + 1, unit, origin };
	}
	if (!ok) {
		inline_index_free(ix);
		return NULL;
	}
	return ix;
}

static void write_inline_cache(struct dw_obj *o, const struct inline_index *ix, const char *path)
{
	struct strbuf b;
	sb_init(&b);
	sb_printf(&b, "tapline-inlines %d %s %s\n", INLINE_CACHE_FORMAT, o->build_id, o->file);
	for (size_t i = 0; i < ix->nopen; i++)
		sb_printf(&b, "O %" PRIx64 "\n", (uint64_t)ix->open[i]);
	for (size_t i = 0; i < ix->n; i++)
		if (!strchr(ix->v[i].name, '\n'))
			sb_printf(&b, "%" PRIx64 " %" PRIx64 " %s\n", (uint64_t)ix->v[i].unit,
				  (uint64_t)ix->v[i].origin, ix->v[i].name);
	sb_printf(&b, "end %" PRIx64 "\n", hash_words(HASH_INIT, b.s, b.len));
	char *tmp = xasprintf("%s.%d", path, (int)getpid());
	if (!write_file(tmp, b.s, b.len) || rename(tmp, path) != 0)
		unlink(tmp);
	free(tmp);
	sb_free(&b);
}

/* The index, from the cache or made (and saved); NULL with o->why when
 * the object's DWARF cannot be read. */
/* The index from the cache, when it holds one (NULL otherwise). */
static struct inline_index *cached_inline_index(struct dw_obj *o)
{
	if (!o->inlines) {
		char *path = inline_cache_path(o);
		o->inlines = path ? read_inline_cache(o, path) : NULL;
		free(path);
	}
	return o->inlines;
}

static struct inline_index *inline_index(struct dw_obj *o)
{
	if (cached_inline_index(o))
		return o->inlines;
	char *path = inline_cache_path(o);
	if (!load_dwarf(o)) {
		free(path);
		return NULL;
	}
	struct inline_index *ix = o->inlines = xcalloc(1, sizeof *ix);
	Dwarf_Off off = 0, next;
	size_t hsize;
	while (dwarf_nextcu(o->dbg, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu;
		if (dwarf_offdie(o->dbg, off + hsize, &cu))
			index_unit_origins(o, ix, &cu);
		off = next;
	}
	if (ix->n)
		qsort(ix->v, ix->n, sizeof *ix->v, origin_cmp);
	if (path)
		write_inline_cache(o, ix, path);
	free(path);
	return ix;
}

/* The units to walk for the pattern, in order, each with its matching
 * abstract instances (sorted; none for an open unit: all are looked at). */
struct unit_to_walk {
	Dwarf_Off unit;
	Dwarf_Off *origins; /* NULL for an open unit */
	size_t norigins;
};

static int match_cmp(const void *a, const void *b)
{
	const struct inline_origin *x = a, *y = b;
	if (x->unit != y->unit)
		return x->unit < y->unit ? -1 : 1;
	return x->origin < y->origin ? -1 : x->origin > y->origin;
}

static size_t units_to_walk(struct inline_index *ix, const char *pattern,
			    struct unit_to_walk **out)
{
	/* The matching instances: a plain name is found by bisection, a
	 * pattern is matched once per distinct name. */
	struct inline_origin *m = NULL;
	size_t nm = 0, lo = 0, hi = ix->n;
	if (!pattern[strcspn(pattern, "*?[\\")]) {
		while (lo < hi) {
			size_t mid = (lo + hi) / 2;
			if (strcmp(ix->v[mid].name, pattern) < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		hi = lo;
		while (hi < ix->n && !strcmp(ix->v[hi].name, pattern))
			hi++;
		m = xmalloc((hi - lo + 1) * sizeof *m);
		if (hi > lo)
			memcpy(m, ix->v + lo, (hi - lo) * sizeof *m);
		nm = hi - lo;
	} else {
		m = xmalloc((ix->n + 1) * sizeof *m);
		bool matched = false;
		for (size_t i = 0; i < ix->n; i++) {
			if (!i || strcmp(ix->v[i].name, ix->v[i - 1].name))
				matched = fnmatch(pattern, ix->v[i].name, 0) == 0;
			if (matched)
				m[nm++] = ix->v[i];
		}
	}
	qsort(m, nm, sizeof *m, match_cmp);
	struct unit_to_walk *u = xcalloc(nm + ix->nopen + 1, sizeof *u);
	size_t nu = 0, i = 0, k = 0;
	while (i < nm || k < ix->nopen) {
		if (k < ix->nopen && (i == nm || ix->open[k] < m[i].unit)) {
			u[nu++] = (struct unit_to_walk){ ix->open[k++], NULL, 0 };
			continue;
		}
		size_t j = i;
		while (j < nm && m[j].unit == m[i].unit)
			j++;
		struct unit_to_walk *w = &u[nu++];
		w->unit = m[i].unit;
		w->origins = xmalloc((j - i) * sizeof *w->origins);
		for (size_t t = i; t < j; t++)
			w->origins[w->norigins++] = m[t].origin;
		i = j;
	}
	free(m);
	*out = u;
	return nu;
}

int dw_inlines(struct dw *d, const char *module, const char *module_file,
	       const struct dw_query *q, struct ptrvec *sites, size_t *left_out, char **why)
{
	const struct debug_file *f = module_file ? NULL : debugfind(d->ix, module);
	/* A member's strings are searched for the name first, unless its
	 * index is at hand (the object open, its index made or cached). */
	struct dw_obj *open = find_obj(d, module);
	if (f && f->member && !(open && !open->why && cached_inline_index(open)) &&
	    !member_may_inline(d, f, q->function))
		return 0;
	/* The index may come from the cache: the DWARF is read only when a
	 * unit is to be walked. */
	struct dw_obj *o = usable_obj(d, module, module_file, false, why);
	if (!o)
		return -1;
	struct inline_index *ix = inline_index(o);
	if (!ix) {
		*why = xasprintf("%s: %s", o->file, o->why);
		return -1;
	}
	struct walk w = { .o = o, .q = q, .sites = sites, .left_out = left_out };
	struct unit_to_walk *units;
	size_t nunits = units_to_walk(ix, q->function, &units);
	if (nunits && !load_dwarf(o)) {
		for (size_t i = 0; i < nunits; i++)
			free(units[i].origins);
		free(units);
		*why = xasprintf("%s: %s", o->file, o->why);
		return -1;
	}
	for (size_t i = 0; i < nunits; i++) {
		Dwarf_Die cu, child;
		struct inline_walk iw = { &w, NULL, units[i].origins,
					  units[i].norigins };
		if (dwarf_offdie(o->dbg, units[i].unit, &cu) && dwarf_child(&cu, &child) == 0) {
			do {
				Dwarf_Addr pc;
				if (dwarf_tag(&child) != DW_TAG_subprogram || !function_entry(&child, &pc))
					continue;
				iw.func = &child;
				walk_inlines(&iw, &child);
			} while (dwarf_siblingof(&child, &child) == 0);
		}
		free(units[i].origins);
	}
	free(units);
	if (f && f->member)
		member_release(d, f);
	o->kept |= w.found > 0;
	return w.found;
}

/* --- global and static variables --- */

/* A data symbol of the module as a static: itself, when unique. */
static struct tstatic *static_of_symbol(struct dw_obj *o, const char *name)
{
	if (o->is_kernel) {
		GElf_Addr value;
		if (!symtab_value(o, name, STT_OBJECT, &value))
			return NULL;
		struct tstatic *st = xcalloc(1, sizeof *st);
		st->object = xstrdup(o->name);
		st->text_offset = value - o->text_addr;
		return st;
	}
	for (size_t i = 0; i < o->nsyms; i++) {
		const struct dw_sym *y = &o->syms[i];
		if (y->is_func || !y->unique || strcmp(y->name, name))
			continue;
		uint64_t addr = y->offset;
		for (size_t k = 0; k < o->nsecs; k++)
			if (o->laid_out && !strcmp(o->secs[k].name, y->section))
				addr += o->secs[k].addr;
		if (!o->laid_out)
			addr = y->value - o->bias;
		return static_at(o, addr);
	}
	return NULL;
}


/*
 * The global or static variable name of module: defined in a unit whose
 * source file matches file (any unit when NULL), or only in the unit of
 * the DIE at in_unit_of when that is not 0. A declaration with no
 * definition in reach (an extern) is found by its symbol. NULL with *why.
 */
struct tvar *dw_global(struct dw *d, const char *module, const char *name, const char *file,
		       uint64_t in_unit_of, char **why)
{
	*why = NULL;
	struct dw_obj *o = usable_obj(d, module, NULL, true, why);
	if (!o) {
		if (!*why)
			*why = xasprintf("no debug information for %s was found", module);
		return NULL;
	}
	o->kept = true;
	char *key = xasprintf("%s@%s#%llx", name, file ? file : "", (unsigned long long)in_unit_of);
	for (size_t i = 0; i < o->global_keys.n; i++)
		if (!strcmp(o->global_keys.v[i], key)) {
			free(key);
			return o->globals.v[i];
		}
	Dwarf_Die def, decl, only_cu;
	int ndefs = 0;
	bool have_decl = false;
	struct strbuf where = { 0 };
	Dwarf_Off off = 0, next;
	size_t hsize;
	if (in_unit_of) {
		Dwarf_Die die;
		if (!dwarf_offdie(o->dbg, in_unit_of, &die) || !dwarf_diecu(&die, &only_cu, NULL, NULL)) {
			*why = xstrdup("its unit cannot be read");
			free(key);
			return NULL;
		}
	}
	while (dwarf_nextcu(o->dbg, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu, v;
		if (in_unit_of)
			cu = only_cu;
		bool ok = in_unit_of || dwarf_offdie(o->dbg, off + hsize, &cu);
		if (ok && (!file || file_matches(file, unit_file(&cu))) && dwarf_child(&cu, &v) == 0) {
			do {
				Dwarf_Attribute na;
				if (dwarf_tag(&v) != DW_TAG_variable)
					continue;
				const char *vn = dwarf_formstring(dwarf_attr_integrate(&v, DW_AT_name, &na));
				if (!vn || strcmp(vn, name))
					continue;
				if (dwarf_hasattr(&v, DW_AT_location) ||
				    dwarf_hasattr(&v, DW_AT_const_value)) {
					if (ndefs++ == 0)
						def = v;
					sb_printf(&where, "%s%s", ndefs > 1 ? ", " : "", unit_file(&cu));
				} else if (!have_decl) {
					decl = v;
					have_decl = true;
				}
			} while (dwarf_siblingof(&v, &v) == 0);
		}
		if (in_unit_of)
			break;
		off = next;
	}
	struct tvar *tv = NULL;
	if (ndefs > 1) {
		*why = xasprintf("there are %d variables named '%s' (in %s): name the file, as "
				 "@var(\"%s@FILE\")",
				 ndefs, name, where.s, name);
	} else if (ndefs == 1 || have_decl) {
		tv = xcalloc(1, sizeof *tv);
		tv->name = xstrdup(name);
		struct where w = { o, NULL, 0, false };
		if (ndefs == 1) {
			load_var(&w, &def, tv);
		} else {
			Dwarf_Die ty;
			tv->type = dw_type(o, die_type(&decl, &ty) ? &ty : NULL);
			tv->loc.stat = static_of_symbol(o, name);
			if (tv->loc.stat) {
				tv->loc.kind = TL_MEMORY;
				tv->loc.ops = xcalloc(1, sizeof *tv->loc.ops);
				tv->loc.ops[0] = (struct tloc_op){ LO_STATIC, 0 };
				tv->loc.nops = 1;
			} else {
				tv->loc.kind = TL_NONE;
				tv->loc.why = xasprintf("it is only declared here, and %s has no symbol "
							"'%s'", o->file, name);
			}
		}
	} else {
		*why = xasprintf("%s has no global or static variable '%s'%s%s", o->file, name,
				 file ? " in a file matching " : "", file ? file : "");
	}
	free(where.s);
	if (tv) {
		pv_push(&o->global_keys, key);
		pv_push(&o->globals, tv);
	} else {
		free(key);
	}
	return tv;
}
