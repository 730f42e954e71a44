#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# hosts: 3
# timeout: 900
# pib over IPv6.
# - An IPv6-only LAN: no host has an IPv4 address. The switches find each
#   other by hellos to IPv6's all-nodes group and carry IB packets between
#   link-local addresses; opensm on host1 brings every port ACTIVE,
#   ibnetdiscover sees 3 switches and 3 CAs, IPoIB carries IP, and
#   ibv_rc_pingpong and perftest run between host1 and host3 (their
#   exchange of QP numbers over IPoIB: they speak IPv4 only).
# - A mixed LAN: hosts 1 and 2 get IPv4 back and hear each other over both
#   families, host3 stays IPv6-only. Their packets stay on IPv6 until
#   IPv6 fails at both: then they move to IPv4 with no link going down,
#   and data still flows, while host3 (IPv6 only) and they lose each
#   other.
# The rig fails the test on any kernel warning.
# shellcheck source=../lib.sh
. "$PIB_SRC/tests/lib.sh"

sw=/sys/kernel/debug/pib/eth0
me=$PIB_HOST
guid_of() { echo "5054007ffe99000$1"; }

pib_install
check "no IPv4 address on eth0" ip -4 addr flush dev eth0
check "IPv6 address fd99::$me" ip addr add "fd99::$me/64" dev eth0 nodad
check "an IPv6 link-local address" wait_for 30 sh -c \
	"ip -6 addr show dev eth0 scope link | grep -v tentative | grep -q fe80::"
barrier ipv6-only
ipoib_partitions
pib_fabric_up
ipoib_up
for i in 1 2 3; do
	[ "$i" = "$me" ] && continue
	expect_match "host$i heard over IPv6, from its link-local address" \
		"$(cat $sw)" "^peer $(guid_of "$i") fe80::[0-9a-f:]+ up\$"
done
expect_no_match "no IPv4 anywhere" "$(cat $sw)" '10\.99\.0\.'

if [ "$me" = 2 ]; then
	net=$(timeout 300 ibnetdiscover -C pibeth0 -P 1 2>&1)
	echo "$net"
	expect_eq "ibnetdiscover: 3 switches" "$(grep -c '^Switch' <<<"$net")" 3
	expect_eq "ibnetdiscover: 3 CAs" "$(grep -c '^Ca' <<<"$net")" 3
fi
[ "$me" = 3 ] && check "IPoIB: host3 pings host1" ping -c 3 -W 5 10.98.0.1
barrier discovered
PAIR_DEV=pibeth0 PAIR_CLIENT=3 PAIR_ADDR=10.98.0.1
pair_run rc_pingpong 180 ibv_rc_pingpong -n 50 -c
pair_run send_bw 180 ib_send_bw -n 200 -F
pair_run write_lat 180 ib_write_lat -n 200 -F
pair_run read_bw 180 ib_read_bw -n 100 -F

# The mixed LAN: hosts 1 and 2 have IPv4 again.
if [ "$me" != 3 ]; then
	check "IPv4 back on host$me" ip addr add "10.99.0.$me/24" dev eth0
	other=$((3 - me))
	check "host$other heard over IPv4 as well" wait_for 30 grep -q \
		"^peer_alt $(guid_of "$other") 10\\.99\\.0\\.$other\$" $sw
	expect_match "its packets stay on IPv6" "$(cat $sw)" \
		"^peer $(guid_of "$other") fe80::[0-9a-f:]+ up\$"
	# host3 has IPv4 on ib0 only: it sends no IPv4 from eth0.
	expect_no_match "host3 is not heard over IPv4" "$(cat $sw)" \
		"^peer_alt $(guid_of 3) "
else
	sleep 15
	st=$(cat $sw)
	expect_no_match "hosts 1 and 2 not bound over IPv4 (no IPv4 here)" "$st" \
		'^peer_alt '
	expect_match "their IPv4 hellos ignored" "$st" '^hellos_no_addr [1-9]'
fi
barrier dual
# IPv6 fails at hosts 1 and 2: their pib packets over IPv6 are dropped,
# coming and going.
if [ "$me" != 3 ]; then
	check "drop pib's IPv6 packets at host$me" sh -c \
		"tc qdisc add dev eth0 root handle 1: prio &&
		 tc filter add dev eth0 parent 1: protocol ipv6 u32 \
			match ip6 dport 4792 0xffff action drop &&
		 tc qdisc add dev eth0 ingress &&
		 tc filter add dev eth0 parent ffff: protocol ipv6 u32 \
			match ip6 dport 4792 0xffff action drop"
	check "host$other's packets move to IPv4" wait_for 40 grep -q \
		"^peer $(guid_of "$other") 10\\.99\\.0\\.$other up\$" $sw
	expect_match "its link never went down" "$(cat $sw)" \
		"^peer_stat $(guid_of "$other") .* link_downs 0\$"
	check "host3 (IPv6 only) is lost" wait_for 40 grep -q \
		"^peer $(guid_of 3) fe80::[0-9a-f:]* down\$" $sw
else
	for i in 1 2; do
		check "host$i is lost" wait_for 40 grep -q \
			"^peer $(guid_of "$i") fe80::[0-9a-f:]* down\$" $sw
	done
fi
barrier moved
# Data between hosts 1 and 2 over IPv4 now; the SM still manages both.
PAIR_CLIENT=2 PAIR_ADDR=10.99.0.1
pair_run rc_pingpong_v4 180 ibv_rc_pingpong -n 50 -c
[ "$me" = 3 ] || expect_match "port still ACTIVE" \
	"$(cat /sys/class/infiniband/pibeth0/ports/1/state)" ACTIVE
cat $sw
barrier "done"
[ "$me" = 1 ] && kill "$(pidof opensm)" 2>/dev/null
pib_done
