/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Where stap keeps what it reads back and runs: its caches and temporary
 * files. stap often runs as root and builds kernel modules from what is in
 * them, so no other user may be able to put anything there.
 *
 * A directory is private when every directory on its path (symbolic links
 * followed, and each link itself root's or ours) belongs to root or to us
 * and is writable by nobody else, unless it is sticky like /tmp (others can
 * then add entries but not replace ours), and the directory itself is ours
 * and writable by us alone. Whatever is inside such a directory was put
 * there by us or by root.
 */
#ifndef TAPLINE_PRIVATE_H
#define TAPLINE_PRIVATE_H

#include <stdbool.h>
#include <stddef.h>

struct strbuf;

/*
 * Create dir if needed (and its missing parents, all 0700; with !create a
 * missing dir is fine: there is nothing to read), then check that it is
 * private. If not, exit with an error naming what is wrong; what names the
 * directory ("the cache directory") and elsewhere says how to use another
 * ("set XDG_CACHE_HOME to a directory of your own").
 */
void private_dir(const char *dir, bool create, const char *what, const char *elsewhere);

/* The user's cache directory for Tapline ($XDG_CACHE_HOME/tapline, or
 * .cache/tapline in $HOME or the home directory of the password database),
 * private, created if needed; SUB (may be NULL) is appended, each of its
 * directories private too. */
char *cache_dir(const char *sub);
/* Forget which directories were found private, without freeing (the
 * pass-2 fuzzer frees each input's allocations itself). */
void private_dirs_forget(void);

/* The directory temporary directories go in ($TMPDIR, or /tmp), checked
 * like the path to a private directory; exits with an error if others
 * could replace what stap makes there. */
const char *temp_parent(void);

/* Why the file or directory at path, inside a private directory, is not
 * ours alone (a symbolic link, someone else's, writable by others), or
 * NULL. The result is malloced. */
char *private_entry_problem(const char *path);
/* The same for dir and everything under it. */
char *private_tree_problem(const char *dir);
/* read_file for a file in a private directory, never through a symbolic
 * link: NULL with *why (malloced) when it cannot be read or is not ours
 * alone. */
char *read_private_file(const char *path, size_t *len, char **why);

/*
 * Cache files of text lines sealed by a last line "end HASH" (hash_words
 * of all before it), so that a truncated or damaged one is never used.
 * write_sealed_file seals b's text and writes it through a temporary file
 * renamed into place (a reader sees the old file or the new one);
 * read_sealed_file gives the text before the seal, NUL-terminated (*len
 * bytes, ending in a newline), or NULL when the file is missing, not ours
 * alone, or its seal does not match.
 */
void write_sealed_file(const char *path, struct strbuf *b);
char *read_sealed_file(const char *path, size_t *len);
/* The same check on the file mapped read-only instead of read (a cache of
 * megabytes read in part is not copied): the text before the seal at the
 * address returned, *len bytes ending in a newline but not NUL-terminated;
 * munmap it with *map_len. */
const char *map_sealed_file(const char *path, size_t *len, size_t *map_len);

#endif
