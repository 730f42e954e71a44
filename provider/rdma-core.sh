#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# rdma-core.sh DIR: make DIR/include hold rdma-core's provider headers
# (infiniband/driver.h and friends, with config.h and the kernel ABI
# headers), taken from Debian's rdma-core source package.
#
# libibverbs-dev does not ship the provider headers, so this fetches the
# upstream tarball of a Debian rdma-core source package (trixie's, which the
# package registry still serves) with a private apt configuration that reuses
# the URI of this machine's Debian source, checks that its provider ABI is
# the one of the installed libibverbs, and configures it with cmake.
# RDMA_CORE_TARBALL=path skips the download.
set -euo pipefail

dir=${1:?usage: rdma-core.sh DIR}
suite=${RDMA_CORE_SUITE:-trixie}
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)

die() { echo "rdma-core.sh: $*" >&2; exit 1; }

# The URI of the configured Debian archive (one-line or deb822 sources).
debian_uri() {
	local f
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[ -r "$f" ] || continue
		awk '$1 == "deb" && $0 ~ /debian/ && $0 !~ /security/ {
			for (i = 2; i <= NF; i++) if ($i ~ /^[a-z]+:\/\//) { print $i; exit } }' "$f"
	done
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -r "$f" ] || continue
		awk '/^URIs:/ && $2 ~ /debian/ && $2 !~ /security/ { print $2; exit }' "$f"
	done
}

fetch_tarball() {
	local uri apt
	uri=$(debian_uri | sed -n 1p)
	[ -n "$uri" ] || die "no Debian archive found in /etc/apt/sources.list*"
	apt="$dir/apt"
	mkdir -p "$apt/lists/partial"
	echo "deb-src $uri $suite main" > "$apt/sources.list"
	local opts=(-o "Dir::Etc::SourceList=$apt/sources.list"
		    -o "Dir::Etc::SourceParts=/dev/null"
		    -o "Dir::State::Lists=$apt/lists"
		    -o "APT::Sandbox::User=root")
	apt-get "${opts[@]}" update >"$apt/update.log" 2>&1 ||
		die "apt-get update for $suite sources failed, see $apt/update.log"
	# The .dsc may 404 while the orig tarball downloads; the tarball is
	# all that is needed, so judge by its presence.
	(cd "$dir" && apt-get "${opts[@]}" source --download-only \
		"rdma-core/$suite" >"$apt/source.log" 2>&1) || true
}

tarball=${RDMA_CORE_TARBALL:-}
if [ -z "$tarball" ]; then
	tarball=$(ls "$dir"/rdma-core_*.orig.tar.gz 2>/dev/null | head -n 1 || true)
	if [ -z "$tarball" ]; then
		fetch_tarball
		tarball=$(ls "$dir"/rdma-core_*.orig.tar.gz 2>/dev/null | head -n 1 || true)
		[ -n "$tarball" ] || die "could not download rdma-core/$suite source, see $dir/apt/source.log"
	fi
fi

src="$dir/src"
if [ ! -f "$src/CMakeLists.txt" ]; then
	rm -rf "$src" && mkdir -p "$src"
	tar -xzf "$tarball" -C "$src" --strip-components=1
fi

# The provider ABI of the source must be the installed library's.
libverbs=$(ldconfig -p | awk '!f && /libibverbs\.so\.1 .*x86-64|libibverbs\.so\.1 \(libc6,/ { print $NF; f = 1 }')
[ -n "$libverbs" ] || die "libibverbs.so.1 not installed (apt-get install libibverbs-dev)"
have=$(objdump -T "$libverbs" | grep -o 'IBVERBS_PRIVATE_[0-9]*' | sort -u | head -n 1)
want=IBVERBS_PRIVATE_$(sed -n 's/^set(IBVERBS_PABI_VERSION "\([0-9]*\)")/\1/p' "$src/CMakeLists.txt")
[ "$have" = "$want" ] ||
	die "$tarball has provider ABI $want but $libverbs has $have: use an rdma-core source with the installed ABI (RDMA_CORE_TARBALL=...)"

build="$dir/build"
if [ ! -f "$build/include/kernel-abi/ib_user_verbs.h" ]; then
	mkdir -p "$build"
	(cd "$build" && cmake -DNO_PYVERBS=1 -DNO_MAN_PAGES=1 -DENABLE_STATIC=0 \
		"$src" >cmake.log 2>&1) || die "cmake of rdma-core failed, see $build/cmake.log"
	make -C "$build" kern-abi >"$build/kern-abi.log" 2>&1 ||
		die "rdma-core header generation failed, see $build/kern-abi.log"
fi
echo "rdma-core.sh: provider headers in $build/include ($want)"
