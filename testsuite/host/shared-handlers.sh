# SPDX-License-Identifier: GPL-2.0-or-later
# Host tests, sourced by testsuite/run-tests (its pass, fail and skip, $stap,
# $release, $work); run_host or the end of the run calls them.

# Handlers that come out the same (a per-site handler whose target
# variables are in the same places at several sites) are emitted once and
# shared by their probes; different ones are not.
host_shared_handlers() {
	local name=host/identical-handlers-are-emitted-once out bad="" defs probes distinct
	out=$("$stap" -p3 -r "$release" -e '
global seen
probe kernel.function("vfs_read"), kernel.function("vfs_write") {
	if (execname() == "dd" && $count == 17 && !seen[ppfunc()]++)
		printf("%s %d\n", ppfunc(), $count)
}
probe kernel.function("vfs_read").return, kernel.function("vfs_write").return {
	printf("%d %d\n", $return, @entry($count))
}
probe kernel.function("vfs_llseek") { printf("%d\n", $whence) }' 2>&1)
	defs=$(grep -c '^RT_HANDLER int h[0-9]*(struct rt_context \*c)$' <<<"$out")
	probes=$(grep -c '\.handler = h' <<<"$out")
	distinct=$(grep -o '\.handler = h[0-9]*' <<<"$out" | sort -u | wc -l)
	[ "$probes" = 5 ] || bad+="$probes probes, not 5; "
	[ "$defs" = 3 ] && [ "$distinct" = 3 ] || bad+="$defs handlers defined, $distinct run, not 3 (entries, returns, llseek); "
	[ "$(grep -o '\.entry = h[0-9]*_entry, \.entry_regs = h[0-9]*_entry_regs' <<<"$out" | sort -u | wc -l)" = 1 ] ||
		bad+="the two returns do not share one entry part; "
	if [ -z "$bad" ]; then pass "$name"; else fail "$name" "$bad"; fi
}
