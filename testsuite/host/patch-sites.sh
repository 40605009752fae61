# SPDX-License-Identifier: GPL-2.0-or-later
# Host tests, sourced by testsuite/run-tests (its pass, fail and skip, $stap,
# $release, $work); run_host or the end of the run calls them.

# The sections the module loader rewrites (return thunks, call-depth
# accounting, retpolines, ENDBR sealing, static calls, alternatives, ORC,
# ftrace sites): stap's fast path must give a module the same ones, of the
# same sizes, as kbuild gives it for the same C, script and runtime alike.
# A 6.12 module without them ran unpatched return thunks (a WARNING).
patch_sites() {
	readelf -SW "$1" | sed -n 's/^ *\[ *[0-9]*\] \([^ ]*\) *[A-Z_]* *[0-9a-f]* [0-9a-f]* \([0-9a-f]*\) .*/\1 \2/p' |
		grep -E '^(\.return_sites|\.call_sites|\.retpoline_sites|\.ibt_endbr_seal|\.static_call_sites|\.orc_unwind_ip|\.altinstructions|__mcount_loc|\.smp_locks|__patchable_function_entries) ' |
		sort
}

host_patch_sites() {
	local name=host/module-patch-sites-as-kbuild-makes-them dir=$work/sites fast kb bare problems=""
	mkdir -p "$dir"
	if ! (cd "$dir" && "$stap" -p4 -r "$release" -m fast "$srcdir/examples/top-syscalls.stp" &&
	      TAPLINE_BUILD_WITH_KBUILD=1 "$stap" -p4 -r "$release" -m bykbuild "$srcdir/examples/top-syscalls.stp" &&
	      "$stap" -p4 -r "$release" -m bare -e 'probe begin { exit() }') >"$dir/out" 2>&1; then
		fail "$name" "$(tail -5 "$dir/out")"
		return
	fi
	fast=$(patch_sites "$dir/fast.ko")
	kb=$(patch_sites "$dir/bykbuild.ko")
	bare=$(patch_sites "$dir/bare.ko")
	grep -q '^\.return_sites ' <<<"$kb" || problems+="kbuild's module has no .return_sites: $kb"$'\n'
	[ "$fast" = "$kb" ] || problems+="stap's sections differ from kbuild's:"$'\n'"$(diff <(echo "$fast") <(echo "$kb"))"$'\n'
	# The script's own code has sites too, beyond those of the runtime
	# (which an almost empty script's module has as well).
	local want have
	want=$(sed -n 's/^\.return_sites //p' <<<"$bare")
	have=$(sed -n 's/^\.return_sites //p' <<<"$fast")
	[ $((16#${have:-0})) -gt $((16#${want:-0})) ] ||
		problems+=".return_sites of the module ($have) not beyond an empty script's ($want)"$'\n'
	if [ -z "$problems" ]; then pass "$name"; else fail "$name" "$problems"; fi
}
