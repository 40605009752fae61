# SPDX-License-Identifier: GPL-2.0-or-later
# Host tests, sourced by testsuite/run-tests (its pass, fail and skip, $stap,
# $release, $work); run_host or the end of the run calls them.

# DWARF on the host: archive and loose files agree, stale and broken debug
# files are reported (never a crash), debuginfod serves a stripped module's
# debug file, -L lists variables.
host_debuginfo() {
	build_test_modules
	if [ -z "$testmods" ]; then
		skip "host/debuginfo tests" "$testmods_why"
		return
	fi
	local dir=$work/dwarf name out err rc
	mkdir -p "$dir/laid"
	local pp='module("tapline_test*").function("*")'

	name=host/debug-archive-and-loose-files-give-the-same-probe-sites
	if ! command -v eu-unstrip >/dev/null || ! command -v eu-ar >/dev/null; then
		skip "$name" "no eu-unstrip/eu-ar (install elfutils)"
	else
		# As eu-make-debug-archive makes one: relocated members, then ar.
		(cd "$testmods" && for f in *.ko; do eu-unstrip -d "$dir/laid" -a -R -e "$f"; done) &&
			(cd "$dir/laid" && eu-ar cq "$dir/debug.a" ./*.ko)
		local loose arch
		loose=$("$stap" -p2 -r "$release" --debuginfo-path "$testmods" -e "probe $pp {}" 2>&1)
		arch=$("$stap" -p2 -r "$release" --debug-archive "$dir/debug.a" -e "probe $pp {}" 2>&1)
		if [ "$loose" = "$arch" ] && [ "$(grep -c '^module(' <<<"$loose")" -ge 15 ] &&
		   grep -q 'dup_static@.*_a.c:6.*kprobe tapline_test:' <<<"$loose"; then
			pass "$name"
		else
			fail "$name" "$(diff <(echo "$loose") <(echo "$arch") | head -20)"
		fi
		# A name longer than 4 bytes is looked for in each member's string
		# table before its units are walked for inline copies, and a walked
		# member's pages are given back: the copies are still found, and
		# what is read of them afterwards is the same.
		name=host/debug-archive-finds-inline-copies-and-reads-them-after-the-walk
		local ipp='module("tapline_test*").function("tt_inline_add*") { printf("%s\n", $$parms$) }'
		loose=$("$stap" -p3 -r "$release" --debuginfo-path "$testmods" -e "probe $ipp" 2>&1 | grep -v '^#')
		arch=$("$stap" -p3 -r "$release" --debug-archive "$dir/debug.a" -e "probe $ipp" 2>&1 | grep -v '^#')
		if [ "$loose" = "$arch" ] && grep -q 'tt_inline_add@[^"]*")\.inline' <<<"$arch" &&
		   grep -q 'rt_regval\|rt_kread' <<<"$arch"; then
			pass "$name"
		else
			fail "$name" "$(diff <(echo "$loose") <(echo "$arch") | head -20; grep -m3 'pp = ' <<<"$arch")"
		fi
		# The index of each module's inlined functions is kept in the
		# cache by build-id: a run that reads it, one that finds it
		# damaged (and makes it again) and one without it find the same
		# copies.
		name=host/inline-index-cache-gives-the-same-sites
		local xdg=$dir/xdg first cached damaged uncached f
		first=$(XDG_CACHE_HOME=$xdg "$stap" -p2 -r "$release" --debug-archive "$dir/debug.a" -e "probe $ipp" 2>&1)
		cached=$(XDG_CACHE_HOME=$xdg "$stap" -p2 -r "$release" --debug-archive "$dir/debug.a" -e "probe $ipp" 2>&1)
		for f in "$xdg"/tapline/inlines/*; do
			[ -f "$f" ] && { head -c $(( $(stat -c %s "$f") / 2 )) "$f"; echo 'zz 1'; } >"$f.bad" && mv "$f.bad" "$f"
		done
		damaged=$(XDG_CACHE_HOME=$xdg "$stap" -p2 -r "$release" --debug-archive "$dir/debug.a" -e "probe $ipp" 2>&1)
		uncached=$(TAPLINE_NO_INLINE_CACHE=1 XDG_CACHE_HOME=$xdg "$stap" -p2 -r "$release" --debug-archive "$dir/debug.a" -e "probe $ipp" 2>&1)
		if [ "$(ls "$xdg"/tapline/inlines | wc -l)" -ge 1 ] && grep -q 'tt_inline_add@[^"]*")\.inline' <<<"$first" &&
		   [ "$first" = "$cached" ] && [ "$first" = "$damaged" ] && [ "$first" = "$uncached" ] &&
		   ! grep -q zz "$xdg"/tapline/inlines/*; then
			pass "$name"
		else
			fail "$name" "$(diff <(echo "$first") <(echo "$cached") | head -9; diff <(echo "$first") <(echo "$damaged") | head -9; diff <(echo "$first") <(echo "$uncached") | head -9; ls "$xdg"/tapline/inlines)"
		fi
	fi

	# Each function's source file, read from its unit's line-table header
	# (debuginfo/linefiles.c), is the one libdw gives (TAPLINE_CHECK_DECL_FILE
	# makes stap ask both and report a difference).
	name=host/source-files-from-line-table-headers-agree-with-libdw
	out=$(TAPLINE_CHECK_DECL_FILE=1 "$stap" -r "$release" --debuginfo-path "$testmods" -p2 \
		-e 'probe module("tapline_test*").function("*") {}' 2>&1)
	if ! grep -q 'mismatch' <<<"$out" && [ "$(grep -c '^module(.*\.c:[0-9]*")' <<<"$out")" -ge 15 ]; then
		pass "$name"
	else
		fail "$name" "$(head -20 <<<"$out")"
	fi

	# Functions found by scanning their units' bytes (debuginfo/dwscan.c)
	# are the ones libdw's own walk finds (TAPLINE_NO_DWSCAN), with the
	# same sites, clones and duplicate static functions among them.
	name=host/function-scan-agrees-with-libdw
	local scanned walked
	scanned=$("$stap" -r "$release" --debuginfo-path "$testmods" -p2 \
		-e 'probe module("tapline_test*").function("*") {}' 2>&1)
	walked=$(TAPLINE_NO_DWSCAN=1 "$stap" -r "$release" --debuginfo-path "$testmods" -p2 \
		-e 'probe module("tapline_test*").function("*") {}' 2>&1)
	if [ "$scanned" = "$walked" ] && [ "$(grep -c '^module(' <<<"$scanned")" -ge 15 ]; then
		pass "$name"
	else
		fail "$name" "$(diff <(echo "$scanned") <(echo "$walked") | head -20)"
	fi

	# Types as declared, typedefs kept and "const" after what it qualifies,
	# as SystemTap's -L writes them.
	name=host/listing-shows-variables-and-types
	out=$("$stap" -r "$release" --debuginfo-path "$testmods" -L 'module("tapline_test").function("tt_args8")' 2>&1)
	if grep -qE '^module\("tapline_test"\)\.function\("tt_args8@[^"]*tapline_test_main\.c:[0-9]+"\) \$s:char const\* \$p:struct tt_point\* \$c:enum tt_color \$big:u64 \$flag:bool \$pv:struct tt_pair \$a7:int \$a8:long int$' <<<"$out"; then
		pass "$name"
	else
		fail "$name" "$out"
	fi

	name=host/stale-archive-member-is-reported-and-skipped
	if [ ! -e "$dir/debug.a" ]; then
		skip "$name" "no archive (elfutils)"
	else
		# An archive made from another build of the module (its build-id
		# changed): the module named by path is not that build.
		mkdir -p "$dir/other"
		cp "$testmods/tapline_test2.ko" "$dir/other/" &&
			"$srcdir/testsuite/tools/flip-build-id" "$dir/other/tapline_test2.ko" >/dev/null &&
			(cd "$dir/other" && eu-ar cq "$dir/other.a" tapline_test2.ko)
		# The module named by path, stripped: only the archive could give
		# its DWARF, and the archive's member is another build.
		eu-strip -g -o "$dir/tapline_test2.ko" "$testmods/tapline_test2.ko"
		err=$(DEBUGINFOD_URLS= "$stap" -p2 -r "$release" --debug-archive "$dir/other.a" \
			-e "probe module(\"$dir/tapline_test2.ko\").function(\"tt2_hello\") {}" 2>&1)
		rc=$?
		if [ "$rc" -eq 1 ] && grep -q "warning: skipping $dir/other.a(tapline_test2.ko): its build-id [0-9a-f]* is not the build-id [0-9a-f]* of the module" <<<"$err" &&
		   grep -q "differs from the module's .*\[no-debuginfo\]" <<<"$err"; then
			pass "$name"
		else
			fail "$name" "exit $rc: $err"
		fi
	fi

	name=host/broken-debug-files-are-errors-not-crashes
	local size crashes="" f
	size=$(stat -c %s "$testmods/tapline_test.ko")
	mkdir -p "$dir/broken"
	for cut in 0 16 64 1000 $((size / 3)) $((size / 2)) $((size - 100)); do
		rm -f "$dir/broken"/*
		head -c "$cut" "$testmods/tapline_test.ko" >"$dir/broken/tapline_test.ko"
		"$stap" -r "$release" --debuginfo-path "$dir/broken" -L 'module("tapline_test").function("tt_*")' >/dev/null 2>"$dir/broken.err"
		rc=$?
		[ "$rc" -le 1 ] || crashes+="truncated at $cut: exit $rc; "
	done
	# Bit flips all over the file, 40 copies.
	for seed in $(seq 40); do
		rm -f "$dir/broken"/*
		cp "$testmods/tapline_test.ko" "$dir/broken/tapline_test.ko"
		for k in 1 2 3 4 5 6 7 8; do
			local at=$(( (seed * 7919 * k + k * 104729) % size ))
			printf '\xff' | dd of="$dir/broken/tapline_test.ko" bs=1 seek="$at" conv=notrunc status=none
		done
		"$stap" -r "$release" --debuginfo-path "$dir/broken" -L 'module("tapline_test").function("*")' >/dev/null 2>"$dir/broken.err"
		rc=$?
		[ "$rc" -le 1 ] || crashes+="bit flips $seed: exit $rc $(tail -1 "$dir/broken.err"); "
	done
	# And a truncated archive.
	if [ -e "$dir/debug.a" ]; then
		for cut in 8 100 $(( $(stat -c %s "$dir/debug.a") / 2 )); do
			head -c "$cut" "$dir/debug.a" >"$dir/cut.a"
			"$stap" -p2 -r "$release" --debug-archive "$dir/cut.a" -e "probe $pp {}" >/dev/null 2>"$dir/broken.err"
			rc=$?
			[ "$rc" -le 1 ] || crashes+="archive cut at $cut: exit $rc; "
		done
	fi
	if [ -z "$crashes" ]; then
		pass "$name"
	else
		fail "$name" "$crashes"
	fi

	name=host/debuginfod-serves-a-stripped-modules-debug-file
	if ! command -v debuginfod >/dev/null; then
		skip "$name" "no debuginfod server (install the package debuginfod)"
		return
	fi
	mkdir -p "$dir/served" "$dir/cache"
	cp "$testmods/tapline_test.ko" "$dir/served/tapline_test.ko.debug"
	eu-strip -g -o "$dir/tapline_test.ko" "$testmods/tapline_test.ko"
	local port=$((20000 + RANDOM % 20000)) pid
	debuginfod -p "$port" -d "$dir/debuginfod.sqlite" -F "$dir/served" >"$dir/debuginfod.log" 2>&1 &
	pid=$!
	for _ in $(seq 50); do
		grep -q 'fts traversed' "$dir/debuginfod.log" 2>/dev/null && break
		sleep 0.2
	done
	out=$(DEBUGINFOD_URLS="http://127.0.0.1:$port" DEBUGINFOD_CACHE_PATH="$dir/cache" \
		"$stap" -r "$release" -L "module(\"$dir/tapline_test.ko\").function(\"tt_move\")" 2>&1)
	kill "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	if grep -q '^module("tapline_test").function("tt_move@.*") \$p:struct tt_point\* \$dx:int$' <<<"$out"; then
		pass "$name"
	else
		fail "$name" "$out"$'\n'"$(tail -5 "$dir/debuginfod.log")"
	fi
}
