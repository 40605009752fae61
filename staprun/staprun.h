// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Declarations shared by the parts of staprun, the small static loader that
 * runs a Tapline module on the target machine (see doc/protocol.md).
 *
 * modinfo.c, checksum.c, module.c, notes.c and loadpolicy.c only read files
 * and buffers; they must not depend on staprun.c or relay.c, because the
 * unit tests and the fuzz target link them alone (and the translator links
 * modinfo.c, checksum.c and notes.c).  Every
 * function that can fail returns 0 on success and -1 on failure, with a
 * one-line reason (no "staprun:" prefix, no newline) written to the caller's
 * err buffer, so that main() decides how to present it.
 */
#ifndef TAPLINE_STAPRUN_H
#define TAPLINE_STAPRUN_H

#include <stddef.h>
#include <sys/types.h>
#include <stdint.h>

#include "sha256.h"

/* Size of the error buffers handed to the functions below. */
#define SR_ERR_MAX 512

/*
 * Longest GNU build-id accepted, in bytes: SHA-1 ids are 20 bytes, and
 * anything beyond this is taken as a corrupt note rather than a real id.
 */
#define SR_BUILD_ID_MAX 64
/* Buffer size for a build-id in lowercase hex with its NUL. */
#define SR_BUILD_ID_HEX (2 * SR_BUILD_ID_MAX + 1)

/* Where the running kernel publishes its ELF notes. */
#define SR_KERNEL_NOTES "/sys/kernel/notes"

/*
 * Where a loaded module's tapline_NAME/ctl and out appear.  Only a test
 * build that fakes the kernel side points it elsewhere.
 */
#ifndef SR_PROC_DIR
#define SR_PROC_DIR "/proc"
#endif

/* Longest module name: the kernel's MODULE_NAME_LEN less its NUL. */
#define SR_NAME_MAX 55

/* modinfo.c: the .modinfo section of a module image */

/* Format a reason into ERR (the convention above); ERR may be NULL. */
void sr_errf(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

struct sr_modinfo {
	char *data;		/* a copy of the section's bytes, plus one NUL */
	size_t size;		/* the section's size, without that NUL */
	uint64_t offset;	/* where the section starts in the image */
	unsigned int elf_type;	/* e_type: ET_REL for a kernel module */
	unsigned int machine;	/* e_machine */
};

/*
 * Find .modinfo in the ELF image of SIZE bytes at IMAGE (named PATH in
 * messages) and copy it to MI; free it with sr_modinfo_free().
 */
int sr_modinfo_parse(const void *image, size_t size, const char *path,
		     struct sr_modinfo *mi, char *err, size_t errlen);
/* The value of the first KEY=value entry, or NULL when there is none. */
const char *sr_modinfo_get(const struct sr_modinfo *mi, const char *key);
/* The value of the next entry KEY after the value prev (NULL: the first). */
const char *sr_modinfo_next(const struct sr_modinfo *mi, const char *key, const char *prev);
void sr_modinfo_free(struct sr_modinfo *mi);
/* A name that is safe in /proc/tapline_NAME and that the kernel accepts. */
int sr_valid_name(const char *name);

/* Buffer size for sr_shown(): a value shown in a message. */
#define SR_SHOWN_MAX 160
/*
 * VALUE, from the module, made fit for a message in BUF: bytes that are
 * not printable ASCII written as \xNN, a backslash as \\, and cut with
 * "..." to fit BUFLEN.  Returns BUF.
 */
const char *sr_shown(const char *value, char *buf, size_t buflen);

/* checksum.c: the module's checksum of itself, its appended signature */

/* The .modinfo entry stap fills with the module's SHA-256, in hex. */
#define SR_CHECKSUM_KEY "tapline_sha256"
#define SR_CHECKSUM_DIGITS 64
/* What ends a module the kernel's sign-file signed. */
#define SR_SIG_MAGIC "~Module signature appended~\n"

/*
 * Split a module image of LEN bytes into the module (*CONTENT_LEN bytes)
 * and its appended signature (*SIG_LEN bytes of PKCS#7, 0 when unsigned).
 * A damaged trailer is an error.
 */
int sr_signature_split(const unsigned char *image, size_t len, size_t *content_len,
		       size_t *sig_len, const char *path, char *err, size_t errlen);
/*
 * Where the checksum's 64 hex digits are in the image, from .modinfo: the
 * one SR_CHECKSUM_KEY entry, which must hold exactly 64 lowercase hex digits.
 */
int sr_checksum_locate(const struct sr_modinfo *mi, uint64_t *at, const char *path,
		       char *err, size_t errlen);
/*
 * The same found among the raw bytes, for an image whose structure is too
 * damaged to find .modinfo: 0 when exactly one entry is there.
 */
int sr_checksum_find_raw(const unsigned char *image, size_t len, uint64_t *at);
/* SHA-256 of LEN bytes with the 64 at AT taken as '0's, in hex. */
void sr_checksum_compute(const unsigned char *image, size_t len, uint64_t at,
			 char hex[SHA256_HEX]);
/* Do the 64 digits at AT hold the checksum of the image's LEN bytes? */
int sr_checksum_matches(const unsigned char *image, size_t len, uint64_t at);

/* module.c: the module file, read once and checked */

struct sr_module {
	const char *path;
	unsigned char *image;	/* the whole file: what is checked is what is loaded */
	size_t size;
	size_t content_size;	/* the module without its appended signature */
	size_t sig_size;	/* the PKCS#7 signature's bytes; 0: unsigned */
	struct sr_modinfo mi;
	char name[SR_NAME_MAX + 1];
};

/* Read the regular file PATH into M, through one open descriptor. */
int sr_module_read(const char *path, struct sr_module *m, char *err, size_t errlen);
/*
 * Everything staprun checks before it loads, that does not depend on the
 * running kernel: the signature's trailer, .modinfo, the checksum, the
 * ELF type and machine, the name (copied to m->name).
 */
int sr_module_check(struct sr_module *m, char *err, size_t errlen);
void sr_module_free(struct sr_module *m);

/* loadpolicy.c: what the running kernel demands of a module */

struct sr_load_policy {
	int sig_enforce;	/* module.sig_enforce: 1 Y, 0 N, -1 unknown */
	char lockdown[32];	/* the lockdown mode ("none", "integrity", ...); "" unknown */
	int modules_disabled;	/* kernel.modules_disabled: 1, 0, -1 unknown */
	int cap_sys_module;	/* this process has CAP_SYS_MODULE: 1, 0, -1 unknown */
};

/* Read what the kernel says; what cannot be read stays unknown. */
void sr_load_policy_read(struct sr_load_policy *p);
/* The mode in brackets of /sys/kernel/security/lockdown's TEXT ("none [integrity] ..."). */
int sr_lockdown_mode(const char *text, char *mode, size_t len);
/* Does /proc/self/status's TEXT give capability CAP in CapEff?  1, 0, -1 unknown. */
int sr_status_has_cap(const char *text, int cap);

/* notes.c: GNU build-ids from ELF note buffers */

/*
 * Walk the ELF notes in BUF and write the descriptor of the first GNU
 * build-id note (name "GNU", type 3) to HEX as lowercase hex.
 */
int sr_notes_build_id(const void *buf, size_t len, char *hex, size_t hexlen,
		      char *err, size_t errlen);
/* Read a whole (possibly sysfs or proc) file, at most MAX bytes. */
int sr_read_file(const char *path, size_t max, char **buf, size_t *len,
		 char *err, size_t errlen);
/*
 * The GNU build-id from a file of notes: SR_KERNEL_NOTES, or
 * /sys/module/NAME/notes/.note.gnu.build-id.
 */
int sr_file_build_id(const char *path, char *hex, size_t hexlen, char *err,
		     size_t errlen);

/* relay.c: the ctl file and the output relay */

/* The session status that reading ctl gives (doc/protocol.md). */
struct sr_status {
	char state[16];			/* "" when ctl did not say */
	int exit_status;		/* -1 when ctl did not say */
	unsigned long long dropped_records;
	unsigned long long dropped_bytes;
	unsigned long long skipped;
	unsigned long long skipped_locked; /* of those, a global stayed locked */
	unsigned long long skipped_unsafe; /* of those, where RCU was not watching */
	int orphaned;			/* its reader went away without a stop */
	char *text;			/* the whole text, for error/warning lines */
};

/* Write one command ("start", "stop", "target PID") to /proc/tapline_NAME/ctl. */
int sr_ctl_write(const char *name, const char *cmd, char *err, size_t errlen);
/* Read and parse /proc/tapline_NAME/ctl. */
int sr_ctl_read(const char *name, struct sr_status *st, char *err,
		size_t errlen);
/* The same from an open ctl: -1 once that module is gone. */
int sr_ctl_read_fd(int fd, struct sr_status *st);
/*
 * Print the status's error and warning lines on stderr as "ERROR: text" and
 * "WARNING: text", then a warning for anything dropped or skipped.  Returns
 * the number of error lines.
 */
int sr_status_report(const struct sr_status *st);
void sr_status_free(struct sr_status *st);

/* Write all of BUF to FD despite short writes and EINTR. */
int sr_write_all(int fd, const void *buf, size_t len);

enum sr_relay_end {
	SR_RELAY_EOF,		/* out returned 0: the script stopped */
	SR_RELAY_STOP,		/* the caller's stop_now() said so */
	SR_RELAY_READ_ERROR,	/* reading out failed; see errnum */
	SR_RELAY_WRITE_ERROR,	/* writing dst failed; see errnum */
};

struct sr_relay {
	int out_fd;		/* /proc/tapline_NAME/out */
	int cmd_fd;		/* /proc/tapline_NAME/cmd: system() commands; -1: none */
	void (*system)(const char *cmd);	/* runs one of them */
	int (*write)(const void *buf, size_t n);	/* instead of writing dst_fd (-S) */
	int dst_fd;		/* stdout or -o FILE; -1 after it failed */
	int errnum;		/* errno of the last failure */
	unsigned long long bytes;	/* relayed so far */
	struct sr_ustacks *ustacks;	/* user stacks to take out of the output, or NULL */
	int raw_fd;		/* TAPLINE_RAW_OUTPUT: the module's output as read, or -1 */
};

/*
 * Copy out to dst until out reports end of file, STOP_NOW() returns
 * nonzero (checked before every read and after every interrupted one), or
 * something fails.  Once dst has failed, output is read and discarded so
 * that the module's buffers still drain.
 */
/* Run the system() commands the module has queued (none when cmd_fd < 0);
 * how many. */
int sr_relay_commands(struct sr_relay *r);
enum sr_relay_end sr_relay_run(struct sr_relay *r, int (*stop_now)(void));
/* Output held for user stacks, released (sr_ustacks_release) to dst. */
int sr_relay_release(struct sr_relay *r);

/* ustack.c: user-stack records and tokens in the output (doc/ustack.md) */

struct sr_ustacks;
/* MODE is the module's tapline_ustack ("keys" or "print", then ",FRAMES"). */
struct sr_ustacks *sr_ustacks_new(const char *mode, const char *name);
void sr_ustacks_free(struct sr_ustacks *us);
/* Take N bytes of the module's output; EMIT gets the text with stacks in. */
int sr_ustacks_filter(struct sr_ustacks *us, const char *buf, size_t n,
		      int (*emit)(void *ctx, const char *s, size_t n), void *ctx);
/* Output held for the mappings of samples taken in the kernel, now (they
 * will not come: the probes have stopped and the output was read). */
int sr_ustacks_release(struct sr_ustacks *us, int (*emit)(void *ctx, const char *s, size_t n),
		       void *ctx);
/* At the end of the output: bytes still held are text. */
int sr_ustacks_flush(struct sr_ustacks *us, int (*emit)(void *ctx, const char *s, size_t n),
		     void *ctx);
/* The cookie the module's records carry (ctl's ustack_cookie). */
void sr_ustacks_set_cookie(struct sr_ustacks *us, uint64_t cookie);
/* After quiesce: the aliases of the samples the module's arrays name. */
void sr_ustacks_final(struct sr_ustacks *us);
/* Files read for unwinding, each once. */
unsigned long long sr_ustacks_files(const struct sr_ustacks *us);
/* Samples unwound and distinct stacks among them (for -v). */
void sr_ustacks_counts(const struct sr_ustacks *us, unsigned long long *samples,
		       unsigned long long *stacks);

/* guardian.c: what happens to the module if staprun dies */

/*
 * Fork the guardian of loaded module NAME; returns the pipe that keeps it
 * waiting (-1 if it could not be made: staprun goes on without one).
 */
int sr_guardian_start(const char *name);
/* The -c command's process id, for the guardian to kill if staprun dies;
 * and that staprun reaped it (the id may be someone else's now). */
void sr_guardian_child(int fd, int pid);
void sr_guardian_reaped(int fd);
/* staprun is ending normally, having unloaded the module itself. */
void sr_guardian_done(int fd);

/* recorder.c: -D without -o, the output kept in memory; -A to see it. */
/* The fd the output goes to, a keeper process (*keeper) holding the
 * last size bytes; -1 with errno. */
int sr_recorder_start(const char *name, size_t size, pid_t *keeper);
/* Close fd, wait for the keeper, remove the socket. */
void sr_recorder_done(const char *name, int fd, pid_t keeper);
/* staprun -A NAME: the exit status. */
int sr_attach(const char *name);

#endif /* TAPLINE_STAPRUN_H */
