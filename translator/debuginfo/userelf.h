/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * User-space programs and libraries as ELF files (userelf.c): what a
 * uprobe needs without debug information. Where the file is (found on
 * $PATH, symlinks resolved), its loadable segments (a probe goes at a
 * *file offset*, which the kernel counts from the inode, not at a virtual
 * address), its function and data symbols (.symtab, else .dynsym), its
 * SDT markers (.note.stapsdt) and the libraries it needs. DWARF for the
 * same files is dw.c's, as for kernel modules.
 */
#ifndef TAPLINE_USERELF_H
#define TAPLINE_USERELF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "debuginfo/target.h"
#include "util.h"

struct user_segment {
	uint64_t vaddr, memsz, offset, filesz;
	bool exec, write;
};

struct user_sym {
	char *name;
	uint64_t vaddr;
	uint64_t size;
	bool is_func;
};

/* One SDT marker site (STAP_PROBE* in <sys/sdt.h>). */
struct sdt_note {
	char *provider, *name;
	char *args;          /* "-4@%eax 8@16(%rbx)": one operand per argument */
	uint64_t pc;         /* the site's virtual address (.stapsdt.base adjusted) */
	uint64_t sem;        /* its semaphore's virtual address; 0: none */
};

struct user_elf {
	char *path;          /* absolute, symlinks resolved */
	bool is_pie;         /* ET_DYN: loaded at a base chosen at run time */
	char *build_id;      /* hex, NULL if none */
	struct user_segment *segs;
	size_t nsegs;
	struct user_sym *syms; /* sorted by name, then address */
	size_t nsyms;
	bool syms_dynamic;   /* from .dynsym: the file was stripped */
	struct sdt_note *notes;
	size_t nnotes;
	struct user_sym *plts; /* PLT entries, by the function they call; vaddr: the entry */
	size_t nplts;
	char **needed;       /* DT_NEEDED */
	size_t nneeded;
	char *runpath;       /* DT_RUNPATH, else DT_RPATH; NULL: none */
	char *interp;        /* PT_INTERP, the dynamic linker; NULL: none (static) */
};

/* The file a process("NAME") names: NAME itself when it has a '/', else
 * found on $PATH; symlinks resolved. NULL with *why. */
char *user_find_program(const char *name, char **why);
/* A library LIB of prog: a path, or a name (a shell pattern) matching the
 * file name of a library prog needs (DT_NEEDED, searched as the dynamic
 * linker would: RUNPATH, then the system's directories), else a file of
 * that name in those directories. NULL with *why. */
char *user_find_library(const struct user_elf *prog, const char *lib, char **why);
/* Every library prog needs (and theirs) whose name matches pattern, as
 * paths, appended to paths in the order ldd lists them. */
void user_find_libraries(const struct user_elf *prog, const char *pattern, struct ptrvec *paths);
/* What it takes to run prog (or load a library), as ldd would find it:
 * prog, its dynamic linker, the libraries it needs and theirs, each as
 * the path the dynamic linker opens (into asked) and the file that is,
 * its links resolved (into real, the same index). */
void user_runtime_files(const struct user_elf *prog, struct ptrvec *asked, struct ptrvec *real);
/* The file at path (as user_find_* return it), read once per run; NULL
 * with *why when it is not an x86-64 executable or shared library. */
const struct user_elf *user_elf_open(const char *path, char **why);
/* Forget every file read, without freeing (the pass-2 fuzzer frees each
 * input's allocations itself). */
void user_elf_forget_all(void);
/* The file offset of a virtual address in a loaded segment; false if none
 * holds it. */
bool user_elf_offset(const struct user_elf *u, uint64_t vaddr, uint64_t *offset);
/* The first symbol named name, or NULL. */
const struct user_sym *user_elf_symbol(const struct user_elf *u, const char *name);

/* sdt.c: the operand of argument n (from 1) of a marker as a variable
 * "argN" of the target model: its location at the marker (registers, the
 * probe's own address for %rip) and a C integer type of its size and
 * sign. False with *why when the operand is not one Tapline reads. */
bool sdt_arg(const struct user_elf *u, const struct sdt_note *note, int n, struct tvar *out,
	     char **why);
/* How many operands the marker has. */
int sdt_nargs(const struct sdt_note *note);

#endif
