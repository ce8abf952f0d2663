"""apsp's keyword-only extras, the binding's behaviour (GIL, Ctrl-C, buffers), read_graph, verify, typing, docs."""

from __future__ import annotations

import functools
import itertools
import os
import queue
import re
import signal
import struct
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.csgraph as csgraph
from conftest import NO_PRED, check_predecessors, edge_weights, random_dense

import apsp

ROOT = Path(__file__).resolve().parents[2]


def test_dtype_float32_and_int32_with_inf():
    a = random_dense(50, 0.08, 1, 30, seed=12)
    want = csgraph.shortest_path(a)
    d32 = apsp.shortest_path(a, dtype=np.float32)
    assert d32.dtype == np.float32
    np.testing.assert_array_equal(d32, want.astype(np.float32))
    di = apsp.shortest_path(a, dtype="int32")
    assert di.dtype == np.int32
    np.testing.assert_array_equal(di, np.where(np.isinf(want), apsp.INF, want).astype(np.int32))
    assert (di == apsp.INF).any() and (di < apsp.INF).any()
    with pytest.raises(ValueError, match="dtype"):
        apsp.shortest_path(a, dtype=np.int64)


def test_dtype_int32_with_limit_marks_far_pairs_inf():
    a = random_dense(50, 0.08, 1, 30, seed=12)
    got = apsp.dijkstra(a, limit=20, dtype=np.int32)
    want = csgraph.dijkstra(a, limit=20)
    np.testing.assert_array_equal(got, np.where(np.isinf(want), apsp.INF, want))


# The result sink: every solve puts its rows into the arrays returned, in
# the dtype asked for. Rows that a per-source CPU algorithm computed in the
# result's own memory (int32 distances of integer weights, float64 of real
# ones) are left as they are unless a limit cuts them; their predecessors
# still get -9999.


@pytest.mark.parametrize("fmt", ["dense", "csr"])
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int32])
@pytest.mark.parametrize("method", ["auto", "FW", "D", "BF", "J"])
def test_every_method_and_dtype_equal_scipy_with_unreachable_pairs(fmt, dtype, method):
    a = random_dense(70, 0.06, 1, 30, seed=41)
    g = a if fmt == "dense" else sp.csr_matrix(a)
    want = csgraph.shortest_path(g, method=method)
    assert np.isinf(want).any()
    d, p = apsp.shortest_path(g, method=method, dtype=dtype, return_predecessors=True)
    assert d.dtype == dtype
    np.testing.assert_array_equal(d, (np.where(np.isinf(want), apsp.INF, want) if dtype == np.int32 else want).astype(dtype))
    check_predecessors(want, p, edge_weights(a, True))
    if fmt == "dense" and method != "D":  # 'D' builds the edge list to look for negative weights
        assert "scan dense" in apsp.last_solve_info()["stages"]  # the library got the array as a view


@pytest.mark.parametrize("fmt", ["dense", "csr"])
@pytest.mark.parametrize("weights, dtype", [("int", np.int32), ("int", np.float64), ("real", np.float64)])
def test_limit_cuts_rows_computed_in_the_results_memory(fmt, weights, dtype):
    a = random_dense(60, 0.08, 1, 30, seed=43)
    if weights == "real":
        a = a * 1.25  # not integers: the float64 engine
    g = a if fmt == "dense" else sp.csr_matrix(a)
    for limit in (np.inf, 0, 20.5):
        want, want_p = csgraph.dijkstra(g, limit=limit, return_predecessors=True)
        d, p = apsp.dijkstra(g, limit=limit, dtype=dtype, return_predecessors=True)
        assert apsp.last_solve_info()["weights"] == ("float64" if weights == "real" else "int32")
        np.testing.assert_array_equal(d, np.where(np.isinf(want), apsp.INF, want) if dtype == np.int32 else want)
        np.testing.assert_array_equal(p == NO_PRED, want_p == NO_PRED, err_msg=f"limit={limit}")
        check_predecessors(want, p, edge_weights(a, True))
        np.testing.assert_array_equal(apsp.dijkstra(g, limit=limit, dtype=dtype), d)


@pytest.mark.parametrize("fmt", ["dense", "csr", "real"])
def test_the_private_cxx_baseline_times_the_plain_solve(fmt):
    from apsp import _apsp
    from apsp._csgraph import _graph, _request

    a = random_dense(90, 0.06, 1, 30, seed=44)
    g = {"dense": a, "csr": sp.csr_matrix(a), "real": a * 1.25}[fmt]
    graph = _graph(g, True, False)
    for predecessors in (False, True):
        request = _request("auto", "auto", 0, "auto", 0, predecessors, None, None, None)
        seconds = _apsp._cxx_solve_seconds(graph, request)
        assert isinstance(seconds, float) and seconds > 0
    request.algorithm = "nope"
    with pytest.raises(ValueError, match="^algorithm: "):
        _apsp._cxx_solve_seconds(graph, request)


def test_results_are_writable_c_ordered_arrays_that_own_their_memory_elsewhere():
    a = random_dense(64, 0.1, 1, 9, seed=1)
    d, p = apsp.shortest_path(a, return_predecessors=True, dtype=np.int32)
    for x in (d, p):
        assert x.flags.c_contiguous and x.flags.writeable
        assert not x.flags.owndata  # the engine's buffer, held by a capsule
        x[0, 0] = x[0, 0]
    del d
    assert p.sum() != 0  # still valid after the other array is gone


@pytest.mark.parametrize("algorithm", ["fw-seq", "fw-blocked", "dijkstra", "bellman-ford", "johnson"])
def test_algorithm_by_name(algorithm):
    a = random_dense(70, 0.1, 1, 20, seed=30)
    d, p = apsp.shortest_path(a, algorithm=algorithm, return_predecessors=True)
    np.testing.assert_array_equal(d, csgraph.shortest_path(a))
    check_predecessors(d, p, edge_weights(a, True))


def test_algorithms_lists_both_backends():
    names = apsp.algorithms()
    assert {"fw-blocked", "dijkstra", "johnson", "bellman-ford", "fw-seq"} <= set(names)
    assert "fw" not in apsp.algorithms("cpu")
    if apsp._apsp.cuda_compiled_in():
        assert {"fw", "naive", "blocked-64"} <= set(names) and "fw" in apsp.algorithms("cuda")


def test_bad_options_are_value_errors_naming_the_keyword():
    a = random_dense(10, 0.3, 1, 9, seed=1)
    for kwargs, keyword in [
        ({"backend": "tpu"}, "backend"),
        ({"algorithm": "nope"}, "algorithm"),
        ({"precision": "int8"}, "precision"),
        ({"threads": -1}, "threads"),
        ({"precision": "int16", "backend": "cpu"}, "precision"),
    ]:
        with pytest.raises(ValueError, match=f"^{keyword}: "):
            apsp.shortest_path(a, **kwargs)


def test_an_algorithm_of_every_row_serves_indices_by_slicing():
    a = random_dense(40, 0.1, 1, 9, seed=1)
    want = csgraph.shortest_path(a)[[7, 0, 7]]
    np.testing.assert_array_equal(apsp.shortest_path(a, algorithm="fw-blocked", indices=[7, 0, 7]), want)


def test_threads_do_not_change_the_answer():
    a = random_dense(100, 0.05, 1, 9, seed=3)
    want = csgraph.shortest_path(a)
    for threads in (1, 2, 3):
        np.testing.assert_array_equal(apsp.shortest_path(a, threads=threads), want)


def test_progress_callable_sees_fractions_in_order_ending_at_one():
    a = random_dense(300, 0.05, 1, 9, seed=3)
    seen: list[float] = []
    apsp.shortest_path(a, method="D", progress=seen.append)
    assert seen and seen[-1] == 1.0
    assert all(0 < x <= 1 for x in seen) and seen == sorted(seen)


def test_progress_true_draws_a_bar_on_stderr(capsys):
    a = random_dense(100, 0.05, 1, 9, seed=3)
    np.testing.assert_array_equal(apsp.shortest_path(a, progress=True), csgraph.shortest_path(a))
    assert "apsp" in capsys.readouterr().err


def test_progress_callback_raising_stops_the_solve_with_that_exception():
    a = random_dense(600, 0.02, 1, 9, seed=3)
    calls = []

    def stop(fraction: float) -> None:
        calls.append(fraction)
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        apsp.shortest_path(a, algorithm="fw-seq", progress=stop)
    assert len(calls) == 1 and calls[0] < 1.0

    class Stop(Exception):
        pass

    def stop_other(fraction: float) -> None:
        raise Stop("from the callback")

    with pytest.raises(Stop, match="from the callback"):
        apsp.shortest_path(a, algorithm="dijkstra", progress=stop_other)


def long_graph() -> np.ndarray:
    """A graph whose fw-seq solve takes many seconds on this machine."""
    return random_dense(2400, 0.5, 1, 9, seed=1)


main_thread_only = pytest.mark.skipif(
    threading.current_thread() is not threading.main_thread(), reason="signals need the main thread"
)


@pytest.fixture
def python_sigint_handler():
    """Python's own SIGINT handler for the test, as under a terminal. A process
    that a non-interactive shell starts in the background (`nohup cmd &`, some
    CI runners) inherits SIGINT ignored, and Python then leaves it ignored, so
    a Ctrl-C would never reach the solve."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


@main_thread_only
def test_ctrl_c_during_a_callback_stops_the_solve_there(python_sigint_handler: None):
    """Ctrl-C (SIGINT from another thread, as a terminal sends it) that comes
    while the progress callback runs stops the solve at that report.

    Deterministic under any load (issue 20: the old test slept 0.5 s and
    assumed the solve was still running then): the first report waits until
    the signal is sent, so it comes mid-solve by construction."""
    a = long_graph()
    reports: list[float] = []
    reached = threading.Event()
    sent = threading.Event()
    abandoned = False

    def interrupt() -> None:
        reached.wait()
        if not abandoned:
            os.kill(os.getpid(), signal.SIGINT)
        sent.set()

    def first_report_waits_for_ctrl_c(fraction: float) -> None:
        reports.append(fraction)
        reached.set()
        sent.wait()

    sender = threading.Thread(target=interrupt)
    sender.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            apsp.shortest_path(a, algorithm="fw-seq", progress=first_report_waits_for_ctrl_c)
    finally:
        abandoned = not reached.is_set()
        reached.set()
        sender.join()
    assert len(reports) == 1 and reports[0] < 1.0, reports


@main_thread_only
def test_ctrl_c_while_the_engine_computes_stops_it_at_its_next_check(python_sigint_handler: None):
    """Ctrl-C that comes while no Python runs (the engine computes with the
    GIL released) is seen by the module's own check at the solver's next
    report: the solve stops there and the callback is not called again.

    The callback runs no Python code (which would see the signal first): it
    is built from C functions, next() over map()s of SimpleQueue calls, and
    at each report tells the sender (started.put) and waits for it
    (resume.get). The sender signals itself (pthread_kill: the handler has
    run when it returns) and only then lets the first report return. No step
    waits on wall time."""
    a = long_graph()
    started: queue.SimpleQueue[object] = queue.SimpleQueue()
    resume: queue.SimpleQueue[int] = queue.SimpleQueue()
    reports = map(resume.get, itertools.repeat(True), map(started.put, itertools.repeat(True)))
    callback = functools.partial(next, reports)  # callback(fraction) = next(reports, fraction)
    resumes = 1000

    def interrupt() -> None:
        if started.get() is True:  # None: the test ended without a report
            signal.pthread_kill(threading.get_ident(), signal.SIGINT)
        for item in range(resumes):
            resume.put(item)

    sender = threading.Thread(target=interrupt)
    sender.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            apsp.shortest_path(a, algorithm="fw-seq", progress=callback)
    finally:
        started.put(None)
        sender.join()
    assert started.qsize() == 1 and resume.qsize() == resumes - 1, "the solve went on past the report after Ctrl-C"


def test_the_gil_is_released_while_solving():
    """Another Python thread runs while the engine computes. The first
    progress report wakes a waiting thread (go.set()), which then needs the
    GIL to record that it ran (ran.set()); each report notes whether it has.
    With the switch interval at an hour, a thread that holds the GIL keeps it
    until it blocks: a solve that held the GIL between reports would keep
    the woken thread waiting until the solve returned, and the last report
    (at fraction 1.0) would see ran unset. No step reads the clock."""
    a = long_graph()[:1500, :1500]
    go = threading.Event()
    ran = threading.Event()
    seen: list[bool] = []

    def report(fraction: float) -> None:
        go.set()
        seen.append(ran.is_set())

    def wait_then_run() -> None:
        go.wait()
        ran.set()

    waiter = threading.Thread(target=wait_then_run)
    interval = sys.getswitchinterval()
    sys.setswitchinterval(3600)
    try:
        waiter.start()
        apsp.shortest_path(a, algorithm="fw-seq", progress=report)
    finally:
        go.set()
        sys.setswitchinterval(interval)
        waiter.join()
    assert len(seen) >= 2, "the solve reported once: too short to tell"
    assert not seen[0], "the waiting thread ran before it was woken"
    assert seen[-1], f"the waiting thread never ran while the engine computed: {seen}"


def write_graph_files(tmp: Path) -> dict[str, Path]:
    """The same 4-vertex graph (0->1 w 3, 1->2 w 0, 2->0 w -1, vertex 3 isolated) in every format the CLI reads."""
    edges = [(0, 1, 3), (1, 2, 0), (2, 0, -1)]
    files = {}
    files["bin"] = tmp / "g.bin"
    files["bin"].write_bytes(struct.pack("<2i", 4, 3) + b"".join(struct.pack("<3i", *e) for e in edges))
    files["gr"] = tmp / "g.gr"
    files["gr"].write_text("p sp 4 3\n" + "".join(f"a {u + 1} {v + 1} {w}\n" for u, v, w in edges))
    files["mtx"] = tmp / "g.mtx"
    files["mtx"].write_text(
        "%%MatrixMarket matrix coordinate integer general\n4 4 3\n" + "".join(f"{u + 1} {v + 1} {w}\n" for u, v, w in edges)
    )
    files["txt"] = tmp / "g.txt"
    files["txt"].write_text("# vertices: 4\n" + "".join(f"{u} {v} {w}\n" for u, v, w in edges))
    dense = np.full((4, 4), np.inf)
    for u, v, w in edges:
        dense[u, v] = w
    files["npy"] = tmp / "g.npy"
    np.save(files["npy"], dense)
    text = np.full((4, 4), 99, dtype=np.int64)  # 99 = no edge (the default -1 is a weight here)
    np.fill_diagonal(text, 0)
    for u, v, w in edges:
        text[u, v] = w
    files["mat"] = tmp / "g.mat"
    files["mat"].write_text("4\n" + "".join(" ".join(map(str, row)) + "\n" for row in text))
    return files


def test_read_graph_returns_a_csr_matrix_for_every_cli_format(tmp_path):
    files = write_graph_files(tmp_path)
    for fmt, path in files.items():
        g = apsp.read_graph(str(path), no_edge=99 if fmt == "mat" else None)
        assert isinstance(g, sp.csr_matrix), fmt
        assert g.shape == (4, 4) and g.nnz == 3, fmt  # the 0-weight edge is an explicit zero
        assert g[1, 2] == 0 and g[0, 1] == 3 and g[2, 0] == -1, fmt
        np.testing.assert_array_equal(apsp.shortest_path(g), csgraph.johnson(g), err_msg=fmt)
    g = apsp.read_graph(str(files["txt"]), format="edges", directed=False)
    assert g.nnz == 6
    with pytest.raises(ValueError):
        apsp.read_graph(str(tmp_path / "missing.bin"))


def test_verify_accepts_a_result_and_names_the_first_violation():
    a = random_dense(40, 0.1, 1, 9, seed=5)
    d, p = apsp.shortest_path(a, return_predecessors=True)
    apsp.verify(a, d)
    apsp.verify(sp.csr_matrix(a), d, p)
    apsp.verify(a, apsp.shortest_path(a, dtype=np.int32))
    finite = np.argwhere(np.isfinite(d) & (d > 0))[0]
    bad = d.copy()
    bad[tuple(finite)] += 1
    with pytest.raises(apsp.VerifyError, match=rf"{finite[0]}.*{finite[1]}"):
        apsp.verify(a, bad)
    with pytest.raises(apsp.VerifyError):
        apsp.verify(a, d[:5, :5])
    assert issubclass(apsp.VerifyError, ValueError)


def test_mypy_strict_accepts_the_typed_usage():
    pytest.importorskip("mypy")
    usage = Path(__file__).with_name("typed_usage.py")
    run = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", str(usage)],
        capture_output=True,
        text=True,
        cwd=usage.parent,
    )
    assert run.returncode == 0, run.stdout + run.stderr


def test_the_docs_worked_example_runs():
    text = (ROOT / "docs" / "python.md").read_text()
    section = text.split("## Worked example", 1)[1]
    code = re.search(r"```python\n(.*?)```", section, re.S)
    assert code, "no python block under '## Worked example'"
    exec(compile(code.group(1), "docs/python.md", "exec"), {"__name__": "docs_example"})


@pytest.mark.parametrize("threads", [-1, 1025, 10**6])
def test_a_thread_count_out_of_range_is_a_value_error(threads: int) -> None:
    """Issue 20, defect 6: threads=10**6 killed Python as OpenMP tried to start the team."""
    a = random_dense(20, 0.3, 1, 9, seed=2)
    with pytest.raises(ValueError, match=r"threads: .*at most 1024"):
        apsp.shortest_path(a, threads=threads)
    with pytest.raises(ValueError, match=r"threads: .*at most 1024"):
        apsp.shortest_path(sp.csr_matrix(a), method="D", threads=threads)
