# SPDX-License-Identifier: GPL-2.0-or-later
# Host tests, sourced by testsuite/run-tests (its pass, fail and skip, $stap,
# $release, $work); run_host or the end of the run calls them.

# A global only ever added to by statements is counted per CPU: the
# handlers that count it take no lock, and a read sums the counts. Any
# other write, or an addition whose value is used, keeps it a locked global.
host_counters() {
	local name=host/globals-only-added-to-are-counted-per-cpu out bad="" h
	out=$("$stap" -p3 -r "$release" -e '
global n, m = 5, k, x, y, d, fe, arr
function bump() { m -= 3 }
probe kernel.function("vfs_read") { n++; if (n > 10) m += 2 }
probe kernel.function("vfs_write") { bump(); ++n; for (i = 0; i < 2; n++) i++ }
probe kernel.function("vfs_open") { k = k + 1; y = x++; d++ }
probe kernel.function("vfs_fsync") { d++; fe++ }
probe timer.s(1) { delete d; arr[1] = 1; foreach (fe in arr) {} }
probe end { printf("%d %d %d %d %d %d\n", n, m, k, x, y, d) }' 2>&1)
	# Handler h_i's text, from its definition to its closing brace.
	h() { awk -v s="RT_HANDLER int h$1(struct rt_context *c)" '$0 == s {p = 1} p {print} p && /^}/ {exit}' <<<"$out"; }
	h 0 | grep -q rt_lock && bad+="the n++/m += 2 handler locks; "
	h 0 | grep -q 'c->counters\[0\] = rt_add(c->counters\[0\], 1);' || bad+="n++ is not counted per CPU; "
	h 0 | grep -q 'rt_count_sum(g_n, 0)' || bad+="the read of n does not sum; "
	h 1 | grep -q rt_lock && bad+="the handler calling bump() locks; "
	grep -q 'c->counters\[1\] = rt_sub(c->counters\[1\], (3LL));' <<<"$out" || bad+="m -= 3 in a function is not counted; "
	[ "$(h 2 | grep -c 'rt_lock_write')" = 4 ] || bad+="k (k = k + 1), x and y (y = x++) and d (deleted elsewhere) are not all locked; "
	[ "$(h 3 | grep -c 'rt_lock_write')" = 2 ] || bad+="d and fe (written by foreach) are not locked; "
	grep -q '\.ncounters = 2,' <<<"$out" || bad+="not 2 counters; "
	if [ -z "$bad" ]; then pass "$name"; else fail "$name" "$bad"; fi
}
