"""Parts of the matrix: ``targets=`` and ``sparse_distances`` (limit, nearest) against scipy and networkx."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.csgraph as csgraph
from conftest import no_negative_cycle, random_dense
from hypothesis import given, settings
from hypothesis import strategies as st

import apsp


@st.composite
def parts(draw):
    """A small graph (weights -3..9 without negative cycles, duplicates summed as scipy does) and index lists."""
    n = draw(st.integers(1, 9))
    a = no_negative_cycle(n, -3, 9, draw(st.sampled_from([0.1, 0.3, 0.6])), draw(st.integers(0, 10**6)))
    vertex = st.integers(-n, n - 1)
    indices = draw(st.lists(vertex, min_size=1, max_size=6))
    targets = draw(st.lists(vertex, min_size=1, max_size=6))
    return a, indices, targets


@settings(max_examples=120, deadline=None)
@given(parts(), st.sampled_from(["auto", "FW", "BF", "J"]), st.sampled_from([np.float64, np.float32]))
def test_indices_and_targets_are_the_full_matrix_sliced(case, method, dtype):
    a, indices, targets = case
    full = csgraph.shortest_path(sp.csr_matrix(a), method="BF" if method == "FW" else method)
    got = apsp.shortest_path(a, method=method, indices=None if method == "FW" else indices, targets=targets, dtype=dtype)
    rows = np.arange(a.shape[0]) if method == "FW" else np.asarray(indices) % a.shape[0]
    want = full[np.ix_(rows, np.asarray(targets) % a.shape[0])]
    np.testing.assert_array_equal(got, want.astype(dtype))


@settings(max_examples=120, deadline=None)
@given(parts(), st.floats(0, 12), st.booleans())
def test_sparse_limit_keeps_what_scipy_keeps(case, limit, directed):
    a, indices, targets = case
    a = np.abs(a)  # scipy's dijkstra needs non-negative weights
    rows = np.asarray(indices) % a.shape[0]
    want = csgraph.dijkstra(sp.csr_matrix(a), directed=directed, indices=rows, limit=limit)
    want = want[:, np.asarray(targets) % a.shape[0]]
    got = apsp.sparse_distances(a, directed=directed, indices=indices, targets=targets, limit=limit)
    assert isinstance(got, sp.csr_array)
    assert got.shape == want.shape
    kept = np.isfinite(want)
    assert got.nnz == np.count_nonzero(kept)
    dense = got.toarray()
    np.testing.assert_array_equal(dense[kept], want[kept])
    assert got.has_sorted_indices


@settings(max_examples=80, deadline=None)
@given(parts(), st.integers(1, 4))
def test_sparse_nearest_keeps_the_k_smallest_of_each_row(case, k):
    a, indices, _ = case
    full = csgraph.shortest_path(sp.csr_matrix(a), method="BF", indices=np.asarray(indices) % a.shape[0])
    got = apsp.sparse_distances(a, indices=indices, nearest=k)
    for r in range(full.shape[0]):
        row = full[r]
        order = sorted((d, c) for c, d in enumerate(row) if np.isfinite(d))[:k]
        start, end = got.indptr[r], got.indptr[r + 1]
        assert sorted(zip(got.data[start:end], got.indices[start:end])) == [(d, c) for d, c in order]


def test_sparse_memory_grows_with_what_is_kept_and_both_entry_kinds_appear():
    a = random_dense(200, 0.02, 1, 9, seed=3)
    full = csgraph.shortest_path(sp.csr_matrix(a))
    assert np.isinf(full).any() and np.isfinite(full).any()
    got = apsp.sparse_distances(a, limit=4)
    assert got.nnz == np.count_nonzero(full <= 4) < full.size // 5
    assert got.data.nbytes + got.indices.nbytes <= 12 * got.nnz


def test_networkx_cutoff_agrees_with_sparse_limit():
    g = nx.gnm_random_graph(60, 150, seed=5, directed=True)
    for u, v in g.edges:
        g[u][v]["weight"] = (u * 7 + v * 3) % 9 + 1
    a = nx.to_scipy_sparse_array(g, nodelist=range(60), weight="weight", format="csr")
    got = apsp.sparse_distances(a, limit=12).tocsr()
    for source, lengths in nx.all_pairs_dijkstra_path_length(g, cutoff=12):
        start, end = got.indptr[source], got.indptr[source + 1]
        present = {int(c): float(d) for c, d in zip(got.indices[start:end], got.data[start:end])}
        assert present == {t: float(d) for t, d in lengths.items()}


@settings(max_examples=80, deadline=None)
@given(parts(), st.sampled_from(["auto", "D", "J"]), st.booleans())
def test_int16_is_the_int32_result_narrowed_and_dijkstra_limit_prunes_alike(case, method, limited):
    a, indices, targets = case
    a = np.abs(a) if method == "D" else a
    limit = 6.0 if limited else None
    wide = apsp.shortest_path(a, method=method, indices=indices, targets=targets, dtype=np.int32)
    got = apsp.shortest_path(a, method=method, indices=indices, targets=targets, dtype=np.int16)
    assert got.dtype == np.int16
    np.testing.assert_array_equal(got, np.where(wide == apsp.INF, apsp.INF16, wide).astype(np.int16))
    if method == "D":  # limit: the searches stop past it, as scipy's dijkstra
        want = csgraph.dijkstra(sp.csr_matrix(a), indices=np.asarray(indices) % a.shape[0], limit=limit or np.inf)
        want = want[:, np.asarray(targets) % a.shape[0]]
        near = apsp.dijkstra(a, indices=indices, targets=targets, limit=limit or np.inf)
        np.testing.assert_array_equal(near, want)


def test_int16_refuses_a_distance_it_cannot_hold():
    a = np.array([[0, 30000, 0], [0, 0, 30000], [0, 0, 0]])
    with pytest.raises(ValueError, match="int16 would not be exact"):
        apsp.shortest_path(a, dtype=np.int16)
    assert apsp.shortest_path(a[:2, :2], dtype=np.int16)[0, 1] == 30000


def test_bad_part_arguments_are_value_errors():
    a = random_dense(10, 0.3, 1, 9, seed=1)
    with pytest.raises(ValueError, match="targets"):
        apsp.shortest_path(a, targets=[10])
    with pytest.raises(ValueError, match="limit, nearest"):
        apsp.sparse_distances(a)
    with pytest.raises(ValueError, match="nearest"):
        apsp.sparse_distances(a, nearest=0)
    with pytest.raises(ValueError, match="limit"):
        apsp.sparse_distances(a, limit=-1)
    with pytest.raises(ValueError, match="min_only"):
        apsp.dijkstra(a, min_only=True, targets=[1])
    assert apsp.sparse_distances(a, indices=[], limit=3).shape == (0, 10)


def test_paths_of_many_pairs_follow_the_predecessors():
    a = random_dense(30, 0.15, 1, 9, seed=4)
    dist, pred = apsp.shortest_path(a, return_predecessors=True)
    pairs = [(0, 1), (0, 29), (29, 0), (5, 5), (-1, 3)]
    got = apsp.paths(pred, pairs)
    assert got == [apsp.path(pred, s, t) for s, t in pairs]
    for (s, t), vertices in zip(pairs, got):
        if np.isinf(dist[s, t]):
            assert vertices == []
        else:
            assert vertices[0] == s % 30 and vertices[-1] == t % 30
            assert sum(a[u, v] for u, v in zip(vertices, vertices[1:])) == dist[s, t]
    assert any(v == [] for v in got) and any(len(v) > 2 for v in got)
    with pytest.raises(ValueError, match="shape"):
        apsp.paths(pred, [0, 1])
    with pytest.raises(ValueError, match="outside"):
        apsp.paths(pred, [(0, 30)])
