#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# mkroot.sh SUITE DIR: make DIR a Debian root of SUITE (trixie, sid, ...)
# that test guests boot: that release's kernel and headers, compiler, RDMA
# userland (rdma-core, perftest, opensm, infiniband-diags), dkms and the
# tools the scenarios use. For trixie the root also holds the newest
# kernel of trixie-backports, so one root serves two platforms.
#
# DIR/.complete marks a finished root (holding the revision of this script
# that made it: an older root is made again); DIR/../kver.<KERNEL> name the
# kernels (KERNEL as in tests/platform/platforms; debug-kernel.sh adds
# kver.debug). The packages of every kernel's headers (with the
# linux-headers-amd64 that depends on them) stay in
# DIR/var/cache/pib-headers/<KVER>/, for the packages scenario to install a
# kernel's headers as a user would. The archive is the one this machine's
# apt uses. Takes about 5 minutes.
set -euo pipefail
suite=${1:?usage: mkroot.sh SUITE DIR}
root=${2:?usage: mkroot.sh SUITE DIR}
here=$(cd "$(dirname "$0")" && pwd)
die() { echo "mkroot.sh: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || die "needs root (debootstrap, chroot)"
command -v debootstrap >/dev/null || die "debootstrap missing (make deps)"
rev=7	# what .complete records; raise it when roots need remaking
[ "$(cat "$root/.complete" 2>/dev/null)" = "$rev" ] && exit 0
uri=$("$here/../../provider/debian-uri.sh")
[ -n "$uri" ] || die "no Debian archive in /etc/apt/sources.list*"

pkgs=(
	linux-image-amd64 linux-headers-amd64 gcc make libc6-dev kmod
	# what the scenarios run
	iproute2 iputils-ping ethtool procps rdma-core ibverbs-utils
	ibverbs-providers infiniband-diags opensm perftest rdmacm-utils
	python3-pyverbs iperf3 tshark
	# building pib's provider and pib-sm, and rdma-core's Python tests, in the root
	libibverbs-dev libibumad-dev libibmad-dev librdmacm-dev cmake pkg-config
	libnl-3-dev libnl-route-3-dev python3 dpkg-dev cython3 python3-dev
	libudev-dev
	# packages: building them (make deb) and installing them (DKMS, through
	# ccache in the guests: dkms-ccache.sh)
	build-essential dkms debhelper dh-dkms fakeroot ccache
)
log=$(dirname "$root")/mkroot.log
echo "mkroot.sh: $suite root in $root (log: $log)"
rm -rf "$root" "$(dirname "$root")"/kver.*
mkdir -p "$root"
debootstrap --variant=minbase "$suite" "$root" "$uri" >"$log" 2>&1 ||
	die "debootstrap $suite failed, see $log"
# An installed Debian has /etc/hosts (the installer writes it); bookworm's
# debootstrap makes none, and localhost must resolve (perftest on one host).
[ -e "$root/etc/hosts" ] ||
	printf '127.0.0.1\tlocalhost\n::1\t\tlocalhost ip6-localhost ip6-loopback\n' >"$root/etc/hosts"

echo "deb $uri $suite main" > "$root/etc/apt/sources.list"
[ "$suite" = trixie ] && echo "deb $uri trixie-backports main" >> "$root/etc/apt/sources.list"
# The archive may be a snapshot older than a Release file's Valid-Until
# (seen with sid): its signatures are still checked.
echo 'Acquire::Check-Valid-Until "false";' > "$root/etc/apt/apt.conf.d/99pib-snapshot"
# Guests bring their own initramfs: the root's kernels need none.
chroot "$root" dpkg-divert --local --rename --add /usr/sbin/update-initramfs >>"$log"
ln -sf /bin/true "$root/usr/sbin/update-initramfs"
in_root() {
	mount -t proc proc "$root/proc"
	trap 'umount "$root/proc"; trap - RETURN' RETURN
	DEBIAN_FRONTEND=noninteractive chroot "$root" "$@" >>"$log" 2>&1
}
in_root apt-get update || die "apt-get update in the root failed, see $log"
in_root apt-get install -y --no-install-recommends "${pkgs[@]}" ||
	die "installing packages in the root failed, see $log"

# kernel_of: the kernel version linux-image-amd64 points at now.
kernel_of() {
	chroot "$root" dpkg-query -W -f '${Depends}' linux-image-amd64 |
		grep -o 'linux-image-[^ ,]*' | head -n 1 | sed 's/^linux-image-//'
}
kernel_of > "$(dirname "$root")/kver.latest"
if [ "$suite" = trixie ]; then
	in_root apt-get install -y --no-install-recommends -t trixie-backports \
		linux-image-amd64 linux-headers-amd64 ||
		die "installing trixie-backports' kernel failed, see $log"
	kernel_of > "$(dirname "$root")/kver.trixie-backports"
fi
# keep_headers KVER: the .debs of KVER's headers, for the packages scenario:
# linux-headers-KVER, the linux-headers-*-common and linux-kbuild-* it
# depends on (named per ABI, or per release like 6.1's linux-kbuild-6.1),
# and the version of linux-headers-amd64 that pulls them in.
keep_headers() {
	local dir=/var/cache/pib-headers/$1 deps meta
	meta=$(chroot "$root" apt-cache show linux-headers-amd64 |
		awk -v h="linux-headers-$1 " '/^Version:/ { v = $2 }
			/^Depends:/ && index($0, h) { print v; exit }')
	[ -n "$meta" ] || die "no linux-headers-amd64 depends on linux-headers-$1"
	deps=$(chroot "$root" apt-cache depends "linux-headers-$1" |
		awk '$1 == "Depends:" && $2 ~ /^linux-(headers|kbuild)-/ { print $2 }' |
		sort -u | tr '\n' ' ')
	[ -n "$deps" ] || die "no dependencies of linux-headers-$1 in the archive"
	mkdir -p "$root$dir"
	in_root sh -c "cd $dir && apt-get download linux-headers-$1 $deps \
		linux-headers-amd64=$meta" ||
		die "downloading the headers of $1 failed, see $log"
}
mapfile -t kvers < <(cat "$(dirname "$root")"/kver.*)
for k in "${kvers[@]}"; do
	keep_headers "$k"
done
in_root apt-get clean
echo "$rev" > "$root/.complete"
echo "mkroot.sh: $suite root ready: kernels $(cat "$(dirname "$root")"/kver.* | tr '\n' ' ')"
