# SPDX-License-Identifier: GPL-2.0-or-later
# Host tests, sourced by testsuite/run-tests (its pass, fail and skip, $stap,
# $release, $work); run_host or the end of the run calls them.

# Tapset files are parsed only when the script uses what they define; the
# index of what each defines follows changes to the files.
host_tapset_index() {
	local name=host/tapset-files-parsed-only-when-used dir=$work/tapsets err out
	mkdir -p "$dir/lib"
	export XDG_CACHE_HOME=$work/cache
	printf 'function lib_twice(x) { return 2 * x }\n' >"$dir/lib/twice.stp"
	printf 'function lib_broken( { this does not parse\n' >"$dir/lib/broken.stp"
	printf 'global lib_counter\nprobe lib.tick = timer.s(1) { lib_counter++ }\n' >"$dir/lib/tick.stp"
	out=$("$stap" -p2 -r "$release" -I "$dir/lib" -e 'probe begin { println(lib_twice(2)) exit() }' 2>&1)
	if [ $? -eq 0 ] && grep -q '^lib_twice:long' <<<"$out" && ! grep -q 'lib_counter' <<<"$out"; then
		pass "$name"
	else
		fail "$name" "$out"
	fi
	name=host/tapset-alias-pulls-in-its-file
	out=$("$stap" -p2 -r "$release" -I "$dir/lib" -e 'probe lib.* { println(lib_counter) }' 2>&1)
	if [ $? -eq 0 ] && grep -q '^lib_counter:long' <<<"$out"; then
		pass "$name"
	else
		fail "$name" "$out"
	fi
	name=host/tapset-used-file-errors-are-reported
	err=$("$stap" -p2 -r "$release" -I "$dir/lib" -e 'probe begin { lib_broken() }' 2>&1)
	if [ $? -eq 1 ] && grep -q 'broken.stp:1:' <<<"$err"; then
		pass "$name"
	else
		fail "$name" "$err"
	fi
	name=host/optional-alias-on-missing-function-is-skipped-and-said
	printf 'probe lib.gone = kernel.function("no_such_fn_in_kernel") { }\n' >"$dir/lib/gone.stp"
	err=$("$stap" -v -p2 -r "$release" -I "$dir/lib" -e 'probe lib.gone ? { } probe begin { exit() }' 2>&1)
	if [ $? -eq 0 ] && grep -q "skipping optional probe point kernel.function(\"no_such_fn_in_kernel\") (of the alias 'lib.gone'): nothing on kernel $release matches it" <<<"$err"; then
		pass "$name"
	else
		fail "$name" "$err"
	fi
	# A wildcard over alias names skips those whose point this kernel
	# lacks (-v says so), but not all of them; naming one is an error.
	name=host/alias-wildcard-skips-missing-points-but-not-all
	printf 'probe lib.w.gone = kernel.function("no_such_fn_in_kernel") { }\nprobe lib.w.here = kernel.function("vfs_read") { }\n' >"$dir/lib/gone.stp"
	err=$("$stap" -v -p2 -r "$release" -I "$dir/lib" -e 'probe lib.w.* { }' 2>&1)
	local rc=$? err2 err3
	err2=$("$stap" -p2 -r "$release" -I "$dir/lib" -e 'probe lib.w.gone { }' 2>&1)
	local rc2=$?
	err3=$("$stap" -p2 -r "$release" -I "$dir/lib" -e 'probe lib.w.g* { }' 2>&1)
	if [ $rc -eq 0 ] && grep -q '^kernel.function("vfs_read")' <<<"$err" &&
	   grep -q "skipping optional probe point kernel.function(\"no_such_fn_in_kernel\") (of the alias 'lib.w.gone')" <<<"$err" &&
	   [ $rc2 -eq 1 ] && grep -q "no_such_fn_in_kernel" <<<"$err2" &&
	   grep -q "no probe alias 'lib.w.g\*' matches has a probe point on kernel $release" <<<"$err3"; then
		pass "$name"
	else
		fail "$name" "$err"$'\n'"$err2"$'\n'"$err3"
	fi
	rm -f "$dir/lib/gone.stp"
	# An alias's stores to variables the probe never reads are dropped
	# when they have no effect; those with one (output) are kept; the
	# script's own unread store goes too, with a warning naming it.
	name=host/unused-alias-variables-are-elided
	cat >"$dir/lib/elide.stp" <<-'EOS'
	function lib_noisy() { printf("side effect\n") return 1 }
	function lib_quiet(a) { b = a * 2 return b }
	probe lib.elide = begin { kept = lib_noisy() dropped = lib_quiet(3) used = 5 feeds = 7 chained = sprintf("%d", feeds) }
	EOS
	out=$("$stap" -p2 -r "$release" -I "$dir/lib" -e 'probe lib.elide { mine = 1 print(used) }' 2>&1)
	# (kept's store goes, lib_noisy's call stays; lib_quiet is not called.)
	if [ $? -eq 0 ] && grep -q '^# handler 0 through alias lib.elide locals: used:long$' <<<"$out" &&
	   grep -q '^lib_noisy:long ()' <<<"$out" && ! grep -q '^lib_quiet' <<<"$out" &&
	   grep -q "^<input>:1:19: warning: eliding the assignment to 'mine': nothing reads it" <<<"$out"; then
		pass "$name"
	else
		fail "$name" "$out"
	fi
	rm -f "$dir/lib/elide.stp"
	name=host/tapset-index-follows-changes
	sleep 0.01
	printf 'function lib_twice(x) { return 2 * x }\nfunction lib_thrice(x) { return 3 * x }\n' >"$dir/lib/twice.stp"
	out=$("$stap" -p2 -r "$release" -I "$dir/lib" -e 'probe begin { println(lib_thrice(2)) exit() }' 2>&1)
	err=$("$stap" -p2 -r "$release" -I "$dir/lib" -e 'probe begin { println(lib_thrize(2)) exit() }' 2>&1)
	if grep -q '^lib_thrice:long' <<<"$out" && grep -q "did you mean 'lib_thrice'" <<<"$err"; then
		pass "$name"
	else
		fail "$name" "$out"$'\n'"$err"
	fi
	unset XDG_CACHE_HOME
}
