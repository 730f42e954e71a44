#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# headers-image.sh KVER IMAGE [ROOT]: a read-only ext4 image of ROOT's (/
# by default) kernel headers and kbuild scripts for KVER, at their paths
# under ROOT, for guests that build a kernel module (tests/rig/lan
# --headers). It holds the directories of linux-headers-KVER,
# linux-headers-*-common and linux-kbuild-* that ROOT has, and some of
# KVER's modules (below).
#
# A guest reads its root over 9p, where every lookup is a round trip to
# this host and a miss is not cached; a kernel build's header search makes
# tens of thousands of them for each file it compiles. From a disk the
# guest's own dentry cache answers them, misses included.
#
# The image also holds the modules of KVER that a guest of the rig uses, at
# lib/modules/KVER/kernel: its file systems, networking and InfiniBand
# (pib_rig_modules below), not the drivers of hardware that a guest does
# not have. After a DKMS build, depmod reads every module of the kernel:
# over 9p, a page at a time, that took Debian 12's 4,000 modules two
# minutes, twice a run (install and purge).
#
# The image is made again when ROOT's headers or modules, or this script,
# are newer than it.
set -euo pipefail
kver=$1 img=$2 root=${3:-/}
root=${root%/}
common=/usr/src/linux-headers-${kver%-*}-common
dirs=()
for d in "/usr/src/linux-headers-$kver" "$common"; do
	[ -d "$root$d" ] && dirs+=("$d")
done
[ ${#dirs[@]} -gt 0 ] || { echo "headers-image.sh: $root has no headers for $kver" >&2; exit 1; }
# common/scripts links into the kbuild directory (a path relative to
# common's, resolved here as the guest will).
if link=$(readlink "$root$common/scripts" 2>/dev/null); then
	case $link in
	/*) kbuild=$link ;;
	*) kbuild=$(realpath -sm "$common/$link") ;;
	esac
	dirs+=("$(dirname "$kbuild")")
fi

# pib_rig_modules: the directories of /lib/modules/KVER/kernel whose
# modules a guest may load, but the network drivers of real hardware.
mods=/lib/modules/$kver/kernel
pib_rig_modules=(arch block crypto fs lib mm net virt drivers/block drivers/infiniband
	drivers/net drivers/virtio)
pib_rig_modules_not=(drivers/net/ethernet drivers/net/wireless)

newest=$( (for d in "${dirs[@]}" "$mods"; do stat -c %Y "$root$d"; done
	stat -c %Y "$0") | sort -n | tail -n 1)
if [ -f "$img" ] && [ "$(stat -c %Y "$img")" -ge "$newest" ]; then
	exit 0
fi
mkdir -p "$(dirname "$img")"
tmp=$(mktemp -d "$img.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
for d in "${dirs[@]}"; do
	mkdir -p "$tmp/tree$(dirname "$d")"
	cp -a "$root$d" "$tmp/tree$d"
done
for d in "${pib_rig_modules[@]}"; do
	[ -d "$root$mods/$d" ] || continue
	mkdir -p "$tmp/tree$mods/$(dirname "$d")"
	cp -a "$root$mods/$d" "$tmp/tree$mods/$d"
done
for d in "${pib_rig_modules_not[@]}"; do
	rm -rf "${tmp:?}/tree$mods/$d"
done
# Room for the files and the filesystem's own: 30% and 32 MiB more.
mb=$(du -sm "$tmp/tree" | cut -f1)
mke2fs -q -F -t ext4 -O ^has_journal -L pib-headers -d "$tmp/tree" \
	"$tmp/img" "$((mb * 13 / 10 + 32))M" >/dev/null
mv "$tmp/img" "$img"
