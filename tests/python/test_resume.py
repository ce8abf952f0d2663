"""apsp.solve_to_file with checkpoint= / resume= / checkpoint_every= (issue 24, the CLI's --checkpoint / --resume).

A solve runs in a subprocess that the engine's test hook kills (SIGKILL) at
a chosen point: APSP_TEST_KILL_AT=POINT:COUNT (sink/row_journal.hpp; no
timing), then this process resumes it; the files must be byte-identical to
an uninterrupted run's, the hidden partial files gone, and a resume of
another solve refused with apsp.ResumeError.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import apsp

sp = pytest.importorskip("scipy.sparse")


def _graph(n: int, seed: int, hi: int = 30) -> object:
    """A random sparse digraph with integer weights 1..hi, about 8 out-edges a vertex."""
    rng = np.random.default_rng(seed)
    m = 8 * n
    rows, cols = rng.integers(0, n, m), rng.integers(0, n, m)
    keep = rows != cols
    data = rng.integers(1, hi + 1, m).astype(np.float64)
    return sp.csr_array((data[keep], (rows[keep], cols[keep])), shape=(n, n))


def _killed(tmp_path: Path, graph_file: str, call: str, point: str) -> None:
    """Runs ``apsp.solve_to_file(g, CALL)`` in a subprocess the hook kills at ``point``."""
    code = (
        "import scipy.sparse as sp, apsp\n"
        f"g = sp.load_npz({graph_file!r})\n"
        f"apsp.solve_to_file(g, {call})\n"
    )
    env = dict(os.environ, APSP_TEST_KILL_AT=point)
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, timeout=300)
    assert done.returncode == -signal.SIGKILL, (done.returncode, done.stderr.decode())


def _hidden(tmp_path: Path) -> list[str]:
    return sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("."))


@pytest.mark.parametrize("point", ["journal:1", "journal:9", "rename", "renamed"])
def test_a_killed_per_source_solve_resumes_to_the_same_bytes(tmp_path: Path, point: str) -> None:
    g = _graph(1000, 3)
    sp.save_npz(tmp_path / "g.npz", g)
    ref = apsp.solve_to_file(g, tmp_path / "ref.npy", predecessors=tmp_path / "refp.npy", method="D", threads=2)
    assert ref["algorithm"] == "dijkstra"
    # The files hold what shortest_path returns (int32, apsp.INF for unreachable),
    # the predecessors with the CLI's -1 for none (scipy's -9999 in memory).
    dist, pred = apsp.shortest_path(g, method="D", return_predecessors=True, dtype=np.int32, threads=2)
    assert np.array_equal(np.load(tmp_path / "ref.npy"), dist)
    assert np.array_equal(np.load(tmp_path / "refp.npy"), np.where(pred == apsp.NO_PREDECESSOR, -1, pred))

    call = "'d.npy', predecessors='p.npy', method='D', threads=2"
    _killed(tmp_path, str(tmp_path / "g.npz"), call + ", checkpoint=True", point)
    assert (tmp_path / ".d.npy.apsp-journal").exists()
    if point != "renamed":
        assert not (tmp_path / "d.npy").exists()
    info = apsp.solve_to_file(
        g, tmp_path / "d.npy", predecessors=tmp_path / "p.npy", method="D", threads=2, resume=True
    )
    assert "rows kept from the interrupted run" in info["note"], info["note"]
    if point == "rename":
        assert "1000 of 1000 rows kept" in info["note"], info["note"]
    assert (tmp_path / "d.npy").read_bytes() == (tmp_path / "ref.npy").read_bytes()
    assert (tmp_path / "p.npy").read_bytes() == (tmp_path / "refp.npy").read_bytes()
    assert _hidden(tmp_path) == []


def test_a_resume_computes_only_the_rows_left(tmp_path: Path) -> None:
    g = _graph(1000, 4)
    sp.save_npz(tmp_path / "g.npz", g)
    apsp.solve_to_file(g, tmp_path / "ref.npy", method="D", threads=2)
    _killed(tmp_path, str(tmp_path / "g.npz"), "'d.npy', method='D', threads=2, checkpoint=True", "journal:9")
    info = apsp.solve_to_file(g, tmp_path / "d.npy", method="D", threads=2, resume=True)
    # 9 records of at most 64 rows each: some rows kept, not all.
    kept = int(info["note"].split("resumed ")[1].split(": ")[1].split(" of ")[0])
    assert 0 < kept < 1000, info["note"]
    assert (tmp_path / "d.npy").read_bytes() == (tmp_path / "ref.npy").read_bytes()


def test_a_killed_floyd_warshall_resumes_from_its_round_checkpoint(tmp_path: Path) -> None:
    g = _graph(1000, 5)
    sp.save_npz(tmp_path / "g.npz", g)
    apsp.solve_to_file(g, tmp_path / "ref.bin", algorithm="fw-blocked", backend="cpu", threads=2)
    call = "'d.bin', algorithm='fw-blocked', backend='cpu', threads=2, checkpoint_every=1e-9"
    _killed(tmp_path, str(tmp_path / "g.npz"), call, "checkpoint:5")
    assert (tmp_path / ".d.bin.apsp-checkpoint").exists()
    info = apsp.solve_to_file(
        g, tmp_path / "d.bin", algorithm="fw-blocked", backend="cpu", threads=2, checkpoint_every=1e-9, resume=True
    )
    assert "resumed from the checkpoint after round 5 of 16" in info["note"], info["note"]
    assert (tmp_path / "d.bin").read_bytes() == (tmp_path / "ref.bin").read_bytes()
    assert _hidden(tmp_path) == []


def test_a_resume_of_another_solve_is_refused(tmp_path: Path) -> None:
    g, other = _graph(1000, 6), _graph(1000, 7)
    sp.save_npz(tmp_path / "g.npz", g)
    _killed(tmp_path, str(tmp_path / "g.npz"), "'d.npy', method='D', threads=2, checkpoint=True", "journal:9")
    left = _hidden(tmp_path)
    for graph, options in (
        (other, {"method": "D"}),  # another graph (its hash)
        (g, {"method": "J"}),  # another algorithm
        (g, {"method": "D", "predecessors": tmp_path / "p.npy"}),  # predecessors too
    ):
        with pytest.raises(apsp.ResumeError, match="cannot resume"):
            apsp.solve_to_file(graph, tmp_path / "d.npy", threads=2, resume=True, **options)
        assert not (tmp_path / "d.npy").exists()
        assert _hidden(tmp_path) == left  # the interrupted run's files stay for it
    assert issubclass(apsp.ResumeError, ValueError)
    # The solve that was killed still resumes.
    apsp.solve_to_file(g, tmp_path / "d.npy", method="D", threads=2, resume=True)
    dist = apsp.shortest_path(g, method="D", dtype=np.int32, threads=2)
    assert np.array_equal(np.load(tmp_path / "d.npy"), dist)
    assert _hidden(tmp_path) == []


def test_options(tmp_path: Path) -> None:
    g = _graph(50, 8)
    # Nothing to resume: started afresh, with a note.
    info = apsp.solve_to_file(g, tmp_path / "d.npy", resume=True)
    assert "started afresh" in info["note"], info["note"]
    assert np.array_equal(np.load(tmp_path / "d.npy"), apsp.shortest_path(g, dtype=np.int32))
    # Real weights: float64 files with inf.
    real = _graph(50, 9).astype(np.float64) * 0.5
    apsp.solve_to_file(real, tmp_path / "r.npy")
    assert np.array_equal(np.load(tmp_path / "r.npy"), apsp.shortest_path(real))
    for every in (0, -1.0, float("nan")):
        with pytest.raises(ValueError, match="checkpoint"):
            apsp.solve_to_file(g, tmp_path / "e.npy", checkpoint_every=every)
    assert not (tmp_path / "e.npy").exists()
    # Text outputs keep no partial rows.
    with pytest.raises(ValueError):
        apsp.solve_to_file(g, tmp_path / "t.txt", checkpoint=True)
    assert _hidden(tmp_path) == []
