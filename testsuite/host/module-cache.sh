# SPDX-License-Identifier: GPL-2.0-or-later
# Host tests, sourced by testsuite/run-tests (its pass, fail and skip, $stap,
# $release, $work); run_host or the end of the run calls them.

# The compiled-module cache: an unchanged run goes from pass 1 to the
# module built last time; a change to the script, a tapset it uses, an
# option or a program it probes is a miss; a damaged or foreign entry is
# never used; --clean-cache empties it; the size cap evicts the least
# recently used.
host_module_cache() {
	local dir=$work/modcache name out rc key s1 s2
	local script='global n probe kernel.function("vfs_read") { n++ } probe end { printf("%d\n", n) }'
	# The tests' cache (its runtime stubs), where no other test keeps modules.
	local xdg=$work/cache
	mkdir -p "$dir/run" "$dir/lib" "$xdg"
	rm -rf "$xdg/tapline/compiled"
	mc() { # stap's arguments: stderr of -v -p4 in $dir/run, with the cache on
		(cd "$dir/run" && env -u TAPLINE_DISABLE_CACHE XDG_CACHE_HOME=$xdg \
			"$stap" -r "$release" -v -p4 "$@" 2>&1 >/dev/null)
	}
	name=host/module-cache-hit-skips-passes-2-to-4
	s1=$(mc -e "$script")
	s2=$(mc -e "$script")
	if grep -q 'module cache: miss: ' <<<"$s1" && grep -q '^Pass 4: built' <<<"$s1" &&
	   grep -q 'module cache: hit' <<<"$s2" && ! grep -q '^Pass [234]: ' <<<"$s2" &&
	   cmp -s "$dir/run/$(ls -t "$dir/run" | head -1)" \
		"$(ls -d "$xdg"/tapline/compiled/*/module.ko | head -1)"; then
		pass "$name"
	else
		fail "$name" "first: $s1; second: $s2"
	fi

	name=host/module-cache-misses-on-any-change
	local bad=""
	printf 'function mc_twice(x) { return 2 * x }\n' >"$dir/lib/twice.stp"
	mc -I "$dir/lib" -e 'probe begin { println(mc_twice(2)) exit() }' >/dev/null
	grep -q 'hit' <<<"$(mc -I "$dir/lib" -e 'probe begin { println(mc_twice(2)) exit() }')" ||
		bad+="no hit for the tapset script; "
	printf 'function mc_twice(x) { return 3 * x }\n' >"$dir/lib/twice.stp"
	grep -q 'miss' <<<"$(mc -I "$dir/lib" -e 'probe begin { println(mc_twice(2)) exit() }')" ||
		bad+="a changed tapset file still hit; "
	grep -q 'miss' <<<"$(mc -e "$script" -D MAXACTION=500)" || bad+="-D still hit; "
	grep -q 'miss' <<<"$(mc -e "$script "' probe begin {}')" || bad+="a changed script still hit; "
	grep -q 'hit' <<<"$(mc -e "$script" -p4 -o /dev/null)" || bad+="-o (run only) missed; "
	# A script's argument is never taken for an option (-v here).
	mc -e 'probe begin { println($#) exit() }' -- >/dev/null
	grep -q 'miss' <<<"$(mc -e 'probe begin { println($#) exit() }' -- -v)" ||
		bad+="a script argument -v was taken for the option; "
	# A user program probed: rebuilt since, it is a miss.
	mkdir -p "$dir/prog"
	printf 'int main(void) { return 0; }\n' >"$dir/prog/ut.c"
	gcc -g -o "$dir/prog/ut" "$dir/prog/ut.c" || bad+="cannot build a program; "
	mc -e 'probe process("'"$dir"'/prog/ut").function("main") { exit() }' >/dev/null
	grep -q 'hit' <<<"$(mc -e 'probe process("'"$dir"'/prog/ut").function("main") { exit() }')" ||
		bad+="no hit for the process probe; "
	touch -d '+1 minute' "$dir/prog/ut"
	out=$(mc -e 'probe process("'"$dir"'/prog/ut").function("main") { exit() }')
	grep -q "miss: $dir/prog/ut changed since the module was built" <<<"$out" ||
		bad+="a changed program still hit: $out; "
	if [ -z "$bad" ]; then pass "$name"; else fail "$name" "$bad"; fi

	name=host/module-cache-damaged-or-foreign-entry-is-not-used
	bad=""
	mc -e "$script" >/dev/null
	key=$(grep -o 'hit: [^ ]*' <<<"$(mc -e "$script")" | cut -c6-)
	[ -n "$key" ] && [ -f "$key/module.ko" ] || bad+="no entry to damage; "
	if [ -z "$bad" ]; then
		truncate -s 1000 "$key/module.ko"
		out=$(mc -e "$script")
		grep -q "warning: the cached module $key is not used: the module changed since it was kept; building it again" <<<"$out" &&
			grep -q '^Pass 4: built' <<<"$out" || bad+="a truncated module: $out; "
		grep -q hit <<<"$(mc -e "$script")" || bad+="not rebuilt into the cache; "
		chmod 0666 "$key/module.ko"
		out=$(mc -e "$script")
		grep -q "is not used: .* is writable by others" <<<"$out" && grep -q '^Pass 4: built' <<<"$out" ||
			bad+="a module others may write: $out; "
	fi
	if [ -z "$bad" ]; then pass "$name"; else fail "$name" "$bad"; fi

	# A byte changed inside the cached module (its size and time kept):
	# staprun refuses it before loading, and stap builds it afresh and runs.
	name=host/module-cache-damaged-module-is-rebuilt-and-runs
	if ! "$vm" --check -r "$release" >/dev/null 2>&1; then
		skip "$name" "no guest can be booted here"
	else
		local hello='probe begin { println("hello from the cache") exit() }' ko
		(cd "$dir/run" && env -u TAPLINE_DISABLE_CACHE XDG_CACHE_HOME=$xdg "$stap" -r "$release" -p4 -e "$hello" >/dev/null 2>&1)
		key=$(grep -o 'hit: [^ ]*' <<<"$(mc -e "$hello")" | cut -c6-)
		ko=$key/module.ko
		if [ -n "$key" ] && [ -f "$ko" ]; then
			cp -p "$ko" "$dir/orig.ko"
			printf 'X' | dd of="$ko" bs=1 seek=100000 conv=notrunc 2>/dev/null
			touch -r "$dir/orig.ko" "$ko"
			out=$(cd "$dir/run" && env -u TAPLINE_DISABLE_CACHE XDG_CACHE_HOME=$xdg "$stap" --vm -r "$release" -e "$hello" 2>&1)
			rc=$?
			if [ "$rc" -eq 0 ] && grep -q 'the module is damaged' <<<"$out" &&
			   grep -q "the cached module $key was damaged .*: removed; building it afresh" <<<"$out" &&
			   grep -q '^hello from the cache$' <<<"$out" && grep -q hit <<<"$(mc -e "$hello")"; then
				pass "$name"
			else
				fail "$name" "exit $rc: $out"
			fi
		else
			fail "$name" "no cached module to damage"
		fi
	fi

	name=host/module-cache-lru-cap-and-clean
	bad=""
	for i in 1 2 3; do
		TAPLINE_CACHE_MB=0 mc -e "$script probe timer.s($i) {}" >/dev/null
	done
	[ "$(ls "$xdg/tapline/compiled" | wc -l)" -eq 1 ] ||
		bad+="a cap of 0 MiB kept $(ls "$xdg/tapline/compiled" | wc -l) entries; "
	grep -q hit <<<"$(mc -e "$script probe timer.s(3) {}")" || bad+="the newest was evicted; "
	out=$(cd "$dir/run" && env -u TAPLINE_DISABLE_CACHE XDG_CACHE_HOME=$xdg "$stap" -v --clean-cache 2>&1)
	rc=$?
	[ "$rc" -eq 0 ] && grep -q 'removed 1 cached module' <<<"$out" &&
		[ -z "$(ls -A "$xdg/tapline/compiled")" ] || bad+="--clean-cache (exit $rc): $out; "
	grep -q 'miss' <<<"$(mc -e "$script" --disable-cache; mc -e "$script")" ||
		bad+="--disable-cache kept a module; "
	if [ -z "$bad" ]; then pass "$name"; else fail "$name" "$bad"; fi
}
