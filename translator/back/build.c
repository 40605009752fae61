// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Pass 4: generated C to NAME.ko, without kbuild. The script's C file is
 * compiled with the kernel's own compiler command (from the stub), checked
 * by objtool as kbuild would (its warnings are errors here: a module it
 * complains about can break unwinding or mitigations), linked with the
 * stub's objects, named, and its imports verified.
 *
 * The generated C carries #line directives, so a compiler message points
 * at the script line that produced the code.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "back/back.h"
#include "front/diag.h"

/* A stub command with its two placeholders filled in (paths never contain them). */
static char *fill(const char *tmpl, const char *a_name, const char *a, const char *b_name,
		  const char *b)
{
	char *once = str_replace_all(tmpl, a_name, a);
	if (!b_name)
		return once;
	char *twice = str_replace_all(once, b_name, b);
	free(once);
	return twice;
}

static void build_failed(struct session *s, const char *what, const char *output)
{
	fprintf(stderr, "stap: %s failed:\n%s", what, output ? output : "");
	if (output && *output && output[strlen(output) - 1] != '\n')
		fputc('\n', stderr);
	fprintf(stderr, "stap: the generated files are kept in %s\n", s->tmpdir);
	s->keep_temps = true;
}

/* Run a command in the kernel build tree; output on failure (or any output for objtool). */
static bool step(struct session *s, const struct stub *st, const char *what, const char *cmd,
		 bool output_is_failure)
{
	char *out = NULL;
	uint64_t t0 = now_ns();
	int rc = run_shell(cmd, st->kbuild_dir, &out);
	if (s->verbose > 1)
		fprintf(stderr, "%s: %llu ms: %s\n", what,
			(unsigned long long)((now_ns() - t0) / 1000000), cmd);
	bool ok = rc == 0 && !(output_is_failure && out && *out);
	if (!ok)
		build_failed(s, what, out);
	free(out);
	return ok;
}

int build_module(struct session *s)
{
	struct stub *st = stub_get(s);
	if (!st)
		return 1;
	const char *name = s->module_name;
	const char *src = s->c_file;
	char *obj = xasprintf("%s/%s.o", s->tmpdir, name);
	char *ko = xasprintf("%s/%s.ko", s->tmpdir, name);
	int errors = 0;

	/* kbuild's command already has -I for the stub's directory (api.h).
	 * -g1 keeps line tables (crash dumps, #line) but drops variable
	 * location tracking, which is more than half of gcc's time on long
	 * generated bodies; the unwinder uses ORC from objtool, not DWARF. */
	char *cc0 = fill(st->cc, "@SRC@", src, "@OBJ@", obj);
	char *cc = xasprintf("%s -g1", cc0);
	free(cc0);
	char *objtool = fill(st->objtool, "@OBJ@", obj, NULL, NULL);
	char *inputs = xasprintf("%s %s %s", st->runtime_obj, obj, st->mod_obj);
	char *ld = fill(st->ld, "@IN@", inputs, "@OUT@", ko);

	if (!step(s, st, "compiling the generated C", cc, false) ||
	    (*objtool && !step(s, st, "objtool", objtool, true)) ||
	    !step(s, st, "linking the module", ld, false)) {
		errors = 1;
		goto out;
	}
	char *why = NULL;
	if (!link_set_module_name(ko, name, &why) || !link_check_imports(ko, &why)) {
		build_failed(s, "finishing the module", why);
		free(why);
		errors = 1;
		goto out;
	}
	s->ko_file = ko;
	ko = NULL;
out:
	free(cc);
	free(objtool);
	free(inputs);
	free(ld);
	free(obj);
	free(ko);
	return errors;
}
