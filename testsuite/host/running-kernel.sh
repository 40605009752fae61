# SPDX-License-Identifier: GPL-2.0-or-later
# Host tests, sourced by testsuite/run-tests (its pass, fail and skip, $stap,
# $release, $work); run_host or the end of the run calls them.

# The running kernel with no headers here (a production machine; this
# project's own hosts): passes 1-2 work from what it exposes, its BTF,
# /proc/kallsyms and tracefs (mounted for a moment if it is not), and every
# shipped example resolves, tracepoints by system and the tapsets included.
host_running_kernel() {
	local name=host/running-kernel-without-headers-resolves-every-example run
	run=$(uname -r)
	if [ -d "/lib/modules/$run/build" ]; then
		skip "$name" "the running kernel $run has its headers here"
		return
	fi
	if [ ! -r /sys/kernel/btf/vmlinux ]; then
		skip "$name" "the running kernel $run has no BTF (/sys/kernel/btf/vmlinux)"
		return
	fi
	local f bad="" out n=0
	for f in "$srcdir"/examples/*.stp; do
		n=$((n + 1))
		out=$("$stap" -p2 "$f" 2>&1 >/dev/null) || bad+="${f##*/}: $(grep -m2 error <<<"$out")"$'\n'
	done
	[ "$n" -ge 40 ] || bad+="only $n examples"
	if [ -z "$bad" ]; then pass "$name"; else fail "$name" "$bad"; fi

	name=host/running-kernel-tracepoints-by-system
	out=$("$stap" -p2 -e 'probe kernel.trace("sched:sched_wakeup") { println($p->pid) } probe kernel.trace("sched:sched_process_*") { println(pp()) }' 2>&1)
	if [ $? -eq 0 ] && grep -q '^kernel.trace("sched:sched_wakeup")' <<<"$out" &&
	   grep -q '^kernel.trace("sched:sched_process_fork")' <<<"$out"; then
		pass "$name"
	else
		fail "$name" "$out"
	fi

	name=host/running-kernel-without-headers-lists-probes
	local listed vars
	listed=$("$stap" -l 'kernel.function("vfs_rea*")' 2>&1)
	vars=$("$stap" -L 'kernel.trace("sched:sched_switch")' 2>&1)
	if grep -qx 'kernel.function("vfs_read")' <<<"$listed" &&
	   grep -q '^kernel.trace("sched:sched_switch") .*\$prev:struct task_struct\*' <<<"$vars"; then
		pass "$name"
	else
		fail "$name" "$listed"$'\n'"$vars"
	fi

	name=host/running-kernel-without-headers-p4-says-what-is-missing
	out=$("$stap" -p4 -e 'probe begin { exit() }' 2>&1)
	if [ $? -eq 1 ] && grep -q "no build tree /lib/modules/$run/build" <<<"$out" &&
	   grep -qF "stap -r $run -p4 -m NAME SCRIPT" <<<"$out"; then
		pass "$name"
	else
		fail "$name" "$out"
	fi
}
