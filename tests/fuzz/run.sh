#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# run.sh BUILD SECONDS TARGET...: run each fuzz harness for SECONDS from
# its checked-in corpus (new inputs go to BUILD/run/TARGET/corpus, not to the
# checked-in one). One line per harness; on a failure, the end of its log
# and how to replay the input that failed.
set -u
build=$1 seconds=$2
shift 2
here=$(cd "$(dirname "$0")" && pwd)
status=0
for t in "$@"; do
	out=$build/run/$t
	rm -rf "$out"
	mkdir -p "$out/corpus"
	case $t in
	fuzz_pkt|fuzz_switch|fuzz_sa) max_len=8400 ;;
	fuzz_resp|fuzz_comp) max_len=20000 ;;
	*) max_len=4096 ;;
	esac
	start=$SECONDS
	if "$build/$t" -max_total_time="$seconds" -timeout=20 -rss_limit_mb=2048 \
		-max_len=$max_len -print_final_stats=1 -artifact_prefix="$out/" \
		"$out/corpus" "$here/corpus/$t" >"$out/log" 2>&1; then
		runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$out/log")
		cov=$(grep -o 'cov: [0-9]*' "$out/log" | tail -n 1)
		printf 'fuzz %-16s ok    %4ss  %s runs, %s\n' "$t" \
			$((SECONDS - start)) "${runs:-?}" "${cov:-cov: ?}"
	else
		status=1
		printf 'fuzz %-16s FAIL  %4ss  log: %s\n' "$t" \
			$((SECONDS - start)) "$out/log"
		grep -E -A 30 'ERROR: |FUZZ_CHECK|kshim:|runtime error|malformed' \
			"$out/log" | head -n 40
		for a in "$out"/crash-* "$out"/leak-* "$out"/timeout-* \
			 "$out"/oom-*; do
			[ -e "$a" ] && echo "replay: $build/$t $a"
		done
	fi
done
exit $status
