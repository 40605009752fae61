/* SPDX-License-Identifier: GPL-2.0-or-later */
/* unwind.c: user stack samples unwound with libdwfl, and their frames named. */
#ifndef TAPLINE_UNWIND_H
#define TAPLINE_UNWIND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "contract/ustack-records.h"

/* Frames one sample unwinds to at most (MAXBACKTRACE limits what is shown). */
#define SR_MAX_FRAMES 128

struct sr_unwinder;
struct sr_proc;

struct sr_unwind_result {
	uint64_t pcs[SR_MAX_FRAMES];
	bool return_addr[SR_MAX_FRAMES]; /* pcs[i] is a return address (look up pcs[i] - 1) */
	int n;
	bool cut;               /* the unwind needed stack past the copy */
	bool addr_only;         /* one address to name (usymfileline), no stack */
	const char *note;       /* why it stopped early, or NULL */
	struct sr_proc *proc;   /* whose mappings name the frames */
};

/* One named frame; a pc inside inlined code gives several, innermost first. */
struct sr_sym {
	uint64_t pc;
	const char *name;       /* NULL: no symbol */
	uint64_t offset, size;  /* from the symbol (or, without one, in the file) */
	const char *file;       /* the mapped file's path, NULL: none */
	const char *module;     /* its base name */
	const char *src;        /* source file and line, NULL: unknown */
	int line;
	bool inlined;
	bool replaced;          /* the file was replaced on disk: not named */
};

struct sr_unwinder *sr_unwinder_new(void);
void sr_unwinder_free(struct sr_unwinder *u);
/* A map record (its path follows it in the stream). */
void sr_unwinder_map(struct sr_unwinder *u, const struct rt_us_map *m, const char *path,
		     size_t path_len);
/* Every map record of generation gen of process tgid has come. */
bool sr_unwinder_has_gen(struct sr_unwinder *u, uint32_t tgid, uint32_t gen);
void sr_unwind(struct sr_unwinder *u, const struct rt_us_sample *s, const unsigned char *stack,
	       struct sr_unwind_result *r);
/* A line of /proc/PID/maps as the map record the module would send for it
 * (a file mapped executable; false for any other line); file gets its path. */
bool sr_maps_line(const char *line, uint32_t tgid, uint32_t gen, bool first, struct rt_us_map *m,
		  char file[4097]);
/* Files read (each once, whatever the processes that map it). */
size_t sr_unwinder_files(const struct sr_unwinder *u);
/* What frame i is the same as in other processes: its file and offset in it. */
void sr_frame_identity(const struct sr_unwind_result *r, int i, uint64_t *file, uint64_t *rel);
/* Name frame i of r into out (at most max entries); the count. Valid
 * until the process's mappings change. */
int sr_symbolize(const struct sr_unwind_result *r, int i, struct sr_sym *out, int max);

#endif
