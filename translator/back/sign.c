// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Signing the finished module, for kernels that load only modules signed
 * with a key they trust (module.sig_enforce, lockdown, Secure Boot).
 *
 * The kernel's own scripts/sign-file does it, from the target kernel's
 * build tree (on Debian a program from linux-kbuild-X): it appends a
 * PKCS#7 signature of the module, the signature's length in a struct
 * module_signature, and the magic "~Module signature appended~\n". It runs
 * after the checksum is written, so the signature covers the module as
 * staprun will check it, and staprun leaves the trailer out of its hash.
 *
 * The key is --sign-key/--sign-cert, or else one found the way kbuild
 * finds one: the build tree's certs/signing_key.pem with its .x509 (a
 * kernel built here), then DKMS's MOK key (how Debian signs out-of-tree
 * modules for Secure Boot). A key given that cannot be used is an error;
 * when none was given, finding none (or none readable) just means the
 * module is not signed, which most kernels accept.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "back/back.h"
#include "contract/module.h"

/* The hash sign-file signs with; every kernel with module signing has it. */
#define SIGN_HASH "sha256"

struct sign_key {
	char *key, *cert;
	const char *what;        /* for -v: whose key it is */
};

/* Can this process read PATH?  (access() says yes to root for any file.) */
static bool readable(const char *path, int *err)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		*err = errno;
		return false;
	}
	close(fd);
	return true;
}

/* The first readable key pair kbuild or DKMS would sign with, or false. */
static bool find_key(struct session *s, const struct stub *st, struct sign_key *k)
{
	struct sign_key candidates[] = {
		{ path_join(st->kbuild_dir, "certs/signing_key.pem"),
		  path_join(st->kbuild_dir, "certs/signing_key.x509"), "the kernel build tree's key" },
		{ xstrdup("/var/lib/dkms/mok.key"), xstrdup("/var/lib/dkms/mok.pub"), "DKMS's MOK key" },
	};
	/* The test suite's results must not depend on this machine's keys. */
	bool found = false, look = !getenv("TAPLINE_NO_SYSTEM_SIGNING_KEY");
	for (size_t i = 0; i < ARRAY_SIZE(candidates); i++) {
		struct sign_key *c = &candidates[i];
		int err = ENOENT;
		if (look && !found && readable(c->key, &err) && readable(c->cert, &err)) {
			*k = *c;
			found = true;
			continue;
		}
		if (look && !found && err != ENOENT && s->verbose)
			fprintf(stderr, "Pass 4: not signing with %s (%s, %s): %s\n", c->what, c->key,
				c->cert, strerror(err));
		free(c->key);
		free(c->cert);
	}
	if (!found && s->verbose)
		fprintf(stderr, "Pass 4: the module is not signed: no --sign-key given and no key "
				"found (%s/certs/signing_key.pem, /var/lib/dkms/mok.key)\n",
			st->kbuild_dir);
	return found;
}

/* Does the signed file end with a signature trailer the kernel will parse? */
static bool has_signature(const char *ko, char **why)
{
	size_t len, content, sig = 0;
	char err[SR_ERR_MAX] = "";
	unsigned char *image = (unsigned char *)read_file(ko, &len);
	bool ok = image && !sr_signature_split(image, len, &content, &sig, ko, err, sizeof err) &&
		  sig > 0;
	if (!ok)
		*why = xasprintf("sign-file left no signature on %s%s%s", ko, *err ? ": " : "", err);
	free(image);
	return ok;
}

int sign_module(struct session *s, const struct stub *st, const char *ko)
{
	struct sign_key k;
	bool given = s->sign_key != NULL;
	if (given) {
		k = (struct sign_key){ xstrdup(s->sign_key), xstrdup(s->sign_cert), "the key given" };
		int err = 0;
		const char *bad = !readable(k.key, &err) ? k.key : !readable(k.cert, &err) ? k.cert : NULL;
		if (bad) {
			fprintf(stderr, "stap: cannot sign the module: cannot read %s: %s\n", bad,
				strerror(err));
			free(k.key);
			free(k.cert);
			return 1;
		}
	} else if (!find_key(s, st, &k)) {
		return 0;
	}

	int errors = 0;
	char *sign_file = path_join(st->kbuild_dir, "scripts/sign-file");
	if (access(sign_file, X_OK) != 0) {
		if (given) {
			fprintf(stderr, "stap: cannot sign the module: no %s (the kernel's sign-file "
					"comes with its build tree: on Debian, the linux-kbuild package "
					"of kernel %s)\n",
				sign_file, s->release);
			errors = 1;
		} else if (s->verbose) {
			fprintf(stderr, "Pass 4: the module is not signed: no %s to sign it with %s\n",
				sign_file, k.what);
		}
		goto out;
	}
	const char *argv[] = { sign_file, SIGN_HASH, k.key, k.cert, ko, NULL };
	char *out = NULL, *why = NULL;
	int rc = run_command(argv, NULL, &out);
	if (rc != 0) {
		fprintf(stderr, "stap: signing the module with %s failed (sign-file exit %d):\n%s", k.key,
			rc, out ? out : "");
		if (out && *out && out[strlen(out) - 1] != '\n')
			fputc('\n', stderr);
		errors = 1;
	} else if (!has_signature(ko, &why)) {
		fprintf(stderr, "stap: %s\n", why);
		free(why);
		errors = 1;
	} else if (s->verbose) {
		fprintf(stderr, "Pass 4: signed the module with %s (%s, certificate %s)\n", k.what,
			k.key, k.cert);
	}
	free(out);
out:
	free(sign_file);
	free(k.key);
	free(k.cert);
	return errors;
}
