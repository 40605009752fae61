# SPDX-License-Identifier: GPL-2.0-or-later
# Host tests, sourced by testsuite/run-tests (its pass, fail and skip, $stap,
# $release, $work); run_host or the end of the run calls them.

# A big script is compiled as one unit per CPU (at most 4) at once, and
# the units joined: one module with each handler, and each global, once.
host_big_script_units() {
	local name=host/big-script-compiled-as-units-at-once dir=$work/units units cpus out bad=""
	mkdir -p "$dir"
	{ echo "global n"
	  for i in $(seq 400); do echo "probe timer.s($i) { n += $i; if (n > $i) printf(\"%d %s\\n\", n, execname()) }"; done
	  echo "probe begin { exit() }"; } >"$dir/big.stp"
	cpus=$(nproc)
	units=$((cpus > 4 ? 4 : cpus))
	out=$(cd "$dir" && "$stap" -p4 -vv -r "$release" -m big big.stp 2>&1 >/dev/null)
	[ -s "$dir/big.ko" ] || bad+="no module: $(tail -3 <<<"$out"); "
	[ "$(grep -c 'compiling the generated C (one of the units at once)' <<<"$out")" = "$units" ] ||
		bad+="not $units units: $(grep 'compiling' <<<"$out" | cut -c1-80); "
	[ "$units" -lt 2 ] || grep -q '^joining the units' <<<"$out" || bad+="units not joined; "
	[ "$(nm "$dir/big.ko" 2>/dev/null | grep -c ' [bBdD] g_n$')" = 1 ] || bad+="g_n not defined once; "
	[ "$(nm "$dir/big.ko" 2>/dev/null | grep -c ' [tT] h[0-9]*$')" = 401 ] ||
		bad+="$(nm "$dir/big.ko" | grep -c ' [tT] h[0-9]*$') handlers, not 401; "
	# A small one stays one unit, at -O2.
	out=$(cd "$dir" && "$stap" -p4 -vv -r "$release" -m small -e 'probe begin { exit() }' 2>&1 >/dev/null)
	grep -q 'units' <<<"$out" && bad+="a small script was split; "
	if [ -z "$bad" ]; then pass "$name"; else fail "$name" "$bad"; fi
}
