/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the translator knows about the target kernel: where its image and
 * build tree are, its build-id, and the names of its functions. Pass 2 asks;
 * nothing here calls back into the passes.
 *
 * The function names come from /proc/kallsyms when the target is the running
 * kernel, otherwise from the BTF inside /boot/vmlinuz-RELEASE. Decompressing
 * the image takes a while, so the build-id, the BTF and the name list are
 * cached per image (keyed by its size and mtime).
 */
#ifndef TAPLINE_KERNEL_H
#define TAPLINE_KERNEL_H

#include <stdbool.h>
#include <stddef.h>

struct kernel {
	char *release;
	char *vmlinuz;     /* /boot/vmlinuz-RELEASE, NULL if absent */
	char *build_dir;   /* /lib/modules/RELEASE/build, NULL if absent */
	char *build_id;    /* lowercase hex */
	bool running;      /* RELEASE is the running kernel */
	char **funcs;      /* sorted, unique */
	size_t nfuncs;
	char *funcs_from;  /* where the names came from, for messages */
};

/*
 * Find kernel RELEASE. Failures print one line naming what is missing and
 * the Debian package that provides it, and return NULL.
 */
struct kernel *kernel_open(const char *release, bool verbose);
bool kernel_has_function(const struct kernel *k, const char *name);
/* The release of the running kernel (uname -r). */
const char *kernel_running_release(void);

/* kimage.c: the vmlinux ELF inside a bzImage (xz/gzip/zstd payload). */
char *kimage_extract_vmlinux(const char *vmlinuz, size_t *len);
/* The GNU build-id (hex) in an ELF image's notes, or NULL. */
char *kimage_elf_build_id(const char *elf, size_t len);
/* A section's contents inside an ELF image in memory, or NULL. */
const char *kimage_elf_section(const char *elf, size_t len, const char *name, size_t *size);

/* btf.c (the only file that uses libbpf): function names in raw BTF. */
char **btf_function_names(const void *btf, size_t size, size_t *n);

/* symbols.c: text symbol names from a kallsyms-format file. */
char **symbols_text_names(const char *path, size_t *n);
/* Sort and de-duplicate a name list in place; returns the new count. */
size_t symbols_sort_unique(char **names, size_t n);

#endif
