#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# make-deb.sh OUTDIR: build pib's Debian packages from this tree (make deb):
#   pib-dkms_V_all.deb               the module's source, built by DKMS
#   ibverbs-provider-pib_V_ARCH.deb  libpib and its driver file
#   pib-tools_V_ARCH.deb             pib-sm, pib-fabric, the Wireshark dissector
# OUTDIR is emptied first. The sources are copied to OUTDIR/pib-V, which
# gets a debian/changelog for V (debian/version.sh), and dpkg-buildpackage
# builds there, leaving the packages in OUTDIR. PIB_RDMA_CORE names the
# rdma-core source that the provider build reuses (the Makefile passes
# its own); PIB_VERSION overrides the version.
set -euo pipefail
out=${1:?usage: make-deb.sh OUTDIR}
src=$(cd "$(dirname "$0")/.." && pwd)
die() { echo "make-deb.sh: $*" >&2; exit 1; }
command -v dpkg-buildpackage >/dev/null || die "dpkg-buildpackage missing (apt-get install dpkg-dev)"

version=$(bash "$src/debian/version.sh" "$src")
rm -rf "$out"
mkdir -p "$out"
out=$(cd "$out" && pwd)
tree=$out/pib-$version
mkdir "$tree"
# The module's sources as kernel/Kbuild builds them (not its build
# products), the provider and the Makefile that builds it, the tools.
(cd "$src" && tar -cf - Makefile README.md dkms.conf debian provider \
	kernel/Kbuild kernel/pib*.h kernel/pib_*.c include/uapi/rdma/pib-abi.h \
	userspace-sm tools/pib-fabric tests/tools/pib.lua) |
	tar -xf - -C "$tree"

if commit=$(git -C "$src" rev-parse --short=7 HEAD 2>/dev/null); then
	what="Built by make deb from git commit $commit."
	date=$(git -C "$src" log -1 --format=%cD)
else
	what="Built by make deb."
	date=$(date -R)
fi
maint=$(sed -n 's/^Maintainer: //p' "$src/debian/control")
cat > "$tree/debian/changelog" <<END
pib ($version) unstable; urgency=medium

  * $what

 -- $maint  $date
END

echo "make-deb.sh: building pib $version in $tree"
(cd "$tree" && DEB_BUILD_OPTIONS="noautodbgsym ${DEB_BUILD_OPTIONS:-}" \
	dpkg-buildpackage -b -us -uc) >"$out/build.log" 2>&1 ||
	{ tail -n 30 "$out/build.log" >&2; die "dpkg-buildpackage failed, see $out/build.log"; }
rm -rf "$tree"
ls "$out"/*.deb
