# SPDX-License-Identifier: GPL-2.0-or-later
# Host tests, sourced by testsuite/run-tests (its pass, fail and skip, $stap,
# $release, $work); run_host or the end of the run calls them.

# A module records its own SHA-256 (tapline_sha256= in .modinfo), which
# staprun checks before anything is loaded: a byte changed anywhere is
# refused as damage. A module signed with --sign-key/--sign-cert carries
# the kernel's PKCS#7 trailer, which openssl verifies, and still passes.
host_module_integrity() {
	local dir=$work/integrity name out rc bad="" tools=$srcdir/testsuite/tools
	mkdir -p "$dir"
	local script='probe begin { exit() }'
	name=host/module-records-its-checksum
	if ! out=$(cd "$dir" && "$stap" -p4 -r "$release" -m integ -e "$script" 2>&1); then
		fail "$name" "build failed: $out"
		return
	fi
	local ko=$dir/integ.ko sums
	# The module the kernel is handed carries no DWARF, on either build
	# path (the prebuilt stub, kbuild for guru mode): the runtime's made a
	# hello module 4 to 6 MB, copied by init_module and checksummed by
	# staprun at every start.
	name=host/module-carries-no-dwarf
	local kb_out debug
	kb_out=$(cd "$dir" && TAPLINE_BUILD_WITH_KBUILD=1 "$stap" -p4 -r "$release" -m integ_kb \
		--disable-cache -e "$script" 2>&1)
	debug=$(readelf -SW "$ko" "$dir/integ_kb.ko" 2>&1 | grep -E '\.debug_|Error')
	if [ -f "$dir/integ_kb.ko" ] && [ -z "$debug" ] && readelf -SW "$ko" | grep -q '\.symtab'; then
		pass "$name"
	else
		fail "$name" "${debug:-$kb_out}"
	fi
	sums=$("$tools/module-checksum" "$ko" 2>&1)
	if [[ $sums =~ ^([0-9a-f]{64})\ ([0-9a-f]{64})$ ]] && [ "${BASH_REMATCH[1]}" = "${BASH_REMATCH[2]}" ] &&
	   [ "${BASH_REMATCH[1]}" != "$(printf '%064d' 0)" ]; then
		pass "$name"
	else
		fail "$name" "recorded and computed: $sums"
	fi

	# A module whose checksum matches gets past it to the build-id (made
	# wrong on purpose, the checksum written again, so that nothing is ever
	# loaded on the host).
	name=host/staprun-accepts-a-module-whose-checksum-matches
	cp "$ko" "$dir/other-kernel.ko"
	"$tools/set-build-id" "$dir/other-kernel.ko" 0123456789abcdef0123456789abcdef01234567
	out=$("$staprun" -v "$dir/other-kernel.ko" 2>&1)
	if grep -q 'checksum verified, not signed' <<<"$out" && grep -q 'build-id mismatch' <<<"$out"; then
		pass "$name"
	else
		fail "$name" "$out"
	fi

	# 50 places spread over the whole file, headers and .modinfo included.
	name=host/staprun-refuses-a-module-with-any-byte-changed
	local size k at byte
	size=$(stat -c %s "$ko")
	for k in $(seq 0 49); do
		at=$((k * (size - 1) / 49))
		cp "$ko" "$dir/flipped.ko"
		byte=$(od -An -tu1 -j "$at" -N1 "$ko" | tr -d ' ')
		printf "$(printf '\\x%02x' $((byte ^ 0x20)))" |
			dd of="$dir/flipped.ko" bs=1 seek="$at" conv=notrunc status=none
		out=$("$staprun" -v "$dir/flipped.ko" 2>&1)
		rc=$?
		[ "$rc" -eq 1 ] && grep -q 'is damaged' <<<"$out" && ! grep -q 'build-id\|loading' <<<"$out" ||
			bad+="byte $at: exit $rc: $out"$'\n'
	done
	if [ -z "$bad" ]; then pass "$name (50 places)"; else fail "$name" "$bad"; fi

	# Values from the module reach messages escaped: no terminal control.
	name=host/staprun-escapes-module-values-in-messages
	cp "$ko" "$dir/escape.ko"
	local off
	off=$(grep -obUa 'tapline_kernel_build_id=' "$dir/escape.ko" | head -1 | cut -d: -f1)
	printf 'ab\033[2J\001cd' | dd of="$dir/escape.ko" bs=1 seek=$((off + 24)) conv=notrunc status=none
	"$tools/module-checksum" --write "$dir/escape.ko"
	out=$("$staprun" "$dir/escape.ko" 2>&1)
	if grep -qF 'built for kernel build-id ab\x1b[2J\x01cd' <<<"$out" && ! grep -q $'[\001\033]' <<<"$out"; then
		pass "$name"
	else
		fail "$name" "$(cat -v <<<"$out")"
	fi

	name=host/sign-options-go-together
	out=$(cd "$dir" && "$stap" -p4 -r "$release" --sign-key="$dir/nokey.pem" -e "$script" 2>&1)
	rc=$?
	local out2 rc2
	out2=$(cd "$dir" && "$stap" -p4 -r "$release" -m integ_nokey --sign-key="$dir/nokey.pem" \
		--sign-cert="$dir/nocert.pem" -e "$script" 2>&1)
	rc2=$?
	if [ "$rc" -eq 1 ] && grep -q 'go together' <<<"$out" &&
	   [ "$rc2" -eq 1 ] && grep -q "cannot read $dir/nokey.pem" <<<"$out2" && [ ! -e "$dir/integ_nokey.ko" ]; then
		pass "$name"
	else
		fail "$name" "exit $rc: $out"$'\n'"exit $rc2: $out2"
	fi

	name=host/signed-module-verifies-with-its-certificate
	if ! command -v openssl >/dev/null; then
		skip "$name" "no openssl (install openssl)"
		return
	fi
	if ! openssl req -new -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=tapline-test -outform PEM \
		-keyout "$dir/key.pem" -out "$dir/cert.pem" >"$dir/openssl.log" 2>&1; then
		fail "$name" "openssl could not make a key: $(cat "$dir/openssl.log")"
		return
	fi
	if ! out=$(cd "$dir" && "$stap" -v -p4 -r "$release" -m integ_signed --sign-key="$dir/key.pem" \
		--sign-cert="$dir/cert.pem" -e "$script" 2>&1); then
		fail "$name" "build failed: $out"
		return
	fi
	local signed=$dir/integ_signed.ko siglen unsigned_len
	bad=""
	grep -q "signed the module with the key given ($dir/key.pem" <<<"$out" || bad+="-v does not say it signed: $out"$'\n'
	tail -c 28 "$signed" | cmp -s - <(printf '~Module signature appended~\n') || bad+="no signature trailer"$'\n'
	# struct module_signature is the 12 bytes before the magic; sig_len its last 4.
	siglen=$(tail -c 32 "$signed" | head -c 4 | od -An -tu1 |
		awk '{ print $1 * 16777216 + $2 * 65536 + $3 * 256 + $4 }')
	unsigned_len=$(($(stat -c %s "$signed") - 40 - siglen))
	head -c "$unsigned_len" "$signed" >"$dir/unsigned.part"
	tail -c $((siglen + 40)) "$signed" | head -c "$siglen" >"$dir/sig.p7"
	openssl cms -verify -binary -inform DER -in "$dir/sig.p7" -content "$dir/unsigned.part" \
		-certfile "$dir/cert.pem" -CAfile "$dir/cert.pem" -purpose any -out /dev/null \
		>"$dir/verify.log" 2>&1 || bad+="openssl cms -verify: $(cat "$dir/verify.log")"$'\n'
	sums=$("$tools/module-checksum" "$signed" 2>&1)
	[[ $sums =~ ^([0-9a-f]{64})\ ([0-9a-f]{64})$ ]] && [ "${BASH_REMATCH[1]}" = "${BASH_REMATCH[2]}" ] ||
		bad+="the checksum under the signature: $sums"$'\n'
	# Another key's certificate does not verify it.
	openssl req -new -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=other -outform PEM \
		-keyout "$dir/other.pem" -out "$dir/other-cert.pem" >/dev/null 2>&1
	openssl cms -verify -binary -inform DER -in "$dir/sig.p7" -content "$dir/unsigned.part" \
		-certfile "$dir/other-cert.pem" -CAfile "$dir/other-cert.pem" -purpose any -out /dev/null \
		>/dev/null 2>&1 && bad+="another certificate verifies the signature"$'\n'
	if [ -z "$bad" ]; then pass "$name"; else fail "$name" "$bad"; fi

	name=host/staprun-accepts-a-signed-module
	cp "$signed" "$dir/signed-other-kernel.ko"
	"$tools/set-build-id" "$dir/signed-other-kernel.ko" 0123456789abcdef0123456789abcdef01234567
	out=$("$staprun" -v "$dir/signed-other-kernel.ko" 2>&1)
	if grep -q 'checksum verified, signed' <<<"$out" && grep -q 'build-id mismatch' <<<"$out"; then
		pass "$name"
	else
		fail "$name" "$out"
	fi
	name=host/staprun-refuses-a-signed-module-with-a-byte-changed
	cp "$signed" "$dir/signed-flipped.ko"
	printf 'Z' | dd of="$dir/signed-flipped.ko" bs=1 seek=$((unsigned_len / 2)) conv=notrunc status=none
	out=$("$staprun" "$dir/signed-flipped.ko" 2>&1)
	if grep -q 'the module is damaged: its checksum does not match' <<<"$out"; then
		pass "$name"
	else
		fail "$name" "$out"
	fi

	# Without --sign-key, stap signs with DKMS's key when it can read it
	# (here a throwaway one, on a private mount over /var/lib).
	name=host/sign-with-the-dkms-key-found-by-itself
	if ! unshare -m true 2>/dev/null; then
		skip "$name" "cannot make a private mount namespace here (unshare -m)"
		return
	fi
	mkdir -p "$dir/varlib/dkms"
	openssl req -new -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=tapline-dkms-test \
		-keyout "$dir/varlib/dkms/mok.key" -outform DER -out "$dir/varlib/dkms/mok.pub" >/dev/null 2>&1
	out=$(cd "$dir" && env -u TAPLINE_NO_SYSTEM_SIGNING_KEY unshare -m sh -c \
		'mount --bind "$1" /var/lib && exec "$2" -v -p4 -r "$3" -m integ_dkms -e "$4"' \
		sh "$dir/varlib" "$stap" "$release" "$script" 2>&1)
	signed=$dir/integ_dkms.ko
	bad=""
	grep -q "signed the module with DKMS's MOK key (/var/lib/dkms/mok.key, certificate /var/lib/dkms/mok.pub)" \
		<<<"$out" || bad+="-v does not say it signed with DKMS's key: $out"$'\n'
	siglen=$(tail -c 32 "$signed" | head -c 4 | od -An -tu1 |
		awk '{ print $1 * 16777216 + $2 * 65536 + $3 * 256 + $4 }')
	head -c $(($(stat -c %s "$signed") - 40 - siglen)) "$signed" >"$dir/unsigned.part"
	tail -c $((siglen + 40)) "$signed" | head -c "$siglen" >"$dir/sig.p7"
	openssl x509 -inform DER -in "$dir/varlib/dkms/mok.pub" -out "$dir/mok.pem"
	openssl cms -verify -binary -inform DER -in "$dir/sig.p7" -content "$dir/unsigned.part" \
		-certfile "$dir/mok.pem" -CAfile "$dir/mok.pem" -purpose any -out /dev/null \
		>"$dir/verify.log" 2>&1 || bad+="openssl cms -verify: $(cat "$dir/verify.log")"$'\n'
	# With no key to be found, the module is not signed, and -v says why.
	out=$(cd "$dir" && "$stap" -v -p4 -r "$release" -m integ_nosig -e "$script" 2>&1)
	grep -q 'the module is not signed: no --sign-key given and no key found' <<<"$out" &&
		! tail -c 28 "$dir/integ_nosig.ko" | grep -q 'Module signature appended' ||
		bad+="without a key: $out"$'\n'
	if [ -z "$bad" ]; then pass "$name"; else fail "$name" "$bad"; fi
}
