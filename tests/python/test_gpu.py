"""The CUDA backend through Python: skipped without a device (the lead runs these on the GPU machine)."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.csgraph as csgraph
from conftest import check_predecessors, edge_weights, no_negative_cycle, random_dense, requires_gpu

import apsp

pytestmark = [pytest.mark.gpu, requires_gpu]


@pytest.mark.parametrize("n", [1, 31, 64, 65, 200, 1537])
def test_cuda_backend_equals_scipy(n):
    a = random_dense(n, min(1.0, 8 / max(n, 1)), 1, 50, seed=n)
    g = sp.csr_matrix(a)
    want = csgraph.shortest_path(g, method="D")
    d, p = apsp.shortest_path(g, backend="cuda", return_predecessors=True)
    np.testing.assert_array_equal(d, want)
    if n <= 200:
        check_predecessors(d, p, edge_weights(g, True))
    np.testing.assert_array_equal(apsp.shortest_path(a, backend="cuda", dtype=np.int32),
                                  np.where(np.isinf(want), apsp.INF, want))


def test_cuda_negative_weights_and_cycles():
    a = no_negative_cycle(300, -9, 40, 0.05, seed=4)
    np.testing.assert_array_equal(apsp.shortest_path(a, backend="cuda"), csgraph.johnson(a))
    a[5, 6], a[6, 5] = -3, 1
    with pytest.raises(csgraph.NegativeCycleError):
        apsp.shortest_path(a, backend="cuda")


@pytest.mark.parametrize("algorithm", ["naive", "coalesced", "blocked-32", "blocked-64", "harish", "fw"])
def test_gpu_kernels_by_name(algorithm):
    a = random_dense(130, 0.05, 1, 30, seed=7)
    np.testing.assert_array_equal(apsp.shortest_path(a, algorithm=algorithm), csgraph.shortest_path(a))


def test_int16_precision_and_fw_method_pick_the_gpu():
    a = random_dense(2000, 0.004, 1, 9, seed=2)
    want = csgraph.shortest_path(sp.csr_matrix(a), method="D")
    np.testing.assert_array_equal(apsp.shortest_path(a, precision="int16", backend="cuda"), want)
    np.testing.assert_array_equal(apsp.floyd_warshall(a), want)


def test_indices_and_targets_on_the_gpu_are_the_full_solves_entries():
    # The GPU computes every row; the chosen rows and columns are cut as they arrive.
    a = random_dense(300, 0.02, 1, 9, seed=1)
    want = csgraph.shortest_path(sp.csr_matrix(a), method="D")
    rows, cols = [299, 0, 0, 17], [5, 299, 5]
    for dtype in (np.float64, np.float32, np.int32):
        got = apsp.shortest_path(a, backend="cuda", indices=rows, targets=cols, dtype=dtype)
        expected = want[np.ix_(rows, cols)]
        if dtype == np.int32:
            expected = np.where(np.isinf(expected), apsp.INF, expected)
        np.testing.assert_array_equal(got, expected.astype(dtype))
    kept = apsp.sparse_distances(a, backend="cuda", limit=6.0)
    np.testing.assert_array_equal(kept.toarray(), np.where(want <= 6.0, want, 0))
    assert kept.nnz == np.count_nonzero(want <= 6.0)


def test_bad_device_is_an_error():
    with pytest.raises((RuntimeError, ValueError)):
        apsp.shortest_path(random_dense(10, 0.3, 1, 9, seed=1), backend="cuda", device=99)


def test_cuda_real_weights_on_a_sparse_graph_go_to_the_sparse_solver():
    # A sparse real-weighted graph (m = 8n, some negative weights, no negative
    # cycle): 'D', 'J' and 'auto' on the GPU leave the choice to the library's
    # cost model, which picks the sparse solver (sssp or its v2 sssp-nearfar);
    # 'FW' runs fw.
    n = 2000
    rng = np.random.default_rng(5)
    rows, cols = rng.integers(0, n, 8 * n), rng.integers(0, n, 8 * n)
    w = rng.uniform(0.1, 20.0, 8 * n)
    w[(rows < cols) & (rng.random(8 * n) < 0.2)] *= -0.05  # negative forward edges: no negative cycle
    w[rows > cols] += 2 * n  # a backward edge outweighs any forward path
    keep = rows != cols
    g = sp.csr_matrix((w[keep], (rows[keep], cols[keep])), shape=(n, n))
    g.sum_duplicates()
    want = csgraph.johnson(g)
    assert (want < 0).any()
    for method in ("D", "J", "auto"):
        d = apsp.shortest_path(g, method=method, backend="cuda")
        info = apsp.last_solve_info()
        assert info["algorithm"] in ("sssp", "sssp-nearfar"), (method, info)  # the model's pick of the ladder
        assert info["note"].startswith("auto picked " + info["algorithm"] + ": "), (method, info)
        np.testing.assert_allclose(d, want, rtol=1e-12, atol=1e-9)
        np.testing.assert_array_equal(np.isinf(d), np.isinf(want))
    d32 = apsp.shortest_path(g, method="D", backend="cuda", dtype=np.float32)
    assert apsp.last_solve_info()["algorithm"] in ("sssp", "sssp-nearfar")
    np.testing.assert_allclose(d32, want.astype(np.float32), rtol=1e-5, atol=1e-4)
    apsp.shortest_path(g, method="FW", backend="cuda")
    assert apsp.last_solve_info()["algorithm"] == "fw"


@pytest.mark.parametrize("n", [65, 1537])
def test_cuda_real_weights_equal_scipy_within_rounding(n):
    # Real weights (0.1 .. 20, negative on some forward edges): the GPU's
    # float64 fw, and float32 output, against scipy's Johnson.
    rng = np.random.default_rng(n)
    a = np.where(rng.random((n, n)) < min(1.0, 8 / n), rng.uniform(0.1, 20.0, (n, n)), 0.0)
    upper = np.triu(rng.random((n, n)) < 0.3, 1) & (a != 0)
    a[upper] = -a[upper] / 10
    lower = np.tril_indices(n, -1)
    a[lower] = np.where(a[lower] != 0, a[lower] + 2 * n, 0)
    np.fill_diagonal(a, 0)
    a[:, n - 1] = 0
    g = sp.csr_matrix(a)
    want = csgraph.johnson(g)
    d, p = apsp.shortest_path(g, backend="cuda", return_predecessors=True)
    info = apsp.last_solve_info()
    assert info["backend"] == "cuda" and info["weights"] == "float64"
    np.testing.assert_allclose(d, want, rtol=1e-12, atol=1e-9)
    np.testing.assert_array_equal(np.isinf(d), np.isinf(want))
    assert (want < 0).any() and np.isinf(want).any()
    w = edge_weights(g, True)
    for i in range(0, n, max(1, n // 40)):  # a spread of predecessor rows
        for j in np.nonzero(np.isfinite(d[i]))[0]:
            total, v, steps = 0.0, int(j), 0
            while v != i:
                u = int(p[i, v])
                assert u >= 0 and steps <= n and np.isfinite(w[u, v]), (i, j, v)
                total, v, steps = total + w[u, v], u, steps + 1
            assert total == pytest.approx(d[i, j], rel=1e-9, abs=1e-9)
    np.testing.assert_allclose(apsp.shortest_path(g, backend="cuda", dtype=np.float32), want.astype(np.float32),
                               rtol=1e-5, atol=1e-4)
    a[1, 2], a[2, 1] = 0.5, -0.75
    with pytest.raises(csgraph.NegativeCycleError):
        apsp.shortest_path(a, backend="cuda")


@pytest.mark.parametrize("form", ["dense", "csr"])
def test_cuda_solves_integer_weights_beyond_int32_distances_in_float64(form):
    # Issue 20: the CPU's answer on the GPU too (a path of 1100 edges of 1e6,
    # 1.1e9 end to end, is float64 under auto; int64 weights beyond int32 too).
    n = 1101
    a = np.zeros((n, n))
    a[np.arange(n - 1), np.arange(1, n)] = 1e6
    a[0, 5] = 2**33
    graph = a if form == "dense" else sp.csr_array(a)
    d = apsp.shortest_path(graph, backend="cuda")
    assert apsp.last_solve_info()["backend"] == "cuda" and apsp.last_solve_info()["weights"] == "float64"
    assert d[0, -1] == 1.1e9
    np.testing.assert_array_equal(d, apsp.shortest_path(graph, backend="cpu"))
