#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# hosts: 2
# timeout: 420
# Switch teardown under a flood of hellos: host2 (no pib, only pib-forge)
# sends host1 hellos as fast as it can, each a new GUID from another
# address, so that every one is a link coming up that queues the switch's
# trap work, while host1 adds and deletes its device (and so creates and
# frees the switch) again and again. No oops, warning or lockup may follow
# (the rig checks the guest's kernel log), and pib must unload after.
# shellcheck source=../lib.sh
. "$PIB_SRC/tests/lib.sh"

forge=$PIB_BUILD/tools/pib-forge
rounds=40

if [ "$PIB_HOST" = 2 ]; then
	barrier ready
	n=0
	until [ -e "$PIB_RESULTS/teardown.done" ]; do
		# 240 addresses of the LAN, a fresh GUID each time round.
		timeout 60 "$forge" -n 240 -g 100 -s 10.99.0.10 -S 1 -d 10.99.0.1 \
			hello guid=$((0x0bad000000000000 + n * 240)) guid_step=1 >/dev/null ||
			fail "pib-forge"
		n=$((n + 1))
	done
	echo "forged $((n * 240)) hellos"
	barrier "done"
	pib_done
fi

pib_install
check "modprobe pib" modprobe pib
barrier ready
sleep 1
done_rounds=0
for i in $(seq $rounds); do
	rdma link add pibeth0 type pib netdev eth0 || { fail "rdma link add, round $i"; break; }
	# Hellos arrive and links come up meanwhile.
	sleep 0.$((i % 5))
	rdma link delete pibeth0 || { fail "rdma link delete, round $i"; break; }
	done_rounds=$i
done
expect_eq "rounds of add and delete under the flood" "$done_rounds" "$rounds"
touch "$PIB_RESULTS/teardown.done"
barrier "done"
check "pib unloads" modprobe -r pib
pib_done
