#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# hosts: 1
# The HCA's SMA and PMA (process_mad), reached by directed-route SMPs to
# the local port (hop 0) and by the RDMA core's sysfs counters.
# shellcheck source=../lib.sh
. "$PIB_SRC/tests/lib.sh"

pib_install
guid=0x505400fffe990001
rdma link add pibeth0 type pib netdev eth0 || { fail "rdma link add"; pib_done; }
wait_for 10 grep -q INIT /sys/class/infiniband/pibeth0/ports/1/state

ni=$(smpquery -C pibeth0 -P 1 -D nodeinfo 0)
expect_match "NodeInfo: channel adapter" "$ni" 'NodeType:\.+Channel Adapter'
expect_match "NodeInfo: one port" "$ni" 'NumPorts:\.+1$'
expect_match "NodeInfo: node GUID" "$ni" "^Guid:\.+$guid"
expect_match "NodeInfo: port GUID" "$ni" "PortGuid:\.+$guid"
expect_match "NodeInfo: P_Key table size" "$ni" 'PartCap:\.+16'
expect_match "NodeInfo: local port" "$ni" 'LocalPort:\.+1'
expect_match "NodeDescription" "$(smpquery -C pibeth0 -P 1 -D nodedesc 0)" 'host1 pibeth0'
pi=$(smpquery -C pibeth0 -P 1 -D portinfo 0)
expect_match "PortInfo: Initialize" "$pi" 'LinkState:\.+Initialize'
expect_match "PortInfo: LinkUp" "$pi" 'PhysLinkState:\.+LinkUp'
expect_match "PortInfo: LID 0" "$pi" '^Lid:\.+0$'
expect_match "PortInfo: MTU cap 1024" "$pi" 'MtuCap:\.+1024'
expect_match "PortInfo: GID prefix" "$pi" 'GidPrefix:\.+0xfe80000000000000'
expect_match "PortInfo: capabilities" "$pi" 'CapMask:\.+0x2000800'
expect_match "PortInfo: one VL" "$pi" 'VLCap:\.+VL0$'
expect_match "P_Key table" "$(smpquery -C pibeth0 -P 1 -D pkeys 0)" '0: 0xffff'
expect_match "GUIDInfo: entry 0 is the port GUID" "$(smpdump -C pibeth0 -P 1 -D 0 0x14)" \
	'^5054 00ff fe99 0001 0000 0000 0000 0000'
expect_match "SL2VL" "$(smpquery -C pibeth0 -P 1 -D sl2vl 0)" 'out  0: (\| 0){16}\|'
check "VLArb" smpquery -C pibeth0 -P 1 -D vlarb 0

# An attribute the SMA does not have: status 0x0C (unsupported attribute).
expect_match "unknown attribute answered with status 0x0c" \
	"$(smpdump -C pibeth0 -P 1 -D 0 0x0099 2>&1)" 'SMP status: 0x800c'

# PortInfo Set by ibportstate: disable and enable the port.
check "ibportstate disable" ibportstate -C pibeth0 -P 1 -D 0 1 disable
expect_eq "disabled: port DOWN" "$(port_attr pibeth0 state)" "1: DOWN"
expect_eq "disabled: phys Disabled" "$(port_attr pibeth0 phys_state)" "3: Disabled"
check "ibportstate enable" ibportstate -C pibeth0 -P 1 -D 0 1 enable
expect_eq "enabled: port INIT again" "$(port_attr pibeth0 state)" "2: INIT"
expect_eq "enabled: LinkUp" "$(port_attr pibeth0 phys_state)" "5: LinkUp"
check_fails "ARMED needs INIT->ARMED, ACTIVE is refused" "status\|failed" \
	ibportstate -C pibeth0 -P 1 -D 0 1 active

# The PMA counts what goes through the port: an SMP one hop out and the
# switch's reply; the sysfs counters read them through PortCounters.
c=/sys/class/infiniband/pibeth0/ports/1/counters
before=$(cat $c/port_xmit_packets)
smpquery -C pibeth0 -P 1 -D -t 100 nodeinfo 0,1 >/dev/null 2>&1
after=$(cat $c/port_xmit_packets)
check "port_xmit_packets counts an SMP sent out ($before -> $after)" test "$after" -gt "$before"
check "port_xmit_data counts its words" test "$(cat $c/port_xmit_data)" -gt 0
check "port_rcv_packets counts the reply" test "$(cat $c/port_rcv_packets)" -gt 0
check "link_downed counts the disable" test "$(cat $c/link_downed)" -ge 1

# The port state machine by PortInfo Set, as an SM drives it, with the
# events consumers see.
stdbuf -oL ibv_asyncwatch -d pibeth0 > /tmp/events 2>&1 &
watch=$!
sleep 1
check "PortInfo Set LID" ibportstate -C pibeth0 -P 1 -D 0 1 lid 0x12
expect_eq "LID 0x12" "$(port_attr pibeth0 lid)" 0x12
check "PortInfo Set SM LID" ibportstate -C pibeth0 -P 1 -D 0 1 smlid 0x12
expect_eq "SM LID 0x12" "$(port_attr pibeth0 sm_lid)" 0x12
check "INIT -> ARMED" ibportstate -C pibeth0 -P 1 -D 0 1 arm
expect_eq "ARMED" "$(port_attr pibeth0 state)" "3: ARMED"
check "ARMED -> ACTIVE" ibportstate -C pibeth0 -P 1 -D 0 1 active
expect_eq "ACTIVE" "$(port_attr pibeth0 state)" "4: ACTIVE"
st=$(ibstat pibeth0)
expect_match "ibstat: Active" "$st" 'State: Active'
expect_match "ibstat: LID 18" "$st" 'Base lid: 18'
expect_match "ibstat: SM LID 18" "$st" 'SM lid: 18'
# GUIDInfo: the SM gives the port an alias GUID in entry 1 (entry 0, the
# port GUID, stays whatever it sends): a second GID. pib raises
# GID_CHANGE, on which the RDMA core reads the table again (for an IB port
# it tells no consumer), so sysfs shows it. Entry 2 stays empty: an
# all-zero GID.
alias=0002c90300aabbcc
gids=/sys/class/infiniband/pibeth0/ports/1/gids
out=$("$PIB_BUILD/tools/pib-smp" -C pibeth0 -P 1 -D 0 -m 2 0x14 0 "1111111111111111$alias" 2>&1)
expect_match "GUIDInfo Set of an alias GUID: answered" "$out" '^status 0x0000'
expect_match "GUIDInfo: entry 0 the port GUID, entry 1 the alias" \
	"$(smpdump -C pibeth0 -P 1 -D 0 0x14)" '^5054 00ff fe99 0001 0002 c903 00aa bbcc'
check "sysfs: GID 1 is the alias" \
	wait_for 10 grep -qx "fe80:0000:0000:0000:0002:c903:00aa:bbcc" $gids/1
expect_eq "sysfs: GID 0 is the port GUID's" "$(cat $gids/0)" \
	fe80:0000:0000:0000:5054:00ff:fe99:0001
expect_eq "sysfs: GID 2 is empty" "$(cat $gids/2)" \
	0000:0000:0000:0000:0000:0000:0000:0000
expect_match "PortInfo: GUIDCap 8" "$(smpquery -C pibeth0 -P 1 -D portinfo 0)" 'GuidCap:\.+8'
check "PortInfo Set DOWN: the link retrains" ibportstate -C pibeth0 -P 1 -D 0 1 down
expect_eq "back to INIT" "$(port_attr pibeth0 state)" "2: INIT"
wait_for 10 grep -q IBV_EVENT_PORT_ERR /tmp/events
ev=$(cat /tmp/events)
expect_match "event: LID change" "$ev" IBV_EVENT_LID_CHANGE
expect_match "event: SM change" "$ev" IBV_EVENT_SM_CHANGE
expect_match "event: port active" "$ev" IBV_EVENT_PORT_ACTIVE
expect_match "event: port error" "$ev" IBV_EVENT_PORT_ERR
kill $watch
check_fails "LID in the multicast range is refused" "status\|fail" \
	ibportstate -C pibeth0 -P 1 -D 0 1 lid 0xc001
expect_eq "LID unchanged" "$(port_attr pibeth0 lid)" 0x12

# M_Key: once set with protection 2, SMPs with another key are dropped and
# counted; the right key still works.
check "set M_Key" ibportstate -C pibeth0 -P 1 -D 0 1 mkey 0x1122334455667788
check "set M_Key protection 2" ibportstate -C pibeth0 -P 1 -D -y 0x1122334455667788 0 1 mkeyprot 2
check_fails "Get with a wrong M_Key gets no answer" "timed out\|fail" \
	smpquery -C pibeth0 -P 1 -D -t 100 portinfo 0
expect_match "right M_Key: answered" \
	"$(smpquery -C pibeth0 -P 1 -D -y 0x1122334455667788 portinfo 0)" 'MkeyViolations:\.+[1-9]'
pib_done
