# SPDX-License-Identifier: GPL-2.0-or-later
# Host tests, sourced by testsuite/run-tests (its pass, fail and skip, $stap,
# $release, $work); run_host or the end of the run calls them.

# Build cost must grow linearly with the number of probe bodies: 200 of them
# build within a memory limit and a time limit far above the ~1 s they take
# (exponential growth needed 21 GB and minutes for 24 bodies).
host_scale() {
	local name=host/200-probe-bodies-build-in-linear-memory dir=$work/scale
	# AddressSanitizer reserves terabytes of address space: no ulimit -v.
	if ldd "$stap" 2>/dev/null | grep -q libasan; then
		skip "$name" "stap is built with AddressSanitizer, which cannot run under ulimit -v"
		return
	fi
	mkdir -p "$dir"
	{ for i in $(seq 200); do echo "probe timer.s(1) { x = 1 }"; done
	  echo "probe begin { exit() }"; } >"$dir/many.stp"
	( cd "$dir" && ulimit -v $((1024 * 1024)) &&
	  timeout 120 "$stap" -p4 -w -r "$release" -m many many.stp ) >"$dir/out" 2>&1
	local rc=$?
	if [ "$rc" -eq 0 ] && [ -s "$dir/many.ko" ]; then
		pass "$name"
	else
		fail "$name" "exit $rc (124: over 120 s; out of memory under 1 GiB?): $(tail -5 "$dir/out")"
	fi
}
