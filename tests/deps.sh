#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# deps.sh: install the Debian packages that building pib, its tests and its
# demo need. Does nothing when all are installed.
set -euo pipefail

pkgs=(
	# build: kernel module against Debian's kernel, provider against rdma-core
	gcc make binutils linux-headers-amd64 libibverbs-dev libibumad-dev
	libibmad-dev
	librdmacm-dev cmake pkg-config libnl-3-dev libnl-route-3-dev python3
	dpkg-dev
	# the kernel's checkers on pib's code (tests/lint.sh): sparse, and the
	# kernel source for scripts/kernel-doc and scripts/checkpatch.pl; and
	# shellcheck on the scripts
	sparse linux-source-6.1 shellcheck
	# packages (make deb) and installing them (DKMS builds pib; in the
	# guests through ccache, tests/platform/dkms-ccache.sh)
	build-essential debhelper dh-dkms dkms ccache
	# rdma-core's Python test suite (tests/pyverbs-build.sh)
	cython3 python3-dev libudev-dev
	# test rig: Debian's kernel under QEMU on a vde LAN
	linux-image-amd64 qemu-system-x86 vde2 busybox-static cpio gzip kmod
	# test platforms: Debian roots of other releases (tests/platform)
	debootstrap xz-utils zstd util-linux
	# what runs inside the guests
	iproute2 iputils-ping ethtool rdma-core ibverbs-utils ibverbs-providers
	infiniband-diags opensm perftest rdmacm-utils python3-pyverbs iperf3
	# make bench's plot of bandwidth against message size
	gnuplot-nox
	# kernel storage over pib (tests/scenarios/storage.sh)
	nfs-kernel-server nfs-common nvme-cli open-iscsi
	# decoding captures of pib traffic (tests/tools/pib.lua), and pib's
	# tracepoints as trace-cmd records them (tests/scenarios/onehost.sh)
	tshark trace-cmd
	# fuzzing pib's kernel code on the host (tests/fuzz): clang's libFuzzer
	clang libclang-rt-dev
	# the debug kernel of make test-debug (tests/platform/debug-kernel.sh;
	# its source is linux-source-6.1, above)
	bc bison flex libelf-dev libssl-dev rsync
)

missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing+=("$p")
done
[ ${#missing[@]} = 0 ] && { echo "deps: all ${#pkgs[@]} packages installed"; exit 0; }

sudo=""
[ "$(id -u)" = 0 ] || sudo=sudo
echo "deps: installing ${missing[*]}"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
