# SPDX-License-Identifier: GPL-2.0-or-later
# Host tests, sourced by testsuite/run-tests (its pass, fail and skip, $stap,
# $release, $work); run_host or the end of the run calls them.

# Caches and temporary files are private, and nothing in a cache is run
# through a shell. A cache another user could write is refused before
# anything in it is read (a command planted there never runs); HOME unset
# means the password database's home, never a name in /tmp someone else
# could create first; a command planted in a private copy of the real
# stub is passed on as text, never interpreted by a shell. The copies keep
# this quick: no stub is built here (the golden tests built the real one).
host_cache_privacy() {
	local dir=$work/privacy name out rc bad marker f
	local script='probe begin { exit() }' real=${XDG_CACHE_HOME:-$HOME/.cache}
	if [ "$(id -u)" -ne 0 ]; then
		skip "host/cache-privacy tests" "they give files to another user (chown), as root"
		return
	fi
	mkdir -m 0700 "$dir" "$dir/run" "$dir/temp"
	marker=$dir/marker
	try() { # XDG_CACHE_HOME, then stap's arguments: its exit status and stderr
		local xdg=$1
		shift
		# (A failed build keeps its temporary directory: here, not in /tmp.)
		out=$(cd "$dir/run" && TMPDIR=$dir/temp XDG_CACHE_HOME=$xdg "$stap" -r "$release" "$@" 2>&1 >/dev/null)
		rc=$?
	}
	# A private copy of the real cache, with the stub these sources need.
	try "$real" -p4 -m warm -e "$script"
	mkdir -m 0700 "$dir/good" "$dir/good/tapline"
	cp -a "$real/tapline/stub" "$real/tapline/kernel" "$real/tapline/tapsets" "$dir/good/tapline/"
	copy() { rm -rf "${dir:?}/$1" && cp -a "$dir/good" "$dir/$1"; }
	# Each stub's stored commands get more text, as if planted: the
	# compile command a second command, the link command a substitution.
	plant() {
		for f in "$dir/$1"/tapline/stub/*/cc.*; do printf '; touch %s\n' "$marker" >>"$f"; done
		for f in "$dir/$1"/tapline/stub/*/ld.*; do printf ' $(touch %s)\n' "$marker" >>"$f"; done
	}

	name=host/planted-stub-command-is-never-run-by-a-shell
	copy planted
	plant planted
	rm -f "$marker"
	try "$dir/planted" -p4 -m planted -e "$script"
	bad=""
	[ -e "$marker" ] && bad+="the planted command ran (compile); "
	[ "$rc" -eq 1 ] || bad+="exit $rc, expected 1; "
	# With an honest compile command, the link's substitution is an argument.
	for f in "$dir"/planted/tapline/stub/*/cc.*; do cp "$dir/good/tapline/stub/${f#"$dir"/planted/tapline/stub/}" "$f"; done
	rm -f "$marker"
	try "$dir/planted" -p4 -m planted -e "$script"
	[ -e "$marker" ] && bad+="the planted command ran (link); "
	[ "$rc" -eq 1 ] || bad+="exit $rc, expected 1 (link); "
	if [ -z "$bad" ]; then pass "$name"; else fail "$name" "$bad$out"; fi

	name=host/world-writable-cache-is-refused
	copy open
	plant open
	chmod 0777 "$dir/open/tapline"
	rm -f "$marker"
	try "$dir/open" -p4 -m open -e "$script"
	bad=""
	[ -e "$marker" ] && bad+="a command from the cache ran; "
	[ "$rc" -eq 1 ] && grep -q "cannot use the cache directory $dir/open/tapline: it is writable by others (mode 0777).*remove it" <<<"$out" ||
		bad+="not refused (exit $rc): $out; "
	# A directory on its path that others may write (and is not sticky).
	mkdir -m 0777 "$dir/shared"
	try "$dir/shared/cache" -p2 -e "$script"
	[ "$rc" -eq 1 ] && grep -q "$dir/shared on its path is writable by others (mode 0777) and not sticky" <<<"$out" ||
		bad+="a world-writable parent was not refused (exit $rc): $out; "
	if [ -z "$bad" ]; then pass "$name"; else fail "$name" "$bad"; fi

	name=host/cache-owned-by-another-user-is-refused
	copy theirs
	chown 65534 "$dir/theirs/tapline"
	try "$dir/theirs" -p2 -e "$script"
	bad=""
	[ "$rc" -eq 1 ] && grep -q "cannot use the cache directory $dir/theirs/tapline: it is owned by uid 65534" <<<"$out" ||
		bad+="another user's cache was used (exit $rc): $out; "
	# A file in the stub, even in a cache of ours.
	chown 0 "$dir/theirs/tapline"
	for f in "$dir"/theirs/tapline/stub/*/cc.*; do chown 65534 "$f"; done
	try "$dir/theirs" -p4 -m theirs -e "$script"
	[ "$rc" -eq 1 ] && grep -q "runtime stub in .* is unusable: .*/cc\.[a-z]* is owned by uid 65534" <<<"$out" ||
		bad+="a stub file of another user was used (exit $rc): $out; "
	if [ -z "$bad" ]; then pass "$name"; else fail "$name" "$bad"; fi

	name=host/world-writable-probe-cache-is-refused
	mkdir -m 0777 "$dir/probes"
	try "$dir/good" -p2 --probe-cache="$dir/probes" -e "$script"
	bad=""
	[ "$rc" -eq 1 ] && grep -q "cannot use the probe cache $dir/probes: it is writable by others" <<<"$out" ||
		bad+="exit $rc: $out; "
	chmod 0700 "$dir/probes"
	chown 65534 "$dir/probes"
	try "$dir/good" -p2 --probe-cache="$dir/probes" -e "$script"
	[ "$rc" -eq 1 ] && grep -q "probe cache $dir/probes: it is owned by uid 65534" <<<"$out" ||
		bad+="another user's probe cache was used (exit $rc): $out; "
	if [ -z "$bad" ]; then pass "$name"; else fail "$name" "$bad"; fi

	name=host/temporary-files-under-a-world-writable-dir-are-refused
	mkdir -m 0777 "$dir/tmp"
	out=$(cd "$dir/run" && TMPDIR=$dir/tmp XDG_CACHE_HOME=$dir/good "$stap" -r "$release" -p4 -m tmp -e "$script" 2>&1 >/dev/null)
	rc=$?
	if [ "$rc" -eq 1 ] && grep -q "cannot make temporary files in $dir/tmp: .* is writable by others (mode 0777) and not sticky" <<<"$out" &&
	   [ -z "$(ls -A "$dir/tmp")" ]; then
		pass "$name"
	else
		fail "$name" "exit $rc: $out"
	fi

	# Without HOME, nothing goes to /tmp: stap runs in a mount namespace
	# where /tmp/tapline-cache-UID, the name earlier versions fell back to,
	# is an empty directory of the test's, to see what it would put there.
	name=host/no-home-uses-the-password-database-not-tmp
	if ! unshare -m true 2>/dev/null; then
		skip "$name" "no mount namespace here (unshare -m)"
		skip host/no-home-anywhere-is-a-clear-error "no mount namespace here (unshare -m)"
		return
	fi
	without_home() { # UID COMMAND...: its stderr and exit status, then what it left there
		local fallback=/tmp/tapline-cache-$1 made=""
		shift
		[ -d "$fallback" ] || { mkdir -m 0700 "$fallback" && made=yes; }
		rm -rf "$dir/fallback" && mkdir -m 0777 "$dir/fallback"
		env -u HOME -u XDG_CACHE_HOME unshare -m sh -c \
			'mount --bind "$1" "$2" && shift 2 && "$@" >/dev/null; echo "exit $?"' \
			sh "$dir/fallback" "$fallback" "$@" 2>&1
		ls -A "$dir/fallback"
		[ -z "$made" ] || rmdir "$fallback"
	}
	out=$(without_home "$(id -u)" "$stap" -r "$release" -p2 -e "$script")
	if [ "$out" = "exit 0" ]; then pass "$name"; else fail "$name" "$out"; fi

	name=host/no-home-anywhere-is-a-clear-error
	local uid=54321
	if getent passwd "$uid" >/dev/null ||
	   ! setpriv --reuid="$uid" --regid="$uid" --clear-groups test -x "$stap" 2>/dev/null; then
		skip "$name" "uid $uid is in the password database or cannot run $stap"
		return
	fi
	out=$(without_home "$uid" setpriv --reuid="$uid" --regid="$uid" --clear-groups \
		"$stap" -r "$release" -p2 -e "$script")
	if [ "$(sed -n 2p <<<"$out")" = "exit 1" ] && [ "$(wc -l <<<"$out")" -eq 2 ] &&
	   grep -q "no cache directory: HOME is not set and uid $uid has no home directory.*set XDG_CACHE_HOME or HOME" <<<"$out"; then
		pass "$name"
	else
		fail "$name" "$out"
	fi
}
