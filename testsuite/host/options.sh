# SPDX-License-Identifier: GPL-2.0-or-later
# Host tests, sourced by testsuite/run-tests (its pass, fail and skip, $stap,
# $release, $work); run_host or the end of the run calls them.

host_options() {
	local name=host/x-option-out-of-range err
	err=$("$stap" -p1 -x 0 -e 'probe begin {}' 2>&1)
	local rc1=$?
	err+=$'\n'$("$stap" -p1 -x 99999999 -e 'probe begin {}' 2>&1)
	local rc2=$?
	if [ "$rc1" -eq 1 ] && [ "$rc2" -eq 1 ] && [ "$(grep -c 'process id from 1 to' <<<"$err")" -eq 2 ]; then
		pass "$name"
	else
		fail "$name" "exits $rc1 $rc2: $err"
	fi
	# Every -D value is range-checked: a value that does not fit in the
	# runtime's int once quietly became another (4294967306 became 10).
	name=host/limit-values-are-range-checked
	local bad="" d
	for d in MAXMAPENTRIES=4294967306 MAXMAPENTRIES=0 MAXERRORS=99999999999 MAXHITTIME=10 \
		MAXHITTIME=2000000 STP_OVERLOAD_INTERVAL=10 MAXMEMORY=99999999999999 \
		MAXACTION=2000000; do
		err=$("$stap" -p1 -D "$d" -e 'probe begin {}' 2>&1)
		[ $? -eq 1 ] && grep -q "must be between" <<<"$err" || bad+="-D $d: $err"$'\n'
	done
	err=$("$stap" -p1 -D STP_OVERLOAD_THRESHOLD=2000000000 -e 'probe begin {}' 2>&1)
	[ $? -eq 1 ] && grep -q "must not be more than STP_OVERLOAD_INTERVAL" <<<"$err" ||
		bad+="threshold above interval: $err"$'\n'
	# SystemTap's spellings are taken.
	for d in STP_NO_OVERLOAD STP_MAXMEMORY=65536 MAXMAPENTRIES=2147483647; do
		err=$("$stap" -p1 -D "$d" -e 'probe begin {}' 2>&1) || bad+="-D $d refused: $err"$'\n'
	done
	if [ -z "$bad" ]; then
		pass "$name"
	else
		fail "$name" "$bad"
	fi
	# Options may follow the script file, as with SystemTap (stap x.stp -c
	# CMD); the words that are not options are its arguments, and "--"
	# ends the options.
	name=host/options-after-the-script-file
	local dir=$work/optorder out
	mkdir -p "$dir"
	printf 'probe begin { println(@1) println(@2) }\n' >"$dir/args.stp"
	bad=""
	out=$("$stap" -p1 "$dir/args.stp" one -v two 2>&1)
	grep -q '^Pass 1:' <<<"$out" || bad+="-v after the script was not taken: $out; "
	grep -q 'println("one")' <<<"$out" && grep -q 'println("two")' <<<"$out" ||
		bad+="the arguments are not one and two: $out; "
	out=$("$stap" -p1 "$dir/args.stp" -- -v -1 2>&1)
	grep -q 'println("-v")' <<<"$out" && grep -q 'println("-1")' <<<"$out" &&
		! grep -q '^Pass 1:' <<<"$out" ||
		bad+="after --, -v and -1 are not the arguments: $out; "
	if [ -z "$bad" ]; then pass "$name"; else fail "$name" "$bad"; fi
}
