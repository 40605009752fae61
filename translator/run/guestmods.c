// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What `stap --vm` puts into the guest besides the script: files named by
 * --vm-file=HOST[:GUEST], and modules named by --vm-module=NAME|PATH with
 * the modules they depend on, loaded before the script starts so that
 * module("NAME") probes have something to fire in. A NAME is looked up in
 * the target kernel's modules.dep, as modprobe does; a PATH's dependencies
 * come from its .modinfo. Compressed modules (6.12 ships .ko.xz) are
 * unpacked on the host, because busybox's insmod hands the kernel the
 * bytes as they are.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "debuginfo/kernel.h"
#include "run/guestmods.h"
#include "util.h"

/* "foo-bar.ko.xz" and "foo_bar" name the same module. */
static char *module_name_of(const char *path)
{
	const char *base = strrchr(path, '/');
	char *name = xstrdup(base ? base + 1 : path);
	char *dot = strstr(name, ".ko");
	if (dot)
		*dot = 0;
	for (char *p = name; *p; p++)
		if (*p == '-')
			*p = '_';
	return name;
}

/* modules.dep's line for NAME: its path and dependencies (relative to
 * the release's module directory), or NULL. */
static char *dep_line(const char *release, const char *name)
{
	char *depfile = xasprintf("/lib/modules/%s/modules.dep", release);
	FILE *f = fopen(depfile, "r");
	free(depfile);
	if (!f)
		return NULL;
	char *line = NULL, *found = NULL;
	size_t cap = 0;
	while (!found && getline(&line, &cap, f) > 0) {
		char *colon = strchr(line, ':');
		if (!colon)
			continue;
		*colon = 0;
		char *m = module_name_of(line);
		if (!strcmp(m, name)) {
			*colon = ':';
			line[strcspn(line, "\n")] = 0;
			found = xstrdup(line);
		}
		free(m);
	}
	free(line);
	fclose(f);
	return found;
}

bool guest_mod_exists(const char *release, const char *name)
{
	char *line = dep_line(release, name);
	bool found = line != NULL;
	free(line);
	return found;
}

static bool already(const struct guest_mods *g, const char *name)
{
	for (size_t i = 0; i < g->names.n; i++)
		if (!strcmp(g->names.v[i], name))
			return true;
	return false;
}

/* The module's bytes, unpacked, into the work directory as NAME.ko; its
 * guest path /m/mods/NAME.ko is pushed after those it depends on. */
static bool add_file(struct guest_mods *g, const char *name, const char *host, char **why)
{
	size_t n;
	char *raw = read_file(host, &n);
	if (!raw) {
		*why = xasprintf("cannot read %s: %s", host, strerror(errno));
		return false;
	}
	size_t len = n;
	char *elf = raw;
	if (n >= 4 && memcmp(raw, "\177ELF", 4)) {
		elf = kimage_decompress((unsigned char *)raw, n, &len);
		if (!elf) {
			*why = xasprintf("cannot unpack %s: %s", host, strerror(errno));
			free(raw);
			return false;
		}
	}
	char *out = xasprintf("%s/%s.ko", g->dir, name);
	bool ok = write_file(out, elf, len);
	if (!ok)
		*why = xasprintf("cannot write %s: %s", out, strerror(errno));
	if (elf != raw)
		free(elf);
	free(raw);
	if (ok) {
		pv_push(&g->host_paths, out);
		pv_push(&g->guest_paths, xasprintf("/m/mods/%s.ko", name));
	} else {
		free(out);
	}
	return ok;
}

/* The names in a module's "depends=a,b" (.modinfo), as a dep line would
 * give them; NULL when it has none. */
static char *modinfo_depends(const char *host)
{
	size_t n, len;
	char *raw = read_file(host, &n);
	if (!raw)
		return NULL;
	char *elf = n >= 4 && memcmp(raw, "\177ELF", 4) ? kimage_decompress((unsigned char *)raw, n, &len)
						       : (len = n, raw);
	char *deps = NULL;
	size_t size;
	const char *info = elf ? kimage_elf_section(elf, len, ".modinfo", &size) : NULL;
	for (size_t i = 0; info && i < size; i += strlen(info + i) + 1)
		if (!strncmp(info + i, "depends=", 8) && info[i + 8]) {
			deps = xstrndup(info + i + 8, strnlen(info + i + 8, size - i - 8));
			break;
		}
	if (elf != raw)
		free(elf);
	free(raw);
	return deps;
}

static bool add_module(struct guest_mods *g, const char *release, const char *spec, int depth,
		       char **why)
{
	if (depth > 32) {
		*why = xstrdup("the modules depend on each other in a loop");
		return false;
	}
	bool is_path = strchr(spec, '/') != NULL;
	char *name = module_name_of(spec);
	if (already(g, name)) {
		free(name);
		return true;
	}
	char *host = NULL, *deps = NULL;
	if (is_path) {
		host = xstrdup(spec);
		deps = modinfo_depends(host);
	} else {
		char *line = dep_line(release, name);
		if (!line) {
			*why = xasprintf("kernel %s has no module '%s' (/lib/modules/%s/modules.dep)",
					 release, name, release);
			free(name);
			return false;
		}
		char *colon = strchr(line, ':');
		*colon = 0;
		host = line[0] == '/' ? xstrdup(line) : xasprintf("/lib/modules/%s/%s", release, line);
		deps = xstrdup(colon + 1);
		free(line);
	}
	/* Each dependency's own line holds its dependencies: load them
	 * depth first, so every module finds what it needs loaded. */
	bool ok = true;
	if (deps) {
		struct ptrvec list = { 0 };
		for (char *d = strtok(deps, ", "); d; d = strtok(NULL, ", "))
			pv_push(&list, module_name_of(d));
		for (size_t i = 0; ok && i < list.n; i++)
			ok = already(g, list.v[i]) || add_module(g, release, list.v[i], depth + 1, why);
		pv_free_all(&list);
	}
	if (ok && !already(g, name)) {
		ok = add_file(g, name, host, why);
		if (ok)
			pv_push(&g->names, xstrdup(name));
	}
	free(deps);
	free(host);
	free(name);
	return ok;
}

bool guest_mods_resolve(struct guest_mods *g, const char *release, const struct ptrvec *specs,
			char **why)
{
	*why = NULL;
	if (!specs->n)
		return true;
	g->dir = make_temp_dir("tapline-vm-modules");
	if (!g->dir) {
		*why = xasprintf("cannot make a temporary directory: %s", strerror(errno));
		return false;
	}
	for (size_t i = 0; i < specs->n; i++)
		if (!add_module(g, release, specs->v[i], 0, why))
			return false;
	return true;
}

void guest_mods_free(struct guest_mods *g)
{
	if (g->dir)
		remove_tree(g->dir);
	pv_free_all(&g->host_paths);
	pv_free_all(&g->guest_paths);
	pv_free_all(&g->names);
	free(g->dir);
	g->dir = NULL;
}
