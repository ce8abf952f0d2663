#!/usr/bin/env python3
"""Tables and figures of the distributed solver's multi-GPU runs (scripts/gpu-scale's scale.csv).

usage: bench/plot_scaling.py SCALE.csv OUTDIR [--link nvlink4|pcie5|ib-ndr]

Prints markdown tables and writes, where the CSV has rows of that part:
  correct   how many runs gave the single-GPU distances (and verified predecessors)
  strong    per precision, layout and look-ahead: the rounds' time, T updates/s
            in total and per GPU, speedup and parallel efficiency against
            single-GPU fw of the same run, communication and wait shares (per-rank
            medians over the rounds' time), and the issue's int32 targets
            (2 GPUs >= 1.9x, 4 >= 3.7x, 8 >= 7.2x, >= 13 T/s per GPU)
  weak      n^3 / P fixed: the per-GPU rate and its efficiency against P = 1
  largest   the whole wall time and its split
Figures: OUTDIR/strong.png (speedup against P, the ideal line) and
OUTDIR/weak.png. OUTDIR/model-check.csv holds every distributed strong and
weak run in bench/scaling_model.py --check's columns (the link's bandwidth
and latency from --link, one node's GPUs by default NVLink 4).
"""
import argparse
import csv
from collections import defaultdict
from pathlib import Path

# bench/scaling_model.py's links: (bytes/s per direction per GPU, latency s).
LINKS = {"nvlink4": (450e9, 3e-6), "ib-ndr": (400e9 / 8, 5e-6), "pcie5": (55e9, 5e-6)}
# issue 9's int32 targets: speedup over one GPU by P, and the per-GPU rate.
SPEEDUP_TARGETS = {2: 1.9, 4: 3.7, 8: 7.2}
PER_GPU_TARGET = 13e12


def number(row, key):
    value = row.get(key, "")
    return float(value) if value not in ("", "-") else None


def updates(row):
    return float(row["n"]) ** 3


def correct_table(rows):
    runs = [r for r in rows if r["part"] == "correct"]
    if not runs:
        return ""
    failed = [r for r in runs if r["correct"] != "yes"]
    lines = [f"correct: {len(runs) - len(failed)} of {len(runs)} runs gave the single-GPU result"]
    for r in failed:
        lines.append(f"  FAILED: n={r['n']} P={r['P']} {r['mode']} {r['layout']} {r['precision']}")
    return "\n".join(lines)


def strong_tables(rows):
    runs = [r for r in rows if r["part"] == "strong"]
    if not runs:
        return "", {}
    single = {r["precision"]: number(r, "rounds_s") for r in runs if r["mode"] == "single"}
    series = defaultdict(list)
    lines = ["| precision | layout | look-ahead | P | rounds | T upd/s | per GPU | speedup | efficiency | "
             "communication | wait | target |", "| --- " * 12 + "|"]
    for r in sorted((r for r in runs if r["mode"] != "single"),
                    key=lambda r: (r["precision"], r["layout"], r["lookahead"], int(r["P"]))):
        p, t = int(r["P"]), number(r, "rounds_s")
        if not t:
            continue
        rate = updates(r) / t
        base = single.get(r["precision"])
        speedup = base / t if base else None
        comm, wait = number(r, "communication_med_s"), number(r, "wait_med_s")
        target = ""
        if r["precision"] == "int32" and speedup is not None:
            need = SPEEDUP_TARGETS.get(p)
            ok = (need is None or speedup >= need) and rate / p >= PER_GPU_TARGET
            wanted = ([f">= {need}x"] if need else []) + [">= 13 T/s per GPU"]
            target = ("met" if ok else "missed") + " (" + ", ".join(wanted) + ")"
        series[(r["precision"], r["layout"], r["lookahead"])].append((p, speedup))
        lines.append(
            f"| {r['precision']} | {r['layout']} | {r['lookahead']} | {p} | {t:.3f} s | {rate / 1e12:.2f} | "
            f"{rate / p / 1e12:.2f} | {speedup:.2f}x | {speedup / p:.0%} | "
            f"{comm / t:.0%} | {wait / t:.0%} | {target} |" if speedup is not None and comm is not None and wait is not None
            else f"| {r['precision']} | {r['layout']} | {r['lookahead']} | {p} | {t:.3f} s | {rate / 1e12:.2f} | "
            f"{rate / p / 1e12:.2f} | – | – | – | – | {target} |")
    head = "strong scaling, n = " + runs[0]["n"] + "; single-GPU fw: " + ", ".join(
        f"{k} {v:.3f} s" for k, v in single.items() if v)
    return head + "\n" + "\n".join(lines), series


def weak_table(rows):
    runs = sorted((r for r in rows if r["part"] == "weak"), key=lambda r: int(r["P"]))
    if not runs:
        return "", []
    base = None
    points = []
    lines = ["| P | n | rounds | T upd/s per GPU | efficiency |", "| --- | --- | --- | --- | --- |"]
    for r in runs:
        p, t = int(r["P"]), number(r, "rounds_s")
        per_gpu = updates(r) / t / p
        base = base or (per_gpu if p == 1 else None)
        eff = per_gpu / base if base else None
        points.append((p, eff))
        lines.append(f"| {p} | {r['n']} | {t:.3f} s | {per_gpu / 1e12:.2f} | {eff:.0%} |" if eff
                     else f"| {p} | {r['n']} | {t:.3f} s | {per_gpu / 1e12:.2f} | – |")
    return "weak scaling (n^3 / P fixed, 2d, look-ahead)\n" + "\n".join(lines), points


def largest_table(rows):
    runs = [r for r in rows if r["part"] == "largest"]
    lines = []
    for r in runs:
        split = ", ".join(f"{k[:-2]} {float(r[k]):.1f} s" for k in ("read_s", "setup_s", "rounds_s", "output_s")
                          if r.get(k) not in ("", None))
        lines.append(f"largest: n = {r['n']} on {r['P']} GPUs ({r['precision']}): total {float(r['total_s']):.1f} s "
                     f"({split}); rounds at {updates(r) / float(r['rounds_s']) / 1e12:.2f} T upd/s")
    return "\n".join(lines)


def model_rows(rows, link):
    bw, latency = LINKS[link]
    out = []
    for r in rows:
        if r["part"] in ("strong", "weak") and r["mode"] != "single" and number(r, "rounds_s"):
            single = [s for s in rows if s["part"] == "strong" and s["mode"] == "single"
                      and s["precision"] == r["precision"] and number(s, "rounds_s")]
            rate = updates(single[0]) / number(single[0], "rounds_s") if single else 14.8e12
            out.append({"n": r["n"], "P": r["P"], "layout": r["layout"], "lookahead": r["lookahead"],
                        "seconds": r["rounds_s"], "rate": f"{rate:.6g}", "bw": bw, "latency": latency})
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("csv")
    parser.add_argument("outdir")
    parser.add_argument("--link", default="nvlink4", choices=sorted(LINKS))
    args = parser.parse_args()
    with open(args.csv, newline="") as f:
        rows = list(csv.DictReader(f))
    out = Path(args.outdir)
    out.mkdir(parents=True, exist_ok=True)
    strong, series = strong_tables(rows)
    weak, points = weak_table(rows)
    for text in (correct_table(rows), strong, weak, largest_table(rows)):
        if text:
            print(text + "\n")
    checks = model_rows(rows, args.link)
    if checks:
        with open(out / "model-check.csv", "w", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=list(checks[0]))
            writer.writeheader()
            writer.writerows(checks)
    if not series and not points:
        return 0
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    if series:
        fig, ax = plt.subplots(figsize=(7, 5))
        top = max(p for values in series.values() for p, _ in values)
        ax.plot([1, top], [1, top], "k--", lw=1, label="ideal")
        for (precision, layout, lookahead), values in sorted(series.items()):
            values = [(p, s) for p, s in values if s is not None]
            ax.plot([p for p, _ in values], [s for _, s in values], "o-",
                    label=f"{precision} {layout} look-ahead {lookahead}")
        ax.set_xscale("log", base=2)
        ax.set_xlabel("GPUs")
        ax.set_ylabel("speedup over single-GPU fw")
        ax.set_title(f"strong scaling, n = {rows[0]['n']}" if rows else "strong scaling")
        ax.legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(out / "strong.png", dpi=120)
    if points:
        fig, ax = plt.subplots(figsize=(6, 4))
        ax.plot([p for p, _ in points], [e for _, e in points], "o-")
        ax.set_xscale("log", base=2)
        ax.set_ylim(0, 1.1)
        ax.set_xlabel("GPUs")
        ax.set_ylabel("per-GPU rate / one GPU's")
        ax.set_title("weak scaling (n^3 / P fixed)")
        fig.tight_layout()
        fig.savefig(out / "weak.png", dpi=120)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
