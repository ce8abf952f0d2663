"""Property tests: hypothesis draws small graphs; apsp must agree with scipy on each."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.csgraph as csgraph
from conftest import check_predecessors, edge_weights
from hypothesis import given, settings
from hypothesis import strategies as st

import apsp


@st.composite
def graphs(draw, negative: bool):
    """A small graph as (dense weights, sparse CSR with explicit zeros): up to 9 vertices, weights -4..9 or 0..9."""
    n = draw(st.integers(0, 9))
    cells = draw(st.lists(st.tuples(st.integers(0, max(n - 1, 0)), st.integers(0, max(n - 1, 0)),
                                    st.integers(-4 if negative else 0, 9)), max_size=3 * n if n else 0))
    rows = np.array([c[0] for c in cells], dtype=np.int32)
    cols = np.array([c[1] for c in cells], dtype=np.int32)
    data = np.array([c[2] for c in cells], dtype=np.float64)
    coo = sp.coo_matrix((data, (rows, cols)), shape=(n, n))
    csr = sp.csr_matrix((data, (rows, cols)), shape=(n, n))
    csr.sum_duplicates()  # scipy sums duplicates on conversion; compare on the summed matrix
    return n, coo, csr


@settings(max_examples=150, deadline=None)
@given(graphs(negative=False), st.sampled_from(["auto", "FW", "D", "BF", "J"]), st.booleans(), st.booleans())
def test_non_negative_graphs_equal_scipy(graph, method, directed, unweighted):
    _, _, csr = graph
    want = csgraph.shortest_path(csr, method=method, directed=directed, unweighted=unweighted)
    got, pred = apsp.shortest_path(csr, method=method, directed=directed, unweighted=unweighted, return_predecessors=True)
    np.testing.assert_array_equal(got, want)
    check_predecessors(got, pred, edge_weights(csr, directed, unweighted))


@settings(max_examples=150, deadline=None)
@given(graphs(negative=True), st.sampled_from(["auto", "FW", "BF", "J"]))
def test_graphs_with_negative_weights_equal_scipy_or_both_find_a_cycle(graph, method):
    _, _, csr = graph
    if (csr.diagonal() < 0).any():
        # A negative self-loop is a negative cycle for apsp; scipy's FW ignores it.
        with pytest.raises(csgraph.NegativeCycleError):
            apsp.shortest_path(csr, method=method)
        return
    try:
        want = csgraph.shortest_path(csr, method=method)
    except csgraph.NegativeCycleError:
        want = None
    if want is None:
        try:
            apsp.shortest_path(csr, method=method)
        except csgraph.NegativeCycleError:
            return
        raise AssertionError("scipy found a negative cycle, apsp did not")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        got = apsp.shortest_path(csr, method=method)
    np.testing.assert_array_equal(got, want)


@settings(max_examples=100, deadline=None)
@given(graphs(negative=False), st.data())
def test_dijkstra_indices_limit_and_min_only_equal_scipy(graph, data):
    n, _, csr = graph
    if n == 0:
        return
    indices = data.draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=4))
    limit = data.draw(st.sampled_from([np.inf, 0, 3, 7.5]))
    np.testing.assert_array_equal(
        apsp.dijkstra(csr, indices=indices, limit=limit), csgraph.dijkstra(csr, indices=indices, limit=limit)
    )
    np.testing.assert_array_equal(
        apsp.dijkstra(csr, indices=indices, min_only=True), csgraph.dijkstra(csr, indices=indices, min_only=True)
    )
