# SPDX-License-Identifier: GPL-2.0-or-later
# Host tests, sourced by testsuite/run-tests (its pass, fail and skip, $stap,
# $release, $work); run_host or the end of the run calls them.

host_vm_modules() {
	local r name
	for r in $(ls /boot | sed -n 's/^vmlinuz-//p' | sort -V); do
		[ -d "/lib/modules/$r/build" ] || continue
		name="host/vm-module-and-its-dependencies-loaded [$r]"
		if ! "$vm" --check -r "$r" >/dev/null 2>&1; then
			skip "$name" "no guest can be booted here"
			continue
		fi
		local out rc
		printf 'a file for the guest\n' >"$work/vm-file.txt"
		out=$(cd "$work" && "$stap" --vm -r "$r" --vm-module=vxlan --vm-module=dummy \
			--vm-file="$work/vm-file.txt:/tmp/in-guest.txt" \
			-c 'sh -c "ip link show dummy0 >/dev/null; cat /tmp/in-guest.txt; grep -c ^vxlan /proc/modules"' \
			-e 'global n; probe module("dummy").function("dummy_get_stats64") { n++ }
			    probe end { printf("stats %d\n", n > 0) }' 2>&1)
		rc=$?
		if [ "$rc" -eq 0 ] && grep -qx 'a file for the guest' <<<"$out" &&
		   grep -qx 1 <<<"$out" && grep -qx 'stats 1' <<<"$out"; then
			pass "$name"
		else
			fail "$name" "exit $rc: $out"
		fi
		# A name the kernel has no module of: said before any boot.
		name="host/vm-module-unknown-is-refused [$r]"
		out=$("$stap" --vm -r "$r" --vm-module=no_such_module -e 'probe begin { exit() }' 2>&1)
		rc=$?
		if [ "$rc" -eq 1 ] && grep -q "stap: --vm-module: kernel $r has no module 'no_such_module'" <<<"$out"; then
			pass "$name"
		else
			fail "$name" "exit $rc: $out"
		fi
	done
	out=$("$stap" --vm-module=dummy -p2 -e 'probe begin { exit() }' 2>&1)
	if [ $? -eq 1 ] && grep -q 'are for a --vm guest: add --vm' <<<"$out"; then
		pass host/vm-module-without-vm-is-refused
	else
		fail host/vm-module-without-vm-is-refused "$out"
	fi
}
