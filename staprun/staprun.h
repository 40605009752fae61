// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Declarations shared by the parts of staprun, the small static loader that
 * runs a Tapline module on the target machine (see doc/protocol.md).
 *
 * The module format it checks is contract/module.h, which the translator
 * writes by. module.c and loadpolicy.c only read files and buffers; they
 * must not depend on staprun.c or relay.c, because the unit tests and the
 * fuzz target link them alone.  Every function that can fail returns 0 on
 * success and -1 on failure, with a one-line reason (no "staprun:" prefix,
 * no newline) written to the caller's err buffer, so that main() decides
 * how to present it.
 */
#ifndef TAPLINE_STAPRUN_H
#define TAPLINE_STAPRUN_H

#include <stddef.h>
#include <sys/types.h>
#include <stdint.h>

#include "contract/module.h"

/*
 * Where a loaded module's tapline_NAME/ctl and out appear.  Only a test
 * build that fakes the kernel side points it elsewhere.
 */
#ifndef SR_PROC_DIR
#define SR_PROC_DIR "/proc"
#endif

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
/* Kernel source lines from the module's table t (contract/linetable.h),
 * which must outlive us; reads where the running kernel's _text is. */
struct lt_table;
void sr_ustacks_set_klines(struct sr_ustacks *us, const struct lt_table *t);
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
