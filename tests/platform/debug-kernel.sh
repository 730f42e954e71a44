#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# debug-kernel.sh build HOST_KVER: build the debug kernel the debian12-debug
# platform boots, from Debian's linux-source-6.1: Debian's config (that of
# the host's kernel HOST_KVER, /boot/config-HOST_KVER) trimmed to the
# modules the scenarios load (debug-kernel.modules, make localmodconfig),
# plus KASAN, lockdep, DEBUG_ATOMIC_SLEEP and kmemleak (debug-kernel.config).
# `make bindeb-pkg` packages it; the .debs stay in build/debug-kernel/HASH/,
# HASH naming the recipe (source version, base config, module list, options),
# and are reused while the recipe is the same. Prints that directory.
# The build is niced and runs 2 jobs: 1 to 2 hours on a busy 2-core machine.
#
# debug-kernel.sh install ROOT HOST_KVER: build it if needed, install its
# linux-image and linux-headers packages into the Debian root ROOT (made
# by mkroot.sh, a bookworm root) and write ROOT/../kver.debug.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
die() { echo "debug-kernel.sh: $*" >&2; exit 1; }
usage="usage: debug-kernel.sh build HOST_KVER | install ROOT HOST_KVER"
rev=1	# part of the recipe: raise it to rebuild with the same inputs
tarball=/usr/src/linux-source-6.1.tar.xz
top=$src/build/debug-kernel

# recipe HOST_KVER: the inputs of the build, the hash of which names it.
recipe() {
	echo "rev $rev"
	dpkg-query -W -f '${Package} ${Version}\n' linux-source-6.1
	cat "/boot/config-$1" "$here/debug-kernel.modules" "$here/debug-kernel.config"
}

# options: debug-kernel.config's settings, one "NAME VALUE" a line.
options() {
	sed -n 's/^\([A-Z0-9_]*\)=\(.*\)$/\1 \2/p' "$here/debug-kernel.config"
}

# configure DIR HOST_KVER: the .config in the kernel tree DIR.
configure() {
	local dir=$1 name value want have bad=0
	cp "/boot/config-$2" "$dir/.config"
	make -C "$dir" -s LSMOD="$here/debug-kernel.modules" localmodconfig </dev/null
	while read -r name value; do
		case $value in
		y) "$dir/scripts/config" --file "$dir/.config" -e "$name" ;;
		n) "$dir/scripts/config" --file "$dir/.config" -d "$name" ;;
		\"*) value=${value#\"}; "$dir/scripts/config" --file "$dir/.config" --set-str "$name" "${value%\"}" ;;
		*) "$dir/scripts/config" --file "$dir/.config" --set-val "$name" "$value" ;;
		esac
	done < <(options)
	make -C "$dir" -s olddefconfig
	# Kconfig drops what it cannot satisfy without a word: check.
	while read -r name value; do
		want="CONFIG_$name=$value"
		[ "$value" = n ] && want="# CONFIG_$name is not set"
		have=$(grep -E "^(# )?CONFIG_${name}[= ]" "$dir/.config" || true)
		[ "$value" = n ] && [ -z "$have" ] && continue
		[ "$have" = "$want" ] || { echo "debug-kernel.sh: wanted $want, got '${have:-nothing}'" >&2; bad=1; }
	done < <(options)
	return $bad
}

# build HOST_KVER: the .debs' directory, built if missing.
build() {
	local kver=$1 hash dir tree start
	[ -r "/boot/config-$kver" ] || die "/boot/config-$kver missing (linux-image-$kver)"
	[ -r "$tarball" ] || die "$tarball missing: install linux-source-6.1 (make deps)"
	hash=$(recipe "$kver" | sha256sum | cut -c1-16)
	dir=$top/$hash
	mkdir -p "$top"
	exec 9>"$top/lock"
	flock 9
	if [ ! -f "$dir/.complete" ]; then
		echo "debug-kernel.sh: building the debug kernel in $dir (log: $dir/build.log); this takes long" >&2
		start=$SECONDS
		rm -rf "$dir"
		mkdir -p "$dir"
		tree=$dir/linux
		mkdir -p "$tree"
		tar -xf "$tarball" -C "$tree" --strip-components=1
		configure "$tree" "$kver" >"$dir/build.log" 2>&1 ||
			die "configuring failed, see $dir/build.log"
		cp "$tree/.config" "$dir/config"
		# Other engineers' VMs keep the CPU: nice, 2 jobs.
		nice -n 19 make -C "$tree" -j2 bindeb-pkg KDEB_PKGVERSION="$(make -s -C "$tree" kernelversion)-1" \
			>>"$dir/build.log" 2>&1 || die "the kernel build failed, see $dir/build.log"
		make -s -C "$tree" kernelrelease > "$dir/kver"
		rm -rf "$tree" "$dir"/linux-libc-dev_*.deb
		echo "built in $((SECONDS - start)) s" >> "$dir/build.log"
		echo "$hash" > "$dir/.complete"
	fi
	echo "$dir"
}

# install ROOT HOST_KVER: the debug kernel in ROOT.
install() {
	local root=$1 dir kver
	dir=$(build "$2")
	kver=$(cat "$dir/kver")
	if [ "$(cat "$root/.debug-kernel" 2>/dev/null)" != "$(cat "$dir/.complete")" ]; then
		mkdir -p "$root/var/cache/pib-debug"
		rm -f "$root"/var/cache/pib-debug/*.deb
		cp "$dir"/linux-image-*.deb "$dir"/linux-headers-*.deb "$root/var/cache/pib-debug/"
		unshare -m --propagation private bash -euo pipefail -c '
			mount -t proc proc "$1/proc"
			DEBIAN_FRONTEND=noninteractive chroot "$1" sh -c "dpkg -i /var/cache/pib-debug/*.deb"
		' install "$root" >"$dir/install.log" 2>&1 ||
			die "installing the debug kernel into $root failed, see $dir/install.log"
		cp "$dir/.complete" "$root/.debug-kernel"
	fi
	[ -r "$root/boot/vmlinuz-$kver" ] && [ -d "$root/usr/src/linux-headers-$kver" ] ||
		die "$root lacks $kver's image or headers after installing"
	echo "$kver" > "$(dirname "$root")/kver.debug"
}

case ${1:-} in
build) [ $# = 2 ] || die "$usage"; build "$2" ;;
install) [ $# = 3 ] || die "$usage"; [ "$(id -u)" = 0 ] || die "needs root (chroot)"; install "$2" "$3" ;;
*) die "$usage" ;;
esac
