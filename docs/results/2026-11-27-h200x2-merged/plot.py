"""Draws row-split-ab.png and factor.png from this folder's CSVs: python3 plot.py"""
import csv
import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

here = os.path.dirname(os.path.abspath(__file__))
rows = list(csv.DictReader(open(os.path.join(here, "row-split-ab.csv"))))
fig, ax = plt.subplots(figsize=(7, 3.5))
labels = [f"{r['graph']} P={r['P']}\n{r['path']}" for r in rows]
ax.barh(labels, [float(r["rows_s"]) for r in rows], color="tab:blue")
ax.set_xlabel("rows (s): one GPU's compute, or the row split's rows stage")
ax.set_title("sssp row split on 2 H200s, same call")
fig.tight_layout()
fig.savefig(os.path.join(here, "row-split-ab.png"), dpi=110)

factor = [("uniform", 39, 32), ("R-MAT", 12, 11), ("grid3d", 9, 8)]
fig, ax = plt.subplots(figsize=(6, 3))
x = range(len(factor))
ax.bar([i - 0.2 for i in x], [f[1] for f in factor], width=0.4, label="v6 (default)")
ax.bar([i + 0.2 for i in x], [f[2] for f in factor], width=0.4, label="batched (opt-in)")
ax.axhline(50, color="gray", linestyle="--", label="issue 21 target")
ax.set_xticks(list(x))
ax.set_xticklabels([f[0] + " 32768" for f in factor])
ax.set_ylabel("% of fw int32's rate")
ax.set_title("factor, fronts >= 1024 vertices (H200)")
ax.legend()
fig.tight_layout()
fig.savefig(os.path.join(here, "factor.png"), dpi=110)
