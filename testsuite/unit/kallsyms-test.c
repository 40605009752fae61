// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for the kallsyms decoder (translator/debuginfo/kallsyms.c):
 * kallsyms tables built here in both layouts the decoder knows (addresses
 * before the names, as kernels up to 6.1 have them, and after the token
 * index, as later ones do), inside a minimal vmlinux ELF, decode to the
 * symbols they were made from. Truncated tables and a few thousand
 * bit-flipped copies are refused or decoded, never read past their end
 * (run it under the sanitizers to see the latter).
 *
 * `kallsyms-test --seed FILE` writes the ELF for the fuzzer
 * (make fuzz-btf) and exits.
 */
#include <elf.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "debuginfo/kernel.h"
#include "tap.h"

#define NSYMS 4000          /* 16 markers: the decoder wants at least 16 */
#define BASE 0xffffffff81000000ULL
#define RODATA_ADDR 0xffffffff82000000ULL

struct buf {
	unsigned char *p;
	size_t n, cap;
};

static void put(struct buf *b, const void *data, size_t n)
{
	if (b->n + n > b->cap) {
		b->cap = (b->n + n) * 2;
		b->p = realloc(b->p, b->cap);
	}
	memcpy(b->p + b->n, data, n);
	b->n += n;
}

static void put_u32(struct buf *b, uint32_t v)
{
	put(b, &v, 4);
}

static void pad8(struct buf *b)
{
	static const unsigned char zero[8];
	put(b, zero, (8 - b->n % 8) % 8);
}

static void sym_name(int i, char *out, size_t size)
{
	/* The type letter first, as the tables keep it. */
	snprintf(out, size, "%c%s_%d", "TtDd"[i % 4], i % 3 ? "tl_func" : "tl_data", i);
}

static uint64_t sym_addr(int i)
{
	return BASE + 16 * (uint64_t)i;
}

/* A token table of single characters (token 0, which no name uses, is "@@"). */
static void put_tokens(struct buf *b)
{
	size_t start = b->n;
	uint16_t index[256];
	for (int i = 0; i < 256; i++) {
		index[i] = (uint16_t)(b->n - start);
		unsigned char t[3] = { (unsigned char)i, 0, 0 };
		if (i == 0)
			memcpy(t, "@@", 3);
		put(b, t, strlen((char *)t) + 1);
	}
	pad8(b);
	put(b, index, sizeof index);
}

static void put_names_and_markers(struct buf *b)
{
	size_t names = b->n;
	uint32_t markers[(NSYMS + 255) / 256];
	for (int i = 0; i < NSYMS; i++) {
		if (i % 256 == 0)
			markers[i / 256] = (uint32_t)(b->n - names);
		char name[64];
		sym_name(i, name, sizeof name);
		unsigned char len = (unsigned char)strlen(name);
		put(b, &len, 1);
		put(b, name, len);
	}
	pad8(b);
	put(b, markers, sizeof markers);
	pad8(b);
}

static void put_addresses(struct buf *b)
{
	for (int i = 0; i < NSYMS; i++)
		put_u32(b, (uint32_t)(sym_addr(i) - BASE));
	pad8(b);
	uint64_t base = BASE;
	put(b, &base, 8);
}

/* .rodata holding the tables; new_layout: the addresses after the token index. */
static struct buf make_rodata(bool new_layout)
{
	struct buf b = { 0 };
	put(&b, "some other rodata", 18);
	pad8(&b);
	if (!new_layout)
		put_addresses(&b);
	put_u32(&b, NSYMS);
	put_u32(&b, 0);
	put_names_and_markers(&b);
	put_tokens(&b);
	if (new_layout) {
		pad8(&b);
		put_addresses(&b);
	}
	put(&b, "and more", 9);
	return b;
}

/* A vmlinux ELF with that .rodata and a section name table. */
static struct buf make_elf(const struct buf *ro)
{
	static const char names[] = "\0.rodata\0.shstrtab";
	struct buf b = { 0 };
	Elf64_Ehdr eh = { 0 };
	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = ELFCLASS64;
	eh.e_ident[EI_DATA] = ELFDATA2LSB;
	eh.e_ident[EI_VERSION] = EV_CURRENT;
	eh.e_type = ET_EXEC;
	eh.e_machine = EM_X86_64;
	eh.e_version = EV_CURRENT;
	eh.e_ehsize = sizeof eh;
	eh.e_shentsize = sizeof(Elf64_Shdr);
	eh.e_shnum = 3;
	eh.e_shstrndx = 2;
	size_t ro_at = sizeof eh, names_at = ro_at + ro->n;
	eh.e_shoff = (names_at + sizeof names + 7) & ~7ULL;
	put(&b, &eh, sizeof eh);
	put(&b, ro->p, ro->n);
	put(&b, names, sizeof names);
	pad8(&b);
	Elf64_Shdr sh[3] = { { 0 } };
	sh[1] = (Elf64_Shdr){ .sh_name = 1, .sh_type = SHT_PROGBITS, .sh_flags = SHF_ALLOC,
			      .sh_addr = RODATA_ADDR, .sh_offset = ro_at, .sh_size = ro->n,
			      .sh_addralign = 8 };
	sh[2] = (Elf64_Shdr){ .sh_name = 9, .sh_type = SHT_STRTAB, .sh_offset = names_at,
			      .sh_size = sizeof names, .sh_addralign = 1 };
	put(&b, sh, sizeof sh);
	return b;
}

static void free_syms(struct ksym *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(s[i].name);
	free(s);
}

/* Every symbol made is there, with its type and address. */
static bool all_there(const struct ksym *syms, size_t n)
{
	if (n != NSYMS)
		return false;
	for (int i = 0; i < NSYMS; i++) {
		char name[64];
		sym_name(i, name, sizeof name);
		const struct ksym *k = symbols_find(syms, n, name + 1);
		if (!k || k->type != name[0] || k->addr != sym_addr(i)) {
			printf("# %s: %s\n", name + 1, k ? "wrong type or address" : "missing");
			return false;
		}
	}
	return true;
}

static void check_layout(bool new_layout)
{
	const char *what = new_layout ? "addresses after the token index" : "addresses before the names";
	struct buf ro = make_rodata(new_layout);
	struct buf elf = make_elf(&ro);
	size_t n = 0;
	char *why = NULL;
	struct ksym *syms = kallsyms_decode((char *)elf.p, elf.n, &n, &why);
	if (!tap_check(syms && all_there(syms, n), "%s: all %d symbols decode", what, NSYMS))
		printf("# %s\n", why ? why : "");
	free_syms(syms, syms ? n : 0);
	free(why);
	free(ro.p);
	free(elf.p);
}

/* Damaged tables: each is refused with a reason, or decodes; none crashes. */
static void check_damage(void)
{
	struct buf ro = make_rodata(false);
	size_t cuts = 0, refused_cuts = 0;
	for (size_t cut = 0; cut < ro.n; cut += ro.n / 37 + 1) {
		struct buf part = { ro.p, cut, cut };
		struct buf elf = make_elf(&part);
		size_t n = 0;
		char *why = NULL;
		struct ksym *syms = kallsyms_decode((char *)elf.p, elf.n, &n, &why);
		cuts++;
		refused_cuts += !syms && why && *why;
		free_syms(syms, syms ? n : 0);
		free(why);
		free(elf.p);
	}
	tap_check(refused_cuts == cuts, "%zu truncated tables are refused with a reason (%zu were)",
		  cuts, refused_cuts);

	struct buf elf = make_elf(&ro);
	unsigned seed = 1;
	size_t runs = 3000, answered = 0;
	for (size_t r = 0; r < runs; r++) {
		unsigned char *copy = malloc(elf.n);
		memcpy(copy, elf.p, elf.n);
		for (int k = 0; k < 4; k++) {
			seed = seed * 1103515245 + 12345;
			size_t at = (seed >> 4) % elf.n;
			copy[at] ^= (unsigned char)(1 << ((seed >> 1) % 8));
		}
		size_t n = 0;
		char *why = NULL;
		struct ksym *syms = kallsyms_decode((char *)copy, elf.n, &n, &why);
		answered += syms ? n <= NSYMS + 256 : why != NULL;
		free_syms(syms, syms ? n : 0);
		free(why);
		free(copy);
	}
	tap_check(answered == runs, "%zu bit-flipped images each decode or say why (%zu did)", runs,
		  answered);
	free(elf.p);
	free(ro.p);
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "--seed")) {
		struct buf ro = make_rodata(false);
		struct buf elf = make_elf(&ro);
		FILE *f = fopen(argv[2], "wb");
		bool ok = f && fwrite(elf.p, 1, elf.n, f) == elf.n;
		if (f)
			ok = fclose(f) == 0 && ok;
		return ok ? 0 : 1;
	}
	check_layout(false);
	check_layout(true);
	check_damage();
	return tap_done();
}
