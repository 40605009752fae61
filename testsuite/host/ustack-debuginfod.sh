# SPDX-License-Identifier: GPL-2.0-or-later
# Host tests, sourced by testsuite/run-tests (its pass, fail and skip, $stap,
# $release, $work); run_host or the end of the run calls them.

# staprun's unwinder naming a frame in a library stripped of its debug
# information: source lines come from a debuginfod server (fetched only
# for that file); with the server unreachable, the frame has its symbol
# and no line, and one warning says why (testsuite/unit/unwind-test takes
# the sample of itself).
host_ustack_debuginfod() {
	local name=host/ustack-source-lines-from-debuginfod dir=$top/ustack-debuginfod out port pid
	local lost=host/ustack-debuginfod-unreachable-names-without-lines
	build_test_programs
	if [ -z "$progs" ]; then
		skip "$name" "$progs_why"
		skip "$lost" "$progs_why"
		return
	fi
	if ! command -v debuginfod >/dev/null; then
		skip "$name" "no debuginfod server (install the package debuginfod)"
		skip "$lost" "no debuginfod server (install the package debuginfod)"
		return
	fi
	mkdir -p "$dir/served" "$dir/cache"
	eu-strip -g -f "$dir/served/libus.so.debug" -o "$dir/libus.so" "$progs/libus.so"
	port=$((20000 + RANDOM % 20000))
	debuginfod -p "$port" -d "$dir/debuginfod.sqlite" -F "$dir/served" >"$dir/debuginfod.log" 2>&1 &
	pid=$!
	for _ in $(seq 50); do
		grep -q 'fts traversed' "$dir/debuginfod.log" 2>/dev/null && break
		sleep 0.2
	done
	out=$(DEBUGINFOD_URLS="http://127.0.0.1:$port" DEBUGINFOD_CACHE_PATH="$dir/cache" \
		"$builddir/testsuite/unit/unwind-test" "$dir/libus.so" 2>&1)
	kill "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	if grep -q ' : us_lib_hop+0x[0-9a-f]*/0x[0-9a-f]* at .*/libus\.c:[0-9]* \[.*/libus\.so\]$' <<<"$out" &&
		grep -q ' : ut_b+.* at .*unwind-test\.c:' <<<"$out"; then
		pass "$name"
	else
		fail "$name" "$out"$'\n'"$(tail -5 "$dir/debuginfod.log")"
	fi
	out=$(DEBUGINFOD_URLS="http://127.0.0.1:1" DEBUGINFOD_CACHE_PATH="$dir/cache2" \
		"$builddir/testsuite/unit/unwind-test" "$dir/libus.so" 2>&1)
	if grep -q ' : us_lib_hop+0x[0-9a-f]*/0x[0-9a-f]* \[.*/libus\.so\]$' <<<"$out" &&
		[ "$(grep -c '^WARNING: no debug information for .*debuginfod (http://127.0.0.1:1)' <<<"$out")" -eq 1 ] &&
		grep -q ' : ut_b+.* at .*unwind-test\.c:' <<<"$out"; then
		pass "$lost"
	else
		fail "$lost" "$out"
	fi
}

# --- stap-exporter (run once: the exporter depends on no kernel) --------------

# The exporter tests' directory, $exp: under /run, as the exporter runs no
# script from below a directory others may write (/tmp is one). Its bin/
# holds a stap, put first in PATH, that records what it was asked to run
# and the text it read, in ran/, and loads nothing. Removed with $top.
exp=""
