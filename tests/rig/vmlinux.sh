#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# vmlinux.sh VMLINUZ OUT: the uncompressed kernel inside the bzImage
# VMLINUZ, as an ELF file that QEMU boots straight at its PVH entry point.
# An emulated guest spent 4 of its 14 CPU seconds of a boot decompressing
# its kernel (xz, in the kernel's own decompressor) and in the firmware's
# way to it, at every boot of every test. The payload is where the boot
# protocol's header says (Documentation/x86/boot.rst: setup_sects at
# 0x1f1, payload_offset and payload_length at 0x248); xz, zstd and gzip
# are what Debian's kernels use. Fails, leaving no OUT, when VMLINUZ is
# not such a kernel or has no PVH entry (the rig then boots VMLINUZ).
set -euo pipefail
z=${1:?usage: vmlinux.sh VMLINUZ OUT}
out=${2:?usage: vmlinux.sh VMLINUZ OUT}

die() { echo "vmlinux.sh: $z: $*" >&2; exit 1; }

# u8/u32 OFFSET: a little-endian number of VMLINUZ.
u8() { od -An -tu1 -j "$1" -N1 "$z" | tr -d ' '; }
u32() { od -An -tu4 -j "$1" -N4 --endian=little "$z" | tr -d ' '; }

[ "$(od -An -c -j $((0x202)) -N4 "$z" | tr -d ' ')" = HdrS ] || die "not a bzImage"
sects=$(u8 $((0x1f1)))
[ "$sects" != 0 ] || sects=4
offset=$(u32 $((0x248)))
length=$(u32 $((0x24c)))
[ "$length" -gt 0 ] || die "no payload (boot protocol before 2.08)"
start=$(((sects + 1) * 512 + offset))
magic=$(od -An -tx1 -j "$start" -N4 "$z" | tr -d ' ')
# The kernel's build appends the unpacked size to its xz and zstd streams
# (size_append in scripts/Makefile.lib): not part of the stream, but a
# check of what it unpacks to.
size=""
case $magic in
fd377a58) unpack=(xz -dc) size=$(u32 $((start + length - 4))) ;;
28b52ffd) unpack=(zstd -qdc) size=$(u32 $((start + length - 4))) ;;
1f8b08*) unpack=(gzip -dc) ;;
*) die "payload compressed as $magic: not xz, zstd or gzip" ;;
esac
[ -z "$size" ] || length=$((length - 4))

tmp=$out.tmp.$$
trap 'rm -f "$tmp"' EXIT
dd if="$z" iflag=skip_bytes,count_bytes skip="$start" count="$length" bs=1M status=none |
	"${unpack[@]}" >"$tmp" ||
	die "the payload does not unpack with ${unpack[*]}"
[ -z "$size" ] || [ "$(stat -c %s "$tmp")" = "$size" ] ||
	die "the payload unpacks to $(stat -c %s "$tmp") bytes, not the $size it says"
[ "$(od -An -c -N4 "$tmp" | tr -d ' ')" = 177ELF ] || die "the payload is not an ELF file"
# XEN_ELFNOTE_PHYS32_ENTRY (18): the PVH entry point (CONFIG_PVH).
readelf -n "$tmp" | grep -Eq 'PHYS32_ENTRY|\(0x00000012\)' || die "no PVH entry point"
mv "$tmp" "$out"
