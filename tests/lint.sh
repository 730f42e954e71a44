#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# lint.sh: pib's kernel code checked by the kernel's own tools, each at zero
# warnings. One line per check; on a failure, what it found.
#
#   w1          pib.ko built with W=1 (gcc's extra warnings, and kernel-doc
#               on the .c files), in the same pass as
#   sparse      sparse on every file (C=2)
#   kernel-doc  scripts/kernel-doc -none -v on kernel/*.c, kernel/*.h and
#               include/uapi/rdma/pib-abi.h (-v: also a Return: wherever a
#               function returns a value)
#   checkpatch  scripts/checkpatch.pl --strict on kernel/ and the ABI
#               header, but for the findings in $allowed below
#   scripts     every shell script of tests/ and provider/ checked by the
#               ShellCheck tool, with the settings (and the checks left
#               out, and why) of .shellcheckrc
#
# make -C tests/unit runs it (the unit stage of make test); make lint runs
# it alone. The build goes to BUILD/lint (BUILD: build/ of the tree).
#
# Tools, as a Debian host has them (make deps installs their packages):
# the kernel build dir KDIR (as the top-level Makefile picks it, from
# linux-headers-amd64), sparse, shellcheck, and kernel-doc and checkpatch.pl
# from the kernel source of linux-source-6.1: /usr/src/linux-source-6.1 if
# it is unpacked, else taken out of its tarball into BUILD/lint/scripts.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/.." && pwd)
build=${BUILD:-$src/build}/lint
ksrc_tar=/usr/src/linux-source-6.1.tar.xz
scripts=/usr/src/linux-source-6.1/scripts

# checkpatch findings that cannot go, as FILE:TYPE.
allowed=(
	# pib builds out of tree for Linux 6.1 to 7.3 (docs/kernel-compat.md):
	# pib_compat.h is the one place that compares kernel versions.
	kernel/pib_compat.h:LINUX_VERSION_CODE
	# The tracepoints are written in the TRACE_EVENT() language, which
	# checkpatch reads as plain C (the kernel's trace headers get the same):
	# TP_PROTO() on the line after "TRACE_EVENT(name,", field and symbol
	# lists as macros, TRACE_DEFINE_ENUM() lists ending in ';'.
	kernel/pib_trace.h:OPEN_ENDED_LINE
	kernel/pib_trace.h:PARENTHESIS_ALIGNMENT
	kernel/pib_trace.h:COMPLEX_MACRO
	kernel/pib_trace.h:TRAILING_SEMICOLON
)

failed=()
fail() {	# fail CHECK MESSAGE...
	failed+=("$1")
	printf 'lint %-12s FAIL  %s\n' "$1" "$2"
	shift 2
	[ $# = 0 ] || printf '%s\n' "$@" | head -n 60
}
ok() {		# ok CHECK [DETAIL]
	printf 'lint %-12s ok    %s\n' "$1" "${2:-}"
}

if [ -z "${KDIR:-}" ]; then
	KDIR=/lib/modules/$(uname -r)/build
	[ -d "$KDIR" ] ||
		KDIR=$(printf '%s\n' /usr/src/linux-headers-*-amd64 | sort -V | tail -n 1)
fi

# The kernel source's scripts: unpacked, or out of the tarball once.
kscripts() {
	local s
	[ -x "$scripts/checkpatch.pl" ] && [ -x "$scripts/kernel-doc" ] && return 0
	scripts=$build/scripts
	[ -x "$scripts/checkpatch.pl" ] && [ -x "$scripts/kernel-doc" ] && return 0
	[ -f "$ksrc_tar" ] || return 1
	mkdir -p "$build"
	for s in checkpatch.pl kernel-doc spelling.txt const_structs.checkpatch; do
		echo "linux-source-6.1/scripts/$s"
	done > "$build/scripts.list"
	tar -xJf "$ksrc_tar" -C "$build" --strip-components=1 \
		-T "$build/scripts.list" 2>/dev/null &&
		[ -x "$scripts/checkpatch.pl" ] && [ -x "$scripts/kernel-doc" ]
}

# W=1 and sparse: one build of a fresh copy of kernel/, without the
# Kbuild's -Werror, so that every warning is listed, not just the first.
lint_build() {
	local out=$build/kernel log=$build/build.log w s
	if [ -z "$KDIR" ] || [ ! -d "$KDIR" ]; then
		fail w1 "no kernel build dir: install linux-headers-amd64 (make deps) or set KDIR"
		fail sparse "no kernel build dir (see w1)"
		return
	fi
	if ! command -v sparse >/dev/null; then
		fail sparse "sparse is missing: install the sparse package (make deps)"
		return
	fi
	rm -rf "$out"
	mkdir -p "$out"
	cp "$src"/kernel/pib_*.c "$src"/kernel/pib*.h "$src"/kernel/Kbuild "$out"/
	# kernel/Kbuild finds <rdma/pib-abi.h> in ../include/uapi.
	mkdir -p "$build/include/uapi/rdma"
	cp "$src/include/uapi/rdma/pib-abi.h" "$build/include/uapi/rdma/"
	sed -i 's/^ccflags-y += -Werror$//' "$out/Kbuild"
	if ! make -j2 -C "$KDIR" M="$out" CONFIG_INFINIBAND_PIB=m W=1 C=2 \
			modules >"$log" 2>&1; then
		fail w1 "the build failed: $log" "$(grep -E 'error|warning' "$log")"
		return
	fi
	# gcc's and kernel-doc's lines carry [-W...] or "warning:"; sparse's
	# (after "CHECK file.c") say warning: or error: without a flag.
	w=$(grep -E '^[^ :]+:[0-9]+(:[0-9]+)?: (warning|error):' "$log" |
		grep -E '\[-W[^]]*\]$|^[^ :]+:[0-9]+: warning:')
	s=$(grep -E '^[^ :]+:[0-9]+:[0-9]+: (warning|error):' "$log" |
		grep -vE '\[-W[^]]*\]$')
	if [ -n "$w" ]; then
		fail w1 "$(wc -l <<<"$w") warnings (log: $log)" "$w"
	else
		ok w1 "pib.ko with W=1 ($(basename "$KDIR"))"
	fi
	if [ -n "$s" ]; then
		fail sparse "$(wc -l <<<"$s") warnings (log: $log)" "$s"
	else
		ok sparse "C=2, $(sparse --version 2>/dev/null)"
	fi
}

lint_kernel_doc() {
	local w
	# -v says which comment it reads ("info:") and counts the warnings.
	w=$(cd "$src" && perl "$scripts/kernel-doc" -none -v kernel/*.c \
		kernel/*.h include/uapi/rdma/pib-abi.h 2>&1 |
		grep -vE ': info: |^[0-9]+ warnings$')
	if [ -n "$w" ]; then
		fail kernel-doc "$(grep -c 'warning' <<<"$w") warnings" "$w"
	else
		ok kernel-doc "kernel-doc -none -v kernel/ include/uapi/rdma/pib-abi.h"
	fi
}

lint_checkpatch() {
	local out w a left=()
	out=$(cd "$src" && perl "$scripts/checkpatch.pl" --strict --no-tree \
		--terse --show-types --no-summary -f kernel/*.c kernel/*.h \
		include/uapi/rdma/pib-abi.h 2>&1)
	while IFS= read -r w; do
		[ -n "$w" ] || continue
		# kernel/FILE:LINE: LEVEL:TYPE: message
		a=$(sed -E 's/^([^:]+):[0-9]+: [A-Z]+:([A-Z0-9_]+):.*/\1:\2/' <<<"$w")
		[[ " ${allowed[*]} " == *" $a "* ]] || left+=("$w")
	done <<<"$out"
	if [ ${#left[@]} -gt 0 ]; then
		fail checkpatch "${#left[@]} findings" "${left[@]}"
	else
		ok checkpatch "--strict, ${#allowed[@]} allowed: ${allowed[*]}"
	fi
}

# Every shell script of tests/, provider/ and tools/: the ones named .sh,
# and the others whose first line runs a shell.
lint_shellcheck() {
	local f files=() w
	if ! command -v shellcheck >/dev/null; then
		fail scripts "shellcheck is missing: install the shellcheck package (make deps)"
		return
	fi
	while IFS= read -r f; do
		case $f in
		*.sh) files+=("$f") ;;
		*) head -n 1 "$src/$f" | grep -qE '^#!.*(bash|sh)\b' && files+=("$f") ;;
		esac
	done < <(cd "$src" && git ls-files tests provider tools 2>/dev/null ||
		find tests provider tools -type f ! -path '*/corpus/*')
	w=$(cd "$src" && shellcheck -f gcc "${files[@]}" 2>&1)
	if [ -n "$w" ]; then
		fail scripts "$(wc -l <<<"$w") findings" "$w"
	else
		ok scripts "${#files[@]} scripts, $(shellcheck --version | sed -n 's/^version: //p')"
	fi
}

lint_build
lint_shellcheck
if kscripts; then
	lint_kernel_doc
	lint_checkpatch
else
	fail kernel-doc "no kernel source scripts: install linux-source-6.1 (make deps)"
	fail checkpatch "no kernel source scripts: install linux-source-6.1 (make deps)"
fi
if [ ${#failed[@]} -gt 0 ]; then
	echo "lint: FAILED: ${failed[*]}"
	exit 1
fi
echo "lint: ok"
