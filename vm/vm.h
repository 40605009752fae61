/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The guest runner: boots the installed Debian kernel in a throwaway qemu
 * guest (TCG) with a busybox initramfs, runs shell commands in it and
 * brings back their output, exit status and kernel log. `stap --vm` runs
 * pass 5 this way (one streamed job); the test suite batches many checks
 * into one boot. The host never needs to load a module itself.
 */
#ifndef TAPLINE_RUN_VM_H
#define TAPLINE_RUN_VM_H

#include <stdbool.h>
#include <stddef.h>

/* A host file copied into the initramfs. mode 0: the host file's permission bits. */
struct vm_file {
	const char *host_path;	/* NULL: a symbolic link to link_target */
	const char *guest_path;	/* absolute; not /init or under /tapline */
	int mode;
	const char *link_target;
};

/*
 * A shell command run by busybox sh in the guest, as root, in /, with
 * stdin from /dev/null, in a session of its own. The guest has proc, sysfs,
 * devtmpfs, debugfs (/sys/kernel/debug, tracing under it) and a tmpfs /tmp
 * mounted, PATH=/bin:/sbin:/usr/bin:/usr/sbin, and busybox's applets.
 * Busybox sh runs its own applet for a bare name even when a file of that
 * name is in PATH: call a file you provided by its path (/sbin/insmod).
 * A streamed job's stdout and stderr are raw serial ports (ttys); a batch
 * job's are files.
 */
struct vm_job {
	const char *name;
	const char *command;
	int timeout_s;		/* kill the job (its process group) after this; 0: no limit */
};

struct vm_config {
	const char *release;	/* boot /boot/vmlinuz-RELEASE; NULL: vm_default_release() */
	const struct vm_file *files;
	size_t nfiles;
	int timeout_s;		/* whole boot; qemu is killed after it (0: no limit) */
	int memory_mb;		/* 0: 512 */
	int cpus;		/* 0: 2 */
	/*
	 * -icount shift=0: guest time follows the instruction count
	 * (benchmarks). Forces one CPU: qemu hangs bringing up a second one.
	 */
	bool icount;
	/*
	 * Boot the kernel's decompressed vmlinux (cached) through PVH instead of
	 * the bzImage: about 3 s faster under TCG, because the guest no longer
	 * runs the xz decompressor, but the kernel then runs at its link address
	 * (no KASLR, as with nokaslr). Leave it off for tests that should see
	 * a randomized kernel.
	 */
	bool fast_boot;
	/*
	 * Single-threaded TCG (-accel tcg,thread=single): both virtual CPUs on
	 * one host thread. Under qemu's default multi-threaded TCG the kernel's
	 * own function tracer and kprobe events can oops or soft-lock when
	 * started and stopped while both CPUs hammer one function; tests that
	 * stop scripts under load use this.
	 */
	bool tcg_single;
	const char *kernel_args;	/* appended to the kernel command line, e.g. "nokaslr" */
	/*
	 * Non-NULL: the guest gets a virtio NIC on qemu's user network, and
	 * TCP port GUEST of the guest is reachable on the host at
	 * 127.0.0.1:HOST ("HOST:GUEST"). The job configures the interface.
	 */
	const char *net_forward;
	bool verbose;		/* say what it does, and the boot time, on stderr */
	const char *keep_dir;	/* non-NULL: work in this directory and leave it there */
};

struct vm_result {
	int status;		/* the job's exit status; -1 if it never finished */
	bool started;		/* it began (false: the guest never got to it) */
	bool timed_out;		/* it did not finish because a timeout (job's or boot's) ran out */
	char *out;		/* its stdout, exact bytes (NUL added); batch only */
	size_t out_len;
	char *err;		/* its stderr; batch only */
	size_t err_len;
	char *kernel_log;	/* dmesg lines produced while the job ran; for a job
				 * the guest died in, the console's lines instead */
	char *trouble;		/* NULL, or the first kernel_log line showing BUG/Oops/WARNING/... */
	int out_errno;		/* streaming: a write to out_fd failed with this (the job
				 * was then stopped as by SIGTERM); 0 if none did */
};

/*
 * Check that qemu, the kernel image and a static busybox are there. On
 * failure print one line naming the Debian package to install (if
 * print_reason) and return false. release NULL: the newest installed one.
 */
bool vm_available(const char *release, bool print_reason);

/* The newest release with a /boot/vmlinuz-RELEASE (malloced), or NULL. */
char *vm_default_release(void);
/* The busybox the guest runs as /bin/busybox (its links resolved); NULL
 * if there is none. */
char *vm_busybox(void);
/* What /boot and /lib/modules hold: images, those with headers too, and
 * one of each kind of half-installed kernel (NULL: none). */
struct vm_kernels {
	int images, complete;
	char *newest_image;
	char *no_headers;	/* an image without its headers */
	char *no_image;		/* headers without their image */
};
/* The newest kernel installed whole (image and headers), or NULL; fills k. */
char *vm_installed_kernels(struct vm_kernels *k);
void vm_kernels_free(struct vm_kernels *k);

/*
 * Run one job, streaming its stdout to out_fd and stderr to err_fd while it
 * runs. SIGINT/SIGTERM received while the job runs are forwarded to the
 * job's process group in the guest (so staprun can run the end probes); a
 * second SIGINT kills qemu, and so does one received before the job began.
 * Returns the job status (or -1) and fills res (out/err stay NULL).
 *
 * Both run functions install their own SIGINT/SIGTERM/SIGHUP handlers for
 * the run and restore the caller's afterwards, so one run at a time per
 * process. qemu never outlives the caller (it gets SIGKILL if we die).
 */
int vm_run_stream(const struct vm_config *cfg, const struct vm_job *job, int out_fd,
		  int err_fd, struct vm_result *res);

/*
 * Run jobs one after the other in one boot and fill results[i]. Returns 0 if
 * the guest ran them all (a job's own timeout counts as ran), -1 if it died,
 * timed out or never started (the results say how far it got). SIGINT,
 * SIGTERM or SIGHUP (unless ignored when the run began) stop qemu, remove
 * the working directory, and are then raised again for the caller.
 */
int vm_run_batch(const struct vm_config *cfg, const struct vm_job *jobs, size_t njobs,
		 struct vm_result *results);

void vm_result_free(struct vm_result *res);

/*
 * Scan a kernel log for trouble: a malloced copy of the first line showing
 * a BUG, Oops, WARNING, general protection fault, panic, lockup or RCU
 * stall, or NULL. The notes about loading an unsigned or out-of-tree module
 * are not trouble, nor are user-space faults ("traps: ..." lines).
 */
char *vm_kernel_trouble(const char *log);

/* Quote a string as one word for the guest's sh (malloced). */
char *vm_shell_quote(const char *s);

#endif
