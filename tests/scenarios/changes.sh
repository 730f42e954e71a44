#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# hosts: 3
# timeout: 1200
# A running 3-host fabric under opensm changes: a second opensm becomes
# STANDBY; host3 falls silent (powered off, as far as the LAN can tell) and
# the SM drops it while the others stay ACTIVE; host3 comes back and
# rejoins; `rdma link delete` on host3 is seen by the SM.
# shellcheck source=../lib.sh
. "$PIB_SRC/tests/lib.sh"

p=/sys/class/infiniband/pibeth0/ports/1
# sa_nodes: how many NodeRecords the SA has (switches and CA ports).
sa_nodes() { saquery -C pibeth0 -P 1 NR 2>/dev/null | grep -c 'NodeRecord dump'; }
# sa_nodes_are N: wait until the SA has N NodeRecords.
sa_nodes_are() {
	local deadline=$((SECONDS + 300))
	until [ "$(sa_nodes)" = "$1" ]; do
		[ "$SECONDS" -ge "$deadline" ] && return 1
		sleep 1
	done
}

pib_install
pib_fabric_up

# A second opensm, on host2, loses the election (equal priority, higher
# GUID) and stands by.
[ "$PIB_HOST" = 2 ] &&
	opensm -B -d 2 -t 1000 -f "$PIB_RESULTS/opensm2.log" >/dev/null 2>&1
if [ "$PIB_HOST" = 1 ]; then
	check "sminfo: host2's opensm is STANDBY" wait_for 120 sh -c \
		"sminfo -C pibeth0 -P 1 $(lid_of 2) | grep -q SMINFO_STANDBY"
	expect_match "sminfo: host1's opensm is still MASTER" \
		"$(sminfo -C pibeth0 -P 1 2>&1)" "sm lid $(lid_of 1) .*SMINFO_MASTER"
	expect_eq "SA: 3 switches, 3 CAs" "$(sa_nodes)" 6
fi
barrier standby

# host3 powers off: nothing more comes from it. Its switch is known by
# its GUID: the peer's line shows the address of the family its link
# came up with, IPv4's or IPv6's, whichever hello came first.
if [ "$PIB_HOST" != 3 ]; then
	h3=$(awk '$1 ~ /^peer(_alt)?$/ && $3 == "10.99.0.3" { print $2; exit }' \
		/sys/kernel/debug/pib/eth0)
	check "host3's switch is a peer (${h3:-none})" test -n "$h3" ||
		cat /sys/kernel/debug/pib/eth0
fi
[ "$PIB_HOST" = 3 ] && ip link set eth0 down
barrier off
if [ "$PIB_HOST" != 3 ]; then
	check "host3's switch port goes down" wait_for 30 \
		grep -Eq "^peer ${h3:-none} [^ ]+ down\$" /sys/kernel/debug/pib/eth0 ||
		cat /sys/kernel/debug/pib/eth0
	if [ "$PIB_HOST" = 1 ]; then
		check "SM drops host3: 2 switches, 2 CAs" sa_nodes_are 4
		expect_match "opensm: Trap 128 from a switch" \
			"$(cat "$PIB_RESULTS/opensm.log")" 'num:128'
	fi
	expect_eq "port still ACTIVE" "$(cat $p/state)" "4: ACTIVE"
	expect_match "traps sent" "$(cat /sys/kernel/debug/pib/eth0)" 'traps_tx [1-9]'
fi
barrier dropped

# host3 boots again: pib reloaded, the device added anew.
if [ "$PIB_HOST" = 3 ]; then
	check "rdma link delete pibeth0" rdma link delete pibeth0
	check "rmmod pib" rmmod pib
	check "eth0 up" ip link set eth0 up
	check "modprobe pib" modprobe pib
	check "rdma link add pibeth0" rdma link add pibeth0 type pib netdev eth0
	check "host3 ACTIVE again" wait_for 300 grep -q ACTIVE $p/state
	check "host3 has a LID again" test "$(cat $p/lid)" != 0x0
	echo $(($(cat $p/lid))) > "$PIB_RESULTS/lid.3"
fi
[ "$PIB_HOST" = 1 ] && check "SM sees host3 again: 3 switches, 3 CAs" sa_nodes_are 6
barrier back
[ "$PIB_HOST" = 1 ] && expect_match "host3 answers at its LID" \
	"$(timeout 60 smpquery -C pibeth0 -P 1 nodedesc "$(lid_of 3)" 2>&1)" \
	'host3 pibeth0'
barrier checked

# The device goes away on a running fabric; host3's switch with it.
[ "$PIB_HOST" = 3 ] && check "rdma link delete pibeth0" rdma link delete pibeth0
[ "$PIB_HOST" = 1 ] && check "SM sees the device gone" sa_nodes_are 4
[ "$PIB_HOST" != 3 ] && expect_eq "port still ACTIVE" "$(cat $p/state)" "4: ACTIVE"
barrier "done"
[ "$PIB_HOST" != 3 ] && kill "$(pidof opensm)" 2>/dev/null
pib_done
