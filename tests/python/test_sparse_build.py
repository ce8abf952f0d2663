"""Sparse input large enough to be built in several parts (the module builds
2048 stored entries a part, in parallel): the parts' seams, dropped entries
closed up across them, the order check that lets a sorted input skip the
sort, and errors that name the first bad entry whatever part holds it."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.csgraph as csgraph
from conftest import edge_weights

import apsp
from apsp import _apsp

ENTRIES_PER_PART = 2048  # python/src/module.cpp's kEntriesPerPart


def canonical(n: int, m: int, seed: int, dtype=np.float64) -> sp.csr_matrix:
    """A CSR matrix with about m stored entries, weights 1..50, sorted indices, no duplicates or self-loops."""
    rng = np.random.default_rng(seed)
    rows, cols = rng.integers(0, n, m), rng.integers(0, n, m)
    keep = rows != cols
    data = rng.integers(1, 51, m).astype(dtype)
    g = sp.csr_matrix((data[keep], (rows[keep], cols[keep])), shape=(n, n))
    g.sum_duplicates()
    g.sort_indices()
    assert g.nnz > 3 * ENTRIES_PER_PART, "several parts"
    return g


def reference(graph, directed: bool = True) -> np.ndarray:
    """scipy's distances over the lightest stored edge of each pair (+inf and NaN entries are no edge)."""
    return csgraph.shortest_path(edge_weights(graph, directed), directed=directed)


def blocks_reversed(coo: sp.coo_matrix, parts: int) -> sp.coo_matrix:
    """The same entries with `parts` blocks in reverse order: each block sorted, every seam descending."""
    order = np.concatenate(np.array_split(np.arange(coo.nnz), parts)[::-1])
    return sp.coo_matrix((coo.data[order], (coo.row[order], coo.col[order])), shape=coo.shape)


@pytest.mark.parametrize("directed", [True, False])
def test_every_format_of_a_multi_part_graph_equals_scipy(directed):
    g = canonical(400, 14000, seed=3)
    want = reference(g, directed)
    assert np.isfinite(want).any()
    coo = g.tocoo()
    shuffled = np.random.default_rng(4).permutation(coo.nnz)
    unsorted_rows = g.copy()
    for r in range(g.shape[0]):  # indices descending inside each row
        lo, hi = unsorted_rows.indptr[r], unsorted_rows.indptr[r + 1]
        unsorted_rows.indices[lo:hi] = unsorted_rows.indices[lo:hi][::-1]
        unsorted_rows.data[lo:hi] = unsorted_rows.data[lo:hi][::-1]
    unsorted_rows.has_sorted_indices = False
    inputs = {
        "csr": g,
        "csr, rows unsorted": unsorted_rows,
        "csc": g.tocsc(),
        "coo": coo,
        "coo, shuffled": sp.coo_matrix((coo.data[shuffled], (coo.row[shuffled], coo.col[shuffled])), shape=g.shape),
        "coo, seams descending": blocks_reversed(coo, 5),
        "csr, int64 indices": sp.csr_matrix((g.data, g.indices.astype(np.int64), g.indptr.astype(np.int64)), shape=g.shape),
        "csr, int32 weights": sp.csr_matrix((g.data.astype(np.int32), g.indices, g.indptr), shape=g.shape),
    }
    for name, graph in inputs.items():
        np.testing.assert_array_equal(apsp.shortest_path(graph, directed=directed, method="D"), want, err_msg=name)


def test_sorted_parts_with_descending_seams_give_the_normalized_graph():
    g = canonical(300, 10000, seed=5)
    for name, graph in {"csr": g, "coo, seams descending": blocks_reversed(g.tocoo(), 4)}.items():
        n, indptr, indices, weights = apsp._csgraph._graph(graph, True, False).csr()
        assert n == 300
        np.testing.assert_array_equal(indptr, g.indptr, err_msg=name)
        np.testing.assert_array_equal(indices, g.indices, err_msg=name)
        np.testing.assert_array_equal(weights, g.data.astype(np.int32), err_msg=name)


def test_duplicates_and_self_loops_across_seams():
    g = canonical(200, 9000, seed=6).tocoo()
    rows = np.concatenate([g.row, g.row[::7], np.arange(200)])  # every 7th edge again, lighter; a self-loop per vertex
    cols = np.concatenate([g.col, g.col[::7], np.arange(200)])
    data = np.concatenate([g.data, np.maximum(g.data[::7] - 3, 1), np.full(200, 2.0)])
    order = np.random.default_rng(7).permutation(rows.size)
    coo = sp.coo_matrix((data[order], (rows[order], cols[order])), shape=(200, 200))
    np.testing.assert_array_equal(apsp.shortest_path(coo, method="D"), reference(coo))


def test_dropped_entries_close_up_across_parts():
    g = canonical(300, 12000, seed=8)
    dropped = g.copy()
    rng = np.random.default_rng(9)
    cut = rng.choice(g.nnz, 900, replace=False)  # in every part
    dropped.data[cut[:450]] = np.inf
    dropped.data[cut[450:]] = np.nan
    graph = apsp._csgraph._graph(dropped, True, False)
    assert graph.m == g.nnz - 900
    np.testing.assert_array_equal(apsp.shortest_path(dropped, method="D"), reference(dropped))
    every_part_but_the_first = g.copy()
    every_part_but_the_first.data[ENTRIES_PER_PART:] = np.inf  # the later parts keep nothing
    kept = apsp._csgraph._graph(every_part_but_the_first, True, False)
    assert kept.m == ENTRIES_PER_PART


def raw_csr(n: int, m: int, seed: int):
    """indptr, indices and data of a CSR matrix, as arrays the module reads (free to break)."""
    g = canonical(n, m, seed)
    return g.indptr.copy(), g.indices.copy(), g.data.copy()


def test_the_first_bad_entry_is_named_whatever_part_holds_it():
    indptr, indices, data = raw_csr(300, 12000, seed=10)
    assert indices.size > 5 * ENTRIES_PER_PART
    early, late = ENTRIES_PER_PART + 17, 4 * ENTRIES_PER_PART + 5  # in the second part and in the fifth
    row_of = np.searchsorted(indptr, np.arange(indices.size), side="right") - 1

    def build(i, d):
        return _apsp.graph_from_csr(300, indptr, i, d, True, False, False)

    bad_index, minus_inf = indices.copy(), data.copy()
    bad_index[late], minus_inf[early] = 300, -np.inf
    with pytest.raises(ValueError, match=f"edge {row_of[early]} -> {indices[early]} has weight -inf"):
        build(bad_index, minus_inf)
    bad_index, minus_inf = indices.copy(), data.copy()
    bad_index[early], minus_inf[late] = 300, -np.inf
    with pytest.raises(ValueError, match=rf"entry {early} \({row_of[early]}, 300\) is outside the 300 x 300 matrix"):
        build(bad_index, minus_inf)
    too_big = data.astype(np.int64)  # int64 weights beyond int32: the float64 engine, as scipy, no error
    too_big[late], too_big[late + 1] = 2**40, -(2**40)
    assert build(indices, too_big).weights == "float64"
    bad_index = indices.copy()
    bad_index[early] = 300
    with pytest.raises(ValueError, match=rf"entry {early} \({row_of[early]}, 300\) is outside the 300 x 300 matrix"):
        build(bad_index, too_big)
    coo = sp.coo_matrix(canonical(300, 12000, seed=10))
    cols = coo.col.astype(np.int64)
    cols[late], cols[early] = -1, 400
    with pytest.raises(ValueError, match=rf"entry {early} \({coo.row[early]}, 400\) is outside"):
        _apsp.graph_from_coo(300, coo.row, cols, coo.data, True, False)


def test_unsigned_and_float32_weights_at_the_int32_edge():
    indptr, indices, data = raw_csr(300, 12000, seed=11)
    late = 5 * ENTRIES_PER_PART
    big = data.astype(np.uint32)
    big[late] = 3591109  # the largest w with 299 * w < 2**30 - 1: int32 distances hold every answer
    graph = _apsp.graph_from_csr(300, indptr, indices, big, True, False, False)
    assert graph.m == indices.size and graph.weights == "int32"
    for wide in (3591110, 2**31 - 1, 2**31, 2**32 - 1):  # int32 distances may not hold them: float64, no error
        big[late] = wide
        graph = _apsp.graph_from_csr(300, indptr, indices, big, True, False, False)
        assert graph.m == indices.size and graph.weights == "float64", wide
    halves = data.astype(np.float32)
    halves[late] = 2.5  # a real weight: the float64 engine, no error
    assert _apsp.graph_from_csr(300, indptr, indices, halves, True, False, False).weights == "float64"


def test_float_weights_that_are_integers_build_int32_edges_at_once():
    indptr, indices, data = raw_csr(300, 12000, seed=12)  # float64 data, integer values
    graph = _apsp.graph_from_csr(300, indptr, indices, data, True, False, False)
    assert graph.weights == "int32"
    assert _apsp.graph_from_csr(300, indptr, indices, data.astype(np.float32), True, False, False).weights == "int32"
    late = 5 * ENTRIES_PER_PART + 3
    edge = data.copy()
    edge[late] = -3591109.0  # the largest |w| with 299 * |w| < 2**30 - 1: still the exact engine's
    assert _apsp.graph_from_csr(300, indptr, indices, edge, True, False, False).weights == "int32"
    # Not an integer, or int32 distances might not hold the answer (choose_weight_type's rule).
    for real in (2.5, 3591110.0, 2147483647.0, -2147483648.0, 1e12):
        edge = data.copy()
        edge[late] = real
        assert _apsp.graph_from_csr(300, indptr, indices, edge, True, False, False).weights == "float64", real
    g = sp.csr_matrix((data, indices, indptr), shape=(300, 300))
    g.data[late] = 2.5
    np.testing.assert_array_equal(apsp.shortest_path(g, method="D"), reference(g))
    np.testing.assert_array_equal(apsp.shortest_path(g, method="D", directed=False), reference(g, False))


def test_an_integer_attempt_that_meets_a_real_weight_still_names_the_first_bad_entry():
    indptr, indices, data = raw_csr(300, 12000, seed=13)
    row_of = np.searchsorted(indptr, np.arange(indices.size), side="right") - 1
    early, late = 17, 4 * ENTRIES_PER_PART + 5
    for bad_at, real_at in ((late, early), (early, late), (early, early + 1)):
        bad, real = indices.copy(), data.copy()
        bad[bad_at], real[real_at] = 300, 0.5
        with pytest.raises(ValueError, match=rf"entry {bad_at} \({row_of[bad_at]}, 300\) is outside"):
            _apsp.graph_from_csr(300, indptr, bad, real, True, False, False)
    minus_inf = data.copy()
    minus_inf[late] = -np.inf
    with pytest.raises(ValueError, match=f"edge {row_of[late]} -> {indices[late]} has weight -inf"):
        _apsp.graph_from_csr(300, indptr, indices, minus_inf, True, False, False)


def test_a_real_weight_only_on_a_dropped_duplicate_keeps_the_exact_engine():
    g = canonical(200, 9000, seed=14).tocoo()
    rows = np.concatenate([g.row, g.row[:1]])
    cols = np.concatenate([g.col, g.col[:1]])
    data = np.concatenate([g.data, [g.data[0] + 0.5]])  # heavier: normalization keeps the integer one
    graph = _apsp.graph_from_coo(200, rows, cols, data, True, False)
    assert graph.weights == "int32" and graph.m == g.nnz
