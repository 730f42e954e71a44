#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# hosts: 1
# timeout: 600
# Two pib devices on one netdev form a one-host fabric (one switch, two
# CAs) that opensm brings up: on lo, then on eth0.
# shellcheck source=../lib.sh
. "$PIB_SRC/tests/lib.sh"

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
	kill "$(pidof opensm)"
	wait_for 30 sh -c '! pidof opensm'
	check "$nd: rdma link delete $a" rdma link delete "$a"
	check "$nd: rdma link delete $b" rdma link delete "$b"
}

pib_install
one_host_fabric lo
one_host_fabric eth0
pib_done
