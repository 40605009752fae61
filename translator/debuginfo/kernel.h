/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the translator knows about the target kernel: where its image and
 * build tree are, its build-id, and its functions, each with whether a
 * probe can be placed on it and why not. Pass 2 asks; nothing here calls
 * back into the passes.
 *
 * The functions come from the kernel's own kallsyms tables, decoded from
 * /boot/vmlinuz-RELEASE (kallsyms.c), and the image also says which of them
 * the kernel would refuse (kfuncs.c). For the running kernel without its
 * image, /proc/kallsyms and the kernel's debugfs lists say the same. The
 * result is cached per image (keyed by its size and mtime).
 */
#ifndef TAPLINE_KERNEL_H
#define TAPLINE_KERNEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Why the kernel would refuse a probe on a function (the text completes
 * "function F ..."). */
#define KFUNC_REASONS(X)                                                                    \
	X(KF_OK, "can be probed")                                                             \
	X(KF_INIT, "is __init code, freed once the kernel has booted")                        \
	X(KF_NOT_TEXT, "is outside the kernel's text (discarded or alternative code)")       \
	X(KF_BLACKLIST, "is on the kernel's kprobe blacklist (NOKPROBE_SYMBOL, noinstr or entry code)") \
	X(KF_NOTRACE, "is notrace (no ftrace site): wildcards leave it out; name it to probe it with a kprobe")

enum kfunc_why {
#define X(id, text) id,
	KFUNC_REASONS(X)
#undef X
	KF_NREASONS
};

/* A symbol: name, type letter as in /proc/kallsyms, and address (in an
 * ELF relocatable file, from the start of its section, numbered shndx). */
struct ksym {
	char *name;
	uint64_t addr;
	char type;
	unsigned shndx;
};

/* A kernel function, by name. A name given to several static functions
 * appears once, with the first copy's address and why. */
struct kfunc {
	char *name;
	uint64_t offset;      /* from _text: the same with or without KASLR */
	enum kfunc_why why;
	unsigned copies;      /* functions of this name */
	/* copies > 1: each copy's offset and why, by address (the first is the one above) */
	uint64_t *offsets;
	unsigned char *whys;
};

struct kfunc_start;

struct kernel {
	char *release;
	char *vmlinuz;     /* /boot/vmlinuz-RELEASE, NULL if absent */
	char *build_dir;   /* /lib/modules/RELEASE/build, NULL if absent */
	char *build_id;    /* lowercase hex */
	bool running;      /* RELEASE is the running kernel */
	struct kfunc *funcs; /* sorted by name */
	size_t nfuncs;
	bool classified;   /* every why is known (else some are KF_OK unchecked) */
	char *funcs_from;  /* where the names came from, for messages */
	char *btf_path;    /* the kernel's BTF (raw), NULL if it has none */
	/* kernel_function_at's index of every start, made when first asked. */
	struct kfunc_start *starts;
	size_t nstarts;
	unsigned scans_left; /* lookups answered without it, before it is made */
};

/*
 * Find kernel RELEASE. Failures print one line naming what is missing and
 * the Debian package that provides it, and return NULL.
 */
struct kernel *kernel_open(const char *release, bool verbose);
/* The function named name, or NULL. */
const struct kfunc *kernel_function(const struct kernel *k, const char *name);
/* The function whose code holds offset (from _text), the nearest start at
 * or below it, and why that copy of it could be refused; NULL if none. */
const struct kfunc *kernel_function_at(const struct kernel *k, uint64_t offset,
				       enum kfunc_why *why);
const char *kfunc_why_text(enum kfunc_why why);
/* The release of the running kernel (uname -r). */
const char *kernel_running_release(void);
/* The build-id of kernel release, when it is known without reading the
 * image: the running kernel's, or one an earlier run found (cached with
 * the image's size and time); else NULL. */
char *kernel_known_build_id(const char *release);
/* "; build for ... with -r RELEASE" naming the kernels installed in /boot,
 * or how to install one (malloced), to end a message with. */
char *kernel_installed_hint(void);

/* kimage.c: the vmlinux ELF inside a bzImage (an xz, zstd, gzip or lz4
 * payload); NULL with errno ENOEXEC (not a bzImage), EINVAL (truncated),
 * ENOTSUP (another compression) or EBADMSG (a corrupted payload). */
char *kimage_extract_vmlinux(const char *vmlinuz, size_t *len);
/* The same for an image in memory. */
char *kimage_unpack(const unsigned char *img, size_t n, size_t *len);
/* A whole xz, zstd, gzip or lz4 stream (a compressed module), by its magic;
 * NULL with errno on failure. */
char *kimage_decompress(const unsigned char *in, size_t n, size_t *len);
/* The GNU build-id (hex) in an ELF image's notes, or NULL. */
char *kimage_elf_build_id(const char *elf, size_t len);
/* A section's contents inside an ELF image in memory, or NULL; *addr: its address. */
const char *kimage_elf_section(const char *elf, size_t len, const char *name, size_t *size);
const char *kimage_elf_section_at(const char *elf, size_t len, const char *name, size_t *size,
				  uint64_t *addr);
/* The size bytes at address addr of a loaded section, or NULL. */
const char *kimage_elf_at(const char *elf, size_t len, uint64_t addr, size_t size);

/* kallsyms.c: every symbol in a vmlinux image's kallsyms tables, sorted by
 * name then address; NULL with *why (malloced) when they do not decode. */
struct ksym *kallsyms_decode(const char *elf, size_t len, size_t *n, char **why);

/* symbols.c: the kernel's own symbols in a kallsyms-format file
 * (/proc/kallsyms), sorted likewise; NULL if it cannot be read. */
struct ksym *symbols_read_kallsyms(const char *path, size_t *n);
/* An ELF file's function symbols, sorted likewise; NULL if it has none. */
struct ksym *symbols_read_elf_functions(const char *path, size_t *n);
/* The name of section shndx of an ELF file (malloced), or NULL. */
char *symbols_elf_section_name(const char *path, unsigned shndx);
/* Sort by name, then address. */
void symbols_sort(struct ksym *syms, size_t n);
/* Binary search in a name-sorted array: the first symbol named name, or NULL. */
const struct ksym *symbols_find(const struct ksym *syms, size_t n, const char *name);
void symbols_free(struct ksym *syms, size_t n);
/* Sort and de-duplicate a name list in place; returns the new count. */
size_t symbols_sort_unique(char **names, size_t n);

/*
 * kfuncs.c: the kernel's functions from its symbols, each classified by
 * what the kernel would refuse. From an image: its text and init ranges,
 * its kprobe blacklist and its ftrace sites (__mcount_loc). From the running
 * kernel: the same ranges from /proc/kallsyms and the kernel's own lists in
 * tracefs/debugfs, where readable (*complete is false otherwise).
 */
struct kfunc *kfuncs_from_image(const char *elf, size_t len, const struct ksym *syms, size_t n,
				size_t *nfuncs);
struct kfunc *kfuncs_from_running(const struct ksym *syms, size_t n, size_t *nfuncs,
				  bool *complete);

/* btf.c (the only file that uses libbpf): function names in raw BTF. */
char **btf_function_names(const void *btf, size_t size, size_t *n);

#endif
