#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# hosts: 2
# timeout: 900
# NVMe over RDMA, a kernel consumer that registers every I/O's pages with
# REG_MR and invalidates them with LOCAL_INV (or the target's
# SEND_WITH_INV): host1 exports a 128 MiB ramdisk (brd) with nvmet-rdma,
# set up through configfs, on its IPoIB address; host2 connects with
# nvme-cli, writes 8 MiB with O_DIRECT and reads them back, and host1
# then reads its ramdisk: the SHA-256 must match on both hosts. Once on a
# clean LAN, once while pib loses 1% of its packets; each round connects
# and disconnects.
. "$PIB_SRC/tests/lib.sh"

server=10.98.0.1
nqn=nqn.2024-01.org.pib:ramdisk
mib=8
cfg=/sys/kernel/config/nvmet

pib_install
ipoib_partitions
pib_fabric_up
ipoib_up
barrier ipoib-up

# nvmet_export: the ramdisk as namespace 1 of $nqn, any host, on an RDMA
# port at $server:4420.
nvmet_export() {
	local ss=$cfg/subsystems/$nqn port=$cfg/ports/1
	check "modprobe nvmet-rdma" modprobe -a nvmet nvmet-rdma || return
	check "modprobe brd (128 MiB)" modprobe brd rd_nr=1 rd_size=131072 || return
	mountpoint -q /sys/kernel/config || mount -t configfs configfs /sys/kernel/config
	check "nvmet subsystem" mkdir "$ss" || return
	echo 1 >"$ss/attr_allow_any_host"
	check "namespace 1" mkdir "$ss/namespaces/1" || return
	echo /dev/ram0 >"$ss/namespaces/1/device_path"
	check "namespace 1 on /dev/ram0" sh -c "echo 1 >$ss/namespaces/1/enable" || return
	check "nvmet port" mkdir "$port" || return
	echo rdma >"$port/addr_trtype"
	echo ipv4 >"$port/addr_adrfam"
	echo $server >"$port/addr_traddr"
	echo 4420 >"$port/addr_trsvcid"
	# Linking the subsystem enables the port: nvmet-rdma binds an rdma_cm
	# listener to the IPoIB address, which fails if no RDMA device has it.
	check "nvmet-rdma listens on $server:4420" ln -s "$ss" "$port/subsystems/$nqn"
}

# nvmet_unexport: undo nvmet_export, as an admin does.
nvmet_unexport() {
	local ss=$cfg/subsystems/$nqn port=$cfg/ports/1
	check "port unlinked" rm "$port/subsystems/$nqn"
	check "port removed" rmdir "$port"
	echo 0 >"$ss/namespaces/1/enable"
	check "namespace removed" rmdir "$ss/namespaces/1"
	check "subsystem removed" rmdir "$ss"
}

# nvme_dev: the block device of the connected namespace (the guest has
# no other NVMe device).
nvme_dev() { ls /dev/nvme*n1 2>/dev/null | head -n 1; }

# nvme_round TAG OFFSET-MIB: on host2, connect, write $mib MiB of fresh
# random data at OFFSET-MIB with O_DIRECT, read it back, disconnect.
nvme_round() {
	local tag=$1 off=$2 data=/tmp/data-$1 dev t0=$SECONDS t
	head -c $((mib << 20)) /dev/urandom >"$data"
	sha256sum "$data" | cut -d' ' -f1 >"$PIB_RESULTS/$tag.sha"
	check "$tag: nvme connect -t rdma" timeout 180 \
		nvme connect -t rdma -a $server -s 4420 -n $nqn || return
	check "$tag: namespace appears" wait_for 60 sh -c 'ls /dev/nvme*n1'
	dev=$(nvme_dev)
	expect_eq "$tag: controller transport" "$(cat /sys/class/nvme/nvme0/transport)" rdma
	elapsed "$t0" "$tag: connect"
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
	expect_match "$tag: nvme disconnect" "$(timeout 120 nvme disconnect -n $nqn 2>&1)" \
		"disconnected 1 controller"
	check "$tag: namespace gone" wait_for 60 sh -c '! ls /dev/nvme*n1'
	elapsed "$t" "$tag: disconnect"
	elapsed "$t0" "$tag: round"
}

if [ "$PIB_HOST" = 1 ]; then
	nvmet_export
else
	check "modprobe nvme-rdma" modprobe nvme-rdma
fi
barrier nvmet-up

off=0
for tag in clean loss; do
	[ "$tag" = loss ] && pib_loss 1%
	barrier "$tag-start"
	[ "$PIB_HOST" = 2 ] && nvme_round "$tag" "$off"
	barrier "$tag-done" 600
	[ "$PIB_HOST" = 1 ] && expect_eq "$tag: the ramdisk holds host2's data" \
		"$(dev_sha /dev/ram0 "$off" $mib)" "$(cat "$PIB_RESULTS/$tag.sha")"
	off=$((off + mib))
done
check "netem off" tc qdisc del dev eth0 root
[ "$PIB_HOST" = 1 ] && nvmet_unexport
barrier unexported
rdma statistic show link pibeth0/1
dmesg | grep -E 'nvme' | tail -n 20
check "rdma link delete pibeth0" rdma link delete pibeth0
pib_done
