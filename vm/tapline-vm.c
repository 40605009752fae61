// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tapline-vm: run shell commands in a throwaway qemu guest booting the
 * installed kernel; the command-line face of run/vm.c, for people and for
 * the test suite's scripts. One job is streamed (its output appears as it
 * runs, Ctrl-C reaches it); with --outdir, a batch of jobs runs in one boot
 * and each leaves NAME.out, NAME.err, NAME.dmesg, NAME.status (and
 * NAME.trouble when the kernel complained) in the directory.
 */
#include "vm.h"
#include "util.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void usage(FILE *f)
{
	fputs("usage: tapline-vm [OPTION]... NAME=COMMAND...\n"
	      "Run each COMMAND with busybox sh in a qemu guest booting /boot/vmlinuz-RELEASE.\n"
	      "\n"
	      "  -r, --release RELEASE   kernel to boot (default: the newest installed)\n"
	      "  -t, --timeout SECONDS   stop the guest after this long (default: no limit)\n"
	      "  -j, --job-timeout SECONDS  kill each job after this long\n"
	      "  -f, --file HOST[:GUEST] copy a file into the guest (default GUEST: /m/BASENAME;\n"
	      "                          a GUEST ending in / is a directory)\n"
	      "  -s, --symlink GUEST=TARGET  make GUEST a symbolic link to TARGET in the guest\n"
	      "  -k, --keep DIR          work in DIR and leave it (initramfs, console log, qemu.sh)\n"
	      "  -a, --append ARGS       add ARGS to the kernel command line\n"
	      "  -m, --memory MB         guest memory (default 512)\n"
	      "  -c, --cpus N            guest CPUs (default 2)\n"
	      "      --icount            deterministic guest time (-icount shift=0), for benchmarks\n"
	      "      --fast-boot         boot the decompressed kernel via PVH: ~3 s faster, no KASLR\n"
	      "      --tcg-single        single-threaded TCG: both CPUs on one host thread (stops\n"
	      "                          under load; qemu's default mode can trip the guest's ftrace)\n"
	      "      --outdir DIR        run a batch; write DIR/NAME.{out,err,dmesg,status,trouble}\n"
	      "      --check             only check that a guest can be booted\n"
	      "  -v, --verbose           say what happens, with timings\n"
	      "\n"
	      "Without --outdir there must be one job: its output is streamed, SIGINT and\n"
	      "SIGTERM are forwarded to it, and the exit status is the job's, or 1 after a\n"
	      "timeout or when the kernel log shows trouble (BUG, Oops, WARNING, ...).\n"
	      "With --outdir, NAME.status holds the exit status, or \"timeout\", \"died\" (the\n"
	      "guest stopped during the job) or \"skipped\" (it never got to it); the exit\n"
	      "status is 0 if the guest ran every job.\n",
	      f);
}

static int number(const char *opt, const char *s)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < 0 || v > 1000000)
		fatal("%s wants a number from 0 to 1000000, not '%s'", opt, s);
	return (int)v;
}

/* -f HOST[:GUEST] -> a vm_file. GUEST must be absolute, so "a:b" without "/" is a host name. */
static struct vm_file parse_file(const char *arg)
{
	struct vm_file f = { 0 };
	const char *colon = strstr(arg, ":/");
	char *host, *guest;

	while (colon && strstr(colon + 1, ":/"))
		colon = strstr(colon + 1, ":/");
	host = colon ? xstrndup(arg, (size_t)(colon - arg)) : xstrdup(arg);
	if (!*host)
		fatal("-f wants HOST[:GUEST], not '%s'", arg);
	const char *slash = strrchr(host, '/');
	const char *base = slash ? slash + 1 : host;

	if (!*base)
		fatal("-f %s: name a file, not a directory", arg);
	if (!colon)
		guest = xasprintf("/m/%s", base);
	else if (colon[strlen(colon) - 1] == '/')
		guest = xasprintf("%s%s", colon + 1, base);
	else
		guest = xstrdup(colon + 1);
	f.host_path = host;
	f.guest_path = guest;
	return f;
}

static bool good_name(const char *s, size_t n)
{
	if (!n || s[0] == '.')
		return false;
	for (size_t i = 0; i < n; i++)
		if (!strchr("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.+-", s[i]))
			return false;
	return true;
}

static struct vm_job parse_job(const char *arg, int timeout_s)
{
	const char *eq = strchr(arg, '=');
	struct vm_job j = { 0 };

	if (!eq || !good_name(arg, (size_t)(eq - arg)))
		fatal("a job is NAME=COMMAND with NAME made of letters, digits, '_', '.', '+', '-': '%s'",
		      arg);
	j.name = xstrndup(arg, (size_t)(eq - arg));
	j.command = eq + 1;
	j.timeout_s = timeout_s;
	return j;
}

static void put(const char *dir, const char *name, const char *ext, const char *data, size_t len)
{
	char *p = xasprintf("%s/%s.%s", dir, name, ext);

	if (!write_file(p, data ? data : "", data ? len : 0))
		fatal("cannot write %s: %s", p, strerror(errno));
	free(p);
}

static int run_batch(const struct vm_config *cfg, const struct vm_job *jobs, size_t njobs,
		     const char *outdir)
{
	struct vm_result *res = xcalloc(njobs, sizeof(*res));
	int rc;

	if (!mkdir_p(outdir, 0755))
		fatal("cannot create %s: %s", outdir, strerror(errno));
	rc = vm_run_batch(cfg, jobs, njobs, res);
	for (size_t i = 0; i < njobs; i++) {
		const struct vm_result *r = &res[i];
		char *status;

		if (r->status >= 0)
			status = xasprintf("%d\n", r->status);
		else
			status = xstrdup(r->timed_out ? "timeout\n" : r->started ? "died\n" : "skipped\n");
		put(outdir, jobs[i].name, "out", r->out, r->out_len);
		put(outdir, jobs[i].name, "err", r->err, r->err_len);
		put(outdir, jobs[i].name, "dmesg", r->kernel_log,
		    r->kernel_log ? strlen(r->kernel_log) : 0);
		put(outdir, jobs[i].name, "status", status, strlen(status));
		free(status);

		char *tp = xasprintf("%s/%s.trouble", outdir, jobs[i].name);

		/* A trouble file left by an earlier run must not accuse this one. */
		unlink(tp);
		free(tp);
		if (r->trouble) {
			char *t = xasprintf("%s\n", r->trouble);

			put(outdir, jobs[i].name, "trouble", t, strlen(t));
			free(t);
		}
		vm_result_free(&res[i]);
	}
	free(res);
	return rc == 0 ? 0 : 1;
}

static int run_stream(const struct vm_config *cfg, const struct vm_job *job)
{
	struct vm_result res;
	int status = vm_run_stream(cfg, job, 1, 2, &res);

	if (res.trouble) {
		fprintf(stderr, "tapline-vm: the kernel log shows trouble: %s\n", res.trouble);
		fputs(res.kernel_log, stderr);
		status = 1;
	} else if (status < 0) {
		status = 1;
	}
	vm_result_free(&res);
	return status;
}

int main(int argc, char **argv)
{
	enum { OPT_ICOUNT = 256, OPT_FAST, OPT_OUTDIR, OPT_CHECK, OPT_TCG_SINGLE };
	static const struct option longopts[] = {
		{ "release", required_argument, NULL, 'r' },
		{ "timeout", required_argument, NULL, 't' },
		{ "job-timeout", required_argument, NULL, 'j' },
		{ "file", required_argument, NULL, 'f' },
		{ "symlink", required_argument, NULL, 's' },
		{ "keep", required_argument, NULL, 'k' },
		{ "append", required_argument, NULL, 'a' },
		{ "memory", required_argument, NULL, 'm' },
		{ "cpus", required_argument, NULL, 'c' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "icount", no_argument, NULL, OPT_ICOUNT },
		{ "fast-boot", no_argument, NULL, OPT_FAST },
		{ "tcg-single", no_argument, NULL, OPT_TCG_SINGLE },
		{ "outdir", required_argument, NULL, OPT_OUTDIR },
		{ "check", no_argument, NULL, OPT_CHECK },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct vm_config cfg = { 0 };
	struct vm_file *files = NULL;
	struct vm_job *jobs;
	const char *outdir = NULL;
	int job_timeout = 0, opt, rc;
	bool check = false;
	size_t njobs;

	util_set_progname("tapline-vm");
	/* '+': stop at the first job, whose command may well contain dashes. */
	while ((opt = getopt_long(argc, argv, "+r:t:j:f:s:k:a:m:c:vh", longopts, NULL)) != -1) {
		switch (opt) {
		case 'r':
			cfg.release = optarg;
			break;
		case 't':
			cfg.timeout_s = number("-t", optarg);
			break;
		case 'j':
			job_timeout = number("-j", optarg);
			break;
		case 'f':
			files = xrealloc(files, (cfg.nfiles + 1) * sizeof(*files));
			files[cfg.nfiles++] = parse_file(optarg);
			break;
		case 's': {
			const char *eq = strchr(optarg, '=');
			if (!eq || optarg[0] != '/' || !eq[1])
				fatal("-s wants GUEST=TARGET with an absolute GUEST, not '%s'", optarg);
			files = xrealloc(files, (cfg.nfiles + 1) * sizeof(*files));
			files[cfg.nfiles++] = (struct vm_file){ .guest_path = xstrndup(optarg, (size_t)(eq - optarg)),
								.link_target = eq + 1 };
			break;
		}
		case 'k':
			cfg.keep_dir = optarg;
			break;
		case 'a':
			cfg.kernel_args = optarg;
			break;
		case 'm':
			cfg.memory_mb = number("-m", optarg);
			break;
		case 'c':
			cfg.cpus = number("-c", optarg);
			break;
		case 'v':
			cfg.verbose = true;
			break;
		case OPT_ICOUNT:
			cfg.icount = true;
			break;
		case OPT_FAST:
			cfg.fast_boot = true;
			break;
		case OPT_TCG_SINGLE:
			cfg.tcg_single = true;
			break;
		case OPT_OUTDIR:
			outdir = optarg;
			break;
		case OPT_CHECK:
			check = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	cfg.files = files;
	if (check)
		return vm_available(cfg.release, true) ? 0 : 1;

	njobs = (size_t)(argc - optind);
	if (!njobs || (!outdir && njobs != 1)) {
		fprintf(stderr, "tapline-vm: %s\n",
			njobs ? "more than one job needs --outdir" : "no job given");
		usage(stderr);
		return 2;
	}
	jobs = xcalloc(njobs, sizeof(*jobs));
	for (size_t i = 0; i < njobs; i++) {
		jobs[i] = parse_job(argv[optind + (int)i], job_timeout);
		for (size_t k = 0; k < i; k++)
			if (!strcmp(jobs[k].name, jobs[i].name))
				fatal("two jobs are named %s", jobs[i].name);
	}

	rc = outdir ? run_batch(&cfg, jobs, njobs, outdir) : run_stream(&cfg, &jobs[0]);

	for (size_t i = 0; i < njobs; i++)
		free((char *)jobs[i].name);
	free(jobs);
	for (size_t i = 0; i < cfg.nfiles; i++) {
		free((char *)files[i].host_path);
		free((char *)files[i].guest_path);
	}
	free(files);
	return rc;
}
