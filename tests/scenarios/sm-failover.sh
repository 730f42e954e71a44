#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# hosts: 3
# timeout: 900
# Two SMs on one subnet, one master by SMInfo (IBA 14.4.1), both ways:
# opensm of priority 10 on host1 is master and pib-sm of priority 1 on
# host2 stands by (sminfo from host3 says so of each); opensm is killed,
# and pib-sm takes the subnet over: every port keeps its LID, its SM LID
# becomes host2's, pib-sm's SA answers, and IPoIB's clients, asked to
# register again (ClientReregister), join pib-sm's broadcast group: IPoIB
# pings across. Then pib-sm of priority 10 is master and opensm of
# priority 1 stands by; pib-sm is killed, and opensm takes over: IPoIB
# pings across again. Then two pib-sm: priority 10 on host2 is master,
# priority 1 on host3 stands by, and takes over when host2's is killed.
# Last, handovers (IBA 14.4.1): opensm of priority 15 comes up, stands by
# host3's master pib-sm and tells it so (Trap 144), and pib-sm hands it
# the subnet; opensm is killed and host3's pib-sm takes the subnet back;
# pib-sm of priority 10 comes up on host2, stands by and asks, host3's
# hands the subnet over, and host2's acknowledges.
# shellcheck source=../lib.sh
. "$PIB_SRC/tests/lib.sh"

p=/sys/class/infiniband/pibeth0/ports/1
sm=/usr/local/sbin/pib-sm
smlog=$PIB_RESULTS/pib-sm.log
# opensm polls a master every second, and takes over after 3 misses.
conf=$PIB_RESULTS/opensm.conf

# sm_state LID: the SMState that the SM at LID says in its SMInfo.
sm_state() {
	timeout 30 sminfo -C pibeth0 -P 1 "$1" 2>&1 | sed -n 's/.* state \([0-9]\) .*/\1/p'
}

# sm_lid_is LID: this port's SM LID is LID.
sm_lid_is() { [ $(($(cat "$p/sm_lid"))) = "$1" ]; }

# bcast_members_are N: the SA's IPoIB broadcast group (P_Key 0xffff) has
# N member ports.
bcast_members_are() {
	[ "$(timeout 30 saquery -C pibeth0 -P 1 -m 2>/dev/null |
		grep -c 'MGID\.*ff12:401b:ffff::ffff:ffff$')" = "$1" ]
}

# sm_start WHAT PRIORITY LOG STATE: pib-sm of PRIORITY here (its pid in
# /tmp/pib-sm.pid, its log in LOG) comes to STATE (MASTER or STANDBY).
sm_start() {
	$sm -d pibeth0 -P "$2" -s 1 -v 2>"$3" &
	echo $! >/tmp/pib-sm.pid
	check "$1" wait_for 60 grep -q -- "-> $4" "$3"
}

# ping_next WHAT: IPoIB reaches the next host.
ping_next() {
	check "$1" wait_for 60 ping -c 1 -W 2 "10.98.0.$((PIB_HOST % PIB_HOSTS + 1))"
}

pib_install
check "pib-sm installed" test -x $sm
ipoib_partitions
PIB_OPENSM_ARGS="$PIB_OPENSM_ARGS -p 10"
pib_fabric_up
lid=$(lid_of "$PIB_HOST")
ipoib_up
barrier ipoib-up
ping_next "IPoIB under opensm"

# 1. opensm master, pib-sm standby.
if [ "$PIB_HOST" = 2 ]; then
	sm_start "pib-sm stands by" 1 "$smlog" STANDBY
fi
barrier standby
if [ "$PIB_HOST" = 3 ]; then
	expect_eq "sminfo: opensm (host1) is MASTER" "$(sm_state "$(lid_of 1)")" 3
	expect_eq "sminfo: pib-sm (host2) is STANDBY" "$(sm_state "$(lid_of 2)")" 2
fi
expect_eq "SM LID is host1's" $(($(cat $p/sm_lid))) "$(lid_of 1)"
barrier checked-standby
[ "$PIB_HOST" = 1 ] && check "opensm killed" sh -c 'kill -KILL $(pidof opensm)'
barrier opensm-killed
if [ "$PIB_HOST" = 2 ]; then
	check "pib-sm takes over" wait_for 60 grep -q -- '-> MASTER' "$smlog"
fi
check "SM LID becomes host2's" wait_for 60 sm_lid_is "$(lid_of 2)"
check "port still ACTIVE" grep -q ACTIVE $p/state
expect_eq "LID kept" $(($(cat $p/lid))) "$lid"
if [ "$PIB_HOST" = 3 ]; then
	expect_eq "sminfo: pib-sm (host2) is MASTER" "$(sm_state "$(lid_of 2)")" 3
	out=$(timeout 60 saquery -C pibeth0 -P 1 NR 2>&1)
	expect_eq "pib-sm's SA: 6 NodeRecords" "$(grep -c '^NodeRecord dump' <<<"$out")" 6
	check "client reregistration: all 3 ports join pib-sm's broadcast group" \
		wait_for 60 bcast_members_are 3
fi
barrier taken-over
ping_next "IPoIB under pib-sm after the takeover"
barrier pinged-pib-sm
if [ "$PIB_HOST" = 2 ]; then
	check "pib-sm stops" stops "$(cat /tmp/pib-sm.pid)"
	cat "$smlog"
fi
barrier stopped

# 2. pib-sm master, opensm standby.
if [ "$PIB_HOST" = 2 ]; then
	sm_start "pib-sm is master" 10 "$smlog" MASTER
fi
barrier master
if [ "$PIB_HOST" = 1 ]; then
	printf 'sminfo_polling_timeout 1000\npolling_retry_number 3\n' >"$conf"
	opensm -B -p 1 -P "$PIB_RESULTS/partitions.conf" -F "$conf" -f "$PIB_RESULTS/opensm2.log" >/dev/null 2>&1
	check "opensm stands by" wait_for 60 grep -q 'Entering STANDBY state' \
		"$PIB_RESULTS/opensm2.log"
fi
barrier opensm-standby
if [ "$PIB_HOST" = 3 ]; then
	expect_eq "sminfo: pib-sm (host2) is MASTER" "$(sm_state "$(lid_of 2)")" 3
	expect_eq "sminfo: opensm (host1) is STANDBY" "$(sm_state "$(lid_of 1)")" 2
fi
barrier checked-master
if [ "$PIB_HOST" = 2 ]; then
	check "pib-sm killed" kill -KILL "$(cat /tmp/pib-sm.pid)"
	cat "$smlog"
fi
barrier pib-sm-killed
check "opensm takes over: SM LID becomes host1's" wait_for 90 sm_lid_is "$(lid_of 1)"
check "port still ACTIVE" grep -q ACTIVE $p/state
expect_eq "LID kept" $(($(cat $p/lid))) "$lid"
ping_next "IPoIB under opensm after its takeover"
barrier opensm-back

# 3. Two pib-sm: host2's of priority 10 master, host3's of priority 1
# standby; host2's is killed, and host3's takes over.
if [ "$PIB_HOST" = 1 ]; then
	kill "$(pidof opensm)" 2>/dev/null
	check "opensm stops" wait_for 20 sh -c '! pidof opensm'
fi
barrier opensm-gone
if [ "$PIB_HOST" = 2 ]; then
	sm_start "pib-sm (host2, -P 10) is master" 10 "$PIB_RESULTS/pib-sm-a.log" MASTER
fi
barrier two-master
if [ "$PIB_HOST" = 3 ]; then
	sm_start "pib-sm (host3, -P 1) stands by" 1 "$PIB_RESULTS/pib-sm-b.log" STANDBY
fi
barrier two-standby
if [ "$PIB_HOST" = 1 ]; then
	expect_eq "sminfo: host2's pib-sm is MASTER" "$(sm_state "$(lid_of 2)")" 3
	expect_eq "sminfo: host3's pib-sm is STANDBY" "$(sm_state "$(lid_of 3)")" 2
fi
barrier two-checked
[ "$PIB_HOST" = 2 ] && check "host2's pib-sm killed" kill -KILL "$(cat /tmp/pib-sm.pid)"
barrier two-killed
check "host3's pib-sm takes over: SM LID becomes host3's" wait_for 90 sm_lid_is "$(lid_of 3)"
expect_eq "LID kept" $(($(cat $p/lid))) "$lid"
ping_next "IPoIB under host3's pib-sm after its takeover"
barrier took-over

# 4. opensm of priority 15 comes up: host3's pib-sm hands the subnet over.
if [ "$PIB_HOST" = 1 ]; then
	opensm -B -p 15 -P "$PIB_RESULTS/partitions.conf" -F "$conf" -f "$PIB_RESULTS/opensm3.log" >/dev/null 2>&1
	check "opensm (-p 15) stands by, then takes the subnet it is handed" \
		wait_for 90 grep -q 'Entering MASTER state' "$PIB_RESULTS/opensm3.log"
	grep -E 'Entering|HANDOVER' "$PIB_RESULTS/opensm3.log"
fi
if [ "$PIB_HOST" = 3 ]; then
	check "host3's pib-sm hands the subnet over to opensm" \
		wait_for 90 grep -q 'handed the subnet over to' "$PIB_RESULTS/pib-sm-b.log"
	check "host3's pib-sm stands by" \
		grep -q 'MASTER -> STANDBY: it handed the subnet over' "$PIB_RESULTS/pib-sm-b.log"
fi
check "SM LID becomes host1's" wait_for 90 sm_lid_is "$(lid_of 1)"
ping_next "IPoIB under opensm after the handover"
barrier handed-to-opensm

# 5. opensm goes, host3's pib-sm takes the subnet back; pib-sm of priority
# 10 comes up on host2 and is handed the subnet.
if [ "$PIB_HOST" = 1 ]; then
	check "opensm killed" sh -c 'kill -KILL $(pidof opensm)'
	check "opensm stops" wait_for 20 sh -c '! pidof opensm'
fi
check "host3's pib-sm takes the subnet back: SM LID host3's" wait_for 90 sm_lid_is "$(lid_of 3)"
barrier back-to-host3
if [ "$PIB_HOST" = 2 ]; then
	c=$PIB_RESULTS/pib-sm-c.log
	sm_start "pib-sm (host2, -P 10) stands by host3's master" 10 "$c" STANDBY
	check "host2's pib-sm is handed the subnet" wait_for 60 grep -q -- 'STANDBY -> MASTER: the master handed the subnet over' "$c"
	check "host2's pib-sm acknowledges the handover" \
		wait_for 60 grep -q 'acknowledged the handover from' "$c"
fi
if [ "$PIB_HOST" = 3 ]; then
	check "host3's pib-sm gets the acknowledgment" \
		wait_for 90 grep -q 'acknowledged the handover$' "$PIB_RESULTS/pib-sm-b.log"
fi
check "SM LID becomes host2's" wait_for 90 sm_lid_is "$(lid_of 2)"
barrier handed-to-host2
if [ "$PIB_HOST" = 1 ]; then
	expect_eq "sminfo: host2's pib-sm is MASTER" "$(sm_state "$(lid_of 2)")" 3
	expect_eq "sminfo: host3's pib-sm is STANDBY" "$(sm_state "$(lid_of 3)")" 2
fi
ping_next "IPoIB under host2's pib-sm after the handover"
barrier "done"
if [ "$PIB_HOST" = 2 ] || [ "$PIB_HOST" = 3 ]; then
	check "the pib-sm stops" kill "$(cat /tmp/pib-sm.pid)"
fi
[ "$PIB_HOST" = 3 ] && cat "$PIB_RESULTS/pib-sm-b.log"
pib_done
