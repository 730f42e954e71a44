#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# hosts: 3
# timeout: 600
# pib-sm instead of opensm, on a 3-host LAN: it brings every port ACTIVE
# with unique LIDs, about as fast as opensm does on the same fabric (both
# times are in the log), programs the switches' LFTs so that LID-routed
# MADs and ibv_rc_pingpong and perftest (which need no SA) cross the
# fabric. Its SA answers saquery (nodes, ports, links, paths), rdma_cm's
# path queries (rping, perftest -R) and IPoIB's joins, with no partition
# file: IPoIB pings across. Restarted with its LID file, it gives every
# port the LID it had. When host3's device goes and comes, the switches
# next to it send Trap 128, which pib-sm represses, and it sweeps at once.
# Host3 power-cycled (pib unloaded, its link down) leaves the SA, the
# broadcast group and the LFTs, and comes back with its LID. Last, with a
# partition file, host1 and host2 have a partition of their own.
# shellcheck source=../lib.sh
. "$PIB_SRC/tests/lib.sh"

p=/sys/class/infiniband/pibeth0/ports/1
sm=/usr/local/sbin/pib-sm
lidfile=$PIB_RESULTS/pib-sm.lids

# saq ARGS...: saquery of pib-sm's SA through pibeth0. pib-sm answers the
# SA between its sweeps and multicast table updates, not during them:
# with the host's CPUs full (two 3-host LANs at once), saquery -m after
# IPoIB's joins to 0x8001 ran out of its default 4 tries of 1 s ("Query
# SA failed: Connection timed out"). 3 s a try, 12 s in all.
saq() { timeout 60 saquery -t 3000 -C pibeth0 -P 1 "$@"; }

# fresh_fabric NAME: every host makes pibeth0 anew (no LID, INIT) and
# hears the others.
fresh_fabric() {
	if [ -e /sys/class/infiniband/pibeth0 ]; then
		check "$1: rdma link delete pibeth0" rdma link delete pibeth0
	fi
	check "$1: rdma link add pibeth0" rdma link add pibeth0 type pib netdev eth0
	barrier "linked-$1"
	check "$1: all peers heard" wait_for 60 sh -c \
		"[ \$(grep -c ' up$' /sys/kernel/debug/pib/eth0) = $((PIB_HOSTS - 1)) ]" ||
		lan_diag eth0
	barrier "ready-$1"
}

# The timing starts no process: under emulation a fork and exec costs
# tens of milliseconds, as much as what is measured.
# ms_now: $ms, the time in milliseconds.
ms_now() {
	local t=${EPOCHREALTIME/[.,]/}
	ms=$((t / 1000))
}

# port_active_ms T0: wait (20 ms at a time, 120 s at most) for this
# host's port to be ACTIVE; $ms is the milliseconds since T0.
port_active_ms() {
	local end=$((SECONDS + 120)) st=
	while read -r st <$p/state; [[ $st != *ACTIVE* ]]; do
		[ $SECONDS -lt $end ] || break
		nap 0.02
	done
	ms_now
	ms=$((ms - $1))
}

# bring_up NAME CMD...: host1 starts the SM CMD; every port goes ACTIVE.
# host1 says how long that took from the SM's start, in milliseconds, in
# $PIB_RESULTS/NAME.ms. (An SM activates every port in one pass: host1's
# own port goes ACTIVE with the others'.)
bring_up() {
	local name=$1 t ms
	shift
	if [ "$PIB_HOST" = 1 ]; then
		ms_now
		t=$ms
		"$@"
		port_active_ms "$t"
		echo "$ms" >"$PIB_RESULTS/$name.ms"
		echo "# $name: every port ACTIVE: $ms ms"
	fi
	check "$name: port ACTIVE" wait_for 120 grep -q ACTIVE $p/state
	barrier "active-$name"
}

# rejoin NAME: host3's device is made anew (no LID, INIT) while the SM
# runs; host3 says how long until its port is ACTIVE, in $PIB_RESULTS/NAME.ms.
rejoin() {
	local t ms
	if [ "$PIB_HOST" = 3 ]; then
		check "$1: rdma link delete pibeth0" rdma link delete pibeth0
		ms_now
		t=$ms
		check "$1: rdma link add pibeth0 again" rdma link add pibeth0 type pib netdev eth0
		port_active_ms "$t"
		echo "$ms" >"$PIB_RESULTS/$1.ms"
		echo "# $1: ACTIVE again after $ms ms"
		check "$1: port ACTIVE again" grep -q ACTIVE $p/state
	fi
	barrier "rejoined-$1"
}

pib_install
check "pib-sm installed" test -x $sm
# opensm first, as make test's other scenarios run it, for the time.
fresh_fabric opensm
bring_up opensm opensm -B -t 1000 -f "$PIB_RESULTS/opensm.log"
rejoin opensm-join
[ "$PIB_HOST" = 1 ] && check "opensm stops" sh -c "pkill -x opensm &&
	timeout 20 sh -c 'while pgrep -x opensm >/dev/null; do sleep 0.2; done'"
fresh_fabric pib-sm
if [ "$PIB_HOST" = 1 ]; then
	check_fails "pib-sm: a bad option" "usage: pib-sm" $sm -s 0
	echo "0x10 junk" > "$PIB_RESULTS/bad.lids"
	check_fails "pib-sm: a bad LID file" "bad.lids, line 1" \
		$sm -1 -g "$PIB_RESULTS/bad.lids"
fi
# pib_sm_bg: pib-sm in the background, its pid in /tmp/pib-sm.pid.
pib_sm_bg() {
	$sm -d pibeth0 -s 2 -g "$lidfile" 2>"$PIB_RESULTS/pib-sm.log" &
	echo $! > /tmp/pib-sm.pid
}
bring_up pib-sm pib_sm_bg
rejoin pib-sm-join
# The switches next to host3's saw their links go and come: Trap 128 to
# the SM, which represses it and sweeps at once.
[ "$PIB_HOST" = 1 ] && check "pib-sm: Trap 128 from a switch, repressed" \
	grep -q 'trap 128 from LID [0-9]* (SLID [0-9]*): repressed, sweeping' "$PIB_RESULTS/pib-sm.log"
if [ "$PIB_HOST" = 1 ]; then
	o=$(cat "$PIB_RESULTS/opensm.ms") s=$(cat "$PIB_RESULTS/pib-sm.ms")
	oj=$(cat "$PIB_RESULTS/opensm-join.ms") sj=$(cat "$PIB_RESULTS/pib-sm-join.ms")
	echo "# bring-up of 3 hosts: opensm $o ms, pib-sm $s ms; a host joins: opensm $oj ms, pib-sm $sj ms"
	# pib-sm sends its SMPs in batches: well ahead of opensm on an idle
	# host, but a busy host decides much of either time; the bound only
	# keeps pib-sm from falling behind.
	check "pib-sm not slower than opensm ($s ms against $o ms)" \
		test "$s" -le $((o + 2000))
fi
lid=$(cat $p/lid)
check "a LID ($lid)" test "$lid" != 0x0
echo $((lid)) > "$PIB_RESULTS/lid.$PIB_HOST"
barrier active
for i in 1 2 3; do
	[ "$i" = "$PIB_HOST" ] || check "LID differs from host$i's" \
		test "$(lid_of "$i")" != $((lid))
done
expect_eq "SM LID is host1's LID" $(($(cat $p/sm_lid))) "$(lid_of 1)"

if [ "$PIB_HOST" = 2 ]; then
	net=$(timeout 300 ibnetdiscover -C pibeth0 -P 1 2>&1)
	echo "$net"
	expect_eq "ibnetdiscover: 3 switches" "$(grep -c '^Switch' <<<"$net")" 3
	expect_eq "ibnetdiscover: 3 CAs" "$(grep -c '^Ca' <<<"$net")" 3
	swlid=$(smpquery -C pibeth0 -P 1 -D portinfo 0,1 0 | sed -n 's/^Lid:\.*//p')
	out=$(timeout 60 ibroute -C pibeth0 -P 1 "$swlid" 2>&1)
	echo "$out"
	expect_match "ibroute: 6 LIDs in this host's switch" "$out" '6 valid lids dumped'
	expect_match "ibroute: own LID goes to port 1" "$out" \
		"^$(printf '0x%04x' "$lid") 001 "
	expect_match "LID-routed smpquery to host3" \
		"$(timeout 60 smpquery -C pibeth0 -P 1 portinfo "$(lid_of 3)" 1 2>&1)" \
		'LinkState:\.*Active'
	expect_match "perfquery of host1's port" \
		"$(timeout 60 perfquery -C pibeth0 -P 1 "$(lid_of 1)" 1 2>&1)" \
		'PortXmitPkts:\.*[1-9]'
fi
barrier diag
PAIR_DEV=pibeth0
pair_run rc_pingpong 180 ibv_rc_pingpong -n 50 -c
pair_run send_bw 180 ib_send_bw -n 200 -F

# pib-sm's SA: saquery's records, and what rdma_cm and IPoIB ask it for.
# IPoIB comes up with no partition file: the broadcast group pib-sm made
# has the MTU every port can do (1024 on this 1500-byte LAN).
if [ "$PIB_HOST" = 2 ]; then
	out=$(saq 2>&1)
	expect_eq "saquery: 6 NodeRecords" "$(grep -c '^NodeRecord dump' <<<"$out")" 6 ||
		echo "$out" | head -n 20
	expect_match "saquery: host3's node description" "$out" 'NodeDescription\.*host3 pibeth0'
	out=$(saq -p --src-to-dst "$(lid_of 2):$(lid_of 3)" 2>&1)
	echo "$out"
	expect_eq "saquery -p: one path" "$(grep -c '^PathRecord dump' <<<"$out")" 1
	expect_match "saquery -p: to host3's LID" "$out" "dlid\.*$(lid_of 3)\$"
	# (selector 2, exactly: 0x80 | 3, 1024 bytes)
	expect_match "saquery -p: MTU 1024" "$out" 'mtu\.*0x83$'
	# (every port of every switch has a PortInfoRecord: one LID's)
	out=$(saq PIR "$(lid_of 3)" 2>&1)
	expect_eq "saquery PIR: host3's port" "$(grep -c '^PortInfoRecord dump' <<<"$out")" 1 ||
		echo "$out" | head -n 20
	expect_match "saquery PIR: host3's port is Active" "$out" 'LinkState:\.*Active'
	out=$(saq LR 2>&1)
	expect_eq "saquery LR: 12 LinkRecords (3 CA links, 3 between switches; both ways)" \
		"$(grep -c '^LinkRecord dump' <<<"$out")" 12 || echo "$out" | head -n 20
fi
barrier saquery
ipoib_up rdma_ucm
out=$([ "$PIB_HOST" = 2 ] && saq -m 2>&1)
[ "$PIB_HOST" != 2 ] || expect_match "saquery -m: the broadcast group at MTU 1024" \
	"$out" 'MGID\.*ff12:401b:ffff::ffff:ffff'
barrier ipoib-up
if [ "$PIB_HOST" != 1 ]; then
	check "ping over ib0 to host1" ping -c 3 -W 5 10.98.0.1
	check "ping over ib0 to host$((5 - PIB_HOST))" ping -c 3 -W 5 "10.98.0.$((5 - PIB_HOST))"
fi
barrier pinged
cm_pair rping 120 rping -s -a 10.98.0.1 -C 20 -S 4000 -V -- \
	rping -c -a 10.98.0.1 -C 20 -S 4000 -V
cm_pair send_bw_rdma_cm 120 ib_send_bw -R -F -d pibeth0 -n 200 -- \
	ib_send_bw -R -F -d pibeth0 -n 200 10.98.0.1

# Host3 is power-cycled: pib and IPoIB go from it, and its LAN link is
# down. pib-sm drops its port from the SA, from the broadcast group and
# from the switches' LFTs; once back, host3 has the LID it had, and IPoIB
# carries its pings again.
lid3=$(printf '0x%04x' "$(lid_of 3)")
if [ "$PIB_HOST" = 3 ]; then
	check "power cycle: host3's pib goes, and its link" sh -c "modprobe -r ib_ipoib rdma_ucm &&
		rdma link delete pibeth0 && modprobe -r pib && ip link set eth0 down"
fi
barrier off
if [ "$PIB_HOST" = 2 ]; then
	check "power cycle: the SA has 4 NodeRecords (host3's CA and switch gone)" \
		wait_for 60 sh -c "[ \$(timeout 20 saquery -t 3000 -C pibeth0 -P 1 NR |
			grep -c '^NodeRecord dump') = 4 ]"
	# (on a busy host a sweep may miss host2, which takes it out of the
	# group: found again, it is owed a ClientReregister, and its IPoIB
	# joins again within a sweep or two)
	for _ in $(seq 10); do
		out=$(saq -m 2>&1)
		grep -q 'PortGid\.*fe80::5054:ff:fe99:2$' <<<"$out" && break
		sleep 3
	done
	expect_match "power cycle: host2 is still in the broadcast group" "$out" \
		'PortGid\.*fe80::5054:ff:fe99:2$'
	expect_no_match "power cycle: host3 is not" "$out" 'PortGid\.*fe80::5054:ff:fe99:3$'
	out=$(timeout 60 ibroute -C pibeth0 -P 1 "$swlid" 2>&1)
	expect_no_match "power cycle: host3's LID $lid3 is out of this switch's LFT" "$out" "^$lid3 "
fi
barrier dropped
if [ "$PIB_HOST" = 3 ]; then
	check "power cycle: host3's link up" ip link set eth0 up
	check "power cycle: rdma link add pibeth0" rdma link add pibeth0 type pib netdev eth0
	check "power cycle: port ACTIVE" wait_for 120 grep -q ACTIVE $p/state
	expect_eq "power cycle: the LID host3 had" "$(($(cat $p/lid)))" "$(lid_of 3)"
	ipoib_up rdma_ucm
	check "power cycle: ping over ib0 to host1" wait_for 60 ping -c 1 -W 2 10.98.0.1
	check "power cycle: ping over ib0 to host2" ping -c 3 -W 5 10.98.0.2
fi
barrier back
check "ib0 down" ip link set ib0 down
check "ib_ipoib unloaded" modprobe -r ib_ipoib
barrier ipoib-done

# pib-sm stops; host3's device is made anew (no LID, INIT); a new pib-sm
# with the LID file gives it the LID it had, and the others keep theirs.
if [ "$PIB_HOST" = 1 ]; then
	check "pib-sm stops on SIGTERM" stops "$(cat /tmp/pib-sm.pid)"
	cat "$PIB_RESULTS/pib-sm.log"
	expect_eq "the LID file holds 6 LIDs" "$(grep -c '^0x' "$lidfile")" 6
fi
barrier stopped
if [ "$PIB_HOST" = 3 ]; then
	check "rdma link delete pibeth0" rdma link delete pibeth0
	check "rdma link add pibeth0 again" rdma link add pibeth0 type pib netdev eth0
	expect_eq "no LID yet" "$(cat $p/lid)" 0x0
fi
barrier readded
if [ "$PIB_HOST" = 1 ]; then
	t=$SECONDS
	check "pib-sm -1 with the LID file: every port ACTIVE" wait_for 120 \
		$sm -d pibeth0 -1 -q -g "$lidfile"
	elapsed "$t" "pib-sm -1 until every port is ACTIVE"
fi
barrier again
check "port ACTIVE" wait_for 30 grep -q ACTIVE $p/state
expect_eq "LID kept across the restart" $(($(cat $p/lid))) "$(lid_of "$PIB_HOST")"

# Partitions from a file in opensm's format: host1 and host2 share
# 0x8001, an IPoIB partition, which host3 is not in. The P_Key tables, the
# SA's paths and IPoIB on the partition (a child interface, ib0.8001)
# follow the file; a bad file is refused with its line.
parts=$PIB_RESULTS/partitions.conf
if [ "$PIB_HOST" = 1 ]; then
	printf '%s\n' "# host1 and host2 only" "Default=0x7fff, ipoib : ALL=full ;" \
		"storage=0x8001, ipoib : 0x505400fffe990001=full," \
		"    0x505400fffe990002=full ;" >"$parts"
	echo "junk=0x1 : ALL" >"$PIB_RESULTS/bad-parts.conf"
	check_fails "pib-sm: a bad partition file" "bad-parts.conf, line 1: a definition without ';'" \
		$sm -1 -x "$PIB_RESULTS/bad-parts.conf"
	$sm -d pibeth0 -s 2 -g "$lidfile" -x "$parts" 2>"$PIB_RESULTS/pib-sm-parts.log" &
	echo $! >/tmp/pib-sm.pid
fi
# (pib-sm sets every table in one batch: once host1's and host2's have
# 0x8001, host3's is set too)
[ "$PIB_HOST" = 3 ] || check "partitions: P_Key 0x8001 in host$PIB_HOST's table" \
	wait_for 60 grep -qx 0x8001 $p/pkeys/1
barrier parts-tables
if [ "$PIB_HOST" = 3 ]; then
	expect_eq "partitions: host3's P_Key table: the default partition alone" \
		"$(cat $p/pkeys/0 $p/pkeys/1 | tr '\n' ' ')" "0xffff 0x0000 "
fi
ipoib_up
if [ "$PIB_HOST" != 3 ]; then
	check "partitions: ib0.8001" ip link add link ib0 name ib0.8001 type ipoib pkey 0x8001
	check "partitions: ib0.8001 up" sh -c "ip addr add 10.96.0.$PIB_HOST/24 dev ib0.8001 &&
		ip link set ib0.8001 up"
	check "partitions: ib0.8001 carrier (its broadcast group joined)" wait_for 60 \
		grep -qx 1 /sys/class/net/ib0.8001/carrier
fi
barrier parts-up
if [ "$PIB_HOST" = 2 ]; then
	check "partitions: ping over ib0.8001 to host1" ping -c 3 -W 5 10.96.0.1
	out=$(saq -p --pkey 0x8001 \
		--src-to-dst "$(lid_of 2):$(lid_of 1)" 2>&1)
	expect_match "partitions: a path from host2 to host1 in 0x8001" "$out" 'pkey\.*0x8001$'
	out=$(saq -p --pkey 0x8001 \
		--src-to-dst "$(lid_of 3):$(lid_of 1)" 2>&1)
	expect_eq "partitions: no path from host3 in 0x8001" \
		"$(grep -c '^PathRecord dump' <<<"$out")" 0
	out=$(saq -m 2>&1)
	expect_match "partitions: 0x8001's broadcast group" "$out" \
		'MGID\.*ff12:401b:8001::ffff:ffff'
fi
if [ "$PIB_HOST" = 3 ]; then
	check "partitions: ib0.8001 on host3" sh -c "ip link add link ib0 name ib0.8001 type ipoib pkey 0x8001 &&
		ip link set ib0.8001 up"
	sleep 5
	expect_eq "partitions: host3's ib0.8001 has no carrier (not in 0x8001)" \
		"$(cat /sys/class/net/ib0.8001/carrier)" 0
fi
barrier parts-done
check "ib_ipoib unloaded" modprobe -r ib_ipoib
if [ "$PIB_HOST" = 1 ]; then
	check "pib-sm with partitions stops on SIGTERM" stops "$(cat /tmp/pib-sm.pid)"
	cat "$PIB_RESULTS/pib-sm-parts.log"
fi
barrier "done"
pib_done
