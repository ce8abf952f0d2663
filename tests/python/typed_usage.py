"""Typed use of the apsp package, checked by `mypy --strict` (test_extras.py)."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

import apsp


def distances(graph: npt.NDArray[np.int32]) -> npt.NDArray[np.float64]:
    d: npt.NDArray[np.float64] = apsp.shortest_path(graph, method="D", directed=False)
    return d


def with_paths(graph: npt.NDArray[np.float64]) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.int32]]:
    d, p = apsp.shortest_path(graph, return_predecessors=True, backend="cpu", dtype=np.float32, threads=2)
    return d, p


def fw(graph: npt.NDArray[np.float64]) -> int:
    seen: list[float] = []
    d = apsp.floyd_warshall(graph, progress=seen.append, precision="int32")
    return int(d.shape[0]) + len(seen)


def checked(graph: npt.NDArray[np.float64]) -> bool:
    try:
        apsp.verify(graph, apsp.johnson(graph, indices=None))
    except (apsp.VerifyError, apsp.NegativeCycleError):
        return False
    return apsp.cuda_device_count() >= 0 and "dijkstra" in apsp.algorithms("cpu") and apsp.INF > 0
