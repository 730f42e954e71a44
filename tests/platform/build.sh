#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# build.sh ROOT KVER BUILD [-- CMD...]: build pib inside the Debian root
# ROOT with that release's own compiler, headers and rdma-core: the module
# for its kernel KVER, the provider, the test tools and the kernel-consumer
# checks (tests/kmod), all into BUILD (make BUILD=...). With "-- CMD...",
# run CMD in the root instead. The source tree is bind-mounted at its own
# path in a private mount namespace, so nothing stays mounted.
set -euo pipefail
root=${1:?usage: build.sh ROOT KVER BUILD [-- CMD...]}
kver=${2:?usage: build.sh ROOT KVER BUILD [-- CMD...]}
build=${3:?usage: build.sh ROOT KVER BUILD [-- CMD...]}
shift 3
[ "${1:-}" != -- ] || shift
src=$(cd "$(dirname "$0")/../.." && pwd)
[ -d "$root/usr/src/linux-headers-$kver" ] ||
	{ echo "build.sh: no headers for $kver in $root" >&2; exit 1; }
export root kver build src
unshare -m --propagation private bash -euo pipefail -c '
	mkdir -p "$root$src"
	mount --bind "$src" "$root$src"
	mount -t proc proc "$root/proc"
	in_root() { chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 "$@"; }
	if [ $# -gt 0 ]; then
		in_root "$@"
		exit
	fi
	in_root make -C "$src" -j2 all BUILD="$build" KDIR="/usr/src/linux-headers-$kver"
	in_root make -s -C "$src/tests/tools" OUT="$build/tools"
	in_root make -s -C "$src/tests/kmod" KVER="$kver" KDIR="/usr/src/linux-headers-$kver" OUT="$build/kmod/$kver"
' build.sh "$@"
