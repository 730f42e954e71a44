#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# hosts: 2
# timeout: 900
# Teardown under load. While host1 runs perftest (ib_send_bw -b and
# ib_write_bw, RC) and IPoIB traffic (a ping flood and an iperf3 TCP
# stream) to host2, host1 in turn
#   a) takes its netdev down and up again,
#   b) deletes its device (rdma link delete),
#   c) deletes the netdev under its device (ip link del),
#   d) unloads pib (modprobe -r pib),
# and brings the fabric back after each. Every process ends within a
# bound (none hangs, in the kernel or out of it), a verbs user sees the
# right async events (ibv_asyncwatch: PORT_ERR then PORT_ACTIVE for a,
# DEVICE_FATAL for b-d), the surviving peer's RC QPs end with "transport
# retry counter exceeded", nothing is left behind (no RDMA device, no ring
# memory of pib's in vmalloc, the module counts of ib_core and friends as
# before pib was loaded, pib unloads at the end) and the fabric works
# again after each step.
#
# pib runs on a macvlan of eth0 made for it (pibnet, a fixed MAC so that
# the GUID and LID come back the same), which c) can delete while the
# guest keeps eth0 for perftest's TCP connection. opensm runs on host2,
# whose device stays.
# shellcheck source=../lib.sh
. "$PIB_SRC/tests/lib.sh"

PIB_NETDEV=pibnet
PIB_SM_HOST=2
# perftest runs long enough that only the teardown ends it; the IPoIB
# streams are stopped once a step's teardown is through.
#
# iperf3's TCP stream never ends by itself within a step (-t longer than
# its bound): at the end of a test iperf3's server reads the client's
# results with a blocking read that no timeout covers, so a teardown at
# that moment left it waiting for good (CI, step d). Stopped by SIGINT or
# by the link going away, the client sends no results; the server then
# ends on --rcv-timeout (no data for 10 s). --idle-timeout ends a server
# that no client reached (one-off mode: exit 0), and host1 checks that its
# client did connect. perftest does not
# watch async events: on the removed device, a side that waits for
# completions only (ib_write_bw's client with a full send queue) polls
# rings that read as empty until its -D time is up, as on any HCA; host1
# stops its perftests with SIGINT once its device is gone, as a user
# would (they must then end at once: ends), instead of waiting out -D.
# The host that keeps its device sees its RC QPs fail once their retries
# run out, about 18 s after host1's device went (pib's timeouts double
# from 200 ms up to 4 s): perftest must still be running then, after up
# to 30 s of waiting for traffic before the teardown.
dur=60
bound=$((dur + 40))	# the longest any traffic may take to end
p=/sys/class/infiniband/pibeth0/ports/1
out=$PIB_RESULTS/teardown-load
mkdir -p "$out"
t_start=$SECONDS

pibnet_add() {
	check "macvlan pibnet on eth0" ip link add link eth0 name pibnet \
		address "02:00:00:97:00:0$PIB_HOST" type macvlan mode bridge &&
		check "pibnet up" sh -c "ip addr add 10.97.0.$PIB_HOST/24 dev pibnet &&
			ip link set pibnet up"
}

# note WHAT: a time-stamped line in the log (the guests' clocks agree).
note() { echo "$(date +%T.%3N) $*"; }

# Module reference counts of the RDMA core, which pib and its users hold.
mod_refs() {
	local m
	for m in ib_core ib_uverbs ib_umad ib_cm rdma_cm; do
		echo "$m $(cat /sys/module/$m/refcnt)"
	done
}

refs_back() { [ "$(mod_refs)" = "$refs0" ]; }

# vmalloc areas pib allocated (rings, switch tables) that are still there.
pib_vmallocs() { grep -c '\[pib\]' /proc/vmallocinfo; }

# d_tasks: the tasks in uninterruptible sleep now, as "PID:STARTTIME".
d_tasks() {
	local f st a
	for f in /proc/[0-9]*/stat; do
		# (read: no process started per process seen)
		read -r st 2>/dev/null <"$f" || continue
		# (comm, field 2, may hold spaces: fields 3 on follow its ')')
		read -r -a a <<<"${st##*) }"
		[ "${a[0]}" = D ] && echo "${f//[^0-9]/}:${a[19]}"
	done
}

# Tasks stuck in the kernel, with where they wait: those in uninterruptible
# sleep in every sample over 10 s. A task passes through D state often
# (a page read over 9p, its exit), and under load one may be caught there,
# or be gone by the time its name is read (CI: "371 : "); a hung one stays.
stuck_tasks() {
	local i t pid now left
	left=$(d_tasks)
	for i in $(seq 10); do
		[ -n "$left" ] || return 0
		sleep 1
		now=$(d_tasks)
		left=$(for t in $left; do grep -qx "$t" <<<"$now" && echo "$t"; done)
	done
	for t in $left; do
		pid=${t%%:*}
		echo "  $pid $(cat "/proc/$pid/comm"): $(tr '\n' ' ' <"/proc/$pid/stack" 2>/dev/null)"
	done
}

# ends WHAT PID: the background job PID (a `timeout` wrapper) must end
# within $bound seconds; its exit status is then in $st, and 124 means
# that `timeout` had to kill it.
ends() {
	st=none
	if ! wait_for "$bound" gone "$2"; then
		fail "$1 still running after ${bound}s"
		stuck_tasks
		return 1
	fi
	wait "$2"
	st=$?
	if [ "$st" = 124 ] || [ "$st" = 137 ]; then
		fail "$1 did not end by itself (killed after its time)"
		return 1
	fi
	ok "$1 ended (exit $st)"
}

# Traffic for step NAME: host2 serves, host1 connects. perftest talks
# over eth0, its RC QPs over pib; IPoIB traffic goes over ib0.
load_start() {
	local n=$1 t=$((bound - 5))
	if [ "$PIB_HOST" = 2 ]; then
		timeout $t stdbuf -oL ib_send_bw -d pibeth0 -b -D $dur -F -p 18515 \
			>"$out/$n.send_bw.host2" 2>&1 &
		send_bw=$!
		timeout $t stdbuf -oL ib_write_bw -d pibeth0 -D $dur -F -p 18516 \
			>"$out/$n.write_bw.host2" 2>&1 &
		write_bw=$!
		timeout $t stdbuf -oL iperf3 -s -1 -B 10.98.0.2 --rcv-timeout 10000 \
			--idle-timeout 60 >"$out/$n.iperf3.host2" 2>&1 &
		iperf=$!
		check "$n: servers listen" wait_for 60 sh -c \
			"ss -ltn | grep -q ':18515 ' && ss -ltn | grep -q ':18516 ' && ss -ltn | grep -q ':5201 '"
		barrier "listen-$n"
		return
	fi
	barrier "listen-$n"
	ibv_asyncwatch -d pibeth0 >"$out/$n.async" 2>&1 &
	async=$!
	timeout $t stdbuf -oL ib_send_bw -d pibeth0 -b -D $dur -F -p 18515 10.99.0.2 \
		>"$out/$n.send_bw.host1" 2>&1 &
	send_bw=$!
	timeout $t stdbuf -oL ib_write_bw -d pibeth0 -D $dur -F -p 18516 10.99.0.2 \
		>"$out/$n.write_bw.host1" 2>&1 &
	write_bw=$!
	timeout $t ping -f -w $dur 10.98.0.2 >"$out/$n.ping" 2>&1 &
	ping=$!
	timeout $t stdbuf -oL iperf3 -c 10.98.0.2 -t $((t + 60)) --connect-timeout 20000 \
		--snd-timeout 5000 >"$out/$n.iperf3.host1" 2>&1 &
	iperf=$!
	check "$n: both perftests run" wait_for 60 sh -c \
		"grep -q '#bytes' '$out/$n.send_bw.host1' && grep -q '#bytes' '$out/$n.write_bw.host1'"
	check "$n: iperf3 connected over IPoIB" wait_for 30 \
		grep -q "connected to 10.98.0.2" "$out/$n.iperf3.host1"
	local x0
	x0=$(cat $p/counters/port_xmit_data)
	# port_xmit_data counts 4-byte words: 1 MB more.
	check "$n: traffic flows" wait_for 30 sh -c \
		"[ \$(cat $p/counters/port_xmit_data) -gt $((x0 + 262144)) ]"
}

# perftest_stop NAME: host1 interrupts its perftests, whose device went
# (those that ended already, on an error, are gone).
perftest_stop() {
	kill -INT "$send_bw" "$write_bw" 2>/dev/null
	note "$1: perftests interrupted"
}

# ipoib_stop NAME: host1 stops its ping flood and TCP stream (ping prints
# its figures on SIGINT).
ipoib_stop() {
	kill -INT "$ping" "$iperf" 2>/dev/null	# they may have ended (ib0 gone)
	check "$1: ping -f stops" wait_for 30 gone "$ping"
	tail -n 2 "$out/$1.ping" | sed 's/^/    /'
}

# load_end NAME: every traffic process of step NAME ends.
load_end() {
	local n=$1
	ends "$n: ib_send_bw -b" $send_bw
	ends "$n: ib_write_bw" $write_bw
	ends "$n: iperf3" $iperf
	[ "$PIB_HOST" = 1 ] && ends "$n: ping -f" "$ping"
	expect_eq "$n: no task stuck in the kernel" "$(stuck_tasks)" ""
}

# The device on host1 is gone, with everything on it.
host1_all_gone() {
	local n=$1
	check "$n: ibv_asyncwatch: IBV_EVENT_DEVICE_FATAL" wait_for 30 \
		grep -q IBV_EVENT_DEVICE_FATAL "$out/$n.async"
	# The last event: the core keeps the async FD open, with nothing more
	# to read, until the process closes it; ibv_asyncwatch waits on.
	kill "$async"
	check "$n: ibv_asyncwatch ends when killed" wait_for 10 gone "$async"
	check "$n: no RDMA device left" wait_for 30 sh -c '[ -z "$(ls /sys/class/infiniband)" ]'
	check "$n: ib0 is gone" wait_for 30 sh -c '! test -e /sys/class/net/ib0'
	note "$n: all gone"
}

# host1's device comes back (on pibnet) and IPoIB with it.
host1_rejoin() {
	local n=$1
	note "$n: rdma link add"
	check "$n: rdma link add pibeth0" rdma link add pibeth0 type pib netdev pibnet
	note "$n: added"
	check "$n: port ACTIVE again under host2's opensm" wait_for 120 grep -q ACTIVE $p/state
	note "$n: ACTIVE"
	ipoib_up
	note "$n: IPoIB up"
}

# The fabric carries traffic again after step NAME.
fabric_back() {
	local n=$1
	barrier "back-$n"
	note "$n: back; peers: $(grep '^peer ' /sys/kernel/debug/pib/pibnet | tr '\n' ' ')"
	check "$n: ping over ib0 again" wait_for 60 ping -c 1 -W 2 "10.98.0.$((3 - PIB_HOST))"
	barrier "pinged-$n"
	echo "step $n took $((SECONDS - t_step)) s"
}

# The peer's RC QPs: host1's device went away under them. Its sends run
# out of retries (status 12, IBV_WC_RETRY_EXC_ERR), which takes the QP to
# the error state; ib_send_bw -b may first see a receive flushed by that
# (status 5, IBV_WC_WR_FLUSH_ERR).
peer_saw_retry_exceeded() {
	local n=$1
	expect_match "$n: host2's ib_send_bw -b: retries exceeded, QP in error" \
		"$(cat "$out/$n.send_bw.host2")" "Failed status (12|5):"
}

pib_install
check "modprobe ib_ipoib rdma_ucm" modprobe -a ib_ipoib rdma_ucm
refs0=$(mod_refs)
pibnet_add
ipoib_partitions
pib_fabric_up
ipoib_up
barrier ipoib-up
echo "fabric up in $((SECONDS - t_start)) s"

# a) The netdev goes down until the RC QPs ran out of retries (pib's
# timeouts double from 200 ms up to 4 s: about 18 s for 7 retries), then
# up again: the port goes DOWN and the SM makes it ACTIVE again; RC
# traffic ends with retry errors, IPoIB recovers.
t_step=$SECONDS
load_start a
if [ "$PIB_HOST" = 1 ]; then
	note "a: down"
	check "a: ip link set pibnet down" ip link set pibnet down
	check "a: port DOWN" wait_for 10 grep -q DOWN $p/state
	check "a: host1's ib_send_bw -b runs out of retries while the link is down" \
		wait_for 60 grep -q "Failed status" "$out/a.send_bw.host1"
	check "a: ip link set pibnet up" ip link set pibnet up
	check "a: port ACTIVE again under host2's opensm" wait_for 120 grep -q ACTIVE $p/state
	check "a: ibv_asyncwatch: IBV_EVENT_PORT_ERR, then IBV_EVENT_PORT_ACTIVE" \
		wait_for 30 sh -c "grep -A100 IBV_EVENT_PORT_ERR '$out/a.async' | grep -q IBV_EVENT_PORT_ACTIVE"
	kill "$async"
	check "a: ib0 carrier again" wait_for 60 grep -qx 1 /sys/class/net/ib0/carrier
	ipoib_stop a
fi
load_end a
# Each side's sends run out of retries (or the QP's receives are flushed
# after that): the link was down for longer than they last.
expect_match "a: host$PIB_HOST's ib_send_bw -b: retries exceeded, QP in error" \
	"$(cat "$out/a.send_bw.host$PIB_HOST")" "Failed status (12|5):"
fabric_back a

# removal STEP REMAKE CMD...: host1 removes its device with CMD under load:
# the device and its users go and no vmalloc of pib's stays; host1 runs
# REMAKE (what CMD took besides the device) and rejoins. host2's QPs ran
# out of retries.
removal() {
	local step=$1 remake=$2
	shift 2
	t_step=$SECONDS
	load_start "$step"
	if [ "$PIB_HOST" = 1 ]; then
		note "$step: $*"
		check "$step: $* under load" timeout 60 "$@"
		host1_all_gone "$step"
		perftest_stop "$step"
		ipoib_stop "$step"
	fi
	load_end "$step"
	if [ "$PIB_HOST" = 1 ]; then
		expect_eq "$step: no vmalloc of pib's left" "$(pib_vmallocs)" 0
		$remake
		host1_rejoin "$step"
	else
		peer_saw_retry_exceeded "$step"
	fi
	fabric_back "$step"
}

# b) rdma link delete under load.
removal b : rdma link delete pibeth0
# c) The netdev under the device is deleted: pib removes the device.
removal c pibnet_add ip link del pibnet

# d) pib unloads under load: every device goes, every user is cut off
# (the device can be disassociated from its users, so they do not pin the
# module), and the RDMA core's modules are held as before pib came.
t_step=$SECONDS
load_start d
if [ "$PIB_HOST" = 1 ]; then
	note "d: modprobe -r pib"
	check "d: modprobe -r pib under load" timeout 120 modprobe -r pib
	host1_all_gone d
	check "d: pib is unloaded" sh -c '! test -e /sys/module/pib'
	perftest_stop d
	ipoib_stop d
fi
load_end d
if [ "$PIB_HOST" = 1 ]; then
	wait_for 10 refs_back
	expect_eq "d: module references as before pib" "$(mod_refs | tr '\n' ' ')" "$(tr '\n' ' ' <<<"$refs0")"
	check "d: modprobe pib again" modprobe pib
	host1_rejoin d
else
	peer_saw_retry_exceeded d
fi
fabric_back d
PAIR_DEV=pibeth0
pair_run send_bw_after_reload 120 ib_send_bw -n 200 -F

# The end: no device, nothing of pib's left in vmalloc, pib unloads (a
# leaked reference would keep it), and the module counts are as before.
[ "$PIB_HOST" = 2 ] && kill "$(pidof opensm)"
check "rdma link delete pibeth0" timeout 60 rdma link delete pibeth0
check "no RDMA device left" wait_for 30 sh -c '[ -z "$(ls /sys/class/infiniband)" ]'
expect_eq "no vmalloc of pib's left" "$(pib_vmallocs)" 0
check "rmmod pib" rmmod pib
wait_for 10 refs_back
expect_eq "module references as before pib" "$(mod_refs | tr '\n' ' ')" "$(tr '\n' ' ' <<<"$refs0")"
echo "teardown-load took $((SECONDS - t_start)) s"
pib_done
