# SPDX-License-Identifier: GPL-2.0-or-later
# Host tests, sourced by testsuite/run-tests (its pass, fail and skip, $stap,
# $release, $work); run_host or the end of the run calls them.

# An interrupted build leaves no temporary directory and no compiler behind.
host_interrupt() {
	local name=host/interrupt-during-pass-4-cleans-up dir=$work/interrupt
	mkdir -p "$dir/tmp"
	{ echo "probe begin {"
	  for i in $(seq 20000); do echo "  s$i = \"v$i\""; done
	  echo "  exit() }"; } >"$dir/long.stp"
	TMPDIR=$dir/tmp "$stap" -p4 -w -r "$release" -m long "$dir/long.stp" >/dev/null 2>"$dir/err" &
	local pid=$! k re
	# (pgrep takes a regex; a kernel release has '+' and '.'.)
	re=$(sed 's/[][*^$+?(){}|.\\]/\\&/g' <<<"$dir/tmp")
	# Interrupt once gcc runs on the generated C (it lives in $dir/tmp).
	for k in $(seq 300); do
		pgrep -f "$re/tapline-" >/dev/null && break
		sleep 0.1
	done
	kill -INT "$pid"
	wait "$pid"
	local rc=$? problems=""
	[ "$rc" -eq 130 ] || problems+="exit $rc, expected 130 (128 + SIGINT)"$'\n'
	[ -z "$(ls -A "$dir/tmp")" ] || problems+="left in TMPDIR: $(ls -A "$dir/tmp")"$'\n'
	sleep 0.2
	pgrep -fa "$re" >"$dir/procs" && problems+="processes left: $(head -3 "$dir/procs")"$'\n'
	grep -q "interrupted" "$dir/err" || problems+="stderr does not say it was interrupted"$'\n'
	if [ -z "$problems" ]; then pass "$name"; else fail "$name" "$problems"; fi
}
