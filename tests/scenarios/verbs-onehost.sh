#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# hosts: 1
# timeout: 1800
# The data path between two devices on one host (lo), under opensm: the
# same tools as verbs-lan, with packets that never leave the kernel.
# shellcheck source=../lib.sh
. "$PIB_SRC/tests/lib.sh"

pib_install
check "rdma link add pibloa" rdma link add pibloa type pib netdev lo
check "rdma link add piblob" rdma link add piblob type pib netdev lo
opensm -B -d 2 -t 1000 -g "$(ibstat -p pibloa)" -f "$PIB_RESULTS/opensm.log" \
	>/dev/null 2>&1
for d in pibloa piblob; do
	check "$d ACTIVE" wait_for 300 grep -q ACTIVE "/sys/class/infiniband/$d/ports/1/state"
done
PAIR_DEV=pibloa PAIR_DEV2=piblob
verbs_suite "$(ibv_devinfo -d pibloa | sed -n 's/.*active_mtu:[[:space:]]*\([0-9]*\).*/\1/p')"
pib_done
