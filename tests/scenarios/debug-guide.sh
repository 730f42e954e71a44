#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# hosts: 1
# timeout: 900
# README's "Debugging your RDMA program with pib", each example as written
# there: two devices on lo under opensm, pib-mistakes making each mistake
# (a send with no receive posted, a wrong rkey and the QP it leaves in
# ERR, a CQ overflow) under trace-cmd, what the program, `rdma statistic`,
# the trace and the kernel log say of it; then an injected packet loss
# under ibv_rc_pingpong, in the trace and in the packet capture.
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
pib_done
