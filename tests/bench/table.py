#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""table.py BENCH_TSV [KVER] [SECONDS]: the bench's tables from bench.tsv.

Each line of BENCH_TSV is "ROUND TEST SIZE QPS DEV VALUE CPU1 CPU2 BYTES
TIMEOUTS NAKS" (bench-host.sh; each a number, or "n/a" or "-"; the last
two, the client's resends, may be missing).
Prints, per test, size and number of QPs, the median over the rounds for
pib and for rxe, the ratio pib/rxe, and for bandwidth tests the CPU
seconds per GB moved on the server and on the client (host1+host2), and
the client's resends over all rounds (ACK timeouts/sequence NAKs); a
cell with no number is "n/a", and a median over fewer rounds than were
run says how many it has, e.g. "6.10 (2/3)". The sweep (ROUND "sweep")
comes as a second table, bandwidth against message size for pib, rxe and
TCP, and as a plot, sweep.png beside BENCH_TSV (gnuplot; the data and the
script are left there too).
"""
import os
import shutil
import statistics
import subprocess
import sys

UNITS = {"bw": "MB/s", "lat": "usec", "tcp": "Mbit/s"}


def kind(test):
    return "tcp" if test == "tcp" else test.rsplit("_", 1)[1]


def num(text):
    try:
        return float(text)
    except ValueError:
        return None


def mbytes(mbit):
    """iperf3's Mbit/s in perftest's MB/s (2^20 bytes)."""
    return mbit * 1e6 / 8 / 2**20


def cell(vals):
    nums = [v for v in vals or [] if v is not None]
    if not nums:
        return None, "n/a"
    med = statistics.median(nums)
    text = f"{med:.2f}"
    if len(nums) < len(vals):
        text += f" ({len(nums)}/{len(vals)})"
    return med, text


def per_gb(runs):
    """Median CPU s/GB of server and client over the runs that measured, as
    "S+C"."""
    srv, cli = [], []
    for value, cpu1, cpu2, moved in runs:
        if value and moved and cpu1 is not None and cpu2 is not None:
            srv.append(cpu1 / moved * 1e9)
            cli.append(cpu2 / moved * 1e9)
    if not srv:
        return "n/a"
    return f"{statistics.median(srv):.1f}+{statistics.median(cli):.1f}"


def resent(runs):
    """The resends of the runs that counted them, summed, as "T/N"."""
    counted = [(t, n) for t, n in runs if t is not None and n is not None]
    if not counted:
        return "n/a"
    return f"{sum(t for t, _ in counted):.0f}/{sum(n for _, n in counted):.0f}"


def read(path):
    rows, order, rounds, sweep = {}, [], set(), {}
    with open(path) as f:
        for line in f:
            parts = line.split()
            if len(parts) == 9:
                parts += ["-", "-"]
            if len(parts) != 11:
                continue
            rnd, test, size, qps, dev, value, cpu1, cpu2, moved = parts[:9]
            timeouts, naks = num(parts[9]), num(parts[10])
            if rnd == "profile":
                continue  # run under perf: see runs/*.perf.*
            if rnd == "sweep":
                v = num(value)
                if v is not None and dev == "tcp":
                    v = mbytes(v)
                sweep.setdefault(int(size), {})[dev] = v
                continue
            rounds.add(rnd)
            key = (test, size, qps)
            if key not in rows:
                rows[key] = {}
                order.append(key)
            d = rows[key].setdefault(dev, {"vals": [], "cpu": [],
                                           "resends": []})
            d["vals"].append(num(value))
            d["resends"].append((timeouts, naks))
            d["cpu"].append((num(value), num(cpu1), num(cpu2), num(moved)))
    return rows, order, rounds, sweep


def main_table(rows, order, rounds):
    head = "pib bench: 2 VMs under QEMU"
    if len(sys.argv) > 2:
        head += f", kernel {sys.argv[2]}"
    head += f", median of {len(rounds)} round(s)"
    if len(sys.argv) > 3:
        head += f", {int(sys.argv[3]) // 60} min"
    print(head)
    fmt = ("{:<12} {:>7} {:>3} {:>6}  {:>12} {:>12} {:>7}  {:>13} {:>13}"
           "  {:>9} {:>9}")
    print(fmt.format("test", "bytes", "QPs", "unit", "pib", "rxe", "pib/rxe",
                     "pib CPU/GB", "rxe CPU/GB", "pib T/N", "rxe T/N"))
    tcp = None
    for key in order:
        test, size, qps = key
        devs = rows[key]
        if test == "tcp":
            tcp = cell(devs.get("tcp", {}).get("vals"))
            continue
        pib, rxe = devs.get("pib", {}), devs.get("rxe", {})
        (p, ptext), (r, rtext) = cell(pib.get("vals")), cell(rxe.get("vals"))
        ratio = f"{p / r:.2f}" if p is not None and r else "n/a"
        pcpu = rcpu = ""
        if kind(test) == "bw":
            pcpu, rcpu = per_gb(pib.get("cpu", [])), per_gb(rxe.get("cpu", []))
        print(fmt.format("ib_" + test, size, qps, UNITS[kind(test)], ptext,
                         rtext, ratio, pcpu, rcpu,
                         resent(pib.get("resends", [])),
                         resent(rxe.get("resends", []))).rstrip())
    if tcp:
        mb = f" = {mbytes(tcp[0]):.2f} MB/s" if tcp[0] is not None else ""
        print(f"ceiling: iperf3 TCP between the same VMs: {tcp[1]} Mbit/s{mb}")
    print("bw: higher is better, pib/rxe > 1 means pib is faster; "
          "lat: lower is better, pib/rxe < 1 means pib is faster;")
    print("CPU/GB: CPU seconds of host1 (server) + host2 (client) per GB "
          "moved, softirqs included")
    print("T/N: the client's resends in all rounds: ACK timeouts (pib: and "
          "retransmit probes) / sequence NAKs (go-back-N)")


def sweep_out(sweep, outdir):
    if not sweep:
        return
    print()
    print("sweep: ib_send_bw and iperf3 TCP (write size), MB/s, one run each")
    fmt = "{:>8} {:>9} {:>9} {:>9}"
    print(fmt.format("bytes", "pib", "rxe", "tcp"))
    dat = os.path.join(outdir, "sweep.dat")
    with open(dat, "w") as f:
        f.write("# bytes pib rxe tcp (MB/s; nan: no number)\n")
        for size in sorted(sweep):
            vals = [sweep[size].get(d) for d in ("pib", "rxe", "tcp")]
            print(fmt.format(size, *("n/a" if v is None else f"{v:.2f}"
                                     for v in vals)))
            f.write(f"{size} " + " ".join("nan" if v is None else f"{v:.3f}"
                                          for v in vals) + "\n")
    gp = os.path.join(outdir, "sweep.gp")
    png = os.path.join(outdir, "sweep.png")
    with open(gp, "w") as f:
        f.write(f"""set terminal png size 800,500 noenhanced
set output '{png}'
set title 'Bandwidth against message size: pib, rdma_rxe and TCP on the same 2 VMs'
set logscale x 2
set logscale y 10
set format x '%.0b%B'
set xlabel 'message size (ib_send_bw -s; iperf3 -l), bytes'
set ylabel 'MB/s'
set key top left
set grid
plot '{dat}' using 1:2 with linespoints title 'pib (ib_send_bw)', \\
     '' using 1:3 with linespoints title 'rxe (ib_send_bw)', \\
     '' using 1:4 with linespoints title 'TCP (iperf3)'
""")
    if not shutil.which("gnuplot"):
        print(f"sweep: no gnuplot (make deps installs it): {gp} not plotted")
        return
    if subprocess.run(["gnuplot", gp]).returncode == 0:
        print(f"sweep: plotted in {png}")
    else:
        print(f"sweep: gnuplot failed on {gp}")


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    rows, order, rounds, sweep = read(sys.argv[1])
    main_table(rows, order, rounds)
    sweep_out(sweep, os.path.dirname(os.path.abspath(sys.argv[1])))


if __name__ == "__main__":
    main()
