/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The preprocessor, between the lexer and the grammar: script arguments
 * ($1, @1, $#, @#), macros (@define, from the file itself or from .stpm
 * files, and @MAXSTRINGLEN), and conditionals (%( CONDITION %? TOKENS %: TOKENS %)) decided by
 * the target kernel's version, architecture and configuration.
 */
#ifndef TAPLINE_PREPROC_H
#define TAPLINE_PREPROC_H

#include <stdbool.h>

#include "front/source.h"
#include "util.h"

/* What conditions and arguments refer to; filled by the driver. */
struct pp_env {
	const char *release;     /* kernel_v, kernel_vr; NULL: no target kernel known */
	const char *arch;        /* arch */
	const char *config_path; /* the kernel's .config, read at the first CONFIG_ test */
	bool guru;               /* guru_mode */
	const char *systemtap_v; /* --compatible=VERSION, else PP_SYSTEMTAP_VERSION */
	bool check_version;      /* --check-version: warn at each systemtap_v test */
	long long maxstringlen;  /* @MAXSTRINGLEN: -D MAXSTRINGLEN, the string size */
	char **argv;             /* $1 ... $argc */
	int argc;
	struct ptrvec public_macros; /* from .stpm files, visible everywhere */
};

/* The value of option name ("CONFIG_HZ") in the target kernel's .config,
 * unquoted; "" when unset. The file is read once. */
const char *pp_config_value(const struct pp_env *env, const char *name);

/* The language version systemtap_v is without --compatible. */
#define PP_SYSTEMTAP_VERSION "5.1"

/* Whether the script asked for a language older than VERSION
 * (--compatible=2.5 is older than "2.6"). */
bool pp_compatible_before(const struct pp_env *env, const char *version);

struct pp;
union STP_STYPE;

/* Preprocess source FILE; definitions_only: a .stpm file, whose @defines
 * become public (anything else in it is an error). */
struct pp *pp_open(int file, struct pp_env *env, bool definitions_only);
void pp_close(struct pp *pp);
/* The next token for the grammar (0 at the end). */
int pp_lex(struct pp *pp, union STP_STYPE *val, struct loc *loc);
/* The lexer's state of the file: what it reported already. */
struct lex_state *pp_lex_state(struct pp *pp);

/* The raw scanner (lexer.l) the preprocessor reads. */
struct lex_state;
void *lex_open(struct lex_state *ls, const char *text, size_t len);
void lex_close(void *scanner);
int lex_scan(void *scanner, union STP_STYPE *val, struct loc *loc);
/* Free what a token of this kind owns (an identifier's or a string's text). */
void lex_value_free(int kind, union STP_STYPE *val);

#endif
