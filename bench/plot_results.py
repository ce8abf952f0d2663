#!/usr/bin/env python3
"""Draws the GPU benchmarks' CSV (apsp_bench_gpu_bench --csv, apsp_bench_gpu_sparse_bench --csv) as PNG figures.

usage: bench/plot_results.py RESULTS.csv OUTDIR

Figures (each only when the CSV has rows of that mode):
  speedup.png      seeds tables: speedup over sequential FW per kernel and n
  throughput.png   updates/s per kernel and n, against the measured peak
  block_sweep.png  the naive kernel's block-shape sweep
  crossover.png    end-to-end solve time on the CPU and the GPU by n
  sparse.png       sparse graphs: each method's speedup over fw int32 per family and n
                   (hatched bars: fw estimated from n^3, not run)
"""
import csv
import sys
from collections import defaultdict
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def read_rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def grouped_bars(ax, groups, series, value, label_of, log=False):
    """Bars for each group (x) and series (colour); value(group, series) -> float or None."""
    width = 0.8 / max(1, len(series))
    for s_index, s in enumerate(series):
        xs, ys = [], []
        for g_index, g in enumerate(groups):
            v = value(g, s)
            if v is not None:
                xs.append(g_index + s_index * width)
                ys.append(v)
        ax.bar(xs, ys, width, label=label_of(s))
    ax.set_xticks([i + 0.4 - width / 2 for i in range(len(groups))])
    ax.set_xticklabels(groups, rotation=30, ha="right")
    if log:
        ax.set_yscale("log")


def save(fig, path):
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def plot_speedup(rows, out):
    seeds = [r for r in rows if r["mode"] == "seeds" and not r["algorithm"].startswith("fw-seq")]
    if not seeds:
        return
    sizes = sorted({int(r["n"]) for r in seeds})
    algos = list(dict.fromkeys(r["algorithm"] for r in seeds))
    table = {(r["algorithm"], int(r["n"])): float(r["speedup"]) for r in seeds}
    fig, ax = plt.subplots(figsize=(11, 5))
    grouped_bars(ax, algos, sizes, lambda a, n: table.get((a, n)), lambda n: f"n = {n}", log=True)
    ax.set_ylabel("speedup over sequential FW (CPU), log scale")
    ax.set_title("Speedup of each GPU kernel over fw-seq")
    ax.legend()
    save(fig, out / "speedup.png")


def throughput_label(row):
    return f'{row["algorithm"]} {row["precision"]}{" +pred" if "predecessors" in row["note"] else ""}'


def plot_throughput(rows, out):
    tp = [r for r in rows if r["mode"] == "throughput"]
    if not tp:
        return
    peaks = {r["precision"]: float(r["updates_per_s"]) for r in rows if r["mode"] == "peak"}
    sizes = sorted({int(r["n"]) for r in tp})
    labels = list(dict.fromkeys(throughput_label(r) for r in tp))
    table = {(throughput_label(r), int(r["n"])): float(r["updates_per_s"]) / 1e12 for r in tp}
    fig, ax = plt.subplots(figsize=(12, 5))
    grouped_bars(ax, labels, sizes, lambda a, n: table.get((a, n)), lambda n: f"n = {n}", log=True)
    if "int32" in peaks:
        ax.axhline(peaks["int32"] / 1e12, color="k", linestyle="--", linewidth=1, label="int32 add-min peak (measured)")
    ax.set_ylabel("T updates/s (n^3 / t), log scale")
    ax.set_title("Throughput per kernel (capped rows are estimates from a smaller n)")
    ax.legend(fontsize=8)
    save(fig, out / "throughput.png")


def plot_block_sweep(rows, out):
    sweep = [r for r in rows if r["mode"] == "block-sweep"]
    if not sweep:
        return
    fig, ax = plt.subplots(figsize=(6, 4))
    ax.bar([r["algorithm"].replace("naive ", "") for r in sweep], [float(r["seconds"]) * 1e3 for r in sweep])
    ax.set_xlabel("block shape")
    ax.set_ylabel("time (ms)")
    ax.set_title(f'naive kernel, n = {sweep[0]["n"]}')
    save(fig, out / "block_sweep.png")


def plot_crossover(rows, out):
    cross = [r for r in rows if r["mode"] == "crossover"]
    if not cross:
        return
    series = defaultdict(list)
    for r in cross:
        series[(r["algorithm"].split()[0], r["note"])].append((int(r["n"]), float(r["seconds"]) * 1e3))
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for (backend, kind), points in sorted(series.items()):
        points.sort()
        ax.plot([p[0] for p in points], [p[1] for p in points], marker="o",
                linestyle="-" if backend == "cuda" else "--", label=f"{backend}, {kind}")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("n (vertices)")
    ax.set_ylabel("apsp::solve wall time (ms)")
    ax.set_title("CPU or GPU: end-to-end time by size")
    ax.legend(fontsize=8)
    save(fig, out / "crossover.png")


def plot_sparse(rows, out):
    sparse = [r for r in rows if r["mode"] == "sparse" and not r["method"].startswith("stream")]
    if not sparse:
        return
    groups = list(dict.fromkeys(f'{r["family"]}\nn = {r["n"]}' for r in sparse))
    methods = list(dict.fromkeys(r["method"] for r in sparse))
    table = {(f'{r["family"]}\nn = {r["n"]}', r["method"]): r for r in sparse}
    fig, ax = plt.subplots(figsize=(max(8, 1.4 * len(groups)), 5))
    width = 0.8 / max(1, len(methods))
    for m_index, method in enumerate(methods):
        labelled = False
        for g_index, group in enumerate(groups):
            r = table.get((group, method))
            if r is None:
                continue
            ax.bar(g_index + m_index * width, float(r["speedup_vs_fw_int32"]), width,
                   color=f"C{m_index}", hatch="//" if r["estimated"] == "1" else None,
                   label=None if labelled else method)
            labelled = True
    ax.set_xticks([i + 0.4 - width / 2 for i in range(len(groups))])
    ax.set_xticklabels(groups, fontsize=8)
    ax.set_yscale("log")
    ax.axhline(1, color="k", linewidth=0.8)
    ax.set_ylabel("speedup over fw int32 (compute, graph resident), log scale")
    ax.set_title("Sparse graphs: fw against the batched SSSP ladder and auto")
    ax.legend(fontsize=8)
    save(fig, out / "sparse.png")


def main(argv):
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 1
    rows = read_rows(argv[1])
    out = Path(argv[2])
    out.mkdir(parents=True, exist_ok=True)
    for plot in (plot_speedup, plot_throughput, plot_block_sweep, plot_crossover, plot_sparse):
        plot(rows, out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
