/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Pass 2, elaboration: the parsed declarations become a checked program.
 * Its steps run in this order, each reading only what the earlier ones
 * produced:
 *   declarations_collect  every function (by name and arity) and global
 *   probes_resolve        probe points -> concrete probes, through aliases,
 *                         each with the handler (body) it runs
 *   uprobes_symbol_files  the user files -d and --ldd add symbols of
 *   elide_dead_code       (elide.c) code without effect dropped, before
 *                         its names and target expressions are looked up
 *   resolve_names         names -> symbols in every handler and reachable
 *                         function (and the script's uncalled ones, which
 *                         are checked too); which globals each handler locks
 *   types_check           types of every expression, arrays and statistics,
 *                         format strings, regular expressions
 *   counters_find         (addonly.c) globals only ever added to, counted per CPU: no
 *                         handler locks them
 *   callees_fold          each handler locks what the functions it calls use,
 *                         and has registers when they read them
 */
#ifndef TAPLINE_SEMA_H
#define TAPLINE_SEMA_H

#include "session.h"

/* The whole pass; returns the number of errors. */
int sema_elaborate(struct session *s);

int declarations_collect(struct session *s);
int probes_resolve(struct session *s);
int uprobes_symbol_files(struct session *s);
int resolve_names(struct session *s);
int types_check(struct session *s);
void counters_find(struct session *s);
void callees_fold(struct session *s);

/* After types_check has inferred what autocast bases point to: fold the
 * @defined(...) of autocast members it decided (and the conditions they
 * choose a branch of); undecided ones are false. */
void sema_fold_late(struct session *s);

/* Visible to a reference in file `file`: the global or function of that
 * name (and, for functions, that many arguments; -1: any). NULL if none. */
struct symbol *sema_find_global(const struct session *s, const char *name, int file);
struct symbol *sema_find_function(const struct session *s, const char *name, int nargs, int file);

/* Local v is never assigned: if its name is close to another variable's
 * (vars: its scope; h: the handler, whose aliases and own body as written
 * assign more, NULL for a function), hint "did you mean ...?" and return
 * true. */
bool sema_suggest_variable(const struct session *s, const struct ptrvec *vars,
			   const struct handler *h, const struct symbol *v);

/* A user file the module finds in processes' mappings (its symbols for
 * usymname(), its globals' addresses): added to the program once. */
struct user_elf;
void uprobes_add_object(struct session *s, const struct user_elf *u);

/* debugsources.c: the session's debug information, opened on first use. */
struct dw *sema_debuginfo(struct session *s);
/* Hint how to get the kernel's DWARF for what ("locals", "statement
 * probes"): install it, or, when it is installed, what stands in the way. */
void sema_kernel_dwarf_hint(struct session *s, const char *what);
bool sema_kernel_dwarf_installed(struct session *s);
/* When the script names kernel source lines: the kernel's line table for
 * its module (prog.kernel_lines), or a warning that they print as hex. */
void sema_kernel_lines(struct session *s);
/* Let the runtime find the kernel's _text (from _printk's offset, which
 * this records in the program); false if the kernel's symbols do not say. */
bool sema_find_text(struct session *s);
/* The target kernel's BTF, opened on first use; NULL if it has none. */
struct btf_source *sema_kernel_btf(struct session *s);
/* An installed module's BTF (on top of the kernel's), opened once; NULL
 * with *why if it has none or is not installed. */
struct btf_source *sema_module_btf(struct session *s, const char *module, char **why);

/* elide.c: in body, a handler derived through aliases, drop the stores
 * of blocks (the aliases' own) to locals nothing reads. */
void elide_alias_stores(const struct session *s, struct node *body, const struct ptrvec *blocks);

/* elide.c: drop code without effect from every handler and function (a
 * store nothing reads, a statement that only gives a value, a condition or
 * loop with nothing left to run), as SystemTap's optimizer does. */
void elide_dead_code(struct session *s);

/* Does the tree use target expressions ($var, @entry, @cast, ...)? */
bool sema_uses_targets(struct node *n);
/* Does it read the hit's registers (target expressions, int_arg(), ...)?
 * Its probes then need a kprobe's full registers, not ftrace's. */
bool sema_uses_registers(struct node *n);
/* Does n call a built-in that reads the hit's registers (int_arg() to
 * returnval(), the backtraces)? All a script function can do: it has no
 * target variables (its @cast reads memory, not registers). */
bool sema_uses_register_builtins(struct node *n);

/* targets.c: is n $NAME in handler h whose probes are all of kinds a or b
 * (a procfs probe's $value, a netfilter probe's $verdict: the probe's own,
 * not the probed code's)? */
bool target_is_special(const struct session *s, const struct handler *h, const struct node *n,
		       const char *name, enum probe_kind a, enum probe_kind b);
/* The two there are: a procfs probe's $value, a netfilter probe's $verdict. */
bool target_is_procfs_value(const struct session *s, const struct handler *h, const struct node *n);
bool target_is_nf_verdict(const struct session *s, const struct handler *h, const struct node *n);
/* targets.c: the plan for target expression n (N_TARGET) in handler h, or
 * NULL after an error (none reported when quiet: @defined asks that way).
 * at_entry: inside @entry(...) of a .return probe. */
struct target_access *target_resolve(struct session *s, struct handler *h, struct node *n,
				     bool at_entry, bool quiet);
/* @cast(addr, "type"[, "module"]): the plan for n (N_CAST), or NULL after
 * an error (none reported when quiet). */
struct target_access *target_resolve_cast(struct session *s, struct handler *h, struct node *n,
					  bool quiet);
/* value->member... (N_AUTOCAST) where value is known to point to type, a
 * struct or union (in user memory if user): the plan, or NULL after an
 * error (none reported when quiet). */
struct target_access *target_resolve_autocast(struct session *s, struct handler *h, struct node *n,
					      struct ctype *type, bool user, bool quiet);
/* The kernel's struct task_struct (what task_current() and pid2task()
 * point to, as SystemTap's return &@task(...)), or NULL when its types
 * are not known (--symtab). */
struct ctype *target_task_struct(struct session *s);
/* @var("name@file"[, "module"]): the plan for n (N_ATVAR), or NULL after an
 * error (none reported when quiet). */
struct target_access *target_resolve_atvar(struct session *s, struct handler *h, struct node *n,
					   bool quiet);
/* Can the object a (resolved) plan reads be written, in guru mode? NULL if
 * so, with *regno the DWARF register it is in (or -1: it is in memory);
 * else why not. */
const char *target_write_problem(const struct target_access *a, int *regno);
/* Evaluate entry (an N_ENTRY, whose lhs is typed) at the function's entry,
 * into size bytes of the call's entry data: sets entry->access. */
void target_save_at_entry(struct handler *h, struct node *entry, size_t size);

/* --probe-cache: save the entries this translation resolved through DWARF
 * (after codegen, which reads types too). Non-zero when a cache entry used
 * had not saved a type the script reached. */
int probe_cache_save(struct session *s);

/* Print the resolved program (stap -p2). */
void sema_print(const struct session *s, FILE *f);
/* stap -l / -L: each concrete probe point once, sorted (with -L, its
 * variables and their types). */
void sema_list(const struct session *s, FILE *f);

#endif
