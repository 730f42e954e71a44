#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# hosts: 2
# timeout: 600
# Static peers, for networks where broadcasts do not get through: with the
# LAN's broadcasts dropped, the hosts only find each other through the
# "peers" module parameter, set at load time or later through sysfs.
# shellcheck source=../lib.sh
. "$PIB_SRC/tests/lib.sh"

param=/sys/module/pib/parameters/peers
dbg=/sys/kernel/debug/pib/eth0
other=10.99.0.$((3 - PIB_HOST))

pib_install
check "drop broadcasts arriving on eth0" sh -c \
	"tc qdisc add dev eth0 ingress &&
	 tc filter add dev eth0 parent ffff: protocol ip prio 1 u32 \
		match ip dst 255.255.255.255/32 action drop"

# Bad values are refused and change nothing.
check_fails "load with a bad peer address" "Invalid argument" \
	modprobe pib peers=10.99.0.300
check_fails "load with a broadcast peer" "Invalid argument" \
	modprobe pib peers=255.255.255.255
check "load without peers" modprobe pib
check "rdma link add pibeth0" rdma link add pibeth0 type pib netdev eth0
barrier up
sleep 5
expect_eq "broadcasts dropped: no peer" "$(grep -c '^peer ' $dbg)" 0

if [ "$PIB_HOST" = 1 ]; then
	# Host1 sets its peer at run time.
	check_fails "sysfs: junk refused" "Invalid argument" bash -c "echo junk > $param"
	check_fails "sysfs: multicast refused" "Invalid argument" \
		bash -c "echo 224.0.0.1 > $param"
	check "sysfs: set the peer" sh -c "echo $other > $param"
	expect_eq "sysfs: reads back" "$(cat $param)" "$other"
else
	# Host2 reloads pib with the peer as a module parameter.
	check "rdma link delete pibeth0" rdma link delete pibeth0
	check "rmmod pib" rmmod pib
	check "load with peers=$other,10.99.0.77" modprobe pib "peers=$other,10.99.0.77"
	expect_eq "parameter reads back" "$(cat $param)" "$other,10.99.0.77"
	check "rdma link add pibeth0" rdma link add pibeth0 type pib netdev eth0
fi
check "peer heard through the static list" wait_for 30 \
	grep -q "^peer .* $other up\$" $dbg
expect_eq "only one peer (10.99.0.77 is silent)" "$(grep -c '^peer ' $dbg)" 1
expect_match "switch port 65 is up" \
	"$(smpquery -C pibeth0 -P 1 -D portinfo 0,1 65)" 'PhysLinkState:\.+LinkUp'
barrier peered

# An empty list stops the unicast hellos: the peers' links time out.
check "sysfs: clear the list" sh -c "echo > $param"
expect_eq "sysfs: empty" "$(cat $param)" ""
check "peer times out" wait_for 30 grep -q "^peer .* $other down\$" $dbg
barrier "done"
pib_done
