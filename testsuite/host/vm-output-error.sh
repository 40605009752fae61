# SPDX-License-Identifier: GPL-2.0-or-later
# Host tests, sourced by testsuite/run-tests (its pass, fail and skip, $stap,
# $release, $work); run_host or the end of the run calls them.

# stap --vm -o FILE: a failed write of the script's output is an error.
host_vm_output_error() {
	local name=host/vm-output-write-error-fails
	if ! "$vm" --check -r "$release" >/dev/null 2>&1; then
		skip "$name" "no guest can be booted here"
		return
	fi
	local err rc
	err=$(cd "$work" && "$stap" --vm -r "$release" -o /dev/full "$srcdir/examples/hello.stp" 2>&1)
	rc=$?
	if [ "$rc" -eq 1 ] && grep -q "cannot write the script's output to /dev/full" <<<"$err"; then
		pass "$name"
	else
		fail "$name" "exit $rc: $err"
	fi
}

# stap --vm -o FILE -c CMD: the file holds the script's output, not the
# command's (which goes to stderr: the guest has one stdout channel).
host_vm_output_file_without_command() {
	local name=host/vm-output-file-holds-the-script-output-alone
	if ! "$vm" --check -r "$release" >/dev/null 2>&1; then
		skip "$name" "no guest can be booted here"
		return
	fi
	local err rc
	err=$(cd "$work" && "$stap" --vm -r "$release" -o "$work/vm-o.txt" -c 'echo from-the-command' \
		-e 'probe begin { println("from-the-script") } probe end { println("end") }' 2>&1)
	rc=$?
	if [ "$rc" -eq 0 ] && [ "$(cat "$work/vm-o.txt")" = $'from-the-script\nend' ] &&
		grep -q from-the-command <<<"$err"; then
		pass "$name"
	else
		fail "$name" "exit $rc: file: $(cat "$work/vm-o.txt" 2>&1); stderr: $err"
	fi
	rm -f "$work/vm-o.txt"
}
