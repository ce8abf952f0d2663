"""The Python layer at its edges (issue 20): the auto weight type, verify's
reading of its arrays, masked arrays, the result's memory check, and the
scipy 1.17 behaviours a user trial found different. scipy is the reference."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import warnings
from typing import Any

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.sparse import csgraph

import apsp


def path_graph(n: int, weight: float, dtype: Any = np.float64) -> np.ndarray:
    """A dense path 0 -> 1 -> ... -> n-1, every edge `weight`."""
    a = np.zeros((n, n), dtype=dtype)
    a[np.arange(n - 1), np.arange(1, n)] = weight
    return a


def inputs(a: np.ndarray) -> list[Any]:
    """The same graph as a dense array and as CSR and COO matrices."""
    return [a, sp.csr_array(a), sp.coo_array(a)]


# Item 1: auto picks a result type that holds the answer.


@pytest.mark.parametrize("method", ["auto", "FW", "D", "BF", "J"])
@pytest.mark.parametrize("form", [0, 1, 2])
def test_integer_weights_whose_distances_int32_cannot_hold_are_solved_in_float64(method, form):
    a = path_graph(1101, 1e6)  # the path's length 1.1e9 is above int32's 2**30 - 1
    graph = inputs(a)[form]
    expected = csgraph.shortest_path(sp.csr_array(a), method="D")
    got = apsp.shortest_path(graph, method=method)
    assert got[0, -1] == 1.1e9
    np.testing.assert_array_equal(got, expected)
    assert apsp.last_solve_info()["weights"] == "float64"


def test_the_bound_decides_not_the_weights_alone():
    small = path_graph(1000, 1e6)  # 999 * 1e6 < 2**30 - 1: int32
    apsp.shortest_path(small)
    assert apsp.last_solve_info()["weights"] == "int32"
    large = path_graph(1100, 1e6)  # 1099 * 1e6 >= 2**30 - 1: float64, even with isolated vertices only
    apsp.shortest_path(large)
    assert apsp.last_solve_info()["weights"] == "float64"


@pytest.mark.parametrize("dtype", [np.int64, np.uint64, np.uint32])
@pytest.mark.parametrize("form", [0, 1, 2])
def test_integer_weights_beyond_int32_solve_as_scipy(dtype, form):
    # As scipy: converted to float64, exact while the distances stay below 2**53.
    a = np.zeros((4, 4), dtype=dtype)
    a[0, 1], a[1, 2], a[0, 3] = 3 * 2**30, 5, 2**31 + 7
    got = apsp.shortest_path(inputs(a)[form])
    np.testing.assert_array_equal(got, csgraph.shortest_path(sp.csr_array(a.astype(np.float64))))
    assert got[0, 2] == 3 * 2**30 + 5
    assert apsp.last_solve_info()["weights"] == "float64"


def test_int32_results_refuse_a_graph_that_needs_float64_before_solving():
    with pytest.raises(ValueError, match="int32"):
        apsp.shortest_path(path_graph(1101, 1e6), dtype=np.int32)


def test_read_graph_returns_float64_for_a_graph_whose_distances_int32_cannot_hold(tmp_path):
    path = tmp_path / "path.txt"
    path.write_text("".join(f"{i} {i + 1} 1000000\n" for i in range(1100)))
    g = apsp.read_graph(str(path))
    assert g.dtype == np.float64
    assert apsp.shortest_path(g, indices=0)[-1] == 1.1e9
    small = tmp_path / "small.txt"
    small.write_text("0 1 5\n1 2 7\n")
    assert apsp.read_graph(str(small)).dtype == np.int32


# Item 7: verify reads its arrays without truncating them.


def test_verify_rejects_predecessors_that_are_not_vertices():
    a = path_graph(3, 1.0)
    d, p = apsp.shortest_path(a, return_predecessors=True)
    apsp.verify(a, d, p)
    for bad in (1.7, 2**32 + 1, -5, 3):
        q = p.astype(np.float64 if isinstance(bad, float) else np.int64)
        q[0, 2] = bad
        with pytest.raises(apsp.VerifyError, match=r"predecessors\[0\]\[2\]"):
            apsp.verify(a, d, q)


def test_verify_reads_int64_distances_without_narrowing():
    a = path_graph(3, 1.0, dtype=np.int64)
    d = apsp.shortest_path(a, dtype=np.int32).astype(np.int64)
    apsp.verify(a, d)
    d[0, 1] = 2**32 + 1  # narrowed to int32 it would read 1, the right distance
    with pytest.raises(apsp.VerifyError, match=r"d\[0\]\[1\]"):
        apsp.verify(a, d)


# Item 8: masked arrays.


@pytest.mark.parametrize("method", ["D", "BF", "J", "FW"])
def test_masked_arrays_equal_scipy(method):
    rng = np.random.default_rng(8)
    values = rng.integers(0, 4, size=(12, 12)).astype(np.float64)  # zeros among the weights
    mask = rng.random((12, 12)) < 0.6
    m = np.ma.masked_array(values, mask=mask)
    np.testing.assert_array_equal(apsp.shortest_path(m, method=method), csgraph.shortest_path(m, method=method))


def test_an_unmasked_zero_is_a_zero_weight_edge():
    # scipy's 'auto' runs D or FW by the graph's density, so its zeros are
    # edges or not; apsp's auto always reads them as D does.
    m = np.ma.masked_array([[0.0, 0.0, 5.0], [0, 0, 0], [0, 0, 0]], mask=[[1, 0, 0], [1, 1, 1], [1, 1, 1]])
    assert apsp.shortest_path(m, method="D")[0, 1] == 0.0
    assert apsp.shortest_path(m)[0, 1] == 0.0


# Item 9: the result's memory check.


def test_a_result_too_large_for_memory_is_a_memory_error_naming_its_size():
    code = textwrap.dedent(
        """
        import resource, numpy as np, scipy.sparse as sp, apsp
        resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))
        n = 40000  # a 40000 x 40000 float64 result: 12.8 GB
        g = sp.csr_array(([1.0], ([0], [1])), shape=(n, n))
        try:
            apsp.shortest_path(g, method="D", backend="cpu")  # a CUDA context alone reserves more address space
        except MemoryError as e:
            print("MemoryError:", e)
        """
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "MemoryError:" in out.stdout
    assert "40000 x 40000" in out.stdout and "GiB" in out.stdout
    assert "bad_alloc" not in out.stdout


# Item 15: scipy 1.17's behaviours.


@pytest.mark.parametrize("dtype", [np.longdouble, np.complex128])
def test_sparse_data_of_other_dtypes_converts_as_scipy(dtype):
    a = np.array([[0, 1.5, 0], [0, 0, 2.25], [0, 0, 0]]).astype(dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = csgraph.shortest_path(sp.csr_matrix(a))
        got = apsp.shortest_path(sp.csr_matrix(a))
    np.testing.assert_array_equal(got, expected)


def test_a_nan_limit_keeps_only_the_sources_as_scipy():
    a = path_graph(4, 1.0)
    for kwargs in ({}, {"indices": [1, 3]}, {"min_only": True, "indices": [0, 2]}):
        expected = csgraph.dijkstra(a, limit=np.nan, **kwargs)
        np.testing.assert_array_equal(apsp.dijkstra(a, limit=np.nan, **kwargs), expected)
    d, p = apsp.dijkstra(a, limit=np.nan, return_predecessors=True)
    assert np.all(p == apsp.NO_PREDECESSOR)


@pytest.mark.parametrize("indices", [1.7, [0.2, 2.9], [[0, 1]], [[0], [2]], np.array([[1, 2], [3, 0]])])
def test_float_and_shaped_indices_as_scipy(indices):
    a = path_graph(4, 2.0)
    expected = csgraph.shortest_path(a, method="D", indices=indices)
    got = apsp.shortest_path(a, method="D", indices=indices)
    assert got.shape == expected.shape
    np.testing.assert_array_equal(got, expected)


def test_dense_minus_inf_is_no_edge_as_scipy():
    a = np.zeros((3, 3))
    a[0, 1], a[1, 2] = -np.inf, 1.0
    np.testing.assert_array_equal(apsp.shortest_path(a), csgraph.shortest_path(a))


def test_empty_indices_still_report_a_negative_cycle():
    a = np.array([[0, -1.0], [-1.0, 0]])
    with pytest.raises(csgraph.NegativeCycleError):
        csgraph.shortest_path(a, indices=[])
    for method in ("auto", "BF", "J"):
        with pytest.raises(csgraph.NegativeCycleError):
            apsp.shortest_path(a, method=method, indices=[])
    assert apsp.shortest_path(path_graph(3, 1.0), indices=[]).shape == (0, 3)


def test_dense_weights_within_1e_8_of_zero_are_no_edge_as_scipy():
    a = np.array([[0, 1e-9, -5e-9], [0, 0, 2e-8], [1e-8, 0, 0]])
    np.testing.assert_array_equal(apsp.shortest_path(a), csgraph.shortest_path(a))
    s = sp.csr_array(a)  # sparse: every stored entry is an edge
    np.testing.assert_allclose(apsp.shortest_path(s, method="BF"), csgraph.shortest_path(s, method="BF"))


@pytest.mark.parametrize("method", ["D", "BF", "J"])
def test_stored_inf_and_nan_with_unweighted_are_edges_as_scipy(method):
    s = sp.csr_matrix((np.array([np.inf, np.nan, 2.0]), np.array([1, 2, 0]), np.array([0, 1, 2, 3])), shape=(3, 3))
    expected = csgraph.shortest_path(s, method=method, unweighted=True)
    np.testing.assert_array_equal(apsp.shortest_path(s, method=method, unweighted=True), expected)
    np.testing.assert_array_equal(apsp.shortest_path(s, method=method), csgraph.shortest_path(s, method=method))


@pytest.mark.parametrize(
    "kwargs, error",
    [
        ({"threads": "4"}, TypeError),
        ({"device": 1.5}, TypeError),
        ({"backend": 3}, TypeError),
        ({"backend": "tpu"}, ValueError),
        ({"precision": None}, TypeError),
        ({"dtype": object()}, TypeError),
        ({"method": 5}, TypeError),
        ({"algorithm": 7}, TypeError),
    ],
)
def test_wrong_argument_types_are_clean_errors(kwargs, error):
    with pytest.raises(error) as caught:
        apsp.shortest_path(path_graph(3, 1.0), **kwargs)
    message = str(caught.value)
    assert "incompatible function arguments" not in message and "SolveRequest" not in message
    assert "ndarray[" not in message


@pytest.mark.parametrize("method", ["auto", "FW", "D"])
def test_backend_gpu_is_cuda(method):
    a = path_graph(3, 1.0)
    if apsp.cuda_device_count() == 0:
        with pytest.raises(Exception) as cuda:
            apsp.shortest_path(a, method=method, backend="cuda")
        with pytest.raises(type(cuda.value)) as gpu:
            apsp.shortest_path(a, method=method, backend="gpu")
        assert str(gpu.value) == str(cuda.value)
    else:
        got = apsp.shortest_path(a, method=method, backend="gpu")
        info = apsp.last_solve_info()
        np.testing.assert_array_equal(got, apsp.shortest_path(a, method=method, backend="cuda"))
        assert info == {**apsp.last_solve_info(), "stages": info["stages"], "solve_seconds": info["solve_seconds"]}


def test_last_solve_info_names_the_weight_type_and_threads():
    apsp.shortest_path(np.array([[0, 0.5], [0, 0]]), threads=2)
    info = apsp.last_solve_info()
    assert info["weights"] == "float64" and info["threads"] == 2
    for method in ("D", "BF", "J", "FW"):
        apsp.shortest_path(sp.csr_array(np.array([[0, 0.5], [0, 0]])), method=method)
        assert apsp.last_solve_info()["weights"] == "float64", method
    apsp.shortest_path(np.array([[0, 1], [0, 0]]))
    assert apsp.last_solve_info()["weights"] == "int32" and apsp.last_solve_info()["threads"] >= 1
