// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * staprun: load a Tapline module, relay its output, unload it.
 *
 * This is pass 5 on the target machine, often a bare busybox guest, so it is
 * small, statically linked and uses only libc.  main() reads as the sequence
 * of doc/protocol.md: check the module file and its kernel build-id, load,
 * set the target, start, relay until the script ends or is interrupted,
 * stop, drain, report, unload.  Whatever happens after the load, the module
 * is unloaded before staprun exits; that is why SIGPIPE is ignored and
 * SIGINT, SIGTERM, SIGHUP and SIGQUIT only set a flag.
 */
#include "staprun.h"
#include "contract/linetable.h"

#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <linux/capability.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef TAPLINE_VERSION
#define TAPLINE_VERSION "unknown"
#endif

struct sr_options {
	int verbose;
	int guru_build_id;	/* --guru-ignore-build-id */
	const char *outfile;	/* -o */
	unsigned long long switch_bytes;	/* -S SIZE (MB): 0 for one file */
	long switch_keep;	/* -S SIZE,N: files kept; 0: all */
	const char *cmd;	/* -c */
	pid_t target;		/* -x, or the -c child */
	const char *module;	/* the .ko path */
	int background;		/* -D: in the background once the script runs */
	const char *attach;	/* -A NAME: show a background script's output */
};

static struct sr_options opt;

/* Set by the signal handlers, read by the relay's stop_now() callbacks. */
static volatile sig_atomic_t sr_signals;	/* SIGINT, SIGTERM, ... seen */
static volatile sig_atomic_t sr_sigchld;
static sig_atomic_t sr_signals_at_stop;
static pid_t sr_child = -1;
static int sr_child_status = -1;	/* how the -c command ended (wait status); -1: not seen */
static int sr_guardian = -1;	/* the pipe to the guardian (guardian.c) */
static volatile sig_atomic_t sr_switch_asked;	/* SIGUSR2: switch_file() */
static int sr_started_fd = -1;	/* -D: tells the foreground staprun the script started */
static pid_t sr_keeper = -1;	/* -D without -o: the process keeping the output (recorder.c) */
#define SR_RECORDER_DEFAULT (1ULL << 20)

static void sr_msg(const char *kind, const char *fmt, va_list ap)
{
	fprintf(stderr, "staprun: %s", kind);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

static void sr_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void sr_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	sr_msg("ERROR: ", fmt, ap);
	va_end(ap);
}

static void sr_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void sr_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	sr_msg("WARNING: ", fmt, ap);
	va_end(ap);
}

/*
 * A guru override goes into the kernel log too, where whoever looks at the
 * machine after a crash will see it: "<4>" is KERN_WARNING. Best effort.
 */
static void sr_log_kernel(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void sr_log_kernel(const char *fmt, ...)
{
	char line[768];
	va_list ap;
	int fd, n;

	n = snprintf(line, sizeof line, "<4>staprun[%d]: ", (int)getpid());
	va_start(ap, fmt);
	vsnprintf(line + n, sizeof line - (size_t)n, fmt, ap);
	va_end(ap);
	fd = open("/dev/kmsg", O_WRONLY | O_CLOEXEC);
	if (fd >= 0) {
		if (write(fd, line, strlen(line)) < 0) {
			/* nothing more to do: stderr has the warning already */
		}
		close(fd);
	}
}

static void sr_verbose(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void sr_verbose(const char *fmt, ...)
{
	va_list ap;

	if (!opt.verbose)
		return;
	va_start(ap, fmt);
	sr_msg("", fmt, ap);
	va_end(ap);
}

static void sr_usage(FILE *f)
{
	fprintf(f,
		"Usage: staprun [-v] [-o FILE] [-c CMD | -x PID] [--guru-ignore-build-id] MODULE.ko\n"
		"       staprun -A NAME\n"
		"Load a Tapline module built by stap, relay its output, and unload it.\n"
		"\n"
		"  -o FILE   write the script's output to FILE instead of standard output\n"
		"  -S SIZE[,N]  with -o: write FILE.0, FILE.1, ..., each up to SIZE megabytes,\n"
		"            keeping the last N; the script's switch_file() (or SIGUSR2) moves\n"
		"            on to the next file\n"
		"  -c CMD    run CMD (with /bin/sh -c) as the target process; it starts once\n"
		"            the script has started, and the script stops when it exits\n"
		"  -x PID    the target process id (what the script's target() returns)\n"
		"  -D        once the script has started, go on in the background (stap -F);\n"
		"            SIGTERM or SIGINT stops the script and unloads it. Without -o,\n"
		"            the last megabyte of output (-S SIZE: megabytes) is kept in\n"
		"            memory, for -A\n"
		"  -A NAME   show the output a -D script without -o kept, then what comes;\n"
		"            Ctrl-C stops the script (NAME: its module's name)\n"
		"  -v        say each step on standard error\n"
		"  --guru-ignore-build-id\n"
		"            load the module even if it was built for another kernel build-id\n"
		"            (dangerous: wrong addresses can crash this machine)\n"
		"  -h, --help     show this help and exit\n"
		"  -V, --version  show the version and exit\n"
		"\n"
		"Exit status: the script's (0, or 1 after a runtime error); 1 when staprun\n"
		"itself fails.  Loading modules needs root.\n");
}

static void sr_parse_options(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ "guru-ignore-build-id", no_argument, NULL, 'G' },
		{ NULL, 0, NULL, 0 },
	};
	char *end;
	long pid;
	int c;

	opterr = 0;	/* our own messages, with our prefix */
	while ((c = getopt_long(argc, argv, "+:vDo:S:c:x:A:hV", longopts,
				NULL)) != -1) {
		switch (c) {
		case 'v':
			opt.verbose = 1;
			break;
		case 'D':
			opt.background = 1;
			break;
		case 'o':
			opt.outfile = optarg;
			break;
		case 'A':
			opt.attach = optarg;
			break;
		case 'S': {
			long mb = strtol(optarg, &end, 10), keep = 0;

			if (*end == ',')
				keep = strtol(end + 1, &end, 10);
			if (*end || mb < 1 || mb > 1048576 || keep < 0 || keep > 100000) {
				sr_error("-S takes SIZE[,N]: megabytes per output file (1 to 1048576) and how many files to keep, not '%s'",
					 optarg);
				exit(1);
			}
			opt.switch_bytes = (unsigned long long)mb << 20;
			opt.switch_keep = keep;
			break;
		}
		case 'c':
			opt.cmd = optarg;
			break;
		case 'x':
			errno = 0;
			pid = strtol(optarg, &end, 10);
			/* 4194304: PID_MAX_LIMIT, the largest pid a 64-bit kernel uses. */
			if (errno || end == optarg || *end || pid <= 0 || pid > 4194304) {
				sr_error("-x takes a process id from 1 to 4194304, not '%s'", optarg);
				exit(1);
			}
			opt.target = (pid_t)pid;
			break;
		case 'G':
			opt.guru_build_id = 1;
			break;
		case 'h':
			sr_usage(stdout);
			exit(0);
		case 'V':
			printf("Tapline staprun %s\n", TAPLINE_VERSION);
			exit(0);
		case ':':
			sr_error("option '%s' needs an argument; see staprun --help",
				 argv[optind - 1]);
			exit(1);
		default:
			if (optopt)
				sr_error("unknown option '-%c'; see staprun --help",
					 optopt);
			else
				sr_error("unknown option '%s'; see staprun --help",
					 argv[optind - 1]);
			exit(1);
		}
	}
	if (opt.attach) {
		/* The name of a module, or a module file: its name. */
		const char *base = strrchr(opt.attach, '/');
		size_t len;

		base = base ? base + 1 : opt.attach;
		len = strlen(base);
		if (len > 3 && !strcmp(base + len - 3, ".ko"))
			len -= 3;
		if (!len || len > SR_NAME_MAX || optind < argc || opt.outfile || opt.cmd ||
		    opt.target || opt.background) {
			sr_error("-A takes a module's name and nothing else");
			exit(1);
		}
		opt.attach = strndup(base, len);
		return;
	}
	if (opt.switch_bytes && !opt.outfile && !opt.background) {
		sr_error("-S switches between output files: it needs -o FILE (or, with -D, sizes the output kept in memory)");
		exit(1);
	}
	if (opt.cmd && opt.target) {
		sr_error("-c and -x cannot be used together: -c makes the command the target");
		exit(1);
	}
	if (optind >= argc) {
		sr_error("no module given");
		sr_usage(stderr);
		exit(1);
	}
	opt.module = argv[optind];
	if (optind + 1 < argc) {
		sr_error("module parameters are not supported (got '%s' after %s)",
			 argv[optind + 1], opt.module);
		exit(1);
	}
}

/*
 * Step 1a: read the module file once into MOD and check that it is, byte
 * for byte, a module stap built, which staprun can drive: its checksum,
 * ELF type, machine and name (module.c).  Copies the module name to NAME.
 */
/* The module's user-stack mode (tapline_ustack in .modinfo), "" for none. */
static char sr_ustack_mode[32];
/* The kernel's line table the module carries (tapline_klines), or none. */
static struct lt_table sr_klines;

/* A table that cannot be read costs the lines, not the run: they print
 * as addresses. */
static void sr_read_klines(struct sr_module *mod)
{
	char err[SR_ERR_MAX];
	uint64_t off, len;

	if (sr_section_find(mod->image, mod->content_size, opt.module, LT_SECTION, &off, &len, err,
			    sizeof(err)) ||
	    lt_open(&sr_klines, mod->image + off, (size_t)len, err, sizeof(err)))
		sr_warn("kernel source lines will print as addresses: %s", err);
}

static int sr_check_module(struct sr_module *mod, char *name)
{
	char err[SR_ERR_MAX], shown[SR_SHOWN_MAX];
	const char *v;

	if (sr_module_read(opt.module, mod, err, sizeof(err)) ||
	    sr_module_check(mod, err, sizeof(err))) {
		sr_error("%s", err);
		return -1;
	}
	strcpy(name, mod->name);
	v = sr_modinfo_get(&mod->mi, "tapline_ustack");
	if (v)
		snprintf(sr_ustack_mode, sizeof(sr_ustack_mode), "%s", v);
	if (sr_modinfo_get(&mod->mi, "tapline_klines"))
		sr_read_klines(mod);
	v = sr_modinfo_get(&mod->mi, "tapline_version");
	sr_verbose("%s: module %s, built by Tapline %s, checksum verified, %s", opt.module,
		   name, v ? sr_shown(v, shown, sizeof(shown)) : "(unknown version)",
		   mod->sig_size ? "signed" : "not signed");
	return 0;
}

/*
 * Step 1b: refuse a module built for another kernel (design lesson 2), before
 * anything is loaded: its addresses and structure layouts belong to that
 * kernel.  --guru-ignore-build-id turns the refusal into a loud warning.
 */
static int sr_check_build_id(const struct sr_modinfo *mi)
{
	const char *want = sr_modinfo_get(mi, "tapline_kernel_build_id");
	char have[SR_BUILD_ID_HEX], err[SR_ERR_MAX], shown[SR_SHOWN_MAX];

	if (sr_file_build_id(SR_KERNEL_NOTES, have, sizeof(have), err,
			     sizeof(err))) {
		if (!opt.guru_build_id) {
			sr_error("cannot read the running kernel's build-id: %s (is sysfs mounted on /sys?); to load %s anyway, --guru-ignore-build-id",
				 err, opt.module);
			return -1;
		}
		want = want ? sr_shown(want, shown, sizeof(shown)) : "(none recorded)";
		sr_warn("--guru-ignore-build-id: LOADING WITHOUT CHECKING THE KERNEL BUILD-ID. The running kernel's build-id cannot be read (%s); %s was built for kernel build-id %s. If that is not this kernel, its probe addresses and structure layouts are wrong and can crash this machine.",
			err, opt.module, want);
		sr_log_kernel("loading %s with --guru-ignore-build-id: the kernel's build-id is unreadable, the module was built for %s\n",
			      opt.module, want);
		return 0;
	}
	sr_verbose("running kernel build-id %s", have);
	if (!want) {
		if (!opt.guru_build_id) {
			sr_error("%s has no tapline_kernel_build_id in .modinfo: it is not a Tapline module (or was built by an older stap); rebuild the module with stap for this kernel (or, to load it anyway, --guru-ignore-build-id)",
				 opt.module);
			return -1;
		}
		sr_warn("--guru-ignore-build-id: LOADING A MODULE THAT RECORDS NO KERNEL BUILD-ID. %s does not say which kernel it was built for; the running kernel has build-id %s. If it was built for another kernel, its probe addresses and structure layouts are wrong and can crash this machine.",
			opt.module, have);
		sr_log_kernel("loading %s with --guru-ignore-build-id: it records no kernel build-id; this kernel has %s\n",
			      opt.module, have);
		return 0;
	}
	if (strcasecmp(want, have) == 0) {
		sr_verbose("module build-id matches the running kernel");
		return 0;
	}
	want = sr_shown(want, shown, sizeof(shown));
	if (!opt.guru_build_id) {
		sr_error("build-id mismatch: %s was built for kernel build-id %s but the running kernel has %s; rebuild the module with stap for this kernel (or, to load it anyway, --guru-ignore-build-id)",
			 opt.module, want, have);
		return -1;
	}
	sr_warn("--guru-ignore-build-id: LOADING A MODULE BUILT FOR ANOTHER KERNEL. %s was built for kernel build-id %s but the running kernel has %s. Its probe addresses and structure layouts may be wrong and can crash this machine.",
		opt.module, want, have);
	sr_log_kernel("loading %s with --guru-ignore-build-id: built for kernel build-id %s, this kernel has %s\n",
		      opt.module, want, have);
	return 0;
}

/*
 * Step 1c: the same for each module the script probes
 * (tapline_module_build_id=NAME:HEX entries): a loaded module whose
 * build-id differs from the one its debug information had is refused. A
 * module loaded later is checked by the runtime before its probes are
 * placed.
 */
static int sr_check_module_build_ids(const struct sr_modinfo *mi)
{
	const char *entry = NULL;

	while ((entry = sr_modinfo_next(mi, "tapline_module_build_id", entry)) != NULL) {
		const char *colon = strchr(entry, ':'), *want;
		char name[SR_NAME_MAX + 1], path[SR_NAME_MAX + 64];
		char have[SR_BUILD_ID_HEX] = "", err[SR_ERR_MAX];
		char shown[SR_SHOWN_MAX], shown_name[SR_SHOWN_MAX];

		if (!colon || (size_t)(colon - entry) > SR_NAME_MAX)
			continue;
		snprintf(name, sizeof(name), "%.*s", (int)(colon - entry), entry);
		sr_shown(name, shown_name, sizeof(shown_name));
		snprintf(path, sizeof(path), "/sys/module/%s/notes/.note.gnu.build-id", name);
		if (access(path, F_OK) != 0) {
			sr_verbose("module %s is not loaded: its probes wait for it", shown_name);
			continue;
		}
		if (sr_file_build_id(path, have, sizeof(have), err, sizeof(err)) == 0 &&
		    strcasecmp(colon + 1, have) == 0) {
			sr_verbose("module %s build-id %s matches", shown_name, have);
			continue;
		}
		want = sr_shown(colon + 1, shown, sizeof(shown));
		if (!opt.guru_build_id) {
			sr_error("build-id mismatch: %s probes module %s as it was built with build-id %s, but the loaded %s has %s; rebuild the script against the loaded module's debug information (or, to load it anyway, --guru-ignore-build-id)",
				 opt.module, shown_name, want, shown_name, have[0] ? have : err);
			return -1;
		}
		sr_warn("--guru-ignore-build-id: LOADING A MODULE BUILT FOR ANOTHER BUILD OF %s. %s was built for %s build-id %s but the loaded one has %s. Its probe addresses and structure layouts may be wrong and can crash this machine.",
			shown_name, opt.module, shown_name, want, have[0] ? have : err);
		sr_log_kernel("loading %s with --guru-ignore-build-id: built for %s build-id %s, the loaded one has %s\n",
			      opt.module, shown_name, want, have[0] ? have : err);
	}
	return 0;
}

static void sr_on_switch(int sig)
{
	(void)sig;
	sr_switch_asked = 1;
}

static void sr_on_signal(int sig)
{
	int saved = errno;

	if (sig == SIGCHLD)
		sr_sigchld = 1;
	else
		sr_signals = sr_signals + 1;
	/*
	 * A signal that lands after the relay checked the flags but before
	 * it entered read() would leave read() blocked until the script
	 * printed something.  A one-shot SIGALRM a second later interrupts
	 * that read, so the flag is always seen.  alarm() is async-signal-safe.
	 */
	alarm(1);
	errno = saved;
}

static void sr_on_alarm(int sig)
{
	(void)sig;	/* only there to interrupt a blocking read() */
}

static const int sr_stop_signals[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };

/*
 * No SA_RESTART: a signal must make a blocking read() of out return EINTR
 * so that the relay can stop the script.
 */
static void sr_install_signals(void)
{
	struct sigaction sa;
	size_t i;

	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < sizeof(sr_stop_signals) / sizeof(int); i++)
		sigaddset(&sa.sa_mask, sr_stop_signals[i]);
	sigaddset(&sa.sa_mask, SIGCHLD);
	sa.sa_handler = sr_on_signal;
	for (i = 0; i < sizeof(sr_stop_signals) / sizeof(int); i++)
		sigaction(sr_stop_signals[i], &sa, NULL);
	sa.sa_flags = SA_NOCLDSTOP;	/* only an exit ends the script */
	sigaction(SIGCHLD, &sa, NULL);
	sa.sa_flags = 0;
	sa.sa_handler = sr_on_alarm;
	sigaction(SIGALRM, &sa, NULL);
	/* switch_file(): on to the next output file (-S). */
	sa.sa_handler = sr_on_switch;
	sigaction(SIGUSR2, &sa, NULL);
	/* A closed output pipe must not kill staprun with the module loaded. */
	sa.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &sa, NULL);
}

/* The -c command must not inherit staprun's handlers or ignored SIGPIPE. */
static void sr_default_signals(void)
{
	struct sigaction sa;
	sigset_t none;
	size_t i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < sizeof(sr_stop_signals) / sizeof(int); i++)
		sigaction(sr_stop_signals[i], &sa, NULL);
	sigaction(SIGCHLD, &sa, NULL);
	sigaction(SIGALRM, &sa, NULL);
	sigaction(SIGPIPE, &sa, NULL);
	sigaction(SIGUSR2, &sa, NULL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
}

/*
 * Fork the -c command and hold it on a pipe until the script has started,
 * so that its pid can be the target and none of its work escapes the
 * probes.  Returns the pipe's write end: one byte lets it exec, closing the
 * pipe without one makes it exit.
 */
static int sr_fork_child(const char *cmd)
{
	int p[2];
	char go;
	ssize_t n;

	if (pipe2(p, O_CLOEXEC) < 0) {
		sr_error("cannot create a pipe for -c: %s", strerror(errno));
		return -1;
	}
	sr_child = fork();
	if (sr_child < 0) {
		sr_error("cannot fork for -c: %s", strerror(errno));
		close(p[0]);
		close(p[1]);
		return -1;
	}
	if (sr_child == 0) {
		close(p[1]);
		/* Nothing of staprun's but stdio may outlive it in the command:
		 * a held `out` would keep the kernel from noticing staprun died. */
		for (int fd = 3; fd < 1024; fd++)
			if (fd != p[0])
				close(fd);
		sr_default_signals();
		do
			n = read(p[0], &go, 1);
		while (n < 0 && errno == EINTR);
		if (n != 1)
			_exit(127);	/* the script did not start */
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		dprintf(STDERR_FILENO, "staprun: ERROR: cannot run /bin/sh for -c: %s\n",
			strerror(errno));
		_exit(127);
	}
	close(p[0]);
	sr_verbose("forked -c command as process %d, held until the script starts",
		   (int)sr_child);
	return p[1];
}

static int sr_child_released;	/* the -c command was let run */

static void sr_release_child(int gofd, int go)
{
	ssize_t n;

	if (gofd < 0)
		return;
	sr_child_released = go;
	if (go) {
		/* EPIPE (SIGPIPE is ignored) means it already died: fine. */
		do
			n = write(gofd, "g", 1);
		while (n < 0 && errno == EINTR);
	}
	close(gofd);
}

/* Has the -c command exited?  Reaps it if so. */
static int sr_child_exited(void)
{
	int status;
	pid_t r;

	if (sr_child <= 0)
		return 0;
	sr_sigchld = 0;
	do
		r = waitpid(sr_child, &status, WNOHANG);
	while (r < 0 && errno == EINTR);
	if (r != sr_child)
		return 0;
	sr_verbose("the -c command (process %d) exited", (int)sr_child);
	sr_child = -1;
	sr_child_status = status;
	sr_guardian_reaped(sr_guardian);
	return 1;
}

/*
 * As SystemTap does: a -c command that failed makes staprun fail (exit 1),
 * with a warning saying how it ended. Returns 1 if it failed.
 */
static int sr_report_child(void)
{
	int st = sr_child_status;

	if (st < 0 && sr_child > 0)
		sr_child_exited();	/* it may have ended while draining */
	st = sr_child_status;
	/* One held back because the script never started never ran. */
	if (st < 0 || !sr_child_released)
		return 0;
	if (WIFEXITED(st) && WEXITSTATUS(st)) {
		sr_warn("the -c command exited with status %d", WEXITSTATUS(st));
		return 1;
	}
	if (WIFSIGNALED(st)) {
		sr_warn("the -c command was killed by signal %d (%s)", WTERMSIG(st),
			strsignal(WTERMSIG(st)));
		return 1;
	}
	return 0;
}

/* The relay's stop_now() while the script runs: a signal, or -c exited. */
static int sr_stop_running(void)
{
	if (sr_signals)
		return 1;
	return sr_sigchld && sr_child_exited();
}

/*
 * The relay's stop_now() while draining after stop: output written before
 * stop must come out, so one more Ctrl-C is ignored; a second one means the
 * user would rather lose it than wait.
 */
static int sr_stop_draining(void)
{
	return sr_signals - sr_signals_at_stop >= 2;
}

/* How to give the kernel a module it will take, when it wants a signature. */
#define SR_HOW_TO_SIGN \
	"sign it with a key the kernel trusts: build it with `stap --sign-key=KEY --sign-cert=CERT` " \
	"(without them, stap signs with DKMS's /var/lib/dkms/mok.key and mok.pub, or the kernel " \
	"build tree's certs/signing_key.pem, when it can read them); on a Secure Boot machine, " \
	"enrol the certificate once with `mokutil --import CERT.der` and reboot"
#define SR_HOW_TO_ENROL \
	"enrol that key's certificate (on a Secure Boot machine: `mokutil --import CERT.der`, then " \
	"reboot and confirm it in MokManager), or sign the module with a key the kernel already " \
	"trusts (`stap --sign-key=KEY --sign-cert=CERT`)"

/* The kernel wants modules signed with a key it trusts (DEMAND says why). */
static void sr_signature_refused(const struct sr_module *mod, const char *demand)
{
	if (!mod->sig_size)
		sr_error("%s: the kernel loads only signed modules (%s), and this one is not signed; %s",
			 mod->path, demand, SR_HOW_TO_SIGN);
	else
		sr_error("%s: the kernel loads only modules signed with a key it trusts (%s), and it does not trust the key this one is signed with (see `dmesg`); %s",
			 mod->path, demand, SR_HOW_TO_ENROL);
}

/*
 * EPERM is the kernel's answer to a missing CAP_SYS_MODULE, to
 * kernel.modules_disabled and to lockdown's refusal of a module without a
 * trusted signature alike; EKEYREJECTED comes from module.sig_enforce.
 * What the kernel says of itself tells them apart (loadpolicy.c).
 */
static void sr_refused(int err, const struct sr_module *mod)
{
	struct sr_load_policy p;
	char demand[80];

	sr_load_policy_read(&p);
	if (err == EPERM && p.cap_sys_module == 0) {
		sr_error("loading %s was not permitted: staprun does not have CAP_SYS_MODULE (run it as root; a container may withhold it)",
			 mod->path);
	} else if (err == EPERM && p.modules_disabled == 1) {
		sr_error("loading %s was not permitted: module loading is disabled on this machine until it reboots (kernel.modules_disabled=1)",
			 mod->path);
	} else if (err == EPERM && p.lockdown[0] && strcmp(p.lockdown, "none") != 0) {
		snprintf(demand, sizeof(demand), "it is locked down: lockdown=%s", p.lockdown);
		sr_signature_refused(mod, demand);
	} else if (err == EPERM) {
		sr_error("loading %s was not permitted: it needs CAP_SYS_MODULE, and module loading may be disabled (kernel.modules_disabled=1) or locked down",
			 mod->path);
	} else if (p.sig_enforce == 1) {
		sr_signature_refused(mod, "module.sig_enforce=Y");
	} else if (mod->sig_size) {
		/* Not demanded, but a signature that is there must verify. */
		sr_error("%s: the kernel rejected the module's signature (see `dmesg`): it does not verify; rebuild the module and sign it again",
			 mod->path);
	} else {
		sr_signature_refused(mod, "see `dmesg`");
	}
}

static void sr_load_error(int err, const struct sr_module *mod)
{
	const char *name = mod->name;

	switch (err) {
	case EEXIST:
		sr_error("a module named %s is already loaded (a run still going, or left behind); unload it with `rmmod %s`",
			 name, name);
		break;
	case ENOEXEC:
		sr_error("%s: Invalid module format: it was likely built for another kernel (see `dmesg` for the kernel's reason)",
			 opt.module);
		break;
	case EPERM:
	case EKEYREJECTED:
	case ENOKEY:
		sr_refused(err, mod);
		break;
	case EBADMSG:
		sr_error("%s: the kernel finds the module's signature malformed (see `dmesg`); rebuild the module and sign it again",
			 opt.module);
		break;
	case ENOSYS:
		sr_error("this kernel was built without module support (CONFIG_MODULES is off), so %s cannot be loaded",
			 opt.module);
		break;
	case ENOENT:
		sr_error("%s: the module needs a symbol this kernel does not have (Unknown symbol, see `dmesg`): it was likely built for another kernel",
			 opt.module);
		break;
	case EINVAL:
		sr_error("%s: the kernel rejected the module (a symbol version mismatch or a bad section; see `dmesg`): it was likely built for another kernel",
			 opt.module);
		break;
	case ENOMEM:
		sr_error("not enough kernel memory to load %s", opt.module);
		break;
	case EBUSY:
		sr_error("a module named %s is being loaded or unloaded right now; try again",
			 name);
		break;
	default:
		sr_error("loading %s failed: %s (see `dmesg` for the kernel's reason)",
			 opt.module, strerror(err));
		break;
	}
}

/*
 * The module's bytes in a sealed memfd: what finit_module() reads is then
 * exactly what was checked, and nobody can change it meanwhile (the seals
 * forbid every write, even through this descriptor).  -1 when memfd or its
 * seals are unavailable.
 */
static int sr_sealed_copy(const struct sr_module *mod)
{
	const unsigned int seals = F_SEAL_WRITE | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL;
	int fd;

	fd = memfd_create(mod->name, MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0)
		return -1;
	if (sr_write_all(fd, mod->image, mod->size) || fcntl(fd, F_ADD_SEALS, seals) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * Step 1d: load the bytes that were checked, with empty parameters: from a
 * sealed memfd, or from memory with init_module() where there is no memfd,
 * no finit_module(), or a kernel that takes the memfd for a file open for
 * writing (ETXTBSY).
 */
static int sr_load(const struct sr_module *mod)
{
	long r = -1;
	int fd, err = ENOSYS;

	sr_verbose("loading %s as module %s", opt.module, mod->name);
	fd = sr_sealed_copy(mod);
	if (fd >= 0) {
		r = syscall(SYS_finit_module, fd, "", 0);
		err = errno;
		close(fd);
	} else {
		sr_verbose("no sealed memfd (%s): loading from memory", strerror(errno));
	}
	if (r < 0 && (err == ENOSYS || err == ETXTBSY)) {
		r = syscall(SYS_init_module, mod->image, (unsigned long)mod->size, "");
		err = errno;
	}
	if (r < 0)
		sr_load_error(err, mod);
	return r < 0 ? -1 : 0;
}

/* Sleep MS milliseconds, through signals. */
static void sr_sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* Step 7: unload.  A module still in use for a moment is waited for. */
static int sr_unload(const char *name)
{
	int i, err = 0;

	sr_verbose("unloading module %s", name);
	for (i = 0; i < 40; i++) {	/* 40 x 50 ms: about 2 s */
		if (syscall(SYS_delete_module, name, O_NONBLOCK) == 0)
			return 0;
		err = errno;
		if (err != EAGAIN && err != EBUSY && err != EINTR)
			break;
		sr_sleep_ms(50);
	}
	switch (err) {
	case ENOENT:
		sr_warn("module %s was already unloaded by someone else", name);
		return 0;
	case EAGAIN:
	case EBUSY:
		sr_error("module %s is still in use after 2 s and was left loaded; unload it later with `rmmod %s`",
			 name, name);
		break;
	case EPERM:
		sr_error("not permitted to unload module %s (CAP_SYS_MODULE); unload it with `rmmod %s`",
			 name, name);
		break;
	default:
		sr_error("unloading module %s failed: %s; try `rmmod %s`", name,
			 strerror(err), name);
		break;
	}
	return -1;
}

/* Report how a relay pass ended; returns 1 if that is a staprun failure. */
static int sr_relay_failed(enum sr_relay_end end, const struct sr_relay *r,
			   const char *outpath)
{
	switch (end) {
	case SR_RELAY_EOF:
	case SR_RELAY_STOP:
		return 0;
	case SR_RELAY_READ_ERROR:
		sr_error("reading %s: %s", outpath, strerror(r->errnum));
		return 1;
	case SR_RELAY_WRITE_ERROR:
		/* A reader that went away (stap ... | head) is not a failure. */
		if (r->errnum == EPIPE) {
			sr_verbose("the output was closed; stopping the script");
			return 0;
		}
		sr_error("writing the output%s%s: %s", opt.outfile ? " to " : "",
			 opt.outfile ? opt.outfile : "", strerror(r->errnum));
		return 1;
	}
	return 1;
}

/* system() children still running, reaped as they end (never waited for:
 * a command may outlive the script, as with SystemTap). */
#define SR_MAX_SYSTEM 64
static pid_t sr_system_pids[SR_MAX_SYSTEM];

static void sr_reap_system(void)
{
	for (int i = 0; i < SR_MAX_SYSTEM; i++)
		if (sr_system_pids[i] > 0 && waitpid(sr_system_pids[i], NULL, WNOHANG) == sr_system_pids[i])
			sr_system_pids[i] = 0;
}

/* One system() command: /bin/sh -c CMD in the background, as the user who
 * ran staprun (its real ids, should staprun be installed setuid). */
static void sr_system(const char *cmd)
{
	int slot = 0;

	sr_reap_system();
	while (slot < SR_MAX_SYSTEM && sr_system_pids[slot] > 0)
		slot++;
	pid_t pid = fork();
	if (pid < 0) {
		sr_warn("system(): cannot fork for '%s': %s", cmd, strerror(errno));
		return;
	}
	if (pid == 0) {
		sigset_t none;
		int fd = open("/dev/null", O_RDONLY);

		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGCHLD, SIG_DFL);
		signal(SIGALRM, SIG_DFL);
		if (fd >= 0 && fd != STDIN_FILENO) {
			dup2(fd, STDIN_FILENO);
			close(fd);
		}
		if (setgid(getgid()) || setuid(getuid()))
			_exit(127);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		dprintf(STDERR_FILENO, "staprun: WARNING: system(): cannot run /bin/sh: %s\n",
			strerror(errno));
		_exit(127);
	}
	sr_verbose("system(): started process %d: %s", (int)pid, cmd);
	if (slot < SR_MAX_SYSTEM)
		sr_system_pids[slot] = pid;
}

/* -S: the output file being written, its number and size so far. */
static int sr_out_fd = -1;
static long sr_out_index;
static unsigned long long sr_out_bytes;

static int sr_open_output(void)
{
	char *path;
	int fd;

	if (!opt.switch_bytes)
		return open(opt.outfile, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
	if (asprintf(&path, "%s.%ld", opt.outfile, sr_out_index) < 0)
		return -1;
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
	if (fd < 0)
		sr_error("cannot open output file %s: %s", path, strerror(errno));
	free(path);
	return fd;
}

/* Move on to the next output file; past N files, the oldest goes. */
static int sr_switch_output(void)
{
	char *old;
	int fd;

	sr_out_index++;
	fd = sr_open_output();
	if (fd < 0)
		return -1;
	close(sr_out_fd);
	sr_out_fd = fd;
	sr_out_bytes = 0;
	if (opt.switch_keep && sr_out_index >= opt.switch_keep &&
	    asprintf(&old, "%s.%ld", opt.outfile, sr_out_index - opt.switch_keep) >= 0) {
		unlink(old);
		free(old);
	}
	sr_verbose("output now goes to %s.%ld", opt.outfile, sr_out_index);
	return 0;
}

/* The relay's writer with -S: whole chunks, a new file when asked or when
 * this chunk would take the file past SIZE. */
static int sr_write_switching(const void *buf, size_t n)
{
	if ((sr_switch_asked || (sr_out_bytes && sr_out_bytes + n > opt.switch_bytes)) &&
	    sr_switch_output())
		return -1;
	sr_switch_asked = 0;
	sr_out_bytes += n;
	return sr_write_all(sr_out_fd, buf, n);
}

/*
 * input.char and input.line: when the script has /proc/systemtap/NAME/
 * __stdin, a child forwards staprun's standard input there a byte at a
 * time while the script runs (the probe sees each byte as it is typed).
 * -1: no forwarder.
 */
static pid_t sr_start_input(const char *name)
{
	char path[160];
	pid_t pid;

	snprintf(path, sizeof(path), "/proc/systemtap/%s/__stdin", name);
	if (access(path, W_OK))
		return -1;
	pid = fork();
	if (pid < 0) {
		sr_warn("cannot forward standard input to the script: %s", strerror(errno));
		return -1;
	}
	if (pid == 0) {
		int fd = open(path, O_WRONLY | O_CLOEXEC);
		char c;

		signal(SIGINT, SIG_IGN);	/* staprun stops us */
		signal(SIGTERM, SIG_DFL);
		while (fd >= 0 && read(STDIN_FILENO, &c, 1) == 1)
			if (write(fd, &c, 1) != 1)
				break;
		_exit(0);
	}
	sr_verbose("forwarding standard input to %s (process %d)", path, (int)pid);
	return pid;
}

static void sr_stop_input(pid_t pid)
{
	if (pid <= 0)
		return;
	kill(pid, SIGTERM);
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
}

/*
 * -D: split in two before anything is loaded. The foreground staprun
 * waits until the background one has started the script, says where it
 * runs and exits 0; if it never starts, the foreground exits as the
 * background one did, its errors already on the terminal.
 */
static void sr_background(const char *name)
{
	int p[2];
	pid_t pid;
	char c;

	if (pipe2(p, O_CLOEXEC) < 0 || (pid = fork()) < 0) {
		sr_error("cannot go to the background: %s", strerror(errno));
		exit(1);
	}
	if (pid == 0) {
		close(p[0]);
		setsid();
		sr_started_fd = p[1];
		return;
	}
	close(p[1]);
	if (read(p[0], &c, 1) == 1) {
		if (opt.outfile)
			printf("staprun: the script runs in the background as process %d, its output in %s; `kill %d` stops it\n",
			       (int)pid, opt.outfile, (int)pid);
		else
			printf("staprun: the script runs in the background as process %d, its last %llu MiB of output kept in memory; `staprun -A %s` shows it, `kill %d` stops it\n",
			       (int)pid, (opt.switch_bytes ? opt.switch_bytes : SR_RECORDER_DEFAULT) >> 20,
			       name, (int)pid);
		exit(0);
	}
	int status;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	exit(WIFEXITED(status) ? WEXITSTATUS(status) : 1);
}

/* -D: the script started; the terminal is let go of. Messages from now
 * on (runtime errors, warnings) go to the output file, after what the
 * script printed so far, as one stream. */
static void sr_background_started(int dst_fd)
{
	int null;

	if (sr_started_fd < 0)
		return;
	null = open("/dev/null", O_RDWR);
	if (null >= 0) {
		dup2(null, STDIN_FILENO);
		dup2(null, STDOUT_FILENO);
		close(null);
	}
	dup2(dst_fd, STDERR_FILENO);
	if (write(sr_started_fd, "", 1) < 0) {
		/* the foreground went away: nothing to tell */
	}
	close(sr_started_fd);
	sr_started_fd = -1;
}

/* The cookie of the module's user-stack records, from its ctl. */
static uint64_t sr_ustack_cookie(const char *name)
{
	struct sr_status st;
	char err[SR_ERR_MAX];
	const char *line;
	uint64_t cookie = 0;

	if (sr_ctl_read(name, &st, err, sizeof(err)))
		return 0;
	line = strstr(st.text, "\nustack_cookie ");
	if (line)
		cookie = strtoull(line + 15, NULL, 16);
	sr_status_free(&st);
	return cookie;
}

/*
 * A script that keeps user stacks as array keys: its probes stop first,
 * and every sample is unwound and its alias sent, so that the end probes
 * walk arrays folded by stack (doc/ustack.md).
 */
static int sr_quiesce(const char *name, struct sr_relay *relay, const char *outpath)
{
	char err[SR_ERR_MAX];
	enum sr_relay_end end;

	if (sr_ctl_write(name, "quiesce", err, sizeof(err)))
		return 0; /* stop does it all */
	end = sr_relay_run(relay, sr_stop_draining);
	sr_relay_release(relay);
	sr_ustacks_final(relay->ustacks);
	return sr_relay_failed(end, relay, outpath);
}

/*
 * Steps 2 to 6, between load and unload.  Returns the exit status: the
 * script's, or 1 when something here failed.
 */
static int sr_run(const char *name, int dst_fd)
{
	struct sr_relay relay = { .out_fd = -1, .cmd_fd = -1, .raw_fd = -1, .dst_fd = dst_fd,
				  .system = sr_system,
				  .write = opt.outfile && opt.switch_bytes ? sr_write_switching : NULL };
	char outpath[128], cmdpath[128], err[SR_ERR_MAX], cmd[32];
	struct sr_status st;
	enum sr_relay_end end;
	int failed = 0, start_errno = 0, gofd = -1, nerr;
	pid_t input = -1;
	int rc;

	snprintf(outpath, sizeof(outpath), SR_PROC_DIR "/tapline_%s/out", name);
	relay.out_fd = open(outpath, O_RDONLY | O_CLOEXEC);
	if (relay.out_fd < 0) {
		sr_error("the module loaded, but %s cannot be opened: %s (is /proc mounted? is %s a Tapline module?)",
			 outpath, strerror(errno), opt.module);
		return 1;
	}
	/* The module's output before user stacks are taken out of it, for
	 * replaying them (bench/ustack) and for bug reports. */
	if (getenv("TAPLINE_RAW_OUTPUT"))
		relay.raw_fd = open(getenv("TAPLINE_RAW_OUTPUT"),
				    O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
	/* Kernel source lines are tokens in the output as user stacks are. */
	if (sr_ustack_mode[0] || sr_klines.nrows) {
		relay.ustacks = sr_ustacks_new(sr_ustack_mode[0] ? sr_ustack_mode : "print", name);
		if (!relay.ustacks) {
			sr_error("no memory to unwind user stacks");
			close(relay.out_fd);
			return 1;
		}
		if (sr_klines.nrows)
			sr_ustacks_set_klines(relay.ustacks, &sr_klines);
	}
	/* system() commands; a module without the file has none to give. */
	snprintf(cmdpath, sizeof(cmdpath), SR_PROC_DIR "/tapline_%s/cmd", name);
	relay.cmd_fd = open(cmdpath, O_RDONLY | O_CLOEXEC);
	if (opt.cmd) {
		gofd = sr_fork_child(opt.cmd);
		if (gofd < 0) {
			close(relay.out_fd);
			if (relay.cmd_fd >= 0)
				close(relay.cmd_fd);
			return 1;
		}
		opt.target = sr_child;
		sr_guardian_child(sr_guardian, (int)sr_child);
	}
	if (opt.target) {
		/* With -c, the command's descendants are targets too. */
		snprintf(cmd, sizeof(cmd), "target %d %d", (int)opt.target, opt.cmd != NULL);
		sr_verbose("setting the target process to %d", (int)opt.target);
		if (sr_ctl_write(name, cmd, err, sizeof(err))) {
			sr_error("cannot set the target process: %s", err);
			goto not_started;
		}
	}
	if (sr_signals) {
		sr_verbose("interrupted before the script started");
		goto not_started;
	}

	sr_verbose("starting the script");
	if (sr_ctl_write(name, "start", err, sizeof(err))) {
		/* ctl says why; its error lines are printed after the stop. */
		start_errno = errno;
		failed = 1;
		sr_release_child(gofd, 0);
	} else {
		sr_release_child(gofd, 1);
		if (relay.ustacks)
			sr_ustacks_set_cookie(relay.ustacks, sr_ustack_cookie(name));
		sr_background_started(dst_fd);
		input = sr_start_input(name);
		end = sr_relay_run(&relay, sr_stop_running);
		if (end == SR_RELAY_EOF)
			sr_verbose("the script ended");
		else if (end == SR_RELAY_STOP)
			sr_verbose("stopping the script (%s)",
				   sr_signals ? "interrupted" : "-c command exited");
		failed |= sr_relay_failed(end, &relay, outpath);
	}

	/*
	 * After start (even a failed one: begin probes may have printed,
	 * and end probes still run), stop and drain whatever is buffered.
	 */
	alarm(0);
	sr_stop_input(input);
	sr_signals_at_stop = sr_signals;
	sr_verbose("stopping");
	if (relay.ustacks && sr_quiesce(name, &relay, outpath))
		failed = 1;
	if (sr_ctl_write(name, "stop", err, sizeof(err))) {
		/* Unloading stops the script too; draining now could block. */
		sr_error("%s", err);
		failed = 1;
	} else {
		end = sr_relay_run(&relay, sr_stop_draining);
		if (end == SR_RELAY_STOP)
			sr_warn("interrupted again: the rest of the output was discarded");
		failed |= sr_relay_failed(end, &relay, outpath);
	}
	close(relay.out_fd);
	if (relay.raw_fd >= 0)
		close(relay.raw_fd);
	if (relay.ustacks) {
		unsigned long long samples, stacks;

		sr_ustacks_counts(relay.ustacks, &samples, &stacks);
		sr_verbose("user stacks: %llu samples unwound, %llu distinct stacks", samples, stacks);
	}
	sr_ustacks_free(relay.ustacks);
	relay.ustacks = NULL;
	lt_close(&sr_klines);
	/* The end probes' system() commands. */
	sr_relay_commands(&relay);
	if (relay.cmd_fd >= 0)
		close(relay.cmd_fd);
	sr_verbose("relayed %llu bytes of output", relay.bytes);

	if (sr_ctl_read(name, &st, err, sizeof(err))) {
		sr_error("cannot read the script's status: %s", err);
		return 1;
	}
	nerr = sr_status_report(&st);
	if (start_errno && nerr == 0)
		sr_error("the script failed to start: %s", strerror(start_errno));
	if (st.exit_status < 0) {
		sr_warn("the module's ctl gave no exit_status");
		rc = nerr ? 1 : 0;
	} else {
		rc = st.exit_status ? 1 : 0;
	}
	if (sr_report_child())
		rc = 1;
	sr_verbose("script state %s, exit status %d",
		   st.state[0] ? st.state : "(not given)", rc);
	sr_status_free(&st);
	return failed ? 1 : rc;

not_started:
	/* Never started, but said so: closing out without stop would look
	 * like staprun had died. */
	sr_release_child(gofd, 0);
	sr_ctl_write(name, "stop", err, sizeof(err));
	close(relay.out_fd);
	if (relay.raw_fd >= 0)
		close(relay.raw_fd);
	sr_ustacks_free(relay.ustacks);
	if (relay.cmd_fd >= 0)
		close(relay.cmd_fd);
	return 1;
}

/*
 * stdin, stdout or stderr closed by whoever started staprun: /dev/null
 * there instead, so that no file staprun opens (the module, a pipe to the
 * guardian) lands on them and is written to as output or closed as stdio.
 */
static void sr_stdio_open(void)
{
	int fd;

	for (fd = 0; fd <= 2; fd++)
		if (fcntl(fd, F_GETFD) < 0 && open("/dev/null", fd ? O_WRONLY : O_RDONLY) != fd)
			_exit(1);
}

/*
 * Loading kernel modules takes CAP_SYS_MODULE, and so does attaching to a
 * running one (its control files ask for it): checked before anything
 * else, so that nobody else learns anything from staprun (or gets it to
 * open files) by running it.
 */
static int sr_check_privilege(void)
{
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];

	memset(data, 0, sizeof(data));
	if (syscall(SYS_capget, &hdr, data) == 0 &&
	    (data[CAP_SYS_MODULE / 32].effective & (1u << (CAP_SYS_MODULE % 32))))
		return 0;
	if (opt.attach)
		sr_error("attaching to a running Tapline module (-A %s) takes CAP_SYS_MODULE, as "
			 "loading one does: run staprun as root", opt.attach);
	else
		sr_error("loading a Tapline module takes CAP_SYS_MODULE: run staprun as root");
	return -1;
}

/*
 * What earlier runs left behind: a module whose staprun and guardian both
 * died (kill -9 of both, the OOM killer) was stopped by the kernel (ctl
 * says orphaned and stopped) but stays loaded, its memory held, until
 * someone unloads it. Each staprun unloads every such module it finds
 * before it loads its own, whatever their names: this one's, if it is
 * one of them, and any other script's.
 */
static void sr_unload_orphans(void)
{
	char err[SR_ERR_MAX];
	struct sr_status st;
	struct dirent *e;
	DIR *d = opendir(SR_PROC_DIR);

	if (!d)
		return;
	while ((e = readdir(d))) {
		const char *name = e->d_name + 8;
		int orphan;

		if (strncmp(e->d_name, "tapline_", 8) || !*name || strlen(name) > SR_NAME_MAX ||
		    sr_ctl_read(name, &st, err, sizeof(err)))
			continue;
		orphan = st.orphaned && !strcmp(st.state, "stopped");
		sr_status_free(&st);
		if (orphan && syscall(SYS_delete_module, name, O_NONBLOCK) == 0)
			sr_warn("unloaded module %s, left behind stopped by an earlier staprun that died",
				name);
	}
	closedir(d);
}

int main(int argc, char **argv)
{
	char name[SR_NAME_MAX + 1];
	struct sr_module mod;
	int dst_fd = STDOUT_FILENO;
	int rc;

	sr_stdio_open();
	sr_parse_options(argc, argv);
	if (sr_check_privilege())
		return 1;
	if (opt.attach)
		return sr_attach(opt.attach);
	if (sr_check_module(&mod, name))
		return 1;
	rc = sr_check_build_id(&mod.mi);
	if (!rc)
		rc = sr_check_module_build_ids(&mod.mi);
	if (rc)
		return 1;
	if (opt.outfile) {
		dst_fd = sr_out_fd = sr_open_output();
		if (dst_fd < 0) {
			sr_error("cannot open output file %s: %s", opt.outfile,
				 strerror(errno));
			return 1;
		}
	}
	if (opt.background)
		sr_background(name);
	if (opt.background && !opt.outfile) {
		dst_fd = sr_recorder_start(name, opt.switch_bytes ? opt.switch_bytes : SR_RECORDER_DEFAULT,
					   &sr_keeper);
		if (dst_fd < 0) {
			sr_error("cannot keep the output in memory (%s): %s", "/run/tapline",
				 strerror(errno));
			return 1;
		}
	}
	/* Before the load, so that Ctrl-C during it still unloads. */
	sr_install_signals();
	sr_unload_orphans();
	rc = sr_load(&mod);
	sr_module_free(&mod);
	if (rc)
		return 1;
	sr_guardian = sr_guardian_start(name);
	if (sr_guardian < 0)
		sr_warn("cannot start the guardian process (%s): if staprun is killed, unload module %s with `rmmod %s`",
			strerror(errno), name, name);
	rc = sr_run(name, dst_fd);
	if (sr_unload(name))
		rc = 1;
	sr_guardian_done(sr_guardian);
	if (sr_keeper > 0)
		sr_recorder_done(name, dst_fd, sr_keeper);
	if (opt.outfile && close(opt.switch_bytes ? sr_out_fd : dst_fd) < 0) {
		sr_error("writing the output to %s: %s", opt.outfile,
			 strerror(errno));
		rc = 1;
	}
	return rc;
}
