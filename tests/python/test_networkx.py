"""The networkx backend (apsp.nx): every served function against networkx's own on the same graph.

Hypothesis draws small graphs of the four networkx classes with labels of
mixed types, parallel edges, self-loops, zero and negative weights; the
backend's answer (``backend="apsp"``) must equal networkx's
(``backend="networkx"``): the same keys, values, exceptions and result types.
Where the backend computes an answer itself (no ties, no negative weights in
Dijkstra, ...) a guard checks that it did not hand the call to networkx.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator
from typing import Any, Callable

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

nx = pytest.importorskip("networkx")

import apsp  # noqa: E402
import apsp.nx._algorithms as algorithms  # noqa: E402
from apsp.nx import ApspGraph  # noqa: E402

CLASSES = [nx.Graph, nx.DiGraph, nx.MultiGraph, nx.MultiDiGraph]
LABELS = ["a", ("t", 1), 7, "b", 2.5, ("t", 2), frozenset({1}), "c", 11, "d", None, "e"]


@pytest.fixture(autouse=True)
def quiet_cache_note_and_one_thread():
    """networkx's note on cached conversions off; one engine thread (the graphs are tiny)."""
    nx.config.warnings_to_ignore.add("cache")
    nx.config.backends.apsp.threads = 1
    yield
    nx.config.backends.apsp.threads = 0


@pytest.fixture
def no_fallback(monkeypatch):
    """Fails the test if the backend hands the call to networkx's own code."""

    def refuse(name, G, *args, **kwargs):
        raise AssertionError(f"apsp handed {name} to networkx")

    monkeypatch.setattr(algorithms, "_networkx", refuse)


@st.composite
def graphs(draw, lo: int = 0, hi: int = 9, distinct: bool = False):
    """A networkx graph of up to 10 vertices labelled from LABELS, weights lo..hi in 'weight'.

    ``distinct``: weights are distinct powers of two (positive), so that every
    shortest path is unique and the backend computes paths itself.
    """
    cls = draw(st.sampled_from(CLASSES))
    n = draw(st.integers(0, 10))
    G = cls()
    G.add_nodes_from(LABELS[:n])
    if n:
        edges = draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1), st.integers(lo, hi)), max_size=3 * n))
        powers = iter(draw(st.permutations(range(len(edges)))))
        for u, v, w in edges:
            if distinct:
                if u == v:
                    continue
                w = 2 ** next(powers)
            G.add_edge(LABELS[u], LABELS[v], weight=w)
    return G


def both(function: str, G: Any, *args: Any, **kwargs: Any) -> tuple[Any, Any]:
    """(apsp's result, networkx's result), each an exception instance where one was raised; iterators listed."""

    def run(backend: str) -> Any:
        try:
            result = getattr(nx, function)(G, *args, backend=backend, **kwargs)
            if backend == "apsp" and function.startswith("all_pairs"):
                assert isinstance(result, Iterator), f"{function} must return an iterator"
            if isinstance(result, Iterator):
                items = []
                try:
                    for item in result:
                        items.append(item)
                except Exception as exc:  # noqa: BLE001 - the exception is part of the answer
                    items.append(type(exc))
                return items
            return result
        except Exception as exc:  # noqa: BLE001
            return type(exc)

    return run("apsp"), run("networkx")


def assert_same(got: Any, want: Any) -> None:
    """Equal, with NaN-free floats compared exactly and dict orders ignored (networkx's order is a heap's)."""
    assert got == want
    assert_python_types(got)


def assert_python_types(value: Any) -> None:
    """No numpy scalars in a networkx result (networkx's test mode rejects them too)."""
    if isinstance(value, np.generic):
        raise AssertionError(f"numpy scalar {value!r} in a result")
    if isinstance(value, dict):
        for key, item in value.items():
            assert_python_types(key)
            assert_python_types(item)
    elif isinstance(value, (list, tuple)):
        for item in value:
            assert_python_types(item)


# --- properties ---------------------------------------------------------------------------------------

LENGTHS = ["all_pairs_dijkstra_path_length", "all_pairs_bellman_ford_path_length", "floyd_warshall"]


@settings(max_examples=40, deadline=None)
@given(graphs(), st.sampled_from(LENGTHS + ["all_pairs_shortest_path_length", "johnson", "all_pairs_dijkstra"]))
def test_non_negative_weights_equal_networkx(G, function):
    got, want = both(function, G)
    if function == "floyd_warshall":
        got, want = ({u: dict(row) for u, row in r.items()} for r in (got, want))
    assert_same(got, want)


@settings(max_examples=40, deadline=None)
@given(graphs(lo=-3, hi=6), st.sampled_from(["all_pairs_bellman_ford_path_length", "all_pairs_bellman_ford_path", "johnson", "floyd_warshall_numpy", "all_pairs_dijkstra_path_length"]))
def test_negative_weights_and_cycles_equal_networkx(G, function):
    got, want = both(function, G)
    if function == "floyd_warshall_numpy" and isinstance(got, np.ndarray):
        np.testing.assert_array_equal(got, want)
        return
    assert_same(got, want)


@settings(max_examples=40, deadline=None)
@given(graphs(distinct=True), st.sampled_from(["all_pairs_dijkstra_path", "all_pairs_bellman_ford_path", "johnson", "floyd_warshall_predecessor_and_distance", "all_pairs_dijkstra"]))
def test_unique_paths_are_apsp_own_and_equal_networkx(G, function):
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(algorithms, "_networkx", _refuse)
        got = list(getattr(nx, function)(G, backend="apsp")) if function.startswith("all_pairs") else getattr(nx, function)(G, backend="apsp")
    want = getattr(nx, function)(G, backend="networkx")
    want = list(want) if function.startswith("all_pairs") else want
    if function == "floyd_warshall_predecessor_and_distance":
        got = (got[0], {u: dict(r) for u, r in got[1].items()})
        want = (want[0], {u: dict(r) for u, r in want[1].items()})
    assert_same(got, want)


def _refuse(name, G, *args, **kwargs):
    raise AssertionError(f"apsp handed {name} to networkx")


@settings(max_examples=30, deadline=None)
@given(graphs(), st.sampled_from([0, 1, 2, 3.5, 7]), st.sampled_from(["all_pairs_dijkstra_path_length", "all_pairs_shortest_path_length", "all_pairs_dijkstra_path", "all_pairs_shortest_path"]))
def test_cutoff_equals_networkx(G, cutoff, function):
    got, want = both(function, G, cutoff=cutoff)
    assert_same(got, want)


@settings(max_examples=20, deadline=None)
@given(graphs(), st.data())
def test_nodelist_order_equals_networkx(G, data):
    nodelist = data.draw(st.permutations(list(G)))
    got = nx.floyd_warshall_numpy(G, nodelist=nodelist, backend="apsp")
    np.testing.assert_array_equal(got, nx.floyd_warshall_numpy(G, nodelist=nodelist, backend="networkx"))


@settings(max_examples=40, deadline=None)
@given(graphs())
def test_single_source_and_generic_forms_equal_networkx(G):
    for source in list(G)[:3]:
        assert_same(*both("single_source_dijkstra_path_length", G, source))
        assert_same(*both("single_source_dijkstra_path_length", G, source, cutoff=2))
        assert_same(*both("shortest_path_length", G, source))
        assert_same(*both("shortest_path_length", G, source, weight="weight"))
    for method in ("dijkstra", "bellman-ford"):
        assert_same(*both("shortest_path_length", G, weight="weight", method=method))
        assert_same(*both("shortest_path", G, weight="weight", method=method))
    assert_same(*both("shortest_path_length", G))
    assert_same(*both("shortest_path", G))


# --- cases --------------------------------------------------------------------------------------------


def road() -> Any:
    """A directed graph with integer weights, an unreachable vertex and a zero-weight edge."""
    G = nx.DiGraph()
    G.add_weighted_edges_from([("s", "a", 2), ("a", "b", 3), ("s", "b", 7), ("b", "c", 0), ("c", "s", 1)])
    G.add_node("lonely")
    return G


def test_lengths_are_computed_by_the_engine_with_finite_and_unreachable_pairs(no_fallback):
    G = road()
    lengths = dict(nx.all_pairs_dijkstra_path_length(G, backend="apsp"))
    assert lengths["s"] == {"s": 0, "a": 2, "b": 5, "c": 5}
    assert "lonely" not in lengths["s"] and lengths["lonely"] == {"lonely": 0}
    assert all(type(v) is int for v in lengths["s"].values())
    fw = nx.floyd_warshall_numpy(G, nodelist=["lonely", "c", "b", "a", "s"], backend="apsp")
    assert fw[4, 1] == 5 and fw[4, 0] == math.inf and fw[0, 0] == 0
    assert apsp.last_solve_info()["algorithm"]


def test_float_weights_give_floats_and_ints_give_ints(no_fallback):
    G = nx.Graph()
    G.add_edge(0, 1, weight=0.5)
    G.add_edge(1, 2, weight=0.25)
    assert nx.single_source_dijkstra_path_length(G, 0, backend="apsp") == {0: 0.0, 1: 0.5, 2: 0.75}
    assert type(nx.single_source_dijkstra_path_length(G, 0, backend="apsp")[2]) is float
    H = nx.path_graph(3)
    assert type(dict(nx.all_pairs_shortest_path_length(H, backend="apsp"))[0][2]) is int


def test_multigraph_takes_the_lightest_parallel_edge(no_fallback):
    G = nx.MultiDiGraph()
    G.add_edge("x", "y", weight=5)
    G.add_edge("x", "y", weight=2)
    G.add_edge("y", "z")  # no weight attribute: 1, as in networkx
    assert dict(nx.all_pairs_dijkstra_path_length(G, backend="apsp"))["x"] == {"x": 0, "y": 2, "z": 3}


def test_johnson_raises_unbounded_on_a_negative_cycle():
    G = nx.DiGraph()
    G.add_weighted_edges_from([(0, 1, 1), (1, 2, -3), (2, 0, 1)])
    with pytest.raises(nx.NetworkXUnbounded):
        nx.johnson(G, backend="apsp")
    G = nx.DiGraph()
    G.add_edge(0, 0, weight=-1)  # a negative self-loop is a cycle too
    with pytest.raises(nx.NetworkXUnbounded):
        nx.johnson(G, backend="apsp")


def test_bellman_ford_generator_raises_where_networkx_does():
    G = nx.DiGraph()
    G.add_node("first")  # reaches no cycle: networkx yields it before raising
    G.add_weighted_edges_from([(1, 2, -1), (2, 1, -1)])
    got, want = both("all_pairs_bellman_ford_path_length", G)
    assert got == want and got[-1] is nx.NetworkXUnbounded and got[0] == ("first", {"first": 0})


def test_callable_weight_is_evaluated_once_per_adjacency(no_fallback):
    G = nx.Graph()
    G.add_edge("a", "b", cost=3)
    G.add_edge("b", "c", cost=4)
    calls = []

    def weight(u, v, d):
        calls.append((u, v))
        return None if {u, v} == {"b", "c"} else d["cost"]

    assert dict(nx.all_pairs_dijkstra_path_length(G, weight=weight, backend="apsp"))["a"] == {"a": 0, "b": 3}
    assert len(calls) == 4  # both directions of two undirected edges, once


def test_floyd_warshall_with_a_callable_runs_networkx_and_can_run_says_why():
    from apsp.nx import BackendInterface

    G = nx.path_graph(3)
    reason = BackendInterface.can_run("floyd_warshall", (G,), {"weight": lambda u, v, d: 1})
    assert isinstance(reason, str) and "callable" in reason
    nx.config.backend_priority.algos = ["apsp"]
    fallback = nx.config.fallback_to_nx
    try:
        nx.config.fallback_to_nx = True
        got = nx.floyd_warshall(G, weight=lambda u, v, d: 1)
    finally:
        nx.config.backend_priority.algos = []
        nx.config.fallback_to_nx = fallback
    assert {u: dict(r) for u, r in got.items()} == {u: dict(r) for u, r in nx.floyd_warshall(G).items()}


def test_non_real_weights_run_networkx():
    from fractions import Fraction

    G = nx.DiGraph()
    G.add_edge(0, 1, weight=Fraction(1, 3))
    G.add_edge(1, 2, weight=Fraction(1, 3))
    got = dict(nx.all_pairs_dijkstra_path_length(G, backend="apsp"))
    assert got[0][2] == Fraction(2, 3) and type(got[0][2]) is Fraction


def test_ties_give_networkx_paths():
    G = nx.grid_2d_graph(4, 4)
    got, want = both("all_pairs_shortest_path", G)
    assert got == want


def test_graph_is_converted_once_and_cached(no_fallback):
    G = nx.gnp_random_graph(30, 0.2, seed=3, directed=True)
    nx.floyd_warshall_numpy(G, backend="apsp")
    cached = [g for g in G.__networkx_cache__["backends"]["apsp"].values() if isinstance(g, ApspGraph)]
    assert len(cached) == 1
    built = dict(cached[0]._csr)
    dict(nx.all_pairs_dijkstra_path_length(G, backend="apsp"))
    assert [g for g in G.__networkx_cache__["backends"]["apsp"].values() if isinstance(g, ApspGraph)] == cached
    assert all(cached[0]._csr[key] is csr for key, csr in built.items())
    G.add_edge(0, 1, weight=1)  # networkx clears the cache on a change
    assert not G.__networkx_cache__.get("backends", {}).get("apsp")


def test_rows_are_solved_in_blocks(no_fallback, monkeypatch):
    monkeypatch.setattr(algorithms, "BLOCK_ENTRIES", 2 * 20)
    G = nx.gnp_random_graph(20, 0.2, seed=5, directed=True)
    got = dict(nx.all_pairs_dijkstra_path_length(G, backend="apsp"))
    assert got == dict(nx.all_pairs_dijkstra_path_length(G, backend="networkx"))


def test_backend_config_chooses_the_cpu():
    G = nx.path_graph(5)
    nx.config.backends.apsp.backend = "cpu"
    try:
        nx.floyd_warshall_numpy(G, backend="apsp")
        assert apsp.last_solve_info()["backend"] == "cpu"
    finally:
        nx.config.backends.apsp.backend = "auto"


def test_empty_and_single_node_graphs():
    for n in (0, 1):
        G = nx.empty_graph(n)
        assert nx.floyd_warshall_numpy(G, backend="apsp").shape == (n, n)
        assert dict(nx.all_pairs_dijkstra_path_length(G, backend="apsp")) == dict(nx.all_pairs_dijkstra_path_length(G))
        assert nx.johnson(G, backend="apsp") == nx.johnson(G)


def test_bad_nodelist_and_missing_source_raise_as_networkx():
    G = nx.path_graph(3)
    with pytest.raises(nx.NetworkXError):
        nx.floyd_warshall_numpy(G, nodelist=[0, 1], backend="apsp")
    with pytest.raises(nx.NodeNotFound):
        nx.single_source_dijkstra_path_length(G, "missing", backend="apsp")


def test_backend_info_lists_every_served_function():
    info = nx.utils.backends.backend_info["apsp"]
    assert set(info["functions"]) == set(algorithms.FUNCTIONS)
    for name in itertools.chain(["floyd_warshall_numpy", "johnson", "all_pairs_dijkstra_path_length"]):
        assert info["functions"][name]["additional_docs"]
