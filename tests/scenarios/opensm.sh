#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# hosts: 3
# timeout: 900
# lan: netns
# opensm (Debian's, unmodified) on host1 brings a 3-host pib fabric up:
# every port ACTIVE with a unique LID. Then the infiniband-diags see what
# the IBA says a fabric of 3 switches in a full mesh and 3 CAs must show,
# and LID-routed MADs (SMA, PMA, SA, vendor class) cross it.
# shellcheck source=../lib.sh
. "$PIB_SRC/tests/lib.sh"

pib_install
# host2 captures pib's traffic for a Wireshark check at the end.
cap=$PIB_RESULTS/host2.pcapng
if [ "$PIB_HOST" = 2 ]; then
	dumpcap -q -i eth0 -f "udp port 4792" -w "$cap" 2>/dev/null &
	dumpcap=$!
fi
pib_fabric_up
p=/sys/class/infiniband/$PIB_DEV/ports/1
lid=$(lid_of "$PIB_HOST")
for i in $(seq "$PIB_HOSTS"); do
	[ "$i" = "$PIB_HOST" ] && continue
	check "LID differs from host$i's" test "$(lid_of "$i")" != "$lid"
done
expect_eq "SM LID is host1's LID" $(($(cat "$p/sm_lid"))) "$(lid_of 1)"
st=$(ibstat "$PIB_DEV")
expect_match "ibstat: Active" "$st" 'State: Active'
expect_match "ibstat: SM lid" "$st" "SM lid: $(lid_of 1)\$"
# This host's switch: its LID is on port 0.
swlid=$(smpquery -C "$PIB_DEV" -P 1 -D portinfo 0,1 0 | sed -n 's/^Lid:\.*//p')
check "own switch has a LID ($swlid)" test "${swlid:-0}" != 0
echo "$swlid" > "$PIB_RESULTS/swlid.$PIB_HOST"

# diag_from_host2: the diagnostics, from a host without the SM.
diag_from_host2() {
	local net out
	net=$(timeout 300 ibnetdiscover -C "$PIB_DEV" -P 1 2>&1)
	echo "$net"
	expect_eq "ibnetdiscover: 3 switches" "$(grep -c '^Switch' <<<"$net")" 3
	expect_eq "ibnetdiscover: 3 CAs" "$(grep -c '^Ca' <<<"$net")" 3
	# Every switch: its CA on port 1 and the two other switches.
	expect_eq "ibnetdiscover: links switch-CA" \
		"$(grep -c '^\[1\].*"H-' <<<"$net")" 3
	expect_eq "ibnetdiscover: links switch-switch" \
		"$(grep -c '^\[6[56]\].*"S-' <<<"$net")" 6
	out=$(timeout 300 iblinkinfo -C "$PIB_DEV" -P 1 2>&1)
	grep 'Active/ *LinkUp\|^CA\|^Switch' <<<"$out"
	# 3 links per switch, and each CA's own port.
	expect_eq "iblinkinfo: 9 switch ports and 3 CA ports active" \
		"$(grep -c 'Active/ *LinkUp' <<<"$out")" 12
	out=$(timeout 60 ibroute -C "$PIB_DEV" -P 1 "$swlid" 2>&1)
	echo "$out"
	expect_match "ibroute: LFT of this host's switch" "$out" \
		'6 valid lids dumped'
	expect_match "ibroute: host1's LID leaves on a switch port" "$out" \
		"^$(printf '0x%04x' "$(lid_of 1)") 06[56] "
	expect_match "ibroute: own LID goes to port 1" "$out" \
		"^$(printf '0x%04x' "$lid") 001 "
	expect_match "smpquery nodeinfo (LID-routed)" \
		"$(timeout 60 smpquery -C "$PIB_DEV" -P 1 nodeinfo "$(lid_of 1)" 2>&1)" \
		'NodeType:\.*Channel Adapter'
	expect_match "smpquery portinfo (LID-routed)" \
		"$(timeout 60 smpquery -C "$PIB_DEV" -P 1 portinfo "$(lid_of 3)" 1 2>&1)" \
		'LinkState:\.*Active'
	expect_match "smpquery nodeinfo of a switch" \
		"$(timeout 60 smpquery -C "$PIB_DEV" -P 1 nodeinfo "$(cat "$PIB_RESULTS/swlid.1")" 2>&1)" \
		'NodeType:\.*Switch'
	expect_match "sminfo: a master SM" \
		"$(timeout 60 sminfo -C "$PIB_DEV" -P 1 2>&1)" \
		"sm lid $(lid_of 1) .*SMINFO_MASTER"
	expect_match "perfquery: local port" \
		"$(timeout 60 perfquery -C "$PIB_DEV" -P 1 2>&1)" 'PortXmitPkts:\.*[1-9]'
	expect_match "perfquery: host1's port" \
		"$(timeout 60 perfquery -C "$PIB_DEV" -P 1 "$(lid_of 1)" 1 2>&1)" \
		'PortXmitPkts:\.*[1-9]'
	out=$(timeout 60 saquery -C "$PIB_DEV" -P 1 NR 2>&1)
	expect_eq "saquery: 6 node records" "$(grep -c 'NodeRecord dump' <<<"$out")" 6
	out=$(timeout 60 saquery -C "$PIB_DEV" -P 1 --src-to-dst "$lid:$(lid_of 3)" 2>&1)
	echo "$out"
	expect_match "saquery: path record to host3" "$out" \
		"dlid\.*$(lid_of 3)\$"
	out=$(timeout 60 ibtracert -C "$PIB_DEV" -P 1 "$lid" "$(lid_of 1)" 2>&1)
	echo "$out"
	expect_match "ibtracert: to host1 through 2 switches" \
		"$(grep -c 'switch port' <<<"$out")" '^2$'
	expect_match "ibtracert: ends at host1" "$out" "To ca .*\"host1 $(dev_of 1)\""
	out=$(timeout 60 ibping -C "$PIB_DEV" -P 1 -c 3 "$(lid_of 3)" 2>&1)
	echo "$out"
	expect_match "ibping: host3 answers" "$out" '3 packets transmitted, 3 received'
}

if [ "$PIB_HOST" = 3 ]; then
	ibping -C "$PIB_DEV" -P 1 -S >/dev/null 2>&1 &
	echo $! > /tmp/ibping.pid
fi
barrier diag
[ "$PIB_HOST" = 2 ] && diag_from_host2
# wireshark_check: Wireshark's InfiniBand dissector on host2's capture,
# read as an unprivileged user, as Wireshark wants: from 4.4 (Debian 13)
# on it runs no Lua plugin as root.
wireshark_check() {
	local ws="setpriv --reuid=nobody --regid=nogroup --clear-groups env HOME=/tmp
		tshark -n -r $cap -X lua_script:$PIB_SRC/tests/tools/pib.lua" out
	kill -INT "$dumpcap"
	wait "$dumpcap"
	chmod 644 "$cap"
	out=$($ws -q -z expert,note 2>/dev/null)
	echo "$out"
	expect_eq "Wireshark: no expert notes, warnings or errors" \
		"$(grep -c '^ *[0-9]' <<<"$out")" 0
	out=$($ws -T fields -e frame.protocols 2>/dev/null | sort | uniq -c)
	echo "$out"
	expect_match "Wireshark: frames decoded as InfiniBand" "$out" \
		'[0-9]+ eth:ethertype:ip:udp:pib:infiniband$'
	expect_eq "Wireshark: nothing else" \
		"$(grep -vc 'udp:pib:infiniband' <<<"$out")" 0
	out=$($ws -T fields -e infiniband.mad.mgmtclass 2>/dev/null | tr ',' '\n' | sort -u | xargs)
	expect_eq "Wireshark: SMPs (LID and DR), SA and PMA MADs" \
		"$(grep -o '0x0[134]\|0x81' <<<"$out" | xargs)" "0x01 0x03 0x04 0x81"
	# LRH.PktLen counts 4-byte words up to the ICRC; the VCRC follows. (A
	# run of datagrams that GRO merged is one, of several packets.)
	expect_eq "Wireshark: LRH packet lengths match the datagrams" \
		"$($ws -T fields -e udp.length -e infiniband.lrh.pktlen 2>/dev/null |
		   awk '{ n = split($2, l, ","); s = 0
			for (i = 1; i <= n; i++) s += l[i] * 4 + 2
			if ($1 - 8 != s) print }' | wc -l)" 0
}
[ "$PIB_HOST" = 2 ] && wireshark_check
if [ "$PIB_HOST" = 1 ]; then
	expect_match "opensm: SUBNET UP" "$(cat "$PIB_RESULTS/opensm.log")" \
		'SUBNET UP'
	# But for an answer the kernel refused as a duplicate (umad's
	# is_duplicate(): EINVAL): a requester that asked again, its first
	# answer still on its way, when a loaded host made it wait past its
	# timeout. opensm answers each request; the first answer serves.
	expect_eq "opensm: no errors in its log" \
		"$(grep "ERR " "$PIB_RESULTS/opensm.log" |
			grep -Ev 'ERR 5430: .* Method 0x[89][0-9A-Fa-f], .* failed -5 \(Invalid argument\)$|ERR 4C04: osm_vendor_send failed' |
			tail -n 20)" ""
fi
cat "$(sw_debugfs)"
barrier "done"
[ "$PIB_HOST" = 3 ] && kill "$(cat /tmp/ibping.pid)"
[ "$PIB_HOST" = 1 ] && kill "$(pidof opensm)" 2>/dev/null
pib_done
