# SPDX-License-Identifier: GPL-2.0-or-later
# Host tests, sourced by testsuite/run-tests (its pass, fail and skip, $stap,
# $release, $work); run_host or the end of the run calls them.

exporter_setup() {
	exp=$(mktemp -d /run/tapline-exporter-XXXXXX) || return 1
	[ -n "${KEEP:-}" ] || trap 'rm -rf "$top" "$exp"' EXIT
	chmod 755 "$exp"
	mkdir "$exp/bin" "$exp/ran"
	cat >"$exp/bin/stap" <<SH
#!/bin/sh
out=$exp/ran/\$\$
for last; do :; done
echo "stap \$*" >"\$out"
if [ "\$last" = - ]; then timeout 2 cat; else timeout 2 cat -- "\$last"; fi >>"\$out"
SH
	chmod 755 "$exp/bin/stap"
}

# exporter_start PORT ARGS...: the exporter on PORT (its pid $exporter_pid,
# its messages in $exp/err.PORT), once it answers; $nofile, when set, is
# its limit of open files.
exporter_start() {
	local port=$1
	shift
	(
		[ -z "${nofile:-}" ] || ulimit -n "$nofile"
		PATH=$exp/bin:$PATH exec "$exporter" -p "$port" "$@" 2>"$exp/err.$port"
	) &
	exporter_pid=$!
	for _ in $(seq 50); do
		curl -s -o /dev/null "http://127.0.0.1:$port/" && return 0
		sleep 0.1
	done
	return 1
}

exporter_stop() {
	kill "$exporter_pid" 2>/dev/null
	wait "$exporter_pid"
}

host_exporter_all() {
	if ! command -v curl >/dev/null; then
		skip "host/exporter tests" "curl is not installed (scripts/install-deps installs it)"
		return
	fi
	if [ "$(id -u)" -ne 0 ]; then
		skip "host/exporter tests" "they need root's directories and another user's (chown)"
		return
	fi
	if ! exporter_setup; then
		skip "host/exporter tests" "cannot make a directory under /run"
		return
	fi
	host_exporter
	host_exporter_swap_race
	host_exporter_script_checks
	host_exporter_slow_clients
	host_exporter_connection_cap
}

# stap-exporter on the host, without a guest: what it answers for paths
# that are not scripts, other methods and a path outside /proc/systemtap,
# and that -s runs no script from a directory others may write.
host_exporter() {
	local name=host/exporter-answers-and-refuses
	local port=$((20000 + RANDOM % 20000)) bad="" code out
	mkdir -p "$exp/open"
	chmod 777 "$exp/open"
	echo 'probe begin { }' >"$exp/open/x.stp"
	if ! exporter_start "$port" -s "$exp/open"; then
		fail "$name" "the exporter does not answer: $(cat "$exp/err.$port")"
		return
	fi
	code=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/")
	[ "$code" = 200 ] || bad+="GET /: $code"$'\n'
	code=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/no_such_script")
	[ "$code" = 404 ] || bad+="GET /no_such_script: $code"$'\n'
	code=$(curl -s --path-as-is -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/../../etc/passwd")
	[ "$code" = 404 ] || bad+="GET /../../etc/passwd: $code"$'\n'
	code=$(curl -s -X POST -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/x")
	[ "$code" = 405 ] || bad+="POST: $code"$'\n'
	out=$(curl -s -w ' %{http_code}' "http://127.0.0.1:$port/x")
	[[ $out == *"not trusted"*" 503" ]] || bad+="GET /x from a directory others write: $out"$'\n'
	exporter_stop
	grep -q "not running $exp/open/x.stp: $exp/open: writable by group or others (mode 0777)" "$exp/err.$port" ||
		bad+="no reason given: $(cat "$exp/err.$port")"$'\n'
	if [ -z "$bad" ]; then pass "$name"; else fail "$name" "$bad"; fi
}

# Another user swaps DIR: the scripts directory is root's but sits in a
# directory of nobody's, who swaps it, as fast as mv goes, with one of its
# own holding a script of the same name, while a client asks for the
# script 300 times. The exporter checked paths and stap then opened the
# path, so nobody's script ran now and then (15 of 351 starts); now the
# walk from / checks each directory through the descriptor that opens the
# next, and stops at nobody's: every request is refused, stap never runs.
host_exporter_swap_race() {
	local name=host/exporter-never-runs-a-script-another-user-swaps-in
	local nd=$exp/nobodys port=$((20000 + RANDOM % 20000)) code refused=0 other="" swapper bad=""
	mkdir "$nd" "$nd/scripts" "$nd/evil"
	echo "# root's script" >"$nd/scripts/s.stp"
	echo "# nobody's script" >"$nd/evil/s.stp"
	chown 65534:65534 "$nd" "$nd/evil" "$nd/evil/s.stp"
	rm -f "$exp"/ran/*
	if ! exporter_start "$port" -s "$nd/scripts"; then
		fail "$name" "the exporter does not answer: $(cat "$exp/err.$port")"
		return
	fi
	setpriv --reuid=65534 --regid=65534 --clear-groups sh -c 'cd "$1" || exit
		while :; do mv -T scripts held; mv -T evil scripts; mv -T scripts evil; mv -T held scripts; done' \
		_ "$nd" 2>/dev/null &
	swapper=$!
	for _ in $(seq 300); do
		code=$(curl -s -m 5 -o "$exp/body" -w '%{http_code}' "http://127.0.0.1:$port/s")
		if [ "$code" = 503 ] && grep -q 'not trusted' "$exp/body"; then
			refused=$((refused + 1))
		else
			other+="$code $(cat "$exp/body" 2>/dev/null); "
		fi
	done
	kill "$swapper"
	wait "$swapper" 2>/dev/null
	exporter_stop
	local ran theirs
	ran=$(find "$exp/ran" -type f | wc -l)
	theirs=$(grep -l "nobody's" "$exp"/ran/* 2>/dev/null | wc -l)
	[ "$refused" -eq 300 ] || bad+="refused $refused of 300; the others: ${other:0:300}"$'\n'
	[ "$ran" -eq 0 ] || bad+="stap ran $ran times, $theirs of them nobody's script"$'\n'
	grep -q "not running $nd/scripts/s.stp: $nd: owned by uid 65534, not root" "$exp/err.$port" ||
		bad+="no reason given: $(head -3 "$exp/err.$port")"$'\n'
	if [ -z "$bad" ]; then pass "$name"; else fail "$name" "$bad"; fi
}

# What stap runs is the text the exporter checked, on its standard input
# (stap -m NAME -), not the path, which may name another file by the time
# stap opens it. Refused: a symbolic link as the script or as DIR, a FIFO
# (opened without waiting for a writer) and a script others may write.
host_exporter_script_checks() {
	local name=host/exporter-gives-stap-the-text-it-checked
	local port=$((20000 + RANDOM % 20000)) out bad="" f n
	mkdir "$exp/scripts"
	printf 'probe begin { exit() } # %s\n' "$RANDOM$RANDOM" >"$exp/scripts/good.stp"
	ln -s good.stp "$exp/scripts/link.stp"
	mkfifo "$exp/scripts/fifo.stp"
	install -m 0664 "$exp/scripts/good.stp" "$exp/scripts/writable.stp"
	ln -s scripts "$exp/dirlink"
	rm -f "$exp"/ran/*
	if ! exporter_start "$port" -v -s "$exp/scripts"; then
		fail "$name" "the exporter does not answer: $(cat "$exp/err.$port")"
		return
	fi
	out=$(curl -s -w ' %{http_code}' "http://127.0.0.1:$port/good")
	[ "$out" = $'starting\n 503' ] || bad+="GET /good: $out"$'\n'
	for _ in $(seq 50); do
		grep -q '^stap-exporter: good ended' "$exp/err.$port" && break
		sleep 0.1
	done
	f=$(find "$exp/ran" -type f)
	if [ "$(head -1 "$f" 2>/dev/null)" != "stap -m good -" ]; then
		bad+="stap was run as: $(head -1 "$f" 2>/dev/null)"$'\n'
	elif ! tail -n +2 "$f" | cmp -s - "$exp/scripts/good.stp"; then
		bad+="stap read: $(tail -n +2 "$f")"$'\n'
	fi
	if [ -z "$bad" ]; then pass "$name"; else fail "$name" "$bad"; fi

	name=host/exporter-refuses-symbolic-links-fifos-and-writable-scripts
	bad=""
	for n in link fifo writable; do
		out=$(curl -s -m 5 -w ' %{http_code}' "http://127.0.0.1:$port/$n")
		[[ $out == *"not trusted"*" 503" ]] || bad+="GET /$n: $out"$'\n'
	done
	exporter_stop
	exporter_start "$((port + 1))" -s "$exp/dirlink" || bad+="the exporter does not answer with -s DIR a link"$'\n'
	out=$(curl -s -m 5 -w ' %{http_code}' "http://127.0.0.1:$((port + 1))/good")
	[[ $out == *"not trusted"*" 503" ]] || bad+="GET /good, -s DIR a link: $out"$'\n'
	exporter_stop
	n=$(find "$exp/ran" -type f | wc -l)
	[ "$n" -le 1 ] || bad+="stap ran $((n - 1)) more times"$'\n'
	for f in "link.stp: a symbolic link" "fifo.stp: not a regular file" \
		"writable.stp: writable by group or others (mode 0664)"; do
		grep -q "not running $exp/scripts/$f" "$exp/err.$port" || bad+="not said: $f"$'\n'
	done
	grep -q "not running $exp/dirlink/good.stp: $exp/dirlink: a symbolic link" "$exp/err.$((port + 1))" ||
		bad+="not said: dirlink is a symbolic link"$'\n'
	if [ -z "$bad" ]; then pass "$name"; else fail "$name" "$bad$(cat "$exp/err.$port")"; fi
}

# Slow clients keep no one else waiting: eight connections that send
# nothing and one that sends a byte every 4 s are held open while a plain
# GET / must be answered within 2 s; then all nine must be cut off, 408,
# by the deadline on the whole request (5 s from the connection), though
# the slow one never stopped sending. The exporter served one request at a
# time and waited up to 5 s for each recv(), so they held GET / as long as
# they liked (8 idle connections 40 s; one byte every 4 s, 5 s more than
# the trickle lasts).
host_exporter_slow_clients() {
	local name=host/exporter-serves-others-while-clients-are-slow
	local cut=host/exporter-cuts-off-slow-requests-at-their-deadline
	local port=$((20000 + RANDOM % 20000)) fd slow trickler out t0 ms line bad="" c
	local -a idle=()
	if ! exporter_start "$port"; then
		fail "$name" "the exporter does not answer: $(cat "$exp/err.$port")"
		return
	fi
	t0=${EPOCHREALTIME/./}
	for _ in $(seq 8); do
		exec {fd}<>"/dev/tcp/127.0.0.1/$port"
		idle+=("$fd")
	done
	exec {slow}<>"/dev/tcp/127.0.0.1/$port"
	(for c in G E T ' ' / ' ' H T T P; do printf %s "$c" >&"$slow" || exit; sleep 4; done) 2>/dev/null &
	trickler=$!
	out=$(curl -s -m 10 -o /dev/null -w '%{http_code} %{time_total}' "http://127.0.0.1:$port/")
	if [ "${out% *}" = 200 ] && awk -v t="${out#* }" 'BEGIN { exit !(t < 2) }'; then
		pass "$name"
	else
		fail "$name" "GET / with 8 idle connections and a slow one open: code and seconds $out"
	fi
	# Each must have its 408 within 8 s of its connection (5 s and slack).
	for fd in "${idle[@]}" "$slow"; do
		line=""
		ms=$(((t0 + 8000000 - ${EPOCHREALTIME/./}) / 1000))
		[ "$ms" -gt 0 ] && IFS= read -r -t "$(printf '%d.%03d' $((ms / 1000)) $((ms % 1000)))" -u "$fd" line
		[[ $line == "HTTP/1.1 408 "* ]] ||
			bad+="connection $fd: '${line%$'\r'}' after $(((${EPOCHREALTIME/./} - t0) / 1000)) ms"$'\n'
	done
	ms=$(((${EPOCHREALTIME/./} - t0) / 1000))
	[ "$ms" -ge 4500 ] || bad+="cut off after $ms ms, before the deadline"$'\n'
	kill "$trickler" 2>/dev/null
	wait "$trickler" 2>/dev/null
	for fd in "${idle[@]}" "$slow"; do exec {fd}>&-; done
	exporter_stop
	if [ -z "$bad" ]; then pass "$cut"; else fail "$cut" "$bad"; fi
}

# exporter_hold PORT FILE: a connection that sends nothing, held until the
# exporter answers or closes it (12 s at most); FILE says "connected", then
# the first line of the answer. (Each in a process of its own: bash cannot
# bound the time a connect() waits, and one that waits can be killed.)
exporter_hold() {
	exec 3<>"/dev/tcp/127.0.0.1/$1" || exit
	echo connected >"$2"
	IFS= read -r -t 12 line <&3
	echo "${line%$'\r'}" >>"$2"
}

# wait_files N GLOB LINES SECONDS: waits until N files match GLOB with
# LINES lines each, SECONDS at most; says how many did.
wait_files() {
	local n=0 end=$((${EPOCHREALTIME/./} + $4 * 1000000))
	while :; do
		# (The glob unquoted: it names the files.)
		# shellcheck disable=SC2086
		n=$(awk -v lines="$3" 'FNR == lines { n++ } END { print n + 0 }' $2 2>/dev/null)
		[ "$n" -ge "$1" ] || [ "${EPOCHREALTIME/./}" -ge "$end" ] && break
		sleep 0.1
	done
	echo "$n"
}

# The cap on connections: 100 held open, past the 64 the exporter serves at
# once. Those past the cap, and a request among them, are answered at once
# (503, Retry-After), the exporter holds no more descriptors than the cap
# needs, and once the held ones close it serves again at once. Again under
# ulimit -n 40: the cap comes down to fit (accept() failing for want of a
# descriptor would leave the socket ready: a busy loop), and once the
# exporter has cut off the 24 it holds at their deadline it serves again,
# having spent under half that time on the CPU. The exporter served one at
# a time from a backlog of 16: most of the 100 could not even connect.
host_exporter_connection_cap() {
	local name=host/exporter-caps-its-connections
	local port=$((20000 + RANDOM % 20000)) out n bad="" limit cap ticks t0 ms i want
	local -a holders=()
	for limit in "" 40; do
		cap=64
		[ -z "$limit" ] || cap=$((limit - 16))
		rm -f "$exp"/held.*
		if ! nofile=$limit exporter_start "$port"; then
			bad+="the exporter does not answer${limit:+ (ulimit -n $limit)}: $(cat "$exp/err.$port")"$'\n'
			break
		fi
		t0=${EPOCHREALTIME/./}
		ticks=$(awk '{ print $14 + $15 }' "/proc/$exporter_pid/stat")
		holders=()
		for i in $(seq 100); do
			exporter_hold "$port" "$exp/held.$i" &
			holders+=($!)
		done
		n=$(wait_files 100 "$exp/held.*" 1 5)
		[ "$n" -eq 100 ] || bad+="$n of 100 connected${limit:+ (ulimit -n $limit)}"$'\n'
		out=$(curl -s -m 3 -D - -o /dev/null -w '%{http_code} %{time_total}' "http://127.0.0.1:$port/")
		[[ $out == *"Retry-After: 5"*"503 0."* ]] ||
			bad+="GET / past the cap${limit:+ (ulimit -n $limit)}: $(tail -1 <<<"$out")"$'\n'
		n=$(find "/proc/$exporter_pid/fd" -mindepth 1 | wc -l)
		[ "$n" -le $((cap + 16)) ] || bad+="$n descriptors open${limit:+ (ulimit -n $limit)}"$'\n'
		# Past the cap, a 503 at once; within it, a 408 at the deadline
		# (waited for under the limit only).
		if [ -z "$limit" ]; then
			wait_files $((100 - cap)) "$exp/held.*" 2 3 >/dev/null
			want="$((100 - cap)) HTTP/1.1 503 Service Unavailable"
		else
			wait_files 100 "$exp/held.*" 2 8 >/dev/null
			want="$cap HTTP/1.1 408 Request Timeout $((100 - cap)) HTTP/1.1 503 Service Unavailable"
		fi
		out=$(awk 'FNR == 2' "$exp"/held.* | sort | uniq -c | xargs)
		[ "$out" = "$want" ] || bad+="answers${limit:+ (ulimit -n $limit)}: $out"$'\n'
		if [ -n "$limit" ]; then
			ms=$(((${EPOCHREALTIME/./} - t0) / 1000))
			ticks=$(($(awk '{ print $14 + $15 }' "/proc/$exporter_pid/stat") - ticks))
			[ $((ticks * 1000 / $(getconf CLK_TCK))) -lt $((ms / 2)) ] ||
				bad+="$ticks ticks on the CPU in $ms ms (ulimit -n 40)"$'\n'
		fi
		kill "${holders[@]}" 2>/dev/null
		wait "${holders[@]}" 2>/dev/null
		out=$(curl -s -m 3 -o /dev/null -w '%{http_code} %{time_total}' "http://127.0.0.1:$port/")
		[[ $out == "200 0."* ]] || bad+="GET / once they closed${limit:+ (ulimit -n $limit)}: $out"$'\n'
		exporter_stop
		port=$((port + 1))
	done
	if [ -z "$bad" ]; then pass "$name"; else fail "$name" "$bad"; fi
}

# Prometheus scrapes a script's metrics for real: in the guest, a script
# counts reads per program and descriptor and stap-exporter serves them on
# a port forwarded to the host (--vm-net); Debian's prometheus server on
# the host scrapes it, and its HTTP API must then hold the counter with its
# labels and exact value (dd's 50 one-byte reads); promtool checks the
# text the exporter served. Run against each kernel.
host_prometheus() {
	local r name exporter="$builddir/exporter/stap-exporter"
	if ! command -v prometheus >/dev/null || ! command -v promtool >/dev/null ||
	   ! command -v curl >/dev/null; then
		skip "host/prometheus-scrapes-the-exporter" \
			"Debian's prometheus and curl are not installed (scripts/install-deps installs them)"
		return
	fi
	for r in $(ls /boot | sed -n 's/^vmlinuz-//p' | sort -V); do
		[ -d "/lib/modules/$r/build" ] || continue
		name="host/prometheus-scrapes-the-exporter [$r]"
		if ! "$vm" --check -r "$r" >/dev/null 2>&1; then
			skip "$name" "no guest can be booted here"
			continue
		fi
		local dir="$work/prom-$r" hp pp
		hp=$((20000 + RANDOM % 20000)); pp=$((hp + 1))
		mkdir -p "$dir/data"
		cat >"$dir/reads.stp" <<'STP'
global reads
probe syscall.read { if (execname() == "dd") reads[execname(), fd]++ }
probe prometheus { @prometheus_dump_array2(reads, "tapline_reads", "exec", "fd") }
STP
		cat >"$dir/prometheus.yml" <<YML
global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: tapline
    metrics_path: /reads
    static_configs:
      - targets: ['127.0.0.1:$hp']
YML
		prometheus --config.file="$dir/prometheus.yml" --storage.tsdb.path="$dir/data" \
			--web.listen-address="127.0.0.1:$pp" >"$dir/prometheus.log" 2>&1 &
		local prom=$!
		# The guest: the exporter in the background, dd's reads, then time
		# for a few scrapes before the script ends.
		(cd "$dir" && timeout 180 "$stap" --vm -r "$r" -m reads --vm-net="$hp:9900" \
			--vm-file="$exporter:/bin/stap-exporter" \
			-c 'sh -c "/bin/stap-exporter -a 0.0.0.0 -p 9900 & dd if=/dev/zero of=/dev/null bs=1 count=50 2>/dev/null; sleep 15; kill \$!"' \
			reads.stp) >"$dir/stap.out" 2>&1 &
		local guest=$! value="" i
		for i in $(seq 120); do
			[ -s "$dir/served" ] || curl -sf "http://127.0.0.1:$hp/reads" >"$dir/served" 2>/dev/null ||
				rm -f "$dir/served"
			value=$(curl -sf "http://127.0.0.1:$pp/api/v1/query" \
				--data-urlencode 'query=tapline_reads{exec="dd",fd="0"}' 2>/dev/null |
				sed -n 's/.*"value":\[[0-9.]*,"\([0-9.]*\)"\].*/\1/p')
			[ -n "$value" ] && break
			kill -0 "$guest" 2>/dev/null || break
			sleep 0.5
		done
		wait "$guest"
		local rc=$?
		kill "$prom" 2>/dev/null
		wait "$prom" 2>/dev/null
		local check
		check=$(promtool check metrics <"$dir/served" 2>&1)
		if [ "$value" = 50 ] && [ "$rc" -eq 0 ] && [ -s "$dir/served" ] &&
		   grep -qx 'tapline_reads{exec="dd",fd="0"} 50' "$dir/served" && [ -z "$check" ]; then
			pass "$name"
		else
			fail "$name" "value '$value', stap exit $rc; served: $(head -5 "$dir/served" 2>/dev/null)
promtool: $check
stap: $(tail -5 "$dir/stap.out")
prometheus: $(tail -3 "$dir/prometheus.log")"
		fi
	done
}
