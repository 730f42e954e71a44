#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# hosts: 1
# The virtual switch's SMA, reached by directed route (0,1) from the local
# HCA: pib's LinkedPorts, Sets of the forwarding tables, and malformed SMPs
# to the switch and to the HCA answered with the MAD status the IBA gives
# them.
# shellcheck source=../lib.sh
. "$PIB_SRC/tests/lib.sh"

smp=$PIB_BUILD/tools/pib-smp
# status OUTPUT: the status line pib-smp printed.
status() { sed -n 's/^status //p' <<<"$1"; }
# sw ARGS...: an SMP to the switch; hca ARGS...: one to the HCA.
sw() { "$smp" -C pibeth0 -P 1 -D 0,1 "$@" 2>&1; }
hca() { "$smp" -C pibeth0 -P 1 -D 0 "$@" 2>&1; }

pib_install
rdma link add pibeth0 type pib netdev eth0 || { fail "rdma link add"; pib_done; }
wait_for 10 grep -q INIT /sys/class/infiniband/pibeth0/ports/1/state

si=$(smpquery -C pibeth0 -P 1 -D switchinfo 0,1)
expect_match "SwitchInfo: LinearFDBCap" "$si" 'LinearFdbCap:\.+49152'
expect_match "SwitchInfo: MulticastFDBCap" "$si" 'McastFdbCap:\.+1024'

# pib's LinkedPorts (vendor attribute 0xff10): port 0 and port 1, where
# pibeth0 is; the peer ports are DOWN (no peer on this LAN).
expect_match "LinkedPorts: ports 0 and 1" "$(sw 0xff10 0)" '^03 00 00 00 00 00 00 00 00 00'
expect_eq "LinkedPorts with an AttributeModifier: invalid value" \
	"$(status "$(sw 0xff10 1)")" 0x001c
expect_eq "LinkedPorts: no Set" "$(status "$(sw -m 2 0xff10 0 ff)")" 0x000c

# LinearForwardingTable block 1 (LIDs 64..127): LID 65 to port 1.
out=$(sw -m 2 0x19 1 ff01)
expect_eq "LFT Set: status" "$(status "$out")" 0x0000
expect_match "LFT Set: reply shows it" "$out" '^ff 01 00'
expect_match "LFT Get" "$(sw 0x19 1)" '^ff 01 00'
expect_eq "LFT block beyond LinearFDBCap" "$(status "$(sw 0x19 768)")" 0x001c

# MulticastForwardingTable: MLID 0xc001 (block 0, entry 1) to ports 1 and 2
# (position 0); ports 65..79 (position 4) for MLID 0xc000.
out=$(sw -m 2 0x1b 0 00000006)
expect_eq "MFT Set: status" "$(status "$out")" 0x0000
expect_match "MFT Set: reply shows it" "$out" '^00 00 00 06 00'
expect_match "MFT Get" "$(sw 0x1b 0)" '^00 00 00 06 00'
expect_eq "MFT Set at position 4" "$(status "$(sw -m 2 0x1b 0x40000000 fffe)")" 0x0000
expect_match "MFT positions are separate" "$(sw 0x1b 0x40000000)" '^ff fe 00 00'
expect_match "MFT position 0 unchanged" "$(sw 0x1b 0)" '^00 00 00 06'
expect_eq "MFT block beyond MulticastFDBCap" "$(status "$(sw 0x1b 32)")" 0x001c
expect_eq "MFT position beyond the ports" "$(status "$(sw 0x1b 0x90000000)")" 0x001c
expect_match "ibroute -M: the MFT" \
	"$(ibroute -C pibeth0 -P 1 -M -D 0,1 2>&1)" '0xc001 +x x +$'

# Malformed SMPs, to the switch and to the HCA.
for who in sw hca; do
	expect_eq "$who: unknown attribute" "$(status "$($who 0x99 0)")" 0x000c
	expect_eq "$who: Set of read-only NodeInfo" \
		"$(status "$($who -m 2 0x11 0)")" 0x000c
	expect_eq "$who: unsupported method (Send)" \
		"$(status "$($who -m 3 0x11 0)")" 0x0008
	expect_eq "$who: bad class version" \
		"$(status "$($who -V 2 0x11 0)")" 0x0004
	expect_eq "$who: PortInfo of a port that is not there" \
		"$(status "$($who 0x15 200)")" 0x001c
done
check_fails "sw: TrapRepress gets no answer" "no response" sw -t 300 -m 7 0x02 0
expect_match "the switch still answers" \
	"$(smpquery -C pibeth0 -P 1 -D nodedesc 0,1)" 'pib switch host1 eth0'

# Port 0's M_Key guards the switch (IBA 14.2.4). PortInfo data: the M_Key
# in bytes 0-7, M_KeyProtectBits in the top of byte 34.
key=00000000c0ffee42
pi_mkey() { printf '%s%052d%02x' "$1" 0 $(($2 << 6)); }
out=$(sw -m 2 0x15 0 "$(pi_mkey $key 1)")
expect_eq "M_Key set, protection level 1" "$(status "$out")" 0x0000
expect_match "the reply shows the key" "$out" '^00 00 00 00 c0 ff ee 42'
expect_match "level 1: a Get with another key is answered" "$(sw 0x19 1)" '^ff 01 00'
expect_match "level 1: the M_Key reads as 0 with another key" "$(sw 0x15 0)" \
	'^00 00 00 00 00 00 00 00 '
expect_match "the right key reads it" "$(sw -y 0x$key 0x15 0)" '^00 00 00 00 c0 ff ee 42'
check_fails "a Set with another key gets no answer" "no response" \
	sw -t 300 -m 2 0x19 1 ff02
expect_match "and changes nothing" "$(sw 0x19 1)" '^ff 01 00'
expect_eq "a Set with the key" "$(status "$(sw -y 0x$key -m 2 0x19 1 ff02)")" 0x0000
expect_match "M_KeyViolations counted" "$(sw -y 0x$key 0x15 0 | sed -n 4p)" \
	'^([0-9a-f]{2} ){12}00 01 '
expect_eq "protection level 2" \
	"$(status "$(sw -y 0x$key -m 2 0x15 0 "$(pi_mkey $key 2)")")" 0x0000
check_fails "level 2: a Get with another key gets no answer" "no response" \
	sw -t 300 0x19 1
expect_eq "the key cleared" \
	"$(status "$(sw -y 0x$key -m 2 0x15 0 "$(pi_mkey 0000000000000000 0)")")" 0x0000
expect_match "no key, no protection" "$(sw 0x19 1)" '^ff 02 00'
pib_done
