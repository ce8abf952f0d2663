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


def flagged(graph: npt.NDArray[np.float64], flag: bool) -> int:
    # return_predecessors from a bool variable: the result is one or the other.
    result = apsp.shortest_path(graph, return_predecessors=flag)
    if isinstance(result, tuple):
        return int(result[1].shape[0])
    return int(result.shape[0])


def positional(graph: npt.NDArray[np.float64]) -> npt.NDArray[np.int32]:
    # scipy's positional style: (csgraph, method, directed, return_predecessors).
    d, p = apsp.shortest_path(graph, "D", True, True)
    q: npt.NDArray[np.int32] = apsp.floyd_warshall(graph, False, True)[1]
    return p if d.size else q


def precise(graph: npt.NDArray[np.float64]) -> float:
    d: npt.NDArray[np.float64] = apsp.dijkstra(graph, indices=0)
    d2, p = apsp.dijkstra(graph, indices=[0], return_predecessors=True)
    d3, p3, sources = apsp.dijkstra(graph, return_predecessors=True, min_only=True)
    b, pb = apsp.bellman_ford(graph, True, None, True)
    j: npt.NDArray[np.float64] = apsp.johnson(graph)
    return float(d.sum() + d2.sum() + d3.sum() + b.sum() + j.sum() + p.size + p3.size + sources.size + pb.size)
