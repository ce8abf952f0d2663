"""apsp.reconstruct_path, apsp.construct_dist_matrix and apsp.path against scipy's and against the distances."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.csgraph as csgraph
from conftest import random_dense
from hypothesis import given, settings
from hypothesis import strategies as st

import apsp


@st.composite
def graphs(draw):
    """A dense weight matrix (0 = no edge) of 0..9 vertices with weights 1..9, or reals in (0.1, 10)."""
    n = draw(st.integers(0, 9))
    real = draw(st.booleans())
    seed = draw(st.integers(0, 2**31))
    rng = np.random.default_rng(seed)
    mask = rng.random((n, n)) < draw(st.sampled_from([0.15, 0.3, 0.6]))
    weights = rng.uniform(0.1, 10, (n, n)) if real else rng.integers(1, 10, (n, n)).astype(np.float64)
    a = np.where(mask, weights, 0.0)
    np.fill_diagonal(a, 0)
    return a


@settings(max_examples=100, deadline=None)
@given(graphs(), st.booleans(), st.booleans())
def test_construct_dist_matrix_equals_scipy_and_the_distances(a, directed, sparse):
    graph = sp.csr_matrix(a) if sparse else a
    dist, pred = apsp.shortest_path(graph, directed=directed, return_predecessors=True)
    got = apsp.construct_dist_matrix(graph, pred, directed=directed)
    want = csgraph.construct_dist_matrix(graph, pred, directed=directed)
    np.testing.assert_allclose(got, want, rtol=1e-12)
    np.testing.assert_allclose(got, dist, rtol=1e-12)
    assert got.dtype == np.float64
    marked = apsp.construct_dist_matrix(graph, pred, directed=directed, null_value=-1.0)
    np.testing.assert_array_equal(marked == -1.0, np.isinf(dist))


@settings(max_examples=100, deadline=None)
@given(graphs(), st.booleans(), st.data())
def test_reconstruct_path_equals_scipy(a, directed, data):
    n = a.shape[0]
    if n == 0:
        return
    source = data.draw(st.integers(0, n - 1))
    _, pred = apsp.shortest_path(a, directed=directed, indices=source, return_predecessors=True)
    got = apsp.reconstruct_path(a, pred, directed=directed)
    want = csgraph.reconstruct_path(a, pred, directed=directed)
    assert got.shape == want.shape and got.dtype == np.float64
    np.testing.assert_array_equal(got.toarray(), want.toarray())
    assert sp.issparse(got) and got.format == "csr"


@settings(max_examples=100, deadline=None)
@given(graphs(), st.booleans(), st.data())
def test_path_walks_the_predecessors_with_the_distance_as_its_weight(a, directed, data):
    n = a.shape[0]
    if n == 0:
        return
    i = data.draw(st.integers(0, n - 1))
    j = data.draw(st.integers(0, n - 1))
    dist, pred = apsp.shortest_path(a, directed=directed, return_predecessors=True)
    vertices = apsp.path(pred, i, j)
    assert vertices == apsp.path(pred[i], i, j)  # one row, as indices=i returns it
    if np.isinf(dist[i, j]):
        assert vertices == []
        return
    assert vertices[0] == i and vertices[-1] == j
    w = np.where(a > 0, a, np.inf)
    if not directed:
        w = np.minimum(w, w.T)
    assert np.isclose(sum(w[u, v] for u, v in zip(vertices, vertices[1:])), dist[i, j], rtol=1e-12)


def test_finite_and_unreachable_pairs_on_a_seeded_graph():
    a = random_dense(40, 0.08, 1, 9, seed=3)
    dist, pred = apsp.shortest_path(a, return_predecessors=True)
    assert np.isinf(dist).any() and np.isfinite(dist[~np.eye(40, dtype=bool)]).any()
    np.testing.assert_array_equal(apsp.construct_dist_matrix(a, pred), dist)
    assert apsp.path(pred, 0, 0) == [0]
    assert apsp.path(pred, 0, 39) == []  # vertex 39 has no in-edges


def test_bad_predecessors_are_value_errors_not_wrong_numbers():
    a = np.array([[0, 1, 0], [0, 0, 1], [0, 0, 0]], dtype=float)
    _, pred = apsp.shortest_path(a, return_predecessors=True)
    cycle = pred.copy()
    cycle[0, 1], cycle[0, 2] = 2, 1  # 1 <- 2 <- 1: never reaches 0
    with pytest.raises(ValueError, match="not an edge|do not lead"):
        apsp.construct_dist_matrix(a, cycle)
    not_edge = pred.copy()
    not_edge[0, 2] = 0  # 0 -> 2 is no edge
    with pytest.raises(ValueError, match="0 -> 2 is not an edge"):
        apsp.construct_dist_matrix(a, not_edge)
    with pytest.raises(ValueError, match="0 -> 2 is not an edge"):
        apsp.reconstruct_path(a, not_edge[0])
    with pytest.raises(ValueError, match="shape"):
        apsp.construct_dist_matrix(a, pred[:2])
    with pytest.raises(ValueError, match="outside"):
        apsp.construct_dist_matrix(a, np.full((3, 3), 7))
    loop = np.array([-9999, 2, 1])
    with pytest.raises(ValueError, match="do not lead back"):
        apsp.path(loop, 0, 1)
    with pytest.raises(ValueError, match="outside"):
        apsp.path(pred, 0, 3)
