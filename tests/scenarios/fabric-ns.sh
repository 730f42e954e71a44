#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# hosts: 1
# timeout: 900
# A fabric of network namespaces on one machine, through pib-fabric as a
# user runs it (make install puts it in /usr/local/sbin):
# - `pib-fabric up 8 --ipoib` under opensm: 8 ports ACTIVE in `status`,
#   ibnetdiscover finds 8 switches and 8 CAs, ib_send_bw runs between
#   hosts 1 and 8 (its UDP GSO batches reach host 1's socket whole over
#   the veths), IPoIB pings and rping (rdma_cm) across; a fabric that
#   is up refuses a second `up`, and bad arguments get a clear error;
# - a host gone as a container goes (namespace deleted, processes killed)
#   while ib_write_bw runs: its device goes, the peer's perftest ends, the
#   others go on;
# - `down` leaves no namespace, device or opensm behind, in seconds;
# - `up 3 --exclusive`: each host sees only its own device, perftest runs
#   between them, and `down` sets the shared mode back;
# - `up 8 --sm pib-sm --ipoib`: pib's own SM brings the 8 up
#   (ibnetdiscover, perftest from end to end; IPoIB ping and rping through
#   its SA, with no partition file), and `down` stops it;
# - `up 3 --ipv6 --ipoib`: an IPv6-only LAN, whose switches hear each
#   other from link-local addresses; all ports ACTIVE, IPoIB and perftest.
# The rig fails the test on any kernel warning. One CPU: two, in a run
# beside the same test with one, cost 336 CPU seconds of the host's
# instead of 225, and took longer.
# shellcheck source=../lib.sh
. "$PIB_SRC/tests/lib.sh"

pib_install
mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
fab=/usr/local/sbin/pib-fabric
n=8

# ns_inum NAME: the inode number of network namespace NAME (ip netns),
# which names its switches' debugfs files (NETDEV@INUM).
ns_inum() { stat -L -c %i "/run/netns/$1"; }

# pib_devs: how many pib<I> devices this namespace sees.
pib_devs() {
	local d c=0
	for d in /sys/class/infiniband/pib[0-9]*; do
		[ -e "$d" ] && c=$((c + 1))
	done
	echo $c
}

# no_fabric WHEN: nothing of pib-fabric's is left.
no_fabric() {
	expect_eq "$1: no pibf namespace" "$(ip netns list | grep -c '^pibf')" 0
	expect_eq "$1: no pib device" "$(pib_devs)" 0
	expect_eq "$1: no opensm" "$(pgrep -c opensm)" 0
	expect_eq "$1: no pib-sm" "$(pgrep -c pib-sm)" 0
}

check_fails "up 0: refused" "want a number of hosts" $fab up 0
check_fails "up --sm nosuch: refused" "--sm opensm, pib-sm or none" $fab up 2 --sm nosuch
check_fails "exec without a fabric: refused" "no host '1'" $fab exec 1 true

# fab_up WHAT ARGS...: pib-fabric up ARGS must work; $up_s is how long
# after the SM started every port was ACTIVE (as pib-fabric says).
fab_up() {
	local what=$1 out
	shift
	if out=$(timeout 300 $fab up "$@" 2>&1); then
		ok "$what"
	else
		fail "$what: $out"
	fi
	up_s=$(sed -n 's/.*every port ACTIVE \([0-9.]*\) s after.*/\1/p' <<<"$out")
}

t=$SECONDS
fab_up "pib-fabric up $n --ipoib" $n --ipoib
opensm_s=$up_s
elapsed "$t" "up $n"
status=$($fab status)
echo "$status"
expect_eq "status: $n ports ACTIVE" "$(grep -c ' ACTIVE ' <<<"$status")" $n
check_fails "a second up: refused" "up already" $fab up 2

topo=$($fab exec 1 timeout 120 ibnetdiscover 2>&1)
expect_eq "ibnetdiscover: $n switches" "$(grep -c '^Switch' <<<"$topo")" $n
expect_eq "ibnetdiscover: $n CAs" "$(grep -c '^Ca' <<<"$topo")" $n

# pair_ns NAME SECONDS SERVER CLIENT CMD...: perftest CMD as a server in
# host SERVER and as its client in host CLIENT, over the LAN's addresses
# (or $PAIR_NET.I's, for IPoIB's).
# With -F: on a busy guest perftest's CPU clock fit is poor, and without
# it perftest exits 1 after the traffic ("Can't produce a report").
pair_ns() {
	local name=$1 t=$2 s=$3 c=$4 pid cpid st=0 out=$PIB_RESULTS/$1 i
	shift 4
	timeout "$t" $fab exec "$s" "$@" -F -d "pib$s" >"$out.server" 2>&1 &
	pid=$!
	sleep 3
	timeout "$t" $fab exec "$c" "$@" -F -d "pib$c" "${PAIR_NET:-10.250.0}.$s" >"$out.client" 2>&1 &
	cpid=$!
	# Still at it after half its time (a run takes seconds): what the
	# QPs and CQs of both ends hold, while they exist.
	if ! wait_for $((t / 2)) sh -c "! kill -0 $cpid 2>/dev/null"; then
		echo "# $name: still running after $((t / 2)) s"
		for i in "$s" "$c"; do
			$fab exec "$i" rdma res show qp -dd | grep "pib$i/.* RC"
			$fab exec "$i" rdma res show cq -dd | grep "pib$i .*comm \[ib_send"
			$fab exec "$i" rdma statistic show link "pib$i/1"
		done
	fi
	wait "$cpid" || st=$?
	wait "$pid" || st=$((st ? st : $?))
	if [ $st = 0 ]; then
		ok "$name"
	else
		fail "$name: exit $st"
		tail -n 10 "$out.server" "$out.client" | sed 's/^/    /'
	fi
}

pair_ns "ib_send_bw between hosts 1 and $n" 180 1 $n ib_send_bw -n 100 -s 65536
# The client's messages (16 packets of the veths' 4096-byte IB MTU) left
# in UDP GSO batches, which crossed the veths whole: host 1's socket took
# each as one skb.
expect_match "host 1 received batches whole over the veth" \
	"$(cat "/sys/kernel/debug/pib/lan1@$(ns_inum pibf1)")" '^batches_rx [1-9]'
check "IPoIB: host 1 pings host $n" $fab exec 1 ping -c 3 -W 5 10.251.0.$n
$fab exec $n timeout 120 rping -s -a 10.251.0.$n -C 3 >"$PIB_RESULTS/rping.server" 2>&1 &
pid=$!
sleep 3
check "rping from host 2 to host $n" $fab exec 2 timeout 120 rping -c -a 10.251.0.$n -C 3 -v
wait "$pid"
expect_eq "rping server exit status" $? 0

# Host 3 goes as a container does, while it sends to host 1: its
# namespace is deleted and its processes killed (the namespace lives on
# until the last of them is gone); then its netdev and device go.
timeout 200 $fab exec 1 ib_write_bw -F -d pib1 -D 60 >"$PIB_RESULTS/gone.server" 2>&1 &
wsrv=$!
sleep 3
timeout 200 $fab exec 3 ib_write_bw -F -d pib3 -D 60 10.250.0.1 >"$PIB_RESULTS/gone.client" 2>&1 &
wcli=$!
sleep 10
gone_pids=$(ip netns pids pibf3)
check "ip netns delete pibf3 under traffic" ip netns delete pibf3
# shellcheck disable=SC2086 # (a list of pids)
check "its processes killed" kill -KILL $gone_pids
wait "$wcli" 2>/dev/null
check "its device goes" wait_for 60 sh -c '! test -e /sys/class/infiniband/pib3'
check "host 1's perftest ends" wait_for 150 sh -c "! kill -0 $wsrv 2>/dev/null"
pair_ns "then ib_send_bw between hosts 2 and 4" 180 2 4 ib_send_bw -n 100

# Down with IPoIB on every host: each port goes DOWN before its device, so
# that IPoIB drops its multicast groups without asking the SM, which
# pib-fabric stops; asked, a dead SM cost each device's removal the SA's
# timeouts (14 s, 2 minutes for the 8).
t=$SECONDS
check "pib-fabric down" $fab down
elapsed "$t" "down $n"
check "down: $n hosts with IPoIB in less than 60 s" test $((SECONDS - t)) -lt 60
no_fabric "down"
check_fails "status after down" "no fabric is up" $fab status

check "pib-fabric up 3 --exclusive" timeout 300 $fab up 3 --exclusive
expect_match "exclusive mode on" "$(rdma system show)" "netns exclusive"
expect_eq "host 2 sees only pib2" "$($fab exec 2 ls /sys/class/infiniband)" pib2
expect_eq "the first namespace sees none of them" "$(pib_devs)" 0
pair_ns "exclusive: ib_send_bw between hosts 1 and 3" 180 1 3 ib_send_bw -n 100
check "pib-fabric down (exclusive)" $fab down
no_fabric "down (exclusive)"
expect_match "shared mode back" "$(rdma system show)" "netns shared"

# pib-sm instead of opensm: 8 ports ACTIVE, the whole fabric discovered,
# perftest from one end to the other; IPoIB and rdma_cm through its SA.
t=$SECONDS
fab_up "pib-fabric up $n --sm pib-sm --ipoib" $n --sm pib-sm --ipoib
elapsed "$t" "up $n under pib-sm"
echo "# bring-up of $n namespaces, SM start to every port ACTIVE: opensm $opensm_s s, pib-sm $up_s s"
check "pib-fabric says how long the SMs took" test -n "$opensm_s" -a -n "$up_s"
expect_eq "pib-sm: $n ports ACTIVE" "$($fab status | grep -c ' ACTIVE ')" $n
topo=$($fab exec 1 timeout 120 ibnetdiscover 2>&1)
expect_eq "pib-sm: ibnetdiscover: $n switches" "$(grep -c '^Switch' <<<"$topo")" $n
expect_eq "pib-sm: ibnetdiscover: $n CAs" "$(grep -c '^Ca' <<<"$topo")" $n
pair_ns "pib-sm: ib_send_bw between hosts 1 and $n" 180 1 $n ib_send_bw -n 100
check "pib-sm: IPoIB: host 2 pings host $n" $fab exec 2 ping -c 3 -W 5 10.251.0.$n
$fab exec $n timeout 120 rping -s -a 10.251.0.$n -C 3 >"$PIB_RESULTS/rping-pib-sm.server" 2>&1 &
pid=$!
sleep 3
check "pib-sm: rping from host 1 to host $n" $fab exec 1 timeout 120 rping -c -a 10.251.0.$n -C 3 -v
wait "$pid"
expect_eq "pib-sm: rping server exit status" $? 0
check "pib-fabric down (pib-sm)" $fab down
no_fabric "down (pib-sm)"

check "pib-fabric up 3 --ipv6 --ipoib" timeout 300 $fab up 3 --ipv6 --ipoib
# (a switch's debugfs file outside the initial namespace: NETDEV@INUM)
st=$(cat "/sys/kernel/debug/pib/lan1@$(ns_inum pibf1)")
echo "$st"
expect_eq "host 1 hears 2 peers over IPv6" \
	"$(grep -Ec '^peer [0-9a-f]+ fe80::[0-9a-f:]+ up$' <<<"$st")" 2
expect_no_match "no IPv4 on the LAN" "$st" '^peer.* 10\.250\.'
expect_eq "status: 3 ports ACTIVE" "$($fab status | grep -c ' ACTIVE ')" 3
check "IPoIB: host 1 pings host 3" $fab exec 1 ping -c 3 -W 5 10.251.0.3
PAIR_NET=10.251.0 pair_ns "IPv6 LAN: ib_send_bw between hosts 1 and 3" 180 1 3 \
	ib_send_bw -n 100
check "pib-fabric down (IPv6)" $fab down
no_fabric "down (IPv6)"

# Two containers whose netdevs have the same name (eth9 in each): each
# switch has its own debugfs file, NETDEV@INUM, and the kernel reports no
# clash in pib's directory.
check "two namespaces, eth9 in each" sh -c 'ip netns add pibdA && ip netns add pibdB &&
	ip link add eth9 netns pibdA type veth peer name eth9 netns pibdB &&
	ip -n pibdA link set eth9 up && ip -n pibdB link set eth9 up'
check "pib on pibdA's eth9" ip netns exec pibdA rdma link add pibdA0 type pib netdev eth9
check "pib on pibdB's eth9" ip netns exec pibdB rdma link add pibdB0 type pib netdev eth9
for d in pibdA pibdB; do
	check "$d's switch: /sys/kernel/debug/pib/eth9@inum" \
		grep -q '^guid ' "/sys/kernel/debug/pib/eth9@$(ns_inum $d)"
done
# (IPoIB's own debugfs clashes over the namespaces' ib0: not pib's)
expect_no_match "no clash in pib's debugfs directory" "$(dmesg)" \
	"in directory 'pib' already present"
check "the two devices go" sh -c 'ip netns exec pibdA rdma link delete pibdA0 &&
	ip netns exec pibdB rdma link delete pibdB0'
check "so do their switches' files" sh -c '! ls /sys/kernel/debug/pib/ | grep -q "^eth9@"'
ip netns delete pibdA
ip netns delete pibdB
pib_done
