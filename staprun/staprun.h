// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Declarations shared by the parts of staprun, the small static loader that
 * runs a Tapline module on the target machine (see doc/protocol.md).
 *
 * modinfo.c and notes.c only read files and buffers; they must not depend on
 * staprun.c or relay.c, because the unit test links them alone.  Every
 * function that can fail returns 0 on success and -1 on failure, with a
 * one-line reason (no "staprun:" prefix, no newline) written to the caller's
 * err buffer, so that main() decides how to present it.
 */
#ifndef TAPLINE_STAPRUN_H
#define TAPLINE_STAPRUN_H

#include <stddef.h>
#include <stdint.h>

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

/* modinfo.c: the .modinfo section of a module file */

/* Format a reason into ERR (the convention above); ERR may be NULL. */
void sr_errf(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

struct sr_modinfo {
	char *data;		/* the section's bytes, plus one NUL after them */
	size_t size;		/* the section's size, without that NUL */
	unsigned int elf_type;	/* e_type: ET_REL for a kernel module */
	unsigned int machine;	/* e_machine */
};

/* Find .modinfo in the ELF file PATH: its file offset and size. */
int sr_modinfo_locate(const char *path, uint64_t *offset, uint64_t *size,
		      char *err, size_t errlen);
/* Read .modinfo of PATH into MI; free it with sr_modinfo_free(). */
int sr_modinfo_read(const char *path, struct sr_modinfo *mi, char *err,
		    size_t errlen);
/* The value of the first KEY=value entry, or NULL when there is none. */
const char *sr_modinfo_get(const struct sr_modinfo *mi, const char *key);
/* The value of the next entry KEY after the value prev (NULL: the first). */
const char *sr_modinfo_next(const struct sr_modinfo *mi, const char *key, const char *prev);
void sr_modinfo_free(struct sr_modinfo *mi);

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
	int dst_fd;		/* stdout or -o FILE; -1 after it failed */
	int errnum;		/* errno of the last failure */
	unsigned long long bytes;	/* relayed so far */
};

/*
 * Copy out to dst until out reports end of file, STOP_NOW() returns
 * nonzero (checked before every read and after every interrupted one), or
 * something fails.  Once dst has failed, output is read and discarded so
 * that the module's buffers still drain.
 */
enum sr_relay_end sr_relay_run(struct sr_relay *r, int (*stop_now)(void));

/* guardian.c: what happens to the module if staprun dies */

/*
 * Fork the guardian of loaded module NAME; returns the pipe that keeps it
 * waiting (-1 if it could not be made: staprun goes on without one).
 */
int sr_guardian_start(const char *name);
/* The -c command's process id, for the guardian to kill if staprun dies. */
void sr_guardian_child(int fd, int pid);
/* staprun is ending normally, having unloaded the module itself. */
void sr_guardian_done(int fd);

#endif /* TAPLINE_STAPRUN_H */
