// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for the key sorts in translator/util.c: sort_by_key and
 * sort_key_runs over names and addresses give qsort's order (and keep
 * equal elements in their order, as the symbol tables rely on), for
 * sizes from empty to a kernel's symbol table, keys sharing every byte
 * but one, and names sharing their first eight bytes.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "util.h"

struct rec {
	const char *name;
	uint64_t key;
	size_t seq; /* the order before sorting */
	uint64_t keys[2];
};

static int by_name_then_seq(const void *a, const void *b)
{
	const struct rec *x = a, *y = b;
	int c = strcmp(x->name, y->name);
	return c ? c : (x->seq > y->seq) - (x->seq < y->seq);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct rec *)a)->name, ((const struct rec *)b)->name);
}

static int by_key_then_seq(const void *a, const void *b)
{
	const struct rec *x = a, *y = b;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return (x->seq > y->seq) - (x->seq < y->seq);
}

/* Names of the kernel's shapes: shared prefixes, short and long, bytes
 * above 0x7f (strcmp compares them unsigned). */
static char *random_name(void)
{
	static const char *const heads[] = { "", "__x64_sys_", "trace_event_raw_", "a", "\xc3\xa9t", "vfs_",
					     "abcdefgh" };
	char tail[12];
	size_t n = tap_rand() % 6;
	for (size_t i = 0; i < n; i++)
		tail[i] = "ab_z\x80y"[tap_rand() % 6];
	tail[n] = 0;
	return xasprintf("%s%s", heads[tap_rand() % 7], tail);
}

static bool same_order(const struct rec *a, const struct rec *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (a[i].seq != b[i].seq)
			return false;
	return true;
}

static void names(size_t n)
{
	struct rec *r = xcalloc(n + 1, sizeof *r), *want = xcalloc(n + 1, sizeof *r);
	for (size_t i = 0; i < n; i++) {
		r[i].name = random_name();
		r[i].key = name_key(r[i].name, SIZE_MAX);
		names_keys(r[i].name, SIZE_MAX, r[i].keys);
		r[i].seq = i;
	}
	memcpy(want, r, n * sizeof *r);
	qsort(want, n, sizeof *want, by_name_then_seq);
	struct rec *two = xcalloc(n + 1, sizeof *r);
	memcpy(two, r, n * sizeof *r);
	sort_by_key(r, n, sizeof *r, offsetof(struct rec, key));
	sort_key_runs(r, n, sizeof *r, offsetof(struct rec, key), sizeof(uint64_t), by_name);
	tap_check(same_order(r, want, n), "%zu names by one key: strcmp's order, equal names kept in order", n);
	sort_by_name_keys(two, n, sizeof *two, offsetof(struct rec, keys), by_name);
	tap_check(same_order(two, want, n), "%zu names by two keys: strcmp's order, equal names kept in order", n);
	free(two);
	for (size_t i = 0; i < n; i++)
		free((char *)r[i].name);
	free(r);
	free(want);
}

static void keys(size_t n, uint64_t mask, const char *what)
{
	struct rec *r = xcalloc(n + 1, sizeof *r), *want = xcalloc(n + 1, sizeof *r);
	for (size_t i = 0; i < n; i++)
		r[i] = (struct rec){ "", 0xffffffff81000000ULL | (tap_rand() & mask), i, { 0, 0 } };
	memcpy(want, r, n * sizeof *r);
	qsort(want, n, sizeof *want, by_key_then_seq);
	sort_by_key(r, n, sizeof *r, offsetof(struct rec, key));
	tap_check(same_order(r, want, n), "%zu %s: ascending, stable", n, what);
	free(r);
	free(want);
}

int main(void)
{
	names(0);
	names(1);
	names(2);
	names(1000);
	names(150000);
	keys(0, ~0ULL, "addresses");
	keys(3, ~0ULL, "addresses");
	keys(60000, 0xffffff, "kernel text offsets");
	keys(5000, 0xf00, "keys differing in one byte");
	keys(5000, 0, "equal keys");
	tap_check(name_key("ab", 2) < name_key("abc", 3) && name_key("abcdefghX", 9) ==
		  name_key("abcdefghY", 9) && name_key("vfs_read.isra.0", 8) == name_key("vfs_read", 8) &&
		  name_key("\xe9", 1) > name_key("z", 1),
		  "name_key orders as memcmp does, over at most 8 bytes");
	uint64_t a[2], b[2], c[2];
	names_keys("abcdefgh", 8, a);
	names_keys("abcdefghi", 9, b);
	names_keys("abcdefghi.isra.0", 9, c);
	tap_check(a[0] == b[0] && a[1] == 0 && b[1] > 0 && b[1] == c[1],
		  "names_keys: the second key is bytes 8-15 of the first len");
	return tap_done();
}
