// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The module file, read once and checked before anything of it reaches the
 * kernel.
 *
 * staprun opens the file once and reads it whole into memory; every check
 * (the appended signature's trailer, .modinfo, the module's own checksum,
 * its type, machine and name) looks at those bytes, and staprun loads those
 * same bytes.  So nothing can change between the check and the load: not a
 * concurrent writer, not a second open that finds another file.
 */
#include "staprun.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#if defined(__x86_64__)
#define SR_HOST_MACHINE EM_X86_64
#define SR_HOST_ARCH "x86_64"
#endif

/*
 * Far above any real module (a few MiB): a larger file is refused rather
 * than read.
 */
#define SR_MODULE_MAX ((size_t)1 << 30)

int sr_module_read(const char *path, struct sr_module *m, char *err, size_t errlen)
{
	struct stat st;
	size_t got = 0;
	int fd;

	memset(m, 0, sizeof(*m));
	m->path = path;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		sr_errf(err, errlen, "cannot open %s: %s", path, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) < 0) {
		sr_errf(err, errlen, "cannot stat %s: %s", path, strerror(errno));
		goto fail;
	}
	if (!S_ISREG(st.st_mode)) {
		sr_errf(err, errlen, "%s: not a regular file", path);
		goto fail;
	}
	if ((uint64_t)st.st_size > SR_MODULE_MAX) {
		sr_errf(err, errlen, "%s: too large for a module (%llu bytes)", path,
			(unsigned long long)st.st_size);
		goto fail;
	}
	m->size = (size_t)st.st_size;
	/* One byte more, to see a file that grew while it was read. */
	m->image = malloc(m->size + 1);
	if (!m->image) {
		sr_errf(err, errlen, "%s: out of memory", path);
		goto fail;
	}
	for (;;) {
		ssize_t n = read(fd, m->image + got, m->size + 1 - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			sr_errf(err, errlen, "cannot read %s: %s", path, strerror(errno));
			goto fail;
		}
		if (n == 0)
			break;
		got += (size_t)n;
		if (got > m->size)
			break;
	}
	if (got != m->size) {
		sr_errf(err, errlen, "%s: changed while it was being read; try again", path);
		goto fail;
	}
	close(fd);
	return 0;
fail:
	close(fd);
	sr_module_free(m);
	return -1;
}

/*
 * The module's checksum, found in .modinfo.  When the structure is too
 * damaged for that, a checksum entry found among the raw bytes still shows
 * that this was a Tapline module, and that it changed: that is the message.
 */
static int sr_module_checksum(struct sr_module *m, char *err, size_t errlen)
{
	char why[SR_ERR_MAX];
	uint64_t at;
	int parsed;

	parsed = sr_modinfo_parse(m->image, m->content_size, m->path, &m->mi, why,
				  sizeof(why)) == 0;
	if (parsed && sr_checksum_locate(&m->mi, &at, m->path, why, sizeof(why)) == 0) {
		if (sr_checksum_matches(m->image, m->content_size, at))
			return 0;
	} else if (sr_checksum_find_raw(m->image, m->content_size, &at) != 0 ||
		   sr_checksum_matches(m->image, m->content_size, at)) {
		sr_errf(err, errlen, "%s", why);
		return -1;
	}
	sr_errf(err, errlen,
		"%s: the module is damaged: its checksum does not match what stap recorded; rebuild it",
		m->path);
	return -1;
}

int sr_module_check(struct sr_module *m, char *err, size_t errlen)
{
	char shown[SR_SHOWN_MAX];
	const char *name;

	if (sr_signature_split(m->image, m->size, &m->content_size, &m->sig_size, m->path,
			       err, errlen) ||
	    sr_module_checksum(m, err, errlen))
		return -1;
	if (m->mi.elf_type != ET_REL) {
		sr_errf(err, errlen,
			"%s: is not a kernel module (ELF type %u, expected a relocatable object)",
			m->path, m->mi.elf_type);
		return -1;
	}
#ifdef SR_HOST_MACHINE
	if (m->mi.machine != SR_HOST_MACHINE) {
		sr_errf(err, errlen,
			"%s: is a module for another architecture (ELF machine %u), not %s",
			m->path, m->mi.machine, SR_HOST_ARCH);
		return -1;
	}
#endif
	name = sr_modinfo_get(&m->mi, "name");
	if (!name) {
		sr_errf(err, errlen,
			"%s: has no module name in .modinfo: not a Tapline module; rebuild it with stap",
			m->path);
		return -1;
	}
	if (!sr_valid_name(name)) {
		sr_errf(err, errlen,
			"%s: invalid module name '%s' in .modinfo (expected 1 to %d of [A-Za-z0-9_])",
			m->path, sr_shown(name, shown, sizeof(shown)), SR_NAME_MAX);
		return -1;
	}
	strcpy(m->name, name);
	return 0;
}

void sr_module_free(struct sr_module *m)
{
	free(m->image);
	m->image = NULL;
	m->size = m->content_size = m->sig_size = 0;
	sr_modinfo_free(&m->mi);
}
