#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# debian-uri.sh: print the URI of the Debian archive this machine's apt
# uses (one-line or deb822 sources; not the security archive), so that
# other Debian suites are fetched from the same place.
set -euo pipefail
{
for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
	[ -r "$f" ] || continue
	awk '$1 == "deb" && $0 ~ /debian/ && $0 !~ /security/ {
		for (i = 2; i <= NF; i++) if ($i ~ /^[a-z]+:\/\//) { print $i; exit } }' "$f"
done
for f in /etc/apt/sources.list.d/*.sources; do
	[ -r "$f" ] || continue
	awk '/^URIs:/ && $2 ~ /debian/ && $2 !~ /security/ { print $2; exit }' "$f"
done
} | sed -n 1p
