#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The demo's session on each host (tests/demo): what a user types. Both
# hosts add a pib device on eth0, host1 starts opensm, and then the two
# hosts run InfiniBand diagnostics, perftest, IPoIB and rping across the
# LAN.
# shellcheck source=lib.sh
. "$PIB_SRC/tests/lib.sh"
pib_install
show() { echo; echo "host$PIB_HOST# $*"; "$@"; }
# serve CMD...: host1 runs CMD as a server, host2 as its client.
serve() {
	if [ "$PIB_HOST" = 1 ]; then
		echo; echo "host1# $* &"
		"$@" &
		sleep 1
		barrier "serve-$1"
		wait
	else
		barrier "serve-$1"
		sleep 2
		show "$@" 10.99.0.1
	fi
	barrier "done-$1"
}
show rdma link add pibeth0 type pib netdev eth0 || exit 1
show rdma link show
show ibv_devinfo -d pibeth0
barrier added
if [ "$PIB_HOST" = 1 ]; then
	# This LAN's MTU of 1500 gives IB MTU 1024: IPoIB's broadcast group
	# must fit it (opensm's default is 2048).
	echo 'Default=0x7fff, ipoib, mtu=3, defmember=full : ALL, ALL_SWITCHES=full, SELF=full;' \
		>"$PIB_RESULTS/partitions.conf"
	show opensm -B -t 1000 -P "$PIB_RESULTS/partitions.conf" -f "$PIB_RESULTS/opensm.log"
fi
wait_for 300 grep -q ACTIVE /sys/class/infiniband/pibeth0/ports/1/state
show ibstat pibeth0
barrier active
if [ "$PIB_HOST" = 2 ]; then
	show ibnetdiscover
	show perfquery
fi
barrier diags
serve ibv_rc_pingpong -d pibeth0 -n 100 -c
serve ib_send_bw -d pibeth0 -n 200 -F
serve ib_write_lat -d pibeth0 -n 200 -F
serve ib_read_bw -d pibeth0 -n 200 -F
show rdma statistic show link pibeth0/1
barrier shown
# IPoIB, and rdma_cm over it.
show modprobe -a ib_ipoib rdma_ucm
show ip addr add "10.98.0.$PIB_HOST/24" dev ib0
show ip link set ib0 up
wait_for 60 grep -qx 1 /sys/class/net/ib0/carrier
barrier ipoib
[ "$PIB_HOST" = 2 ] && show ping -c 3 10.98.0.1
barrier pinged
if [ "$PIB_HOST" = 1 ]; then
	echo; echo "host1# rping -s -a 10.98.0.1 -C 5 -v &"
	rping -s -a 10.98.0.1 -C 5 -v &
	sleep 1
	barrier rping
	wait
else
	barrier rping
	sleep 2
	show rping -c -a 10.98.0.1 -C 5 -v
fi
barrier rping-done
show rdma link delete pibeth0
