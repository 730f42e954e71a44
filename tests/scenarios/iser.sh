#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# hosts: 2
# timeout: 900
# iSCSI over RDMA (iSER), kernel consumers on both ends: host1 exports a
# 128 MiB ramdisk (brd) with the LIO target (an iblock backstore, set up
# through configfs) on an iSER portal at its IPoIB address; host2 discovers
# it and logs in with open-iscsi over the iser transport, writes 8 MiB
# with O_DIRECT and reads them back, and host1 then reads its ramdisk: the
# SHA-256 must match on both hosts. Once on a clean LAN, once while pib
# loses 1% of its packets; each round discovers, logs in and logs out.
. "$PIB_SRC/tests/lib.sh"

server=10.98.0.1
iqn=iqn.2024-01.org.pib:ramdisk
mib=8
cfg=/sys/kernel/config/target
tpg=$cfg/iscsi/$iqn/tpgt_1
np=$tpg/np/$server:3260
blk=$cfg/core/iblock_0/ramdisk

pib_install
ipoib_partitions
pib_fabric_up
ipoib_up
barrier ipoib-up

# lio_export: the ramdisk as LUN 0 of $iqn on an iSER portal, open to any
# initiator (demo mode, no CHAP), writable.
lio_export() {
	check "modprobe brd (128 MiB)" modprobe brd rd_nr=1 rd_size=131072 || return
	check "modprobe LIO, iblock, ib_isert" \
		modprobe -a target_core_mod target_core_iblock iscsi_target_mod ib_isert || return
	mountpoint -q /sys/kernel/config || mount -t configfs configfs /sys/kernel/config
	check "iblock backstore" mkdir -p "$blk" || return
	echo udev_path=/dev/ram0 >"$blk/control"
	check "backstore on /dev/ram0" sh -c "echo 1 >$blk/enable" || return
	check "target $iqn" mkdir -p "$tpg/lun/lun_0" || return
	check "LUN 0" ln -s "$blk" "$tpg/lun/lun_0/ramdisk" || return
	check "portal $server:3260" mkdir "$np" || return
	check "iSER on the portal" sh -c "echo 1 >$np/iser" || return
	expect_eq "the portal does iSER" "$(cat "$np/iser")" 1
	echo 1 >"$tpg/attrib/generate_node_acls"
	echo 1 >"$tpg/attrib/cache_dynamic_acls"
	echo 0 >"$tpg/attrib/authentication"
	echo 0 >"$tpg/attrib/demo_mode_write_protect"
	check "target enabled" sh -c "echo 1 >$tpg/enable"
}

# lio_unexport: undo lio_export, as an admin does.
lio_unexport() {
	echo 0 >"$tpg/enable"
	check "iSER portal removed" rmdir "$np"
	check "LUN 0 unlinked" rm "$tpg/lun/lun_0/ramdisk"
	check "LUN 0 removed" rmdir "$tpg/lun/lun_0"
	check "target removed" sh -c "rmdir $tpg && rmdir $cfg/iscsi/$iqn"
	check "backstore removed" sh -c "rmdir $blk && rmdir $cfg/core/iblock_0"
}

# iscsi_disk: the SCSI disk of the logged-in session (the guest has no
# other SCSI disk).
iscsi_disk() {
	local b
	for b in /sys/class/iscsi_session/session*/device/target*/*/block/*; do
		[ -e "$b" ] && echo "/dev/${b##*/}" && return
	done
}

# iser_round TAG OFFSET-MIB: on host2, discover, log in over iSER, write
# $mib MiB of fresh random data at OFFSET-MIB with O_DIRECT, read it back,
# log out.
iser_round() {
	local tag=$1 off=$2 data=/tmp/data-$1 dev t0=$SECONDS t
	head -c $((mib << 20)) /dev/urandom >"$data"
	sha256sum "$data" | cut -d' ' -f1 >"$PIB_RESULTS/$tag.sha"
	expect_match "$tag: discovery over iSER" \
		"$(timeout 180 iscsiadm -m discovery -t st -p $server -I iser 2>&1)" \
		"^$server:3260,1 $iqn"
	check "$tag: login over iSER" timeout 180 \
		iscsiadm -m node -T $iqn -p $server -I iser --login || return
	expect_match "$tag: the session's transport is iser" \
		"$(iscsiadm -m session 2>&1)" "^iser: .* $iqn"
	check "$tag: disk appears" wait_for 60 sh -c \
		'ls /sys/class/iscsi_session/session*/device/target*/*/block/*'
	dev=$(iscsi_disk)
	elapsed "$t0" "$tag: login"
	t=$SECONDS
	dev_quarters "$tag: $mib MiB written with O_DIRECT by 4 dd at once" \
		write "$data" "$dev" "$off" $mib
	elapsed "$t" "$tag: write"
	t=$SECONDS
	dev_quarters "$tag: $mib MiB read with O_DIRECT by 4 dd at once" \
		read "/tmp/back-$tag" "$dev" "$off" $mib
	expect_eq "$tag: what was read back is what was written" \
		"$(sha256sum <"/tmp/back-$tag" | cut -d' ' -f1)" "$(cat "$PIB_RESULTS/$tag.sha")"
	expect_eq "$tag: $mib MiB read in one go with O_DIRECT intact" \
		"$(dev_sha "$dev" "$off" $mib)" "$(cat "$PIB_RESULTS/$tag.sha")"
	elapsed "$t" "$tag: read"
	t=$SECONDS
	expect_match "$tag: logout" \
		"$(timeout 120 iscsiadm -m node -T $iqn -p $server -I iser --logout 2>&1)" \
		"Logout of .* successful"
	check "$tag: disk gone" wait_for 60 sh -c \
		'! ls /sys/class/iscsi_session/session*/device/target*/*/block/*'
	elapsed "$t" "$tag: logout"
	elapsed "$t0" "$tag: round"
}

if [ "$PIB_HOST" = 1 ]; then
	lio_export
else
	# sd_mod too: no udev loads it when the LUN shows up.
	check "modprobe ib_iser sd_mod" modprobe -a ib_iser sd_mod
	# No systemd in the guest: iscsid runs as a plain daemon.
	mkdir -p /run/lock/iscsi /var/lib/iscsi
	check "iscsid" iscsid
	check "iscsid answers" wait_for 30 iscsiadm -m iface -I iser
fi
barrier lio-up

off=0
for tag in clean loss; do
	[ "$tag" = loss ] && pib_loss 1%
	barrier "$tag-start"
	[ "$PIB_HOST" = 2 ] && iser_round "$tag" "$off"
	barrier "$tag-done" 600
	[ "$PIB_HOST" = 1 ] && expect_eq "$tag: the ramdisk holds host2's data" \
		"$(dev_sha /dev/ram0 "$off" $mib)" "$(cat "$PIB_RESULTS/$tag.sha")"
	off=$((off + mib))
done
check "netem off" tc qdisc del dev eth0 root
if [ "$PIB_HOST" = 1 ]; then
	lio_unexport
else
	check "iscsid stops" iscsiadm -k 0
fi
barrier unexported
rdma statistic show link pibeth0/1
dmesg | grep -E 'iser|isert|iSCSI|scsi' | tail -n 20
check "rdma link delete pibeth0" rdma link delete pibeth0
pib_done
