"""Seeded random graphs and the checks the Python tests share."""

from __future__ import annotations

from typing import Any, Optional

import numpy as np
import pytest

import apsp

NO_PRED = -9999


def random_dense(
    n: int, density: float, lo: int, hi: int, seed: int, dtype: Any = np.float64, unreachable_vertex: bool = True
) -> np.ndarray:
    """An n x n weight matrix: 0 = no edge, weights in lo..hi (zeros drawn as 0 mean no edge).

    Vertex n - 1 gets no in-edges when ``unreachable_vertex`` (so unreachable
    pairs exist for n >= 2), and edge 0 -> 1 is present (so finite ones do).
    """
    rng = np.random.default_rng(seed)
    mask = rng.random((n, n)) < density
    weights = rng.integers(lo, hi + 1, size=(n, n))
    a = np.where(mask, weights, 0).astype(dtype)
    np.fill_diagonal(a, 0)
    if n >= 3 and unreachable_vertex:
        a[:, n - 1] = 0
    if n >= 2:
        a[0, 1] = max(hi, 1)
    return a


def no_negative_cycle(n: int, lo: int, hi: int, density: float, seed: int) -> np.ndarray:
    """Negative weights only on forward edges (i < j), backward edges heavy enough: no negative cycle."""
    a = random_dense(n, density, lo, hi, seed)
    lower = np.tril_indices(n, -1)
    a[lower] = np.where(a[lower] != 0, np.abs(a[lower]) + n * abs(lo) + 1, 0)
    return a


def edge_weights(graph: Any, directed: bool, unweighted: bool = False) -> np.ndarray:
    """The lightest edge weight i -> j as a dense float matrix with inf for no edge (scipy's semantics)."""
    import scipy.sparse as sp

    n = graph.shape[0]
    w = np.full((n, n), np.inf)
    if sp.issparse(graph):
        coo = sp.coo_matrix(graph)
        for i, j, x in zip(coo.row, coo.col, coo.data):
            if np.isfinite(x):
                w[i, j] = min(w[i, j], 1.0 if unweighted else float(x))
    else:
        a = np.asarray(graph, dtype=np.float64)
        present = (a != 0) & np.isfinite(a)
        w[present] = 1.0 if unweighted else a[present]
    if not directed:
        w = np.minimum(w, w.T)
    return w


def check_predecessors(
    dist: np.ndarray, pred: np.ndarray, weights: np.ndarray, sources: Optional[np.ndarray] = None
) -> None:
    """Every finite dist[r, j] (j != source) is the weight of the predecessor path from row r's source to j."""
    rows, n = dist.shape
    sources = np.arange(rows) if sources is None else np.asarray(sources)
    assert pred.dtype == np.int32
    for r in range(rows):
        s = int(sources[r])
        for j in range(n):
            if j == s or not np.isfinite(dist[r, j]):
                assert pred[r, j] == NO_PRED, (r, j, pred[r, j])
                continue
            total, v, steps = 0.0, j, 0
            while v != s:
                u = int(pred[r, v])
                assert u >= 0 and steps <= n, f"broken chain from {s} to {j} at {v}"
                assert np.isfinite(weights[u, v]), f"no edge {u}->{v}"
                total += weights[u, v]
                v, steps = u, steps + 1
            assert total == dist[r, j], (s, j, total, dist[r, j])


def assert_has_finite_and_unreachable(dist: np.ndarray) -> None:
    off = ~np.eye(*dist.shape, dtype=bool) if dist.ndim == 2 and dist.shape[0] == dist.shape[1] else np.ones(dist.shape, bool)
    assert np.isfinite(dist[off]).any(), "no finite off-diagonal entry"
    assert np.isinf(dist).any(), "no unreachable entry"


requires_gpu = pytest.mark.skipif(apsp.cuda_device_count() == 0, reason="no CUDA device (or a build without CUDA)")
