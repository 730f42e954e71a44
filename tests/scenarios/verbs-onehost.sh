#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# hosts: 1
# timeout: 1800
# The data path between two devices on one host (lo), under opensm: the
# same tools as verbs-lan, with packets that never leave the kernel; and
# what `rdma resource show -dd` says of an ibv_rc_pingpong pair's QPs, CQs
# and MRs, running and then quiet, and of ib_write_bw's ODP MRs.
# shellcheck source=../lib.sh
. "$PIB_SRC/tests/lib.sh"

pib_install
pib_lo_pair_up

# field LINE NAME: the value after NAME in an `rdma res show` line. The
# rdma tool prints a driver's attribute NAME as drv_NAME.
field() { sed -n "s/.* $2 \([^ ]*\).*/\1/p" <<<"$1"; }

# psn LINE NAME: the driver's PSN NAME in LINE, or "no-NAME" (which equals
# no other) if it has none.
psn() {
	local v
	v=$(field "$1" "drv_$2")
	[[ $v =~ ^[0-9]+$ ]] && echo "$v" || echo "no-$2"
}

# pp_line RES DEV: the -dd line of ibv_rc_pingpong's RES (qp, cq, mr) on DEV.
pp_line() {
	rdma res show "$1" -dd | grep "comm ibv_rc_pingpong" | grep -E "^(link|dev) $2[ /]"
}

# pp_quiet: both QPs have every PSN they sent acknowledged, and the send
# it acknowledged completed (its SQ slot free: the completion follows the
# ACK, and a stopped pingpong was once caught between them, CI).
pp_quiet() {
	local d l
	for d in pibloa piblob; do
		l=$(pp_line qp "$d")
		[ "$(psn "$l" next_psn)" != no-next_psn ] &&
			[ "$(psn "$l" una_psn)" = "$(psn "$l" next_psn)" ] &&
			[ "$(psn "$l" sent_psn)" = "$(psn "$l" next_psn)" ] &&
			[ "$(psn "$l" sq_fill)" = 0 ] || return 1
	done
}

# restrack_check: pib's driver details in `rdma resource show -dd` while
# an ibv_rc_pingpong pair runs (the names), then once both processes are
# stopped and their QPs quiet (the numbers, each QP against its peer).
restrack_check() {
	local srv cli a b cq mr user
	ibv_rc_pingpong -d pibloa -n 100000000 >"$PIB_RESULTS/restrack.server" 2>&1 &
	srv=$!
	sleep 2
	ibv_rc_pingpong -d piblob -n 100000000 localhost \
		>"$PIB_RESULTS/restrack.client" 2>&1 &
	cli=$!
	check "res qp -dd: both pingpong QPs in RTS, requesters sending" \
		wait_for 60 sh -c "[ \$(rdma res show qp -dd | grep 'comm ibv_rc_pingpong' |
			grep -c 'state RTS .*drv_req_state sending') = 2 ]" ||
		rdma res show qp -dd
	a=$(pp_line qp pibloa)
	echo "# $a"
	expect_match "res qp -dd: the transport's states by name" "$a" \
		' drv_req_state (sending|rnr_wait) drv_comp_state (in_order|read_gap) drv_resp_state (in_order|seq_nak_sent) drv_resp_msg_state (none|send|write) '
	expect_match "res qp -dd: PSNs, READs and retries" "$a" \
		' drv_next_psn [0-9]+ drv_sent_psn [0-9]+ drv_una_psn [0-9]+ drv_epsn [0-9]+ drv_msn [0-9]+ drv_rd_atomic 0 drv_max_rd_atomic 1 drv_retry_left [0-7] drv_rnr_left 7 drv_srtt_us [1-9][0-9]* drv_probe_us [1-9][0-9]*'
	expect_no_match "res qp (no -d): no driver details" \
		"$(rdma res show qp | grep 'comm ibv_rc_pingpong')" 'drv_'
	kill -STOP $srv $cli
	check "res qp -dd: stopped, every PSN acknowledged" wait_for 60 pp_quiet
	a=$(pp_line qp pibloa) b=$(pp_line qp piblob)
	echo "# $a"
	echo "# $b"
	expect_eq "res qp -dd: server's next_psn is the client's epsn" \
		"$(psn "$a" next_psn)" "$(psn "$b" epsn)"
	expect_eq "res qp -dd: client's next_psn is the server's epsn" \
		"$(psn "$b" next_psn)" "$(psn "$a" epsn)"
	# max_send_wr 1 and rx_depth 500, as rings of powers of two; the RQ
	# holds from 1 to 500 posted receives.
	expect_match "res qp -dd: SQ and RQ depth and fill" "$a" \
		' drv_sq_depth 1 drv_sq_fill 0 drv_rq_depth 512 drv_rq_fill ([1-9]|[1-9][0-9]|[1-4][0-9][0-9]|500) '
	cq=$(pp_line cq pibloa)
	echo "# $cq"
	# rx_depth + 1 entries asked for: 511 usable of a ring of 512.
	expect_match "res cq -dd: depth, fill, overflow, armed state" "$cq" \
		'cqe 511 .* drv_cq_depth 512 drv_cq_fill [0-9]+ drv_overflowed 0 drv_notify disarmed '
	mr=$(pp_line mr pibloa)
	echo "# $mr"
	expect_match "res mr -dd: its 4 KiB buffer: type, address, access, key" "$mr" \
		'mrlen 4096 .* drv_mr_type user drv_iova 0x[0-9a-f]+ drv_access 0x1 drv_key 0x[0-9a-f]+ drv_valid 1 drv_npages 1 '
	expect_match "res mr -dd: pib's key is the rkey" "$mr" \
		" rkey $(field "$mr" drv_key) "
	user=$(setpriv --reuid=65534 --regid=65534 --clear-groups \
		rdma res show mr -dd 2>&1 | grep 'comm ibv_rc_pingpong')
	echo "# as nobody: $user"
	expect_match "res mr -dd as a user without CAP_NET_ADMIN: the details" \
		"$user" ' drv_mr_type user drv_access 0x1 drv_valid 1 drv_npages 1 '
	expect_no_match "res mr -dd as a user without CAP_NET_ADMIN: no address or key" \
		"$user" ' (drv_key|drv_iova|rkey|lkey) 0x'
	debugfs_check "$srv"
	kill -KILL $srv $cli
	wait $srv $cli 2>/dev/null
	check "res qp: the pingpong QPs are gone" wait_for 30 sh -c \
		"! rdma res show qp | grep -q 'comm ibv_rc_pingpong'"
	for f in ctx pd cq qp mr; do
		expect_no_match "debugfs $f: the pingpong's are gone" \
			"$(cat /sys/kernel/debug/pib/pibloa/$f)" "pid $srv "
	done
}

# debugfs_check PID: /sys/kernel/debug/pib/pibloa/ lists what the stopped
# ibv_rc_pingpong server PID created, as `rdma resource show` does.
debugfs_check() {
	local pid=$1 d=/sys/kernel/debug/pib/pibloa r l pd pdn cqn users
	r=$(rdma res show qp link pibloa/1 | grep "pid $pid ")
	l=$(grep "pid $pid comm ibv_rc_pingpong\$" $d/qp)
	echo "# $l"
	pd=$(rdma res show pd dev pibloa | grep "pid $pid ")
	pdn=$(field "$pd" pdn) users=$(field "$pd" users)
	cqn=$(field "$(rdma res show cq dev pibloa | grep "pid $pid ")" cqn)
	expect_match "debugfs qp: the pingpong's RC QP, as rdma res shows it" "$l" \
		"^qpn $(printf 0x%x "$(field "$r" lqpn)") type RC state RTS pdn $pdn send_cqn $cqn recv_cqn $cqn dest_qpn 0x[0-9a-f]+ dlid 0x[0-9a-f]+ path_mtu [0-9]+ req_state sending "
	expect_match "debugfs qp: the transport's numbers" "$l" \
		" sq_depth 1 sq_fill 0 rq_depth 512 rq_fill [0-9]+ next_psn [0-9]+ sent_psn [0-9]+ una_psn [0-9]+ epsn [0-9]+ "
	expect_match "debugfs qp: QP0, the MAD layer's" "$(cat $d/qp)" \
		"^qpn 0x0 type SMI state RTS .* pid 0 comm ib_core\$"
	expect_match "debugfs qp: QP1, the MAD layer's" "$(cat $d/qp)" \
		"^qpn 0x1 type GSI state RTS .* pid 0 comm ib_core\$"
	expect_match "debugfs cq: the pingpong's CQ" "$(cat $d/cq)" \
		"^cqn $cqn cqe 511 cq_depth 512 cq_fill [0-9]+ overflowed 0 notify disarmed pid $pid comm ibv_rc_pingpong\$"
	expect_match "debugfs pd: the pingpong's PD, used by its QP and MR" "$(cat $d/pd)" \
		"^pdn $pdn users $users pid $pid comm ibv_rc_pingpong\$"
	expect_match "debugfs mr: the pingpong's buffer, address and key included" "$(cat $d/mr)" \
		"^pdn $pdn length 4096 mr_type user iova 0x[0-9a-f]+ access 0x1 key 0x[0-9a-f]+ valid 1 npages 1 pid $pid comm ibv_rc_pingpong\$"
	expect_match "debugfs ctx: the pingpong's context" "$(cat $d/ctx)" \
		"^ctxn [0-9]+ pid $pid comm ibv_rc_pingpong\$"
}

# debugfs_ah_srq: the kernel's AH to the SM (a user's AHs live in libpib
# alone) and the SRQ of ibv_srq_pingpong in debugfs.
debugfs_ah_srq() {
	local d=/sys/kernel/debug/pib/pibloa srv sm
	sm=$(printf 0x%x "$(cat /sys/class/infiniband/pibloa/ports/1/sm_lid)")
	expect_match "debugfs ah: the SA's AH to the SM's LID" "$(cat $d/ah)" \
		"^pdn [0-9]+ dlid $sm sl 0 path_bits 0 static_rate [0-9]+ pid 0 comm ib_core\$"
	ibv_srq_pingpong -d pibloa -p 18612 -n 100000000 >"$PIB_RESULTS/dbg-srq.server" 2>&1 &
	srv=$!
	# (a process name as the kernel keeps it: 15 characters)
	check "debugfs srq: the SRQ of ibv_srq_pingpong" wait_for 60 \
		grep -qE "^srqn [0-9]+ pdn [0-9]+ depth 512 fill [0-9]+ max_sge 1 limit 0 pid $srv comm ibv_srq_pingpon\$" $d/srq ||
		cat $d/srq
	check "debugfs qp: its QPs name the SRQ" wait_for 10 \
		grep -qE "^qpn 0x[0-9a-f]+ type RC state (INIT|RTR|RTS) .* srqn [0-9]+ .*pid $srv comm" $d/qp
	kill -KILL $srv
	wait $srv 2>/dev/null
}

# odp_restrack: `rdma res show mr -dd` of ODP MRs while ib_write_bw --odp
# runs from piblob to pibloa: nothing pinned, the faults that brought the
# pages in, none failed.
odp_restrack() {
	local srv cli st=0
	timeout 60 ib_write_bw --odp -D 6 -F -d pibloa >/tmp/odp.server 2>&1 &
	srv=$!
	sleep 2
	timeout 60 ib_write_bw --odp -D 6 -F -d piblob localhost >/tmp/odp.client 2>&1 &
	cli=$!
	check "res mr -dd: ODP MRs, their faults and invalidations" wait_for 20 sh -c \
		"rdma res show mr -dd | grep -Eq 'comm ib_write_bw drv_mr_type user .* drv_npages 0 drv_odp_faults [1-9][0-9]* drv_odp_fault_errors 0 drv_odp_invalidations [0-9]+'"
	rdma res show mr -dd | grep 'comm ib_write_bw'
	wait $srv || st=$?
	wait $cli || st=$((st ? st : $?))
	expect_eq "ib_write_bw --odp between pibloa and piblob" "$st" 0
}

restrack_check
debugfs_ah_srq
odp_restrack
PAIR_DEV=pibloa PAIR_DEV2=piblob
verbs_suite "$(ibv_devinfo -d pibloa | sed -n 's/.*active_mtu:[[:space:]]*\([0-9]*\).*/\1/p')"
pib_done
