#!/usr/bin/env python3
"""The networkx backend's targets (issue 23), measured in one process against networkx itself.

  fw        nx.floyd_warshall_numpy(G) on a random directed graph (n = 2000,
            m = 8n, integer weights 1..100) with backend="networkx" and
            backend="apsp"; the arrays must be identical. Target >= 50x.
  dijkstra  dict(nx.all_pairs_dijkstra_path_length(G)) on a random sparse
            directed graph (n = 5000, m = 8n), dict building included, with
            the split of apsp's time: conversion of the networkx graph (once;
            cached afterwards), the engine's solves, and the dicts. networkx
            runs every source, or --nx-sample k of them, scaled to n (said so
            in the output). The dicts must be equal. Target >= 20x.

Usage: python3 bench/networkx_bench.py [fw] [dijkstra] [--n-fw 2000] [--n-dijkstra 5000] [--nx-sample K] [--threads T]
Needs networkx and the apsp package (pip install .[networkx]).
"""

from __future__ import annotations

import argparse
import random
import time
from typing import Any, Callable

import networkx as nx
import numpy as np

import apsp.nx._algorithms as algorithms
from apsp.nx import convert_from_nx


def random_graph(n: int, degree: int, seed: int) -> Any:
    """A directed graph of n vertices and about degree * n edges, integer weights 1..100."""
    rng = random.Random(seed)
    G = nx.DiGraph()
    G.add_nodes_from(range(n))
    for _ in range(degree * n):
        G.add_edge(rng.randrange(n), rng.randrange(n), weight=rng.randint(1, 100))
    return G


def timed(run: Callable[[], Any]) -> tuple[float, Any]:
    start = time.perf_counter()
    value = run()
    return time.perf_counter() - start, value


class SolveClock:
    """Adds up the wall time spent in the backend's engine calls (algorithms._solve)."""

    def __init__(self) -> None:
        self.seconds = 0.0
        self._solve = algorithms._solve

    def __enter__(self) -> "SolveClock":
        def solve(*args: Any, **kwargs: Any) -> Any:
            start = time.perf_counter()
            try:
                return self._solve(*args, **kwargs)
            finally:
                self.seconds += time.perf_counter() - start

        algorithms._solve = solve
        return self

    def __exit__(self, *exc: Any) -> None:
        algorithms._solve = self._solve


def bench_fw(n: int) -> None:
    G = random_graph(n, 8, seed=1)
    convert, _ = timed(lambda: convert_from_nx(G, edge_attrs={"weight": 1}))
    t_apsp, got = timed(lambda: nx.floyd_warshall_numpy(G, backend="apsp"))
    t_cached, _ = timed(lambda: nx.floyd_warshall_numpy(G, backend="apsp"))
    t_nx, want = timed(lambda: nx.floyd_warshall_numpy(G, backend="networkx"))
    identical = np.array_equal(got, want)
    print(f"fw n={n} m={G.number_of_edges()}: networkx {t_nx:.2f} s, apsp {t_apsp:.3f} s "
          f"(conversion {convert:.3f} s; cached graph {t_cached:.3f} s): {t_nx / t_apsp:.1f}x "
          f"({t_nx / t_cached:.1f}x cached), identical arrays: {identical}")  # fmt: skip


def bench_dijkstra(n: int, sample: int) -> None:
    G = random_graph(n, 8, seed=2)
    convert, _ = timed(lambda: convert_from_nx(G, edge_attrs={"weight": 1}))
    with SolveClock() as clock:
        t_apsp, got = timed(lambda: dict(nx.all_pairs_dijkstra_path_length(G, backend="apsp")))
    dicts = t_apsp - clock.seconds - convert
    sources = list(G)[:sample] if sample else list(G)
    length = nx.single_source_dijkstra_path_length
    t_nx, want = timed(lambda: {s: length(G, s, backend="networkx") for s in sources})
    scale = n / len(sources)
    equal = all(got[s] == want[s] for s in sources)
    what = "every source" if scale == 1 else f"{len(sources)} sources scaled x{scale:.0f}"
    print(f"dijkstra n={n} m={G.number_of_edges()}: networkx {t_nx * scale:.1f} s ({what}), "
          f"apsp {t_apsp:.2f} s = conversion {convert:.2f} + solve {clock.seconds:.2f} + dicts {dicts:.2f}: "
          f"{t_nx * scale / t_apsp:.1f}x, equal dicts: {equal}")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("what", nargs="*", help="fw, dijkstra (default: both)")
    parser.add_argument("--n-fw", type=int, default=2000)
    parser.add_argument("--n-dijkstra", type=int, default=5000)
    parser.add_argument("--nx-sample", type=int, default=0, help="networkx runs only this many sources (0: all)")
    parser.add_argument("--threads", type=int, default=0, help="apsp's CPU threads (0: OpenMP's default)")
    args = parser.parse_args()
    args.what = args.what or ["fw", "dijkstra"]
    if set(args.what) - {"fw", "dijkstra"}:
        parser.error(f"unknown benchmark {sorted(set(args.what) - {'fw', 'dijkstra'})}")
    nx.config.warnings_to_ignore.add("cache")
    nx.config.backends.apsp.threads = args.threads
    nx.config.backends.apsp.backend = "cpu"
    if "fw" in args.what:
        bench_fw(args.n_fw)
    if "dijkstra" in args.what:
        bench_dijkstra(args.n_dijkstra, args.nx_sample)


if __name__ == "__main__":
    main()
