#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# hosts: 2
# timeout: 400
# lan: netns
# The per-netdev virtual switches find each other by hellos on the LAN,
# take a silent peer's link down and bring it back, and drop malformed
# datagrams on pib's UDP port, counted by reason.
# shellcheck source=../lib.sh
. "$PIB_SRC/tests/lib.sh"

pib_install
me=$PIB_HOST
other=$((3 - PIB_HOST))
sw=$(sw_debugfs)
check "rdma link add $PIB_DEV" rdma link add "$PIB_DEV" type pib netdev eth0
expect_match "switch GUID from the MAC" "$(cat "$sw")" "guid 505400 *7ffe99000$me"
expect_match "UDP port 4792" "$(cat "$sw")" 'udp_port 4792'
# The peer says hello over IPv4 and IPv6: its link comes up with whichever
# the switch hears first, and the other family's address is its peer_alt.
peer_re="peer 5054007ffe99000$other [0-9a-f.:]+"
check "host$other's switch is a peer, up" wait_for 20 grep -Eq "$peer_re up" "$sw"
check "its IPv4 address is bound" wait_for 20 grep -Eq \
	"^peer(_alt)? 5054007ffe99000$other 10\\.99\\.0\\.$other( |\$)" "$sw"
barrier peers

# Directed-route SMPs cross hosts: through our switch (hop 1), out of the
# peer's port (65, the first peer) to the other host's switch (hop 2), and
# on to the HCA behind its port 1 (hop 3).
ni=$(smpquery -C "$PIB_DEV" -P 1 -D nodeinfo 0,1,65 2>&1)
expect_match "hop 2: host$other's switch" "$ni" "Guid:\.+0x5054007ffe99000$other"
expect_match "it heard us on its peer port" "$ni" 'LocalPort:\.+65$'
ni=$(smpquery -C "$PIB_DEV" -P 1 -D nodeinfo 0,1,65,1 2>&1)
expect_match "hop 3: host$other's HCA" "$ni" "NodeType:\.+Channel Adapter"
expect_match "hop 3: its GUID" "$ni" "Guid:\.+0x505400fffe99000$other"
expect_match "its NodeDescription" "$(smpquery -C "$PIB_DEV" -P 1 -D nodedesc 0,1,65,1)" \
	"host$other $(dev_of $other)"
# The switches' PortInfo: ports with a device or a live peer have their
# link up (INIT until an SM takes over); the others poll.
pi=$(smpquery -C "$PIB_DEV" -P 1 -D portinfo 0,1 1 2>&1)
expect_match "switch port 1 (our device): LinkUp" "$pi" 'PhysLinkState:\.+LinkUp'
expect_match "switch port 1: Initialize" "$pi" 'LinkState:\.+Initialize'
expect_match "switch port 65 (the peer): LinkUp" \
	"$(smpquery -C "$PIB_DEV" -P 1 -D portinfo 0,1 65 2>&1)" 'PhysLinkState:\.+LinkUp'
pi=$(smpquery -C "$PIB_DEV" -P 1 -D portinfo 0,1 66 2>&1)
expect_match "switch port 66 (nobody): Down" "$pi" 'LinkState:\.+Down'
expect_match "switch port 66: Polling" "$pi" 'PhysLinkState:\.+Polling'
expect_match "the peer switch's port 65 (us): LinkUp" \
	"$(smpquery -C "$PIB_DEV" -P 1 -D portinfo 0,1,65 65 2>&1)" 'PhysLinkState:\.+LinkUp'
barrier dr

# host1 goes silent until host2 has seen its link go down (10 s), then
# talks again; host2 sees the link come back.
if [ "$me" = 1 ]; then
	ip link set eth0 down
	barrier silent
	barrier seen-down 60
	ip link set eth0 up
	barrier back
else
	barrier silent
	check "a silent peer's link goes down" wait_for 40 grep -Eq "$peer_re down" "$sw"
	ago=$(sed -n "s/^peer_stat 5054007ffe99000$other heard_ms_ago \([0-9]*\) .*/\1/p" "$sw")
	check "not before 10 s of silence (${ago:-?} ms)" test "${ago:-0}" -ge 10000
	barrier seen-down
	barrier back
	check "it comes back up" wait_for 20 grep -Eq "$peer_re up" "$sw"
	expect_match "debugfs counts the link's down" "$(cat "$sw")" \
		"peer_stat 5054007ffe99000$other .* link_downs 1\$"
fi
[ "$me" = 1 ] && check "host1 hears host2 again" wait_for 20 grep -Eq "$peer_re up" "$sw"
barrier up-again

# Hostile datagrams from host2 to host1's pib port.
if [ "$me" = 2 ]; then
	python3 - <<'PY'
import os, random, socket, struct
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
random.seed(7)
def send(b): s.sendto(b, ("10.99.0.1", 4792))
send(b"")                                   # empty
send(b"\x00" * 3)                           # shorter than an LRH
for n in range(300):                        # random junk of every size
    send(bytes(random.getrandbits(8) for _ in range(random.randrange(1, 300))))
lrh = struct.pack(">BBHHH", 0, 2, 1, (8 + 12 + 8) // 4, 2)  # PktLen says 28
send(lrh + b"\x00" * 50)                    # but 58 bytes arrive
send(b"\x00" * 5000)                        # larger than any IB packet
PY
fi
barrier junk-sent
if [ "$me" = 1 ]; then
	sleep 2
	st=$(cat "$sw")
	echo "$st"
	expect_match "short datagrams counted" "$st" 'drop_short [1-9]'
	expect_match "length mismatches counted" "$st" 'drop_bad_len [1-9]'
	check "the peer is still up" grep -Eq "$peer_re up" "$sw"
	check "the device still works" ibv_devinfo -d "$PIB_DEV"
fi
barrier "done"
check "rdma link delete $PIB_DEV" rdma link delete "$PIB_DEV"
check "the switch goes with the last device" test ! -e "$sw"
pib_done
