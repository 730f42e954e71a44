#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# hosts: 1
# timeout: 600
# Two pib devices on one netdev form a one-host fabric (one switch, two
# CAs) that opensm brings up: on lo, then on eth0. On eth0, trace-cmd
# records pib's tracepoints while an RC pingpong, MADs and a packet to a
# LID the switch cannot route run, and its report shows each of them; the
# packet captures of both devices (pcapng, through debugfs) show the
# pingpong to tshark as InfiniBand, and a capture still open when its
# device is deleted ends by itself with everything it had. Then errors are
# injected through debugfs: verbs that fail once; packets lost, duplicated,
# corrupted, delayed, or only the ACKs lost, and requests answered with an
# RNR or sequence NAK under a checked pingpong; an ACK lost once the
# requester knows its round trip (a probe, not a timeout, sends again); a
# remote access NAK that fails both sides; QP, CQ and SRQ async errors.
# shellcheck source=../lib.sh
. "$PIB_SRC/tests/lib.sh"

# traced A B: trace-cmd records every pib event (TRACE_SYSTEM pib) while
# A and B run ibv_rc_pingpong, A's SMA, its switch's SMA and B's PMA
# answer MADs, and an ibping goes to a LID no one has; the report (the
# formats as userspace decodes them) shows the life of the QPs, the
# packets, ACKs and completions, the MADs and the switch's drop.
traced() {
	local a=$1 b=$2 dat=$PIB_RESULTS/pib-trace.dat rep rec srv capb
	trace-cmd record -e pib -b 8192 -o "$dat" >"$PIB_RESULTS/trace-cmd.log" 2>&1 &
	rec=$!
	# B's capture for the pingpong; A's stays open until A goes.
	cat "/sys/kernel/debug/pib/$b/capture" >"$PIB_RESULTS/$b.pcapng" &
	capb=$!
	cat "/sys/kernel/debug/pib/$a/capture" >"$PIB_RESULTS/$a.pcapng" &
	cap_a=$!
	check "trace-cmd enables pib's events" wait_for 60 \
		grep -q '^pib:pib_pkt_tx$' /sys/kernel/tracing/set_event
	ibv_rc_pingpong -d "$b" -p 18600 -n 20 >"$PIB_RESULTS/rc_pingpong.server" 2>&1 &
	srv=$!
	wait_for 30 sh -c 'ss -ltn | grep -q ":18600 "'
	check "rc_pingpong $a -> $b" timeout 60 ibv_rc_pingpong -d "$a" -p 18600 -n 20 127.0.0.1
	wait "$srv"
	expect_eq "rc_pingpong server's exit status" "$?" 0
	kill "$capb"
	wait "$capb"
	captured "$b" 0
	check "smpquery: $a's own NodeInfo" timeout 60 smpquery -C "$a" -P 1 -D nodeinfo 0
	check "smpquery: the switch's NodeInfo" timeout 60 smpquery -C "$a" -P 1 -D nodeinfo 0,1
	check "perfquery $a -> $b" timeout 60 perfquery -C "$a" -P 1 "$(($(port_attr "$b" lid)))" 1
	# No port has LID 0x777: the switch drops the MAD for want of a route.
	timeout 60 ibping -C "$a" -P 1 -c 1 -t 500 0x777 >/dev/null 2>&1
	kill -INT "$rec"
	wait "$rec"
	expect_eq "trace-cmd record ends with status 0 once stopped" "$?" 0
	rep=$(trace-cmd report -i "$dat" 2>&1)
	# has WHAT REGEX: the report has a line that matches.
	has() {
		if grep -Eq -- "$2" <<<"$rep"; then
			ok "$1"
		else
			fail "$1: no /$2/ in trace-cmd's report"
		fi
	}
	grep -m 40 -E 'pib_(qp|cqe|mad|pkt_drop)' <<<"$rep" | cut -c 1-200
	expect_eq "trace-cmd report: every event decoded" \
		"$(grep -c 'FAILED TO PARSE' <<<"$rep")" 0
	has "trace: $a's RC QP created in RESET" \
		"pib_qp_create: +$a qpn 0x[0-9a-f]+ RC RESET sq [0-9]+ rq [0-9]+ user"
	has "trace: the QP goes RTR -> RTS" \
		"pib_qp_modify: +$a qpn 0x[0-9a-f]+ RTR -> RTS mask"
	has "trace: $a's MR registered" "pib_mr_reg: +$a USER key 0x"
	has "trace: $a's CQ created" "pib_cq_create: +$a cq "
	has "trace: a user's doorbell" "pib_doorbell: +$a qpn 0x[0-9a-f]+ user doorbell, [0-9]+ WQEs: 0"
	has "trace: a SEND WQE fetched" \
		"pib_wqe_fetch: +$a qpn 0x[0-9a-f]+ wqe [0-9]+ wr_id 0x[0-9a-f]+ SEND flags"
	has "trace: $a sends RC_SEND_FIRST" "pib_pkt_tx: +$a slid .* RC_SEND_FIRST qpn"
	has "trace: $b receives it" "pib_pkt_rx: +$b slid .* RC_SEND_FIRST qpn"
	has "trace: $b sends an ACK" "pib_aeth_tx: +$b qpn 0x[0-9a-f]+ psn [0-9]+ ACK"
	has "trace: $a receives an ACK" "pib_aeth_rx: +$a qpn 0x[0-9a-f]+ psn [0-9]+ ACK"
	has "trace: a successful RECV completion" \
		"pib_cqe: +$b cq .* SUCCESS opcode 128 byte_len 4096"
	has "trace: the QP destroyed" "pib_qp_destroy: +$a qpn"
	has "trace: $a's SMA answers NodeInfo" \
		"pib_mad: +$a port 1 class 0x81 method 0x01 attr 0x0011 .*: status 0x0"
	has "trace: the switch's SMA answers NodeInfo" \
		"pib_mad: +eth0 port [0-9]+ class 0x81 method 0x01 attr 0x0011 .*: status 0x0"
	has "trace: $b's PMA answers PortCounters" \
		"pib_mad: +$b port 1 class 0x04 method 0x01 attr 0x0012 .*: status 0x0"
	has "trace: the switch drops the packet to LID 0x777" \
		"pib_pkt_drop: +eth0 UNROUTED - slid 0x[0-9a-f]+ dlid 0x777 "
}

# captured DEV IN: DEV's capture file (DEV.pcapng) holds the pingpong as
# tshark decodes it: RC SEND packets (BTH opcode 0-4) each way and ACKs (17),
# with the direction of each; its device dropped IN packets from it.
captured() {
	local f=$PIB_RESULTS/$1.pcapng out
	out=$(tshark -r "$f" -T fields -e frame.interface_name \
		-e frame.packet_flags_direction -e infiniband.bth.opcode 2>&1)
	echo "$out" | sort | uniq -c | sort -rn | head -n 8
	expect_match "capture $1: RC SEND packets received" "$out" \
		$'^'"$1"$'\t0x0*1\t[0-4]$'
	expect_match "capture $1: RC SEND packets sent" "$out" $'^'"$1"$'\t0x0*2\t[0-4]$'
	expect_match "capture $1: ACKs sent" "$out" $'^'"$1"$'\t0x0*2\t17$'
	[ -e "/sys/kernel/debug/pib/$1/capture_drops" ] &&
		expect_eq "capture $1: capture_drops" \
			"$(cat "/sys/kernel/debug/pib/$1/capture_drops")" "$2"
}

# inject DEV COMMAND: one command to DEV's error injection.
inject() { echo "$2" >"/sys/kernel/debug/pib/$1/inject"; }

# rc_losses DEV...: retransmit timeouts and probes and sequence NAKs of
# the devices, in all.
rc_losses() {
	local d
	for d in "$@"; do
		rdma statistic show link "$d/1"
	done | tr ' ' '\n' |
		awk -v n=0 '/^(retransmit_timeouts|retransmit_probes|seq_naks_rcvd)$/ { getline v; n += v } END { print n }'
}

# server_up DEV PORT NAME PROGRAM...: PROGRAM serves on DEV (output in
# $PIB_RESULTS/NAME) and has made its QP; sets $srv and $qpn.
server_up() {
	local dev=$1 port=$2 name=$3
	shift 3
	stdbuf -oL "$@" -d "$dev" -p "$port" >"$PIB_RESULTS/$name" 2>&1 &
	srv=$!
	wait_for 30 grep -q 'local address' "$PIB_RESULTS/$name"
	qpn=$(sed -n 's/.*QPN \(0x[0-9a-f]*\).*/\1/p' "$PIB_RESULTS/$name" | head -n 1)
}

# res_of KIND DEV PID: the number `rdma resource show KIND` gives PID's
# object on DEV (cqn, srqn).
res_of() {
	rdma resource show "$1" dev "$2" | awk -v pid="$3" -v k="${1}n" \
		'{ for (i = 1; i < NF; i++) { if ($i == k) n = $(i + 1); if ($i == "pid" && $(i + 1) == pid) print n } }'
}

# vcrc_drops: packets eth0's switch dropped for a bad VCRC.
vcrc_drops() { sed -n 's/^drop_bad_vcrc //p' /sys/kernel/debug/pib/eth0; }

# faulted FAULT: a checked ibv_rc_pingpong from $a to $b runs through
# FAULT, injected into the server's QP; first notes the counters (l0, v0,
# t0, r0, s0) the checks after it compare with.
faulted() {
	server_up "$b" 18601 "inject-${1%% *}.server" ibv_rc_pingpong -n 100 -c
	check "inject: $b's QP $qpn: $1" inject "$b" "qp $qpn $1"
	l0=$(rc_losses "$a" "$b")
	v0=$(vcrc_drops)
	t0=$(stat_of "$a" retransmit_timeouts)
	r0=$(stat_of "$a" rnr_naks_rcvd)
	s0=$(stat_of "$a" seq_naks_rcvd)
	check "inject: checked rc_pingpong $a -> $b through $1" \
		timeout 120 ibv_rc_pingpong -d "$a" -p 18601 -n 100 -c 127.0.0.1
	wait "$srv"
	expect_eq "inject: $1: the server's exit status" "$?" 0
}

# probed A B: once A's QP has measured its round trip, a lost ACK from B
# costs a retransmit probe a few round trips later, not an ACK timeout.
probed() {
	local a=$1 b=$2 cli p0 t0 d0
	server_up "$b" 18605 probe.server ibv_rc_pingpong -n 1000000
	timeout 600 ibv_rc_pingpong -d "$a" -p 18605 -n 1000000 127.0.0.1 \
		>"$PIB_RESULTS/probe.client" 2>&1 &
	cli=$!
	check "probe: the client's QP measured a round trip" wait_for 60 sh -c \
		"rdma res show qp -dd | grep '^link $a/1 .*comm ibv_rc_pingpong' | grep -q 'drv_srtt_us [1-9]'"
	rdma res show qp -dd | grep "^link $a/1 .*comm ibv_rc_pingpong"
	p0=$(stat_of "$a" retransmit_probes) t0=$(stat_of "$a" retransmit_timeouts)
	d0=$(stat_of "$b" injected_drops)
	check "probe: $b's QP $qpn: drop 1 opcode RC_ACKNOWLEDGE" \
		inject "$b" "qp $qpn drop 1 opcode RC_ACKNOWLEDGE"
	check "probe: an ACK lost" wait_for 30 stat_above "$b" injected_drops "$d0"
	check "probe: the client sent again early" wait_for 30 stat_above "$a" retransmit_probes "$p0"
	expect_eq "probe: ... with no ACK timeout" "$(stat_of "$a" retransmit_timeouts)" "$t0"
	check "probe: the pair still runs" running "$cli"
	kill "$cli" "$srv"
	wait "$cli" "$srv"
}

# stat_above DEV NAME N: DEV's counter NAME is above N.
stat_above() { [ "$(stat_of "$1" "$2")" -gt "$3" ]; }

# injected A B: errors injected into B (tracefs shows its async events,
# dynamic debug the dropped packets).
injected() {
	local a=$1 b=$2 T l0 v0 t0 r0 s0 n tr cqn srqn fatal_qpn bad
	T=$(tracefs)
	echo >"$T/trace"
	echo 1 >"$T/events/pib/pib_async_event/enable"
	check "dynamic debug: pib's lines on" \
		sh -c "echo 'module pib +p' >/sys/kernel/debug/dynamic_debug/control"
	check "inject: $b's next create_qp fails with ENOMEM" inject "$b" "verb create_qp 12"
	expect_match "inject: ibv_rc_pingpong on $b cannot create its QP" \
		"$(timeout 60 ibv_rc_pingpong -d "$b" -p 18601 2>&1)" "Couldn't create QP"
	check "inject: $b's next alloc_ucontext fails with EACCES" inject "$b" "verb alloc_ucontext 13"
	expect_match "inject: ibv_devinfo cannot open $b" \
		"$(timeout 60 ibv_devinfo -d "$b" 2>&1)" "Failed to open device"
	check "inject: ibv_devinfo opens $b again" timeout 60 ibv_devinfo -d "$b"
	faulted "drop 3"
	check "inject: the lost packets were sent again" test "$(rc_losses "$a" "$b")" -gt "$l0"
	expect_eq "inject: rdma statistic: $b's injected_drops" "$(stat_of "$b" injected_drops)" 3
	faulted "dup 3"
	faulted "corrupt 3"
	expect_eq "inject: the switch's VCRC check caught each corrupted packet" \
		"$(vcrc_drops)" $((v0 + 3))
	check "inject: the corrupted packets were sent again" test "$(rc_losses "$a" "$b")" -gt "$l0"
	faulted "delay 3 300"
	expect_eq "inject: rdma statistic: $b's injected_faults (dup, corrupt, delay)" \
		"$(stat_of "$b" injected_faults)" 9
	# Only the server's ACKs: the client times out and sends again, the
	# server answers the duplicate.
	faulted "drop 2 opcode RC_ACKNOWLEDGE"
	expect_eq "inject: two ACKs lost" "$(stat_of "$b" injected_drops)" 5
	check "inject: the client timed out for them" \
		test "$(stat_of "$a" retransmit_timeouts)" -ge $((t0 + 2))
	expect_eq "inject: dynamic debug: each dropped packet in the kernel log" \
		"$(dmesg | grep -cE "$b: packet dropped \(INJECTED\): slid 0x[0-9a-f]+ dlid 0x[0-9a-f]+ lnh 2 opcode 0x[0-9a-f]+ qpn 0x[0-9a-f]+ psn [0-9]+ len [0-9]+$")" 5
	n=$(dmesg | sed -n "/injected: qp $qpn drop 2 opcode RC_ACKNOWLEDGE\$/,\$p" |
		grep -E "$b: packet dropped \(INJECTED\): ")
	expect_eq "inject: dynamic debug: two dropped since" "$(grep -c . <<<"$n")" 2
	expect_eq "inject: dynamic debug: both ACKs (opcode 0x11)" "$(grep -c 'opcode 0x11 ' <<<"$n")" 2
	faulted "nak rnr 2"
	expect_eq "inject: the client got two RNR NAKs" "$(stat_of "$a" rnr_naks_rcvd)" $((r0 + 2))
	faulted "nak seq 1 opcode RC_SEND_FIRST"
	expect_eq "inject: the client got a PSN sequence NAK" "$(stat_of "$a" seq_naks_rcvd)" $((s0 + 1))
	probed "$a" "$b"
	server_up "$b" 18601 inject-nak.server ibv_rc_pingpong -n 10
	for bad in "delay 3 0" "delay 3 10001" "drop 1 opcode NO_SUCH_OP" "drop 1 opcode 0xff" \
		"nak maybe 1" "nak rnr 0" "dup 1 opcode RC_SEND_ONLY x" "drop -1"; do
		check_fails "inject: qp $qpn $bad" "Invalid argument" inject "$b" "qp $qpn $bad"
	done
	check "inject: $b's QP $qpn: nak access 1" inject "$b" "qp $qpn nak access 1"
	timeout 60 ibv_rc_pingpong -d "$a" -p 18601 -n 10 127.0.0.1 >"$PIB_RESULTS/inject-nak.client" 2>&1
	check "inject: the client fails" test "$?" != 0
	wait "$srv"
	check "inject: so does the server" test "$?" != 0
	expect_match "inject: the client's WQE failed with a remote access error" \
		"$(cat "$PIB_RESULTS/inject-nak.client")" "remote access error"
	server_up "$b" 18602 inject-fatal.server ibv_rc_pingpong
	fatal_qpn=$((qpn))
	check "inject: $b's QP $qpn fatal" inject "$b" "qp $qpn fatal"
	timeout 60 ibv_rc_pingpong -d "$a" -p 18602 127.0.0.1 >"$PIB_RESULTS/inject-fatal.client" 2>&1
	wait "$srv"
	check "inject: the server's QP failed" test "$?" != 0
	cat "$PIB_RESULTS/inject-fatal.server"
	server_up "$b" 18603 inject-cq.server ibv_rc_pingpong
	cqn=$(res_of cq "$b" "$srv")
	check "inject: $b's CQ $cqn (the server's) fatal" inject "$b" "cq $cqn fatal"
	kill "$srv"
	wait "$srv"
	server_up "$b" 18604 inject-srq.server ibv_srq_pingpong
	srqn=$(res_of srq "$b" "$srv")
	check "inject: $b's SRQ $srqn (the server's) fatal" inject "$b" "srq $srqn fatal"
	kill "$srv"
	wait "$srv"
	echo 0 >"$T/events/pib/pib_async_event/enable"
	tr=$(grep pib_async_event "$T/trace")
	echo "$tr"
	expect_match "inject: trace: QP_FATAL" "$tr" "pib_async_event: $b QP_FATAL $fatal_qpn\$"
	expect_match "inject: trace: CQ_ERR" "$tr" "pib_async_event: $b CQ_ERR $cqn\$"
	expect_match "inject: trace: SRQ_ERR" "$tr" "pib_async_event: $b SRQ_ERR $srqn\$"
	check_fails "inject: a QP $b does not have" "No such file" inject "$b" "qp 0xfffff fatal"
	check_fails "inject: a CQ $b does not have" "No such file" inject "$b" "cq 99999 fatal"
	check_fails "inject: an unknown fault" "Invalid argument" inject "$b" "qp 2 explode"
	check_fails "inject: an unknown verb" "Invalid argument" inject "$b" "verb explode 12"
	check_fails "inject: no errno" "Invalid argument" inject "$b" "verb create_qp 0"
	check_fails "inject: a command too long" "Invalid argument" inject "$b" "$(printf 'x%.0s' {1..80})"
	n=$(dmesg | grep -c "pib: $b: injected: ")
	expect_eq "inject: each injection logged once" "$n" 14
	refused "$a" "$b"
	echo 'module pib -p' >/sys/kernel/debug/dynamic_debug/control
}

# refused A B: verbs that B refuses say why in the kernel log (dynamic
# debug on).
refused() {
	local a=$1 b=$2
	expect_match "refused: ibv_rc_pingpong -r 100000 cannot create its CQ" \
		"$(timeout 60 ibv_rc_pingpong -d "$b" -p 18605 -r 100000 2>&1)" "Couldn't create CQ"
	expect_match "refused: create_cq: the kernel log says why" "$(dmesg)" \
		"$b: ibv_rc_pingpong\[[0-9]+\]: create_cq: cqe 100001 \(1 to 65536\), comp_vector 0 \(below 1\): -EINVAL"
	# The port's active MTU on eth0 (1500 bytes) is 1024. The server
	# moves its QP to RTR first, when the client's address comes.
	server_up "$b" 18606 refused-mtu.server ibv_rc_pingpong -m 2048
	timeout 60 ibv_rc_pingpong -d "$a" -p 18606 -m 2048 127.0.0.1 \
		>"$PIB_RESULTS/refused-mtu.client" 2>&1
	wait "$srv"
	expect_match "refused: a path MTU above the port's: the server cannot move to RTR" \
		"$(cat "$PIB_RESULTS/refused-mtu.server")" "Failed to modify QP to RTR"
	expect_match "refused: modify_qp: the kernel log says why" "$(dmesg)" \
		"$b: ibv_rc_pingpong\[[0-9]+\]: modify_qp: QP $(printf 0x%x $((qpn))): path_mtu 2048 above the port's active MTU 1024: -EINVAL"
}

# one_host_fabric NETDEV: two devices on NETDEV under opensm.
one_host_fabric() {
	local nd=$1 a=pib${1}a b=pib${1}b guid out lid_b st
	check "$nd: rdma link add $a" rdma link add "$a" type pib netdev "$nd"
	check "$nd: rdma link add $b" rdma link add "$b" type pib netdev "$nd"
	guid=$(ibstat -p "$a")
	opensm -B -d 2 -t 1000 -g "$guid" -f "$PIB_RESULTS/opensm-$nd.log" >/dev/null 2>&1
	for d in "$a" "$b"; do
		check "$nd: $d ACTIVE under opensm" wait_for 300 \
			grep -q ACTIVE "/sys/class/infiniband/$d/ports/1/state"
	done
	st=$(ibstat "$b")
	expect_match "$nd: ibstat $b: Active" "$st" 'State: Active'
	expect_match "$nd: ibstat $b: SM lid is $a's" "$st" \
		"SM lid: $(($(port_attr "$a" lid)))\$"
	check "$nd: LIDs differ" test "$(port_attr "$a" lid)" != "$(port_attr "$b" lid)"
	out=$(timeout 120 ibnetdiscover -C "$b" -P 1 2>&1)
	echo "$out"
	expect_eq "$nd: ibnetdiscover: 1 switch" "$(grep -c '^Switch' <<<"$out")" 1
	expect_eq "$nd: ibnetdiscover: 2 CAs" "$(grep -c '^Ca' <<<"$out")" 2
	lid_b=$(($(port_attr "$b" lid)))
	ibping -C "$b" -P 1 -S >/dev/null 2>&1 &
	local server=$!
	expect_match "$nd: ibping $a -> $b" \
		"$(timeout 60 ibping -C "$a" -P 1 -c 2 "$lid_b" 2>&1)" \
		'2 packets transmitted, 2 received'
	kill "$server"
	expect_match "$nd: perfquery $a -> $b" \
		"$(timeout 60 perfquery -C "$a" -P 1 "$lid_b" 1 2>&1)" 'PortRcvPkts:\.*[1-9]'
	expect_match "$nd: opensm: SUBNET UP" "$(cat "$PIB_RESULTS/opensm-$nd.log")" \
		'SUBNET UP'
	[ "$nd" != eth0 ] || traced "$a" "$b"
	[ "$nd" != eth0 ] || injected "$a" "$b"
	kill "$(pidof opensm)"
	wait_for 30 sh -c '! pidof opensm'
	check "$nd: rdma link delete $a" rdma link delete "$a"
	if [ -n "${cap_a:-}" ]; then
		check "$nd: $a's open capture ends with its device" wait_for 30 gone "$cap_a"
		wait "$cap_a"
		expect_eq "$nd: the capture's reader got end of file (cat's exit status)" "$?" 0
		captured "$a" 0
		check "$nd: $a's debugfs directory is gone" test ! -e "/sys/kernel/debug/pib/$a"
		cap_a=
	fi
	check "$nd: rdma link delete $b" rdma link delete "$b"
}

pib_install
one_host_fabric lo
one_host_fabric eth0
pib_done
