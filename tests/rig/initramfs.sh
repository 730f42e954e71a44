#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# initramfs.sh KVER OUT [ROOT]: build the guests' small busybox initramfs
# for ROOT's kernel KVER (ROOT: / by default). It loads virtio, 9p and
# virtio_net (a second less a boot than modprobe over 9p), mounts ROOT
# read-only under a tmpfs overlay and switch_roots into
# tests/rig/guest (see tests/rig/init). Compressed modules are unpacked, so
# that busybox's insmod loads them on any kernel.
set -euo pipefail

kver=${1:?usage: initramfs.sh KVER OUT [ROOT]}
out=${2:?usage: initramfs.sh KVER OUT [ROOT]}
root=${3:-/}
here=$(cd "$(dirname "$0")" && pwd)
busybox=/bin/busybox
# grep reads all of the list: with -q it would stop at the match, and the
# writer's SIGPIPE would fail the pipeline (pipefail) on a busy host.
[ -x "$busybox" ] && "$busybox" --list | grep -x switch_root >/dev/null ||
	{ echo "initramfs.sh: needs busybox-static (make deps)" >&2; exit 1; }
[ -d "$root/lib/modules/$kver" ] ||
	{ echo "initramfs.sh: $root/lib/modules/$kver missing: install linux-image-$kver" >&2; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp"/{bin,dev,proc,sys,mnt,newroot,lib/modules}
cp "$busybox" "$tmp/bin/busybox"
cp "$here/init" "$tmp/init"
chmod 755 "$tmp/init"

# Modules in load order, without repeats (built-in ones need nothing).
: > "$tmp/modules"
for m in virtio_pci 9pnet_virtio 9p overlay; do
	modprobe -d "$root" -S "$kver" --show-depends "$m" | awk '$1 == "insmod" { print $2 }'
done | awk '!seen[$0]++' | while read -r ko; do
	name=$(basename "$ko")
	case $name in
	*.ko.xz) xz -dc "$ko" > "$tmp/lib/modules/${name%.xz}" ;;
	*.ko.zst) zstd -qdc "$ko" > "$tmp/lib/modules/${name%.zst}" ;;
	*.ko.gz) gzip -dc "$ko" > "$tmp/lib/modules/${name%.gz}" ;;
	*) cp "$ko" "$tmp/lib/modules/" ;;
	esac
	basename "${name%.ko*}.ko" >> "$tmp/modules"
done

mkdir -p "$(dirname "$out")"
(cd "$tmp" && find . | cpio -o -H newc --quiet | gzip -1) > "$out.tmp"
mv "$out.tmp" "$out"
