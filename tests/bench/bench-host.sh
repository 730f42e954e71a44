#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# hosts: 2
# timeout: 2400
#
# bench-host.sh: what each guest of `make bench` runs (see tests/bench/run).
# Both hosts bring up pib (opensm on host1) and rdma_rxe on eth0; then, for
# each round, test and size, pib and rxe take turns: host1 runs the perftest
# server, host2 the client, and iperf3 gives the TCP ceiling once per round.
# Bandwidth tests run with each number of QPs of BENCH_QPS (-q). After the
# rounds, a sweep: ib_send_bw on pib and on rxe and iperf3 TCP at each
# message size of BENCH_SWEEP (TCP's write size, -l), once.
# host2 appends one line per measurement to $PIB_RESULTS/bench.tsv:
#   ROUND TEST SIZE QPS DEV VALUE CPU1 CPU2 BYTES
# VALUE: MB/s for bw, usec for lat, Mbit/s for tcp, "n/a" when the run
# failed; CPU1 and CPU2: the CPU seconds host1 (server) and host2 (client)
# were busy during the run, from /proc/stat (all of the guest's CPU time,
# softirqs included: pib's and rxe's work is mostly there); BYTES: what a
# bandwidth test moved ("-" otherwise). ROUND is "sweep" for the sweep.
# Every tool's output is kept in $PIB_RESULTS/runs/. Nothing here fails
# the run: a device that cannot be set up or a tool that fails or hangs
# gives "n/a" and the bench goes on.
#
# Settings (environment, set by tests/bench/run): BENCH_ROUNDS,
# BENCH_TESTS, BENCH_BW_SIZES, BENCH_LAT_SIZES, BENCH_BW_ITERS,
# BENCH_LAT_ITERS, BENCH_QPS, BENCH_SWEEP, BENCH_TOOL_TIMEOUT,
# BENCH_PROFILE.
# shellcheck source=../lib.sh
. "$PIB_SRC/tests/lib.sh"

rounds=${BENCH_ROUNDS:-5}
tests=${BENCH_TESTS:-"send_bw send_lat write_bw write_lat read_bw read_lat"}
bw_sizes=${BENCH_BW_SIZES:-"4096 65536"}
lat_sizes=${BENCH_LAT_SIZES:-"8 4096"}
bw_iters=${BENCH_BW_ITERS:-200}
lat_iters=${BENCH_LAT_ITERS:-500}
qps_list=${BENCH_QPS:-"1 4"}
sweep=${BENCH_SWEEP-"1 4 16 64 256 1024 4096 16384 65536 262144 1048576"}
tool_timeout=${BENCH_TOOL_TIMEOUT:-45}	# seconds for one client run
profile=${BENCH_PROFILE:-0}
hang_budget=3			# timed-out runs before a device is skipped
server_ip=10.99.0.1
sync=$PIB_RESULTS/sync
runs=$PIB_RESULTS/runs
tsv=$PIB_RESULTS/bench.tsv
mkdir -p "$sync" "$runs"

say() { echo "bench: $*"; }

# busy: $busy, the guest's busy CPU ticks so far (every CPU: user, nice,
# system, irq, softirq, steal), read without starting a process.
hz=$(getconf CLK_TCK)
busy() {
	local _c u n s i q sq st
	read -r _c u n s i _ q sq st _ </proc/stat
	busy=$((u + n + s + q + sq + st))
}

# cpu_s TICKS: seconds, two decimals.
cpu_s() { printf '%d.%02d' $(($1 / hz)) $(($1 % hz * 100 / hz)); }

# resends DEV: $resends, "TIMEOUTS NAKS": how often this host's requesters
# on DEV (pib, rxe) timed out waiting for an ACK (pib: or went back early,
# its retransmit probes) and how many sequence NAKs they got (each a
# go-back-N resend), so far; "- -" for others. (rxe's completer_retry_err
# counts both kinds of resend.)
resends() {
	local t p=none n d sub=0
	case $1 in
	pib) d=pibeth0 t=retransmit_timeouts p=retransmit_probes n=seq_naks_rcvd ;;
	rxe) d=rxe0 t=completer_retry_err n=rcvd_seq_err sub=1 ;;
	*) resends="- -"; return ;;
	esac
	resends=$(rdma statistic show link "$d/1" 2>/dev/null |
		awk -v t=$t -v p=$p -v n=$n -v sub=$sub '
		{ for (i = 1; i < NF; i++) {
			if ($i == t) a = $(i + 1)
			if ($i == p) c = $(i + 1)
			if ($i == n) b = $(i + 1) } }
		END { if (a == "" || b == "") print "- -"; else print a + c - sub * b, b }')
}

# Install pib as a user does. Someone may be editing the source tree, which
# makes `make install` try to rebuild on the read-only root: try again later.
pib_try_install() {
	local try
	for try in 1 2 3 4 5; do
		if make -s -C "$PIB_SRC" install BUILD="$PIB_BUILD" DEPMOD=true >/tmp/install.log 2>&1; then
			cp "$PIB_BUILD/rig/modindex-$PIB_KVER"/modules.* "/lib/modules/$PIB_KVER/" &&
				return 0
		fi
		say "make install failed (try $try of 5): $(tail -n 1 /tmp/install.log)"
		sleep 20
	done
	return 1
}

# both_ok NAME: this host's status NAME is "ok", and so is the other's.
both_ok() {
	local i
	for i in $(seq "$PIB_HOSTS"); do
		[ "$(cat "$sync/$1.$i" 2>/dev/null)" = ok ] || return 1
	done
}

# status NAME OK: publish this host's status, wait for the other's.
status() {
	echo "$2" > "$sync/$1.$PIB_HOST"
	barrier "$1"
}

# $perf_wrap ID CMD... runs CMD under a system-wide `perf record` and
# leaves where the CPU time went in $runs: ID.perf.host<i> (by program
# and function; the kernel's modules count as the kernel) and
# ID.perf-calls.host<i> (with what each called). Under emulation each
# sample's interrupt is slow, and perf would throttle its rate to almost
# nothing: perf_cpu_time_max_percent=0 lets it be. There is no PMU:
# samples come from a timer, and what ran with interrupts off shows as
# the function that turned them on again.
perf_wrap=/tmp/perf-wrap
if [ "$profile" = 1 ]; then
	cat >$perf_wrap <<EOF
#!/bin/bash
id=\$1
shift
perf record -q -e cpu-clock -F 999 -a -g -o /tmp/perf.\$id -- "\$@"
st=\$?
perf report -i /tmp/perf.\$id --stdio --no-children --sort dso,sym -g none \\
	--percent-limit 0.05 >$runs/\$id.perf.host$PIB_HOST 2>&1
perf report -i /tmp/perf.\$id --stdio --children --sort sym -g none \\
	--percent-limit 1 >$runs/\$id.perf-calls.host$PIB_HOST 2>&1
rm -f /tmp/perf.\$id
exit \$st
EOF
	chmod +x $perf_wrap
	sysctl -q kernel.perf_cpu_time_max_percent=0 kernel.perf_event_paranoid=-1 \
		kernel.kptr_restrict=0
fi

# ---------------------------------------------------------------- setup
modprobe -a ib_uverbs ib_umad rdma_rxe 2>/dev/null
st=fail
pib_try_install && st=ok
status pib-installed $st
pib=fail
if both_ok pib-installed; then
	pib_fabric_up		# opensm on host1, every port ACTIVE (or not)
	grep -q ACTIVE /sys/class/infiniband/pibeth0/ports/1/state 2>/dev/null && pib=ok
fi

rxe=fail rxe_gid=""
if rdma link add rxe0 type rxe netdev eth0 &&
	wait_for 30 grep -q ACTIVE /sys/class/infiniband/rxe0/ports/1/state; then
	# The RoCE v2 GID of our IPv4 address (::ffff:10.99.0.N).
	hex=$(printf '%02x%02x:%02x%02x' 10 99 0 "$PIB_HOST")
	for _ in $(seq 50); do
		rxe_gid=$(grep -l "ffff:$hex$" /sys/class/infiniband/rxe0/ports/1/gids/* 2>/dev/null |
			head -n 1)
		[ -n "$rxe_gid" ] && break
		sleep 0.2
	done
	rxe_gid=${rxe_gid##*/}
	[ -n "$rxe_gid" ] && rxe=ok
fi

# A provider that crashes takes every libibverbs program down, rxe's too
# (libibverbs tries each provider on each device): measure without it.
ibv_devices >/tmp/ibv_devices.log 2>&1
st=$?
if [ $st != 0 ]; then
	if [ -e /etc/libibverbs.d/pib.driver ]; then
		say "ibv_devices fails (exit $st) with pib's provider installed and" \
			"$(ib_devs | tr '\n' ' ')present: removing the provider, pib is n/a"
		rm -f /etc/libibverbs.d/pib.driver
		pib=fail
	fi
	ibv_devices >/dev/null 2>&1 || { say "ibv_devices fails even so"; rxe=fail; }
fi
status pib-active $pib
both_ok pib-active && pib=ok || pib=fail
status rxe-active $rxe
both_ok rxe-active && rxe=ok || rxe=fail
say "pib: $pib$(test $pib = ok && echo ", LID $(cat /sys/class/infiniband/pibeth0/ports/1/lid)")"
say "rxe: $rxe${rxe_gid:+, GID index $rxe_gid}"
for d in pibeth0:$pib rxe0:$rxe; do
	[ "${d#*:}" = ok ] &&
		say "${d%:*}:$(ibv_devinfo -d "${d%:*}" | grep -E 'active_mtu|link_layer' | tr -s ' \t' ' ' |
			tr '\n' ';')"
done
[ "$PIB_HOST" = 1 ] || : > "$tsv"

# ---------------------------------------------------------------- runs
# Per run ID, host2 decides (go.ID: run or skip), host1 starts the server
# and says when it listens (ready.ID: ok or fail), host2 runs the client
# and says when it is done (cend.ID), host1 stops the server (send.ID).
# Commands name their TCP port @PORT@ and the server's address @HOST@.
declare -A hangs=()
id=0 grace=0

# serve ID CMD...: host1's half of a run.
serve() {
	local id=$1 port=$((20000 + $1)) pid st=fail
	shift
	local cmd=("${@//@PORT@/$port}")
	wait_for 300 test -e "$sync/go.$id" || { say "host2 gone at run $id"; exit 0; }
	[ "$(cat "$sync/go.$id")" = run ] || return 0
	echo "${cmd[*]}" >"$runs/$id.server.log"
	busy
	local b0=$busy
	timeout $((tool_timeout + 30 + grace)) "${cmd[@]}" >>"$runs/$id.server.log" 2>&1 &
	pid=$!
	for _ in $(seq 150); do
		if ss -Hltn "sport = :$port" | grep -q .; then st=ok; break; fi
		kill -0 $pid 2>/dev/null || break
		sleep 0.2
	done
	echo $st > "$sync/ready.$id"
	wait_for $((tool_timeout + 30 + grace)) test -e "$sync/cend.$id"
	for _ in $(seq $((50 + grace * 5))); do kill -0 $pid 2>/dev/null || break; sleep 0.2; done
	kill $pid 2>/dev/null
	wait $pid 2>/dev/null
	busy
	cpu_s $((busy - b0)) >"$sync/cpu.$id"
	touch "$sync/send.$id"
}

# measure ID ROUND TEST SIZE QPS BYTES DEV PARSER CMD...: host2's half of
# a run (BYTES: what it moves, or "-").
measure() {
	local id=$1 round=$2 test=$3 size=$4 qps=$5 bytes=$6 dev=$7 parse=$8
	local port=$((20000 + $1)) log=$runs/$id.client.log value=n/a ok=run st
	local cpu1=- cpu2=- b0 r0 lost="- -"
	shift 8
	local cmd=("${@//@PORT@/$port}")
	cmd=("${cmd[@]//@HOST@/$server_ip}")
	[ "$dev" = pib ] && [ $pib != ok ] && ok=skip
	[ "$dev" = rxe ] && [ $rxe != ok ] && ok=skip
	[ "${hangs[$dev]:-0}" -ge $hang_budget ] && ok=skip
	echo $ok > "$sync/go.$id"
	if [ $ok = run ]; then
		if ! wait_for 60 test -e "$sync/ready.$id"; then
			say "host1 gone at run $id"
			exit 0
		fi
		if [ "$(cat "$sync/ready.$id")" = ok ]; then
			echo "${cmd[*]}" >"$log"
			resends "$dev"
			r0=$resends
			busy
			b0=$busy
			timeout $((tool_timeout + grace)) "${cmd[@]}" >>"$log" 2>&1
			st=$?
			busy
			cpu2=$(cpu_s $((busy - b0)))
			resends "$dev"
			# shellcheck disable=SC2086 # (two numbers each)
			[ "$r0" = "- -" ] || [ "$resends" = "- -" ] ||
				lost=$(printf '%s %s\n' $resends $r0 |
					awk '{ print $1 - $3, $2 - $4 }')
			[ $st = 124 ] && hangs[$dev]=$((${hangs[$dev]:-0} + 1))
			value=$($parse "$size" <"$log")
		else
			echo "the server did not start: see $id.server.log" >"$log"
		fi
		touch "$sync/cend.$id"
		wait_for $((tool_timeout + 60 + grace)) test -e "$sync/send.$id" &&
			cpu1=$(cat "$sync/cpu.$id")
	fi
	[ -n "$value" ] || value=n/a
	echo "$round $test $size $qps $dev $value $cpu1 $cpu2 $bytes $lost" >>"$tsv"
	say "round $round $test $size x$qps $dev: $value (CPU $cpu1 s + $cpu2 s, resends ${lost/ //})$([ $ok = skip ] && echo ' (skipped)')"
}

# Parsers read a tool's output and print one number (or nothing).
# (BW average, to two decimals, is 0.00 for the smallest messages: then
# from the message rate, in Mpps to six, with perftest's MB of 2^20 bytes.)
bw_avg() {
	awk -v s="$1" '$1 == s && $2 ~ /^[0-9]+$/ {
		if ($4 + 0 > 0) v = $4
		else if ($5 + 0 > 0) v = sprintf("%.4f", $5 * 1e6 * s / 1048576)
	} END { print v }'
}
lat_typ() { awk -v s="$1" '$1 == s && $2 ~ /^[0-9]+$/ && $5 + 0 > 0 { v = $5 } END { print v }'; }
tcp_mbit() {
	awk '/receiver/ { for (i = 2; i <= NF; i++) if ($i == "Mbits/sec") v = $(i - 1) }
	     END { print v }'
}

# step ROUND TEST SIZE DEV [QPS [ITERS]]: one measurement, on whichever
# side we are (tcp: SIZE is iperf3's write size, or "-").
step() {
	local round=$1 test=$2 size=$3 dev=$4 qps=${5:-1} iters=${6:-} cmd parse
	local bytes=-
	id=$((id + 1)) grace=0
	case $test in
	tcp)
		if [ "$PIB_HOST" = 1 ]; then
			serve $id iperf3 -s -1 -p @PORT@
		else
			cmd=(iperf3 -f m -t 5 -p @PORT@)
			[ "$size" = - ] || cmd=(iperf3 -f m -t 3 -l "$size" -p @PORT@)
			measure $id "$round" tcp "$size" 1 - tcp tcp_mbit "${cmd[@]}" -c @HOST@
		fi
		return
		;;
	*_bw)
		iters=${iters:-$bw_iters}
		cmd=("ib_$test" -n "$iters") parse=bw_avg bytes=$((size * iters * qps))
		[ "$qps" = 1 ] || cmd+=(-q "$qps")
		;;
	*_lat)
		iters=${iters:-$lat_iters}
		cmd=("ib_$test" -n "$iters") parse=lat_typ
		;;
	esac
	cmd+=(-F -i 1 -s "$size" -p @PORT@)
	# (perf's report takes its time: seconds the runs get besides)
	[ "$round" = profile ] && cmd=("$perf_wrap" "$id" "${cmd[@]}") grace=120
	if [ "$dev" = pib ]; then
		cmd+=(-d pibeth0)
	else
		cmd+=(-d rxe0 -x "${rxe_gid:-0}")
	fi
	if [ "$PIB_HOST" = 1 ]; then
		serve $id "${cmd[@]}"
	else
		measure $id "$round" "$test" "$size" "$qps" "$bytes" "$dev" $parse "${cmd[@]}" @HOST@
	fi
}

barrier measure
for round in $(seq "$rounds"); do
	step "$round" tcp - tcp
	for test in $tests; do
		sizes=$bw_sizes qps=1
		[ "${test%_lat}" != "$test" ] && sizes=$lat_sizes
		[ "${test%_bw}" != "$test" ] && qps=$qps_list
		for q in $qps; do
			for size in $sizes; do
				step "$round" "$test" "$size" pib "$q"
				step "$round" "$test" "$size" rxe "$q"
			done
		done
	done
done
# BENCH_PROFILE=1: the bandwidth tests at the largest size and the latency
# tests at the smallest once more, each under perf on both hosts (their
# numbers are not in the table), with ten times the messages, so that the
# transfer outweighs the setup.
if [ "$profile" = 1 ]; then
	for test in $tests; do
		if [ "${test%_bw}" != "$test" ]; then
			size=${bw_sizes##* } iters=$((bw_iters * 10))
		else
			size=${lat_sizes%% *} iters=$((lat_iters * 10))
		fi
		step profile "$test" "$size" pib 1 "$iters"
		step profile "$test" "$size" rxe 1 "$iters"
	done
fi
# The sweep: 16 MiB a run (20 to 1000 messages).
for size in $sweep; do
	n=$((16777216 / size))
	[ $n -le 1000 ] || n=1000
	[ $n -ge 20 ] || n=20
	step sweep send_bw "$size" pib 1 $n
	step sweep send_bw "$size" rxe 1 $n
	step sweep tcp "$size" tcp
done
barrier finished
say "done"
exit 0
