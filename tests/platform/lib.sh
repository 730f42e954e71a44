# shellcheck shell=bash disable=SC2034
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Test platforms (tests/platform/platforms), for tests/run and friends,
# which use the plat_* variables this file sets (SC2034).
# platform_resolve NAME HOST_KVER sets plat_root (/ for the host), plat_kver
# (the kernel the guests boot) and plat_build (where make puts pib for that
# root), making the root first if needed (tests/platform/mkroot.sh).

plat_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
plat_src=$(cd "$plat_dir/../.." && pwd)

# platform_names: every platform but the debug ones, the default (first)
# one first.
platform_names() {
	awk '!/^#/ && NF == 3 && $3 != "debug" { print $1 }' "$plat_dir/platforms"
}

platform_resolve() {	# NAME HOST_KVER
	local line suite kernel base
	line=$(awk -v n="$1" '!/^#/ && $1 == n' "$plat_dir/platforms")
	[ -n "$line" ] || { echo "no platform '$1' (see tests/platform/platforms)" >&2; return 1; }
	read -r _ suite kernel <<<"$line"
	if [ "$suite" = host ]; then
		plat_root=/ plat_kver=$2 plat_build=$plat_src/build
		return 0
	fi
	base=$plat_src/build/platforms/$suite
	plat_root=$base/root plat_build=$base/out
	bash "$plat_dir/mkroot.sh" "$suite" "$plat_root" || return 1
	if [ "$kernel" = debug ]; then
		bash "$plat_dir/debug-kernel.sh" install "$plat_root" "$2" || return 1
	fi
	plat_kver=$(cat "$base/kver.$kernel" 2>/dev/null)
	[ -n "$plat_kver" ] || { echo "root $plat_root has no kernel for '$kernel'" >&2; return 1; }
}
