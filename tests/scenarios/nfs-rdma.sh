#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# hosts: 2
# timeout: 900
# NFS over RDMA, a kernel consumer that registers memory with REG_MR
# before it sends and invalidates it with LOCAL_INV after, on every RPC
# with a chunk: host1 exports a tmpfs (nfsd on the RDMA port 20049),
# host2 mounts it over pib with vers=3 and vers=4.2, and files of 3 MiB
# go both ways, checked by SHA-256 on both hosts; then again while pib
# loses 1% of its packets. rdma_cm finds the server through IPoIB (ib0,
# as in the ipoib scenario).
. "$PIB_SRC/tests/lib.sh"

size=3145728
server=10.98.0.1

pib_install
ipoib_partitions
pib_fabric_up
ipoib_up rpcrdma
barrier ipoib-up

# sha FILE: its SHA-256.
sha() { sha256sum "$1" | cut -d' ' -f1; }

# nfs_round VERS TAG: on host2, mount with vers=VERS over RDMA, 3 MiB
# each way, umount. Hard mounts: a stuck RPC waits, killably, for the
# timeouts below.
nfs_round() {
	local vers=$1 tag=$2 mnt=/mnt/$2 path=/srv/nfs
	[ "$vers" = 3 ] || path=/
	mkdir -p "$mnt"
	check "$tag: mount vers=$vers over RDMA" timeout -s KILL 120 mount -t nfs \
		-o "rdma,port=20049,vers=$vers,nolock" "$server:$path" "$mnt" || return
	expect_match "$tag: the mount's transport is RDMA" \
		"$(grep " $mnt " /proc/mounts)" "proto=rdma"
	check "$tag: 3 MiB to the server" timeout -s KILL 180 \
		sh -c "cp /tmp/from-client $mnt/from-client-$tag && sync"
	check "$tag: 3 MiB from the server" timeout -s KILL 180 \
		cp "$mnt/from-server" "/tmp/from-server-$tag"
	expect_eq "$tag: the server's file arrived intact" \
		"$(sha "/tmp/from-server-$tag")" "$(cat "$PIB_RESULTS/from-server.sha")"
	check "$tag: umount" timeout -s KILL 60 umount "$mnt"
}

if [ "$PIB_HOST" = 1 ]; then
	mkdir -p /srv/nfs /run/rpcbind /var/lib/nfs/v4recovery
	check "tmpfs to export" mount -t tmpfs -o size=64m tmpfs /srv/nfs
	head -c $size /dev/urandom >/srv/nfs/from-server
	sha /srv/nfs/from-server >"$PIB_RESULTS/from-server.sha"
	# fsid=0: the export is NFSv4's root, so v4 needs no pseudo filesystem
	# over / (the guests' overlay cannot be exported).
	echo "/srv/nfs 10.98.0.0/24(rw,no_root_squash,insecure,no_subtree_check,fsid=0)" >/etc/exports
	check "rpcbind" rpcbind -w
	check "nfsd filesystem" mount -t nfsd nfsd /proc/fs/nfsd
	# Short NFSv4 grace and lease: the client's first OPEN waits them out.
	echo 10 >/proc/fs/nfsd/nfsv4gracetime
	echo 10 >/proc/fs/nfsd/nfsv4leasetime
	check "exportfs" exportfs -ra
	check "rpc.mountd" rpc.mountd
	check "rpc.nfsd" rpc.nfsd 4
	check "nfsd listens on RDMA port 20049" sh -c 'echo rdma 20049 >/proc/fs/nfsd/portlist'
else
	head -c $size /dev/urandom >/tmp/from-client
	sha /tmp/from-client >"$PIB_RESULTS/client.sha"
fi
barrier nfsd-up

# Each version on a clean LAN, then each again while pib loses 1% of its
# packets both ways: RC goes back and sends again, past local WQEs.
for round in 3:v3 4.2:v42 3:v3-loss 4.2:v42-loss; do
	tag=${round#*:}
	[ "$tag" = v3-loss ] && pib_loss 1%
	barrier "$tag-start"
	[ "$PIB_HOST" = 2 ] && nfs_round "${round%%:*}" "$tag"
	barrier "$tag-done"
	[ "$PIB_HOST" = 1 ] && expect_eq "$tag: the client's file arrived intact" \
		"$(sha "/srv/nfs/from-client-$tag")" "$(cat "$PIB_RESULTS/client.sha")"
done
[ "$PIB_HOST" = 1 ] && rpc.nfsd 0
check "netem off" tc qdisc del dev eth0 root
rdma statistic show link pibeth0/1
dmesg | grep -E 'rpcrdma|svcrdma|NFS|nfs:' | tail -n 20
check "rdma link delete pibeth0" rdma link delete pibeth0
pib_done
