#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# hosts: 2
# timeout: 600
# Static peers, for networks where broadcasts do not get through: with the
# LAN's IPv4 broadcasts and IPv6 all-nodes multicasts dropped, the hosts
# only find each other through the "peers" module parameter, set at load
# time or later through sysfs. Each names the other by both its IPv6 and
# its IPv4 address, in another order: each hears the other over both
# families, and packets cross the link both ways.
# shellcheck source=../lib.sh
. "$PIB_SRC/tests/lib.sh"

param=/sys/module/pib/parameters/peers
dbg=/sys/kernel/debug/pib/eth0
other=$((3 - PIB_HOST))
other4=10.99.0.$other
other6=fd99::$other

pib_install
check "IPv6 address fd99::$PIB_HOST" ip addr add "fd99::$PIB_HOST/64" dev eth0 nodad
check "drop broadcasts and pib's all-nodes multicasts arriving on eth0" sh -c \
	"tc qdisc add dev eth0 ingress &&
	 tc filter add dev eth0 parent ffff: protocol ip prio 1 u32 \
		match ip dst 255.255.255.255/32 action drop &&
	 tc filter add dev eth0 parent ffff: protocol ipv6 prio 2 u32 \
		match ip6 dst ff02::1/128 match ip6 dport 4792 0xffff action drop"

# Bad values are refused and change nothing.
check_fails "load with a bad peer address" "Invalid argument" \
	modprobe pib peers=10.99.0.300
check_fails "load with a broadcast peer" "Invalid argument" \
	modprobe pib peers=255.255.255.255
check_fails "load with a multicast IPv6 peer" "Invalid argument" \
	modprobe pib peers=ff02::1
check_fails "load with an IPv4-mapped IPv6 peer" "Invalid argument" \
	modprobe pib peers=::ffff:10.99.0.1
check "load without peers" modprobe pib
check "rdma link add pibeth0" rdma link add pibeth0 type pib netdev eth0
barrier up
sleep 5
expect_eq "broadcasts and multicasts dropped: no peer" "$(grep -c '^peer ' $dbg)" 0

if [ "$PIB_HOST" = 1 ]; then
	# Host1 sets its peer at run time.
	check_fails "sysfs: junk refused" "Invalid argument" bash -c "echo junk > $param"
	check_fails "sysfs: multicast refused" "Invalid argument" \
		bash -c "echo 224.0.0.1 > $param"
	check_fails "sysfs: unspecified IPv6 refused" "Invalid argument" \
		bash -c "echo 10.99.0.9,:: > $param"
	expect_eq "sysfs: a refused list changes nothing" "$(cat $param)" ""
	# Host2's IPv6 address written long: it reads back compressed.
	check "sysfs: set the peer" sh -c "echo fd99:0:0:0::$other,$other4 > $param"
	expect_eq "sysfs: reads back" "$(cat $param)" "$other6,$other4"
else
	# Host2 reloads pib with the peer as a module parameter.
	check "rdma link delete pibeth0" rdma link delete pibeth0
	check "rmmod pib" rmmod pib
	check "load with peers=$other4,fd99::77,$other6" \
		modprobe pib "peers=$other4,fd99::77,$other6"
	expect_eq "parameter reads back" "$(cat $param)" "$other4,fd99::77,$other6"
	check "rdma link add pibeth0" rdma link add pibeth0 type pib netdev eth0
fi
check "peer heard through the static list" wait_for 30 \
	grep -Eq "^peer .* ($other4|$other6) up\$" $dbg
check "... over both families" wait_for 30 grep -Eq "^peer_alt .* ($other4|$other6)\$" $dbg
cat $dbg
expect_eq "only one peer (fd99::77 is silent)" "$(grep -c '^peer ' $dbg)" 1
# A link comes up on the first hello heard, so each side's own view says
# nothing of the other's: an SMP sent before the other host heard this one
# finds no port there to come in by (CI, once).
barrier heard
expect_match "switch port 65 is up" \
	"$(smpquery -C pibeth0 -P 1 -D portinfo 0,1 65)" 'PhysLinkState:\.+LinkUp'
# A directed-route SMP to the other host's switch goes over one family
# and its reply comes back over the other.
expect_match "an SMP to host$other's switch and back" \
	"$(smpquery -C pibeth0 -P 1 -D nodeinfo 0,1,65 2>&1)" "Guid:\.+0x5054007ffe99000$other"
barrier peered

# An empty list stops the unicast hellos: the peers' links time out.
check "sysfs: clear the list" sh -c "echo > $param"
expect_eq "sysfs: empty" "$(cat $param)" ""
check "peer times out" wait_for 30 grep -Eq "^peer .* ($other4|$other6) down\$" $dbg
barrier "done"
pib_done
