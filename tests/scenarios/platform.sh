#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# hosts: 3
# timeout: 2400
# parts: device opensm pingpong ipoib pyverbs
# The platform suite (tests/platform/suite) on one LAN of guests: each of
# its parts, scenarios of their own on the default platform, runs in turn
# on the first N hosts of the LAN (N its "# hosts:") under its own time
# limit, with its results in a directory of its own. Between two parts, a
# host ends what the part left running and unloads pib; a part starts once
# every host it needs is through the one before. A host with no part left
# powers off. One boot of 3 guests for the suite, where the parts alone
# boot 9, and each guest installs pib once.
# shellcheck source=../lib.sh
. "$PIB_SRC/tests/lib.sh"

parts=$(sed -n 's/^# parts: *//p' "$PIB_SCENARIO" | head -n 1)
top=$PIB_RESULTS

# header_of FILE NAME DEFAULT: the value of FILE's "# NAME:" header line.
header_of() {
	local v
	v=$(sed -n "s/^# $2: *\([0-9]*\).*/\1/p" "$1" | head -n 1)
	echo "${v:-$3}"
}

# user_pids: the processes of userspace now (kernel threads have no exe).
user_pids() {
	local p
	for p in /proc/[0-9]*; do
		[ -e "$p/exe" ] && echo "${p#/proc/}"
	done | sort
}

# part_reset: end the processes that were not there before the part
# (/tmp/part.pids; the guests have no /dev/fd for <(...)), then unload pib
# and what loaded over it; it must go.
part_reset() {
	local pids=() p list
	# (those still there once listed: the listing's own subshells are not)
	for p in $(user_pids | grep -vxF -f /tmp/part.pids); do
		[ -e "/proc/$p" ] && pids+=("$p")
	done
	if [ ${#pids[@]} -gt 0 ]; then
		list=$(IFS=,; echo "${pids[*]}")
		echo "# ending what $part left running:" \
			"$(ps -o comm= -p "$list" | sort | uniq -c | tr -s '\n ' ' ')"
	fi
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
	for p in "${pids[@]}"; do wait_for 10 gone "$p" || kill -9 "$p" 2>/dev/null; done
	modprobe -r ib_ipoib rdma_ucm 2>/dev/null
	check "$part: pib unloads after it" modprobe -r pib
}

failed=0
for part in $parts; do
	s=$PIB_SRC/tests/scenarios/$part.sh
	n=$(header_of "$s" hosts 1)
	limit=$(tf "$(header_of "$s" timeout 600)")
	[ "$PIB_HOST" -le "$n" ] || continue
	PIB_HOSTS=$n barrier "part-$part" 3600
	mkdir -p "$top/$part"
	echo "== part $part ($n hosts, at most $limit s)"
	user_pids >/tmp/part.pids
	PIB_PART=$part PIB_HOSTS=$n PIB_RESULTS=$top/$part PIB_SCENARIO=$s timeout -k 10 "$limit" bash "$s"
	st=$?
	[ $st = 124 ] && echo "FAIL - $part: still running after $limit s"
	[ $st = 0 ] || failed=$((failed + 1))
	echo "== part $part: exit status $st"
	part_reset
done
[ $failed = 0 ] || fail "$failed part(s) failed"
pib_done
