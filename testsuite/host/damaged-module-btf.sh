# SPDX-License-Identifier: GPL-2.0-or-later
# Host tests, sourced by testsuite/run-tests (its pass, fail and skip, $stap,
# $release, $work); run_host or the end of the run calls them.

# A stock module whose .BTF is damaged (and with no debug information: its
# build-id changed): reading $variables is an error that names the file and
# what is wrong with its BTF; positional arguments still work, from its
# symbol table.
host_damaged_module_btf() {
	local name=host/damaged-module-btf-is-named-and-symbols-still-work
	local ko dir=$work/btf-damage out rc off size
	ko=$(find "/lib/modules/$release" -name 'dummy.ko*' 2>/dev/null | head -1)
	if [ -z "$ko" ]; then
		skip "$name" "no dummy.ko for $release"
		return
	fi
	mkdir -p "$dir"
	case "$ko" in
	*.xz) xz -dc "$ko" >"$dir/tl_btf_damaged.ko" ;;
	*) cp "$ko" "$dir/tl_btf_damaged.ko" ;;
	esac
	"$srcdir/testsuite/tools/flip-build-id" "$dir/tl_btf_damaged.ko" >/dev/null
	read -r off size < <(readelf -SW "$dir/tl_btf_damaged.ko" | sed 's/^ *\[ *[0-9]*\] *//' |
		awk '$1 == ".BTF" { print $4, $5 }')
	off=$((16#$off))
	size=$((16#$size))
	# The second half of the section overwritten.
	head -c $((size - size / 2)) /dev/zero | tr '\0' '\377' |
		dd of="$dir/tl_btf_damaged.ko" bs=1 seek=$((off + size / 2)) conv=notrunc status=none
	local pp="module(\"$dir/tl_btf_damaged.ko\").function(\"dummy_dev_init\")"
	out=$("$stap" -p2 -r "$release" -e "probe $pp { print(\$\$parms) }" 2>&1)
	rc=$?
	local bad=""
	[ "$rc" -eq 1 ] && grep -q "note: and no BTF to read its types from instead: the BTF of $dir/tl_btf_damaged.ko does not read on top of the kernel's" <<<"$out" ||
		bad+="\$\$parms: exit $rc: $out; "
	out=$("$stap" -p2 -r "$release" -e "probe $pp { print(pointer_arg(1)) }" 2>&1)
	rc=$?
	[ "$rc" -eq 0 ] && grep -q 'kprobe tl_btf_damaged:dummy_dev_init' <<<"$out" ||
		bad+="pointer_arg: exit $rc: $out; "
	if [ -z "$bad" ]; then pass "$name"; else fail "$name" "$bad"; fi
}
