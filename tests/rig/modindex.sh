#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# modindex.sh KVER PIB_KO OUT [ROOT]: compute, on the host, the module index
# (modules.dep, modules.alias, ...) that depmod would write in a guest after
# `make install` put PIB_KO at updates/pib.ko. depmod inside an emulated
# guest takes a minute; here it takes a second. Guests copy OUT/modules.*
# into their /lib/modules/KVER (tests/lib.sh, pib_install). ROOT is the
# guests' root (default /).
set -euo pipefail
kver=${1:?usage: modindex.sh KVER PIB_KO OUT [ROOT]}
ko=${2:?usage: modindex.sh KVER PIB_KO OUT [ROOT]}
out=${3:?usage: modindex.sh KVER PIB_KO OUT [ROOT]}
mods=${4:-}/lib/modules/$kver

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
tree=$stage/lib/modules/$kver
mkdir -p "$tree/updates"
for f in "$mods"/*; do
	case $(basename "$f") in
	modules.order | modules.builtin*) cp "$f" "$tree/" ;;
	modules.*) ;;
	*) ln -s "$f" "$tree/" ;;
	esac
done
cp "$ko" "$tree/updates/pib.ko"
depmod -b "$stage" "$kver"
rm -rf "$out"
mkdir -p "$out"
cp "$tree"/modules.* "$out/"
