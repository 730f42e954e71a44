#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# rdma-core.sh: the rdma-core source that libpib is compiled against.
#
# A provider is loaded only by the libibverbs whose private ABI it was
# linked against (symbols IBVERBS_PRIVATE_<PABI>, file name
# lib<name>-rdmav<PABI>.so), and its headers (infiniband/driver.h and
# friends) come only with the rdma-core source: no package installs them.
# So libpib is built against the rdma-core source of exactly the version of
# the installed libibverbs, downloaded from whichever Debian suite carries
# it, through a private apt configuration that reuses this machine's Debian
# archive (provider/debian-uri.sh).
#
#   rdma-core.sh version
#	the rdma-core version of the installed libibverbs (e.g. 56.1)
#   rdma-core.sh pabi
#	its private provider ABI (e.g. 34)
#   rdma-core.sh fetch VERSION DIR [PABI]
#	download rdma-core VERSION's upstream tarball into DIR (needs the
#	network; the rest does not). With PABI, a version that no suite
#	carries falls back to the nearest one that has the same private ABI.
#   rdma-core.sh headers VERSION DIR
#	fetch if needed, unpack into DIR/src and configure DIR/build: the
#	provider headers are then in DIR/build/include. If VERSION is the
#	installed libibverbs', the source's private ABI must be the
#	library's; otherwise the headers serve a compile check only.
#
# RDMA_CORE_TARBALL=path uses that tarball instead of downloading one.
# RDMA_CORE_SUITES overrides the Debian suites searched.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
suites=${RDMA_CORE_SUITES:-bookworm bookworm-updates bookworm-backports trixie trixie-updates trixie-backports sid}

die() { echo "rdma-core.sh: $*" >&2; exit 1; }
say() { echo "rdma-core.sh: $*" >&2; }

# The libibverbs that the provider links with (the compiler's, for its
# default architecture).
libverbs() {
	local lib
	# CC may carry flags (debian/rules passes CC="gcc $(CFLAGS)...", and
	# make 4.4 exports it to $(shell)): split it into words.
	# shellcheck disable=SC2086
	lib=$(${CC:-gcc} -print-file-name=libibverbs.so)
	[ "$lib" != libibverbs.so ] ||
		die "libibverbs is not installed with its headers (Debian: apt-get install libibverbs-dev)"
	readlink -f "$lib"
}

# rdma-core names the library libibverbs.so.1.<minor>.<rdma-core version>.
installed_version() {
	local name
	name=$(basename "$(libverbs)")
	[[ $name =~ ^libibverbs\.so\.1\.[0-9]+\.([0-9]+\.[0-9]+)$ ]] ||
		die "cannot tell the rdma-core version from $name"
	echo "${BASH_REMATCH[1]}"
}

installed_pabi() {
	local lib pabi
	lib=$(libverbs)
	pabi=$(objdump -T "$lib" | grep -o 'IBVERBS_PRIVATE_[0-9]*' | sort -u)
	[ "$(echo "$pabi" | wc -l)" = 1 ] && [ -n "$pabi" ] ||
		die "$lib does not name one private ABI (${pabi:-none})"
	echo "${pabi#IBVERBS_PRIVATE_}"
}

# The version and private ABI that an rdma-core source tree declares.
src_var() {
	sed -n "s/^set($2 \"\\([0-9.]*\\)\")/\\1/p" "$1/CMakeLists.txt"
}

# apt-get/apt-cache with a private configuration: deb-src lines for every
# suite in $suites, lists under $apt, nothing of the system's sources.
apt_private() {
	local tool=$1
	shift
	"$tool" -o "Dir::Etc::SourceList=$apt/sources.list" \
		-o "Dir::Etc::SourceParts=/dev/null" \
		-o "Dir::State::Lists=$apt/lists" \
		-o "Dir::Cache=$apt/cache" \
		-o "APT::Sandbox::User=root" "$@"
}

apt_update() {
	local uri s
	uri=$(bash "$here/debian-uri.sh" || true)
	[ -n "$uri" ] || die "no Debian archive in /etc/apt/sources.list*: not a Debian system? Download rdma-core-$version.tar.gz (the source of your libibverbs) and run again with RDMA_CORE_TARBALL=path"
	mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial"
	for s in $suites; do echo "deb-src $uri $s main"; done >"$apt/sources.list"
	# A suite the archive lacks only fails its own lines.
	apt_private apt-get update >"$apt/update.log" 2>&1 || true
	apt_private apt-cache showsrc rdma-core >"$apt/showsrc" 2>/dev/null || true
	[ -s "$apt/showsrc" ] ||
		die "no rdma-core source in the suites $suites of $uri, see $apt/update.log"
}

# Debian versions of rdma-core in the lists, with their upstream version:
# "DEBVERSION UPSTREAM" lines, no repeats.
debian_versions() {
	sed -n 's/^Version: //p' "$apt/showsrc" | sort -u | while read -r v; do
		local up=${v#*:}
		echo "$v ${up%-*}"
	done
}

# Download the orig tarball of one Debian version into $dir. apt-get may
# fail on the .dsc or the Debian diff (404 seen here) and still fetch the
# orig tarball, whose hash it checked: that tarball is all that is needed.
download() {
	local debver=$1 up=$2
	(cd "$dir" && apt_private apt-get source --download-only \
		"rdma-core=$debver" >>"$apt/source.log" 2>&1) || true
	rm -f "$dir"/rdma-core_*.dsc "$dir"/rdma-core_*.debian.tar.*
	local f
	for f in "$dir/rdma-core_$up.orig.tar."*; do
		[ -e "$f" ] && echo "$f" && break
	done
	true
}

tarball_pabi() {
	tar -xaOf "$1" --wildcards '*/CMakeLists.txt' 2>/dev/null |
		sed -n 's/^set(IBVERBS_PABI_VERSION "\([0-9]*\)")/\1/p' | head -n 1 || true
}

# fetch VERSION DIR [PABI]: DIR/source.tar links to the tarball to use.
fetch() {
	local debver up tb=""
	apt="$dir/apt"
	apt_update
	while read -r debver up; do
		[ "$up" = "$version" ] || continue
		tb=$(download "$debver" "$up")
		[ -n "$tb" ] && break
	done < <(debian_versions)
	if [ -z "$tb" ] && [ -n "$pabi" ]; then
		# Nearest version first: sort by distance of the major numbers.
		while read -r debver up; do
			tb=$(download "$debver" "$up")
			[ -n "$tb" ] && [ "$(tarball_pabi "$tb")" = "$pabi" ] && break
			[ -n "$tb" ] && rm -f "$tb"
			tb=""
		done < <(debian_versions | grep -v " $version\$" |
			awk -v m="${version%%.*}" '{ d = $2 - m; print (d < 0 ? -d : d), $0 }' |
			sort -n -k1,1 | cut -d' ' -f2-)
		[ -n "$tb" ] || die "no Debian suite ($suites) carries rdma-core $version, nor another version with its private ABI $pabi (see $apt/source.log). Download rdma-core-$version.tar.gz, the source of your libibverbs, and run again with RDMA_CORE_TARBALL=path"
		say "WARNING: rdma-core $version cannot be downloaded from Debian; using $(basename "$tb"), which has the same private ABI $pabi"
	fi
	[ -n "$tb" ] || die "no Debian suite ($suites) carries rdma-core $version (see $apt/source.log). Download rdma-core-$version.tar.gz and run again with RDMA_CORE_TARBALL=path"
	ln -sfn "$(basename "$tb")" "$dir/source.tar"
	say "rdma-core $version source: $tb"
}

# Unpack $tarball into DIR/src, unless it already is there.
unpack() {
	local stamp="$dir/src/.pib-tarball" id
	id=$(stat -L -c '%s %Y' "$tarball")" $(readlink -f "$tarball")"
	[ -f "$stamp" ] && [ "$(cat "$stamp")" = "$id" ] && return 0
	rm -rf "$dir/src" "$dir/build" "$dir/public"
	mkdir -p "$dir/src"
	tar -xaf "$tarball" -C "$dir/src" --strip-components=1 ||
		die "cannot unpack $tarball"
	[ -f "$dir/src/CMakeLists.txt" ] || die "$tarball is not an rdma-core source"
	echo "$id" >"$stamp"
}

# Configure only: config.h, the include tree, the kernel ABI headers.
# Without libnl (ENABLE_RESOLVE_NEIGH=0), pyverbs and man pages, so
# cmake, python3, pkg-config and a C compiler are all it needs.
configure() {
	local b="$dir/build"
	[ -f "$b/include/kernel-abi/ib_user_verbs.h" ] && return 0
	mkdir -p "$b"
	(cd "$b" && cmake -DENABLE_RESOLVE_NEIGH=0 -DNO_PYVERBS=1 \
		-DNO_MAN_PAGES=1 -DENABLE_STATIC=0 "$dir/src" >cmake.log 2>&1) ||
		die "cmake of rdma-core failed, see $b/cmake.log"
	make -C "$b" kern-abi >"$b/kern-abi.log" 2>&1 ||
		die "rdma-core header generation failed, see $b/kern-abi.log"
}

# A source of another version with the library's private ABI has its
# private structs, but maybe not its public ones (struct ibv_qp_ex grew in
# 45 and is embedded in struct verbs_qp): DIR/public then gives the
# compiler the installed libibverbs' own public headers first.
public_headers() {
	local h
	rm -rf "$dir/public"
	[ "$srcver" = "$version" ] && return 0
	[ -f /usr/include/infiniband/verbs.h ] ||
		die "building against rdma-core $srcver for libibverbs $version needs libibverbs' own headers (libibverbs-dev)"
	mkdir -p "$dir/public/infiniband"
	for h in "$dir"/build/include/infiniband/*.h; do
		h=$(basename "$h")
		[ -f "/usr/include/infiniband/$h" ] &&
			ln -s "/usr/include/infiniband/$h" "$dir/public/infiniband/$h"
	done
	say "WARNING: libibverbs $version here, but its source is not available: building against rdma-core $srcver, which has the same private ABI $pabi, with the public headers of libibverbs $version"
}

headers() {
	local inst
	inst=$(installed_version 2>/dev/null || true)
	pabi=""
	[ "$version" = "$inst" ] && pabi=$(installed_pabi)
	tarball=${RDMA_CORE_TARBALL:-$dir/source.tar}
	if [ ! -e "$tarball" ]; then
		[ -z "${RDMA_CORE_TARBALL:-}" ] || die "RDMA_CORE_TARBALL=$tarball does not exist"
		fetch
	fi
	unpack
	srcver=$(src_var "$dir/src" PACKAGE_VERSION)
	srcpabi=$(src_var "$dir/src" IBVERBS_PABI_VERSION)
	if [ -z "$pabi" ]; then
		# A compile check against another version than the installed.
		[ "$srcver" = "$version" ] ||
			die "$tarball is rdma-core $srcver, not $version"
		configure
		rm -rf "$dir/public"
		say "rdma-core $version headers (private ABI $srcpabi; not the installed libibverbs, ${inst:-absent}: no ABI check) in $dir/build/include"
		return 0
	fi
	[ "$srcpabi" = "$pabi" ] ||
		die "$tarball is rdma-core $srcver, private ABI $srcpabi, but the installed libibverbs $version has private ABI $pabi: a provider built from it would not load. Use the rdma-core $version source (RDMA_CORE_TARBALL=path)"
	configure
	public_headers
	say "rdma-core $srcver headers for libibverbs $version (private ABI $pabi) in $dir/build/include"
}

cmd=${1:-}
case $cmd in
version) installed_version ;;
pabi) installed_pabi ;;
fetch | headers)
	# An empty VERSION: the installed libibverbs' (or why there is none).
	version=${2:-$(installed_version)}
	dir=${3:?usage: rdma-core.sh $cmd VERSION DIR}
	pabi=${4:-}
	mkdir -p "$dir"
	dir=$(cd "$dir" && pwd)
	"$cmd"
	;;
*) die "usage: rdma-core.sh version | pabi | fetch VERSION DIR [PABI] | headers VERSION DIR" ;;
esac
