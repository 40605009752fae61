# SPDX-License-Identifier: GPL-2.0-or-later
# Host tests, sourced by testsuite/run-tests (its pass, fail and skip, $stap,
# $release, $work); run_host or the end of the run calls them.

# Diagnostics stay readable: repeated warnings are capped with a count, a
# huge line is shown as a window around the caret, hints name what exists.
host_diagnostics() {
	local name=host/warnings-capped-with-a-count dir=$work/diag err
	mkdir -p "$dir"
	{ for i in $(seq 2500); do echo "function f$i() { }"; done
	  echo 'probe begin { exit() }'; } >"$dir/unused.stp"
	err=$("$stap" -p2 -r "$release" "$dir/unused.stp" 2>&1 >/dev/null)
	if [ "$(grep -c 'warning: function .* is never called' <<<"$err")" -eq 10 ] &&
	   grep -q '2490 more \[unused\] warnings not shown' <<<"$err"; then
		pass "$name"
	else
		fail "$name" "$(head -c 600 <<<"$err")"
	fi

	name=host/long-source-line-shown-around-the-caret
	{ printf 'probe begin { '; for i in $(seq 5000); do printf 'x = 1 '; done; echo ' y = 1 + }'; } >"$dir/long.stp"
	err=$("$stap" -p1 "$dir/long.stp" 2>&1)
	local longest caret
	# (The excerpt's lines; the first names the file, however long its path.)
	longest=$(awk '/^    / { if (length($0) > n) n = length($0) } END { print n }' <<<"$err")
	caret=$(grep -n '^ *\^$' <<<"$err" | head -1)
	if grep -q 'long.stp:1:30024: error: expected an expression' <<<"$err" &&
	   [ "$longest" -le 120 ] && [ -n "$caret" ] && grep -q '^    \.\.\..* + }$' <<<"$err"; then
		pass "$name"
	else
		fail "$name" "longest line $longest: $(head -c 600 <<<"$err")"
	fi

	name=host/unknown-probe-point-hint-lists-every-family
	err=$("$stap" -p2 -r "$release" -e 'probe qqq.zzz { }' 2>&1)
	local missing="" fam
	for fam in 'begin' 'end' 'never' 'timer.ns/us/ms/s(N)' 'timer.hz(N)' \
		'kernel.function("name")[.call|.return[.maxactive(N)]]' 'kprobe.function("name")[.return]'; do
		grep -qF -- "$fam" <<<"$err" || missing+="$fam "
	done
	if [ -z "$missing" ] && grep -q 'hint: the probe points Tapline knows' <<<"$err"; then
		pass "$name"
	else
		fail "$name" "hint lacks: $missing; $err"
	fi

	name=host/unknown-kernel-function-hint-names-the-real-source
	err=$("$stap" -p2 -r "$release" -e 'probe kernel.function("qqqzzzxxx_nothing") { }' 2>&1)
	if grep -q 'the function names come from the kallsyms tables in /boot/vmlinuz' <<<"$err" &&
	   ! grep -q 'System.map' <<<"$err"; then
		pass "$name"
	else
		fail "$name" "$err"
	fi

	# Only where the running kernel is not one installed from a package.
	name=host/uninstalled-running-kernel-names-no-bogus-package
	if [ -e "/boot/vmlinuz-$(uname -r)" ]; then
		skip "$name" "the running kernel $(uname -r) is installed here"
	else
		err=$(cd "$dir" && "$stap" -p4 -e 'probe begin { exit() }' 2>&1)
		if ! grep -q "linux-headers-$(uname -r)" <<<"$err" && grep -q "installed: .*$release" <<<"$err"; then
			pass "$name"
		else
			fail "$name" "$err"
		fi
	fi

	# Code without effect is dropped before it is checked, each piece of
	# the script's own named in a warning; -u keeps it (and checks it).
	name=host/dead-code-elided-with-a-warning-kept-by-u
	printf '%s\n' 'probe begin {' '	x = $no_such_var' '	$other . "s"' '	println(1)' '}' >"$dir/dead.stp"
	err=$("$stap" -p2 -r "$release" "$dir/dead.stp" 2>&1 >/dev/null)
	local rc=$? err_u
	err_u=$("$stap" -u -p2 -r "$release" "$dir/dead.stp" 2>&1 >/dev/null)
	if [ $rc = 0 ] &&
	   grep -q "dead.stp:2:2: warning: eliding the assignment to 'x': nothing reads it \[unused\]" <<<"$err" &&
	   grep -q "dead.stp:3:2: warning: eliding '\$other . \"s\"': it has no effect \[unused\]" <<<"$err" &&
	   [ "$(grep -c warning <<<"$err")" = 2 ] &&
	   grep -q "dead.stp:2:6: error: .*no_such_var" <<<"$err_u"; then
		pass "$name"
	else
		fail "$name" "$err"$'\n'"-u: $err_u"
	fi
}
