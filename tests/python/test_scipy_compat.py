"""apsp against scipy.sparse.csgraph on seeded random graphs: every method and option."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.csgraph as csgraph
from conftest import (
    NO_PRED,
    assert_has_finite_and_unreachable,
    check_predecessors,
    edge_weights,
    no_negative_cycle,
    random_dense,
)

import apsp

METHODS = ["auto", "FW", "D", "BF", "J"]
SIZES = [2, 5, 31, 64, 65, 100]
FORMATS = ["dense", "csr", "csc", "coo", "lil"]


def as_format(a: np.ndarray, fmt: str):
    """Dense a (0 = no edge) in the given input format; sparse ones store only the edges."""
    if fmt == "dense":
        return a
    m = sp.csr_matrix(a)
    return {"csr": m, "csc": m.tocsc(), "coo": m.tocoo(), "lil": m.tolil()}[fmt]


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("directed", [True, False])
@pytest.mark.parametrize("unweighted", [False, True])
@pytest.mark.parametrize("fmt", FORMATS)
def test_distances_equal_scipy(method, directed, unweighted, fmt):
    for n in SIZES:
        a = random_dense(n, 0.1, 1, 20, seed=n * 7 + 1)
        g = as_format(a, fmt)
        reference = g.tocsr() if fmt == "coo" else g  # scipy's FW takes no COO
        want = csgraph.shortest_path(reference, method=method, directed=directed, unweighted=unweighted)
        got = apsp.shortest_path(g, method=method, directed=directed, unweighted=unweighted)
        assert got.dtype == np.float64 and got.shape == (n, n)
        np.testing.assert_array_equal(got, want, err_msg=f"n={n}")
        if directed and n >= 3:
            assert_has_finite_and_unreachable(got)


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("directed", [True, False])
def test_predecessors_rebuild_shortest_paths(method, directed):
    for n in SIZES:
        a = random_dense(n, 0.15, 0, 9, seed=n + 100)  # 0 draws: no edge here; zero weights come in sparse tests
        dist, pred = apsp.shortest_path(a, method=method, directed=directed, return_predecessors=True)
        np.testing.assert_array_equal(dist, csgraph.shortest_path(a, method=method, directed=directed))
        check_predecessors(dist, pred, edge_weights(a, directed))


def test_the_scipy_functions_equal_shortest_path_methods():
    a = random_dense(70, 0.08, 1, 30, seed=3)
    g = sp.csr_matrix(a)
    for ours, theirs in [
        (apsp.floyd_warshall, csgraph.floyd_warshall),
        (apsp.dijkstra, csgraph.dijkstra),
        (apsp.bellman_ford, csgraph.bellman_ford),
        (apsp.johnson, csgraph.johnson),
    ]:
        np.testing.assert_array_equal(ours(g), theirs(g), err_msg=ours.__name__)
        d, p = ours(g, directed=False, return_predecessors=True)
        np.testing.assert_array_equal(d, theirs(g, directed=False))
        check_predecessors(d, p, edge_weights(g, False))


@pytest.mark.parametrize("method", ["auto", "FW", "BF", "J"])
def test_negative_weights_equal_scipy(method):
    for n in SIZES:
        a = no_negative_cycle(n, -9, 20, 0.15, seed=n + 11)
        want = csgraph.shortest_path(a, method=method)
        got, pred = apsp.shortest_path(a, method=method, return_predecessors=True)
        np.testing.assert_array_equal(got, want, err_msg=f"n={n}")
        check_predecessors(got, pred, edge_weights(a, True))
    assert (got < 0).any()


def test_dijkstra_with_negative_weights_warns_and_is_exact():
    a = no_negative_cycle(40, -5, 20, 0.2, seed=9)
    with pytest.warns(UserWarning, match="negative weights"):
        got = apsp.dijkstra(a)
    np.testing.assert_array_equal(got, csgraph.johnson(a))


@pytest.mark.parametrize("method", METHODS)
def test_negative_cycle_raises_scipys_error_type(method):
    a = random_dense(12, 0.3, 1, 9, seed=4)
    a[2, 3], a[3, 4], a[4, 2] = 1, 1, -5
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        with pytest.raises(csgraph.NegativeCycleError):
            apsp.shortest_path(a, method=method)
        try:
            apsp.shortest_path(sp.csr_matrix(a), method=method)
        except csgraph.NegativeCycleError as e:  # the except clause of scipy code
            assert isinstance(e, apsp.NegativeCycleError)
        else:
            pytest.fail("no NegativeCycleError")


def test_negative_self_loop_is_a_negative_cycle():
    a = np.zeros((3, 3))
    a[0, 1], a[1, 1] = 2, -1
    with pytest.raises(apsp.NegativeCycleError):
        apsp.shortest_path(a, method="J")


@pytest.mark.parametrize("method", ["auto", "D", "BF", "J"])
def test_indices_equal_scipy(method):
    a = random_dense(65, 0.1, 1, 20, seed=21)
    g = sp.csr_matrix(a)
    for indices in [0, 64, -1, [3], [5, 0, 5, 64], np.array([10, 2], dtype=np.int64), []]:
        want = csgraph.shortest_path(g, method=method, indices=indices)
        got, pred = apsp.shortest_path(g, method=method, indices=indices, return_predecessors=True)
        assert got.shape == want.shape, indices
        np.testing.assert_array_equal(got, want, err_msg=str(indices))
        rows = np.atleast_2d(got) if np.ndim(indices) == 0 else got
        preds = np.atleast_2d(pred) if np.ndim(indices) == 0 else pred
        src = np.atleast_1d(np.asarray(indices) % 65)
        if rows.size:
            check_predecessors(rows, preds, edge_weights(g, True), src)


def test_indices_with_fw_is_a_value_error_like_scipy():
    a = random_dense(5, 0.5, 1, 5, seed=1)
    with pytest.raises(ValueError, match="indices"):
        apsp.shortest_path(a, method="FW", indices=[0])
    with pytest.raises(ValueError):
        csgraph.shortest_path(a, method="FW", indices=[0])


def test_indices_out_of_range_is_a_value_error():
    a = random_dense(5, 0.5, 1, 5, seed=1)
    for bad in [5, -6, [0, 7]]:
        with pytest.raises(ValueError, match="out of range"):
            apsp.dijkstra(a, indices=bad)


def test_limit_equals_scipy():
    a = random_dense(80, 0.06, 1, 20, seed=5)
    for limit in [0, 5, 17.5, 40, np.inf]:
        for indices in [None, [0, 3]]:
            want = csgraph.dijkstra(a, indices=indices, limit=limit)
            got, pred = apsp.dijkstra(a, indices=indices, limit=limit, return_predecessors=True)
            np.testing.assert_array_equal(got, want, err_msg=f"limit={limit}")
            src = np.arange(80) if indices is None else np.array(indices)
            check_predecessors(got, pred, edge_weights(a, True), src)
    with pytest.raises(ValueError, match="limit"):
        apsp.dijkstra(a, limit=-1)


@pytest.mark.parametrize("directed", [True, False])
def test_min_only_equals_scipy(directed):
    for n, indices in [(60, [0, 7, 33]), (31, None), (20, [19]), (45, [4, 4, 9])]:
        a = random_dense(n, 0.07, 1, 20, seed=n)
        want_d, want_p, want_s = csgraph.dijkstra(
            a, directed=directed, indices=indices, min_only=True, return_predecessors=True
        )
        got_d, got_p, got_s = apsp.dijkstra(a, directed=directed, indices=indices, min_only=True, return_predecessors=True)
        np.testing.assert_array_equal(got_d, want_d)
        assert got_p.dtype == np.int32 and got_s.dtype == np.int32
        np.testing.assert_array_equal(got_s == NO_PRED, want_s == NO_PRED)
        full = csgraph.dijkstra(a, directed=directed)
        w = edge_weights(a, directed)
        for v in range(n):
            if np.isfinite(got_d[v]):
                s = got_s[v]
                assert full[s, v] == got_d[v], (v, s)  # the distance is from the source named
                total, u = 0.0, v
                while got_p[u] != NO_PRED:
                    total += w[got_p[u], u]
                    u = got_p[u]
                assert u == s and total == got_d[v]
        np.testing.assert_array_equal(apsp.dijkstra(a, directed=directed, indices=indices, min_only=True), want_d)


def test_min_only_with_a_negative_edge_between_sources_matches_scipy():
    g = sp.csr_matrix(np.array([[0, -1, 0], [0, 0, 2], [0, 0, 0]], float))
    with pytest.warns(UserWarning):
        d, p, s = apsp.dijkstra(g, indices=[0, 2], min_only=True, return_predecessors=True)
    np.testing.assert_array_equal(d, [0, -1, 0])
    np.testing.assert_array_equal(p, [NO_PRED, 0, NO_PRED])
    np.testing.assert_array_equal(s, [0, 0, 2])


def test_dense_zero_inf_and_nan_mean_no_edge():
    a = np.array(
        [
            [0, 1, np.inf, np.nan],
            [np.nan, 0, 2, 0],
            [0, np.inf, 0, 3],
            [np.inf, 0, np.nan, 0],
        ]
    )
    want = csgraph.shortest_path(a)
    np.testing.assert_array_equal(apsp.shortest_path(a), want)
    np.testing.assert_array_equal(want[3], [np.inf, np.inf, np.inf, 0])
    masked = np.ma.masked_array(np.array([[0, 4.0], [1, 0]]), mask=[[False, True], [False, False]])
    np.testing.assert_array_equal(apsp.shortest_path(masked), csgraph.shortest_path(masked))


def test_explicit_zeros_in_sparse_input_are_edges():
    rows, cols = np.array([0, 1, 2, 3]), np.array([1, 2, 3, 0])
    data = np.array([0.0, 0.0, 5.0, 0.0])
    coo = sp.coo_matrix((data, (rows, cols)), shape=(5, 5))
    for g in [coo, coo.tocsr(), coo.tocsc(), sp.csr_array(coo)]:
        assert g.nnz == 4
        want = csgraph.shortest_path(coo.tocsr())
        got = apsp.shortest_path(g)
        np.testing.assert_array_equal(got, want)
        assert got[0, 2] == 0 and got[1, 0] == 5 and np.isinf(got[0, 4])


def test_sparse_duplicates_keep_the_lightest_and_self_loops_are_dropped():
    coo = sp.coo_matrix((np.array([5.0, 2.0, 7.0, 3.0]), (np.array([0, 0, 1, 1]), np.array([1, 1, 1, 0]))), shape=(3, 3))
    got = apsp.shortest_path(coo)
    assert got[0, 1] == 2 and got[1, 1] == 0 and got[1, 0] == 3
    # scipy sums duplicates when it converts COO: compare on the summed matrix's CSR
    np.testing.assert_array_equal(apsp.shortest_path(coo.tocsr()), csgraph.shortest_path(coo.tocsr()))


@pytest.mark.parametrize("method", METHODS)
def test_zero_and_one_vertex(method):
    for g in [np.zeros((0, 0)), sp.csr_matrix((0, 0))]:
        d = apsp.shortest_path(g, method=method)
        assert d.shape == (0, 0) and d.dtype == np.float64
        d, p = apsp.shortest_path(g, method=method, return_predecessors=True)
        assert p.shape == (0, 0) and p.dtype == np.int32
    for g in [np.zeros((1, 1)), np.array([[4.0]]), sp.csr_matrix(np.array([[0.0]]))]:
        d, p = apsp.shortest_path(g, method=method, return_predecessors=True)
        np.testing.assert_array_equal(d, [[0.0]])
        np.testing.assert_array_equal(p, [[NO_PRED]])


def test_non_contiguous_and_fortran_arrays():
    base = random_dense(130, 0.05, 1, 9, seed=17)
    for view in [base[::2, ::2], base[1:101, 1:101], np.asfortranarray(base), base.T, base[::-1, ::-1]]:
        assert not view.flags.c_contiguous or view is base
        np.testing.assert_array_equal(apsp.shortest_path(view), csgraph.shortest_path(np.ascontiguousarray(view)))
    for view in [base[::3, ::3], np.asfortranarray(base)]:
        np.testing.assert_array_equal(apsp.shortest_path(view, directed=False), csgraph.shortest_path(view, directed=False))


@pytest.mark.parametrize(
    "dtype", [np.float64, np.float32, np.int64, np.int32, np.int16, np.int8, np.uint8, np.uint32, np.uint64]
)
def test_input_dtypes(dtype):
    a = random_dense(40, 0.1, 1, 100, seed=8, dtype=dtype)
    want = csgraph.shortest_path(a.astype(np.float64))
    np.testing.assert_array_equal(apsp.shortest_path(a), want)
    g = sp.csr_matrix(a)
    np.testing.assert_array_equal(apsp.shortest_path(g), want)
    g64 = sp.csr_matrix(a)
    g64.indptr, g64.indices = g64.indptr.astype(np.int64), g64.indices.astype(np.int64)
    np.testing.assert_array_equal(apsp.shortest_path(g64), want)


def test_bool_input_is_unweighted():
    a = random_dense(30, 0.1, 1, 9, seed=2) != 0
    np.testing.assert_array_equal(apsp.shortest_path(a), csgraph.shortest_path(a))


def test_integer_valued_float_weights_use_the_exact_int32_engine():
    a = random_dense(20, 0.2, -3, 9, seed=6, dtype=np.float64)
    a[np.tril_indices(20, -1)] = np.abs(a[np.tril_indices(20, -1)]) * 100
    np.testing.assert_array_equal(apsp.shortest_path(a, method="J"), csgraph.shortest_path(a, method="J"))
    assert apsp.last_solve_info()["weights"] == "int32"


def real_weights(n: int, seed: int, negative: bool) -> np.ndarray:
    """Real weights (0.1 .. 20, some negative on forward edges when asked), 0 = no edge; no negative cycle."""
    rng = np.random.default_rng(seed)
    a = np.where(rng.random((n, n)) < 0.1, rng.uniform(0.1, 20.0, (n, n)), 0.0)
    if negative:
        upper = np.triu(rng.random((n, n)) < 0.3, 1) & (a != 0)
        a[upper] = -a[upper] / 10
        lower = np.tril_indices(n, -1)
        a[lower] = np.where(a[lower] != 0, a[lower] + 2 * n, 0)
    np.fill_diagonal(a, 0)
    if n >= 3:
        a[:, n - 1] = 0
    return a


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("directed", [True, False])
def test_real_weights_equal_scipy_within_rounding(method, directed):
    for n in [2, 31, 65]:
        a = real_weights(n, seed=n, negative=False)
        for g in [a, sp.csr_matrix(a)]:
            # scipy 1.17's undirected BF reports a negative cycle on some real-weighted
            # graphs without negative weights; its Johnson is the reference there.
            reference = "J" if method == "BF" and not directed else method
            want = csgraph.shortest_path(g, method=reference, directed=directed)
            got, pred = apsp.shortest_path(g, method=method, directed=directed, return_predecessors=True)
            assert apsp.last_solve_info()["weights"] == ("float64" if (a != np.floor(a)).any() else "int32")
            np.testing.assert_allclose(got, want, rtol=1e-12, atol=0)
            np.testing.assert_array_equal(np.isinf(got), np.isinf(want))
            w = edge_weights(g, directed)
            for i, j in zip(*np.nonzero(np.isfinite(got) & ~np.eye(n, dtype=bool))):
                total, v = 0.0, j
                while v != i:
                    total, v = total + w[pred[i, v], v], pred[i, v]
                assert total == pytest.approx(got[i, j], rel=1e-12)
    if directed:
        assert_has_finite_and_unreachable(got)


@pytest.mark.parametrize("method", ["auto", "FW", "BF", "J"])
def test_real_negative_weights_equal_scipy_and_float32_output(method):
    a = real_weights(60, seed=3, negative=True)
    want = csgraph.shortest_path(a, method=method)
    np.testing.assert_allclose(apsp.shortest_path(a, method=method), want, rtol=1e-12)
    np.testing.assert_allclose(apsp.shortest_path(a, method=method, dtype=np.float32), want.astype(np.float32), rtol=1e-6)
    assert (want < 0).any()
    with pytest.raises(ValueError, match="^dtype: "):
        apsp.shortest_path(a, method=method, dtype=np.int32)


def test_real_weights_with_indices_limit_and_min_only():
    a = real_weights(50, seed=8, negative=False)
    np.testing.assert_allclose(apsp.dijkstra(a, indices=[3, 0], limit=15.5), csgraph.dijkstra(a, indices=[3, 0], limit=15.5))
    d, p, s = apsp.dijkstra(a, indices=[1, 7], min_only=True, return_predecessors=True)
    wd, wp, ws = csgraph.dijkstra(a, indices=[1, 7], min_only=True, return_predecessors=True)
    np.testing.assert_allclose(d, wd)
    np.testing.assert_array_equal(s == NO_PRED, ws == NO_PRED)


def test_real_negative_cycle_raises():
    a = real_weights(10, seed=2, negative=False)
    a[1, 2], a[2, 1] = 0.5, -0.75
    with pytest.raises(csgraph.NegativeCycleError):
        apsp.shortest_path(a, method="J")


@pytest.mark.parametrize("n", [3, 1000])
@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("dense", [True, False])
def test_small_negative_cycle_is_reported_whatever_n(n, method, dense):
    # A cycle of weight -1e-10 among weights of 1e3: negative by its own
    # edges (below -k * 2^-53 * sum|w|), with or without 997 isolated
    # vertices; scipy reports both. A zero-sum cycle that rounding makes
    # slightly negative (0.3, -0.1, -0.2) is not reported, as in scipy.
    a = np.zeros((n, n))
    a[0, 1], a[1, 2], a[2, 0] = 500.0, 500.0, -1000.0000000001
    graph = a if dense else sp.csr_matrix(a)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        with pytest.raises(csgraph.NegativeCycleError):
            csgraph.shortest_path(graph, method="J" if method == "D" else method)
        with pytest.raises(csgraph.NegativeCycleError):
            apsp.shortest_path(graph, method=method)
        a[0, 1], a[1, 2], a[2, 0] = 0.3, -0.1, -0.2
        graph = a if dense else sp.csr_matrix(a)
        np.testing.assert_allclose(apsp.shortest_path(graph, method=method), csgraph.shortest_path(graph, method="J"))


def test_minus_inf_weight_is_a_value_error_in_sparse_input():
    # Dense input reads -inf as no edge, as scipy (test_issue20_edges.py);
    # a stored -inf is refused (scipy returns -inf or NaN distances).
    a = np.zeros((3, 3))
    a[0, 1] = -np.inf
    with pytest.raises(ValueError, match="-inf"):
        apsp.shortest_path(sp.csr_matrix(([-np.inf], ([0], [1])), shape=(3, 3)))
    with pytest.raises(ValueError, match="-inf"):
        apsp.shortest_path(sp.coo_matrix(([1.0, -np.inf], ([1, 0], [2, 1])), shape=(3, 3)))


def test_shapes_that_are_not_square_are_value_errors():
    with pytest.raises(ValueError):
        apsp.shortest_path(np.zeros((2, 3)))
    with pytest.raises(ValueError):
        apsp.shortest_path(sp.csr_matrix((2, 3)))
    with pytest.raises(ValueError):
        apsp.shortest_path(np.zeros(4))


def test_unknown_method_is_a_value_error():
    with pytest.raises(ValueError, match="method"):
        apsp.shortest_path(np.zeros((2, 2)), method="XX")
