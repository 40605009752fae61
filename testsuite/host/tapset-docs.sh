# SPDX-License-Identifier: GPL-2.0-or-later
# Host tests, sourced by testsuite/run-tests (its pass, fail and skip, $stap,
# $release, $work); run_host or the end of the run calls them.

# stap --dump-functions lists every built-in and tapset function, each with
# what it does (-v), and the tapset(3stap) page made from it renders.
host_tapset_docs() {
	local name=host/examples-index-lists-every-example missing="" f
	for f in "$srcdir"/examples/*.stp; do
		grep -q "(${f##*/})" "$srcdir/examples/index.md" || missing+="${f##*/} "
	done
	if [ -z "$missing" ]; then pass "$name"; else fail "$name" "not in examples/index.md: $missing"; fi

	name=host/dump-functions-documents-every-function
	local out docs decls
	out=$("$stap" -v --dump-functions 2>&1)
	decls=$(grep -c '^[^ ]' <<<"$out")
	docs=$(grep -c '^    ' <<<"$out")
	if [ "$decls" -ge 100 ] && [ "$decls" -eq "$docs" ] &&
	   grep -qx 'task_pid:long (task:long)' <<<"$out" && grep -qx 'user_string:string (long)' <<<"$out" &&
	   grep -qx 'printf (string, ...)' <<<"$out"; then
		pass "$name ($decls functions)"
	else
		fail "$name" "$decls declarations, $docs descriptions: $(grep -B1 '^[^ ]' <<<"$out" | head -20)"
	fi
	# -l and -L list probe aliases by their own names, -L with the
	# variables an alias sets (all of them: none is elided) and then its
	# point's target variables, as SystemTap's users look them up.
	name=host/listing-probe-aliases-with-their-variables
	local listed vars
	listed=$("$stap" -r "$release" -l 'syscall.open*' 2>&1)
	vars=$("$stap" -r "$release" -L 'syscall.openat' 2>&1)
	if grep -qx 'syscall.openat' <<<"$listed" && grep -qx 'syscall.open' <<<"$listed" &&
	   ! grep -q '__x64_sys' <<<"$listed" &&
	   grep -qE '^syscall\.openat name:string dfd:long dfd_str:string filename_uaddr:long filename:string flags:long flags_str:string mode:long argstr:string \$regs:struct pt_regs const\*$' <<<"$vars"; then
		pass "$name"
	else
		fail "$name" "$listed"$'\n'"$vars"
	fi
	name=host/tapset-manual-page-renders
	if ! command -v nroff >/dev/null; then
		skip "$name" "no nroff (install groff-base)"
		return
	fi
	sh "$srcdir/doc/make-tapset-man" "$stap" >"$work/tapset.3stap" &&
		out=$(nroff -man "$work/tapset.3stap" 2>&1 | col -b 2>/dev/null || nroff -man "$work/tapset.3stap")
	if grep -q 'task_pid:long (task:long)' <<<"$out" &&
	   grep -q 'The process id (thread group id) of task.' <<<"$out" && ! grep -q 'troff' <<<"$out"; then
		pass "$name"
	else
		fail "$name" "$(head -20 <<<"$out")"
	fi
}
