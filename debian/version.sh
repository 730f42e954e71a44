#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# version.sh [SRCDIR]: print pib's version, as the packages carry it.
#
# The project has one version: the module's (PIB_VER_MAJOR/MINOR/SUB in
# kernel/pib.h, which modinfo shows and query_device reports as fw_ver).
# dkms.conf and debian/changelog take it from here. A build from a git
# checkout that is not at the release tag vX.Y.Z says where it stands,
# so that each newer commit gives a higher package version and apt
# upgrades to it:
#   X.Y.Z                  at tag vX.Y.Z, or outside git
#   X.Y.Z~gitN.gHASH       before the release vX.Y.Z
#   X.Y.Z+gitN.gHASH       after it (pib.h not yet bumped)
# N counts the commits up to HEAD. PIB_VERSION=... in the environment
# overrides all of this (for builds where git cannot see the checkout).
set -euo pipefail
src=${1:-$(cd "$(dirname "$0")/.." && pwd)}

if [ -n "${PIB_VERSION:-}" ]; then
	echo "$PIB_VERSION"
	exit 0
fi
part() { sed -n "s/^#define PIB_VER_$1[[:space:]]*\([0-9]*\)\$/\1/p" "$src/kernel/pib.h"; }
base=$(part MAJOR).$(part MINOR).$(part SUB)
[[ $base =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] ||
	{ echo "version.sh: no PIB_VER_MAJOR/MINOR/SUB in $src/kernel/pib.h" >&2; exit 1; }

git=(git -C "$src")
if ! command -v git >/dev/null || ! "${git[@]}" rev-parse --verify -q HEAD >/dev/null 2>&1; then
	echo "$base"
	exit 0
fi
[ "$("${git[@]}" tag --points-at HEAD -l "v$base")" = "v$base" ] && { echo "$base"; exit 0; }
snapshot=git$("${git[@]}" rev-list --count HEAD).g$("${git[@]}" rev-parse --short=7 HEAD)
if "${git[@]}" merge-base --is-ancestor "v$base" HEAD 2>/dev/null; then
	echo "$base+$snapshot"
else
	echo "$base~$snapshot"
fi
