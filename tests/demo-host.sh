#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The demo's session on each host (tests/demo): what a user types.
. "$PIB_SRC/tests/lib.sh"
pib_install
show() { echo; echo "host$PIB_HOST# $*"; "$@"; }
show rdma link add pibeth0 type pib netdev eth0 || exit 1
show rdma link show
show ibv_devices
show ibv_devinfo -d pibeth0
show ibstat pibeth0
barrier shown
show rdma link delete pibeth0
