#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""table.py BENCH_TSV [KVER] [SECONDS]: the bench's table from bench.tsv.

Each line of BENCH_TSV is "ROUND TEST SIZE DEV VALUE" (VALUE a number or
"n/a"). Prints, per test and size, the median over the rounds for pib and
for rxe and the ratio pib/rxe; a cell with no number is "n/a", and a median
over fewer rounds than were run says how many it has, e.g. "6.10 (2/3)".
"""
import statistics
import sys

UNITS = {"bw": "MB/s", "lat": "usec", "tcp": "Mbit/s"}
DEVS = ("pib", "rxe")


def kind(test):
    return "tcp" if test == "tcp" else test.rsplit("_", 1)[1]


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    rows = {}       # (test, size) -> dev -> [values]
    order = []
    rounds = set()
    with open(sys.argv[1]) as f:
        for line in f:
            parts = line.split()
            if len(parts) != 5:
                continue
            rnd, test, size, dev, value = parts
            rounds.add(rnd)
            key = (test, size)
            if key not in rows:
                rows[key] = {}
                order.append(key)
            vals = rows[key].setdefault(dev, [])
            try:
                vals.append(float(value))
            except ValueError:
                vals.append(None)

    def cell(vals):
        nums = [v for v in vals or [] if v is not None]
        if not nums:
            return None, "n/a"
        med = statistics.median(nums)
        text = f"{med:.2f}"
        if len(nums) < len(vals):
            text += f" ({len(nums)}/{len(vals)})"
        return med, text

    head = "pib bench: 2 VMs under QEMU"
    if len(sys.argv) > 2:
        head += f", kernel {sys.argv[2]}"
    head += f", median of {len(rounds)} round(s)"
    if len(sys.argv) > 3:
        head += f", {int(sys.argv[3]) // 60} min"
    print(head)
    fmt = "{:<13} {:>7} {:>7}  {:>16} {:>16} {:>8}"
    print(fmt.format("test", "bytes", "unit", "pib", "rxe", "pib/rxe"))
    tcp = None
    for test, size in order:
        devs = rows[(test, size)]
        if test == "tcp":
            tcp = cell(devs.get("tcp"))
            continue
        (p, ptext), (r, rtext) = cell(devs.get("pib")), cell(devs.get("rxe"))
        ratio = f"{p / r:.2f}" if p is not None and r else "n/a"
        print(fmt.format("ib_" + test, size, UNITS[kind(test)], ptext, rtext, ratio))
    if tcp:
        mb = f" = {tcp[0] * 1e6 / 8 / 2**20:.2f} MB/s" if tcp[0] is not None else ""
        print(f"ceiling: iperf3 TCP between the same VMs: {tcp[1]} Mbit/s{mb}")
    print("bw: higher is better, pib/rxe > 1 means pib is faster; "
          "lat: lower is better, pib/rxe < 1 means pib is faster")


if __name__ == "__main__":
    main()
