#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# hosts: 2
# timeout: 900
# IPoIB and librdmacm across two hosts under opensm: ib0 joins the
# broadcast group through the SA (of MTU 1024: ipoib_partitions), IP runs
# over it (datagram and connected mode), and rdma_cm resolves IPoIB
# addresses to pib ports for rping, ucmatose, udaddy, mckey (multicast) and
# perftest -R. A post_send that error injection fails costs IPoIB one
# packet. ethtool -i ib0 names the HCA's parent device.
# shellcheck source=../lib.sh
. "$PIB_SRC/tests/lib.sh"

pib_install
ipoib_partitions
pib_fabric_up
other=10.98.0.$((3 - PIB_HOST))

ipoib_up rdma_ucm
expect_eq "ib0 MTU: the group's 1024 less the IPoIB header" "$(cat /sys/class/net/ib0/mtu)" 1020
expect_match "ib0's address carries pibeth0's GID" "$(cat /sys/class/net/ib0/address)" \
	"fe:80:00:00:00:00:00:00:50:54:00:ff:fe:99:00:0$PIB_HOST\$"
# IPoIB names its HCA's parent device for ethtool -i (udev asks it of
# every new interface): pib's HCAs have one, /sys/devices/pib.
expect_match "ethtool -i ib0: the HCA's parent" "$(ethtool -i ib0 2>&1)" '^bus-info: pib$'
expect_eq "ib0 is pibeth0's: /sys/class/infiniband/pibeth0/device/net" \
	"$(ls /sys/class/infiniband/pibeth0/device/net)" ib0
barrier ipoib-up
check "ping over ib0" ping -c 3 -W 5 "$other"
check "ping over ib0, 4000 bytes (IP fragments)" ping -c 2 -s 4000 -W 5 "$other"
expect_match "the neighbour is the other host's IPoIB address" "$(ip neigh show "$other" dev ib0)" \
	"lladdr ..:..:..:..:fe:80:00:00:00:00:00:00:50:54:00:ff:fe:99:00:0$((3 - PIB_HOST))"
# Each host asks ARP for an address no one has: its requests go to the
# broadcast group (a multicast LID) and reach the other host; the pings
# went to the other port's LID. The PMA counts the two apart
# (PortCountersExtended).
ping -c 1 -W 2 "10.98.0.$((200 + PIB_HOST))" >/dev/null 2>&1
barrier pinged
# A kernel consumer's post_send made to fail once (error injection): IPoIB
# counts a transmit error and says so in the kernel log. The device's next
# post_send may be another consumer's (the MAD layer's, for host1's
# opensm: CI, once): then the injection is made again.
if [ "$PIB_HOST" = 1 ]; then
	for try in 1 2 3 4 5; do
		tx0=$(cat /sys/class/net/ib0/statistics/tx_errors)
		check "inject: pibeth0's next post_send fails with ENOBUFS" \
			sh -c 'echo "verb post_send 105" >/sys/kernel/debug/pib/pibeth0/inject'
		ping -c 2 -W 5 "$other" >/dev/null 2>&1
		[ "$(cat /sys/class/net/ib0/statistics/tx_errors)" = "$tx0" ] || break
		echo "# inject: try $try failed another consumer's post_send"
	done
	expect_eq "inject: ib0 counted one transmit error" \
		"$(cat /sys/class/net/ib0/statistics/tx_errors)" $((tx0 + 1))
	expect_match "inject: IPoIB logged the failed post_send" "$(dmesg)" \
		"ib0: post_send failed, error -105"
	check "ping over ib0 after it" ping -c 2 -W 5 "$other"
fi
# What debugfs shows of it: ib0's QP attached to the broadcast group, the
# switch's MFT with the group's MLID to two ports (this host's and the
# peer's), its LFT with a port for each host's LID.
dbg=/sys/kernel/debug/pib/pibeth0
ib0_qpn=$(printf '0x%x' "0x$(cut -d: -f2-4 /sys/class/net/ib0/address | tr -d :)")
mc=$(grep '^mgid ff12:401b:ffff:0000:0000:0000:ffff:ffff ' $dbg/mcast)
echo "# $mc"
expect_match "debugfs mcast: ib0's QP ($ib0_qpn) in the IPv4 broadcast group" "$mc" \
	"mlid 0xc[0-9a-f]{3} qpn $ib0_qpn\$"
mlid=$(sed -n 's/.* mlid \(0x[0-9a-f]*\) .*/\1/p' <<<"$mc" | head -n 1)
cat $dbg/mft
expect_match "debugfs mft: the group's MLID to this host's and the peer's port" \
	"$(cat $dbg/mft)" "^mlid $mlid ports [0-9]+(,[0-9]+)+\$"
lft=$(cat $dbg/lft)
echo "$lft"
p1=$(sed -n "s/^lid $(printf 0x%x "$(lid_of 1)") port //p" <<<"$lft")
p2=$(sed -n "s/^lid $(printf 0x%x "$(lid_of 2)") port //p" <<<"$lft")
check "debugfs lft: each host's LID has a port, not the same" \
	test -n "$p1" -a -n "$p2" -a "$p1" != "$p2"
pq=$(timeout 60 perfquery -x -C pibeth0 -P 1 2>&1)
expect_match "perfquery -x: multicast sent" "$pq" 'PortMulticastXmitPkts:\.*[1-9]'
expect_match "perfquery -x: multicast received" "$pq" 'PortMulticastRcvPkts:\.*[1-9]'
expect_match "perfquery -x: unicast sent" "$pq" 'PortUnicastXmitPkts:\.*[1-9]'
expect_match "perfquery -x: unicast received" "$pq" 'PortUnicastRcvPkts:\.*[1-9]'

# TCP over IPoIB: 4 MiB from host1 to host2 arrive intact.
tcp_py='
import hashlib, socket, sys
if sys.argv[1] == "send":
    data = open("/tmp/ipoib.data", "rb").read()
    srv = socket.create_server(("10.98.0.1", 5001))
    open(sys.argv[2], "w").write("listening")
    conn, _ = srv.accept()
    conn.sendall(data)
    conn.close()
else:
    s = socket.create_connection(("10.98.0.1", 5001), timeout=60)
    h, n = hashlib.sha256(), 0
    while chunk := s.recv(65536):
        h.update(chunk)
        n += len(chunk)
    print(n, h.hexdigest())
'
if [ "$PIB_HOST" = 1 ]; then
	head -c 4194304 /dev/urandom >/tmp/ipoib.data
	echo "4194304 $(sha256sum </tmp/ipoib.data | cut -d' ' -f1)" >"$PIB_RESULTS/ipoib.sha"
	timeout 120 /usr/bin/python3 -c "$tcp_py" send "$PIB_RESULTS/tcp.listening" &
	barrier tcp-done
	wait
else
	wait_for 60 test -e "$PIB_RESULTS/tcp.listening"
	got=$(timeout 120 /usr/bin/python3 -c "$tcp_py" receive)
	expect_eq "4 MiB over TCP on ib0 arrive intact" "$got" "$(cat "$PIB_RESULTS/ipoib.sha")"
	barrier tcp-done
fi

cm_pair rping 120 rping -s -a 10.98.0.1 -C 20 -S 4000 -V -- \
	rping -c -a 10.98.0.1 -C 20 -S 4000 -V
cm_pair ucmatose 120 ucmatose -c 4 -C 20 -S 8192 -- ucmatose -s 10.98.0.1 -c 4 -C 20 -S 8192
cm_pair udaddy 120 udaddy -c 4 -C 20 -- udaddy -s 10.98.0.1 -c 4 -C 20
# mckey: the receiver joins an IPoIB-style multicast group through the SA
# (rdma_join_multicast), the sender sends UD datagrams to it.
cm_pair mckey 120 mckey -m 239.1.2.3 -b 10.98.0.1 -C 10 -S 512 -- \
	mckey -m 239.1.2.3 -b 10.98.0.2 -C 10 -S 512 -s
# -F: perftest times its report with the TSC, whose rate it measures
# against gettimeofday; on a busy emulated guest that fit can fall below
# its r^2 of 0.9, and without -F perftest then exits 1 ("Can't produce a
# report") after the traffic, leaving its peer waiting. These runs check
# the traffic, not the figures.
cm_pair send_bw_rdma_cm 120 ib_send_bw -R -F -d pibeth0 -n 200 -- \
	ib_send_bw -R -F -d pibeth0 -n 200 10.98.0.1
cm_pair write_lat_rdma_cm 120 ib_write_lat -R -F -d pibeth0 -n 200 -- \
	ib_write_lat -R -F -d pibeth0 -n 200 10.98.0.1
cm_pair read_bw_rdma_cm 120 ib_read_bw -R -F -d pibeth0 -n 100 -- \
	ib_read_bw -R -F -d pibeth0 -n 100 10.98.0.1

# The Ethernet address is not an IB port's: rdma_cm finds no device there.
[ "$PIB_HOST" = 2 ] && check_fails "rdma_cm on the Ethernet address: no device" \
	"RDMA_CM_EVENT_ADDR_ERROR\|No such device\|error" timeout 30 rping -c -a 10.99.0.1 -C 1
barrier eth-addr

# IPoIB connected mode: RC QPs with ib_cm, a 64 KiB MTU.
check "connected mode" sh -c 'echo connected > /sys/class/net/ib0/mode'
check "MTU 65520" ip link set ib0 mtu 65520
barrier connected
check "ping in connected mode, 30000 bytes" ping -c 3 -s 30000 -W 5 "$other"
barrier cm-pinged
check "datagram mode again" sh -c 'echo datagram > /sys/class/net/ib0/mode'
check "ping in datagram mode again" ping -c 2 -W 5 "$other"
barrier datagram

check "ib_ipoib unloads" modprobe -r ib_ipoib
check "rdma link delete pibeth0" rdma link delete pibeth0
pib_done
