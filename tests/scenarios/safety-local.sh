#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# hosts: 1
# cpus: 2
# timeout: 900
# What a local user, and the kernel's own consumers, can do to a pib host,
# and what they must not: no oops, warning, lockup or stall, clean errors.
#  - rdma link add while a process holds pib's UDP port fails with a
#    message, and works once the port is free;
#  - pib-abuse: registrations of unmapped memory and over RLIMIT_MEMLOCK,
#    unpredictable MR keys, the rules of memory windows (a window keeps
#    its MR, is not bound twice, works on its QP only and is unbound when
#    the QP goes), ibv_rereg_mr (keys kept; memory, PD and access changed;
#    refused with a window bound or to make read-only memory writable;
#    WRITEs racing a thread that reregisters), QP attributes wider than
#    the IBA's fields, SQD (IBV_EVENT_SQ_DRAINED when asked for, once the
#    WQEs started completed; nothing new starts until RTS), a
#    flush against a producer index a thread keeps moving, mmap racing
#    destroy_cq and resize_cq, a thread scribbling on every mapped ring
#    while another posts, flushes, resets and destroys; random verbs
#    with random arguments, valid or not, on a pool of objects;
#  - ring memory is charged to the process: in a memory cgroup, big CQs,
#    SRQs and QPs end with ENOMEM, not with the OOM killer;
#  - pib_ktest (a kernel consumer): REG_MR and LOCAL_INV at the tail of an
#    RC send queue and behind RNR-NAKed SENDs complete once, in order; a
#    REG_MR registers its WR's key and leaves the MR's keys to the
#    consumer, who may have moved them on already; a kernel QP on an SRQ
#    goes to RESET; an SRQ is resized, not below the WQEs posted, and they
#    complete in order; an inline WR whose lengths overflow is refused; a
#    CQ given more completions than it holds keeps the first ones in order
#    and the kernel log says it overflowed; an RDMA WRITE to an
#    invalidated R_Key and an unaligned atomic fail, and strict mode
#    reports both.
# Two CPUs: the races need a second thread running while the kernel works.
# shellcheck source=../lib.sh
. "$PIB_SRC/tests/lib.sh"

tool=$PIB_BUILD/tools/pib-abuse
dev=pibloa

# abuse WHAT ARGS...: one pib-abuse run, its output in the log.
abuse() {
	local what=$1 st=0
	shift
	timeout 300 "$tool" -d $dev "$@" || st=$?
	if [ $st = 0 ]; then ok "$what"; else fail "$what: exit $st"; fi
}

pib_install

# A process holds pib's UDP port: the switch cannot open its socket.
flag=/tmp/udp-bound
python3 -c '
import socket, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("0.0.0.0", 4792))
open(sys.argv[1], "w").close()
time.sleep(600)' $flag &
holder=$!
check "a process binds UDP port 4792" wait_for 20 test -e $flag
check_fails "rdma link add with the port taken fails" "address already in use" \
	rdma link add $dev type pib netdev lo
expect_eq "no device is left behind" "$(ib_devs | grep -c $dev)" 0
kill $holder
wait $holder 2>/dev/null
check "rdma link add once the port is free" rdma link add $dev type pib netdev lo

# opensm brings the port to ACTIVE, for the kernel consumer's RC QPs.
opensm -B -d 2 -t 1000 -g "$(ibstat -p $dev)" -f "$PIB_RESULTS/opensm.log" \
	>/dev/null 2>&1
check "$dev ACTIVE" wait_for 300 grep -q ACTIVE "/sys/class/infiniband/$dev/ports/1/state"

abuse "registrations, keys, windows, rereg, SQD and attributes" reg-mr memlock keys mw rereg sqd limits
abuse "flush against a moving producer" flush-hang
abuse "mmap racing destroy_cq and resize_cq" -t 30 mmap-race
abuse "verbs on scribbled rings" -t 60 scribble
abuse "random verbs with random arguments" -t 60 verbs

# Ring memory is charged to the process's memory cgroup.
cg=/sys/fs/cgroup
grep -q " $cg cgroup2 " /proc/mounts || mount -t cgroup2 none $cg
echo +memory > $cg/cgroup.subtree_control
mkdir -p $cg/pib-abuse
echo 128M > $cg/pib-abuse/memory.max
st=0
sh -c 'echo $$ > $1/cgroup.procs && exec timeout 300 "$2" -d $3 objects 512' \
	sh $cg/pib-abuse "$tool" $dev || st=$?
expect_eq "512 MiB of rings in a 128 MiB cgroup: ENOMEM, not more" $st 0
expect_eq "the OOM killer stayed away" \
	"$(sed -n 's/^oom_kill //p' $cg/pib-abuse/memory.events)" 0

# The kernel consumer's checks, in strict mode (warn): it reports the
# stale R_Key and the unaligned atomic.
st=0
check "strict mode warn" sh -c "echo warn >/sys/kernel/debug/pib/$dev/strict"
insmod "$PIB_BUILD/kmod/$(uname -r)/pib_ktest.ko" dev=$dev || st=$?
dmesg | grep 'pib_ktest:' | sed 's/^\[[^]]*\] //'
expect_eq "pib_ktest: local WQEs, fast-register keys, SRQ reset and resize, inline overflow, CQ overflow, stale rkey, unaligned atomic" $st 0
expect_match "the CQ's overflow is in the kernel log" "$(dmesg)" \
	"pib: $dev: a CQ of [0-9]+ entries overflowed"
expect_match "strict: the invalidated R_Key reported" "$(dmesg)" \
	"pib: $dev: strict: pib_ktest\[0\]: QP 0x[0-9a-f]+: R_Key 0x[0-9a-f]+ used after its MR was invalidated .* \(rkey-invalidated\)$"
expect_match "strict: the unaligned atomic reported" "$(dmesg)" \
	"pib: $dev: strict: pib_ktest\[0\]: QP 0x[0-9a-f]+: an atomic on address 0x[0-9a-f]*[4c], not 8-byte aligned: .* \(atomic-unaligned\)$"
echo off >"/sys/kernel/debug/pib/$dev/strict"
[ $st = 0 ] && rmmod pib_ktest

check "rdma link delete $dev" rdma link delete $dev
pib_done
