#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# hosts: 2
# timeout: 900
# brief-of: verbs-lan
# The data path across the LAN in brief, for the test platforms: the
# ibv_*_pingpong programs with their data checks and one perftest of each
# operation (SEND on RC, UC and UD, WRITE, READ, atomics). verbs-lan runs
# every size, transport and mode.
# shellcheck source=../lib.sh
. "$PIB_SRC/tests/lib.sh"

pib_install
pib_fabric_up
PAIR_DEV=pibeth0
mtu=$(ibv_devinfo -d pibeth0 | sed -n 's/.*active_mtu:[[:space:]]*\([0-9]*\).*/\1/p')
pair_run rc_pingpong 120 ibv_rc_pingpong -n 50 -c
pair_run uc_pingpong 120 ibv_uc_pingpong -n 50 -c
pair_run ud_pingpong 120 ibv_ud_pingpong -n 50 -s $((mtu - 40)) -c
pair_run srq_pingpong 120 ibv_srq_pingpong -n 50 -c
pair_run send_bw 120 ib_send_bw -n 100 -F
pair_run send_lat_uc 120 ib_send_lat -c UC -n 100 -F
pair_run send_lat_ud 120 ib_send_lat -c UD -n 100 -F
pair_run write_bw 120 ib_write_bw -n 100 -F
pair_run write_lat 120 ib_write_lat -n 100 -F
pair_run read_bw 120 ib_read_bw -n 100 -F
pair_run atomic_lat 120 ib_atomic_lat -n 100 -F
pib_done
