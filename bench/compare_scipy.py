#!/usr/bin/env python3
"""Times scipy.sparse.csgraph and the apsp CPU backend on the same graphs, in one run.

The graphs come from apsp::generate through `apsp_bench_cpu_solvers --export`
(NTHU .bin: int32 n, int32 m, then m int32 triples src, dst, w), so both sides
read identical edges; scipy keeps the lightest of duplicate edges, as apsp does.
The apsp side is timed by Google Benchmark (the same binary, wall time of one
solve including allocating the n x n output), the scipy side with perf_counter.

    python3 bench/compare_scipy.py --build build-cpu
    python3 bench/compare_scipy.py --build build-cpu --fw-sizes 1024 2048 --rmat-sizes 8192
    python3 bench/compare_scipy.py --build build-cpu --fw-sizes --rmat-sizes --real-sizes 2048

--real-sizes compares on real weights: the dense graph's weights plus an edge-dependent
fraction (`apsp_bench_cpu_solvers --export-real`), scipy floyd_warshall (float64) against
apsp fw-blocked in float64 (and float32).

Needs numpy and scipy (pip install numpy scipy).
"""

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time

import numpy as np
import scipy
import scipy.sparse
from scipy.sparse.csgraph import dijkstra, floyd_warshall, johnson


def read_nthu_bin(path):
    raw = np.fromfile(path, dtype=np.int32)
    if raw.size < 2:
        raise ValueError(f"{path}: shorter than the 8-byte header")
    n, m = int(raw[0]), int(raw[1])
    if raw.size != 2 + 3 * m:
        raise ValueError(f"{path}: header says {m} edges, file holds {(raw.size - 2) / 3}")
    edges = raw[2:].reshape(m, 3)
    return n, edges


def lightest_duplicates(edges):
    """Sorts by (src, dst, w) and keeps the first (lightest) edge of each (src, dst)."""
    order = np.lexsort((edges[:, 2], edges[:, 1], edges[:, 0]))
    e = edges[order]
    keep = np.ones(len(e), dtype=bool)
    keep[1:] = (e[1:, 0] != e[:-1, 0]) | (e[1:, 1] != e[:-1, 1])
    return e[keep]


def read_real_edges(path):
    """float64 n, m, then m float64 triples (src, dst, w), as --export-real writes them."""
    raw = np.fromfile(path, dtype=np.float64)
    n, m = int(raw[0]), int(raw[1])
    if raw.size != 2 + 3 * m:
        raise ValueError(f"{path}: header says {m} edges, file holds {(raw.size - 2) / 3}")
    e = raw[2:].reshape(m, 3)
    return n, e[:, 0].astype(np.int64), e[:, 1].astype(np.int64), e[:, 2]


def scipy_csr(n, edges):
    e = lightest_duplicates(edges)
    return scipy.sparse.csr_matrix((e[:, 2].astype(np.float64), (e[:, 0], e[:, 1])), shape=(n, n))


def scipy_dense(n, edges):
    e = lightest_duplicates(edges)
    d = np.full((n, n), np.inf)
    d[e[:, 0], e[:, 1]] = e[:, 2]
    return d


def time_call(fn, repeat):
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def export(bench, kind, n, folder, real=False):
    path = os.path.join(folder, f"{kind}_n{n}{'_real' if real else ''}.bin")
    subprocess.run([bench, "--export-real" if real else "--export", kind, str(n), path], check=True)
    return path


def run_apsp(bench, names, min_time):
    """Returns {benchmark name: seconds per solve} from Google Benchmark's JSON."""
    pattern = "^(" + "|".join(x.replace("+", r"\+") for x in names) + ")/process_time/real_time$"
    out = subprocess.run(
        [bench, f"--benchmark_filter={pattern}", "--benchmark_format=json", f"--benchmark_min_time={min_time}"],
        check=True, capture_output=True, text=True).stdout
    times = {}
    for b in json.loads(out)["benchmarks"]:
        unit = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}[b["time_unit"]]
        times[b["run_name"].split("/process_time")[0]] = b["real_time"] * unit
    missing = [x for x in names if x not in times]
    if missing:
        raise RuntimeError(f"apsp_bench_cpu_solvers did not run {missing}")
    return times


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", default="build", help="CMake build folder holding bench/apsp_bench_cpu_solvers")
    parser.add_argument("--fw-sizes", type=int, nargs="*", default=[1024, 2048])
    parser.add_argument("--rmat-sizes", type=int, nargs="*", default=[8192])
    parser.add_argument("--real-sizes", type=int, nargs="*", default=[2048],
                        help="dense real-weighted sizes: scipy floyd_warshall vs apsp fw-blocked float64 / float32")
    parser.add_argument("--repeat", type=int, default=1, help="scipy runs per case (best is kept)")
    parser.add_argument("--min-time", default="1", help="Google Benchmark --benchmark_min_time (seconds)")
    parser.add_argument("--scipy-johnson", action="store_true", help="also time scipy's johnson on the R-MAT graphs")
    parser.add_argument("--predecessors", action="store_true",
                        help="both sides also return predecessors (scipy return_predecessors, apsp +pred)")
    args = parser.parse_args()

    bench = os.path.join(args.build, "bench", "apsp_bench_cpu_solvers")
    if not os.access(bench, os.X_OK):
        sys.exit(f"compare_scipy: {bench} not found; build with -DAPSP_BUILD_BENCH=ON and Google Benchmark installed")

    pred = "+pred" if args.predecessors else ""
    rows = []  # (case, side, n, m, seconds, updates)
    with tempfile.TemporaryDirectory() as folder:
        apsp_names = []
        cases = []
        for n in args.fw_sizes:
            path = export(bench, "dense", n, folder)
            cases.append(("floyd-warshall", "dense", n, path))
            apsp_names.append(f"fw-blocked{pred}/dense/{n}")
        for n in args.rmat_sizes:
            path = export(bench, "rmat", n, folder)
            cases.append(("dijkstra", "rmat", n, path))
            apsp_names += [f"dijkstra{pred}/rmat/{n}", f"johnson{pred}/rmat/{n}"]
        for n in args.real_sizes:
            path = export(bench, "dense", n, folder, real=True)
            cases.append(("floyd-warshall-real", "dense", n, path))
            apsp_names += [f"fw-blocked{pred}+f64/dense/{n}", f"fw-blocked+f32/dense/{n}"]
        apsp_times = run_apsp(bench, apsp_names, args.min_time)

        for algorithm, kind, n, path in cases:
            if algorithm == "floyd-warshall-real":
                n_read, src, dst, w = read_real_edges(path)
                assert n_read == n
                dense = np.full((n, n), np.inf)
                np.minimum.at(dense, (src, dst), w)  # the lightest of duplicate edges, as apsp keeps
                m = int(np.isfinite(dense).sum())
                case = f"real n={n}"
                t = time_call(lambda: floyd_warshall(dense, directed=True, return_predecessors=args.predecessors),
                              args.repeat)
                rows.append((case, "scipy floyd_warshall", n, m, t, n ** 3))
                rows.append((case, "apsp fw-blocked f64" + pred, n, m, apsp_times[f"fw-blocked{pred}+f64/dense/{n}"],
                             n ** 3))
                rows.append((case, "apsp fw-blocked f32", n, m, apsp_times[f"fw-blocked+f32/dense/{n}"], n ** 3))
                continue
            n_read, edges = read_nthu_bin(path)
            assert n_read == n
            m = len(lightest_duplicates(edges))
            case = f"{kind} n={n}"
            if algorithm == "floyd-warshall":
                dense = scipy_dense(n, edges)
                t = time_call(lambda: floyd_warshall(dense, directed=True, return_predecessors=args.predecessors),
                              args.repeat)
                rows.append((case, "scipy floyd_warshall", n, m, t, n ** 3))
                rows.append((case, "apsp fw-blocked" + pred, n, m, apsp_times[f"fw-blocked{pred}/dense/{n}"], n ** 3))
            else:
                csr = scipy_csr(n, edges)
                t = time_call(lambda: dijkstra(csr, directed=True, return_predecessors=args.predecessors), args.repeat)
                rows.append((case, "scipy dijkstra", n, m, t, n * m))
                if args.scipy_johnson:
                    tj = time_call(lambda: johnson(csr, directed=True, return_predecessors=args.predecessors),
                                   args.repeat)
                    rows.append((case, "scipy johnson", n, m, tj, n * m))
                rows.append((case, "apsp dijkstra" + pred, n, m, apsp_times[f"dijkstra{pred}/rmat/{n}"], n * m))
                rows.append((case, "apsp johnson" + pred, n, m, apsp_times[f"johnson{pred}/rmat/{n}"], n * m))

    threads = os.environ.get("OMP_NUM_THREADS", str(os.cpu_count()))
    print(f"# {time.strftime('%Y-%m-%d')}  {platform.processor() or platform.machine()}  {os.cpu_count()} CPUs  "
          f"OMP_NUM_THREADS={threads}  numpy {np.__version__}  scipy {scipy.__version__}")
    print("# rate: Floyd-Warshall n^3 relaxations per second; searches n*m edge scans per second")
    header = f"{'case':<14} {'solver':<22} {'n':>6} {'m':>9} {'time_s':>9} {'rate_G/s':>9} {'speedup':>8}"
    print(header)
    print("-" * len(header))
    baseline = {}
    for case, side, n, m, t, updates in rows:
        if side.startswith("scipy") and case not in baseline:
            baseline[case] = t
        speedup = baseline[case] / t
        print(f"{case:<14} {side:<22} {n:>6} {m:>9} {t:>9.3f} {updates / t / 1e9:>9.2f} {speedup:>7.2f}x")


if __name__ == "__main__":
    main()
