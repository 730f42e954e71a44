#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# dkms-ccache.sh DEBS KVER CACHE: the ccache cache that makes the packages
# scenario's DKMS build in an emulated guest take minutes instead of
# twenty. Run on this machine for its own platform, or inside a platform's
# root (build.sh ROOT KVER BUILD -- ...): it builds pib from the pib-dkms
# package in DEBS for kernel KVER with that release's own DKMS, in a
# private mount namespace where /var/lib/dkms is an empty tmpfs, so that
# every compiler call is the one the guest's DKMS makes: same compiler,
# headers, source, arguments and paths (/var/lib/dkms/pib/VERSION/build).
# Debian's kernel headers call the compiler through ccache when
# DEBIAN_KERNEL_USE_CCACHE is set; CCACHE (made anew) keeps what the
# compiler made. In the guest, the same DKMS build with the same settings
# then finds each object in the cache; any input that differs compiles for
# real. Nothing outside CACHE is left changed.
set -euo pipefail
debs=${1:?usage: dkms-ccache.sh DEBS KVER CACHE}
kver=${2:?usage: dkms-ccache.sh DEBS KVER CACHE}
cache=${3:?usage: dkms-ccache.sh DEBS KVER CACHE}
die() { echo "dkms-ccache.sh: $*" >&2; exit 1; }
command -v ccache >/dev/null || die "ccache missing (make deps; platform roots: mkroot.sh)"
command -v dkms >/dev/null || die "dkms missing"
debs_found=("$debs"/pib-dkms_*_all.deb)
deb=${debs_found[0]}
[ -f "$deb" ] || die "no pib-dkms package in $debs (make deb)"
[ -d "/lib/modules/$kver/build/" ] || die "no kernel headers for $kver"
rm -rf "$cache"
mkdir -p "$cache"
tree=$(mktemp -d)
trap 'rm -rf "$tree"' EXIT
dpkg-deb -x "$deb" "$tree"
srcs=("$tree"/usr/src/pib-*)
src=${srcs[0]}
[ -f "$src/dkms.conf" ] || die "$deb has no /usr/src/pib-VERSION/dkms.conf"
ver=${src##*/pib-}
# The guest's environment (tests/rig/guest): the locale is part of what
# ccache hashes. The tmpfs stays in this mount namespace: its mounts are
# made private, or, in a root that build.sh chroots into (whose / is no
# mount point), are those of build.sh's private namespace already.
unshare -m --propagation unchanged env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
	HOME=/root LANG=C.UTF-8 src="$src" ver="$ver" kver="$kver" cache="$cache" \
	DEBIAN_KERNEL_USE_CCACHE=1 CCACHE_DIR="$cache" bash -euo pipefail -c '
	if ! mount --make-rprivate / 2>/dev/null &&
	   awk '\''$5 == "/" { f = 1 } END { exit !f }'\'' /proc/self/mountinfo; then
		echo "dkms-ccache.sh: cannot make the mounts private" >&2
		exit 1
	fi
	mkdir -p /var/lib/dkms
	mount -t tmpfs tmpfs /var/lib/dkms
	dkms add -m pib -v "$ver" --sourcetree "${src%/*}" >/dev/null
	dkms build -m pib -v "$ver" -k "$kver" --sourcetree "${src%/*}" >/dev/null ||
		{ cat /var/lib/dkms/pib/"$ver"/build/make.log >&2; exit 1; }
'
echo "dkms-ccache.sh: pib $ver for $kver: $(CCACHE_DIR=$cache ccache --print-stats |
	awk '$1 == "cache_miss" { print $2 }') objects in $cache"
