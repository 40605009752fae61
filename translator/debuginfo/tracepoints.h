/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The kernel's tracepoints, for kernel.trace("SYSTEM:NAME"): which there
 * are, which subsystem and event class each belongs to, and a site whose
 * variables are its arguments, typed from BTF. The runtime calls a probe
 * on a tracepoint with the arguments where a function's would be at its
 * entry (the tracepoint's data pointer first), so the site's locations are
 * those of a call.
 */
#ifndef TAPLINE_TRACEPOINTS_H
#define TAPLINE_TRACEPOINTS_H

#include <stdbool.h>
#include <stddef.h>

#include "debuginfo/target.h"

struct btf_source;

/* The most arguments a tracepoint's probe may take: the runtime has a
 * callback for each count up to this (runtime/probes/tracepoints.c, RT_TP_MAX_ARGS). */
#define TRACEPOINT_MAX_ARGS 12

struct tracepoint {
	char *name;       /* "sched_switch" */
	char *system;     /* "sched"; NULL when no header says */
	char *template;   /* the event class that defines its arguments, as a header
			     says; NULL: guessed when a probe is placed on it */
};

/* Every tracepoint in the kernel's BTF, sorted by name. Their systems come
 * from the trace event headers in build_dir (may be NULL), else, for the
 * running kernel, from tracefs; *systems_from says which (NULL: neither).
 * An event class no header gives is matched by its arguments' types when
 * tracepoint_site asks. */
struct tracepoint *tracepoints_list(struct btf_source *kernel_btf, const char *build_dir,
				    bool running, const char **systems_from, size_t *n);
/* A tracepoint a module defines. */
struct module_tracepoint {
	char *module;
	char *name;
	char *systems; /* the module's trace systems, comma-separated (kvm,kvmmmu);
			  its name when none is found */
};
/* Every tracepoint the installed modules of ix define, sorted by name
 * (from each module's symbol table: its __tracepoint_NAME objects), read
 * once per kernel build and kept in cache_file (NULL: not kept). */
struct debug_index;
struct module_tracepoint *module_tracepoints_list(struct debug_index *ix, const char *cache_file,
						  size_t *n);

/* Its arguments as a site (object, anchor left to the caller); NULL if
 * BTF has no prototype for it. */
struct probe_site *tracepoint_site(struct btf_source *kernel_btf, const struct tracepoint *tp);
/* process.syscall's view of raw_syscalls' sys_enter (ret false) or
 * sys_exit: besides the tracepoint's arguments, $syscall and $arg1..$arg6,
 * or $syscall and $return, read from the saved user registers. NULL if
 * BTF lacks what that needs. */
struct probe_site *syscall_site(struct btf_source *kernel_btf, const struct tracepoint *tp,
				bool ret);
/* Forget the event classes read, without freeing (the pass-2 fuzzer frees
 * each input's allocations, its BTF among them, itself). */
void tracepoints_forget_classes(void);

#endif
