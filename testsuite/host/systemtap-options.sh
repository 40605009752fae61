# SPDX-License-Identifier: GPL-2.0-or-later
# Host tests, sourced by testsuite/run-tests (its pass, fail and skip, $stap,
# $release, $work); run_host or the end of the run calls them.

# SystemTap's options and -D names are taken (issue [12/14]); the guest
# tests option-*.stp check what -t, -T, --suppress-handler-errors and
# MAXBACKTRACE do at run time.
host_systemtap_options() {
	local name=host/systemtap-options-accepted bad="" o out
	for o in "-d /bin/ls" "-d ext4" "--ldd" "-t" "-T 5" "-u" "-W" "-q" "--compatible=4.0" \
		"--suppress-handler-errors" "-g --suppress-time-limits" "-D MAXBACKTRACE=20" \
		"-D KRETACTIVE=100" "-D STP_NO_BUILDID_CHECK" "-D STP_NO_OVERLOAD" "-DFOO" \
		"-D STP_OVERLOAD_THRESHOLD=600000000" "-D STP_OVERLOAD_INTERVAL=1000000000" \
		"-o /dev/null -S 2" "-o /dev/null -S 1,5" "-F -o /dev/null" "-F" "-F -S 4" \
		"--prologue-searching=always" "--prologue-searching"; do
		# shellcheck disable=SC2086
		out=$("$stap" -p2 -r "$release" $o -e 'probe begin { exit() }' 2>&1 >/dev/null) ||
			bad+="$o: $out"$'\n'
	done
	# The script on standard input.
	out=$(echo 'probe begin { exit() }' | "$stap" -p2 -r "$release" - 2>&1) &&
		grep -q '^begin ' <<<"$out" || bad+="stap -: $out"$'\n'
	# -T adds the probe that ends the script; -D NAME with no use here goes to
	# the compiler and the module still builds.
	out=$("$stap" -p2 -r "$release" -T 7 -e 'probe begin { }' 2>&1) &&
		grep -q '^timer.s(7) ' <<<"$out" || bad+="-T: $out"$'\n'
	# -d embeds a user file's symbols, --ldd its libraries' too.
	out=$("$stap" -p3 -r "$release" -d /bin/ls --ldd -e 'probe begin { exit() }' 2>&1)
	grep -q 'bin/ls"' <<<"$out" && grep -q '/libc\.so\.6"' <<<"$out" || bad+="-d --ldd: $(head -c 300 <<<"$out")"$'\n'
	out=$(cd "$work" && "$stap" -p4 -r "$release" -m opt_defines -D SOME_FLAG -D OTHER=2 \
		-e 'probe begin { exit() }' 2>&1) || bad+="-D passed to the compiler: $out"$'\n'
	rm -f "$work/opt_defines.ko"
	# --skip-badvars warns of each variable it makes 0, naming the function
	# (testsuite/vm/skip-badvars-reads-zero.stp runs it).
	out=$("$stap" -p2 -r "$release" --skip-badvars \
		-e 'probe kernel.function("vfs_read") { println($no_such) }' 2>&1) &&
		grep -q "warning: '\$no_such' cannot be read at vfs_read: --skip-badvars makes it 0" \
			<<<"$out" || bad+="--skip-badvars: $out"$'\n'
	# SYSTEMTAP_TAPSET: this library in place of Tapline's (its macros too).
	mkdir -p "$work/own-tapsets"
	echo 'function answer() { return @six * 7 }' >"$work/own-tapsets/answer.stp"
	echo '@define six %( 6 %)' >"$work/own-tapsets/six.stpm"
	out=$(SYSTEMTAP_TAPSET=$work/own-tapsets "$stap" -p2 -r "$release" \
		-e 'probe begin { println(answer()) }' 2>&1) &&
		grep -q '^answer:long ()' <<<"$out" || bad+="SYSTEMTAP_TAPSET: $out"$'\n'
	# --check-version warns at each systemtap_v test, naming the branch.
	out=$("$stap" -p2 -r "$release" --check-version --compatible=1.5 \
		-e 'probe begin { %( systemtap_v >= "2.0" %? println(1) %: println(2) %) }' 2>&1) &&
		grep -q ':1:18: warning: this code depends on the language version: systemtap_v is 1.5 here, so the condition is false \[preprocessor\]' \
			<<<"$out" || bad+="--check-version: $out"$'\n'
	# ... and at each tapset alias the script uses under an older --compatible.
	out=$("$stap" -p2 -r "$release" --check-version --compatible=1.4 -W \
		-e 'probe nd_syscall.accept { println(sockfd) }' 2>&1)
	[ $? -eq 1 ] && grep -q ":1:7: error: 'nd_syscall.accept' comes from Tapline's tapsets, which are SystemTap [0-9.]*'s: what it sets under --compatible=1.4 may differ \[unsupported\]" \
		<<<"$out" || bad+="--check-version, alias: $out"$'\n'
	out=$(SYSTEMTAP_TAPSET=$work/own-tapsets "$stap" -p2 -r "$release" \
		-e 'probe begin { ansi_clear_screen() }' 2>&1)
	[ $? -eq 1 ] && grep -q "unknown function 'ansi_clear_screen'" <<<"$out" ||
		bad+="SYSTEMTAP_TAPSET replaces the library: $out"$'\n'
	if [ -z "$bad" ]; then pass "$name"; else fail "$name" "$bad"; fi

	name=host/systemtap-options-refused-with-reasons
	bad=""
	out=$("$stap" -p2 -r "$release" --suppress-time-limits -e 'probe begin { }' 2>&1)
	[ $? -eq 1 ] && grep -q 'needs guru mode (-g)' <<<"$out" || bad+="no -g: $out"$'\n'
	out=$("$stap" -p1 -D MAXACTON=5 -e 'probe begin { }' 2>&1)
	[ $? -eq 1 ] && grep -q "did you mean 'MAXACTION'" <<<"$out" || bad+="typo: $out"$'\n'
	out=$("$stap" -p1 -D 'FOO=a;b' -e 'probe begin { }' 2>&1)
	[ $? -eq 1 ] && grep -q 'letters, digits and' <<<"$out" || bad+="bad value: $out"$'\n'
	out=$("$stap" -p1 -e 'probe begin { }' -e 'probe end { }' 2>&1)
	[ $? -eq 1 ] && grep -q -- '-e gives the script once' <<<"$out" || bad+="two -e: $out"$'\n'
	out=$("$stap" -p1 -D MAXBACKTRACE=100 -e 'probe begin { }' 2>&1)
	[ $? -eq 1 ] && grep -q 'MAXBACKTRACE must be between 1 and 64' <<<"$out" || bad+="range: $out"$'\n'
	out=$("$stap" -p2 -r "$release" -W -e 'function f() { } probe begin { }' 2>&1)
	[ $? -eq 1 ] && grep -q "error: function 'f' is never called" <<<"$out" || bad+="-W: $out"$'\n'
	out=$("$stap" -p2 -r "$release" -S 5 -e 'probe begin { }' 2>&1)
	[ $? -eq 1 ] && grep -q -- '-S switches between output files: it needs -o FILE' <<<"$out" || bad+="-S without -o: $out"$'\n'
	out=$("$stap" -p2 -r "$release" -o /dev/null -S 5,x -e 'probe begin { }' 2>&1)
	[ $? -eq 1 ] && grep -q -- '-S takes SIZE\[,N\]' <<<"$out" || bad+="-S 5,x: $out"$'\n'
	out=$("$stap" -p2 -r "$release" -F -o /dev/null --vm -e 'probe begin { }' 2>&1)
	[ $? -eq 1 ] && grep -q -- 'a --vm guest ends with stap' <<<"$out" || bad+="-F --vm: $out"$'\n'
	out=$("$stap" -p2 -r "$release" --vm-net=1:2 -e 'probe begin { }' 2>&1)
	[ $? -eq 1 ] && grep -q -- 'are for a --vm guest: add --vm' <<<"$out" || bad+="--vm-net without --vm: $out"$'\n'
	out=$("$stap" -p2 -r "$release" --vm --vm-net=80 -e 'probe begin { }' 2>&1)
	[ $? -eq 1 ] && grep -q -- '--vm-net wants HOSTPORT:GUESTPORT' <<<"$out" || bad+="--vm-net=80: $out"$'\n'
	if [ -z "$bad" ]; then pass "$name"; else fail "$name" "$bad"; fi
}
