/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The one model of the probed code that sema and codegen see, whatever
 * filled it: DWARF (dw.c), BTF, or a symbol table. A probe site says where
 * a probe goes and what it was resolved against; its variables each have a
 * C type and a location. Nothing here includes libdw or libbpf.
 *
 * Types are made lazily: a struct's members are read only when a script
 * reaches into it (whole-kernel type information is large), through the
 * source's complete() hook.
 */
#ifndef TAPLINE_TARGET_H
#define TAPLINE_TARGET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum ctype_kind { CT_VOID, CT_INT, CT_ENUM, CT_PTR, CT_ARRAY, CT_STRUCT, CT_UNION, CT_FUNC };

struct ctype;

struct cmember {
	char *name;          /* NULL for an anonymous struct or union */
	struct ctype *type;
	uint64_t offset;     /* bytes from the start of the aggregate */
	int bit_size;        /* 0: not a bit-field */
	int bit_offset;      /* bit-field: from the lowest bit of the unit at offset */
};

struct cenum {
	char *name;
	long long value;
};

struct type_source;

struct ctype {
	enum ctype_kind kind;
	char *name;          /* as C writes it: "int", "struct file", "char *" */
	uint64_t size;       /* 0 when unknown (void, incomplete struct) */
	bool is_signed;      /* CT_INT, CT_ENUM */
	bool is_char;        /* a char type: arrays and pointers of it read as strings */
	bool is_bool;
	bool is_float;       /* CT_INT of a floating-point type (float, double) */
	struct ctype *target; /* CT_PTR: what it points to; CT_ARRAY: the element */
	uint64_t count;      /* CT_ARRAY: elements (0: unknown) */
	struct cmember *members; /* CT_STRUCT, CT_UNION, once complete */
	size_t nmembers;
	struct cenum *enums; /* CT_ENUM */
	size_t nenums;
	/* Lazy parts: complete() fills target, members and enums. */
	bool complete;
	const struct type_source *src;
	uint64_t key;        /* the source's handle (a DIE offset, a BTF id) */
};

struct type_source {
	void (*complete)(struct ctype *t);
	void *ctx;
};

/* t with its lazy parts filled (t itself). */
struct ctype *ctype_complete(struct ctype *t);
/* t without typedefs and qualifiers: sources resolve those while reading. */
bool ctype_is_integer(const struct ctype *t);   /* int, enum, bool, char */
bool ctype_is_string(struct ctype *t);          /* char * or char[N] */
/* A member by name, looking into anonymous structs and unions; *offset
 * gets its offset from the start of t. NULL if none. */
const struct cmember *ctype_member(struct ctype *t, const char *name, uint64_t *offset);
/* Member names of t, for "did you mean" and messages. */
void ctype_member_names(struct ctype *t, void (*fn)(const char *name, void *ctx), void *ctx);

/*
 * A location: a small program over a stack of machine words. With kind
 * TL_MEMORY the result is the object's address; with TL_VALUE it is the
 * object's value (a register, a constant, a computed value). Register
 * numbers are DWARF's for x86-64 (0 rax, 1 rdx, 2 rcx, 3 rbx, 4 rsi,
 * 5 rdi, 6 rbp, 7 rsp, 8-15 r8-r15), which the runtime's rt_reg() knows.
 */
enum tloc_op_kind {
	LO_REG,     /* push register arg */
	LO_CONST,   /* push arg */
	LO_PLUS,    /* top += arg */
	LO_DEREF,   /* top = the arg-byte word at address top */
	LO_ADD,     /* pop b, pop a, push a + b; likewise below */
	LO_SUB,
	LO_MUL,
	LO_AND,
	LO_OR,
	LO_NEG,     /* top = -top */
	LO_STATIC,  /* push the run-time address of the location's static object */
};

/*
 * A static object (a global, a function's static variable) is at an
 * address fixed only when its object is loaded: the runtime finds it from
 * _text (the kernel) or from a symbol of the module, unique there.
 */
struct tstatic {
	char *object;         /* "kernel" or the module's name */
	char *build_id;       /* the module's, as its debug information says; NULL: unknown */
	char *symbol;         /* a module: a data or code symbol, unique in it */
	int64_t offset;       /* from symbol */
	uint64_t text_offset; /* the kernel: from _text */
	uint64_t user_vaddr;  /* a user file (object is its path): its virtual address there */
};

struct tloc_op {
	enum tloc_op_kind kind;
	int64_t arg;
};

enum tloc_kind {
	TL_NONE,    /* optimized out here */
	TL_MEMORY,
	TL_VALUE,
	TL_PIECES,  /* parts of the object in different places (a struct in registers) */
};

struct tloc_piece;

struct tloc {
	enum tloc_kind kind;
	struct tloc_op *ops;
	size_t nops;
	struct tloc_piece *pieces; /* TL_PIECES */
	size_t npieces;
	char *why;                 /* TL_NONE, or a location Tapline cannot use: why */
	struct tstatic *stat;      /* LO_STATIC's object */
};

struct tloc_piece {
	struct tloc loc;           /* TL_MEMORY or TL_VALUE */
	uint64_t size;             /* bytes */
};

struct tvar {
	char *name;
	struct ctype *type;
	char *type_name;     /* as declared, typedefs kept ("size_t"), for -L; NULL: type's */
	struct tloc loc;
	bool is_param;
};

/*
 * Where a probe goes and what it was resolved against. The anchor is a
 * symbol the kernel can look up unambiguously (unique in its object) and
 * an offset from it: a function whose name several static functions share
 * is placed through a unique neighbour in the same section.
 */
struct probe_site {
	char *object;        /* "kernel" or the module's name */
	char *object_file;   /* the file the facts came from, for messages */
	char *build_id;      /* of that object, lowercase hex; NULL if unknown */
	char *function;
	char *decl_file;     /* the function's source file, and line (a statement's own) */
	int decl_line;
	bool is_statement;   /* a statement probe: inside the function, not at its entry */
	bool is_inline;      /* an inlined copy of the function, inside another */
	char *label;         /* a statement at this label of the function (.label("L")) */
	char *anchor;        /* symbol to place the probe by */
	int64_t anchor_offset; /* negative: before the anchor */
	uint64_t text_offset;  /* the kernel's: from _text */
	struct ctype *return_type; /* NULL: void or unknown */
	char *return_type_name;    /* as declared (-L); NULL: return_type's */
	bool vars_loaded;
	struct tvar *vars;   /* parameters first, in order, then locals in scope */
	size_t nvars;
	const char *source;  /* "DWARF", "BTF": what filled it */
	/* The source's hook that fills vars, and its handle. */
	void (*load_vars)(struct probe_site *site);
	void *src_ctx;
	uint64_t src_key;    /* the function (a DIE offset, a BTF id) */
	uint64_t src_pc;     /* the probe's address as the source counts it */
	uint64_t src_frame;  /* an inlined copy: the function it is in (0: src_key itself) */
	/* User space: object is the file's path; addresses are the file's
	 * virtual addresses, which sema turns into file offsets. */
	bool is_user;
	uint64_t user_vaddr;       /* where the probe goes */
	uint64_t user_entry_vaddr; /* the function's entry, where a .return's uretprobe goes */
	uint64_t user_sem_vaddr;   /* a marker's semaphore; 0: none */
	char *mark_provider;       /* a marker (function is its name); NULL: not one */
	bool is_plt;               /* a PLT entry (function: the function it calls) */
	bool may_throw;            /* a C++ function an exception may leave */
};

/*
 * Where a function's parameters are at its entry, by the x86-64 calling
 * convention, in order: what BTF knows of a function, and what DWARF's
 * locations at the entry of unoptimized code (which point at stack slots
 * the prologue has yet to fill) are replaced with.
 */
struct abi {
	int regs_used;   /* of the six integer argument registers */
	int64_t stack;   /* the next stack argument's offset from rsp at entry */
};
/* Before the first parameter of a function returning ret (NULL: void):
 * a large struct returned by value takes the first register (its address). */
void abi_start(struct abi *abi, struct ctype *ret);
/* The next parameter, of type t, into l: a register, two for a 9- to
 * 16-byte struct, or the stack; TL_NONE (with why) for a floating-point
 * one, which comes in SSE registers a probe does not see. */
void abi_place(struct abi *abi, struct ctype *t, struct tloc *l);

/* What a location holds, freed (it is left TL_NONE). */
void tloc_free(struct tloc *l);

/* The site's variables, loaded on first use. */
void site_load_vars(struct probe_site *site);
/* The variable named name (without '$'), or NULL. */
const struct tvar *site_var(struct probe_site *site, const char *name);

#endif
