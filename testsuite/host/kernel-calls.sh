# SPDX-License-Identifier: GPL-2.0-or-later
# Host tests, sourced by testsuite/run-tests (its pass, fail and skip, $stap,
# $release, $work); run_host or the end of the run calls them.

# Every kernel symbol the runtime stub imports is placed in
# runtime/kernel-calls.txt (so wildcards know what the runtime calls).
host_kernel_calls() {
	local name=host/runtime-imports-listed-in-kernel-calls cache stub missing=""
	cache=${XDG_CACHE_HOME:-$HOME/.cache}/tapline/stub
	# The stub built from these runtime sources (the cache may hold others).
	stub=
	for d in "$cache/$release"-*/; do
		[ -e "$d/ready" ] || continue
		local f same=yes
		for f in "$srcdir"/runtime/*.[ch]; do
			cmp -s "$f" "$d/${f##*/}" || { same=no; break; }
		done
		[ $same = yes ] && { stub=$d; break; }
	done
	if [ -z "$stub" ]; then
		skip "$name" "no runtime stub built for $release"
		return
	fi
	for sym in $(nm -u "$stub"/tapline_stub_name_placeholder_*.ko | awk '{ print $2 }'); do
		# What the generated code defines (weak in the stub).
		case $sym in rt_script | rt_global_locks) continue ;; esac
		local listed=no pat
		while read -r _ pat; do
			# shellcheck disable=SC2254
			case $sym in $pat) listed=yes; break ;; esac
		done < <(grep -E '^(hit|setup|fatal|data) ' "$srcdir/runtime/kernel-calls.txt")
		[ $listed = yes ] || missing+="$sym "
	done
	if [ -z "$missing" ]; then pass "$name"; else fail "$name" "not in runtime/kernel-calls.txt: $missing"; fi
}
