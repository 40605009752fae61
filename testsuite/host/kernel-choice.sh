# SPDX-License-Identifier: GPL-2.0-or-later
# Host tests, sourced by testsuite/run-tests (its pass, fail and skip, $stap,
# $release, $work); run_host or the end of the run calls them.

# Without -r, --vm boots the newest kernel installed whole, and says so
# when there is a choice.
host_kernel_choice() {
	local name=host/vm-without-r-says-which-kernel newest="" r out all
	all=$(ls /boot | sed -n 's/^vmlinuz-//p' | sort -V)
	for r in $all; do
		[ -d "/lib/modules/$r/build" ] && newest=$r
	done
	if [ "$(wc -w <<<"$all")" -lt 2 ] || [ -z "$newest" ]; then
		skip "$name" "fewer than two kernels installed"
		return
	fi
	out=$("$stap" --vm -p2 -e 'probe begin { exit() }' 2>&1)
	if [ $? -eq 0 ] && grep -q "^stap: note: --vm boots kernel $newest, the newest installed with its headers" <<<"$out" &&
	   grep -q "^# target kernel $newest," <<<"$out"; then
		pass "$name"
	else
		fail "$name" "$out"
	fi
}
