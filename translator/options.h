/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The command line into struct session; see options.c. */
#ifndef TAPLINE_OPTIONS_H
#define TAPLINE_OPTIONS_H

#include "session.h"

/* The kernel allows 55 bytes (MODULE_NAME_LEN - 1). */
#define OPTIONS_MAX_MODULE_NAME 55
/* The largest process id a 64-bit kernel hands out (PID_MAX_LIMIT). */
#define OPTIONS_PID_MAX 4194304

void options_parse(struct session *s, int argc, char **argv);
char *options_default_module_name(const struct session *s, const char *script, size_t len);

#endif
