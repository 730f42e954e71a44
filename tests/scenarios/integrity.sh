#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# hosts: 2
# timeout: 1500
# RC integrity across the LAN: pib-integrity moves checksummed SENDs,
# WRITEs with immediate and READs of random sizes and scatter/gather
# layouts from host2 to host1 and checks every byte, first on a clean LAN,
# then while netem drops, duplicates, reorders and corrupts packets on both
# hosts (every message must arrive once and intact), then with the LAN cut
# (the QP must fail with a retry-exceeded status, in bounded time). Two
# runs write and read through memory windows host1 binds (type 1 on the
# clean LAN, type 2 on the bad one). pib-memops, on the clean LAN and the
# bad one: ATOMIC WRITEs from host2 land in host1's memory and read back,
# their completions stamped in order between post and poll, and host1's
# ibv_rereg_mr moves its MR under the same R_Key, then takes remote write
# away (a WRITE then fails with a remote access error: on the clean LAN,
# host1's device loses that NAK once, and host2 tries again on new QPs, as
# it does when the bad LAN loses it). pib-xrc, on the clean LAN and the
# bad one: XRC with host1's server as two processes
# sharing one XRC domain through a file, each with its own XRC SRQ, PD and
# MR, and one XRC TGT QP (A creates it, B opens it) that host2's XRC INI QP
# reaches: SENDs (with and without immediate data, of 1 to 3172 bytes) each
# arrive whole, in order and only on the SRQ they name; WRITEs, READs and a
# FETCH_AND_ADD through either SRQ reach that process's MR; a SEND naming
# another domain's SRQ fails with a remote invalid RD request error, a WRITE
# naming SRQ B with the R_Key of A's MR with a remote access error (neither
# changing anything; on the bad LAN, one whose NAK is lost is tried again on
# new QPs); and the TGT QP still delivers to B after A destroyed its handle.
# pib-apm, on the clean LAN only (the bad LAN's loss could exhaust the
# retries on the alternate path too): RC QPs ARMED with an alternate path on
# SL 1; while host2's device loses its SL 0 packets (pib's injected "sl 0
# drop"), host2's QP migrates to it once its retries run out and host1's
# follows, each with one PATH_MIG event, every SEND still arriving intact
# and in order; and a consumer's modify to MIGRATED migrates at once.
# pib-odp, on the clean LAN and the bad one: On-Demand Paging, every MR
# registered with IBV_ACCESS_ON_DEMAND over fresh pages that nothing touched
# (nor the registration): SENDs of 1 to 12388 bytes, WRITEs, READs and
# atomics fault their pages in on either host (host1 RNR NAKs meanwhile)
# and land byte-exact; after host1 drops its RDMA region (MADV_DONTNEED),
# host2's next WRITE is in the new zero-filled pages, and a READ into pages
# host2 dropped lands in its new ones; ibv_advise_mr prefetches a whole MR
# (and refuses an L_Key of no MR); a WRITE into a page host1 unmapped from
# an MR fails with a remote access error.
# shellcheck source=../lib.sh
. "$PIB_SRC/tests/lib.sh"

tool=$PIB_BUILD/tools/pib-integrity
memops=$PIB_BUILD/tools/pib-memops
xrc=$PIB_BUILD/tools/pib-xrc
apm=$PIB_BUILD/tools/pib-apm
odp=$PIB_BUILD/tools/pib-odp
# The QPs' local ACK timeout: the tool's 2^14 * 4.096 us (pib makes it at
# least 200 ms), or about 1 s on a slow kernel (make test-debug), whose
# guests stall for seconds at a time: pib doubles it per retry up to 4 s,
# so 7 retries then span about 27 s instead of 18 s.
ack=()
[ "${PIB_TIMEOUT_FACTOR:-1}" -gt 1 ] && ack=(--timeout 18)

# pair NAME TOOL SERVER-OPTIONS CLIENT-OPTIONS...: one run, host1 serving
# (with the options in SERVER-OPTIONS, split), host2 the client. With
# $server_may_fail set, only the client's verdict counts (a cut LAN leaves
# the server with a peer that went away).
pair() {
	local name=$1 tool=$2 sopts=$3 out st=0
	shift 3
	if [ "$PIB_HOST" = 1 ]; then
		# shellcheck disable=SC2086 # (options, split on purpose)
		"$tool" --server -d pibeth0 $sopts >"$PIB_RESULTS/$name.server" 2>&1 &
		local pid=$!
		barrier "listen-$name"
		wait "$pid" || st=$?
		out=$(cat "$PIB_RESULTS/$name.server")
		[ -n "${server_may_fail:-}" ] && st=0
	else
		barrier "listen-$name"
		sleep 2
		out=$("$tool" --client 10.99.0.1 -d pibeth0 "$@" 2>&1) || st=$?
		echo "$out" >"$PIB_RESULTS/$name.client"
	fi
	echo "$out" | tail -n 3
	if [ "$st" = 0 ]; then
		ok "$name (host$PIB_HOST)"
	else
		fail "$name (host$PIB_HOST): exit $st"
		tail -n 10 <<<"$out" | sed 's/^/    /'
	fi
	barrier "done-$name"
}

# integrity NAME CLIENT-OPTIONS...: a pib-integrity run (server options in
# $server_opts).
integrity() {
	local name=$1
	shift
	pair "$name" "$tool" "--deadline $(tf 400) ${ack[*]} ${server_opts:-}" \
		--deadline "$(tf 400)" "${ack[@]}" "$@"
}

# memops NAME ROUNDS: a pib-memops run.
memops() {
	pair "$1" "$memops" "-n $2 -t $(tf 300)" -n "$2" -t "$(tf 300)"
}

# xrc NAME ROUNDS: a pib-xrc run.
xrc() {
	pair "$1" "$xrc" "-n $2 -t $(tf 300)" -n "$2" -t "$(tf 300)"
}

# apm NAME MSGS: a pib-apm run. The client ends its device's loss of SL 0
# packets itself, even when it fails; host2 ends it again in case the tool
# could not (it crashed, or was killed).
apm() {
	pair "$1" "$apm" "-n $2 -t $(tf 300)" -n "$2" -t "$(tf 300)"
	if [ "$PIB_HOST" = 2 ]; then
		echo "sl 0 drop 0" >/sys/kernel/debug/pib/pibeth0/inject || true
	fi
}

# odp NAME ROUNDS: a pib-odp run.
odp() {
	pair "$1" "$odp" "-n $2 -t $(tf 300)" -n "$2" -t "$(tf 300)"
}

# netem on pib's UDP port only: the tool's TCP exchange stays clean.
pib_netem() {
	tc qdisc replace dev eth0 parent 1:3 handle 30: netem "$@"
}

pib_install
pib_fabric_up
integrity "clean LAN" -n 400 -s 200000 --sge 3 -S 1
server_opts="--mw 1" integrity "type 1 memory windows" -n 100 -s 100000 \
	--ops write,read -S 5
[ "$PIB_HOST" = 1 ] && check "host1 served them through type 1 windows" \
	grep -q "memory windows of type 1 bound" "$PIB_RESULTS/type 1 memory windows.server"
PIB_MEMOPS_LOSE_NAK=1 memops "ATOMIC WRITE and rereg" 20
[ "$PIB_HOST" = 2 ] && check "a lost NAK: retry exceeded, then the access error on new QPs" \
	grep -q "^noaccess: try 1: transport retry counter exceeded .*again on new QPs" \
	"$PIB_RESULTS/ATOMIC WRITE and rereg.client"
xrc "XRC across two processes" 40
apm "automatic path migration" 20
odp "ODP: faults, invalidation, prefetch" 20
pib_port_qdisc
check "netem: loss, duplicates, reordering, corruption" \
	pib_netem delay 2ms loss 2% duplicate 2% reorder 10% 50% corrupt 1%
integrity "bad LAN" -n 300 -s 100000 --sge 4 -S 2
integrity "bad LAN, writes and reads" -n 200 -s 300000 --ops write,read -S 3
server_opts="--mw 2" integrity "bad LAN, type 2 memory windows" -n 100 \
	-s 100000 --ops write,read -S 6
[ "$PIB_HOST" = 1 ] && check "host1 served them through type 2 windows" \
	grep -q "memory windows of type 2 bound" "$PIB_RESULTS/bad LAN, type 2 memory windows.server"
memops "bad LAN, ATOMIC WRITE and rereg" 20
xrc "bad LAN, XRC across two processes" 20
odp "bad LAN, ODP" 10
check "LAN cut for pib" pib_netem loss 100%
# host2's requester under pib's tracepoints (through tracefs): timeouts
# and retransmits until the retries run out, the failed WQE's completion
# and the QP's async event.
cut_events="pib_retransmit pib_cqe pib_async_event"
if [ "$PIB_HOST" = 2 ]; then
	T=$(tracefs)
	echo >"$T/trace"
	for e in $cut_events; do
		check "tracepoint pib:$e on" sh -c "echo 1 >$T/events/pib/$e/enable"
	done
fi
start=$SECONDS
server_may_fail=1 integrity "cut LAN fails the QP" -n 200 --timeout 12 --retry-cnt 3 --expect-failure \
	--deadline "$(tf 120)"
check "cut LAN: failed within 60 s" test $((SECONDS - start)) -lt 60
if [ "$PIB_HOST" = 2 ]; then
	for e in $cut_events; do
		echo 0 >"$T/events/pib/$e/enable"
	done
	tr=$(cat "$T/trace")
	grep -E -m 12 'pib_(retransmit|async_event)|ERR' <<<"$tr"
	check "trace: a retransmit after an ACK timeout, 2 retries left" \
		grep -q "pib_retransmit: pibeth0 qpn 0x[0-9a-f]* after psn [0-9]*: TIMEOUT, retransmit, 2 retries left" <<<"$tr"
	check "trace: the last timeout exceeds the retries" \
		grep -q "pib_retransmit: pibeth0 qpn 0x[0-9a-f]* after psn [0-9]*: TIMEOUT, retry exceeded, 0 retries left" <<<"$tr"
	expect_match "trace: the WQE completes with RETRY_EXC_ERR" "$(grep -m 3 "pib_cqe:.*RETRY_EXC_ERR" <<<"$tr")" \
		"pib_cqe: pibeth0 cq [^ ]+ cqn [0-9]+ qpn 0x[0-9a-f]+ wr_id 0x[0-9a-f]+ RETRY_EXC_ERR"
	expect_match "trace: QP_FATAL" "$(grep pib_async_event <<<"$tr")" \
		"pib_async_event: pibeth0 QP_FATAL [0-9]+"
fi
check "netem off" tc qdisc del dev eth0 root
sw=$(cat /sys/kernel/debug/pib/eth0)
echo "$sw"
# host1's NIC (virtio-net) merged runs of host2's datagrams by GRO, which
# pib took apart again. (verbs-lan's hosts are namespaces, whose veths
# hand a sender's batch over whole.)
[ "$PIB_HOST" = 1 ] && expect_match "runs of datagrams received as one skb (GRO)" \
	"$sw" '^batches_rx [1-9]'
pib_done
