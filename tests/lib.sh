# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Helpers for scenario scripts (sourced inside a test guest). Each check
# prints "ok - what [T s]" or "FAIL - what [T s]" with the evidence, T the
# seconds since the scenario started (where its time went); a scenario
# exits non-zero if any check failed (pib_done).

pib_failures=0
# Whether the host is a network namespace of a guest that is the whole LAN
# (rig/lan --netns), and its RDMA device's name (pib_fabric_up adds it):
# pibeth0, or pibh<i> in a netns LAN, where device names are the kernel's,
# not a namespace's. There every host sees every host's RDMA device (the
# kernel's shared mode): the tools that take the first device they find
# get -C/-d $PIB_DEV.
PIB_NETNS=${PIB_NETNS:-0}
# dev_of HOST: host HOST's device.
dev_of() { if [ "$PIB_NETNS" = 1 ]; then echo "pibh$1"; else echo pibeth0; fi; }
PIB_DEV=$(dev_of "$PIB_HOST")

ok() { echo "ok - $* [$SECONDS s]"; }
fail() { echo "FAIL - $* [$SECONDS s]"; pib_failures=$((pib_failures + 1)); }

# check WHAT CMD...: CMD must succeed.
check() {
	local what=$1 out
	shift
	if out=$("$@" 2>&1); then
		ok "$what"
	else
		fail "$what: '$*' failed: $out"
		return 1
	fi
}

# check_fails WHAT ERRTEXT CMD...: CMD must fail and say ERRTEXT.
check_fails() {
	local what=$1 want=$2 out
	shift 2
	if out=$("$@" 2>&1); then
		fail "$what: '$*' succeeded: $out"
	elif ! grep -qi -- "$want" <<<"$out"; then
		fail "$what: '$*' failed without '$want': $out"
	else
		ok "$what"
	fi
}

# expect_eq WHAT GOT WANT
expect_eq() {
	if [ "$2" = "$3" ]; then ok "$1"; else fail "$1: got '$2', want '$3'"; fi
}

# running PID: PID is there and not a zombie; gone PID: it is not.
running() {
	local s
	s=$(ps -o stat= -p "$1") && [ "${s#Z}" = "$s" ]
}
gone() { ! running "$1"; }

# stops PID [SECONDS]: PID ends within SECONDS (20) of a SIGTERM.
stops() { kill "$1" && wait_for "${2:-20}" gone "$1"; }

# tracefs: where the kernel's tracing files are, mounted if need be.
tracefs() {
	local t=/sys/kernel/tracing
	[ -e $t/trace ] || mount -t tracefs nodev $t
	echo $t
}

# expect_match WHAT TEXT REGEX (extended regex, multi-line text)
expect_match() {
	if grep -Eq -- "$3" <<<"$2"; then
		ok "$1"
	else
		fail "$1: no /$3/ in:"
		sed 's/^/    /' <<<"$2"
	fi
}

# sw_debugfs [NETDEV]: the debugfs file of the switch on NETDEV (eth0) of
# this host. pib names a switch outside the first network namespace
# NETDEV@INODE, INODE its namespace's.
pib_netns_inode=""
[ "$PIB_NETNS" = 0 ] || pib_netns_inode=@$(stat -L -c %i /proc/self/ns/net)
sw_debugfs() { echo "/sys/kernel/debug/pib/${1:-eth0}$pib_netns_inode"; }

# lan_diag [NETDEV]: what to see when a peer is not heard: the switch's
# debugfs (peers, refusals, drops), the netdev's addresses, counters and
# queue (a stuck transmit queue shows a backlog), the kernel's UDP
# counters, and whether the other hosts answer a ping.
lan_diag() {
	local n=${1:-eth0} i
	echo "# lan_diag $n:"
	cat "$(sw_debugfs "$n")" 2>&1
	ip -s addr show "$n" 2>&1
	tc -s qdisc show dev "$n" 2>&1
	ethtool -S "$n" 2>/dev/null | grep -E 'tx_queue_0|rx_queue_0'
	grep '^Udp:' /proc/net/snmp
	for i in $(seq "$PIB_HOSTS"); do
		[ "$i" = "$PIB_HOST" ] && continue
		ping -c 1 -W 2 "10.99.0.$i" >/dev/null 2>&1 &&
			echo "ping host$i: ok" || echo "ping host$i: no answer"
	done
}

# tf SECONDS: a time limit for a tool, PIB_TIMEOUT_FACTOR times longer on
# slow kernels (make test-debug).
tf() { echo $(($1 * ${PIB_TIMEOUT_FACTOR:-1})); }

# expect_no_match WHAT TEXT REGEX: no line of TEXT matches (extended regex)
expect_no_match() {
	if grep -Eq -- "$3" <<<"$2"; then
		fail "$1: /$3/ in:"
		grep -E -- "$3" <<<"$2" | head -n 20 | sed 's/^/    /'
	else
		ok "$1"
	fi
}

# nap SECONDS: sleep without starting a process. Under emulation a fork
# and exec costs 35-85 ms of CPU (a loop of `sleep 0.2` took 285 ms a
# turn): a waiting loop would spend half a CPU on its sleeps and checks.
# read times out on a FIFO that no one writes.
pib_nap_fifo=/tmp/pib-nap.$$
if mkfifo "$pib_nap_fifo" 2>/dev/null && exec {pib_nap_fd}<>"$pib_nap_fifo"; then
	rm -f "$pib_nap_fifo"
	nap() { read -r -t "$1" -u "$pib_nap_fd" _ || :; }
else
	nap() { sleep "$1"; }
fi

# wait_for SECONDS CMD...: retry CMD until it succeeds, for SECONDS times
# PIB_TIMEOUT_FACTOR (slow kernels get longer): every 0.2 s for 2 s, then
# every 0.5 s (most checks start a process or two, and waits can last
# minutes).
wait_for() {
	local deadline=$((SECONDS + $(tf "$1"))) turn=0
	shift
	until "$@" >/dev/null 2>&1; do
		[ $SECONDS -ge $deadline ] && return 1
		turn=$((turn + 1))
		if [ $turn -le 10 ]; then nap 0.2; else nap 0.5; fi
	done
}

# pib_install_files MAKE-VARIABLE...: make install and the module index
# from the host, once per boot (pib_install holds the lock).
pib_install_files() {
	[ -e /run/pib-installed ] && return 0
	make -s -C "$PIB_SRC" install BUILD="$PIB_BUILD" DEPMOD=true "$@" >/dev/null ||
		{ fail "make install"; return 1; }
	cp "$PIB_BUILD/rig/modindex-$PIB_KVER"/modules.* "/lib/modules/$PIB_KVER/" ||
		{ fail "module index from the host"; return 1; }
	touch /run/pib-installed
}

# pib_install: install pib the way a user does (make install), and load the
# RDMA modules that udev would load on a real host. depmod is slow under
# emulation, so the module index comes precomputed from the host (rig/lan).
# So is what the Makefile works out with $(shell ...) and the build knows
# (each process costs a fifth of a second or more here, and they cost
# every guest's make seconds): the kernel's build directory and version
# (the guest runs the kernel it installs for), the installed rdma-core's
# version (from libibverbs' file name, as provider/rdma-core.sh tells it)
# when the build has its headers, libibverbs' directory, and the private
# ABI of the one provider built.
pib_install() {
	local known=(KVER="$PIB_KVER") v so
	[ -d "/lib/modules/$PIB_KVER/build" ] && known+=(KDIR="/lib/modules/$PIB_KVER/build")
	v=(/usr/lib/*/libibverbs.so.1.*.*)
	[ ${#v[@]} = 1 ] && [[ ${v[0]} =~ libibverbs\.so\.1\.[0-9]+\.([0-9]+\.[0-9]+)$ ]] &&
		[ -d "$PIB_BUILD/rdma-core/${BASH_REMATCH[1]}" ] &&
		known+=(RDMA_CORE_VERSION="${BASH_REMATCH[1]}" LIBDIR="${v[0]%/*}")
	v=("$PIB_BUILD"/provider/libpib-rdmav*.so)
	so=${v[0]##*rdmav}
	[ ${#v[@]} = 1 ] && [ -f "${v[0]}" ] && known+=(PABI="${so%.so}")
	# (once per boot: the platform scenario runs several in one, and the
	# hosts of a netns LAN share it)
	{ flock 9 && pib_install_files "${known[@]}"; } 9>/run/pib-install.lock || pib_done
	modprobe -a ib_uverbs ib_umad || { fail "modprobe ib_uverbs ib_umad"; pib_done; }
}

# stat_of DEV NAME: DEV's counter NAME in `rdma statistic` (nothing if
# DEV has no such counter).
stat_of() {
	rdma statistic show link "$1/1" | tr ' ' '\n' | awk -v k="$2" '$0 == k { getline v; print v }'
}

# pib_lo_pair_up: pibloa and piblob on lo, opensm (log in
# $PIB_RESULTS/opensm.log) on pibloa, both ports ACTIVE.
pib_lo_pair_up() {
	local d
	check "rdma link add pibloa" rdma link add pibloa type pib netdev lo
	check "rdma link add piblob" rdma link add piblob type pib netdev lo
	opensm -B -d 2 -t 1000 -g "$(ibstat -p pibloa)" -f "$PIB_RESULTS/opensm.log" \
		>/dev/null 2>&1
	for d in pibloa piblob; do
		check "$d ACTIVE" wait_for 300 grep -q ACTIVE "/sys/class/infiniband/$d/ports/1/state"
	done
}

# pib_fabric_up: every host adds $PIB_DEV (pibeth0) on $PIB_NETDEV (default
# eth0) and hears all its peers, host $PIB_SM_HOST (default 1) starts
# opensm on its port (log in $PIB_RESULTS/opensm.log), every port becomes
# ACTIVE, and each host's LID is in $PIB_RESULTS/lid.N for the others.
# Emulated guests are slow: MADs get 1 s instead of 200 ms; the log is
# flushed after each message so that it can be checked while opensm runs.
pib_fabric_up() {
	local p=/sys/class/infiniband/$PIB_DEV/ports/1 lid ndev=${PIB_NETDEV:-eth0}
	local sm=${PIB_SM_HOST:-1}
	check "rdma link add $PIB_DEV" rdma link add "$PIB_DEV" type pib netdev "$ndev"
	# The hosts boot at their own pace: each hears the others once all of
	# them have a device.
	barrier linked
	check "all peers heard" wait_for 60 sh -c \
		"[ \$(grep -c ' up$' $(sw_debugfs "$ndev")) = $((PIB_HOSTS - 1)) ]" ||
		lan_diag "$ndev"
	barrier ready
	if [ "$PIB_HOST" = "$sm" ]; then
		# shellcheck disable=SC2086 # (opensm's extra arguments, split)
		opensm -B -d 2 -t 1000 -g "$(ibstat -p "$PIB_DEV")" ${PIB_OPENSM_ARGS:-} \
			-f "$PIB_RESULTS/opensm.log" >/dev/null 2>&1
	fi
	if ! check "port ACTIVE under opensm" wait_for 300 grep -q ACTIVE "$p/state"; then
		[ "$PIB_HOST" = "$sm" ] && grep "ERR " "$PIB_RESULTS/opensm.log" | tail -n 20
		cat "$(sw_debugfs "$ndev")"
	fi
	lid=$(cat "$p/lid")
	check "a LID ($lid)" test "$lid" != 0x0
	echo $((lid)) > "$PIB_RESULTS/lid.$PIB_HOST"
	barrier active
}

# ipoib_partitions: have pib_fabric_up's opensm give the IPoIB broadcast
# group MTU 1024. On a 1500-byte LAN pib's IB MTU is 1024, below the 2048
# of opensm's default group, which ports that cannot carry it may not join.
ipoib_partitions() {
	local part=$PIB_RESULTS/partitions.conf
	echo 'Default=0x7fff, ipoib, mtu=3, defmember=full : ALL, ALL_SWITCHES=full, SELF=full;' >"$part"
	PIB_OPENSM_ARGS="-P $part"
}

# ipoib_up [MODULE...]: load ib_ipoib (and MODULEs), give ib0 the address
# 10.98.0.<host>/24 and wait until it has joined the broadcast group.
ipoib_up() {
	# (ib_ipoib makes every device's netdev in the guest's first network
	# namespace: no host of a netns LAN has it)
	[ "$PIB_NETNS" = 0 ] || { fail "ipoib_up: a scenario with IPoIB needs guests"; pib_done; }
	check "modprobe ib_ipoib $*" modprobe -a ib_ipoib "$@"
	check "ib0 appears" wait_for 10 test -e /sys/class/net/ib0
	check "ib0 address" ip addr add "10.98.0.$PIB_HOST/24" dev ib0
	check "ib0 up" ip link set ib0 up
	check "ib0 carrier (broadcast group joined)" wait_for 60 grep -qx 1 /sys/class/net/ib0/carrier
}

# lid_of N: host N's LID (decimal), once pib_fabric_up is through.
lid_of() { cat "$PIB_RESULTS/lid.$1"; }

# port_attr DEV NAME: one port attribute from sysfs (state, phys_state, ...).
port_attr() { cat "/sys/class/infiniband/$1/ports/1/$2"; }

# ib_devs: RDMA devices that exist now, one per line.
ib_devs() { ls /sys/class/infiniband 2>/dev/null; }

# barrier NAME [SECONDS]: wait until every host of the LAN reached NAME,
# at most SECONDS (300).
barrier() {
	local i
	touch "$PIB_RESULTS/barrier.$1.$PIB_HOST"
	for i in $(seq "$PIB_HOSTS"); do
		wait_for "${2:-300}" test -e "$PIB_RESULTS/barrier.$1.$i" ||
			{ fail "barrier $1: host$i never came"; pib_done; }
	done
}

pib_done() {
	if [ "$pib_failures" = 0 ]; then
		echo "PASS: $(basename "$PIB_SCENARIO")"
		exit 0
	fi
	echo "FAILED: $pib_failures check(s) in $(basename "$PIB_SCENARIO")"
	exit 1
}

# pair_run NAME SECONDS CMD...: run CMD as a server and as its client, both
# must exit 0. Across hosts, host1 serves on $PAIR_DEV and host
# $PAIR_CLIENT (default 2) connects to host1's address $PAIR_ADDR (default
# 10.99.0.1); any other host waits. On one host, the server uses $PAIR_DEV
# and the client $PAIR_DEV2, connecting to localhost. The outputs are in
# $PIB_RESULTS/pair/NAME.{server,client}.host<i>; $pair_out holds this
# host's.
pair_run() {
	local name=$1 t=$2 dir=$PIB_RESULTS/pair pid st=0 srv cli
	shift 2
	mkdir -p "$dir"
	srv=$dir/$name.server.host$PIB_HOST
	cli=$dir/$name.client.host$PIB_HOST
	if [ "$PIB_HOSTS" != 1 ] && [ "$PIB_HOST" != 1 ] &&
	   [ "$PIB_HOST" != "${PAIR_CLIENT:-2}" ]; then
		barrier "listen-$name"
		barrier "done-$name"
		return 0
	fi
	if [ "$PIB_HOSTS" = 1 ]; then
		timeout "$t" "$@" -d "$PAIR_DEV" >"$srv" 2>&1 &
		pid=$!
		sleep 2
		timeout "$t" "$@" -d "$PAIR_DEV2" localhost >"$cli" 2>&1 || st=$?
		wait "$pid" || st=$((st ? st : $?))
		pair_out=$(cat "$srv" "$cli")
	elif [ "$PIB_HOST" = 1 ]; then
		timeout "$t" "$@" -d "$PAIR_DEV" >"$srv" 2>&1 &
		pid=$!
		barrier "listen-$name"
		wait "$pid" || st=$?
		pair_out=$(cat "$srv")
	else
		barrier "listen-$name"
		sleep 2
		timeout "$t" "$@" -d "$PAIR_DEV" "${PAIR_ADDR:-10.99.0.1}" >"$cli" 2>&1 || st=$?
		pair_out=$(cat "$cli")
	fi
	if [ "$st" = 0 ]; then
		ok "$name"
	else
		fail "$name: exit $st:"
		tail -n 15 <<<"$pair_out" | sed 's/^/    /'
	fi
	[ "$PIB_HOSTS" = 1 ] || barrier "done-$name"
	return "$st"
}

# said_retry FILE: FILE (a verdict) says "retry". (bash's read, not grep:
# host1 asks every half second while its server runs, and a process costs
# a tenth of a second of emulated CPU.)
said_retry() {
	local v
	read -r v 2>/dev/null <"$1" && [ "$v" = retry ]
}

# rping_exit_race OUT: OUT is the output of an rping that did all it was
# asked and then lost rping's own race at its exit. Its main thread
# destroys the rdma_cm event channel while its cm_thread still waits in
# rdma_get_cm_event(), which then fails (EBADF), and cm_thread exits
# the process with status 255 (rdma-core's librdmacm/examples/rping.c).
# Seen on a busy host after the client's last ping. A ping, connect or
# verification that failed prints its own message first.
rping_exit_race() {
	grep -q 'DISCONNECT EVENT' "$1" &&
		grep -q '^rdma_get_cm_event: Bad file descriptor$' "$1" &&
		! grep -Eq 'rping client failed|connect error|data mismatch|failed|error [0-9-]' \
			<(grep -v '^rdma_get_cm_event: Bad file descriptor$' "$1")
}

# cm_pair NAME SECONDS SERVER-CMD -- CLIENT-CMD: host1 serves, host2 (or
# $PAIR_CLIENT) connects; other hosts only keep step.
# perftest -R connects twice (its exchange channel, then the test's QPs),
# and its client does not wait for the server's second listen: on a busy
# guest the second connection can come first and is rejected (the client
# then crashes; the CM's reject names the service ID nobody listens on).
# A pair whose client was rejected starts over, at most 6 times (3 were
# seen rejected in a row on a host running three LANs of guests at once);
# host2 tells host1 by a verdict file.
cm_pair() {
	local name=$1 t=$2 srv=() out st try verdict pid
	shift 2
	while [ "$1" != -- ]; do srv+=("$1"); shift; done
	shift
	out=$PIB_RESULTS/cm.$name.host$PIB_HOST
	for try in 1 2 3 4 5 6; do
		st=0
		verdict=$PIB_RESULTS/cm.$name.verdict.$try
		if [ "$PIB_HOST" != 1 ] && [ "$PIB_HOST" != "${PAIR_CLIENT:-2}" ]; then
			# (a host of neither end keeps step with them)
			barrier "listen-$name.$try"
			wait_for "$t" test -s "$verdict"
		elif [ "$PIB_HOST" = 1 ]; then
			timeout "$t" "${srv[@]}" >"$out" 2>&1 &
			pid=$!
			# Not before it listens (mckey joins a group instead).
			[ "${srv[0]}" = mckey ] || wait_for 60 sh -c "rdma res show cm_id |
				grep 'state LISTEN' | grep -q 'comm ${srv[0]:0:15}\b'" ||
				echo "cm_pair: ${srv[0]} does not listen after 60 s"
			barrier "listen-$name.$try"
			while kill -0 $pid 2>/dev/null && ! said_retry "$verdict"; do
				nap 0.5
			done
			said_retry "$verdict" && kill $pid 2>/dev/null
			wait $pid || st=$?
			wait_for "$t" test -s "$verdict"
		else
			barrier "listen-$name.$try"
			sleep 2
			timeout "$t" "$@" >"$out" 2>&1 || st=$?
			if [ $st != 0 ] && [ $try -lt 6 ] &&
				grep -q RDMA_CM_EVENT_REJECTED "$out"; then
				echo "cm_pair: $name's client was rejected; again"
				echo retry >"$verdict"
			else
				echo "done" >"$verdict"
			fi
		fi
		said_retry "$verdict" || break
	done
	if [ "$PIB_HOST" != 1 ] && [ "$PIB_HOST" != "${PAIR_CLIENT:-2}" ]; then
		:
	elif [ $st = 0 ]; then
		ok "$name"
	elif [ $st = 255 ] && [ "${srv[0]}" = rping ] && rping_exit_race "$out"; then
		ok "$name (rping's own exit race: status 255 after its last ping)"
	else
		fail "$name: exit $st:"
		tail -n 15 "$out" | sed 's/^/    /'
	fi
	barrier "done-$name"
}

# verbs_suite: the unmodified tools every IB user runs, as pair_run pairs.
verbs_suite() {
	local mtu=$1
	pair_run rc_pingpong 120 ibv_rc_pingpong -n 50 -c
	pair_run rc_pingpong_1MiB 180 ibv_rc_pingpong -n 4 -s 1048576 -c
	pair_run uc_pingpong 120 ibv_uc_pingpong -n 50 -c
	pair_run ud_pingpong 120 ibv_ud_pingpong -n 50 -s $((mtu - 40)) -c
	pair_run srq_pingpong 120 ibv_srq_pingpong -n 50 -c
	pair_run send_bw_all_sizes 300 ib_send_bw -a -n 5 -F
	# UC cannot recover a lost packet, and pib has no link-level flow
	# control yet: UC bandwidth runs stay within what a slow peer absorbs.
	pair_run send_bw_uc 120 ib_send_bw -c UC -n 20 -s 4096 -F
	pair_run send_bw_ud_all_sizes 120 ib_send_bw -c UD -a -n 20 -F
	pair_run send_bw_4qp 120 ib_send_bw -q 4 -n 100 -F
	pair_run send_bw_bidir 120 ib_send_bw -b -n 100 -F
	pair_run send_lat 120 ib_send_lat -n 100 -F
	pair_run send_lat_uc 120 ib_send_lat -c UC -n 100 -F
	pair_run send_lat_ud 120 ib_send_lat -c UD -n 100 -F
	pair_run write_bw_all_sizes 300 ib_write_bw -a -n 5 -F
	pair_run write_bw_uc 120 ib_write_bw -c UC -n 20 -s 4096 -F
	pair_run write_bw_bidir 120 ib_write_bw -b -q 4 -n 100 -F
	pair_run write_lat 120 ib_write_lat -n 100 -F
	pair_run write_lat_uc 120 ib_write_lat -c UC -n 100 -F
	pair_run read_bw_all_sizes 300 ib_read_bw -a -n 5 -F
	pair_run read_lat 120 ib_read_lat -n 100 -F
	pair_run atomic_bw 120 ib_atomic_bw -n 100 -F
	pair_run atomic_bw_cmp_swap 120 ib_atomic_bw -A CMP_AND_SWAP -n 100 -F
	pair_run atomic_lat 120 ib_atomic_lat -n 100 -F
}

# pib_port_qdisc: a prio qdisc on eth0 whose band 1:3 takes pib's
# outgoing packets, over IPv4 and IPv6 (so that IP traffic on eth0 stays
# clean when netem works on that band); `tc qdisc del dev eth0 root`
# removes it.
pib_port_qdisc() {
	check "prio qdisc for pib's port" tc qdisc add dev eth0 root handle 1: prio
	check "filter pib's port (IPv4)" tc filter add dev eth0 parent 1: protocol ip u32 \
		match ip dport 4792 0xffff flowid 1:3
	check "filter pib's port (IPv6)" tc filter add dev eth0 parent 1: protocol ipv6 u32 \
		match ip6 dport 4792 0xffff flowid 1:3
}

# pib_loss PERCENT: from now on eth0 drops PERCENT of pib's outgoing
# packets (netem on pib's UDP port only); `tc qdisc del dev eth0 root`
# ends it.
pib_loss() {
	pib_port_qdisc
	check "netem: $1 loss" tc qdisc replace dev eth0 parent 1:3 handle 30: netem loss "$1"
}

# elapsed START WHAT: print how long WHAT took since $SECONDS was START.
elapsed() { echo "# $2: $((SECONDS - $1)) s"; }

# dev_sha DEV OFFSET-MIB MIB: SHA-256 of MIB MiB of block device DEV from
# OFFSET-MIB on, read with O_DIRECT (from the device, not a cache).
dev_sha() {
	timeout 300 dd if="$1" bs=1M skip="$2" count="$3" iflag=direct status=none |
		sha256sum | cut -d' ' -f1
}

# dev_quarters WHAT write|read FILE DEV OFFSET-MIB MIB: copy FILE (MIB MiB)
# to block device DEV at OFFSET-MIB (write) or back (read), O_DIRECT on
# DEV, by four dd at once, one per quarter, with 1 MiB, 128 KiB, 16 KiB and
# 4 KiB blocks: several commands in flight, large ones over many pages and
# small ones by the hundred. All four must succeed.
dev_quarters() {
	local what=$1 q=$(($6 * 256)) bs i=0 pids=() st=0 io f d
	for bs in 1024 128 16 4; do
		f=$((i * q / bs)) d=$((($5 * 1024 + i * q) / bs))
		if [ "$2" = write ]; then
			io="if=$3 of=$4 skip=$f seek=$d oflag=direct"
		else
			io="if=$4 of=$3 skip=$d seek=$f iflag=direct"
		fi
		# shellcheck disable=SC2086 # io is several words
		timeout 300 dd $io bs=${bs}k count=$((q / bs)) conv=notrunc,fsync status=none &
		pids+=($!)
		i=$((i + 1))
	done
	for i in "${pids[@]}"; do wait "$i" || st=$?; done
	if [ $st = 0 ]; then ok "$what"; else fail "$what: a dd exited $st"; fi
}

# header_of FILE NAME DEFAULT: the value of FILE's "# NAME:" header line.
header_of() {
	local v
	v=$(sed -n "s/^# $2: *\([0-9]*\).*/\1/p" "$1" | head -n 1)
	echo "${v:-$3}"
}

# user_pids: the processes of userspace now (kernel threads have no exe).
user_pids() {
	local p
	for p in /proc/[0-9]*; do
		[ -e "$p/exe" ] && echo "${p#/proc/}"
	done | sort
}

# part_reset: end the processes that were not there before the part
# (/tmp/part.pids; the guests have no /dev/fd for <(...)), then unload pib
# and what loaded over it; it must go.
part_reset() {
	local pids=() p list
	# (those still there once listed: the listing's own subshells are not)
	for p in $(user_pids | grep -vxF -f /tmp/part.pids); do
		[ -e "/proc/$p" ] && pids+=("$p")
	done
	if [ ${#pids[@]} -gt 0 ]; then
		list=$(IFS=,; echo "${pids[*]}")
		echo "# ending what $part left running:" \
			"$(ps -o comm= -p "$list" | sort | uniq -c | tr -s '\n ' ' ')"
	fi
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
	for p in "${pids[@]}"; do wait_for 10 gone "$p" || kill -9 "$p" 2>/dev/null; done
	modprobe -r ib_ipoib rdma_ucm 2>/dev/null
	check "$part: pib unloads after it" modprobe -r pib
}

# run_parts: the scenario's parts ("# parts: NAME..." in its header), each a
# scenario of its own on the default platform, in turn on one LAN of
# guests: each on the first N hosts of the LAN (N its "# hosts:") under its
# own time limit, with its results in a directory of its own. Between two
# parts, a host ends what the part left running and unloads pib; a part
# starts once every host it needs is through the one before. A host with
# no part left powers off. One boot of the guests for all the parts, and
# each guest installs pib once.
run_parts() {
	local parts top=$PIB_RESULTS part s n limit st failed
	parts=$(sed -n 's/^# parts: *//p' "$PIB_SCENARIO" | head -n 1)
	failed=0
	for part in $parts; do
		s=$PIB_SRC/tests/scenarios/$part.sh
		n=$(header_of "$s" hosts 1)
		limit=$(tf "$(header_of "$s" timeout 600)")
		[ "$PIB_HOST" -le "$n" ] || continue
		PIB_HOSTS=$n barrier "part-$part" 3600
		mkdir -p "$top/$part"
		echo "== part $part ($n hosts, at most $limit s)"
		user_pids >/tmp/part.pids
		PIB_PART=$part PIB_HOSTS=$n PIB_RESULTS=$top/$part PIB_SCENARIO=$s timeout -k 10 "$limit" bash "$s"
		st=$?
		[ $st = 124 ] && echo "FAIL - $part: still running after $limit s"
		[ $st = 0 ] || failed=$((failed + 1))
		echo "== part $part: exit status $st"
		part_reset
	done
	[ $failed = 0 ] || fail "$failed part(s) failed"
	pib_done
}
