#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# hosts: 3
# timeout: 480
# A hostile host on the LAN. host1 (opensm, with an M_Key on every port)
# and host2 are a pib fabric with checked RC traffic between them; host3
# runs no pib at all, only pib-forge, which sends forged datagrams from
# its own address and from host1's and host2's: a forwarding loop through
# the switches, forged ACKs to a live QP, unicast on VL15 (also in runs
# that GRO merges), datagrams with wrong UDP checksums, multicast to a
# wrong MGID or without a GRH, a known switch GUID from a new address, a
# flipped GUID from a peer's address, floods of new GUIDs, thousands of
# over-long and bad-version MADs to QP0 and QP1, and SMP Sets with M_Key 0
# to both switches. Then: ports still ACTIVE, perfquery and the SMA still
# answer, the traffic intact, the peer tables and forwarding tables as
# they were, and the counters show the drops.
# shellcheck source=../lib.sh
. "$PIB_SRC/tests/lib.sh"

forge=$PIB_BUILD/tools/pib-forge
victim=$PIB_BUILD/tools/pib-victim
integ=$PIB_BUILD/tools/pib-integrity
smp=$PIB_BUILD/tools/pib-smp
dbg=/sys/kernel/debug/pib/eth0
R=$PIB_RESULTS
key=0x00000000c0ffee42
mgid=ff12:401b:ffff::f00d

# counter NAME: a line "NAME N" of the switch's debugfs file; 0 if none.
counter() { sed -n "s/^$1 //p" $dbg | grep . || echo 0; }
# lft BLOCK: a block of this host's switch's LinearForwardingTable.
lft() { "$smp" -C pibeth0 -P 1 -y $key -D 0,1 0x19 "$1" 2>&1; }
# set_lft BLOCK HEX: set the block's first entries (the rest: no port).
set_lft() { "$smp" -C pibeth0 -P 1 -y $key -D 0,1 -m 2 0x19 "$1" "$2" >/dev/null; }
udp_in() { awk '/^Udp:/ { n++ } /^Udp:/ && n == 2 { print $2 }' /proc/net/snmp; }
# attack WHAT ARGS...: host3 sends; the output goes to the log.
attack() {
	local what=$1
	shift
	echo "# attack: $what"
	timeout 120 "$forge" "$@" || fail "pib-forge: $what"
}

# host1 and host2: a fabric of two pib hosts, opensm on host1 with M_Keys.
fabric_up() {
	local p=/sys/class/infiniband/pibeth0/ports/1
	pib_install
	check "rdma link add pibeth0" rdma link add pibeth0 type pib netdev eth0
	check "the other pib host heard" wait_for 30 grep -q ' up$' $dbg || lan_diag
	sed -n 's/^guid //p' $dbg >"$R/swguid.$PIB_HOST"
	barrier ready
	if [ "$PIB_HOST" = 1 ]; then
		printf 'm_key %s\nm_key_protection_level 2\nm_key_lease_period 0\n' \
			$key >"$R/osm.conf"
		echo 'Default=0x7fff, ipoib, mtu=3, defmember=full : ALL, ALL_SWITCHES=full, SELF=full;' \
			>"$R/partitions.conf"
		opensm -B -d 2 -t 1000 -F "$R/osm.conf" -P "$R/partitions.conf" \
			-f "$R/opensm.log" >/dev/null 2>&1
	fi
	check "port ACTIVE under opensm" wait_for 300 grep -q ACTIVE $p/state
	echo $(($(cat $p/lid))) >"$R/lid.$PIB_HOST"
	check "own switch answers with the M_Key" \
		wait_for 60 sh -c "$smp -C pibeth0 -P 1 -y $key -D 0,1 0x15 0 >/dev/null"
	smpquery -C pibeth0 -P 1 -y $key -D portinfo 0,1 0 | sed -n 's/^Lid:\.*//p' \
		>"$R/swlid.$PIB_HOST"
}

# host1 and host2: IPoIB joins the broadcast group, so that the SM routes
# its MLID to both ports (opensm routes no group of one port); the
# victim's UD QP on host1 attaches to that MLID with another MGID.
ipoib_up() {
	check "modprobe ib_ipoib" modprobe ib_ipoib
	check "ib0 up" ip link set ib0 up
	check "ib0 joined the broadcast group" wait_for 60 grep -q 1 /sys/class/net/ib0/carrier
	[ "$PIB_HOST" = 1 ] || return 0
	timeout 30 saquery -C pibeth0 -P 1 -g 2>/dev/null |
		awk '/MGID/ { g = $0 } /Mlid/ && g ~ /ffff:ffff$/ { sub(/.*\./, ""); print; exit }' \
		>"$R/mlid"
	[ -s "$R/mlid" ] || echo 0xc000 >"$R/mlid"
	echo "broadcast group MLID $(cat "$R/mlid")"
}

# A forwarding loop: both switches send LID 0x100 to each other (as a
# broken or forged SM would); one packet for it must not circle for good.
loop_test() {
	local a b
	if [ "$PIB_HOST" != 3 ]; then
		check "LFT: LID 0x100 to the other host's switch" set_lft 4 41
	fi
	barrier loop-set
	if [ "$PIB_HOST" = 3 ]; then
		attack "one packet into the loop" -s 10.99.0.2 -d 10.99.0.1 ud \
			dlid=0x100 slid="$(cat "$R/lid.2")" qp=0x123 qkey=1 len=8 tag=76
	else
		sleep 3
		a=$(udp_in)
		sleep 3
		b=$(udp_in)
		echo "UDP datagrams in over 3 s, 3 s after the packet: $((b - a))"
		check "the loop stopped: few datagrams ($((b - a)))" test $((b - a)) -lt 60
		set_lft 4 ""
		counter hop_limit >"$R/hoplimit.$PIB_HOST"
	fi
	barrier loop-done
	if [ "$PIB_HOST" = 1 ]; then
		check "a switch dropped it at the hop limit" \
			test $(($(cat "$R/hoplimit.1") + $(cat "$R/hoplimit.2"))) -ge 1
	fi
}

# host3's attacks, in the order the victim needs them.
forger() {
	local l1 l2 s1 g2 rc_qpn rc_psn ud_qpn qkey mlid
	l1=$(cat "$R/lid.1") l2=$(cat "$R/lid.2") s1=$(cat "$R/swlid.1")
	g2=0x$(cat "$R/swguid.2") mlid=$(cat "$R/mlid")
	wait_for 120 test -e "$R/victim" || fail "the victim never got ready"
	rc_qpn=$(sed -n 's/^rc_qpn //p' "$R/victim")
	rc_psn=$(sed -n 's/^rc_psn //p' "$R/victim")
	ud_qpn=$(sed -n 's/^ud_qpn //p' "$R/victim")
	qkey=$(sed -n 's/^ud_qkey //p' "$R/victim")
	local as2=(-s 10.99.0.2 -d 10.99.0.1)
	local ud=(ud dlid="$l1" slid="$l2" qp="$ud_qpn" qkey="$qkey" len=64)
	local mc=(ud dlid="$mlid" slid="$l2" qp=0xffffff qkey="$qkey" len=64)

	attack "ACKs from the future to the victim's RC QP" -n 512 -g 2000 "${as2[@]}" \
		ack dlid="$l1" slid="$l2" qp="$rc_qpn" psn=$((rc_psn + 100)) psn_step=2048
	attack "unicast to the victim's UD QP (control)" -n 5 "${as2[@]}" "${ud[@]}" tag=85
	attack "unicast on VL15 to the victim's UD QP" -n 50 "${as2[@]}" "${ud[@]}" tag=86 vl=15
	# Runs of checksummed datagrams of one size, back to back: host1's GRO
	# merges them as it does a peer's batches, and pib takes them apart.
	attack "runs with UDP checksums to the victim's UD QP (control)" -n 100 -k good \
		"${as2[@]}" "${ud[@]}" tag=82
	attack "runs with UDP checksums on VL15 to the victim's UD QP" -n 100 -k good \
		"${as2[@]}" "${ud[@]}" tag=86 vl=15
	attack "wrong UDP checksums to the victim's UD QP" -n 50 -k bad \
		"${as2[@]}" "${ud[@]}" tag=66
	attack "multicast to the victim's group (control)" -n 5 "${as2[@]}" "${mc[@]}" \
		tag=71 dgid=$mgid
	attack "multicast to its MLID with another MGID" -n 50 "${as2[@]}" "${mc[@]}" \
		tag=87 dgid=ff12:401b:ffff::bad
	attack "multicast to its MLID without a GRH" -n 50 "${as2[@]}" "${mc[@]}" tag=78
	touch "$R/forge.victim-done"

	barrier hijack
	attack "host2's switch GUID from host3's address" -n 40 -g 200000 -d 10.99.0.1 \
		hello guid="$g2" &
	attack "a flipped GUID from host2's address" -n 40 -g 200000 "${as2[@]}" \
		hello guid=$((g2 ^ 1))
	wait
	barrier hijack-done
	attack "new GUIDs from host3's address" -n 200 -g 5000 -d 10.99.0.1 \
		hello guid=0x0bad000000000000 guid_step=1
	attack "new GUIDs from 100 addresses" -n 100 -g 10000 -s 10.99.0.100 -S 1 \
		-d 10.99.0.1 hello guid=0x0bad100000000000 guid_step=1

	attack "over-long MADs to QP1" -n 3000 -g 200 "${as2[@]}" \
		mad dlid="$l1" slid="$l2" qp=1 len=512 class=0x04 attr=0x12
	attack "bad base version MADs to QP1" -n 1000 -g 200 "${as2[@]}" \
		mad dlid="$l1" slid="$l2" qp=1 base=2 class=0x04 attr=0x12
	attack "over-long SMPs to QP0" -n 1000 -g 200 "${as2[@]}" \
		mad vl=15 dlid="$l1" slid="$l2" qp=0 len=512 class=0x01 attr=0x11
	attack "a GSI MAD to QP0" -n 300 -g 200 "${as2[@]}" \
		mad vl=15 dlid="$l1" slid="$l2" qp=0 class=0x04 attr=0x12
	attack "a PMA Get on VL15 to QP1" -n 300 -g 200 "${as2[@]}" \
		mad vl=15 dlid="$l1" slid="$l2" qp=1 class=0x04 attr=0x12
	attack "PMA Gets with a GRH for a GID host1 does not have" -n 300 -g 200 \
		"${as2[@]}" mad dlid="$l1" slid="$l2" qp=1 class=0x04 attr=0x12 \
		dgid=fe80::bad:1

	# LFT block 0 (LIDs 0-63) to port 0: nothing routed; PortInfo of
	# port 0: another LID. Directed route and LID-routed, to both switches.
	attack "DR LFT Sets with M_Key 0 to host1's switch" -n 20 -g 50000 "${as2[@]}" \
		mad vl=15 dlid=0xffff slid=0xffff qp=0 class=0x81 dr=1 method=2 attr=0x19
	attack "LID-routed PortInfo Sets with M_Key 0 to host1's switch" -n 20 -g 50000 \
		"${as2[@]}" mad vl=15 dlid="$s1" slid="$l2" qp=0 method=2 attr=0x15 \
		data=0000000000000000000000000000000000990000
	attack "DR LFT Sets with M_Key 0 to host2's switch" -n 20 -g 50000 \
		-s 10.99.0.1 -d 10.99.0.2 \
		mad vl=15 dlid=0xffff slid=0xffff qp=0 class=0x81 dr=1 method=2 attr=0x19
	touch "$R/forge.done"
}

# host1: the victim's verdict.
victim_checks() {
	local out=$1
	cat "$out"
	echo "MulticastForwardingTable, MLIDs 0xc000-0xc01f, ports 0-15 and 64-79:"
	"$smp" -C pibeth0 -P 1 -y $key -D 0,1 0x1b 0
	"$smp" -C pibeth0 -P 1 -y $key -D 0,1 0x1b 0x40000000
	expect_match "victim ran" "$(cat "$out")" 'pib-victim: done'
	expect_eq "no SEND completed by forged ACKs" "$(sed -n 's/^rc_success //p' "$out")" 0
	expect_match "unicast UD arrives (control)" "$(cat "$out")" '^ud_tag_U [1-9]'
	expect_match "runs with UDP checksums arrive (control)" "$(cat "$out")" '^ud_tag_R [1-9]'
	expect_eq "nothing with a wrong UDP checksum arrives" "$(grep -c '^ud_tag_B' "$out")" 0
	expect_match "multicast to the group arrives (control)" "$(cat "$out")" '^ud_tag_G [1-9]'
	expect_eq "no unicast on VL15 reached a UD QP" "$(grep -c '^ud_tag_V' "$out")" 0
	expect_eq "no multicast with another MGID" "$(grep -c '^ud_tag_W' "$out")" 0
	expect_eq "no multicast without a GRH" "$(grep -c '^ud_tag_N' "$out")" 0
	check "counted: ACKs for PSNs never sent" test "$(stat_of pibeth0 resp_psn_unsent)" -ge 1
	check "counted: multicast for no attached MGID" test "$(stat_of pibeth0 rcv_mcast_bad_gid)" -ge 1
}

# host1: the peer table while host3 claims host2's GUID and address.
hijack_checks() {
	local g2 i t
	g2=$(cat "$R/swguid.2")
	for i in 1 2 3 4 5 6; do
		sleep 0.5
		t=$(grep '^peer ' $dbg)
		echo "$t"
		if ! grep -q "^peer $g2 10.99.0.2 up\$" <<<"$t"; then
			fail "host2's GUID left host2's address: $t"
			return
		fi
		if grep -v "^peer $g2 " <<<"$t" | grep -q ' 10.99.0.2 up$'; then
			fail "another GUID took host2's address: $t"
			return
		fi
	done
	ok "host2's GUID stays bound to host2's address, and its address to it"
}

if [ "$PIB_HOST" = 3 ]; then
	barrier ready
	barrier active
	# Forged datagrams that never reach host1 would prove nothing.
	check "host3 reaches host1 on the LAN" ping -c 2 -W 10 10.99.0.1 ||
		ip addr show eth0
	loop_test
	barrier attack
	barrier listen-under-attack
	forger
	barrier attacked
	barrier listen-after
	barrier "done"
	pib_done
fi

fabric_up
ipoib_up
barrier active
loop_test
lft 0 >"$R/lft0.before.$PIB_HOST"
if [ "$PIB_HOST" = 1 ]; then
	# Three guests on two CPUs, one of them flooding: the RC traffic gets
	# ACK timeouts of 1 s (--timeout 18), not 200 ms, so that only a
	# broken path makes it run out of retries.
	"$victim" -d pibeth0 --info "$R/victim" --seconds 60 --rc-dlid "$(cat "$R/lid.2")" \
		--mgid $mgid --mlid "$(cat "$R/mlid")" >"$R/victim.out" 2>&1 &
	vpid=$!
	"$integ" --server -d pibeth0 --timeout 18 --deadline "$(tf 300)" >"$R/integrity.server" 2>&1 &
	ipid=$!
	barrier attack
	barrier listen-under-attack
	barrier hijack
	hijack_checks
	barrier hijack-done
	# The hello floods (and the rest of the attack) start now.
	traps0=$(counter traps_tx) start=$SECONDS
	check "the attack ends" wait_for 300 test -e "$R/forge.done"
	traps=$(($(counter traps_tx) - traps0)) t=$((SECONDS - start))
	wait "$ipid" || fail "pib-integrity under attack (host1): $(tail -n 3 "$R/integrity.server")"
	wait "$vpid"
	victim_checks "$R/victim.out"
else
	barrier attack
	barrier listen-under-attack
	sleep 2
	"$integ" --client 10.99.0.1 -d pibeth0 --timeout 18 --deadline "$(tf 300)" -n 4000 -s 65536 \
		--sge 2 >"$R/integrity.client" 2>&1 &
	cpid=$!
	barrier hijack
	barrier hijack-done
	if wait "$cpid"; then
		ok "pib-integrity under attack"
	else
		fail "pib-integrity under attack: $(tail -n 3 "$R/integrity.client")"
	fi
	check "the attack ends" wait_for 300 test -e "$R/forge.done"
fi
barrier attacked

# What a user sees afterwards.
sleep 3
check "port still ACTIVE" grep -q ACTIVE /sys/class/infiniband/pibeth0/ports/1/state
other=$((3 - PIB_HOST))
check "perfquery of the other host answers" \
	timeout 60 perfquery -C pibeth0 -P 1 "$(cat "$R/lid.$other")" 1
check "the other host's SMA answers" \
	timeout 60 smpquery -C pibeth0 -P 1 -y $key nodeinfo "$(cat "$R/lid.$other")"
expect_eq "LFT block 0 as the SM set it" "$(lft 0)" "$(cat "$R/lft0.before.$PIB_HOST")"
mkv=$("$smp" -C pibeth0 -P 1 -y $key -D 0,1 0x15 0 | sed -n 4p | awk '{ print $13 $14 }')
echo "switch M_KeyViolations 0x$mkv"
check "switch counted M_Key violations" test $((0x${mkv:-0})) -ge 1
expect_eq "no 'unsupported base version' in dmesg" \
	"$(dmesg | grep -c 'unsupported base version')" 0
expect_eq "no 'ib_create_ah_from_wc error' in dmesg" \
	"$(dmesg | grep -c 'ib_create_ah_from_wc')" 0
echo "== host$PIB_HOST: switch, transport and eth0 counters"
grep -v '^peer 0bad' $dbg
rdma statistic show link pibeth0/1
ip -s link show eth0
if [ "$PIB_HOST" = 1 ]; then
	# One Trap 128 per 2 s at most (after a burst of 2), however many
	# links the floods flip.
	check "$traps Trap 128s in $t s of hello floods" test "$traps" -le $((t / 2 + 2))
	check "counted: a known GUID from another address" \
		test "$(counter hellos_guid_elsewhere)" -ge 1
	check "counted: a new GUID from an address in use" \
		test "$(counter hellos_addr_in_use)" -ge 1
	check "counted: new peers over the rate" test "$(counter peers_rate_limited)" -ge 1
	check "peer table bounded" test "$(grep -c '^peer ' $dbg)" -le 64
	check "counted: bad MADs before QP0/QP1" test "$(stat_of pibeth0 rcv_bad_mad)" -ge 1
	check "counted: MADs for a GID host1 does not have" test "$(stat_of pibeth0 rcv_bad_dgid)" -ge 1
	check "counted: VL15 packets that are not SMPs" test "$(counter drop_bad_vl15)" -ge 1
	check "counted: datagrams with a wrong UDP checksum" \
		test "$(counter udp_csum_errors)" -ge 1
	"$integ" --server -d pibeth0 --timeout 18 --deadline "$(tf 200)" >"$R/integrity.after" 2>&1 &
	ipid=$!
	barrier listen-after
	wait "$ipid" ||
		fail "pib-integrity after the attack (host1): $(tail -n 3 "$R/integrity.after")"
else
	barrier listen-after
	sleep 3
	check "pib-integrity after the attack" "$integ" --client 10.99.0.1 -d pibeth0 --timeout 18 \
		--deadline "$(tf 200)" -n 200 -s 100000
fi
barrier "done"
pib_done
