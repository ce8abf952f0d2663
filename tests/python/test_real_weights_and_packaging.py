"""Real weights identical to scipy (issue 23 item 4), the registry's traits as the binding exposes them
(issue 20), and the package without a GPU (issue 23 item 5)."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.csgraph as csgraph
from hypothesis import given, settings
from hypothesis import strategies as st

import apsp


@st.composite
def real_graphs(draw):
    """A sparse graph with non-negative real weights: up to 40 vertices (some unreachable), fractions that round
    differently along different paths (0.1 + 0.2 against 0.3), zeros, tiny and huge weights, duplicates and
    self-loops (scipy keeps the sum of duplicates; compared on the summed matrix)."""
    n = draw(st.integers(0, 40))
    weight = st.one_of(
        st.sampled_from([0.1, 0.2, 0.3, 0.7, 1.0 / 3.0, 2.0 / 3.0, 1e-300, 5e-324, 1e300]),
        st.floats(min_value=1e-6, max_value=1e6, allow_nan=False, allow_infinity=False),
    )
    cells = draw(st.lists(st.tuples(st.integers(0, max(n - 1, 0)), st.integers(0, max(n - 1, 0)), weight),
                          max_size=4 * n if n else 0))
    rows = np.array([c[0] for c in cells], dtype=np.int32)
    cols = np.array([c[1] for c in cells], dtype=np.int32)
    data = np.array([c[2] for c in cells], dtype=np.float64)
    csr = sp.csr_matrix((data, (rows, cols)), shape=(n, n))
    csr.sum_duplicates()
    return csr


@settings(max_examples=200, deadline=None)
@given(real_graphs(), st.sampled_from(["D", "J"]), st.booleans(), st.sampled_from([0, 1, 2]))
def test_real_weights_are_identical_to_scipy(csr, method, directed, threads):
    # Dijkstra's labels are sums d[u] + w in float64, as scipy's: identical, not only close.
    want = csgraph.shortest_path(csr, method="D", directed=directed)
    got = apsp.shortest_path(csr, method=method, directed=directed, threads=threads)
    if method == "D":
        np.testing.assert_array_equal(got, want)
    else:  # Johnson sums reweighted edges: within rounding of scipy's
        np.testing.assert_allclose(got, want, rtol=1e-9, atol=0)
    assert apsp.last_solve_info()["weights"] in ("float64", "int32")


def test_real_weights_identical_to_scipy_on_a_seeded_sparse_graph():
    # n = 1000, m = 8n, weights uniform in (0, 1]: both finite and unreachable entries (vertices 900.. have no in-edges).
    rng = np.random.default_rng(5)
    n, m = 1000, 8000
    rows = rng.integers(0, n, m)
    cols = rng.integers(0, 900, m)
    csr = sp.csr_matrix((1.0 - rng.random(m), (rows, cols)), shape=(n, n))
    want = csgraph.shortest_path(csr, method="D")
    for dtype in (np.float64, np.float32):
        got = apsp.shortest_path(csr, method="D", dtype=dtype)
        np.testing.assert_array_equal(got, want.astype(dtype))
    assert np.isfinite(want).any() and np.isinf(want).any()
    assert apsp.last_solve_info()["weights"] == "float64"


def test_registry_traits_describe_every_algorithm():
    traits = apsp.algorithm_traits()
    names = {(t["name"], t["backend"]) for t in traits}
    assert len(names) == len(traits)
    for t in traits:
        assert set(t) == {"name", "backend", "work", "role", "weights", "precisions", "predecessors", "block",
                          "distributable", "available"}
        assert t["backend"] in ("cpu", "cuda") and t["role"] in ("production", "teaching")
        assert t["weights"][0] == "int32" and set(t["weights"]) <= {"int32", "float32", "float64"}
        assert set(t["precisions"]) <= {"int16", "int32", "int64"} and t["precisions"]
        assert ("int64" in t["precisions"]) == (t["backend"] == "cpu")
    by_name = {t["name"]: t for t in apsp.algorithm_traits("cpu")}
    assert set(by_name) == set(apsp.algorithms("cpu")) | {t["name"] for t in traits
                                                          if t["backend"] == "cpu" and not t["available"]}
    assert by_name["johnson"]["precisions"] == ["int64"] and by_name["dijkstra"]["precisions"] == ["int32", "int64"]
    assert by_name["fw-blocked"]["weights"] == ["int32", "float32", "float64"] and by_name["fw-blocked"]["distributable"]
    gpu = {t["name"]: t for t in apsp.algorithm_traits("gpu")}
    assert gpu["fw"]["precisions"] == ["int16", "int32"] and gpu["naive"]["weights"] == ["int32"]
    assert gpu["fw"]["available"] == apsp._apsp.cuda_compiled_in()


def test_method_fw_runs_the_production_dense_solver_by_traits():
    a = np.array([[0, 1, 0], [0, 0, 2], [4, 0, 0]], dtype=np.float64)
    apsp.shortest_path(a, method="FW", backend="cpu")
    dense = [t["name"] for t in apsp.algorithm_traits("cpu") if t["work"] == "n^3" and t["role"] == "production"]
    assert apsp.last_solve_info()["algorithm"] == dense[0] == "fw-blocked"


def test_the_package_imports_without_a_gpu_and_says_what_backend_gpu_lacks():
    # A fresh interpreter that sees no device (CUDA_VISIBLE_DEVICES empty): the import works, the CPU solves, and
    # backend="gpu" raises a RuntimeError that says what is missing (no CUDA backend in this build, or no device).
    code = (
        "import numpy as np, apsp\n"
        "a = np.array([[0, 1.5], [0, 0]])\n"
        "assert apsp.shortest_path(a, backend='cpu')[0, 1] == 1.5\n"
        "assert apsp.cuda_device_count() == 0\n"
        "try:\n"
        "    apsp.shortest_path(a, backend='gpu')\n"
        "except RuntimeError as e:\n"
        "    print(e)\n"
        "else:\n"
        "    raise SystemExit('backend=gpu solved without a device')\n"
    )
    env = {**os.environ, "CUDA_VISIBLE_DEVICES": ""}
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    message = done.stdout.strip()
    if apsp._apsp.cuda_compiled_in():
        assert message.startswith("no CUDA device found"), message
    else:
        assert "no CUDA backend" in message and "nvcc" in message, message
