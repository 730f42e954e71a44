#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# hosts: 1
# timeout: 900
# README's "Debugging your RDMA program with pib", each example as written
# there: two devices on lo under opensm, pib-mistakes making each mistake
# (a send with no receive posted, a wrong rkey and the QP it leaves in
# ERR, a CQ overflow) under trace-cmd, what the program, `rdma statistic`,
# the trace and the kernel log say of it; then an injected packet loss
# under ibv_rc_pingpong, in the trace and in the packet capture; then
# strict mode, warning about careless programs and failing some.
# shellcheck source=../lib.sh
. "$PIB_SRC/tests/lib.sh"

pib_install
mistakes=$PIB_BUILD/tools/pib-mistakes
pib_lo_pair_up
cd "$PIB_RESULTS" || fail "cd $PIB_RESULTS"

# mistake NAME EVENTS...: pib-mistakes pibloa piblob NAME under trace-cmd
# with EVENTS; sets $out (the program's) and $rep (trace-cmd report's).
mistake() {
	local name=$1 ev=() e
	shift
	for e in "$@"; do ev+=(-e "$e"); done
	out=$(trace-cmd record "${ev[@]}" -o "$name.dat" \
		"$mistakes" pibloa piblob "$name" 2>&1)
	echo "$out" | grep -v '^ *\(CPU\|Kernel buffer\|cpu\)' | tee "$name.out"
	check "$name: pib-mistakes saw what the mistake leads to" grep -q '^A: wr_id\|^A: async' "$name.out"
	rep=$(trace-cmd report -i "$name.dat" 2>&1 | tee "$name.report")
}

# 1. A send with no receive posted: RNR.
n0=$(stat_of pibloa rnr_naks_rcvd)
mistake rnr pib_aeth_rx pib_cqe
expect_match "rnr: the send completes with RNR retry counter exceeded" "$out" \
	'^A: wr_id 1 completed: RNR retry counter exceeded \(13\)'
expect_match "rnr: trace: the RNR NAK that came back" "$rep" \
	'pib_aeth_rx: +pibloa qpn 0x[0-9a-f]+ psn 0 RNR'
expect_match "rnr: trace: the completion" "$rep" 'pib_cqe: .*RNR_RETRY_EXC_ERR'
check "rnr: rdma statistic: rnr_naks_rcvd counted it" test "$(stat_of pibloa rnr_naks_rcvd)" -gt "$n0"

# 2. A wrong rkey: a remote access error, and a QP left in ERR.
mistake rkey pib_aeth_rx pib_cqe
expect_match "rkey: the write completes with a remote access error" "$out" \
	'^A: wr_id 1 completed: remote access error \(10\)'
expect_match "rkey: the QP is in ERR" "$out" '^A: QP state ERR$'
expect_match "rkey: the next send is flushed" "$out" \
	'^A: wr_id 2 completed: Work Request Flushed Error \(5\)'
expect_match "rkey: trace: the NAK (remote access error: code 2)" "$rep" \
	'pib_aeth_rx: +pibloa qpn 0x[0-9a-f]+ psn 0 NAK 2 '
expect_match "rkey: trace: the flushed completion" "$rep" 'pib_cqe: .*WR_FLUSH_ERR'

# 3. A CQ smaller than what completes into it.
mistake cq-overflow pib_cqe pib_async_event
expect_match "cq-overflow: the program gets the CQ's async event" "$out" '^A: async event CQ error$'
expect_match "cq-overflow: trace: a completion lost" "$rep" 'pib_cqe: .* LOST'
expect_match "cq-overflow: trace: CQ_ERR" "$rep" 'pib_async_event: +pibloa CQ_ERR'
expect_match "cq-overflow: the kernel log says so" "$(dmesg)" \
	'pib: pibloa: a CQ of [0-9]+ entries overflowed'

# 4. A lost packet, injected: the trace shows the drop and the
# retransmission, the client's capture the request sent twice.
stdbuf -oL ibv_rc_pingpong -d piblob -p 18700 -n 5 >loss.server 2>&1 &
server=$!
wait_for 30 grep -q 'local address' loss.server
qpn=$(sed -n 's/.*QPN \(0x[0-9a-f]*\).*/\1/p' loss.server)
check "loss: drop the server's next packet (its first ACK)" \
	sh -c "echo 'qp $qpn drop 1' > /sys/kernel/debug/pib/piblob/inject"
cat /sys/kernel/debug/pib/pibloa/capture >loss.pcapng &
cap=$!
check "loss: the pingpong passes" trace-cmd record -e pib_pkt_drop -e pib_retransmit \
	-o loss.dat ibv_rc_pingpong -d pibloa -p 18700 -n 5 localhost
wait "$server"
kill "$cap"
wait "$cap"
rep=$(trace-cmd report -i loss.dat 2>&1 | tee loss.report)
expect_match "loss: trace: the injected drop" "$rep" \
	"pib_pkt_drop: +piblob INJECTED - .* qpn 0x[0-9a-f]+ psn [0-9]+"
expect_match "loss: trace: the client's retransmission on timeout" "$rep" \
	'pib_retransmit: +pibloa qpn 0x[0-9a-f]+ .*TIMEOUT'
psns=$(tshark -r loss.pcapng -Y 'infiniband.bth.opcode <= 4 && frame.packet_flags_direction == 2' \
	-T fields -e infiniband.bth.psn 2>&1)
echo "$psns"
check "loss: capture: the client sent one SEND twice" test -n "$(sort <<<"$psns" | uniq -d)"

# 5. Strict mode: each careless program is told, once per QP, in the
# kernel log; in error mode some mistakes fail as on strict hardware.
dbg=/sys/kernel/debug/pib
strict() { echo "$1" >"$dbg/pibloa/strict" && echo "$1" >"$dbg/piblob/strict"; }
expect_eq "strict: off by default" "$(cat $dbg/pibloa/strict)" off
check "strict: warn on both devices" strict warn
expect_eq "strict: the file reads warn" "$(cat $dbg/piblob/strict)" warn
check_fails "strict: no such mode" "Invalid argument" strict maybe
# careless MISTAKE: pib-mistakes makes it; sets $out, and $log to what
# the kernel log gained meanwhile.
careless() {
	local n
	n=$(dmesg | wc -l)
	out=$("$mistakes" pibloa piblob "$1" 2>&1 | tee "strict-$1-$(cat $dbg/pibloa/strict).out")
	log=$(dmesg | tail -n +$((n + 1)))
	echo "$out"
	echo "$log" | grep 'strict:'
}
who='strict: pib-mistakes\[[0-9]+\]'
careless unsignaled
expect_match "strict: unsignaled: the program posts all 32" "$out" '^A: 32 unsignaled sends posted$'
expect_match "strict: unsignaled: reported" "$log" \
	"pib: pibloa: $who: QP 0x[0-9a-f]+: 8 sends in a row posted unsignaled, as many as its SQ holds: .* \(unsignaled-wrap\)$"
expect_eq "strict: unsignaled: reported once for the QP" "$(grep -c 'unsignaled-wrap' <<<"$log")" 1
careless small-cq
expect_match "strict: small-cq: the QP is created" "$out" '^A: QP created on a CQ of 4 entries$'
expect_match "strict: small-cq: reported" "$log" \
	"pib: pibloa: $who: create_qp: CQ 0x[0-9a-f]+ has [0-9]+ entries, and the queues that complete into it, this QP's with them, hold 16 WQEs: .* \(cq-too-small\)$"
careless short-recv
expect_match "strict: short-recv: B's receive fails" "$out" '^B: wr_id 0 completed: local length error'
expect_match "strict: short-recv: reported" "$log" \
	"pib: piblob: $who: QP 0x[0-9a-f]+: a message longer than its receive WQE of 16 bytes .*\(recv-too-short\)$"
careless dereg-busy
expect_match "strict: dereg-busy: B's receive fails" "$out" '^B: wr_id 0 completed: local protection error'
expect_match "strict: dereg-busy: reported" "$log" \
	"pib: piblob: $who: QP 0x[0-9a-f]+: MR with lkey 0x[0-9a-f]+ deregistered while a posted receive WQE \(wr_id 0x0\) names it: .* \(dereg-mr-in-use\)$"
# (libpib refuses it before the kernel sees it: no report needed)
careless atomic-unaligned
expect_match "strict: atomic-unaligned: refused at once" "$out" \
	'^A: ibv_post_send of an atomic at 0x[0-9a-f]*[4c]: Invalid argument$'
careless bad-modify
expect_match "strict: bad-modify: refused" "$out" 'with IBV_QP_RQ_PSN: Invalid argument$'
expect_match "strict: bad-modify: reported" "$log" \
	"pib: pibloa: $who: QP 0x[0-9a-f]+: modify_qp RESET -> INIT with attr_mask 0x[0-9a-f]+: .* \(modify-qp-attrs\)$"
expect_eq "strict: rdma statistic: pibloa's strict_reports" "$(stat_of pibloa strict_reports)" 3
expect_eq "strict: rdma statistic: piblob's strict_reports" "$(stat_of piblob strict_reports)" 2
check "strict: error mode on both devices" strict error
careless unsignaled
expect_match "strict: error: unsignaled: the SQ fills up for good" "$out" \
	'^A: unsignaled send 9 of 32: ibv_post_send: Cannot allocate memory: the SQ stays full$'
careless small-cq
expect_match "strict: error: small-cq: create_qp refused" "$out" '^A: ibv_create_qp: Invalid argument$'
# A READ beyond the responder's resources shows when a READ is asked
# again: one response lost (injected) and B has let go of its resource.
n=$(dmesg | wc -l)
coproc reads { PIB_MISTAKES_PAUSE=1 "$mistakes" pibloa piblob too-many-reads 2>&1; }
bqpn=
while read -r -t "$(tf 60)" line <&"${reads[0]}"; do
	echo "$line"
	case $line in
	"B: QP "*) bqpn=${line#B: QP }; bqpn=${bqpn%% *} ;;
	ready*) break ;;
	esac
done
check "strict: error: too-many-reads: lose one of B's READ responses" \
	sh -c "echo 'qp $bqpn drop 1 opcode RC_RDMA_READ_RESPONSE_MIDDLE' >$dbg/piblob/inject"
echo >&"${reads[1]}"
out=$(timeout "$(tf 120)" cat <&"${reads[0]}")
echo "$out"
log=$(dmesg | tail -n +$((n + 1)))
expect_match "strict: error: too-many-reads: the READ asked again is NAK'd" "$out" \
	'completed: remote invalid request error'
expect_match "strict: error: too-many-reads: reported" "$log" \
	"pib: piblob: $who: QP 0x[0-9a-f]+: a READ or atomic came again whose resource a later one took, beyond its 1 responder resources .* \(rd-atomic-exceeded\)$"
check "strict: off again" strict off
careless small-cq
expect_no_match "strict: off: nothing reported" "$log" 'strict:'
pib_done
