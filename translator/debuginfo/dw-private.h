/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the files of dw.c's DWARF reading share (dw.c, dw-types.c,
 * dw-locations.c, dw-functions.c, dw-statements.c, dw-inlines.c,
 * dw-globals.c): the objects a module's debug file is read through, and
 * the functions one file calls in another. Private to them: the rest of
 * the translator sees dw.h.
 */
#ifndef TAPLINE_DW_PRIVATE_H
#define TAPLINE_DW_PRIVATE_H

#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>

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
	/* A program's .debug_aranges, read by read_aranges (libdw's reader
	 * was a seventh of a 20-probe pass 2 on vmlinux), sorted by address;
	 * their cu is the unit's header, not its DIE. */
	struct cu_range *aranges;
	size_t naranges;
	bool aranges_read;
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
	/* A user file's function symbols by name, made once: hundreds of
	 * function probes each matched them all (the kernel's come from the
	 * kernel target: func_syms_with_head). */
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

struct func_sym {
	const char *name;
	GElf_Addr value;
	uint64_t key[2];   /* names_keys of the name (sorting a file's symbols) */
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
	const struct kernel *kernel; /* its function symbols stand for vmlinux's */
	bool verbose;
	struct ptrvec objs;      /* struct dw_obj * */
	struct dw_obj **by_name; /* objs hashed by name (open addressing) */
	size_t by_name_cap;
	struct ptrvec mapped;    /* archives mapped into memory (struct mapped *) */
	char *user_debug_path;   /* libdwfl's search path for user files' debug files */
};

/* Where a location is evaluated. */
struct where {
	struct dw_obj *o;
	Dwarf_Die *func;
	Dwarf_Addr pc;       /* DWARF's address */
	bool at_entry;       /* pc is the function's entry */
};

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

/* dw.c: the objects */
/* An archive member's bytes, from its archive mapped once; NULL when short. */
char *member_bytes(struct dw *d, const struct debug_file *f);
/* A DWARF address as a section's name and an offset in it (*off). */
const char *dwarf_to_section(struct dw_obj *o, Dwarf_Addr pc, uint64_t *off);
/* The value of the first symbol named name, of ELF type type (-1: any). */
bool symtab_value(struct dw_obj *o, const char *name, int type, GElf_Addr *value);
/* The module's object if it was opened (or tried) already. */
struct dw_obj *find_obj(struct dw *d, const char *module);
/* The size of the file's .debug_info as stored; 0: no DWARF. */
uint64_t debug_info_size(struct dw_obj *o);
/* The module's DWARF, read (and relocated) when first needed; false with o->why. */
bool load_dwarf(struct dw_obj *o);
/* The module's object, opened or revived, its DWARF read if dwarf; NULL with *why. */
struct dw_obj *usable_obj(struct dw *d, const char *module, const char *module_file,
			  bool dwarf, char **why);
/* len bytes at off of an archive member, read with pread; NULL when outside it. */
void *member_read(int fd, const struct debug_file *f, uint64_t off, uint64_t len);
/* An archive member's ELF and section headers, read with pread (*m: its archive). */
Elf64_Shdr *member_sections(struct dw *d, const struct debug_file *f, Elf64_Ehdr *eh,
			    struct mapped **m);
/* A parked object's files opened again, the same build; false with o->why. */
bool revive(struct dw_obj *o);
/* Gives back the pages of an archive member after a wildcard's walk of it. */
void member_release(struct dw *d, const struct debug_file *f);

/* dw-types.c */
/* The DIE of die's DW_AT_type, into out; false when it has none (void). */
bool die_type(Dwarf_Die *die, Dwarf_Die *out);
/* The type of a DIE (NULL: void) as a ctype, made once per DIE. */
struct ctype *dw_type(struct dw_obj *o, Dwarf_Die *die);
/* A struct's, union's or enum's members, filled in when first needed. */
void complete_type(struct ctype *t);

/* dw-locations.c */
/* The symbol unique by name nearest at or before off of section sec, else after. */
const struct dw_sym *nearest_unique(const struct dw_obj *o, const char *sec, uint64_t off,
				    bool funcs, const char *name);
/* A static object at DWARF's address addr, as the runtime finds it; NULL: none. */
struct tstatic *static_at(struct dw_obj *o, Dwarf_Addr addr);
/* A DWARF location expression at w as the target model's location l. */
void translate_location(struct tloc *l, Dwarf_Attribute *attr, Dwarf_Op *ops, size_t n,
			const struct where *w);

/* dw-functions.c */
/* Where a function's code starts: its low_pc, or its first range's start. */
bool function_entry(Dwarf_Die *die, Dwarf_Addr *pc);
/* A variable's DIE at w into tv: its type, and its location or why it has none. */
void load_var(const struct where *w, Dwarf_Die *v, struct tvar *tv);
/* A function site's parameters and locals, read when first asked for. */
void load_vars(struct probe_site *s);
/* The DIE at off of the object the DWARF site s was read from (opened
 * again if it was parked), and that object; NULL for a site of another
 * source or DWARF that cannot be read again. */
struct dw_obj *site_dwarf(const struct probe_site *s, Dwarf_Off off, Dwarf_Die *die);
/* fn on each DIE of a function's body under parent, the lexical blocks'
 * children instead of the blocks (an inlined copy is one DIE: fn decides). */
void each_body_die(Dwarf_Die *parent, void (*fn)(Dwarf_Die *die, void *ctx), void *ctx);
/* Fill in where a DWARF site came from: object, function, source line,
 * and the hook that reads its variables. */
void site_from(struct probe_site *s, struct dw_obj *o, const char *function, const char *file,
	       int line);
/* Does a file pattern match a declaring file, by its last components? */
bool file_matches(const char *pattern, const char *file);
/* The symbol the kernel finds a function by, into s's anchor; false when none. */
bool anchor_for(struct dw_obj *o, const char *name, const char *sec, uint64_t off,
		struct probe_site *s);
/* The file's virtual address of DWARF address pc (user files). */
uint64_t user_vaddr(const struct dw_obj *o, Dwarf_Addr pc);
/* The unit whose code holds pc, into cu; false when none does. */
bool unit_of(struct dw_obj *o, Dwarf_Addr pc, Dwarf_Die *cu);
/* Can dwscan.c read the unit's bytes? Its header's offset in *unit_off if so. */
bool scannable(struct dw_obj *o, Dwarf_Die *cu, Dwarf_Off *unit_off);
/* Does a symbol's name without a clone's suffix (.isra.0) match the pattern? */
bool base_name_matches(const char *pattern, const char *sym);
/* The function symbols whose names begin with the pattern's head bytes:
 * how many, in *v (malloced). */
size_t func_syms_with_head(struct dw_obj *o, const char *pattern, size_t head, struct func_sym **v);

/* dw-statements.c */
/* A unit's file name (DW_AT_name), or NULL. */
const char *unit_file(Dwarf_Die *cu);

/* dw-inlines.c */
/* Frees an object's index of its units' abstract instances (NULL: nothing). */
void inline_index_free(struct inline_index *ix);
/* dw-inlines.c: a site at the inlined copy die (of name, beginning at pc)
 * inside func; NULL when its file does not match file_pattern (NULL:
 * any) or it cannot be placed (*left_out: init text, no anchor). */
struct probe_site *inline_site(struct dw_obj *o, Dwarf_Die *func, Dwarf_Die *die,
			       const char *name, Dwarf_Addr pc, const char *file_pattern, bool *left_out);

#endif
