# SPDX-License-Identifier: GPL-2.0-or-later
# Host tests, sourced by testsuite/run-tests (its pass, fail and skip, $stap,
# $release, $work); run_host or the end of the run calls them.

host_kernel_dwarf() {
	local archive name out loose arch
	if ! archive=$(kernel_debug_archive); then
		skip "host/kernel-dwarf tests" "no debug archive for kernel $release (scripts/install-deps installs linux-image-$release-dbg and makes it)"
		return
	fi
	local a=(--debug-archive "$archive") dir=/usr/lib/debug/lib/modules/$release

	# Functions that exist only inlined (no symbol; their names may be the
	# tail of a longer one in vmlinux's strings: activate_task of
	# deactivate_task): listed, and probed by name.
	name=host/kernel-dwarf-inline-only-functions-listed-and-probed
	local listed placed
	listed=$("$stap" -r "$release" "${a[@]}" -l 'kernel.function("*@kernel/sched/core.c").inline' 2>&1 |
		grep -cE '^kernel\.function\("(activate_task|context_switch)@kernel/sched/core\.c:[0-9]+"\)\.inline$')
	out=$("$stap" -r "$release" "${a[@]}" -p2 \
		-e 'probe kernel.function("activate_task"), kernel.function("context_switch").inline {}' 2>&1)
	placed=$(grep -cE '^kernel\.function\("(activate_task|context_switch)@kernel/sched/core\.c:[0-9]+"\)(\.inline)? /\* kprobe _text\+[0-9]+ ' <<<"$out")
	if [ "$listed" = 2 ] && [ "$placed" -ge 2 ] && ! grep -q 'error' <<<"$out"; then
		pass "$name"
	else
		fail "$name" "listed $listed of 2; placed $placed: $(head -5 <<<"$out")"
	fi

	# GCC's DWARF has bprm_execve inlined inside bprm_execve itself: no
	# second site, or kprocess.exec fires twice per exec.
	name=host/kernel-dwarf-inline-copy-inside-itself-is-no-second-site
	out=$("$stap" -r "$release" "${a[@]}" -p2 -e 'probe kernel.function("bprm_execve") {}' 2>&1)
	if [ "$(grep -c ' /\* kprobe ' <<<"$out")" = 1 ] && ! grep -q 'error' <<<"$out"; then
		pass "$name"
	else
		fail "$name" "$(head -5 <<<"$out")"
	fi

	# symfileline() and the like: the kernel's line table goes into the
	# module (a section the kernel does not load), made once into the
	# cache and made again when the cached file is damaged; with --btf
	# there are no lines, and a warning says the addresses print in hex.
	name=host/kernel-dwarf-line-table-cached-and-carried
	local xdg=$work/line-table-xdg lines=() size1 size2 btf
	rm -rf "$xdg" && mkdir -p "$xdg"
	local script='probe kernel.function("vfs_read") { println(symfileline(addr())) exit() }'
	out=$(XDG_CACHE_HOME=$xdg "$stap" -r "$release" "${a[@]}" -p3 -e "$script" 2>&1)
	lines=("$xdg"/tapline/lines/*)
	size1=$(stat -c %s "${lines[0]}" 2>/dev/null || echo 0)
	[ -f "${lines[0]}" ] && truncate -s 1000 "${lines[0]}"
	XDG_CACHE_HOME=$xdg "$stap" -r "$release" "${a[@]}" -p3 -e "$script" >/dev/null 2>&1
	size2=$(stat -c %s "${lines[0]}" 2>/dev/null || echo 0)
	btf=$(XDG_CACHE_HOME=$xdg "$stap" -r "$release" "${a[@]}" --btf -p3 -e "$script" 2>&1)
	if [ "${#lines[@]}" = 1 ] && [ "$size1" -gt 1000000 ] && [ "$size2" = "$size1" ] &&
		grep -q "\.incbin.*${lines[0]}" <<<"$out" && grep -q 'tapline_klines=1' <<<"$out" &&
		grep -q 'warning: symfileline() prints kernel addresses in hex: --btf' <<<"$btf" &&
		! grep -q 'tapline_klines' <<<"$btf"; then
		pass "$name"
	else
		fail "$name" "cache files ${#lines[@]}, sizes $size1 then $size2; $(grep -m3 'incbin\|error\|warning' <<<"$out$btf")"
	fi

	# SystemTap's aliases on inlined functions: their copies from DWARF.
	name=host/kernel-dwarf-aliases-on-inlined-functions
	out=$("$stap" -r "$release" "${a[@]}" -p2 -e 'probe tty.resize { printf("%s %d %d\n", name,
		old_row, new_col) } probe signal.check_ignored { printf("%d %s\n", sig, sig_name) }' 2>&1)
	if grep -qE '^kernel\.function\("tiocswinsz@.*kprobe' <<<"$out" &&
		grep -qE '^kernel\.function\("sig_ignored@.*kprobe' <<<"$out" &&
		! grep -q 'error' <<<"$out"; then
		pass "$name"
	else
		fail "$name" "$(head -5 <<<"$out")"
	fi

	# SystemTap's aliases on functions of modules that exist only inlined:
	# scsi.ioentry.prepare (scsi_prepare_cmd in scsi_queue_rq) and
	# sunrpc.sched.release_task (rpc_release_task), from the modules' DWARF.
	name=host/kernel-dwarf-module-aliases-on-inlined-functions
	out=$("$stap" -r "$release" "${a[@]}" --debuginfo-path "$dir" -p2 -e 'probe scsi.ioentry.prepare { println(req_addr,
		disk_major, disk_minor, device_state, device_state_str) } probe sunrpc.sched.release_task {
		println(xid, prog, vers, prot, tk_flags, name, argstr) }' 2>&1)
	if grep -qE '^module\("scsi_mod"\)\.function\("scsi_prepare_cmd@.*kprobe' <<<"$out" &&
		grep -qE '^module\("sunrpc"\)\.function\("rpc_release_task@.*kprobe' <<<"$out" &&
		! grep -q 'error' <<<"$out"; then
		pass "$name"
	else
		fail "$name" "$(head -5 <<<"$out")"
	fi

	# Aliases whose variable some inlined copies lost (optimized out in
	# the DWARF): those copies are placed too, and the script builds.
	name=host/kernel-dwarf-aliases-where-copies-lost-a-variable
	out=$("$stap" -r "$release" "${a[@]}" -p2 -e 'probe signal.wakeup { printf("%s %d\n",
		state_mask, resume) } probe ipmib.InUnknownProtos, ipmib.ReasmTimeout { println(op) }' 2>&1)
	if [ "$(grep -cE '^kernel\.function\("signal_wake_up_state@.*kprobe' <<<"$out")" -ge 2 ] &&
		grep -qE '^kernel\.function\("(__)?icmp_send@.*kprobe' <<<"$out" &&
		! grep -q 'error' <<<"$out"; then
		pass "$name"
	else
		fail "$name" "$(grep -m5 'error' <<<"$out")"
	fi

	name=host/kernel-dwarf-listing-shows-parameters-and-locals
	out=$("$stap" -r "$release" "${a[@]}" -L 'kernel.function("vfs_read")' 2>&1)
	if grep -qE '^kernel\.function\("vfs_read@fs/read_write\.c:[0-9]+"\) \$file:struct file\* \$buf:char\* \$count:size_t \$pos:loff_t\*' <<<"$out"; then
		pass "$name"
	else
		fail "$name" "$out"
	fi

	# A statement wildcard over every file reads only the units that hold
	# the function (it never finished), and finds what naming the file does.
	name=host/kernel-dwarf-statement-wildcard-over-files
	local named every
	named=$("$stap" -r "$release" "${a[@]}" -p2 -e 'probe kernel.statement("do_sys_open@fs/open.c:*") {}' 2>&1)
	every=$(timeout 120 "$stap" -r "$release" "${a[@]}" -p2 -e 'probe kernel.statement("do_sys_open@*:*") {}' 2>&1)
	if [ "$(grep -c '^kernel\.statement("do_sys_open@fs/open\.c:[0-9]*")' <<<"$named")" -ge 2 ] &&
	   [ "$(grep -c '^kernel\.statement' <<<"$every")" -ge "$(grep -c '^kernel\.statement' <<<"$named")" ] &&
	   [ -z "$(comm -23 <(grep '^kernel\.statement' <<<"$named" | sort) <(grep '^kernel\.statement' <<<"$every" | sort))" ]; then
		pass "$name"
	else
		fail "$name" "named: $(head -3 <<<"$named"); every: $(head -3 <<<"$every")"
	fi

	# The archive and the loose files of the -dbg package give the same
	# sites, for the kernel and a module, functions, inlined copies and
	# statements. The archive is looked in first, as stap does; a member
	# without DWARF (eu-make-debug-archive leaves 6.12's .ko.xz modules'
	# out) is passed over for the loose file.
	name=host/kernel-dwarf-archive-and-loose-files-agree
	local pps='kernel.function("vfs_*"), kernel.function("context_switch"), module("ext4").function("ext4_file_*"), kernel.statement("do_sys_openat2@fs/open.c:*") { printf("%s\n", $$parms) }'
	arch=$("$stap" -r "$release" "${a[@]}" --debuginfo-path "$dir" -p2 -e "probe $pps" 2>&1)
	loose=$("$stap" -r "$release" --debuginfo-path "$dir" -p2 -e "probe $pps" 2>&1)
	if [ "$arch" = "$loose" ] && [ "$(grep -c '^kernel\.function("vfs_' <<<"$arch")" -ge 20 ] &&
	   grep -q '^module("ext4")\.function("ext4_file_read_iter@fs/ext4/file\.c:[0-9]*")' <<<"$arch"; then
		pass "$name"
	else
		fail "$name" "$(diff <(echo "$arch") <(echo "$loose") | head -10; head -3 <<<"$arch")"
	fi

	# Every tapset syscall alias resolves through the kernel's DWARF to the
	# probes BTF gives (the same functions, as many handlers), in a pass 2
	# that reads DWARF once (it took 38-56 s when each probe scanned it).
	name=host/kernel-dwarf-syscall-aliases-match-btf
	local dw btf
	dw=$("$stap" -r "$release" "${a[@]}" -p2 -e 'probe syscall.* { printf("%s %s\n", name, argstr) }' 2>&1 |
		sed -n 's/^kernel\.function(.*\/\* kprobe \([^ ,]*\).*/\1/p' | sort)
	btf=$("$stap" -r "$release" --btf -p2 -e 'probe syscall.* { printf("%s %s\n", name, argstr) }' 2>&1 |
		sed -n 's/^kernel\.function(.*\/\* kprobe \([^ ,]*\).*/\1/p' | sort)
	if [ -n "$dw" ] && [ "$dw" = "$btf" ] && [ "$(wc -l <<<"$dw")" -ge 250 ]; then
		pass "$name"
	else
		fail "$name" "$(diff <(echo "$dw") <(echo "$btf") | head -10)"
	fi

	# The index of the system's debug places (the -dbg tree, its archive,
	# an archive named) is kept in the cache, stamped: a second run reads
	# it and resolves the same probes; a member added to the named archive
	# makes it again.
	name=host/kernel-dwarf-debug-index-cached-and-remade
	build_test_modules
	if [ -z "$testmods" ]; then
		skip "$name" "$testmods_why"
		return
	fi
	local dir=$work/debug-index first cached changed
	rm -rf "$dir" && mkdir -p "$dir/xdg"
	cp "$testmods/tapline_test.ko" "$testmods/tapline_test2.ko" "$dir/"
	(cd "$dir" && ar rc extra.a tapline_test.ko)
	local run=(env -u TAPLINE_NO_SYSTEM_DEBUGINFO XDG_CACHE_HOME="$dir/xdg" "$stap" -v -p2 -r "$release"
		--debug-archive "$dir/extra.a" -e 'probe module("tapline_test").function("tt_move") {}')
	first=$("${run[@]}" 2>&1)
	cached=$("${run[@]}" 2>&1)
	(cd "$dir" && ar rc extra.a tapline_test2.ko)
	changed=$("${run[@]}" 2>&1)
	if grep -q "Debug archive $dir/extra.a: 1 modules" <<<"$first" && ! grep -q 'from the cache' <<<"$first" &&
	   grep -q '^Debug index: .* from the cache' <<<"$cached" &&
	   [ "$(grep '^module(' <<<"$first")" = "$(grep '^module(' <<<"$cached")" ] &&
	   grep -q '^module("tapline_test")' <<<"$cached" &&
	   grep -q "Debug archive $dir/extra.a: 2 modules" <<<"$changed" && ! grep -q 'from the cache' <<<"$changed"; then
		pass "$name"
	else
		fail "$name" "$(printf '%s\n--- cached:\n%s\n--- changed:\n%s' "$(head -5 <<<"$first")" "$(head -5 <<<"$cached")" "$(head -5 <<<"$changed")")"
	fi
}
