# SPDX-License-Identifier: GPL-2.0-or-later
# Host tests, sourced by testsuite/run-tests (its pass, fail and skip, $stap,
# $release, $work); run_host or the end of the run calls them.

# stap --vm --vm-module loads a module with what it depends on (vxlan
# needs udp_tunnel and ip6_udp_tunnel; 6.12's are .ko.xz) before the
# script, so module probes fire; --vm-file puts a file into the guest.
# Each installed kernel with headers.
# stap --vm with a program given by its path only, relative to where stap
# runs: the guest gets the program, its libraries and the dynamic linker,
# and a probe on busybox (/usr/bin/busybox on the host, the same file as
# the guest's /bin/busybox) fires in the busybox the guest runs.
host_vm_programs() {
	local name="host/vm-brings-the-probed-programs-along"
	if ! "$vm" --check -r "$release" >/dev/null 2>&1; then
		skip "$name" "no guest can be booted here"
		return
	fi
	build_test_programs
	if [ -z "$progs" ]; then
		skip "$name" "$progs_why"
		return
	fi
	local out rc
	out=$(cd "$progs" && "$stap" --vm -r "$release" -c 'sh -c "./vars-O0-pie >/dev/null"' \
		-e 'global began
		    probe process("./vars-O0-pie").function("vars_compute") { printf("a=%d b=%d\n", $a, $b) }
		    probe process("/bin/busybox").begin { began++ }
		    probe end { printf("busybox began: %s\n", began ? "yes" : "no") }' 2>&1)
	rc=$?
	if [ "$rc" -eq 0 ] && [ "$(grep -c '^a=[123] b=[123]0$' <<<"$out")" = 3 ] &&
		grep -qx 'busybox began: yes' <<<"$out"; then
		pass "$name"
	else
		fail "$name" "exit $rc: $out"
	fi
}
