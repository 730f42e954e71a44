#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# hosts: 2
# timeout: 300
# lan: netns
# Two hosts on one LAN, each with a pib device on eth0: every host's GUID
# comes from its own MAC, so the hosts' GUIDs differ.
# shellcheck source=../lib.sh
. "$PIB_SRC/tests/lib.sh"

pib_install
check "rdma link add $PIB_DEV" rdma link add "$PIB_DEV" type pib netdev eth0
mine=$(cat "/sys/class/infiniband/$PIB_DEV/node_guid")
expect_eq "GUID from this host's MAC" "$mine" "5054:00ff:fe99:000$PIB_HOST"
echo "$mine" > "$PIB_RESULTS/guid.$PIB_HOST"
check "ping the other hosts over eth0" ping -c 1 -W 5 "10.99.0.$((PIB_HOSTS + 1 - PIB_HOST))"
barrier guids
for i in $(seq "$PIB_HOSTS"); do
	[ "$i" = "$PIB_HOST" ] && continue
	other=$(cat "$PIB_RESULTS/guid.$i")
	check "host$i's GUID $other differs from ours" test "$other" != "$mine"
done
expect_match "ibstat on host$PIB_HOST" "$(ibstat "$PIB_DEV")" 'State: Initializing'
barrier "done"
check "rdma link delete $PIB_DEV" rdma link delete "$PIB_DEV"
pib_done
