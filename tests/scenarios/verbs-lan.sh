#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# hosts: 2
# timeout: 1800
# lan: netns
# The data path across the LAN, under opensm: ibv_*_pingpong with their
# data checks, and perftest for every transport and operation (sizes from
# 1 byte up with -a, several QPs, bidirectional, XRC, on-demand paging),
# unmodified. The hosts are namespaces of one guest (rig/lan --netns) on a
# bridge of veths, which hand a UDP GSO batch over whole.
# shellcheck source=../lib.sh
. "$PIB_SRC/tests/lib.sh"

pib_install
pib_fabric_up
PAIR_DEV=$PIB_DEV
verbs_suite "$(ibv_devinfo -d "$PIB_DEV" | sed -n 's/.*active_mtu:[[:space:]]*\([0-9]*\).*/\1/p')"
# XRC: perftest's XRC domain, SRQs and INI/TGT QPs.
pair_run send_bw_xrc 120 ib_send_bw -c XRC -n 100 -F
pair_run read_bw_xrc 120 ib_read_bw -c XRC -n 100 -F
# On-demand paging: perftest's buffers registered with
# IBV_ACCESS_ON_DEMAND, faulted in by pib as the first messages need them.
pair_run send_bw_odp 120 ib_send_bw --odp -n 100 -s 65536 -F
pair_run write_bw_odp 120 ib_write_bw --odp -n 100 -s 65536 -F
pair_run read_bw_odp 120 ib_read_bw --odp -n 100 -s 65536 -F
# iproute2 6.x (Debian 13 on) prints one counter per line: join them.
stats=$(rdma statistic show link "$PIB_DEV/1" | tr -s ' \n' ' ')
expect_match "rdma statistic shows the transport's counters" "$stats" \
	'retransmit_timeouts [0-9]+ .*read_response_gaps [0-9]+'
# (host1 answers the WRITEs and READs)
[ "$PIB_HOST" = 1 ] && expect_match "its ODP faults answered with RNR NAKs" \
	"$stats" 'odp_responder_faults [1-9]'
# Both hosts sent messages of many packets (host1 READ responses): runs of
# them left as UDP GSO batches.
sw=$(cat "$(sw_debugfs)")
expect_match "messages left in UDP GSO batches" "$sw" '^batches_tx [1-9]'
# ... and came in as runs of datagrams in one skb (the batch itself, over
# veth; GRO's merge on a NIC), which pib took apart again; all with good
# UDP checksums.
expect_match "runs of datagrams received as one skb" "$sw" '^batches_rx [1-9]'
expect_match "no bad UDP checksums" "$sw" '^udp_csum_errors 0$'
# The switch looked the IP route to the other host up once (per CPU, and
# again should it change) and sent everything else by the cached one.
cached=$(sed -n 's/^routes_cached //p' <<<"$sw")
lookups=$(sed -n 's/^route_lookups //p' <<<"$sw")
if [ "${cached:-0}" -gt 1000 ] && [ "${lookups:-0}" -ge 1 ] && [ "$lookups" -le 8 ]; then
	ok "sends to the peer take the cached route ($cached cached, $lookups lookups)"
else
	fail "sends to the peer take the cached route: ${cached:-none} cached, ${lookups:-none} lookups"
fi
echo "$sw"
pib_done
