#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# hosts: 1
# A pib device on a netdev: rdma link add/delete, what ibv_devinfo, ibstat
# and sysfs show, the port following the netdev, and the umad/uverbs nodes.
# shellcheck source=../lib.sh
. "$PIB_SRC/tests/lib.sh"

pib_install
# eth0 is 52:54:00:99:00:01, so device 0 on it has GUID 5054:00ff:fe99:0001.
guid=5054:00ff:fe99:0001
wait_for 10 grep -qx 1 /sys/class/net/eth0/carrier || fail "eth0 has no carrier"

# The link type loads pib.ko on demand, as on a real host.
check "rdma link add pibeth0 (module autoload)" rdma link add pibeth0 type pib netdev eth0
check "pib.ko loaded" test -d /sys/module/pib
expect_match "rdma link shows the port INIT/LINK_UP on eth0" "$(rdma link show pibeth0/1)" \
	'link pibeth0/1 subnet_prefix fe80:0000:0000:0000 lid 0 sm_lid 0 lmc 0 state INIT physical_state LINK_UP *$'
# iproute2 6.x (Debian 13 on) also prints the protocol.
expect_match "rdma dev shows a CA with the MAC-derived GUID" "$(rdma dev show pibeth0)" \
	"pibeth0: node_type ca (protocol ib )?fw 0\.1\.0 node_guid $guid sys_image_guid $guid"
expect_eq "hca_type" "$(cat /sys/class/infiniband/pibeth0/hca_type)" pib
expect_eq "netdev attribute" "$(cat /sys/class/infiniband/pibeth0/netdev)" eth0
expect_eq "node_desc" "$(cat /sys/class/infiniband/pibeth0/node_desc)" "host1 pibeth0"
expect_eq "link layer" "$(port_attr pibeth0 link_layer)" InfiniBand
expect_eq "GID 0 is fe80:: + port GUID" "$(port_attr pibeth0 gids/0)" \
	"fe80:0000:0000:0000:$guid"
expect_eq "P_Key 0 is the default partition" "$(port_attr pibeth0 pkeys/0)" 0xffff
expect_eq "P_Key 1 is empty" "$(port_attr pibeth0 pkeys/1)" 0x0000
expect_eq "LID 0 without an SM" "$(port_attr pibeth0 lid)" 0x0
for node in /dev/infiniband/umad0 /dev/infiniband/issm0 /dev/infiniband/uverbs0; do
	check "$node exists" test -c "$node"
done
expect_eq "umad0 is pibeth0's" "$(cat /sys/class/infiniband_mad/umad0/ibdev)" pibeth0
# The MAD layer runs on QP0/QP1: a directed-route SMP one hop out reaches
# the netdev's virtual switch, whose SMA answers.
sw=$(smpquery -C pibeth0 -P 1 -D nodeinfo 0,1 2>&1)
expect_match "the switch answers NodeInfo: a switch" "$sw" 'NodeType:\.+Switch'
expect_match "switch GUID from the MAC" "$sw" 'Guid:\.+0x5054007ffe990001'
expect_match "the SMP came in on port 1 (device index 0)" "$sw" 'LocalPort:\.+1$'
expect_match "switch NodeDescription" "$(smpquery -C pibeth0 -P 1 -D nodedesc 0,1)" \
	'pib switch host1 eth0'
# Holding issm sets IsSM in the port capabilities, closing it clears it.
exec 7</dev/infiniband/issm0
expect_eq "issm open: IsSM set" "$(port_attr pibeth0 cap_mask)" 0x02000802
exec 7<&-
expect_eq "issm closed: IsSM clear" "$(port_attr pibeth0 cap_mask)" 0x02000800

# libibverbs finds the device through libpib.
expect_match "ibv_devices lists pibeth0" "$(ibv_devices)" \
	"pibeth0[[:space:]]+${guid//:/}"
info=$(ibv_devinfo -v -d pibeth0 2>&1)
expect_match "ibv_devinfo: transport InfiniBand" "$info" 'transport:[[:space:]]+InfiniBand \(0\)'
expect_match "ibv_devinfo: fw_ver" "$info" 'fw_ver:[[:space:]]+0\.1\.0'
expect_match "ibv_devinfo: node_guid" "$info" "node_guid:[[:space:]]+$guid"
expect_match "ibv_devinfo: max_pd" "$info" 'max_pd:[[:space:]]+65536'
expect_match "ibv_devinfo: max_pkeys" "$info" 'max_pkeys:[[:space:]]+16'
expect_match "ibv_devinfo: vendor_id (no OUI)" "$info" 'vendor_id:[[:space:]]+0xffffff'

# Other providers' devices next to pib's: libibverbs asks every provider
# about every device, and libpib must answer "not mine" for rxe0.
check "modprobe rdma_rxe" modprobe rdma_rxe
check "rdma link add rxe0 next to pibeth0" rdma link add rxe0 type rxe netdev eth0
devs=$(ibv_devices 2>&1)
expect_match "ibv_devices lists rxe0 too" "$devs" 'rxe0'
expect_match "... and pibeth0" "$devs" 'pibeth0'
expect_match "rxe0 is rxe's (RoCE)" "$(ibv_devinfo -d rxe0 2>&1)" 'link_layer:[[:space:]]+Ethernet'
expect_match "pibeth0 is still pib's" "$(ibv_devinfo -d pibeth0 2>&1)" \
	'link_layer:[[:space:]]+InfiniBand'
check "rdma link delete rxe0" rdma link delete rxe0
check "rmmod rdma_rxe" modprobe -r rdma_rxe
expect_match "ibv_devinfo: state INIT" "$info" 'state:[[:space:]]+PORT_INIT \(2\)'
expect_match "ibv_devinfo: MTU 1024 for a 1500 netdev" "$info" 'active_mtu:[[:space:]]+1024 \(3\)'
expect_match "ibv_devinfo: max MTU 1024" "$info" 'max_mtu:[[:space:]]+1024 \(3\)'
expect_match "ibv_devinfo: link layer" "$info" 'link_layer:[[:space:]]+InfiniBand'
expect_match "ibv_devinfo: phys state" "$info" 'phys_state:[[:space:]]+LINK_UP \(5\)'
expect_match "ibv_devinfo: GID" "$info" "GID\[  0\]:[[:space:]]+fe80:0000:0000:0000:$guid"
stat=$(ibstat pibeth0)
expect_match "ibstat: CA type" "$stat" 'CA type: pib'
expect_match "ibstat: Initializing" "$stat" 'State: Initializing'
expect_match "ibstat: LinkUp" "$stat" 'Physical state: LinkUp'
expect_match "ibstat: base LID 0" "$stat" 'Base lid: 0'
expect_match "ibstat: link layer" "$stat" 'Link layer: InfiniBand'
expect_match "ibstat: port GUID" "$stat" "Port GUID: 0x${guid//:/}"
expect_match "ibstatus" "$(ibstatus pibeth0)" 'state:[[:space:]]+2: INIT'

# The port follows the netdev: down/up with PORT_ERR, MTU changes.
stdbuf -oL ibv_asyncwatch -d pibeth0 > /tmp/events 2>&1 &
watch=$!
sleep 1
ip link set eth0 down
expect_eq "netdev down: port DOWN" "$(port_attr pibeth0 state)" "1: DOWN"
expect_eq "netdev down: Disabled" "$(port_attr pibeth0 phys_state)" "3: Disabled"
wait_for 10 grep -q IBV_EVENT_PORT_ERR /tmp/events
expect_match "netdev down: IBV_EVENT_PORT_ERR" "$(cat /tmp/events)" 'IBV_EVENT_PORT_ERR.*port 1'
ip link set eth0 up
wait_for 10 grep -qx 1 /sys/class/net/eth0/carrier
expect_eq "netdev up: port INIT" "$(port_attr pibeth0 state)" "2: INIT"
expect_eq "netdev up: LinkUp" "$(port_attr pibeth0 phys_state)" "5: LinkUp"
kill $watch
ip link set eth0 mtu 9000
expect_match "MTU 9000: IB MTU 4096" "$(ibv_devinfo -d pibeth0)" 'active_mtu:[[:space:]]+4096 \(5\)'
ip link set eth0 mtu 300
expect_eq "MTU 300 cannot carry IB: port DOWN" "$(port_attr pibeth0 state)" "1: DOWN"
ip link set eth0 mtu 1500
expect_eq "MTU 1500 again: port INIT" "$(port_attr pibeth0 state)" "2: INIT"
expect_match "MTU 1500 again: IB MTU 1024" "$(ibv_devinfo -d pibeth0)" 'active_mtu:[[:space:]]+1024 \(3\)'

# Several devices: distinct GUIDs on one netdev, and lo.
check "second device on eth0" rdma link add pibeth1 type pib netdev eth0
expect_eq "second device's GUID" "$(cat /sys/class/infiniband/pibeth1/node_guid)" 5054:00fe:fe99:0001
check "device on lo" rdma link add piblo0 type pib netdev lo
expect_eq "lo device's GUID" "$(cat /sys/class/infiniband/piblo0/node_guid)" 0200:00ff:fe00:0000
expect_eq "lo device INIT" "$(port_attr piblo0 state)" "2: INIT"
expect_match "MTU 4096 on lo" "$(ibv_devinfo -d piblo0)" 'active_mtu:[[:space:]]+4096 \(5\)'
check "delete pibeth1" rdma link delete pibeth1
check "delete piblo0" rdma link delete piblo0

# Bad arguments: a clear errno, nothing left behind.
before=$(ib_devs)
check_fails "duplicate name" "exists" rdma link add pibeth0 type pib netdev lo
check_fails "unknown netdev" "No such device" rdma link add pibx type pib netdev nosuch0
modprobe tun
ip tuntap add tun9 mode tun
check_fails "tun netdev (no Ethernet)" "not supported" rdma link add pibx type pib netdev tun9
ip link add dummy9 mtu 300 type dummy
check_fails "netdev MTU too small" "Invalid argument" rdma link add pibx type pib netdev dummy9
ip link del tun9
ip link set dummy9 mtu 1500
for i in $(seq 0 63); do rdma link add "pibm$i" type pib netdev dummy9 || break; done
expect_eq "64 devices on one netdev" "$(find /sys/class/infiniband -maxdepth 1 -name 'pibm*' | wc -l)" 64
check_fails "a 65th device on one netdev" "No space left" rdma link add pibx type pib netdev dummy9
ip link del dummy9
check "deleting dummy9 removes its 64 devices" wait_for 30 sh -c '! ls /sys/class/infiniband | grep -q ^pibm'
expect_eq "failed adds leave no device" "$(ib_devs)" "$before"

# Removing the netdev removes its devices (dummy and veth).
ip link add dummy0 type dummy
ip link set dummy0 up
check "device on dummy0" rdma link add pibd0 type pib netdev dummy0
ip link add veth0 type veth peer name veth1
check "device on veth0" rdma link add pibv0 type pib netdev veth0
ip link del dummy0
check "deleting dummy0 removes pibd0" wait_for 10 test ! -e /sys/class/infiniband/pibd0
ip link del veth1
check "deleting veth1 removes pibv0" wait_for 10 test ! -e /sys/class/infiniband/pibv0

# Add/delete cycles leak neither devices nor module references.
refs=$(cat /sys/module/pib/refcnt)
for i in $(seq 25); do
	rdma link add "pibc$i" type pib netdev eth0 || fail "cycle $i: add"
	ibv_devinfo -d "pibc$i" >/dev/null || fail "cycle $i: ibv_devinfo"
	rdma link delete "pibc$i" || fail "cycle $i: delete"
done
expect_eq "25 add/delete cycles: devices" "$(ib_devs)" "$before"
expect_eq "25 add/delete cycles: pib refcnt" "$(cat /sys/module/pib/refcnt)" "$refs"

# IPoIB attaches to the device (its UD QP, CQs and MRs are pib's); without
# an SM the port is INIT, so ib0 exists but has no carrier.
check "ib_ipoib loads" modprobe ib_ipoib
check "ib0 appears on pibeth0" wait_for 10 test -e /sys/class/net/ib0
expect_match "ib0's address ends with pibeth0's GID" "$(cat /sys/class/net/ib0/address)" \
	'fe:80:00:00:00:00:00:00:50:54:00:ff:fe:99:00:01$'
check "ib0 goes up" ip link set ib0 up
sleep 1
expect_eq "ib0 has no carrier while the port is INIT" "$(cat /sys/class/net/ib0/carrier)" 0
expect_match "pibeth0 still INIT" "$(rdma link show pibeth0/1)" 'state INIT'
check "ib_ipoib unloads" modprobe -r ib_ipoib
check "ib0 is gone" test ! -e /sys/class/net/ib0
check "rdma link delete pibeth0" rdma link delete pibeth0
expect_eq "no pib device left" "$(ib_devs)" ""

# Removal does not wait for processes that hold the device open: they get
# IBV_EVENT_DEVICE_FATAL (uverbs) or an error (umad).
rdma link add pibo0 type pib netdev eth0
stdbuf -oL ibv_asyncwatch -d pibo0 > /tmp/fatal 2>&1 &
watch=$!
exec 8<>/dev/infiniband/umad0
sleep 1
check "rdma link delete with uverbs and umad open" timeout 20 rdma link delete pibo0
wait_for 10 grep -q IBV_EVENT_DEVICE_FATAL /tmp/fatal
expect_match "open context gets DEVICE_FATAL" "$(cat /tmp/fatal)" IBV_EVENT_DEVICE_FATAL
exec 8>&-
kill $watch 2>/dev/null
rdma link add pibo0 type pib netdev eth0
stdbuf -oL ibv_asyncwatch -d pibo0 > /tmp/fatal 2>&1 &
watch=$!
sleep 1
check "modprobe -r pib with a context open" timeout 20 modprobe -r pib
kill $watch 2>/dev/null
modprobe pib

# Unloading with devices present removes them; load/unload cycles.
rdma link add pibeth0 type pib netdev eth0
rdma link add piblo0 type pib netdev lo
check "modprobe -r pib with two devices" modprobe -r pib
expect_eq "unload removed the devices" "$(ib_devs)" ""
for i in $(seq 5); do
	modprobe pib || fail "load $i"
	rdma link add pibeth0 type pib netdev eth0 || fail "load $i: add"
	modprobe -r pib || fail "unload $i"
done
expect_eq "load/unload cycles leave no device" "$(ib_devs)" ""
check_fails "module parameter udp_port=0 is refused" "Invalid argument" modprobe pib udp_port=0
check "udp_port=5000 loads" modprobe pib udp_port=5000
check "a device on the other port" rdma link add pibeth0 type pib netdev eth0
expect_match "its switch uses UDP port 5000" "$(cat /sys/kernel/debug/pib/eth0)" 'udp_port 5000'
check "unload" modprobe -r pib
check "ib_core still unloads cleanly" modprobe -r ib_umad ib_uverbs

pib_done
