# SPDX-License-Identifier: GPL-2.0-or-later
# Host tests, sourced by testsuite/run-tests (its pass, fail and skip, $stap,
# $release, $work); run_host or the end of the run calls them.

# User programs' debug information in separate files: beside the program
# through its .gnu_debuglink, and by build-id under --debuginfo-path.
host_user_debuginfo() {
	local name out
	build_test_programs
	for name in debuglink buildid; do
		local t=host/user-debug-file-by-$name
		if [ -z "$progs" ]; then
			skip "$t" "$progs_why"
			continue
		fi
		out=$("$stap" -r "$release" --debuginfo-path "$progs/debug" \
			-L "process(\"$progs/ut-$name\").function(\"ut_move\")" 2>&1)
		if grep -qE '\.function\("ut_move@[^"]*ut\.c:[0-9]+"\) \$p:struct ut_point\* \$dx:int \$dy:int$' <<<"$out"; then
			pass "$t"
		else
			fail "$t" "$out"
		fi
	done
	# Without the directory, the build-id's debug file is not found: the
	# symbol table still gives the function, with no variables.
	out=$("$stap" -r "$release" -L "process(\"$progs/ut-buildid\").function(\"ut_move\")" 2>&1)
	if [ "$out" = "process(\"$progs/ut-buildid\").function(\"ut_move\")" ]; then
		pass host/user-function-by-symbol-table-without-debug-file
	else
		fail host/user-function-by-symbol-table-without-debug-file "$out"
	fi
	# A .return probe on a C++ function an exception may leave says that
	# the program would be killed (the unwinder meets the uretprobe's
	# return address); on one that calls nothing, it says nothing.
	local t=host/cxx-return-probe-warns-of-exceptions
	out=$("$stap" -r "$release" -p2 -e "probe process(\"$progs/cxx\").function(\"checked\").return { }" 2>&1)
	local quiet
	quiet=$("$stap" -r "$release" -p2 -e "probe process(\"$progs/cxx\").function(\"geo::Rect::area\").return { }" 2>&1 >/dev/null)
	if grep -q 'warning: if an exception leaves this C++ function, the program is killed (std::terminate)' <<<"$out" &&
		[ -z "$quiet" ]; then
		pass "$t"
	else
		fail "$t" "$out"$'\n'"$quiet"
	fi
	# @cast's module may be a program by a relative path, as process("./ut")
	# is (it was taken for a kernel module's name); a path that names no
	# file says so.
	t=host/cast-module-by-relative-path
	out=$(cd "$progs" && "$stap" -r "$release" -p2 -e \
		'probe process("./ut").function("ut_move") { println(@cast($p, "struct ut_point", "./ut")->x) }' 2>&1)
	quiet=$(cd "$progs" && "$stap" -r "$release" -p2 -e \
		'probe process("./ut").function("ut_move") { println(@cast($p, "struct ut_point", "./no-such-ut")->x) }' 2>&1)
	if grep -q '^process(".*/ut")\.function("ut_move@' <<<"$out" &&
		grep -q "error: @cast: the module './no-such-ut' cannot be found: No such file" <<<"$quiet"; then
		pass "$t"
	else
		fail "$t" "$out"$'\n'"$quiet"
	fi
}
