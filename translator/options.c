// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The command line, SystemTap's where it has an equivalent. Everything it
 * decides goes into struct session; nothing else reads argv.
 */
#include <errno.h>
#include <limits.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "front/diag.h"
#include "options.h"
#include "private.h"

static const struct {
	const char *name;
	long long def;
	const char *what;
} limit_info[] = {
#define X(name, def, what) { #name, def, what },
	LIMITS(X)
#undef X
};

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: stap [options] SCRIPT.stp [ARG ...]\n"
		"       stap [options] - [ARG ...]     (the script on standard input)\n"
		"       stap [options] -e 'SCRIPT' [ARG ...]\n"
		"\n"
		"Translate a probe script into a kernel module and run it. The ARGs are the\n"
		"script's arguments: $1 (as written) and @1 (as a string), $# their count.\n"
		"\n"
		"  -e SCRIPT     the script itself instead of a file\n"
		"  -p N          stop after pass N and print its result:\n"
		"                1 parse, 2 elaborate, 3 translate to C, 4 build the module, 5 run\n"
		"  -v            say what each pass did and how long it took (repeat for more)\n"
		"  -k            keep the temporary directory and say where it is\n"
		"  -m NAME       name of the module (default: stap_ and a hash of the script)\n"
		"  -r RELEASE    build for kernel RELEASE (default: the running kernel; with --vm,\n"
		"                the newest installed one)\n"
		"  -o FILE       write the script's output to FILE\n"
		"  -S SIZE[,N]   with -o: write FILE.0, FILE.1, ... of SIZE megabytes each,\n"
		"                keeping the last N (switch_file() moves on to the next)\n"
		"  -F            once the script has started, run it in the background (flight\n"
		"                recorder); stap exits, `kill PID` stops the script. Without -o,\n"
		"                the last megabyte of output (-S SIZE: megabytes) is kept in\n"
		"                memory: `staprun -A NAME` shows it, and Ctrl-C there stops it\n"
		"  -c CMD        run CMD while the script runs; the script stops when it exits;\n"
		"                target() is its process id\n"
		"  -x PID        target() returns PID\n"
		"  -D NAME=VAL   set a runtime limit: MAXSTRINGLEN, MAXACTION,\n"
		"                MAXACTION_INTERRUPTIBLE, MAXNESTING, MAXMAPENTRIES, MAXTRYLOCK,\n"
		"                TRYLOCKDELAY, MAXERRORS, MAXSKIPPED, MAXACTIVE, HIST_ELISION,\n"
		"                MAXHITTIME (us one hit may run), MAXMEMORY (KiB the script may\n"
		"                take), STP_OVERLOAD_THRESHOLD and STP_OVERLOAD_INTERVAL (ns);\n"
		"                -D STP_NO_OVERLOAD turns the overload check off; MAXBACKTRACE\n"
		"                (frames, at most 64), KRETACTIVE (MAXACTIVE); PROCFS_UMASK\n"
		"                (octal, default 077: procfs files are root's alone; 0: readable\n"
		"                by all, as in SystemTap), PROCFS_MAXOPEN (opens of one procfs\n"
		"                file at once, default 8); -D NAME alone is NAME=1; other names\n"
		"                go to the compiler, as in SystemTap\n"
		"  -s MB         output buffer per CPU, in MiB (default 1)\n"
		"  -I DIR        also read tapsets from DIR\n"
		"  -w            no warnings\n"
		"  -W            warnings are errors\n"
		"  -q            no notes (what stap chose for you), only warnings and errors\n"
		"  -u            unoptimized: keep code without effect\n"
		"  -t            count each probe's hits and time them; report at the end\n"
		"  -T SECONDS    exit() after SECONDS\n"
		"  -d PATH       embed the symbols of the user-space file PATH too (usymname() and\n"
		"                stacks); -d MODULE is accepted (kernel symbols come from kallsyms)\n"
		"  --ldd         -d for the shared libraries the probed programs need\n"
		"  --prologue-searching[=always|never|auto]  accepted for SystemTap's scripts\n"
		"  --skip-badvars  a $variable that cannot be read at a probe is 0 there,\n"
		"                with a warning, instead of an error\n"
		"  --suppress-handler-errors  a hit that fails is skipped and counted, and the\n"
		"                script goes on (as try { ... } catch { next })\n"
		"  --suppress-time-limits  with -g: no overload check, MAXACTION and MAXHITTIME\n"
		"                at their highest\n"
		"  --compatible=VERSION  the version systemtap_v names in %%( %%) conditions;\n"
		"                below 2.6, no autocast in the script\n"
		"  --check-version  warn where the code read depends on systemtap_v\n"
		"  -g            guru mode: embedded C (%%{ ... %%}), and probes on functions the\n"
		"                runtime itself calls\n"
		"  -G NAME=VALUE initial value of the global NAME\n"
		"  -l PP         list the probe points PP matches\n"
		"  -L PP         list them with their variables and types\n"
		"  --vm          run pass 5 in a throwaway qemu guest booting the target kernel\n"
		"  --vm-timeout=S  stop the guest after S seconds (default: no limit)\n"
		"  --vm-file=HOST[:GUEST]  copy a file into the --vm guest (default: at the\n"
		"                same path); repeatable\n"
		"  --vm-module=NAME|PATH  load a module (and what it depends on) in the --vm\n"
		"                guest before the script starts; repeatable\n"
		"  --vm-net=HOSTPORT:GUESTPORT  give the --vm guest a network (10.0.2.15)\n"
		"                with its TCP port GUESTPORT at 127.0.0.1:HOSTPORT on the host\n"
		"  --debuginfo-path=DIR[:DIR]  look for modules' debug files (NAME.ko with\n"
		"                DWARF, NAME.ko.debug) under these directories first\n"
		"  --debug-archive=FILE  an offline debug archive (eu-make-debug-archive) to use\n"
		"                after /lib/modules/R/debug.a and /usr/lib/debug/lib/modules/R/debug.a\n"
		"  --btf         kernel functions' $parameters from the kernel's BTF even where\n"
		"                its DWARF is installed (without DWARF, BTF is used anyway)\n"
		"  --symtab      symbol tables only: no DWARF, no BTF; arguments by position\n"
		"                (int_arg(N), pointer_arg(N), ...) and returnval()\n"
		"  --disable-cache  build the module even if an unchanged run built it before,\n"
		"                and keep nothing in the module cache\n"
		"  --clean-cache  empty the module cache (~/.cache/tapline/compiled) and exit,\n"
		"                unless a script is given too\n"
		"  --probe-cache[=DIR]  keep the probe sites resolved through debug information\n"
		"                under DIR (default ~/.cache/tapline/probes), one directory per\n"
		"                build-id, and use them: the same probes read by the same\n"
		"                expressions then need no debug information\n"
		"  --sign-key=KEY --sign-cert=CERT  sign the module with this private key and\n"
		"                its X.509 certificate (PEM or DER), as the kernel's sign-file does,\n"
		"                for a kernel that demands signed modules (module.sig_enforce,\n"
		"                lockdown, Secure Boot). Without them, stap signs with the first\n"
		"                readable pair of the kernel build tree's certs/signing_key.pem and\n"
		"                certs/signing_key.x509, or DKMS's /var/lib/dkms/mok.key and\n"
		"                mok.pub (-v says which)\n"
		"  --dump-functions  list every function scripts can call (with -v, what each\n"
		"                does) and exit\n"
		"  --dump-probe-aliases  list the tapset library's probe aliases and exit\n"
		"  --dump-probe-types  list the shapes of the probe points stap places\n"
		"                itself (the families the aliases are made of) and exit\n"
		"  --all-modules accepted for SystemTap's scripts: symbols and call chains\n"
		"                always name every loaded module's functions\n"
		"  -h, --help    this text\n"
		"  -V, --version the version\n");
}

/* The whole of text as a number (decimal, 0x hex or 0 octal). */
static bool to_number(const char *text, long long *v)
{
	char *end;
	errno = 0;
	*v = strtoll(text, &end, 0);
	return *text && !*end && !errno;
}

static long long parse_signed(const char *text, const char *what)
{
	long long v;
	if (!to_number(text, &v))
		fatal("%s must be a number, not '%s'", what, text);
	return v;
}

static long long parse_number(const char *text, const char *what)
{
	long long v;
	if (!to_number(text, &v) || v < 0)
		fatal("%s must be a non-negative number, not '%s'", what, text);
	return v;
}

/* SystemTap's names for the same limits. */
static const char *limit_alias(const char *name)
{
	if (!strcmp(name, "STP_MAXMEMORY"))
		return "MAXMEMORY";
	/* SystemTap's kretprobe maxactive, which MAXACTIVE is here. */
	if (!strcmp(name, "KRETACTIVE"))
		return "MAXACTIVE";
	return name;
}

static void set_limit(struct session *s, const char *arg)
{
	const char *eq = strchr(arg, '=');
	/* A flag, as SystemTap's scripts write it: -D STP_NO_OVERLOAD. */
	if (!eq && !strcmp(arg, "STP_NO_OVERLOAD")) {
		s->limits[LIMIT_STP_NO_OVERLOAD] = 1;
		s->limit_set[LIMIT_STP_NO_OVERLOAD] = true;
		return;
	}
	/* -D NAME alone is NAME=1, as the compiler takes it. */
	size_t nlen = eq ? (size_t)(eq - arg) : strlen(arg);
	const char *value = eq ? eq + 1 : "1";
	if (nlen == 0)
		fatal("-D wants NAME or NAME=VALUE, e.g. -D MAXACTION=10000 (got '%s')", arg);
	char *alias = xstrndup(arg, nlen);
	char *name = xstrdup(limit_alias(alias));
	free(alias);
	for (int i = 0; i < NLIMITS; i++) {
		if (!strcmp(name, limit_info[i].name)) {
			/* Only HIST_ELISION means something below 0 (keep every row). */
			s->limits[i] = i == LIMIT_HIST_ELISION ? parse_signed(value, name)
							       : parse_number(value, name);
			s->limit_set[i] = true;
			free(name);
			return;
		}
	}
	/* Names Tapline has no use for go to the compiler, as SystemTap's do
	 * (the generated C reads none of them); one close to a limit's name
	 * is more likely a typing mistake, and is refused. */
	struct suggest sg;
	suggest_init(&sg, name);
	for (int i = 0; i < NLIMITS; i++)
		suggest_offer(&sg, limit_info[i].name);
	suggest_offer(&sg, "STP_MAXMEMORY");
	if (sg.best[0]) {
		fprintf(stderr, "stap: -D %s: unknown limit\n", name);
		suggest_hint(&sg, NULL);
		exit(1);
	}
	for (const char *p = name; *p; p++)
		if (!(*p == '_' || (*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') ||
		      (p > name && *p >= '0' && *p <= '9')))
			fatal("-D %s: not a name the compiler takes", name);
	/* The value goes into a Kbuild file too (guru mode): plain words only. */
	for (const char *p = value; *p; p++)
		if (!(*p == '_' || *p == '.' || *p == '-' || *p == '+' || (*p >= '0' && *p <= '9') ||
		      (*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z')))
			fatal("-D %s=%s: the value may hold letters, digits and _ . + - only", name,
			      value);
	pv_push(&s->cc_defines, xasprintf("%s=%s", name, value));
	free(name);
}

static bool valid_module_name(const char *name)
{
	size_t n = strlen(name);
	if (n == 0 || n > OPTIONS_MAX_MODULE_NAME)
		return false;
	for (const char *p = name; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || *p == '_'))
			return false;
	return true;
}

void options_parse(struct session *s, int argc, char **argv)
{
	enum { OPT_VM = 256, OPT_VM_TIMEOUT, OPT_VM_FILE, OPT_VM_MODULE, OPT_VM_NET, OPT_LDD, OPT_COMPATIBLE,
	       OPT_SUPPRESS_HANDLER_ERRORS, OPT_SUPPRESS_TIME_LIMITS, OPT_DEBUGINFO_PATH, OPT_DEBUG_ARCHIVE, OPT_BTF, OPT_SYMTAB,
	       OPT_PROBE_CACHE, OPT_DUMP_FUNCTIONS, OPT_DUMP_PROBE_ALIASES, OPT_DUMP_PROBE_TYPES, OPT_ALL_MODULES,
	       OPT_SIGN_KEY, OPT_SIGN_CERT, OPT_DISABLE_CACHE, OPT_CLEAN_CACHE, OPT_PROLOGUE_SEARCHING,
	       OPT_SKIP_BADVARS, OPT_CHECK_VERSION };
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ "vm", no_argument, NULL, OPT_VM },
		{ "vm-timeout", required_argument, NULL, OPT_VM_TIMEOUT },
		{ "vm-file", required_argument, NULL, OPT_VM_FILE },
		{ "vm-module", required_argument, NULL, OPT_VM_MODULE },
		{ "vm-net", required_argument, NULL, OPT_VM_NET },
		{ "ldd", no_argument, NULL, OPT_LDD },
		{ "compatible", required_argument, NULL, OPT_COMPATIBLE },
		{ "check-version", no_argument, NULL, OPT_CHECK_VERSION },
		{ "suppress-handler-errors", no_argument, NULL, OPT_SUPPRESS_HANDLER_ERRORS },
		{ "skip-badvars", no_argument, NULL, OPT_SKIP_BADVARS },
		{ "suppress-time-limits", no_argument, NULL, OPT_SUPPRESS_TIME_LIMITS },
		{ "debuginfo-path", required_argument, NULL, OPT_DEBUGINFO_PATH },
		{ "debug-archive", required_argument, NULL, OPT_DEBUG_ARCHIVE },
		{ "btf", no_argument, NULL, OPT_BTF },
		{ "symtab", no_argument, NULL, OPT_SYMTAB },
		{ "probe-cache", optional_argument, NULL, OPT_PROBE_CACHE },
		{ "dump-functions", no_argument, NULL, OPT_DUMP_FUNCTIONS },
		{ "dump-probe-aliases", no_argument, NULL, OPT_DUMP_PROBE_ALIASES },
		{ "dump-probe-types", no_argument, NULL, OPT_DUMP_PROBE_TYPES },
		{ "all-modules", no_argument, NULL, OPT_ALL_MODULES },
		{ "sign-key", required_argument, NULL, OPT_SIGN_KEY },
		{ "sign-cert", required_argument, NULL, OPT_SIGN_CERT },
		{ "disable-cache", no_argument, NULL, OPT_DISABLE_CACHE },
		{ "clean-cache", no_argument, NULL, OPT_CLEAN_CACHE },
		{ "prologue-searching", optional_argument, NULL, OPT_PROLOGUE_SEARCHING },
		{ NULL, 0, NULL, 0 },
	};
	for (int i = 0; i < NLIMITS; i++)
		s->limits[i] = limit_info[i].def;
	s->argc = argc;
	s->argv = argv;
	s->last_pass = 5;
	int c;
	/* Options may follow the script, as with SystemTap (stap script.stp
	 * -c CMD): getopt moves the words that are not options, the script
	 * and its arguments, to the end; "--" ends the options. */
	while ((c = getopt_long(argc, argv, "e:p:vkm:r:o:S:Fc:x:D:s:I:wWqutT:d:gG:l:L:hV", longopts, NULL)) != -1) {
		switch (c) {
		case 'F':
			s->background = true;
			break;
		case 'e':
			if (s->script_text)
				fatal("-e gives the script once; put all of it in one -e");
			s->script_text = optarg;
			break;
		case 'l':
		case 'L':
			/* List the probe points PP matches: a script of one empty probe,
			 * resolved and printed instead of built. */
			s->list = c == 'l' ? 1 : 2;
			s->script_text = xasprintf("probe %s {}", optarg);
			s->last_pass = 2;
			break;
		case 'p':
			s->last_pass = (int)parse_number(optarg, "-p");
			if (s->last_pass < 1 || s->last_pass > 5)
				fatal("-p takes a pass number from 1 to 5, not %s", optarg);
			break;
		case 'v':
			s->verbose++;
			break;
		case 'k':
			s->keep_temps = true;
			break;
		case 'm':
			if (!valid_module_name(optarg))
				fatal("module name '%s' must be 1 to %d letters, digits or '_'", optarg,
				      OPTIONS_MAX_MODULE_NAME);
			s->module_name = optarg;
			break;
		case 'r':
			s->release = optarg;
			break;
		case 'o':
			s->output_file = optarg;
			break;
		case 'S': {
			/* SIZE[,N]: staprun checks the numbers and rotates the files. */
			char *end;
			long mb = strtol(optarg, &end, 10);
			if (mb < 1 || mb > 1048576 || (*end && (*end != ',' || strtol(end + 1, &end, 10) < 1 || *end))) {
				fprintf(stderr, "stap: -S takes SIZE[,N]: megabytes per output file (1 to "
						"1048576) and how many files to keep, not '%s'\n", optarg);
				exit(1);
			}
			s->output_switch = optarg;
			break;
		}
		case 'c':
			s->target_cmd = optarg;
			break;
		case 'x': {
			char *end;
			errno = 0;
			long long pid = strtoll(optarg, &end, 10);
			/* PID_MAX_LIMIT: no kernel hands out larger process ids. */
			if (errno || end == optarg || *end || pid < 1 || pid > OPTIONS_PID_MAX)
				fatal("-x takes a process id from 1 to %d, not '%s'", OPTIONS_PID_MAX,
				      optarg);
			s->target_pid = (long)pid;
			break;
		}
		case 'D':
			set_limit(s, optarg);
			break;
		case 's':
			s->limits[LIMIT_BUFFER_KB] = parse_number(optarg, "-s") * 1024;
			s->limit_set[LIMIT_BUFFER_KB] = true;
			break;
		case 'I':
			pv_push(&s->include_dirs, optarg);
			break;
		case 'w':
			s->no_warnings = true;
			break;
		case 'W':
			s->warnings_are_errors = true;
			break;
		case 'q':
			s->quiet = true;
			break;
		case 'u':
			s->unoptimized = true;
			break;
		case 't':
			s->timing = true;
			break;
		case 'T': {
			long long t = parse_number(optarg, "-T");
			if (t < 1 || t > 365LL * 24 * 3600)
				fatal("-T takes a number of seconds from 1 to a year, not %s", optarg);
			s->exit_after_s = (int)t;
			break;
		}
		case 'd':
			/* A kernel module's symbols come from kallsyms when it is
			 * loaded; a user file's are embedded (usymname() and the like). */
			if (strchr(optarg, '/'))
				pv_push(&s->symbol_files, optarg);
			break;
		case OPT_LDD:
			s->ldd = true;
			break;
		case OPT_PROLOGUE_SEARCHING:
			/* Parameters are read where DWARF's location lists say at the
			 * probe's address, with or without a prologue: nothing to choose. */
			if (optarg && strcmp(optarg, "always") && strcmp(optarg, "never") &&
			    strcmp(optarg, "auto"))
				fatal("--prologue-searching takes always, never or auto, not '%s'", optarg);
			break;
		case OPT_COMPATIBLE:
			s->compatible = optarg;
			break;
		case OPT_CHECK_VERSION:
			s->check_version = true;
			break;
		case OPT_SUPPRESS_HANDLER_ERRORS:
			s->suppress_handler_errors = true;
			break;
		case OPT_SKIP_BADVARS:
			s->skip_badvars = true;
			break;
		case OPT_SUPPRESS_TIME_LIMITS:
			s->suppress_time_limits = true;
			break;
		case 'g':
			s->guru = true;
			break;
		case 'G':
			if (!strchr(optarg, '=') || optarg[0] == '=')
				fatal("-G wants NAME=VALUE, e.g. -G limit=10 (got '%s')", optarg);
			pv_push(&s->global_inits, optarg);
			break;
		case OPT_VM:
			s->vm = true;
			break;
		case OPT_ALL_MODULES:
			/* The runtime symbolizes through the kernel's kallsyms, which
			 * holds every loaded module's symbols already. */
			break;
		case OPT_VM_TIMEOUT:
			s->vm_timeout = (int)parse_number(optarg, "--vm-timeout");
			break;
		case OPT_VM_FILE:
			if (!optarg[0] || optarg[0] == ':')
				fatal("--vm-file wants HOST[:GUEST], e.g. --vm-file=./prog:/bin/prog");
			pv_push(&s->vm_files, optarg);
			break;
		case OPT_VM_NET: {
			unsigned hp, gp;
			char end;
			if (sscanf(optarg, "%u:%u%c", &hp, &gp, &end) != 2 || !hp || hp > 65535 || !gp ||
			    gp > 65535)
				fatal("--vm-net wants HOSTPORT:GUESTPORT, e.g. --vm-net=19900:9900");
			s->vm_net = optarg;
			break;
		}
		case OPT_VM_MODULE:
			if (!optarg[0])
				fatal("--vm-module wants a module name or the path of a .ko file");
			pv_push(&s->vm_modules, optarg);
			break;
		case OPT_DEBUGINFO_PATH:
			/* DIR[:DIR...], as libdwfl's own path lists are written */
			for (char *d = strtok(optarg, ":"); d; d = strtok(NULL, ":"))
				pv_push(&s->debuginfo_dirs, d);
			break;
		case OPT_DEBUG_ARCHIVE:
			if (!file_exists(optarg))
				fatal("--debug-archive %s: no such file", optarg);
			s->debug_archive = optarg;
			break;
		case OPT_BTF:
			s->force_btf = true;
			break;
		case OPT_SYMTAB:
			s->force_symtab = true;
			break;
		case OPT_DUMP_FUNCTIONS:
			s->dump = DUMP_FUNCTIONS;
			break;
		case OPT_DUMP_PROBE_ALIASES:
			s->dump = DUMP_PROBE_ALIASES;
			break;
		case OPT_DUMP_PROBE_TYPES:
			s->dump = DUMP_PROBE_TYPES;
			break;
		case OPT_SIGN_KEY:
			s->sign_key = optarg;
			break;
		case OPT_SIGN_CERT:
			s->sign_cert = optarg;
			break;
		case OPT_DISABLE_CACHE:
			s->disable_cache = true;
			break;
		case OPT_CLEAN_CACHE:
			s->clean_cache = true;
			break;
		case OPT_PROBE_CACHE:
			/* stap builds modules from what is in it: ours alone. */
			if (optarg)
				private_dir(optarg, true, "the probe cache",
					    "choose a directory of your own");
			s->probe_cache = optarg ? xstrdup(optarg) : cache_dir("probes");
			break;
		case 'h':
			usage(stdout);
			exit(0);
		case 'V':
			printf("Tapline stap %s (runtime API %d)\n", TAPLINE_VERSION, 1);
			exit(0);
		default:
			fprintf(stderr, "Try 'stap --help'.\n");
			exit(1);
		}
	}
	if (!s->script_text && !s->dump) {
		/* --clean-cache alone: only that. */
		if (optind >= argc && s->clean_cache)
			return;
		if (optind >= argc) {
			usage(stderr);
			exit(1);
		}
		/* "-" is the standard input, read in pass 1. */
		s->script_file = argv[optind++];
	}
	/* The rest are the script's arguments: $1, @1, ... */
	s->script_args = argv + optind;
	s->nscript_args = argc - optind;
	if (s->target_cmd && s->target_pid)
		fatal("-c and -x cannot be used together");
	if (s->output_switch && !s->output_file && !s->background)
		fatal("-S switches between output files: it needs -o FILE (or, with -F, sizes "
		      "the output kept in memory)");
	if (s->background && s->vm)
		fatal("-F runs the script in the background, and a --vm guest ends with stap: "
		      "drop one of them");
	if (!s->sign_key != !s->sign_cert)
		fatal("--sign-key and --sign-cert go together: a key signs, and the kernel checks "
		      "the signature with its certificate");
	if (s->limits[LIMIT_MAXSTRINGLEN] < 16 || s->limits[LIMIT_MAXSTRINGLEN] > 65536)
		fatal("MAXSTRINGLEN must be between 16 and 65536");
	/* Upper bounds keep a limit from becoming a way to hang or exhaust the
	 * kernel: MAXACTION statements run with interrupts off. */
	static const struct {
		enum limit_id id;
		long long min, max;
	} bounds[] = {
		{ LIMIT_MAXACTION, 1, 1000000 },       { LIMIT_MAXACTION_INTERRUPTIBLE, 1, 100000000 },
		{ LIMIT_MAXNESTING, 1, 100 },          { LIMIT_MAXTRYLOCK, 0, 100000 },
		{ LIMIT_TRYLOCKDELAY, 0, 1000 },       { LIMIT_HIST_ELISION, -1, 1000 },
		{ LIMIT_MAXSKIPPED, 0, 1000000000 },   { LIMIT_MAXACTIVE, 0, 4096 },
		{ LIMIT_MAXWILDCARD, 1, 1000000 },      { LIMIT_MAXMAPENTRIES, 1, INT_MAX },
		{ LIMIT_MAXERRORS, 0, 1000000000 },
		/* The watchdogs act after 10 s (hard lockup) to 21 s (RCU stall). */
		{ LIMIT_MAXHITTIME, 100, 1000000 },
		{ LIMIT_STP_OVERLOAD_INTERVAL, 1000000, 100000000000LL },
		{ LIMIT_STP_OVERLOAD_THRESHOLD, 1, 100000000000LL },
		{ LIMIT_STP_NO_OVERLOAD, 0, 1 },
		{ LIMIT_MAXMEMORY, 0, 1LL << 40 },     { LIMIT_MAXBACKTRACE, 1, 64 },
		{ LIMIT_MAXUSTACK, 64, 65536 },
		{ LIMIT_PROCFS_UMASK, 0, 0777 },       { LIMIT_PROCFS_MAXOPEN, 1, 1024 },
	};
	for (size_t i = 0; i < ARRAY_SIZE(bounds); i++) {
		long long v = s->limits[bounds[i].id];
		if (v < bounds[i].min || v > bounds[i].max)
			fatal("%s must be between %lld and %lld, not %lld", limit_info[bounds[i].id].name,
			      bounds[i].min, bounds[i].max, v);
	}
	if (s->limits[LIMIT_STP_OVERLOAD_THRESHOLD] > s->limits[LIMIT_STP_OVERLOAD_INTERVAL])
		fatal("STP_OVERLOAD_THRESHOLD (%lld) must not be more than STP_OVERLOAD_INTERVAL (%lld)",
		      s->limits[LIMIT_STP_OVERLOAD_THRESHOLD], s->limits[LIMIT_STP_OVERLOAD_INTERVAL]);
	/* The limits that bound a hit's time, lifted as far as the kernel's
	 * watchdogs allow (the bounds above still hold): guru mode only, as in
	 * SystemTap, since a slow handler then slows the whole machine. */
	if (s->suppress_time_limits) {
		if (!s->guru)
			fatal("--suppress-time-limits lets handlers take all of a CPU: it needs guru "
			      "mode (-g)");
		s->limits[LIMIT_STP_NO_OVERLOAD] = 1;
		if (!s->limit_set[LIMIT_MAXACTION])
			s->limits[LIMIT_MAXACTION] = 1000000;
		if (!s->limit_set[LIMIT_MAXHITTIME])
			s->limits[LIMIT_MAXHITTIME] = 1000000;
	}
	if ((s->vm_files.n || s->vm_modules.n || s->vm_net) && !s->vm)
		fatal("--vm-file, --vm-module and --vm-net are for a --vm guest: add --vm");
	/* A guest under TCG runs each virtual CPU as a host thread, which the
	 * host may pause for milliseconds while it holds a global's lock: with
	 * --vm, wait up to the 0.1 s bound below by default rather than skip. */
	if (s->vm && !s->limit_set[LIMIT_MAXTRYLOCK]) {
		long long delay = s->limits[LIMIT_TRYLOCKDELAY];
		s->limits[LIMIT_MAXTRYLOCK] = delay > 0 ? 100000 / delay : 100000;
	}
	/* A hit waits for locks with interrupts off: at most 0.1 s in all. */
	if (s->limits[LIMIT_MAXTRYLOCK] * s->limits[LIMIT_TRYLOCKDELAY] > 100000)
		fatal("MAXTRYLOCK x TRYLOCKDELAY (%lld x %lld us) must stay within 0.1 s",
		      s->limits[LIMIT_MAXTRYLOCK], s->limits[LIMIT_TRYLOCKDELAY]);
	if (s->limits[LIMIT_BUFFER_KB] < 16 || s->limits[LIMIT_BUFFER_KB] > 1024 * 1024)
		fatal("the output buffer (-s) must be between 1 and 1024 MiB");
	diag_set_warnings(!s->no_warnings);
	diag_set_warnings_are_errors(s->warnings_are_errors);
}

/* SystemTap's default module name: stap_ and a hash of what was compiled. */
char *options_default_module_name(const struct session *s, const char *script, size_t len)
{
	uint64_t h = hash_bytes(HASH_INIT, script, len);
	h = hash_bytes(h, s->release, strlen(s->release));
	h = hash_bytes(h, s->limits, sizeof s->limits);
	return xasprintf("stap_%016llx", (unsigned long long)h);
}
