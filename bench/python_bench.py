#!/usr/bin/env python3
"""The Python package's targets (issue 12), measured.

  overhead  the binding's cost over the C++ solve (apsp.last_solve_info()'s
            solve_seconds): reading the input, building the graph, the
            result's conversion, for dense and CSR input at n >= 1024.
            Target: <= 5 %.
  scipy     apsp against scipy.sparse.csgraph on the CPU: method='FW' at
            n = 2048 (target >= 10x) and method='D' on R-MAT with n = 8192,
            m = 8n (target >= 3x).
  gpu       apsp.shortest_path(G, backend='cuda') from a CSR matrix to a
            numpy array at n = 16384, m = 8n, against the CLI's compute +
            download on the same graph (target: within 1.15x).

Usage: python3 bench/python_bench.py [overhead] [scipy] [gpu] [--cli build/tools/apsp/apsp] [--repeat 3]
R-MAT graphs come from `apsp gen rmat` (the CLI given, or build/tools/apsp/apsp).
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

import numpy as np

import apsp


def best_of(repeat: int, run: Callable[[], Any]) -> tuple[float, Any]:
    """The fastest wall time of `repeat` runs, and the last run's value (the
    previous run's result is freed before the clock starts, not inside it)."""
    best, value = float("inf"), None
    for _ in range(repeat):
        value = None
        start = time.perf_counter()
        value = run()
        best = min(best, time.perf_counter() - start)
    return best, value


def rmat(cli: str, n: int, seed: int, tmp: str) -> tuple[Any, str]:
    """The R-MAT graph of `apsp gen rmat -n N` (m = 8n, weights 1..100) as CSR, and its .bin file."""
    path = os.path.join(tmp, f"rmat-{n}-{seed}.bin")
    subprocess.run([cli, "gen", "rmat", "-n", str(n), "--seed", str(seed), "-o", path], check=True, capture_output=True)
    return apsp.read_graph(path), path


def dense_graph(n: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return np.where(rng.random((n, n)) < 0.05, rng.integers(1, 100, (n, n)), 0).astype(np.float64)


def overhead(cli: str, repeat: int, tmp: str) -> None:
    print("binding overhead over the C++ solve (best of %d; overhead = call / solve_seconds - 1)" % repeat)
    print(f"  {'input':<8} {'n':>6} {'algorithm':<11} {'dtype':<8} {'call s':>8} {'solve s':>8} {'overhead':>9}")
    for n in (1024, 2048):
        inputs = {"dense": dense_graph(n, 1), "csr": rmat(cli, n, 1, tmp)[0]}
        for name, graph in inputs.items():
            for dtype in (np.float64, np.int32):
                rows = []
                for _ in range(repeat):
                    start = time.perf_counter()
                    result = apsp.shortest_path(graph, dtype=dtype)
                    call = time.perf_counter() - start
                    del result  # freeing the result is the caller's, not the call's
                    rows.append((call, apsp.last_solve_info()["solve_seconds"]))
                call, solve = min(rows)
                info = apsp.last_solve_info()
                print(
                    f"  {name:<8} {n:>6} {info['algorithm']:<11} {np.dtype(dtype).name:<8} {call:>8.3f} {solve:>8.3f}"
                    f" {100 * (call / solve - 1):>8.1f}%"
                )


def versus_scipy(cli: str, repeat: int, tmp: str) -> None:
    from scipy.sparse import csgraph

    print("CPU: apsp against scipy.sparse.csgraph (best of %d)" % repeat)
    dense = dense_graph(2048, 2)
    ours, d1 = best_of(repeat, lambda: apsp.shortest_path(dense, method="FW"))
    theirs, d2 = best_of(1, lambda: csgraph.shortest_path(dense, method="FW"))
    assert np.array_equal(d1, d2)
    print(f"  method='FW'  n=2048 dense 5%:     apsp {ours:8.3f} s  scipy {theirs:8.3f} s  {theirs / ours:6.1f}x")
    graph, _ = rmat(cli, 8192, 1, tmp)
    ours, d1 = best_of(repeat, lambda: apsp.shortest_path(graph, method="D"))
    theirs, d2 = best_of(1, lambda: csgraph.shortest_path(graph, method="D"))
    assert np.array_equal(d1, d2)
    print(f"  method='D'   R-MAT n=8192 m=8n:   apsp {ours:8.3f} s  scipy {theirs:8.3f} s  {theirs / ours:6.1f}x")


def cli_stage_seconds(output: str, name: str) -> float:
    """Seconds of stage `name` in the CLI's summary (its 'ms' or 's' column); 0 when absent."""
    total = 0.0
    for line in output.splitlines():
        match = re.match(rf"\s+{re.escape(name)}\s+([0-9.]+) (ms|s)\b", line)
        if match:
            total += float(match.group(1)) / (1000 if match.group(2) == "ms" else 1)
    return total


def gpu(cli: str, repeat: int, tmp: str) -> None:
    if apsp.cuda_device_count() == 0:
        print("gpu: no CUDA device; skipped")
        return
    graph, path = rmat(cli, 16384, 1, tmp)
    apsp.shortest_path(graph[:64, :64], backend="cuda")  # the context, once
    ours, _ = best_of(repeat, lambda: apsp.shortest_path(graph, backend="cuda", dtype=np.int32))
    ours64, _ = best_of(repeat, lambda: apsp.shortest_path(graph, backend="cuda"))
    info = apsp.last_solve_info()
    out = tempfile.NamedTemporaryFile(dir=tmp, suffix=".bin", delete=False).name
    runs = []
    for _ in range(repeat):
        done = subprocess.run([cli, "solve", path, "--backend", "cuda", "-o", out], check=True, capture_output=True, text=True)
        summary = done.stdout + done.stderr
        runs.append(cli_stage_seconds(summary, "compute") + cli_stage_seconds(summary, "device-to-host"))
    cli_time = min(runs)
    print("GPU: R-MAT n=16384 m=8n, CSR -> numpy against the CLI's compute + device-to-host (best of %d)" % repeat)
    print(f"  apsp.shortest_path(backend='cuda', dtype=int32): {ours:7.3f} s  ({ours / cli_time:.2f}x the CLI)")
    print(f"  apsp.shortest_path(backend='cuda') float64:      {ours64:7.3f} s  ({ours64 / cli_time:.2f}x the CLI)")
    print(f"  CLI compute + device-to-host:                    {cli_time:7.3f} s")
    print(f"  stages of the float64 call: {info['stages']}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("modes", nargs="*", default=["overhead", "scipy"], choices=["overhead", "scipy", "gpu"])
    parser.add_argument("--cli", default=str(Path(__file__).resolve().parents[1] / "build" / "tools" / "apsp" / "apsp"))
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    if not os.access(args.cli, os.X_OK):
        sys.exit(f"python_bench: no apsp CLI at {args.cli} (build it, or pass --cli)")
    print(f"apsp {apsp.__version__}, {os.cpu_count()} CPUs, CUDA devices: {apsp.cuda_device_count()}")
    with tempfile.TemporaryDirectory() as tmp:
        for mode in args.modes:
            {"overhead": overhead, "scipy": versus_scipy, "gpu": gpu}[mode](args.cli, args.repeat, tmp)


if __name__ == "__main__":
    main()
