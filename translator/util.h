/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Small helpers every part of the translator uses: allocation that never
 * returns NULL, a growable string buffer, whole-file I/O, running a command,
 * timing. Nothing here knows about scripts or kernels.
 */
#ifndef TAPLINE_UTIL_H
#define TAPLINE_UTIL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *xvasprintf(const char *fmt, va_list ap);
/* n bytes as 2n lower-case hex digits (build-ids). */
char *hex_string(const unsigned char *p, size_t n);
/* Print "stap: " (or the program name) and the message to stderr, exit 1. */
void fatal(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
void util_set_progname(const char *name);

/* A growable, NUL-terminated byte buffer. */
struct strbuf {
	char *s;
	size_t len, cap;
};
void sb_init(struct strbuf *b);
void sb_free(struct strbuf *b);
void sb_add(struct strbuf *b, const char *s, size_t n);
void sb_puts(struct strbuf *b, const char *s);
void sb_putc(struct strbuf *b, char c);
void sb_printf(struct strbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sb_vprintf(struct strbuf *b, const char *fmt, va_list ap);
/* Hand the string to the caller; the buffer is empty afterwards. */
char *sb_detach(struct strbuf *b);

/* s with every occurrence of from replaced by to (malloced). */
char *str_replace_all(const char *s, const char *from, const char *to);

/* A growable array of pointers. */
struct ptrvec {
	void **v;
	size_t n, cap;
};
void pv_push(struct ptrvec *pv, void *p);
void pv_free(struct ptrvec *pv);
/* Free every element, then the vector. */
void pv_free_all(struct ptrvec *pv);
/* Does the vector (of strings) hold one equal to s? */
bool pv_has_string(const struct ptrvec *pv, const char *s);

/*
 * Sorting the symbol tables (a hundred thousand names or addresses) by
 * qsort was a fifth of a kernel probe's pass 2. sort_by_key sorts n
 * elements of size bytes at base by the uint64_t each holds at key_off,
 * ascending and stably (a radix sort); sorting by a second key and then
 * by the first orders by both. sort_key_runs then orders each run of
 * elements whose key_len bytes at key_off are equal by cmp. name_key is
 * a key for names: their first 8 bytes (at most len, or to its NUL;
 * NUL-padded) big-endian, so that keys order names as memcmp does; the
 * kernel's share 8 bytes often ("__x64_sys_"), so names_keys sets two,
 * for bytes 0-7 and 8-15.
 */
void sort_by_key(void *base, size_t n, size_t size, size_t key_off);
void sort_key_runs(void *base, size_t n, size_t size, size_t key_off, size_t key_len,
		   int (*cmp)(const void *, const void *));
uint64_t name_key(const char *s, size_t len);
void names_keys(const char *s, size_t len, uint64_t key[2]);
/* Sorts by names_keys' pair at key_off, then runs of equal pairs by cmp. */
void sort_by_name_keys(void *base, size_t n, size_t size, size_t key_off,
		       int (*cmp)(const void *, const void *));

/* Whole-file I/O. read_file returns NULL (errno set) on failure. */
char *read_file(const char *path, size_t *len);
/* The rest of an open file; NULL (errno set) on failure. */
char *read_fd(int fd, size_t *len);
bool write_file(const char *path, const void *data, size_t len);
bool copy_file(const char *from, const char *to, int mode);
bool file_exists(const char *path);
bool is_dir(const char *path);
/* mkdir -p; false on failure with errno set. */
bool mkdir_p(const char *path, int mode);
/* rm -rf; best effort. */
void remove_tree(const char *path);
/* A fresh directory, 0700, named PREFIX-XXXXXX under temp_parent()
 * (private.h: $TMPDIR or /tmp), removed by remove_tree() or, when stap is
 * interrupted, by util_check_signal(). */
char *make_temp_dir(const char *prefix);
/* Remove path too if stap is interrupted; forget_temp() undoes that. */
void remove_on_signal(const char *path);
void forget_temp(const char *path);
/* From now on SIGINT, SIGTERM and SIGHUP kill the running command's
 * process group, and the next util_check_signal() cleans up and exits. */
void util_catch_signals(void);
/* After a signal: remove every temporary directory, exit 128 + signal. */
void util_check_signal(void);
char *path_join(const char *a, const char *b);
/* Directory of the running executable (from /proc/self/exe). */
const char *self_dir(void);

/*
 * Run argv[0] with argv, in directory cwd (NULL: current), with stdout and
 * stderr captured into *output (NULL: inherited). Returns the exit status,
 * or 128+signal, or -1 if it could not be started.
 */
int run_command(const char *const argv[], const char *cwd, char **output);
/* n commands at once, each as run_command would run it; outputs (NULL:
 * inherited) and statuses get one entry each. */
void run_commands(const char *const *const argvs[], size_t n, const char *cwd, char **outputs,
		  int *statuses);
/* Search PATH for an executable; returns a malloced path or NULL. */
char *find_in_path(const char *name);

/* Monotonic clock in nanoseconds. */
uint64_t now_ns(void);
/* Resident set size of this process in kB (from /proc/self/status), 0 if unknown. */
long rss_kb(void);

/* FNV-1a, for cache keys. */
uint64_t hash_bytes(uint64_t h, const void *data, size_t len);
/* A checksum of a large cache file, 8 bytes a step (FNV-1a's byte steps
 * were a third of reading the kernel's 3.6 MB inline index). */
uint64_t hash_words(uint64_t h, const void *data, size_t len);
#define HASH_INIT 0xcbf29ce484222325ULL

#endif
