/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Modules for a `stap --vm` guest (--vm-module): each named one with what
 * it depends on, unpacked on the host, in the order to load them.
 */
#ifndef TAPLINE_RUN_GUESTMODS_H
#define TAPLINE_RUN_GUESTMODS_H

#include <stdbool.h>

#include "util.h"

struct guest_mods {
	char *dir;                /* the unpacked files, removed by guest_mods_free */
	struct ptrvec host_paths; /* each module's unpacked file, in load order */
	struct ptrvec guest_paths; /* where it goes in the guest: /m/mods/NAME.ko */
	struct ptrvec names;
};

/* specs: module names (found in the release's modules.dep) or paths of
 * .ko files. False with *why (malloced) when one cannot be had. */
bool guest_mods_resolve(struct guest_mods *g, const char *release, const struct ptrvec *specs,
			char **why);
void guest_mods_free(struct guest_mods *g);
/* Whether the release has NAME as a loadable module (not built in). */
bool guest_mod_exists(const char *release, const char *name);

#endif
