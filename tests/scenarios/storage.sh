#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# hosts: 2
# timeout: 1200
# Kernel storage over pib: three kernel consumers that register memory
# with REG_MR before they send and invalidate it with LOCAL_INV (or the
# peer's SEND_WITH_INV) after, on one fabric brought up once. host1 is the
# server of all three, on its IPoIB address (rdma_cm finds it through ib0,
# as in the ipoib scenario); host2 the client:
# - NFS over RDMA: nfsd exports a tmpfs on the RDMA port 20049, host2
#   mounts it with vers=3 and with vers=4.2, and 3 MiB files go both ways
#   (writes larger than the inline threshold: RDMA READ chunks);
# - NVMe over RDMA: nvmet-rdma exports a ramdisk (brd, /dev/ram0) set up
#   through configfs, host2 connects with nvme-cli;
# - iSER: the LIO target exports a second ramdisk (/dev/ram1, an iblock
#   backstore) on an iSER portal, host2 discovers it and logs in with
#   open-iscsi over the iser transport.
# Block devices get 4 MiB written and read back with O_DIRECT, and host1
# reads its ramdisk; every byte is checked by SHA-256 on both hosts. All
# of it once on a clean LAN, then once more, but iSER (iser_stall), while
# pib loses 1% of its packets both ways (RC goes back and sends again,
# past local WQEs); each round mounts, connects or logs in, and undoes
# it. A protocol whose target or round fails does not keep the others
# from running.
# shellcheck source=../lib.sh
. "$PIB_SRC/tests/lib.sh"

server=10.98.0.1
mib=4
nfs_size=3145728
nqn=nqn.2024-01.org.pib:ramdisk
iqn=iqn.2024-01.org.pib:ramdisk
nvmet=/sys/kernel/config/nvmet
lio=/sys/kernel/config/target
tpg=$lio/iscsi/$iqn/tpgt_1
np=$tpg/np/$server:3260
blk=$lio/core/iblock_0/ramdisk

pib_install
ipoib_partitions
pib_fabric_up
ipoib_up rpcrdma
barrier ipoib-up

# sha FILE: its SHA-256 (empty if FILE is missing).
sha() { sha256sum "$1" 2>/dev/null | cut -d' ' -f1; }

# want NAME: the SHA-256 that host2 recorded as NAME (empty if none).
want() { cat "$PIB_RESULTS/$1.sha" 2>/dev/null; }

# target_up PROTO: host1 brought PROTO's target up (marked by mark_up).
target_up() { test -e "$PIB_RESULTS/up.$1"; }
mark_up() { touch "$PIB_RESULTS/up.$1"; }

# nfs_export: nfsd on host1, exporting a tmpfs that holds a 3 MiB file.
nfs_export() {
	mkdir -p /srv/nfs /run/rpcbind /var/lib/nfs/v4recovery
	check "nfs: tmpfs to export" mount -t tmpfs -o size=64m tmpfs /srv/nfs || return
	head -c $nfs_size /dev/urandom >/srv/nfs/from-server
	sha /srv/nfs/from-server >"$PIB_RESULTS/nfs-server.sha"
	# fsid=0: the export is NFSv4's root, so v4 needs no pseudo filesystem
	# over / (the guests' overlay cannot be exported).
	echo "/srv/nfs 10.98.0.0/24(rw,no_root_squash,insecure,no_subtree_check,fsid=0)" >/etc/exports
	check "nfs: rpcbind" rpcbind -w || return
	check "nfs: nfsd filesystem" mount -t nfsd nfsd /proc/fs/nfsd || return
	# Short NFSv4 grace and lease: the client's first OPEN waits them out.
	echo 10 >/proc/fs/nfsd/nfsv4gracetime
	echo 10 >/proc/fs/nfsd/nfsv4leasetime
	check "nfs: exportfs" exportfs -ra || return
	check "nfs: rpc.mountd" rpc.mountd || return
	check "nfs: rpc.nfsd" rpc.nfsd 4 || return
	check "nfs: nfsd listens on RDMA port 20049" \
		sh -c 'echo rdma 20049 >/proc/fs/nfsd/portlist' && mark_up nfs
}

# nvmet_export: /dev/ram0 as namespace 1 of $nqn, any host, on an RDMA
# port at $server:4420.
nvmet_export() {
	local ss=$nvmet/subsystems/$nqn port=$nvmet/ports/1
	check "nvme: modprobe nvmet-rdma" modprobe -a nvmet nvmet-rdma || return
	check "nvme: subsystem" mkdir "$ss" || return
	echo 1 >"$ss/attr_allow_any_host"
	check "nvme: namespace 1" mkdir "$ss/namespaces/1" || return
	echo /dev/ram0 >"$ss/namespaces/1/device_path"
	check "nvme: namespace 1 on /dev/ram0" sh -c "echo 1 >$ss/namespaces/1/enable" || return
	check "nvme: port" mkdir "$port" || return
	echo rdma >"$port/addr_trtype"
	echo ipv4 >"$port/addr_adrfam"
	echo $server >"$port/addr_traddr"
	echo 4420 >"$port/addr_trsvcid"
	# Linking the subsystem enables the port: nvmet-rdma binds an rdma_cm
	# listener to the IPoIB address, which fails if no RDMA device has it.
	check "nvme: nvmet-rdma listens on $server:4420" \
		ln -s "$ss" "$port/subsystems/$nqn" && mark_up nvme
}

# lio_export: /dev/ram1 as LUN 0 of $iqn on an iSER portal, open to any
# initiator (demo mode, no CHAP), writable.
lio_export() {
	check "iser: modprobe LIO, iblock, ib_isert" \
		modprobe -a target_core_mod target_core_iblock iscsi_target_mod ib_isert || return
	check "iser: iblock backstore" mkdir -p "$blk" || return
	echo udev_path=/dev/ram1 >"$blk/control"
	check "iser: backstore on /dev/ram1" sh -c "echo 1 >$blk/enable" || return
	check "iser: target $iqn" mkdir -p "$tpg/lun/lun_0" || return
	check "iser: LUN 0" ln -s "$blk" "$tpg/lun/lun_0/ramdisk" || return
	check "iser: portal $server:3260" mkdir "$np" || return
	check "iser: iSER on the portal" sh -c "echo 1 >$np/iser" || return
	expect_eq "iser: the portal does iSER" "$(cat "$np/iser")" 1
	echo 1 >"$tpg/attrib/generate_node_acls"
	echo 1 >"$tpg/attrib/cache_dynamic_acls"
	echo 0 >"$tpg/attrib/authentication"
	echo 0 >"$tpg/attrib/demo_mode_write_protect"
	check "iser: target enabled" sh -c "echo 1 >$tpg/enable" && mark_up iser
}

# The undoing, as an admin does it.
nfs_unexport() { check "nfs: nfsd stops" rpc.nfsd 0; }
nvmet_unexport() {
	local ss=$nvmet/subsystems/$nqn port=$nvmet/ports/1
	check "nvme: port unlinked" rm "$port/subsystems/$nqn"
	check "nvme: port removed" rmdir "$port"
	echo 0 >"$ss/namespaces/1/enable"
	check "nvme: namespace removed" rmdir "$ss/namespaces/1"
	check "nvme: subsystem removed" rmdir "$ss"
}
lio_unexport() {
	echo 0 >"$tpg/enable"
	check "iser: portal removed" rmdir "$np"
	check "iser: LUN 0 unlinked" rm "$tpg/lun/lun_0/ramdisk"
	check "iser: LUN 0 removed" rmdir "$tpg/lun/lun_0"
	check "iser: target removed" sh -c "rmdir $tpg && rmdir $lio/iscsi/$iqn"
	check "iser: backstore removed" sh -c "rmdir $blk && rmdir $lio/core/iblock_0"
}

# blk_io TAG DEV OFFSET-MIB: on host2, write $mib MiB of fresh random data
# to block device DEV at OFFSET-MIB with O_DIRECT and read it back, both
# by dev_quarters, then once more in one go. What host1 must find on its
# ramdisk is `want "PROTO-PHASE"` (TAG is "PROTO PHASE").
blk_io() {
	local tag=$1 name=${1/ /-} dev=$2 off=$3 data=/tmp/data-${1/ /-} t=$SECONDS
	head -c $((mib << 20)) /dev/urandom >"$data"
	sha "$data" >"$PIB_RESULTS/$name.sha"
	dev_quarters "$tag: $mib MiB written with O_DIRECT by 4 dd at once" \
		write "$data" "$dev" "$off" $mib
	elapsed "$t" "$tag: write"
	t=$SECONDS
	dev_quarters "$tag: $mib MiB read with O_DIRECT by 4 dd at once" \
		read "/tmp/back-$name" "$dev" "$off" $mib
	expect_eq "$tag: what was read back is what was written" \
		"$(sha "/tmp/back-$name")" "$(want "$name")"
	expect_eq "$tag: $mib MiB read in one go with O_DIRECT intact" \
		"$(dev_sha "$dev" "$off" $mib)" "$(want "$name")"
	elapsed "$t" "$tag: read"
}

# nvme_dev: the block device of the connected namespace (the guest has
# no other NVMe device).
nvme_dev() {
	local d
	for d in /dev/nvme*n1; do
		[ -e "$d" ] && echo "$d" && return
	done
}

# nvme_round PHASE OFFSET-MIB: on host2, connect, blk_io, disconnect.
nvme_round() {
	local tag="nvme $1" t0=$SECONDS t
	check "$tag: nvme connect -t rdma" timeout 180 \
		nvme connect -t rdma -a $server -s 4420 -n $nqn || return
	check "$tag: namespace appears" wait_for 60 sh -c 'ls /dev/nvme*n1'
	expect_eq "$tag: controller transport" "$(cat /sys/class/nvme/nvme0/transport)" rdma
	elapsed "$t0" "$tag: connect"
	blk_io "$tag" "$(nvme_dev)" "$2"
	t=$SECONDS
	expect_match "$tag: nvme disconnect" "$(timeout 120 nvme disconnect -n $nqn 2>&1)" \
		"disconnected 1 controller"
	check "$tag: namespace gone" wait_for 60 sh -c '! ls /dev/nvme*n1'
	elapsed "$t" "$tag: disconnect"
	elapsed "$t0" "$tag: round"
}

# iscsi_disk: the SCSI disk of the logged-in session (the guest has no
# other SCSI disk).
iscsi_disk() {
	local b
	for b in /sys/class/iscsi_session/session*/device/target*/*/block/*; do
		[ -e "$b" ] && echo "/dev/${b##*/}" && return
	done
}

# iser_round PHASE OFFSET-MIB: on host2, discover, log in over iSER,
# blk_io, log out.
iser_round() {
	local tag="iser $1" t0=$SECONDS t
	expect_match "$tag: discovery over iSER" \
		"$(timeout 180 iscsiadm -m discovery -t st -p $server -I iser 2>&1)" \
		"^$server:3260,1 $iqn"
	check "$tag: login over iSER" timeout 180 \
		iscsiadm -m node -T $iqn -p $server -I iser --login || return
	expect_match "$tag: the session's transport is iser" \
		"$(iscsiadm -m session 2>&1)" "^iser: .* $iqn"
	check "$tag: disk appears" wait_for 60 sh -c \
		'ls /sys/class/iscsi_session/session*/device/target*/*/block/*'
	elapsed "$t0" "$tag: login"
	blk_io "$tag" "$(iscsi_disk)" "$2"
	t=$SECONDS
	expect_match "$tag: logout" \
		"$(timeout 120 iscsiadm -m node -T $iqn -p $server -I iser --logout 2>&1)" \
		"Logout of .* successful"
	check "$tag: disk gone" wait_for 60 sh -c \
		'! ls /sys/class/iscsi_session/session*/device/target*/*/block/*'
	elapsed "$t" "$tag: logout"
	elapsed "$t0" "$tag: round"
}

# nfs_round VERS NAME: on host2, mount with vers=VERS over RDMA, 3 MiB
# each way, umount. Hard mounts: a stuck RPC waits, killably, for the
# timeouts below.
nfs_round() {
	local vers=$1 tag="nfs $2" mnt=/mnt/$2 path=/srv/nfs t0=$SECONDS
	[ "$vers" = 3 ] || path=/
	mkdir -p "$mnt"
	check "$tag: mount vers=$vers over RDMA" timeout -s KILL 120 mount -t nfs \
		-o "rdma,port=20049,vers=$vers,nolock" "$server:$path" "$mnt" || return
	expect_match "$tag: the mount's transport is RDMA" \
		"$(grep " $mnt " /proc/mounts)" "proto=rdma"
	check "$tag: 3 MiB to the server" timeout -s KILL 180 \
		sh -c "cp /tmp/from-client $mnt/from-client-$2 && sync"
	check "$tag: 3 MiB from the server" timeout -s KILL 180 \
		cp "$mnt/from-server" "/tmp/from-server-$2"
	expect_eq "$tag: the server's file arrived intact" \
		"$(sha "/tmp/from-server-$2")" "$(want nfs-server)"
	check "$tag: umount" timeout -s KILL 60 umount "$mnt"
	elapsed "$t0" "$tag: round"
}

# diag_once: after the first phase with a failure, every task's stack and
# the busy workqueues (sysrq t, into the guest's kernel log) and the RDMA
# resources with pib's view of each QP and CQ: what stopped, and where.
diag_once() {
	[ $pib_failures != 0 ] && [ ! -e /tmp/diag-done ] || return 0
	touch /tmp/diag-done
	echo "# diagnostics: sysrq t in host$PIB_HOST.kmsg"
	echo t >/proc/sysrq-trigger
	rdma res show qp -dd
	rdma res show cq -dd
	rdma statistic show link pibeth0/1
}

# iser_stall: why iSER sits out the loss phase. Under 1% loss and a loaded
# host, LIO's iSER target (Linux 6.1) stops answering within a few rounds:
# its QPs idle with every packet acknowledged and the peer's link up, the
# initiator's NOP-Out delivered and never answered, and isert's completion
# work asleep in iscsit_allocate_cmd() waiting for a command tag. The
# initiator then fails the connection, and the teardown's ib_drain_qp()
# waits for that work for good (iscsi_np hung; it hung CI once). LIO's,
# on any RDMA device; NFS and NVMe cover kernel consumers under loss.

# client_phase PHASE OFFSET-MIB: host2's rounds of every protocol whose
# target is up (host1 failed the others), one after the other. NFS last:
# by then NFSv4's grace period is over.
client_phase() {
	local p
	for p in nvme iser nfs; do
		target_up $p || echo "# $p $1: skipped, host1 has no $p target"
	done
	target_up nvme && nvme_round "$1" "$2"
	if [ "$1" = loss ]; then
		echo "# iser loss: not run (LIO's iSER target stalls under loss, see iser_stall)"
	else
		target_up iser && iser_round "$1" "$2"
	fi
	target_up nfs || return
	nfs_round 3 "v3-$1"
	nfs_round 4.2 "v42-$1"
}

# server_phase PHASE OFFSET-MIB: host1 finds what host2 wrote.
server_phase() {
	local v
	target_up nvme && expect_eq "nvme $1: the ramdisk holds host2's data" \
		"$(dev_sha /dev/ram0 "$2" $mib)" "$(want "nvme-$1")"
	target_up iser && [ "$1" != loss ] && expect_eq "iser $1: the ramdisk holds host2's data" \
		"$(dev_sha /dev/ram1 "$2" $mib)" "$(want "iser-$1")"
	target_up nfs && for v in v3 v42; do
		expect_eq "nfs $v-$1: the client's file arrived intact" \
			"$(sha "/srv/nfs/from-client-$v-$1")" "$(want nfs-client)"
	done
}

if [ "$PIB_HOST" = 1 ]; then
	# Two ramdisks, one per block target: nvmet and LIO each open theirs
	# exclusively.
	check "modprobe brd (2 x 64 MiB)" modprobe brd rd_nr=2 rd_size=65536
	mountpoint -q /sys/kernel/config || mount -t configfs configfs /sys/kernel/config
	nfs_export
	nvmet_export
	lio_export
else
	head -c $nfs_size /dev/urandom >/tmp/from-client
	sha /tmp/from-client >"$PIB_RESULTS/nfs-client.sha"
	check "modprobe nvme-rdma" modprobe nvme-rdma
	# sd_mod too: no udev loads it when the LUN shows up.
	check "modprobe ib_iser sd_mod" modprobe -a ib_iser sd_mod
	# No systemd in the guest: iscsid runs as a plain daemon.
	mkdir -p /run/lock/iscsi /var/lib/iscsi
	check "iscsid" iscsid
	check "iscsid answers" wait_for 30 iscsiadm -m iface -I iser
fi
barrier targets-up

off=0
for phase in clean loss; do
	[ "$phase" = loss ] && pib_loss 1%
	barrier "$phase-start"
	t=$SECONDS
	[ "$PIB_HOST" = 2 ] && client_phase "$phase" "$off"
	barrier "$phase-done" 900
	elapsed "$t" "$phase phase"
	[ "$PIB_HOST" = 1 ] && server_phase "$phase" "$off"
	diag_once
	off=$((off + mib))
done
check "netem off" tc qdisc del dev eth0 root
if [ "$PIB_HOST" = 1 ]; then
	target_up nfs && nfs_unexport
	target_up nvme && nvmet_unexport
	target_up iser && lio_unexport
else
	check "iscsid stops" iscsiadm -k 0
fi
barrier unexported
rdma statistic show link pibeth0/1
dmesg | grep -E 'rpcrdma|svcrdma|NFS|nfs:|nvme|iser|isert|iSCSI|scsi' | tail -n 40
check "rdma link delete pibeth0" rdma link delete pibeth0
pib_done
