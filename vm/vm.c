// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The guest runner; see vm.h. One run is one qemu boot:
 *
 *   host                                     guest (busybox /init)
 *   initrd.cpio = cached busybox archive     mounts proc, sysfs, devtmpfs,
 *                 + per-run archive          debugfs, tmpfs; runs each job
 *                   (/init, jobs, files)     under setsid, then powers off
 *   console.log  <- ttyS0  kernel console (quiet: only oopses and panics)
 *   stdout       <- ttyS1  streamed job's stdout, raw bytes
 *   stderr       <- ttyS2  streamed job's stderr
 *   ctl.out/.in <-> ttyS3  frames from the guest; signal names to it
 *
 * The guest reports everything else framed on ttyS3, one header line each:
 *   @@TAPLINE-BOOT                    /init is running
 *   @@TAPLINE-JOB I start             job I begins
 *   @@TAPLINE-JOB I stdout LEN        then LEN bytes and "\n" (also stderr,
 *                                     dmesg; batch jobs' output is kept in
 *                                     the guest's tmpfs until the job ends)
 *   @@TAPLINE-JOB I timeout           the job's own timeout killed it
 *   @@TAPLINE-JOB I status N          job I is over
 *   @@TAPLINE-BOOTLOG LEN             the boot's dmesg (with keep_dir only)
 *   @@TAPLINE-END                     all done, about to power off
 * Lengths make the frames exact whatever the output contains; the ports
 * are raw (no echo, no \n -> \r\n) so bytes arrive unchanged. Each job's
 * kernel log is `dmesg -c` after it, because a quiet console does not show
 * WARNING-level lines.
 *
 * The host polls ctl.out and the growing stdout/stderr files every 25 ms
 * while qemu runs, and writes "INT\n"/"TERM\n" into ctl.in for the guest's
 * watcher, which signals the job's process group.
 */
#include "vm.h"
#include "cpio.h"
#include "private.h"
#include "util.h"

#include <ctype.h>
#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

/* Bump when the cached base archive's layout changes. */
#define VM_BASE_FORMAT 2
#define VM_POLL_MS 25
/* How long qemu may take to power off after the guest said END. */
#define VM_POWEROFF_GRACE_S 10
/*
 * A job past its own timeout by this much was not killed by the guest's
 * watcher, which needs only seconds: the guest is hung (a soft lockup takes
 * every CPU's timer with it), and waiting out the whole run's timeout would
 * only delay the jobs after it.
 */
#define VM_HUNG_GRACE_S 60
#define FRAME "@@TAPLINE-"

static const char qemu_name[] = "qemu-system-x86_64";

/* ---- log scanning and quoting --------------------------------------- */

static const char *const trouble_marks[] = {
	"BUG:",			/* also "watchdog: BUG: soft lockup" */
	"kernel BUG at",
	"Oops:",
	"WARNING:",
	"general protection fault",
	"Kernel panic",
	"hard LOCKUP",
	"detected stall",	/* RCU stalls */
	"blocked for more than",	/* hung tasks */
	"UBSAN:",
	"KASAN:",
	"KFENCE:",
	"Initramfs unpacking failed",	/* files given to the guest did not fit in its memory */
	"double fault",
};

/* Lines that look alarming but are expected when tests load unsigned modules. */
static const char *const benign_marks[] = {
	"module verification failed",
	"loading out-of-tree module taints kernel",
};

/* mark occurs in the line at the start of a word ("BUG:" is not in "DEBUG:"). */
static bool line_has(const char *line, size_t len, const char *mark)
{
	size_t n = strlen(mark);

	for (size_t i = 0; i + n <= len; i++)
		if (!memcmp(line + i, mark, n) &&
		    (i == 0 || !(isalnum((unsigned char)line[i - 1]) || line[i - 1] == '_')))
			return true;
	return false;
}

/* The message part of a dmesg line, after the "[   12.345678] " stamp. */
static const char *message_start(const char *line, size_t len)
{
	if (len && line[0] == '[') {
		const char *end = memchr(line, ']', len);

		if (end) {
			end++;
			while (end < line + len && *end == ' ')
				end++;
			return end;
		}
	}
	return line;
}

char *vm_kernel_trouble(const char *log)
{
	if (!log)
		return NULL;
	for (const char *line = log; *line;) {
		const char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line);
		const char *msg = message_start(line, len);
		bool bad = false;

		for (size_t i = 0; i < ARRAY_SIZE(trouble_marks) && !bad; i++)
			bad = line_has(line, len, trouble_marks[i]);
		for (size_t i = 0; i < ARRAY_SIZE(benign_marks) && bad; i++)
			bad = !line_has(line, len, benign_marks[i]);
		/* "traps: prog[123] general protection fault ..." is a user-space crash. */
		if (bad && !strncmp(msg, "traps:", 6))
			bad = false;
		if (bad)
			return xstrndup(line, len);
		line += len + (nl ? 1 : 0);
	}
	return NULL;
}

char *vm_shell_quote(const char *s)
{
	static const char safe[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
				   "0123456789_@%+=:,./-";
	struct strbuf b;

	if (*s && strspn(s, safe) == strlen(s))
		return xstrdup(s);
	sb_init(&b);
	sb_putc(&b, '\'');
	for (; *s; s++) {
		if (*s == '\'')
			sb_puts(&b, "'\\''");
		else
			sb_putc(&b, *s);
	}
	sb_putc(&b, '\'');
	return sb_detach(&b);
}

/* ---- what the host needs -------------------------------------------- */

static bool skip_image_name(const char *release)
{
	size_t n = strlen(release);

	/* Leftovers of package upgrades are not kernels to boot. */
	return !n || strstr(release, ".dpkg-") ||
	       (n > 4 && (!strcmp(release + n - 4, ".bak") || !strcmp(release + n - 4, ".old")));
}

/* Is the kernel's build tree there (its headers package)? */
static bool has_headers(const char *release)
{
	char path[PATH_MAX];
	snprintf(path, sizeof path, "/lib/modules/%s/build/Makefile", release);
	return access(path, F_OK) == 0;
}

char *vm_installed_kernels(struct vm_kernels *k)
{
	DIR *d = opendir("/boot");
	struct dirent *e;
	char *best = NULL;

	memset(k, 0, sizeof *k);
	while (d && (e = readdir(d))) {
		const char *rel;

		if (strncmp(e->d_name, "vmlinuz-", 8))
			continue;
		rel = e->d_name + 8;
		if (skip_image_name(rel))
			continue;
		k->images++;
		if (!k->newest_image || strverscmp(rel, k->newest_image) > 0) {
			free(k->newest_image);
			k->newest_image = xstrdup(rel);
		}
		/* An image without headers cannot have modules built for it. */
		if (!has_headers(rel)) {
			if (!k->no_headers)
				k->no_headers = xstrdup(rel);
			continue;
		}
		k->complete++;
		/* strverscmp orders 6.1.0-9 before 6.1.0-10, as dpkg would. */
		if (!best || strverscmp(rel, best) > 0) {
			free(best);
			best = xstrdup(rel);
		}
	}
	if (d)
		closedir(d);
	/* Headers without an image: nothing to boot. */
	d = opendir("/lib/modules");
	while (d && (e = readdir(d))) {
		char img[PATH_MAX];
		if (e->d_name[0] == '.' || !has_headers(e->d_name))
			continue;
		snprintf(img, sizeof img, "/boot/vmlinuz-%s", e->d_name);
		if (access(img, F_OK) != 0 && !k->no_image)
			k->no_image = xstrdup(e->d_name);
	}
	if (d)
		closedir(d);
	return best;
}

void vm_kernels_free(struct vm_kernels *k)
{
	free(k->newest_image);
	free(k->no_headers);
	free(k->no_image);
}

char *vm_default_release(void)
{
	struct vm_kernels k;
	free(vm_installed_kernels(&k));
	char *newest = k.newest_image ? xstrdup(k.newest_image) : NULL;
	vm_kernels_free(&k);
	return newest;
}

/* True if path is an x86-64 ELF executable without a program interpreter. */
static bool is_static_elf(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Elf64_Ehdr eh;
	bool ok = false;

	if (fd < 0)
		return false;
	if (pread(fd, &eh, sizeof(eh), 0) == (ssize_t)sizeof(eh) &&
	    !memcmp(eh.e_ident, ELFMAG, SELFMAG) && eh.e_ident[EI_CLASS] == ELFCLASS64 &&
	    eh.e_machine == EM_X86_64 && eh.e_phentsize == sizeof(Elf64_Phdr)) {
		ok = true;
		for (unsigned int i = 0; i < eh.e_phnum && ok; i++) {
			Elf64_Phdr ph;

			if (pread(fd, &ph, sizeof(ph), (off_t)(eh.e_phoff + i * sizeof(ph))) !=
			    (ssize_t)sizeof(ph))
				ok = false;
			else if (ph.p_type == PT_INTERP)
				ok = false;
		}
	}
	close(fd);
	return ok;
}

/*
 * The busybox to put in the guest. Debian's plain busybox package is
 * dynamically linked, which cannot run in an initramfs without libc.
 * *dynamic_seen says whether one was found that is not static.
 */
static char *find_busybox(bool *dynamic_seen);

char *vm_busybox(void)
{
	bool dynamic = false;
	char *b = find_busybox(&dynamic);
	char *real = b ? realpath(b, NULL) : NULL;
	free(b);
	return real;
}

static char *find_busybox(bool *dynamic_seen)
{
	static const char *const places[] = { "/bin/busybox", "/usr/bin/busybox" };
	char *p;

	*dynamic_seen = false;
	for (size_t i = 0; i < ARRAY_SIZE(places); i++) {
		if (access(places[i], X_OK) != 0)
			continue;
		if (is_static_elf(places[i]))
			return xstrdup(places[i]);
		*dynamic_seen = true;
	}
	p = find_in_path("busybox");
	if (p && is_static_elf(p))
		return p;
	if (p)
		*dynamic_seen = true;
	free(p);
	return NULL;
}

bool vm_available(const char *release, bool print_reason)
{
	char *rel = release ? xstrdup(release) : vm_default_release();
	char *qemu = find_in_path(qemu_name);
	char *image = NULL, *busybox = NULL;
	char *why = NULL;
	bool dynamic;

	if (!qemu) {
		why = xasprintf("%s not found: install the Debian package qemu-system-x86", qemu_name);
	} else if (!rel) {
		why = xstrdup("no kernel image /boot/vmlinuz-*: install the Debian package linux-image-amd64");
	} else {
		image = xasprintf("/boot/vmlinuz-%s", rel);
		if (access(image, F_OK) != 0)
			why = xasprintf("%s is missing: install the Debian package linux-image-%s",
					image, rel);
		else if (access(image, R_OK) != 0)
			why = xasprintf("cannot read %s (%s): the guest boots it, so it must be readable",
					image, strerror(errno));
	}
	if (!why && !(busybox = find_busybox(&dynamic)))
		why = xasprintf("%s: install the Debian package busybox-static",
				dynamic ? "busybox is dynamically linked, the guest needs a static one"
					: "busybox not found");
	if (why && print_reason)
		fprintf(stderr, "vm: %s\n", why);
	free(why);
	free(rel);
	free(qemu);
	free(image);
	free(busybox);
	return !why;
}

/* ---- caches ---------------------------------------------------------- */

static uint64_t stat_key(uint64_t h, const struct stat *st)
{
	uint64_t v[4] = { (uint64_t)st->st_size, (uint64_t)st->st_mtim.tv_sec,
			  (uint64_t)st->st_mtim.tv_nsec, (uint64_t)st->st_ino };

	return hash_bytes(h, v, sizeof(v));
}

/*
 * Remove older cache entries dir/PREFIX<16 hex digits>SUFFIX other than
 * keep. Exact names only: another release's entries and other runs'
 * temporary files stay.
 */
static void remove_stale(const char *dir, const char *prefix, const char *suffix,
			 const char *keep)
{
	size_t plen = strlen(prefix), slen = strlen(suffix);
	DIR *d = opendir(dir);
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d))) {
		const char *n = e->d_name;

		if (strlen(n) != plen + 16 + slen || strncmp(n, prefix, plen) ||
		    strspn(n + plen, "0123456789abcdef") != 16 || strcmp(n + plen + 16, suffix) ||
		    !strcmp(n, keep))
			continue;
		char *p = path_join(dir, n);

		unlink(p);
		free(p);
	}
	closedir(d);
}

/* Store data as dir/name atomically (concurrent runs may race to fill the cache). */
static void cache_store(const char *dir, const char *name, const void *data, size_t len)
{
	char *tmp = xasprintf("%s/%s.tmp%d", dir, name, (int)getpid());
	char *dst = path_join(dir, name);

	if (!write_file(tmp, data, len) || rename(tmp, dst) != 0)
		unlink(tmp);
	free(tmp);
	free(dst);
}

/*
 * The busybox part of the initramfs: the directories and /bin/busybox. The
 * applet links are made by `busybox --install -s` at boot (20 ms), which
 * skips names that exist, so a file the caller puts at /sbin/insmod wins;
 * links in the archive would instead make the kernel write the caller's
 * file through the link, over busybox.
 */
static char *base_archive(const char *busybox, size_t *len, bool verbose)
{
	static const char *const dirs[] = {
		"/bin", "/sbin", "/usr/bin", "/usr/sbin", "/dev", "/proc", "/sys",
		"/root", "/etc", "/m", "/tapline",
	};
	struct stat st;
	struct cpio c;
	char *cache = NULL, *name = NULL, *data = NULL;

	if (stat(busybox, &st) < 0)
		return NULL;
	uint64_t key = HASH_INIT;
	int format = VM_BASE_FORMAT;

	key = hash_bytes(key, &format, sizeof(format));
	key = hash_bytes(key, busybox, strlen(busybox));
	key = stat_key(key, &st);
	cache = cache_dir("vm");
	if (cache) {
		name = xasprintf("base-%016" PRIx64 ".cpio", key);
		char *path = path_join(cache, name);

		data = read_file(path, len);
		free(path);
		if (data) {
			free(cache);
			free(name);
			return data;
		}
	}

	cpio_init(&c);
	for (size_t i = 0; i < ARRAY_SIZE(dirs); i++)
		cpio_add_dir(&c, dirs[i], 0755);
	cpio_add_dir(&c, "/tmp", 01777);
	if (!cpio_add_file(&c, "/bin/busybox", busybox, 0755)) {
		cpio_free(&c);
		free(cache);
		free(name);
		return NULL;
	}
	cpio_finish(&c);
	if (cache) {
		cache_store(cache, name, cpio_data(&c), cpio_size(&c));
		remove_stale(cache, "base-", ".cpio", name);
		if (verbose)
			fprintf(stderr, "vm: cached the busybox archive in %s/%s\n", cache, name);
	}
	*len = cpio_size(&c);
	data = xmalloc(*len);
	memcpy(data, cpio_data(&c), *len);
	cpio_free(&c);
	free(cache);
	free(name);
	return data;
}

static uint32_t le32(const unsigned char *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

/* True if the ELF file has a Xen PVH entry note (XEN_ELFNOTE_PHYS32_ENTRY). */
static bool has_pvh_note(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Elf64_Ehdr eh;
	bool found = false;

	if (fd < 0)
		return false;
	if (pread(fd, &eh, sizeof(eh), 0) != (ssize_t)sizeof(eh) ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_phentsize != sizeof(Elf64_Phdr))
		goto out;
	for (unsigned int i = 0; i < eh.e_phnum && !found; i++) {
		Elf64_Phdr ph;

		if (pread(fd, &ph, sizeof(ph), (off_t)(eh.e_phoff + i * sizeof(ph))) !=
		    (ssize_t)sizeof(ph))
			goto out;
		if (ph.p_type != PT_NOTE || ph.p_filesz > (1 << 20))
			continue;
		unsigned char *notes = xmalloc(ph.p_filesz);

		if (pread(fd, notes, ph.p_filesz, (off_t)ph.p_offset) == (ssize_t)ph.p_filesz) {
			for (size_t off = 0; off + 12 <= ph.p_filesz && !found;) {
				uint32_t namesz = le32(notes + off), descsz = le32(notes + off + 4);
				uint32_t type = le32(notes + off + 8);
				size_t name_at = off + 12;

				if (namesz == 4 && name_at + 4 <= ph.p_filesz &&
				    !memcmp(notes + name_at, "Xen", 4) && type == 18)
					found = true;
				off = name_at + ((namesz + 3) & ~3u) + ((descsz + 3) & ~3u);
			}
		}
		free(notes);
	}
out:
	close(fd);
	return found;
}

/* Run argv with stdin from in_path and stdout to out_path; stderr is discarded. */
static void run_filter(const char *const argv[], const char *in_path, const char *out_path)
{
	pid_t pid = fork();

	if (pid < 0)
		return;
	if (pid == 0) {
		int in = open(in_path, O_RDONLY);
		int out = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		int null = open("/dev/null", O_WRONLY);

		if (in < 0 || out < 0 || null < 0)
			_exit(127);
		dup2(in, 0);
		dup2(out, 1);
		dup2(null, 2);
		execvp(argv[0], (char *const *)argv);
		_exit(127);
	}
	/* The exit status does not matter: gzip says 2 about the size trailer; the output is checked. */
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
}

/*
 * The decompressed kernel for a PVH boot: the bzImage's payload (found
 * through the setup header's payload_offset/payload_length) run through
 * the matching decompressor. Cached by the image's size, mtime and inode;
 * without a cache it is made in workdir for this run only. NULL (with a
 * reason when verbose) if that fails: the caller boots the bzImage.
 */
static char *fast_kernel(const char *image, const char *release, const char *workdir,
			 bool verbose)
{
	static const struct {
		const char *magic;
		size_t len;
		const char *argv[4];
	} formats[] = {
		{ "\xfd" "7zXZ", 6, { "xz", "-dc", "--single-stream", NULL } },
		{ "\x1f\x8b", 2, { "gzip", "-dc", NULL } },
		{ "\x28\xb5\x2f\xfd", 4, { "zstd", "-dcq", NULL } },
		{ "BZh", 3, { "bzip2", "-dc", NULL } },
		{ "\x5d\x00\x00", 3, { "xz", "--format=lzma", "-dc", NULL } },
	};
	struct stat st;
	char *cache = NULL, *name = NULL, *path = NULL, *in = NULL, *out = NULL;
	unsigned char *img = NULL;
	size_t len;
	const char *why = NULL;

	if (stat(image, &st) < 0)
		return NULL;
	name = xasprintf("vmlinux-%s-%016" PRIx64, release, stat_key(HASH_INIT, &st));
	cache = cache_dir("vm");
	path = path_join(cache ? cache : workdir, name);
	if (cache && has_pvh_note(path))
		goto done;

	img = (unsigned char *)read_file(image, &len);
	if (!img || len < 0x250 || memcmp(img + 0x202, "HdrS", 4) || le32(img + 0x206) < 0x208) {
		/* Boot protocol 2.08 added payload_offset/payload_length. */
		why = "not a bzImage with a payload header";
		goto fail;
	}
	size_t setup = (img[0x1f1] ? img[0x1f1] : 4) + 1;
	size_t start = setup * 512 + le32(img + 0x248), plen = le32(img + 0x24c);
	size_t f;

	if (start > len || plen > len - start) {
		why = "bad payload offsets";
		goto fail;
	}
	for (f = 0; f < ARRAY_SIZE(formats); f++)
		if (plen >= formats[f].len && !memcmp(img + start, formats[f].magic, formats[f].len))
			break;
	if (f == ARRAY_SIZE(formats)) {
		why = "unknown compression";
		goto fail;
	}
	char *tool = find_in_path(formats[f].argv[0]);

	if (!tool) {
		why = "no decompressor";
		goto fail;
	}
	free(tool);
	in = xasprintf("%s.tmp%d.in", path, (int)getpid());
	out = xasprintf("%s.tmp%d", path, (int)getpid());
	if (!write_file(in, img + start, plen)) {
		why = "cannot write the payload";
		goto fail;
	}
	if (verbose)
		fprintf(stderr, "vm: decompressing %s for a PVH boot (%s)\n", image,
			formats[f].argv[0]);
	run_filter(formats[f].argv, in, out);
	unlink(in);
	if (!has_pvh_note(out)) {
		why = "the decompressed kernel has no PVH entry (CONFIG_PVH)";
		unlink(out);
		goto fail;
	}
	if (rename(out, path) != 0) {
		why = "cannot store the decompressed kernel";
		unlink(out);
		goto fail;
	}
	if (cache) {
		char *prefix = xasprintf("vmlinux-%s-", release);

		remove_stale(cache, prefix, "", name);
		free(prefix);
	}
	goto done;
fail:
	if (verbose)
		fprintf(stderr, "vm: cannot boot %s quickly (%s); booting the bzImage\n", image, why);
	free(path);
	path = NULL;
done:
	free(img);
	free(in);
	free(out);
	free(cache);
	free(name);
	return path;
}

/* ---- the guest's /init ------------------------------------------------ */

static const char init_head[] =
	"#!/bin/busybox sh\n"
	"# Tapline guest init, written by translator/run/vm.c for one boot: mount,\n"
	"# run the jobs, report each one framed on ttyS3, power off.\n"
	"/bin/busybox --install -s\n"
	"export PATH=/bin:/sbin:/usr/bin:/usr/sbin HOME=/root\n"
	"mount -t proc proc /proc\n"
	"mount -t sysfs sysfs /sys\n"
	"mount -t devtmpfs devtmpfs /dev\n"
	"mount -t debugfs debugfs /sys/kernel/debug\n"
	"mount -t securityfs securityfs /sys/kernel/security 2>/dev/null\n"
	"# Files given for /tmp (a test's programs under the host's /tmp) stay.\n"
	"mkdir /.tmp-given && cp -a /tmp/. /.tmp-given/\n"
	"mount -t tmpfs tmpfs /tmp\n"
	"cp -a /.tmp-given/. /tmp/ && rm -rf /.tmp-given\n"
	"T=/tmp/tapline\n"
	"mkdir -p $T\n"
	"# Raw ports: bytes pass unchanged, and the host's input is not echoed back.\n"
	"for n in 1 2 3; do stty -F /dev/ttyS$n raw -echo; done\n"
	"exec 8>/dev/ttyS3\n"
	"say() { printf '@@TAPLINE-%s\\n' \"$*\" >&8; }\n"
	"send() { printf '@@TAPLINE-JOB %s %s %s\\n' $1 $2 $(stat -c %s $3) >&8; cat $3 >&8; echo >&8; }\n"
	"# stty sets the mode with TCSADRAIN, which waits until the port has sent\n"
	"# everything: output still queued at power-off would be lost.\n"
	"drain() { for n; do stty -F /dev/ttyS$n raw -echo; done; }\n"
	"# run I TIMEOUT STDOUT STDERR: job I in a session of its own, so that a\n"
	"# signal reaches all its processes; its pid names the process group.\n"
	"run() {\n"
	"\tsay \"JOB $1 start\"\n"
	"\tg=\n"
	"\tif [ $2 -gt 0 ]; then\n"
	"\t\t(sleep $2; : >$T/$1.timeout; p=$(cat $T/$1.pgid); kill -TERM -$p; sleep 2; kill -KILL -$p) >/dev/null 2>&1 &\n"
	"\t\tg=$!\n"
	"\tfi\n"
	"\tcd /\n"
	"\tsetsid sh -c \"echo \\$\\$ >$T/$1.pgid; exec sh /tapline/job.$1\" </dev/null >$3 2>$4 8>&-\n"
	"\tst=$?\n"
	"\t[ -n \"$g\" ] && kill $g 2>/dev/null\n"
	"\t# What the job left running (a -c command outlives a script that\n"
	"\t# ended first, as in SystemTap) must not run into the next job.\n"
	"\tkill -KILL -$(cat $T/$1.pgid) 2>/dev/null\n"
	"\tdmesg -c >$T/$1.dmesg\n"
	"\t# Files that did not fit: every job is told (run-tests: -m).\n"
	"\tgrep 'Initramfs unpacking failed' $T/boot.dmesg >>$T/$1.dmesg\n"
	"}\n"
	"report() {\n"
	"\tsend $1 dmesg $T/$1.dmesg\n"
	"\t[ -e $T/$1.timeout ] && say \"JOB $1 timeout\"\n"
	"\tsay \"JOB $1 status $st\"\n"
	"}\n"
	"say BOOT\n"
	"dmesg -c >$T/boot.dmesg\n";

static const char init_bootlog[] =
	"printf '@@TAPLINE-BOOTLOG %s\\n' $(stat -c %s $T/boot.dmesg) >&8; cat $T/boot.dmesg >&8; echo >&8\n";

static const char init_stream[] =
	"# Signal names from the host go to the job's process group.\n"
	"(while read -r s; do\n"
	"\twhile [ ! -s $T/0.pgid ]; do sleep 0.05; done\n"
	"\tkill -s $s -$(cat $T/0.pgid)\n"
	"done) </dev/ttyS3 >/dev/null 2>&1 &\n"
	"w=$!\n"
	"run 0 %d /dev/ttyS1 /dev/ttyS2\n"
	"kill $w\n"
	"drain 1 2\n"
	"report 0\n";

static const char init_batch_job[] =
	"run %zu %d $T/%zu.out $T/%zu.err\n"
	"send %zu stdout $T/%zu.out\n"
	"send %zu stderr $T/%zu.err\n"
	"report %zu\n"
	"rm -f $T/%zu.*\n";

static const char init_tail[] =
	"say END\n"
	"drain 3\n"
	"poweroff -f\n"
	"# Only if poweroff failed: PID 1 must not exit.\n"
	"while :; do sleep 1000; done\n";

static char *init_script(const struct vm_job *jobs, size_t njobs, bool stream, bool bootlog)
{
	struct strbuf b;

	sb_init(&b);
	sb_puts(&b, init_head);
	if (bootlog)
		sb_puts(&b, init_bootlog);
	if (stream) {
		sb_printf(&b, init_stream, jobs[0].timeout_s > 0 ? jobs[0].timeout_s : 0);
	} else {
		for (size_t i = 0; i < njobs; i++)
			sb_printf(&b, init_batch_job, i, jobs[i].timeout_s > 0 ? jobs[i].timeout_s : 0,
				  i, i, i, i, i, i, i, i);
	}
	sb_puts(&b, init_tail);
	return sb_detach(&b);
}

/* ---- one boot --------------------------------------------------------- */

struct run {
	const struct vm_config *cfg;
	const struct vm_job *jobs;
	size_t njobs;
	struct vm_result *res;
	bool stream;
	int out_fd, err_fd;	/* streaming destinations; -1 once a write failed */
	int out_errno;		/* why writing out_fd failed */

	char *release;
	char *dir;		/* working directory, removed unless keep_dir */
	pid_t qemu;
	int ctl_in, ctl_out;	/* our ends of the ttyS3 FIFOs */
	int ctl_log;		/* control.log: everything the guest framed */
	int out_file, err_file;	/* the ttyS1/ttyS2 files, read as they grow */
	off_t out_off, err_off;
	struct strbuf ctl;	/* received, not yet parsed from ctl_pos on */
	size_t ctl_pos;

	size_t cur;		/* the job running, or njobs when none is */
	size_t finished;	/* jobs that reported a status */
	bool booted, ended, timed_out, interrupted, killed;
	bool int_forwarded;
	int ints_seen, terms_seen;
	int fatal_signal;	/* re-raised after cleaning up (batch, or SIGHUP) */
	off_t console_mark;	/* console.log size when the running job began */
	uint64_t t_start, t_boot, t_job, t_end;
};

static volatile sig_atomic_t got_int, got_term, got_hup;

static void on_signal(int sig)
{
	if (sig == SIGINT)
		got_int++;
	else if (sig == SIGTERM)
		got_term++;
	else
		got_hup++;
}

static double secs(uint64_t ns)
{
	return ns / 1e9;
}

static void say(const struct run *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(const struct run *r, const char *fmt, ...)
{
	va_list ap;

	if (!r->cfg->verbose)
		return;
	fputs("vm: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static char *in_dir(const struct run *r, const char *name)
{
	return path_join(r->dir, name);
}

/* 0, or the errno of a failed write. */
static int write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return errno;
		}
		if (w == 0)
			return EIO;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* Copy what a growing port file gained since *off to *to (if >= 0); a
 * failed write sets *to to -1 and returns its errno. */
static int copy_new(int from, off_t *off, int *to)
{
	char buf[65536];
	ssize_t n;
	int err = 0;

	if (from < 0)
		return 0;
	while ((n = pread(from, buf, sizeof(buf), *off)) > 0) {
		*off += n;
		if (*to >= 0 && (err = write_all(*to, buf, (size_t)n)))
			*to = -1;
	}
	return err;
}

static off_t file_size(const struct run *r, const char *name)
{
	char *p = in_dir(r, name);
	struct stat st;
	off_t n = stat(p, &st) == 0 ? st.st_size : 0;

	free(p);
	return n;
}

static void kill_qemu(struct run *r)
{
	if (!r->killed && r->qemu > 0) {
		kill(r->qemu, SIGKILL);
		r->killed = true;
	}
}

/* One frame's payload: len bytes at data, which the guest ends with "\n". */
static void take_payload(struct run *r, size_t i, const char *kind, const char *data, size_t len)
{
	struct vm_result *res = &r->res[i];

	if (!strcmp(kind, "stdout")) {
		free(res->out);
		res->out = xstrndup(data, len);
		res->out_len = len;
	} else if (!strcmp(kind, "stderr")) {
		free(res->err);
		res->err = xstrndup(data, len);
		res->err_len = len;
	} else if (!strcmp(kind, "dmesg")) {
		free(res->kernel_log);
		free(res->trouble);
		res->kernel_log = xstrndup(data, len);
		res->trouble = vm_kernel_trouble(res->kernel_log);
	}
}

static void job_event(struct run *r, size_t i, const char *kind, long long n)
{
	struct vm_result *res = &r->res[i];
	uint64_t now = now_ns();

	if (!strcmp(kind, "start")) {
		r->cur = i;
		r->t_job = now;
		r->console_mark = file_size(r, "console.log");
		res->started = true;
	} else if (!strcmp(kind, "timeout")) {
		res->timed_out = true;
	} else if (!strcmp(kind, "status")) {
		res->status = res->timed_out ? -1 : (int)n;
		r->finished++;
		r->cur = r->njobs;
		/* Said even when not verbose: it explains a status of -1. */
		if (res->timed_out)
			fprintf(stderr, "vm: job %s: killed by its %d s timeout\n", r->jobs[i].name,
				r->jobs[i].timeout_s);
		else
			say(r, "job %s: status %d after %.2f s", r->jobs[i].name, res->status,
			    secs(now - r->t_job));
	}
}

/*
 * Parse one frame whose header (after "@@TAPLINE-") is hdr and whose
 * payload, if any, starts at data with avail bytes there. Returns the
 * payload bytes consumed, or -1 if the payload has not all arrived yet.
 */
static long long frame(struct run *r, const char *hdr, const char *data, size_t avail)
{
	char kind[16];
	size_t i;
	long long n = 0;
	int fields;

	if (!strcmp(hdr, "BOOT")) {
		r->booted = true;
		r->t_boot = now_ns();
		say(r, "guest up after %.2f s", secs(r->t_boot - r->t_start));
		return 0;
	}
	if (!strcmp(hdr, "END")) {
		r->ended = true;
		r->t_end = now_ns();
		return 0;
	}
	if (sscanf(hdr, "BOOTLOG %lld", &n) == 1 && n >= 0) {
		if ((size_t)n + 1 > avail)
			return -1;
		char *p = in_dir(r, "boot.dmesg");

		write_file(p, data, (size_t)n);
		free(p);
		return n + (data[n] == '\n');
	}
	fields = sscanf(hdr, "JOB %zu %15s %lld", &i, kind, &n);
	if (fields < 2 || i >= r->njobs)
		return 0;
	if (!strcmp(kind, "stdout") || !strcmp(kind, "stderr") || !strcmp(kind, "dmesg")) {
		if (fields < 3 || n < 0)
			return 0;
		if ((size_t)n + 1 > avail)
			return -1;
		take_payload(r, i, kind, data, (size_t)n);
		return n + (data[n] == '\n');
	}
	job_event(r, i, kind, n);
	return 0;
}

static void parse_control(struct run *r)
{
	const size_t flen = strlen(FRAME);

	for (;;) {
		const char *base = r->ctl.s + r->ctl_pos;
		size_t avail = r->ctl.len - r->ctl_pos;
		const char *nl = avail ? memchr(base, '\n', avail) : NULL;

		if (!nl)
			break;
		size_t hlen = (size_t)(nl - base), used = hlen + 1;

		/* Anything else on the port (there should be nothing) is skipped by lines. */
		if (hlen > flen && !memcmp(base, FRAME, flen)) {
			char *hdr = xstrndup(base + flen, hlen - flen);
			long long got = frame(r, hdr, nl + 1, avail - used);

			free(hdr);
			if (got < 0)
				break;
			used += (size_t)got;
		}
		r->ctl_pos += used;
	}
	if (r->ctl_pos == r->ctl.len) {
		r->ctl.len = r->ctl_pos = 0;
	} else if (r->ctl_pos > (1 << 20)) {
		memmove(r->ctl.s, r->ctl.s + r->ctl_pos, r->ctl.len - r->ctl_pos);
		r->ctl.len -= r->ctl_pos;
		r->ctl_pos = 0;
	}
}

static void pump_control(struct run *r)
{
	char buf[65536];
	ssize_t n;

	while ((n = read(r->ctl_out, buf, sizeof(buf))) > 0) {
		write_all(r->ctl_log, buf, (size_t)n);
		sb_add(&r->ctl, buf, (size_t)n);
	}
	parse_control(r);
}

static void send_control(struct run *r, const char *msg)
{
	write_all(r->ctl_in, msg, strlen(msg));
}

static void forward(struct run *r, int sig)
{
	const char *name = sig == SIGINT ? "SIGINT" : "SIGTERM";

	if (r->interrupted)
		return;
	if (r->cur == r->njobs) {
		/* Nothing to deliver it to. Before the job there is nothing to clean up either. */
		if (!r->finished) {
			fprintf(stderr, "vm: %s before the job started: stopping the guest\n", name);
			r->interrupted = true;
			kill_qemu(r);
		}
		return;
	}
	if (sig == SIGINT && r->int_forwarded) {
		fprintf(stderr, "vm: second SIGINT: stopping the guest\n");
		r->interrupted = true;
		kill_qemu(r);
		return;
	}
	say(r, "forwarding %s to the job", name);
	send_control(r, sig == SIGINT ? "INT\n" : "TERM\n");
	if (sig == SIGINT)
		r->int_forwarded = true;
}

/* Stop the guest, clean up, then let the signal do what it would have done. */
static void abort_run(struct run *r, int sig)
{
	if (!r->fatal_signal)
		r->fatal_signal = sig;
	r->interrupted = true;
	kill_qemu(r);
}

static void handle_signals(struct run *r)
{
	if (got_hup) {
		abort_run(r, SIGHUP);
		return;
	}
	if (!r->stream) {
		/* A batch has no job to forward to: an interrupted test run stops. */
		if (got_int || got_term)
			abort_run(r, got_int ? SIGINT : SIGTERM);
		return;
	}
	while (r->ints_seen < got_int) {
		r->ints_seen++;
		forward(r, SIGINT);
	}
	while (r->terms_seen < got_term) {
		r->terms_seen++;
		forward(r, SIGTERM);
	}
}

/*
 * With -icount, qemu 7.2 never finishes bringing up a second CPU (the boot
 * stops at "x86: Booting SMP configuration"), so icount runs get one.
 */
static int guest_cpus(const struct vm_config *cfg)
{
	if (cfg->icount)
		return 1;
	return cfg->cpus > 0 ? cfg->cpus : 2;
}

static void add_arg(struct ptrvec *argv, const char *s)
{
	pv_push(argv, xstrdup(s));
}

static void free_args(struct ptrvec *argv)
{
	for (size_t i = 0; i < argv->n; i++)
		free(argv->v[i]);
	pv_free(argv);
}

/* The qemu command line; paths are relative to r->dir, where qemu runs. */
static void qemu_args(const struct run *r, const char *qemu, const char *kernel,
		      struct ptrvec *argv)
{
	const struct vm_config *cfg = r->cfg;
	char *s;

	add_arg(argv, qemu);
	/* No default devices: no NIC (and its iPXE ROM), VGA or monitor. */
	add_arg(argv, "-nodefaults");
	add_arg(argv, "-no-user-config");
	add_arg(argv, "-accel");
	add_arg(argv, cfg->tcg_single ? "tcg,thread=single" : "tcg");
	add_arg(argv, "-cpu");
	add_arg(argv, "max");
	add_arg(argv, "-m");
	pv_push(argv, xasprintf("%d", cfg->memory_mb > 0 ? cfg->memory_mb : 512));
	add_arg(argv, "-smp");
	pv_push(argv, xasprintf("%d", guest_cpus(cfg)));
	if (cfg->icount) {
		add_arg(argv, "-icount");
		add_arg(argv, "shift=0");
	}
	add_arg(argv, "-display");
	add_arg(argv, "none");
	add_arg(argv, "-nic");
	if (cfg->net_forward) {
		char *colon = strchr(cfg->net_forward, ':');
		pv_push(argv, xasprintf("user,model=virtio-net-pci,hostfwd=tcp:127.0.0.1:%.*s-:%s",
					(int)(colon - cfg->net_forward), cfg->net_forward,
					colon + 1));
	} else {
		add_arg(argv, "none");
	}
	add_arg(argv, "-no-reboot");
	add_arg(argv, "-kernel");
	add_arg(argv, kernel);
	add_arg(argv, "-initrd");
	add_arg(argv, "initrd.cpio");
	add_arg(argv, "-append");
	/* panic=-1 with -no-reboot: a panicking guest ends qemu at once. */
	s = xasprintf("console=ttyS0 quiet panic=-1 printk.devkmsg=on%s%s",
		      cfg->kernel_args ? " " : "", cfg->kernel_args ? cfg->kernel_args : "");
	pv_push(argv, s);
	add_arg(argv, "-serial");
	add_arg(argv, "file:console.log");
	add_arg(argv, "-serial");
	add_arg(argv, "file:stdout");
	add_arg(argv, "-serial");
	add_arg(argv, "file:stderr");
	/* A pipe chardev reads ctl.in and writes ctl.out. */
	add_arg(argv, "-chardev");
	add_arg(argv, "pipe,id=ctl,path=ctl");
	add_arg(argv, "-serial");
	add_arg(argv, "chardev:ctl");
	pv_push(argv, NULL);
	argv->n--;
}

static bool spawn_qemu(struct run *r, const struct ptrvec *argv)
{
	char *log = in_dir(r, "qemu.log");
	int logfd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	free(log);
	if (logfd < 0) {
		fprintf(stderr, "vm: cannot create %s/qemu.log: %s\n", r->dir, strerror(errno));
		return false;
	}
	pid_t parent = getpid();

	r->qemu = fork();
	if (r->qemu < 0) {
		fprintf(stderr, "vm: cannot fork: %s\n", strerror(errno));
		close(logfd);
		return false;
	}
	if (r->qemu == 0) {
		sigset_t none;
		int null = open("/dev/null", O_RDONLY);

		/*
		 * A process group of its own: a Ctrl-C at the terminal reaches
		 * only us, and we decide whether it goes to the guest's job.
		 */
		setpgid(0, 0);
		/* ...which also means nobody else stops it: it must not outlive us. */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(127);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		if (null < 0 || chdir(r->dir) < 0)
			_exit(127);
		dup2(null, 0);
		dup2(logfd, 1);
		dup2(logfd, 2);
		execvp((const char *)argv->v[0], (char *const *)argv->v);
		fprintf(stderr, "cannot run %s: %s\n", (const char *)argv->v[0], strerror(errno));
		_exit(127);
	}
	setpgid(r->qemu, r->qemu);
	close(logfd);
	return true;
}

/* Print the last lines of dir/name to stderr, each prefixed. */
static void print_tail(const struct run *r, const char *name, int lines)
{
	char *p = in_dir(r, name);
	size_t len;
	char *s = read_file(p, &len);
	const char *start;
	int seen = 0;

	free(p);
	if (!s)
		return;
	while (len && (s[len - 1] == '\n' || s[len - 1] == '\r'))
		s[--len] = 0;
	start = s + len;
	while (start > s && seen < lines) {
		start--;
		if (*start == '\n' && ++seen == lines) {
			start++;
			break;
		}
	}
	for (const char *l = start; *l;) {
		const char *nl = strchr(l, '\n');
		int n = nl ? (int)(nl - l) : (int)strlen(l);

		if (n && l[n - 1] == '\r')
			n--;
		fprintf(stderr, "  %.*s\n", n, l);
		l += nl ? (size_t)(nl - l) + 1 : strlen(l);
	}
	free(s);
}

/* The files given to the guest, the jobs and /init: the per-run archive. */
static bool run_archive(const struct run *r, const char *script, struct cpio *c)
{
	const struct vm_config *cfg = r->cfg;

	cpio_add_data(c, "/init", script, strlen(script), 0755);
	for (size_t i = 0; i < r->njobs; i++) {
		char *path = xasprintf("/tapline/job.%zu", i);
		char *body = xasprintf("%s\n", r->jobs[i].command);

		cpio_add_data(c, path, body, strlen(body), 0644);
		free(path);
		free(body);
	}
	for (size_t i = 0; i < cfg->nfiles; i++) {
		const struct vm_file *f = &cfg->files[i];
		const char *g = f->guest_path;

		if (!g || g[0] != '/' || !strcmp(g, "/init") || !strncmp(g, "/tapline/", 9) ||
		    !strcmp(g, "/bin/busybox")) {
			fprintf(stderr, "vm: cannot put %s at %s in the guest: %s\n",
				f->host_path ? f->host_path : f->link_target,
				g ? g : "(null)",
				g && g[0] == '/' ? "the runner uses that path" : "not an absolute path");
			return false;
		}
		if (!f->host_path) {
			cpio_add_symlink(c, g, f->link_target);
			continue;
		}
		if (!cpio_add_file(c, g, f->host_path, f->mode ? f->mode : -1)) {
			fprintf(stderr, "vm: cannot read %s: %s\n", f->host_path, strerror(errno));
			return false;
		}
	}
	cpio_finish(c);
	return true;
}

static bool write_initrd(const struct run *r, const char *base, size_t base_len,
			 const struct cpio *c)
{
	char *p = in_dir(r, "initrd.cpio");
	int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	bool ok = fd >= 0;

	if (ok) {
		/* Two archives back to back: the kernel unpacks both. */
		write_all(fd, base, base_len);
		write_all(fd, cpio_data(c), cpio_size(c));
		ok = close(fd) == 0;
	}
	if (!ok)
		fprintf(stderr, "vm: cannot write %s: %s\n", p, strerror(errno));
	free(p);
	return ok;
}

static int open_in_dir(const struct run *r, const char *name, int flags)
{
	char *p = in_dir(r, name);
	int fd = open(p, flags | O_CLOEXEC, 0644);

	free(p);
	return fd;
}

/* Everything before qemu starts. False (with a message) if the run cannot happen. */
static bool prepare(struct run *r, struct ptrvec *argv)
{
	const struct vm_config *cfg = r->cfg;
	char *busybox, *script, *image, *kernel = NULL, *base;
	size_t base_len;
	bool dynamic, ok;
	struct cpio c;

	r->release = cfg->release ? xstrdup(cfg->release) : vm_default_release();
	if (!vm_available(r->release, true))
		return false;
	if (cfg->keep_dir) {
		if (!mkdir_p(cfg->keep_dir, 0755)) {
			fprintf(stderr, "vm: cannot create %s: %s\n", cfg->keep_dir, strerror(errno));
			return false;
		}
		r->dir = xstrdup(cfg->keep_dir);
	} else {
		r->dir = make_temp_dir("tapline-vm");
	}

	busybox = find_busybox(&dynamic);
	base = busybox ? base_archive(busybox, &base_len, cfg->verbose) : NULL;
	if (!base)
		fprintf(stderr, "vm: cannot read %s: %s\n", busybox ? busybox : "busybox",
			strerror(errno));
	free(busybox);
	if (!base)
		return false;
	script = init_script(r->jobs, r->njobs, r->stream, cfg->keep_dir != NULL);
	cpio_init(&c);
	ok = run_archive(r, script, &c) && write_initrd(r, base, base_len, &c);
	cpio_free(&c);
	free(script);
	free(base);
	if (!ok)
		return false;

	/* Stale files from an earlier run in keep_dir must not be mistaken for ours. */
	static const char *const stale[] = { "console.log", "boot.dmesg", "ctl.in", "ctl.out" };
	for (size_t i = 0; i < ARRAY_SIZE(stale); i++) {
		char *p = in_dir(r, stale[i]);

		unlink(p);
		free(p);
	}
	static const char *const fifos[] = { "ctl.in", "ctl.out" };
	for (size_t i = 0; i < ARRAY_SIZE(fifos); i++) {
		char *p = in_dir(r, fifos[i]);
		bool made = mkfifo(p, 0600) == 0;

		if (!made)
			fprintf(stderr, "vm: cannot create the FIFO %s: %s\n", p, strerror(errno));
		free(p);
		if (!made)
			return false;
	}
	/* O_RDWR on a FIFO never blocks and never sees end-of-file. */
	r->ctl_in = open_in_dir(r, "ctl.in", O_RDWR | O_NONBLOCK);
	r->ctl_out = open_in_dir(r, "ctl.out", O_RDWR | O_NONBLOCK);
	r->ctl_log = open_in_dir(r, "control.log", O_WRONLY | O_CREAT | O_TRUNC);
	/* Created now so they can be opened before qemu (which truncates them) runs. */
	r->out_file = open_in_dir(r, "stdout", O_RDWR | O_CREAT | O_TRUNC);
	r->err_file = open_in_dir(r, "stderr", O_RDWR | O_CREAT | O_TRUNC);
	if (r->ctl_in < 0 || r->ctl_out < 0 || r->ctl_log < 0 || r->out_file < 0 ||
	    r->err_file < 0) {
		fprintf(stderr, "vm: cannot set up %s: %s\n", r->dir, strerror(errno));
		return false;
	}

	image = xasprintf("/boot/vmlinuz-%s", r->release);
	if (cfg->fast_boot)
		kernel = fast_kernel(image, r->release, r->dir, cfg->verbose);
	if (cfg->icount && cfg->cpus > 1)
		fprintf(stderr, "vm: -icount hangs with more than one CPU; the guest gets one\n");
	say(r, "booting %s (%s), %d MB, %d CPU%s%s, in %s", r->release,
	    kernel ? "PVH, no KASLR" : "bzImage", cfg->memory_mb > 0 ? cfg->memory_mb : 512,
	    guest_cpus(cfg), guest_cpus(cfg) > 1 ? "s" : "", cfg->icount ? ", icount" : "",
	    r->dir);
	qemu_args(r, qemu_name, kernel ? kernel : image, argv);
	free(image);
	free(kernel);

	if (cfg->keep_dir) {
		/* How to boot it again by hand. */
		struct strbuf b;

		sb_init(&b);
		sb_puts(&b, "#!/bin/sh\n# Boot the same guest again (run from this directory).\n");
		for (size_t i = 0; i < argv->n; i++) {
			char *q = vm_shell_quote(argv->v[i]);

			sb_printf(&b, "%s%s", i ? " " : "", q);
			free(q);
		}
		sb_putc(&b, '\n');
		char *p = in_dir(r, "qemu.sh");

		write_file(p, b.s, b.len);
		chmod(p, 0755);
		free(p);
		sb_free(&b);
	}
	return true;
}

/*
 * Jobs without a status keep -1. The one that was running when the guest
 * stopped gets the console's lines since it began: they show why, if
 * anything does (an oops or panic reaches even a quiet console).
 */
static void settle(struct run *r)
{
	struct vm_result *res;
	char *p, *log;
	size_t len;

	if (r->cur >= r->njobs)
		return;
	res = &r->res[r->cur];
	if (r->timed_out)
		res->timed_out = true;
	p = in_dir(r, "console.log");
	log = read_file(p, &len);
	free(p);
	if (log && (size_t)r->console_mark < len) {
		/* The serial console ends lines with "\r\n"; dmesg does not. */
		char *d = log + r->console_mark, *w = d;

		for (const char *c = d; *c; c++)
			if (*c != '\r')
				*w++ = *c;
		*w = 0;
		res->kernel_log = xstrdup(d);
		res->trouble = vm_kernel_trouble(res->kernel_log);
	}
	free(log);
}

static void report_failure(const struct run *r, int wstatus)
{
	if (r->interrupted)
		return;
	if (r->timed_out) {
		fprintf(stderr, "vm: timed out after %d s%s%s\n", r->cfg->timeout_s,
			r->cur < r->njobs ? " in job " : "",
			r->cur < r->njobs ? r->jobs[r->cur].name : "");
		return;
	}
	if (!r->booted) {
		if (WIFEXITED(wstatus) && WEXITSTATUS(wstatus) != 0) {
			fprintf(stderr, "vm: qemu failed (exit status %d):\n", WEXITSTATUS(wstatus));
			print_tail(r, "qemu.log", 20);
		} else {
			fprintf(stderr, "vm: the guest stopped before /init ran; its console said:\n");
			print_tail(r, "console.log", 20);
		}
		return;
	}
	if (!r->ended) {
		const char *trouble = r->cur < r->njobs ? r->res[r->cur].trouble : NULL;

		fprintf(stderr, "vm: the guest died%s%s%s%s; its console ended with:\n",
			r->cur < r->njobs ? " during job " : "",
			r->cur < r->njobs ? r->jobs[r->cur].name : "", trouble ? ": " : "",
			trouble ? message_start(trouble, strlen(trouble)) : "");
		print_tail(r, "console.log", 12);
	}
}

static void cleanup(struct run *r)
{
	int fds[] = { r->ctl_in, r->ctl_out, r->ctl_log, r->out_file, r->err_file };

	for (size_t i = 0; i < ARRAY_SIZE(fds); i++)
		if (fds[i] >= 0)
			close(fds[i]);
	if (r->dir && !r->cfg->keep_dir)
		remove_tree(r->dir);
	free(r->dir);
	free(r->release);
	sb_free(&r->ctl);
}

/*
 * Catch sig for the run. A signal that was ignored when we started stays
 * ignored (nohup, background jobs), except the ones a streamed job is
 * promised: those are forwarded however we were started.
 */
static void catch_signal(int sig, bool even_if_ignored, struct sigaction *old)
{
	struct sigaction sa;

	sigaction(sig, NULL, old);
	if (old->sa_handler == SIG_IGN && !even_if_ignored)
		return;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	/* No SA_RESTART: poll() returns at once and the signal is handled. */
	sigaction(sig, &sa, NULL);
}

/*
 * Stream the job's output. When the script's output cannot be written (a
 * full disk, -o /dev/full), the job is stopped as by SIGTERM, so the
 * module still unloads cleanly, and the run then fails.
 */
static void relay_streams(struct run *r)
{
	int err = copy_new(r->out_file, &r->out_off, &r->out_fd);
	if (err && !r->out_errno) {
		r->out_errno = err;
		say(r, "writing the job's output failed: %s", strerror(err));
		forward(r, SIGTERM);
	}
	copy_new(r->err_file, &r->err_off, &r->err_fd);
}

/* Wait for qemu while relaying what the guest sends; returns its wait status. */
static int watch(struct run *r)
{
	uint64_t deadline = 0;
	int wstatus = 0;

	if (r->cfg->timeout_s > 0)
		deadline = r->t_start + (uint64_t)r->cfg->timeout_s * 1000000000ull;
	for (;;) {
		struct pollfd p = { .fd = r->ctl_out, .events = POLLIN };
		uint64_t now;
		pid_t w;

		pump_control(r);
		if (r->stream)
			relay_streams(r);
		handle_signals(r);
		w = waitpid(r->qemu, &wstatus, WNOHANG);
		if (w == r->qemu || (w < 0 && errno != EINTR))
			break;
		now = now_ns();
		if (deadline && now >= deadline && !r->ended && !r->killed) {
			r->timed_out = true;
			kill_qemu(r);
		}
		if (r->cur < r->njobs && r->jobs[r->cur].timeout_s > 0 && !r->killed &&
		    now - r->t_job >= (uint64_t)(r->jobs[r->cur].timeout_s + VM_HUNG_GRACE_S) *
					       1000000000ull) {
			fprintf(stderr, "vm: job %s: still running %d s after its timeout: "
				"the guest is hung; stopping it\n", r->jobs[r->cur].name, VM_HUNG_GRACE_S);
			r->res[r->cur].timed_out = true;
			kill_qemu(r);
		}
		if (r->ended && !r->killed &&
		    now - r->t_end >= VM_POWEROFF_GRACE_S * 1000000000ull) {
			say(r, "the guest did not power off; stopping qemu");
			kill_qemu(r);
		}
		poll(&p, 1, VM_POLL_MS);
	}
	/* qemu wrote synchronously: what it left in the FIFO and files is complete. */
	pump_control(r);
	if (r->stream)
		relay_streams(r);
	return wstatus;
}

/* Boot, run r->jobs, fill r->res. True if the guest finished every job. */
static bool boot(struct run *r)
{
	struct ptrvec argv = { 0 };
	struct sigaction old_int, old_term, old_hup;
	bool ok;

	r->qemu = -1;
	r->ctl_in = r->ctl_out = r->ctl_log = r->out_file = r->err_file = -1;
	r->cur = r->njobs;
	sb_init(&r->ctl);
	for (size_t i = 0; i < r->njobs; i++) {
		memset(&r->res[i], 0, sizeof(r->res[i]));
		r->res[i].status = -1;
	}

	got_int = got_term = got_hup = 0;
	catch_signal(SIGINT, r->stream, &old_int);
	catch_signal(SIGTERM, r->stream, &old_term);
	catch_signal(SIGHUP, false, &old_hup);

	ok = prepare(r, &argv);
	if (ok) {
		/* Interrupted while preparing: do not start at all. */
		handle_signals(r);
		ok = !r->interrupted;
	}
	if (ok) {
		r->t_start = now_ns();
		ok = spawn_qemu(r, &argv);
	}
	if (ok) {
		int wstatus = watch(r);

		say(r, "guest off after %.2f s", secs(now_ns() - r->t_start));
		settle(r);
		report_failure(r, wstatus);
	}
	free_args(&argv);
	ok = ok && r->finished == r->njobs;
	cleanup(r);

	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	sigaction(SIGHUP, &old_hup, NULL);
	if (r->fatal_signal)
		raise(r->fatal_signal);
	return ok;
}

int vm_run_stream(const struct vm_config *cfg, const struct vm_job *job, int out_fd,
		  int err_fd, struct vm_result *res)
{
	struct run r = {
		.cfg = cfg, .jobs = job, .njobs = 1, .res = res,
		.stream = true, .out_fd = out_fd, .err_fd = err_fd,
	};

	boot(&r);
	res->out_errno = r.out_errno;
	return res->status;
}

int vm_run_batch(const struct vm_config *cfg, const struct vm_job *jobs, size_t njobs,
		 struct vm_result *results)
{
	struct run r = {
		.cfg = cfg, .jobs = jobs, .njobs = njobs, .res = results,
	};

	return boot(&r) ? 0 : -1;
}

void vm_result_free(struct vm_result *res)
{
	free(res->out);
	free(res->err);
	free(res->kernel_log);
	free(res->trouble);
	memset(res, 0, sizeof(*res));
	res->status = -1;
}
