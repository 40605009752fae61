// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Pass 5. Locally, stap runs staprun on the module and waits (staprun and
 * stap both see a Ctrl-C; staprun stops the script, stap waits for it).
 * With --vm, the module and a static staprun go into a guest booting the
 * target kernel; the script's output streams back, and the guest's kernel
 * log is checked for trouble before the run counts as a success.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "debuginfo/kernel.h"
#include "run/run.h"
#include "run/guestmods.h"
#include "debuginfo/userelf.h"
#include "vm/vm.h"
#include "util.h"

static void add_arg(struct ptrvec *argv, const char *a)
{
	pv_push(argv, (void *)a);
}

/* staprun's arguments other than the module. */
static void staprun_args(const struct session *s, struct ptrvec *argv, bool for_vm)
{
	if (s->verbose > 1)
		add_arg(argv, "-v");
	if (s->output_file && !for_vm) {
		add_arg(argv, "-o");
		add_arg(argv, s->output_file);
	}
	/* -S: the output files' size, or (-F without -o) the memory kept. */
	if (s->output_switch && (s->output_file || s->background) && !for_vm) {
		add_arg(argv, "-S");
		add_arg(argv, s->output_switch);
	}
	if (s->background && !for_vm)
		add_arg(argv, "-D");
	if (s->target_cmd) {
		add_arg(argv, "-c");
		/* The guest has one channel for stdout, which -o sends to the
		 * file: the command's own output goes to stderr instead, so
		 * that the file holds the script's alone, as on the host. */
		add_arg(argv, for_vm && s->output_file ? xasprintf("exec >&2; %s", s->target_cmd)
							: s->target_cmd);
	}
	if (s->target_pid) {
		add_arg(argv, "-x");
		add_arg(argv, xasprintf("%ld", s->target_pid));
	}
}

/* --vm-file's HOST[:GUEST]: the host file's absolute path and where it
 * goes (malloced); false after saying what is wrong. */
static bool vm_file_spec(const char *spec, char **host, char **guest)
{
	char *copy = xstrdup(spec), *colon = strchr(copy, ':');
	if (colon)
		*colon = 0;
	const char *want = colon && colon[1] ? colon + 1 : NULL;
	char *abs = copy[0] == '/' ? xstrdup(copy) : realpath(copy, NULL);
	bool ok = false;
	if (want && want[0] != '/')
		fprintf(stderr, "stap: --vm-file: the guest path must be absolute: %s\n", want);
	else if (!abs || !file_exists(abs))
		fprintf(stderr, "stap: --vm-file: cannot read %s\n", copy);
	else
		ok = true;
	if (ok) {
		*host = abs;
		*guest = xstrdup(want ? want : abs);
	} else {
		free(abs);
	}
	free(copy);
	return ok;
}

/*
 * The user files the script probes or names, with what it takes to run
 * them (ldd's list and the dynamic linker), into the guest at the paths
 * the host has them, the names the dynamic linker opens as links to
 * them: a guest has nothing but busybox. A file the guest runs as its
 * busybox is that one, linked (a probe on /usr/bin/busybox must fire in
 * the /bin/busybox the guest runs, the same file on the host).
 */
static void add_user_files(struct session *s, struct vm_file **files, size_t *nf, size_t *cap,
			   struct ptrvec *owned)
{
	struct ptrvec asked = { 0 }, real = { 0 };
	for (size_t i = 0; i < s->prog.user_objects.n; i++)
		user_runtime_files(s->prog.user_objects.v[i], &asked, &real);
	/* Programs whose processes are watched (process("PATH").begin, a
	 * perf counter's), which have no uprobe. */
	for (size_t i = 0; i < s->prog.probes.n; i++) {
		const struct probe *p = s->prog.probes.v[i];
		char *why = NULL;
		const struct user_elf *u = p->user_file ? user_elf_open(p->user_file, &why) : NULL;
		if (u && !pv_has_string(&real, u->path))
			user_runtime_files(u, &asked, &real);
		free(why);
	}
	char *busybox = vm_busybox();
	struct ptrvec placed = { 0 };
	for (size_t i = 0; i < asked.n; i++) {
		const char *a = asked.v[i], *r = real.v[i];
		if (*nf + 2 > *cap) {
			*cap = *cap * 2 + 8;
			*files = xrealloc(*files, *cap * sizeof **files);
		}
		bool is_busybox = busybox && !strcmp(r, busybox);
		if (!is_busybox && !pv_has_string(&placed, r)) {
			pv_push(&placed, xstrdup(r));
			(*files)[(*nf)++] = (struct vm_file){ .host_path = r, .guest_path = r };
		}
		const char *target = is_busybox ? "/bin/busybox" : r;
		if (strcmp(a, target) && strcmp(a, "/bin/busybox") && !pv_has_string(&placed, a)) {
			pv_push(&placed, xstrdup(a));
			(*files)[(*nf)++] = (struct vm_file){ .guest_path = a, .link_target = target };
		}
		if (is_busybox && strcmp(r, "/bin/busybox") && !pv_has_string(&placed, r)) {
			pv_push(&placed, xstrdup(r));
			(*files)[(*nf)++] = (struct vm_file){ .guest_path = r,
							      .link_target = "/bin/busybox" };
		}
	}
	/* The vm_file entries point into these. */
	for (size_t i = 0; i < asked.n; i++) {
		pv_push(owned, asked.v[i]);
		pv_push(owned, real.v[i]);
	}
	free(asked.v);
	free(real.v);
	pv_free_all(&placed);
	free(busybox);
}

static int run_in_vm(struct session *s)
{
	if (!vm_available(s->release, true))
		return 1;
	char *guest_ko = xasprintf("/m/%s.ko", s->module_name);
	struct guest_mods mods = { 0 };
	char *why;
	/* --vm-net: the NIC's driver, and the PCI transport where it is a
	 * module (6.1; 6.12 builds it in). */
	if (s->vm_net) {
		if (guest_mod_exists(s->release, "virtio_pci"))
			pv_push(&s->vm_modules, "virtio_pci");
		pv_push(&s->vm_modules, "virtio_net");
	}
	if (!guest_mods_resolve(&mods, s->release, &s->vm_modules, &why)) {
		fprintf(stderr, "stap: --vm-module: %s\n", why);
		free(why);
		guest_mods_free(&mods);
		free(guest_ko);
		return 1;
	}
	size_t nfiles = 2 + s->vm_files.n + mods.host_paths.n;
	struct vm_file *files = xcalloc(nfiles, sizeof *files);
	files[0] = (struct vm_file){ .host_path = s->staprun_path, .guest_path = "/bin/staprun",
				     .mode = 0755 };
	files[1] = (struct vm_file){ .host_path = s->ko_file, .guest_path = guest_ko, .mode = 0644 };
	size_t nf = 2;
	/* --vm-file=HOST[:GUEST]: at the same path unless told. */
	struct ptrvec owned = { 0 };
	for (size_t i = 0; i < s->vm_files.n; i++) {
		char *host, *guest;
		if (!vm_file_spec(s->vm_files.v[i], &host, &guest)) {
			pv_free_all(&owned);
			free(files);
			guest_mods_free(&mods);
			free(guest_ko);
			return 1;
		}
		pv_push(&owned, host);
		pv_push(&owned, guest);
		files[nf++] = (struct vm_file){ .host_path = host, .guest_path = guest };
	}
	for (size_t i = 0; i < mods.host_paths.n; i++)
		files[nf++] = (struct vm_file){ .host_path = mods.host_paths.v[i],
						.guest_path = mods.guest_paths.v[i], .mode = 0644 };
	add_user_files(s, &files, &nf, &nfiles, &owned);
	struct ptrvec argv = { 0 };
	add_arg(&argv, "staprun");
	staprun_args(s, &argv, true);
	add_arg(&argv, guest_ko);
	struct strbuf cmd;
	sb_init(&cmd);
	/* The --vm-module modules first, in order; one that does not load
	 * ends the job before the script. */
	for (size_t i = 0; i < mods.guest_paths.n; i++)
		sb_printf(&cmd, "insmod %s || { echo \"stap: --vm-module: cannot load %s\" >&2; exit 1; }; ",
			  (char *)mods.guest_paths.v[i], (char *)mods.names.v[i]);
	/* qemu's user network: the guest is 10.0.2.15, the host 10.0.2.2. */
	if (s->vm_net)
		sb_puts(&cmd, "ip link set lo up; ip link set eth0 up && ip addr add 10.0.2.15/24 dev eth0 "
			      "&& ip route add default via 10.0.2.2 || { echo \"stap: --vm-net: no network "
			      "in the guest\" >&2; exit 1; }; ");
	/* A -c command names programs as it would on the host: from the
	 * directory stap runs in, where the guest has them if it exists. */
	char *cwd = getcwd(NULL, 0);
	if (cwd) {
		char *q = vm_shell_quote(cwd);
		sb_printf(&cmd, "cd %s 2>/dev/null; ", q);
		free(q);
		free(cwd);
	}
	/* exec: a forwarded signal then reaches staprun alone, and the job's
	 * status is staprun's, not that of a shell the signal killed. */
	sb_puts(&cmd, "exec ");
	for (size_t i = 0; i < argv.n; i++) {
		char *q = vm_shell_quote(argv.v[i]);
		sb_printf(&cmd, "%s%s", i ? " " : "", q);
		free(q);
	}
	int out_fd = 1;
	if (s->output_file) {
		out_fd = open(s->output_file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (out_fd < 0) {
			fprintf(stderr, "stap: cannot write %s: %s\n", s->output_file, strerror(errno));
			return 1;
		}
	}
	struct vm_config cfg = {
		.release = s->release,
		.files = files,
		.nfiles = nf,
		.timeout_s = s->vm_timeout,
		/* Boots in about a third of the time (no in-guest decompression);
		 * the guest kernel then runs without KASLR. */
		.fast_boot = true,
		/* qemu's multi-threaded TCG trips some kernels (6.12 panicked
		 * booting, and oopses where code is patched at scale): the
		 * guest on one host thread, as testsuite/run-tests boots those. */
		.tcg_single = true,
		.net_forward = s->vm_net,
		.verbose = s->verbose > 0,
		.keep_dir = NULL,
	};
	struct vm_job job = { .name = s->module_name, .command = cmd.s };
	struct vm_result res = { 0 };
	/* A closed output is an error to report, not a signal to die of. */
	signal(SIGPIPE, SIG_IGN);
	int status = vm_run_stream(&cfg, &job, out_fd, 2, &res);
	if (out_fd != 1)
		close(out_fd);
	/* A reader that went away (stap --vm ... | head) is not a failure. */
	if (res.out_errno && res.out_errno != EPIPE) {
		fprintf(stderr, "stap: cannot write the script's output%s%s: %s\n",
			s->output_file ? " to " : "", s->output_file ? s->output_file : "",
			strerror(res.out_errno));
		status = 1;
	}
	if (res.trouble) {
		fprintf(stderr, "stap: the guest kernel reported trouble: %s\n", res.trouble);
		fprintf(stderr, "stap: guest kernel log:\n%s", res.kernel_log ? res.kernel_log : "");
		status = 1;
	} else if (res.timed_out) {
		fprintf(stderr, "stap: the guest was stopped after %d s (--vm-timeout)\n",
			s->vm_timeout);
		status = 1;
	} else if (status < 0) {
		fprintf(stderr, "stap: the guest did not finish running the script\n");
		if (res.kernel_log && *res.kernel_log)
			fprintf(stderr, "stap: guest kernel log:\n%s", res.kernel_log);
		status = 1;
	}
	vm_result_free(&res);
	sb_free(&cmd);
	pv_free(&argv);
	pv_free_all(&owned);
	free(files);
	guest_mods_free(&mods);
	free(guest_ko);
	return status;
}

bool run_possible(const struct session *s)
{
	if (s->last_pass < 5 || s->vm)
		return true;
	if (!file_exists("/proc/modules")) {
		fprintf(stderr,
			"stap: this kernel cannot load modules (no /proc/modules); run the script "
			"in a guest with --vm\n");
		return false;
	}
	if (geteuid() != 0) {
		fprintf(stderr, "stap: loading a kernel module needs root; run stap as root, or "
				"use --vm\n");
		return false;
	}
	return true;
}

static int run_local(struct session *s)
{
	const char *running = kernel_running_release();
	if (strcmp(s->release, running) != 0) {
		fprintf(stderr,
			"stap: the module is built for kernel %s, but this machine runs %s; run it "
			"in a guest with --vm, or build for this kernel with -r %s\n",
			s->release, running, running);
		return 1;
	}
	struct ptrvec argv = { 0 };
	add_arg(&argv, s->staprun_path);
	staprun_args(s, &argv, false);
	add_arg(&argv, s->ko_file);
	add_arg(&argv, NULL);
	/* staprun handles Ctrl-C (it runs the end probes); stap just waits. */
	signal(SIGINT, SIG_IGN);
	signal(SIGTERM, SIG_IGN);
	pid_t parent = getpid();
	pid_t pid = fork();
	if (pid == 0) {
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		/* stap killed outright: staprun stops the script as for SIGTERM
		 * (end probes, unload) rather than run on unattended. */
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		if (getppid() != parent)
			_exit(1);
		execv(s->staprun_path, (char *const *)argv.v);
		fprintf(stderr, "stap: cannot run %s: %s\n", s->staprun_path, strerror(errno));
		_exit(127);
	}
	int st = 0;
	while (pid > 0 && waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	pv_free(&argv);
	if (pid < 0)
		return 1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
}

int run_module(struct session *s)
{
	return s->vm ? run_in_vm(s) : run_local(s);
}
