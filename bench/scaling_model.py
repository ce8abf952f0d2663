#!/usr/bin/env python3
"""Scaling model of distributed blocked Floyd-Warshall (docs/scaling.md).

Predicts time, communication share and parallel efficiency of the two layouts
of src/distributed (rows: P x 1; 2d: the most square pr x pc grid), with and without
look-ahead, from a per-GPU update rate and link bandwidths and latencies.

Per round (T = n / b rounds, tile b):
  bulk     every rank updates its n^2 / P cells through b pivots: n^2 b / (P R),
           at a lower rate when its tiles do not fill the device
  chain    the pivot tile is closed (one thread block), sent along its process
           row, the pivot row panel is updated and sent down the process
           columns, the column panel updated and sent along the process rows;
           each broadcast of S bytes costs S / BW + alpha * ceil(log2 ranks)
  round    without look-ahead: chain + bulk; with it: max(chain, bulk), as
           round k+1's chain runs beside round k's bulk
plus a fixed per-round overhead (launches, host synchronisation).

  bench/scaling_model.py                   # the tables of docs/scaling.md
  bench/scaling_model.py --check RUNS.csv  # measured runs against the model
      (columns: n,P,layout,lookahead,rate,bw,latency,seconds[,tile,units,per_unit];
       rate in updates/s per rank, bw in bytes/s, latency in seconds; a CPU
       rank: tile 64, units = its threads, per_unit 1)
"""
import argparse
import csv
import math
import sys

BYTES = 4          # int32 distances
TILE = 128         # the production kernels' tile (the GPU engine's b)
SMS = 132          # H100 SXM multiprocessors; a panel of few tiles runs below full rate
BLOCKS_PER_SM = 2
ROUND_OVERHEAD = 15e-6  # launches and the per-round host synchronisation, seconds

H100_INT32 = 14.8e12    # updates/s, fw at n = 32768 (docs/results/2026-11-22-h100)
GPU_MEMORY = 80e9 * 0.9  # usable bytes of an 80 GB H100

# bandwidth per direction per GPU (bytes/s), latency of one message (s)
LINKS = {
    "nvlink4": (450e9, 3e-6),
    "ib-ndr": (400e9 / 8, 5e-6),
    "pcie5": (55e9, 5e-6),
}

# Sao et al., HPDC'21: about 2.6 T updates/s per V100 at about 80% parallel
# efficiency on 1536 GPUs (Summit).
SAO_PER_GPU = 2.6e12
SAO_GPUS = 1536
SAO_EFFICIENCY = 0.8


def grid(p, layout):
    if layout == "rows":
        return p, 1
    rows = int(math.isqrt(p))
    while p % rows:
        rows -= 1
    return rows, p // rows


def panel_rate(rate, tiles, units=SMS, per_unit=BLOCKS_PER_SM):
    """Update rate of a product over `tiles` tiles: below full rate when the
    tiles do not fill the device (`per_unit` tiles on each of `units`
    multiprocessors, or threads on a CPU)."""
    return rate * min(1.0, tiles / (units * per_unit))


def broadcast(size_bytes, ranks, link):
    if ranks <= 1:
        return 0.0
    bw, latency = link
    return size_bytes / bw + latency * math.ceil(math.log2(ranks))


def link_for(p, topology):
    """node8: NVLink inside an 8-GPU node, InfiniBand NDR beyond; or one link."""
    if topology == "node8":
        return LINKS["nvlink4"] if p <= 8 else LINKS["ib-ndr"]
    return LINKS[topology]


def model(n, p, layout, lookahead, rate=H100_INT32, link=LINKS["nvlink4"], tile=TILE, units=SMS,
          per_unit=BLOCKS_PER_SM):
    """Seconds, communication seconds and compute seconds of one solve.
    `units` run tiles in parallel (multiprocessors; CPU threads with per_unit 1)."""
    pr, pc = grid(p, layout)
    rounds = math.ceil(n / tile)
    local_tiles = math.ceil(rounds / pr) * math.ceil(rounds / pc)
    bulk = n * n * tile / (p * panel_rate(rate, local_tiles, units, per_unit))
    close = tile ** 3 / (rate / units)  # one thread block on one multiprocessor
    row_tiles = math.ceil(rounds / pc)   # pivot row panel tiles on one rank
    col_tiles = math.ceil(rounds / pr)   # pivot column panel tiles on one rank
    row_panel = row_tiles * tile ** 3 / panel_rate(rate, row_tiles, units, per_unit)
    col_panel = col_tiles * tile ** 3 / panel_rate(rate, col_tiles, units, per_unit)
    comm = (broadcast(BYTES * tile * tile, pc, link)                    # pivot tile along the process row
            + broadcast(BYTES * tile * row_tiles * tile, pr, link)      # row panel down the process columns
            + broadcast(BYTES * col_tiles * tile * tile, pc, link))     # column panel along the process rows
    chain = close + row_panel + col_panel + comm
    per_round = (max(chain, bulk) if lookahead else chain + bulk) + ROUND_OVERHEAD
    return rounds * per_round, rounds * comm, rounds * (bulk + close + row_panel + col_panel)


def efficiency(n, p, seconds, rate=H100_INT32):
    return n ** 3 / (p * rate) / seconds


def fits(n, p):
    return BYTES * n * n / p <= GPU_MEMORY


def fmt_time(s):
    if s >= 3600:
        return f"{s / 3600:.2f} h"
    if s >= 60:
        return f"{s / 60:.1f} min"
    if s >= 1:
        return f"{s:.2f} s"
    return f"{s * 1e3:.1f} ms"


def tables(topology):
    """One row per (n, P): efficiency of the four variants, and time and
    communication share of 2d with look-ahead."""
    ps = [1, 2, 4, 8, 16, 64, 256, 1024, 1536, 4096]
    ns = [32768, 131072, 262144, 1_000_000]
    out = []
    for n in ns:
        out.append(f"\n### n = {n:,} ({topology})\n")
        out.append("| P | grid 2d | fits 80 GB | rows | rows + look-ahead | 2d | 2d + look-ahead "
                   "| time (2d + look-ahead) | comm share | per-GPU T/s |")
        out.append("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
        for p in ps:
            link = link_for(p, topology)
            effs = []
            for layout in ("rows", "2d"):
                for lookahead in (False, True):
                    t, _, _ = model(n, p, layout, lookahead, link=link)
                    effs.append(f"{efficiency(n, p, t):.0%}")
            t, comm, _ = model(n, p, "2d", True, link=link)
            out.append(f"| {p} | {'%dx%d' % grid(p, '2d')} | {'yes' if fits(n, p) else 'no'} | "
                       + " | ".join(effs) + f" | {fmt_time(t)} | {comm / t:.0%} | {n ** 3 / t / p / 1e12:.2f} |")
    return "\n".join(out)


def sao_comparison():
    lines = ["\n### Against Sao et al., HPDC'21 (1536 GPUs)\n",
             f"Their record: about {SAO_PER_GPU / 1e12:.1f} T updates/s per V100 at about "
             f"{SAO_EFFICIENCY:.0%} efficiency on {SAO_GPUS} GPUs, "
             f"{SAO_PER_GPU * SAO_GPUS / 1e15:.1f} P updates/s in all.\n",
             "| n | layout | look-ahead | time | efficiency | per-GPU T/s | x Sao per GPU |",
             "| --- | --- | --- | --- | --- | --- | --- |"]
    for n in (262144, 1_000_000, 2_000_000, 4_000_000):
        for layout in ("rows", "2d"):
            for lookahead in (False, True):
                t, _, _ = model(n, SAO_GPUS, layout, lookahead, link=link_for(SAO_GPUS, "node8"))
                per_gpu = n ** 3 / t / SAO_GPUS
                lines.append(f"| {n:,} | {layout} | {'on' if lookahead else 'off'} | {fmt_time(t)} | "
                             f"{efficiency(n, SAO_GPUS, t):.0%} | {per_gpu / 1e12:.2f} | {per_gpu / SAO_PER_GPU:.1f} |")
    return "\n".join(lines)


def check(path):
    """Measured runs against the model: one line per run."""
    rows = []
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            n, p = int(r["n"]), int(r["P"])
            link = (float(r["bw"]), float(r["latency"]))
            tile = int(r.get("tile") or TILE)
            units = int(r.get("units") or SMS)
            per_unit = int(r.get("per_unit") or BLOCKS_PER_SM)
            t, comm, _ = model(n, p, r["layout"], r["lookahead"] == "on", rate=float(r["rate"]), link=link, tile=tile,
                               units=units, per_unit=per_unit)
            measured = float(r["seconds"])
            rows.append(f"| {n} | {p} | {r['layout']} | {r['lookahead']} | {measured:.3f} s | {t:.3f} s | "
                        f"{measured / t:.2f} |")
    return "\n".join(["| n | P | layout | look-ahead | measured | model | measured / model |",
                      "| --- | --- | --- | --- | --- | --- | --- |"] + rows)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--topology", default="node8", choices=["node8", *LINKS],
                        help="node8: NVLink 4 within 8 GPUs, InfiniBand NDR beyond; or one link for all")
    parser.add_argument("--check", metavar="CSV", help="measured runs to compare with the model")
    args = parser.parse_args()
    if args.check:
        print(check(args.check))
        return 0
    print(tables(args.topology))
    print(sao_comparison())
    return 0


if __name__ == "__main__":
    sys.exit(main())
