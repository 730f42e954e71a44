#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# hosts: 3
# timeout: 900
# opensm (Debian's, unmodified) on host1 brings a 3-host pib fabric up:
# every port ACTIVE with a unique LID; the diagnostics see 3 switches and
# 3 CAs, and LID-routed MADs (SA, PMA) cross the fabric.
. "$PIB_SRC/tests/lib.sh"

pib_install
check "rdma link add pibeth0" rdma link add pibeth0 type pib netdev eth0
p=/sys/class/infiniband/pibeth0/ports/1
check "all peers heard" wait_for 30 sh -c \
	"[ \$(grep -c ' up$' /sys/kernel/debug/pib/eth0) = $((PIB_HOSTS - 1)) ]"
barrier ready
if [ "$PIB_HOST" = 1 ]; then
	# Emulated guests are slow: give MADs 1 s instead of 200 ms; flush
	# the log after each message so that it can be checked while it runs.
	opensm -B -d 2 -t 1000 -f "$PIB_RESULTS/opensm.log" >/dev/null 2>&1
fi
if ! check "port ACTIVE under opensm" wait_for 300 grep -q ACTIVE $p/state; then
	[ "$PIB_HOST" = 1 ] && grep "ERR " "$PIB_RESULTS/opensm.log" | tail -n 20
	cat /sys/kernel/debug/pib/eth0
fi
lid=$(cat $p/lid)
check "a LID ($lid)" test "$lid" != 0x0
echo "$lid" > "$PIB_RESULTS/lid.$PIB_HOST"
barrier active
for i in $(seq "$PIB_HOSTS"); do
	[ "$i" = "$PIB_HOST" ] && continue
	check "LID differs from host$i's" test "$(cat "$PIB_RESULTS/lid.$i")" != "$lid"
done
expect_eq "SM LID is host1's LID" "$(cat $p/sm_lid)" "$(cat "$PIB_RESULTS/lid.1")"
st=$(ibstat pibeth0)
expect_match "ibstat: Active" "$st" 'State: Active'
if [ "$PIB_HOST" = 2 ]; then
	net=$(timeout 300 ibnetdiscover -C pibeth0 -P 1 2>&1)
	echo "$net"
	expect_eq "ibnetdiscover: 3 switches" "$(grep -c '^Switch' <<<"$net")" 3
	expect_eq "ibnetdiscover: 3 CAs" "$(grep -c '^Ca' <<<"$net")" 3
	expect_match "sminfo: a master SM" "$(timeout 60 sminfo -C pibeth0 -P 1 2>&1)" 'SMINFO_MASTER'
	expect_match "perfquery on host1 (LID-routed PMA)" \
		"$(timeout 60 perfquery -C pibeth0 -P 1 "$(($(cat "$PIB_RESULTS/lid.1")))" 1 2>&1)" 'PortXmitPkts'
	expect_match "saquery: node records" "$(timeout 60 saquery -C pibeth0 -P 1 NR 2>&1)" 'NodeRecord'
fi
if [ "$PIB_HOST" = 1 ]; then
	expect_match "opensm: SUBNET UP" "$(cat "$PIB_RESULTS/opensm.log")" \
		'SUBNET UP'
	expect_eq "opensm: no errors in its log" \
		"$(grep "ERR " "$PIB_RESULTS/opensm.log" | tail -n 20)" ""
fi
cat /sys/kernel/debug/pib/eth0
barrier done
[ "$PIB_HOST" = 1 ] && kill "$(pidof opensm)" 2>/dev/null
pib_done
