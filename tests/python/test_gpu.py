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


def test_indices_on_the_gpu_is_a_value_error_naming_indices():
    with pytest.raises(ValueError, match="^indices: "):
        apsp.shortest_path(random_dense(10, 0.3, 1, 9, seed=1), backend="cuda", indices=[0])


def test_bad_device_is_an_error():
    with pytest.raises((RuntimeError, ValueError)):
        apsp.shortest_path(random_dense(10, 0.3, 1, 9, seed=1), backend="cuda", device=99)
