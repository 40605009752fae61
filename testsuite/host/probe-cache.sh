# SPDX-License-Identifier: GPL-2.0-or-later
# Host tests, sourced by testsuite/run-tests (its pass, fail and skip, $stap,
# $release, $work); run_host or the end of the run calls them.

# stap --probe-cache: an entry serves only the build-id it was resolved
# against and the target expressions it was saved for; a damaged entry is
# never used. (A hit building the same module is a VM test.)
host_probe_cache() {
	build_test_modules
	if [ -z "$testmods" ]; then
		skip "host/probe-cache tests" "$testmods_why"
		return
	fi
	local dir=$work/probe-cache name out rc entry
	mkdir -p "$dir/stripped" "$dir/other"
	local script='probe module("tapline_test2").function("tt2_hello") { println($v) }'
	objcopy --strip-debug "$testmods/tapline_test2.ko" "$dir/stripped/tapline_test2.ko"
	cp "$dir/stripped/tapline_test2.ko" "$dir/other/"
	"$srcdir/testsuite/tools/flip-build-id" "$dir/other/tapline_test2.ko" >/dev/null
	"$stap" -p2 -r "$release" --probe-cache="$dir/cache" --debuginfo-path "$testmods" -e "$script" \
		>/dev/null 2>&1
	entry=$(ls "$dir"/cache/*/*.sites 2>/dev/null | head -1)
	try() { # the stripped module (or $2's) with the cache: exit status and stderr
		out=$("$stap" -vv -p2 -r "$release" --probe-cache="$dir/cache" \
			--debuginfo-path "$dir/${2:-stripped}" -e "$1" 2>&1)
		rc=$?
	}

	name=host/probe-cache-serves-only-its-build-id-and-expressions
	local bad=""
	if [ -z "$entry" ]; then
		bad="no entry was saved; "
	else
		try "$script"
		[ "$rc" -eq 0 ] && grep -q 'probe cache hit' <<<"$out" || bad+="the same script missed: $out; "
		# Another build of the module: its own directory, which has nothing.
		try "$script" other
		[ "$rc" -eq 1 ] && grep -q 'no-debuginfo' <<<"$out" && ! grep -q 'cache hit' <<<"$out" ||
			bad+="another build-id was served: $out; "
		# The entry copied under the other id is refused by what it says inside.
		local other_id
		other_id=$(eu-readelf -n "$dir/other/tapline_test2.ko" | sed -n 's/^ *Build ID: *//p')
		mkdir -p "$dir/cache/$other_id"
		cp "$entry" "$dir/cache/$other_id/"
		try "$script" other
		[ "$rc" -eq 1 ] && grep -q "made for build-id .*, not $other_id" <<<"$out" ||
			bad+="an entry copied under another id was used: $out; "
		rm -rf "${dir:?}/cache/$other_id"
		# Another expression needs types the entry did not save: a miss.
		try 'probe module("tapline_test2").function("tt2_hello") { println($v$) }'
		[ "$rc" -eq 1 ] && ! grep -q 'cache hit' <<<"$out" ||
			bad+="an entry was used for other expressions: $out; "
	fi
	if [ -z "$bad" ]; then pass "$name"; else fail "$name" "$bad"; fi

	name=host/damaged-probe-cache-entries-are-not-used
	bad=""
	if [ -z "$entry" ]; then
		bad="no entry was saved"
	else
		cp "$entry" "$dir/good"
		local size k
		size=$(stat -c %s "$dir/good")
		for cut in 0 10 $((size / 2)) $((size - 22)) $((size - 1)); do
			head -c "$cut" "$dir/good" >"$entry"
			try "$script"
			[ "$rc" -eq 1 ] && ! grep -q 'cache hit' <<<"$out" || bad+="cut at $cut: exit $rc; "
		done
		for k in $(seq 1 7 "$size"); do
			cp "$dir/good" "$entry"
			printf '7' | dd of="$entry" bs=1 seek="$k" conv=notrunc status=none
			cmp -s "$dir/good" "$entry" && continue
			try "$script"
			[ "$rc" -eq 1 ] && ! grep -q 'cache hit' <<<"$out" || bad+="byte $k changed: exit $rc; "
		done
		cp "$dir/good" "$entry"
	fi
	if [ -z "$bad" ]; then pass "$name"; else fail "$name" "$bad"; fi
}
