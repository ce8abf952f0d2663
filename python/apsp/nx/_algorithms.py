"""The networkx functions the apsp backend serves, with networkx's results.

Each function takes an ``ApspGraph`` (networkx converts the caller's graph)
and returns what networkx's own function returns: the same keys, values
(Python ints where every weight is an integer), exceptions and iterator
types. Distances come from the engine in blocks of source rows, so a
generator holds one block at a time; dicts are built from each row with
numpy masks and ``dict(zip(...))``.

Where apsp cannot reproduce networkx's answer, the call runs networkx's own
implementation on the original graph (``_networkx``):

- a weight that is not a finite real number (``NotVectorisable``);
- negative weights in the Dijkstra functions (networkx's answer there is
  order-dependent: it may raise or return non-shortest lengths);
- a negative cycle where networkx's result depends on which sources reach
  it (the generators, Floyd-Warshall's undefined result);
- paths with ties: a path is taken from the engine's distances only where
  every vertex has exactly one tight in-edge (the shortest path is unique);
  otherwise networkx's tie-breaking decides, so that source (or the whole
  call, for ``johnson`` and ``floyd_warshall_predecessor_and_distance``)
  runs networkx's code.
"""

from __future__ import annotations

import math
from collections import defaultdict
from typing import Any, Dict, Iterator, List, Optional, Sequence, Tuple

import numpy as np

from .. import _apsp, _csgraph
from .._errors import NegativeCycleError
from ._graph import ApspGraph, Csr, NotVectorisable

#: A block of source rows holds at most this many distances (128 MiB of float64).
BLOCK_ENTRIES = 1 << 24

_INF = float("inf")


def _nx() -> Any:
    import networkx

    return networkx


def config() -> Dict[str, Any]:
    """The backend's settings: ``nx.config.backends.apsp`` (backend, device, threads)."""
    settings = {"backend": "auto", "device": 0, "threads": 0}
    try:
        current = _nx().config.backends.apsp
    except AttributeError:
        return settings
    for key in settings:
        value = getattr(current, key, None)
        if value is not None:
            settings[key] = value
    return settings


def _networkx(name: str, G: ApspGraph, *args: Any, **kwargs: Any) -> Any:
    """networkx's own implementation of ``name`` on the original graph."""
    return _nx().utils.backends._registered_algorithms[name].orig_func(G.graph, *args, **kwargs)


def _solve(csr: Csr, unweighted: bool, sources: Optional[List[int]], limit: Optional[float]) -> np.ndarray:
    """float64 distances of ``sources`` (None: every vertex), shape (len(sources) or n, n), inf unreachable."""
    settings = config()
    request = _csgraph._request(
        "auto", settings["backend"], int(settings["device"]), "auto", int(settings["threads"]),
        False, sources, None, limit,
    )  # fmt: skip
    dist, _, info = _apsp.solve(csr.engine(unweighted), request)
    _csgraph._last.info = info
    return dist


def _blocks(
    G: ApspGraph, csr: Csr, unweighted: bool, limit: Optional[float], sources: Optional[Sequence[int]] = None
) -> Iterator[Tuple[int, np.ndarray]]:
    """(source, distance row) for each source (every vertex by default), solved a block of rows at a time.

    Raises NegativeCycleError before the first row where the graph has a negative cycle.
    """
    n = len(G)
    if csr.negative_self_loop and not unweighted:
        raise NegativeCycleError("a self-loop of negative weight")
    order = list(range(n)) if sources is None else list(sources)
    per_block = max(1, BLOCK_ENTRIES // max(n, 1))
    for start in range(0, len(order), per_block):
        block = order[start : start + per_block]
        everyone = len(block) == n and start == 0 and sources is None
        dist = _solve(csr, unweighted, None if everyone else block, limit)
        for k, source in enumerate(block):
            yield source, dist[k]


def _kept(row: np.ndarray, cutoff: Optional[float]) -> np.ndarray:
    """The vertices a networkx result lists: reachable, within ``cutoff`` when given."""
    return row <= cutoff if cutoff is not None else row < _INF


def _lengths(G: ApspGraph, row: np.ndarray, keep: np.ndarray, integral: bool) -> Dict[Any, Any]:
    """{node: distance} of the kept vertices, in node order; Python ints where ``integral``."""
    if keep.all():
        keys: List[Any] = G.nodes
        values = row
    else:
        index = np.flatnonzero(keep)
        keys = G.labels[index].tolist()
        values = row[index]
    return dict(zip(keys, values.astype(np.int64).tolist() if integral else values.tolist()))


def _full_row(G: ApspGraph, row: np.ndarray, integral: bool) -> Dict[Any, Any]:
    """{node: distance} over every node, inf where unreachable (Floyd-Warshall's dicts)."""
    finite = row < _INF
    if not integral or finite.all():
        return _lengths(G, row, np.ones(row.shape, dtype=bool), integral)
    lengths = _lengths(G, row, finite, True)
    lengths.update(dict.fromkeys(G.labels[~finite].tolist(), _INF))
    return lengths


def _tight_predecessors(csr: Csr, row: np.ndarray, keep: np.ndarray, source: int) -> Optional[np.ndarray]:
    """The predecessor of each kept vertex on its unique shortest path from ``source``, or None.

    None where some kept vertex other than the source has no tight in-edge
    (d[u] + w == d[v]) or more than one: its shortest path is not unique
    (or the distances are rounded), and networkx's tie-breaking decides.
    """
    tails, heads = csr.tails, csr.indices
    du = row[tails]
    tight = (du + csr.data == row[heads]) & (du < _INF) & keep[heads] & (tails != heads) & (heads != source)
    counts = np.bincount(heads[tight], minlength=csr.n)
    wanted = keep.copy()
    wanted[source] = False
    if not np.array_equal(counts, wanted.astype(counts.dtype)):
        return None
    pred = np.full(csr.n, -1, dtype=np.int64)
    pred[heads[tight]] = tails[tight]
    return pred


def _paths(G: ApspGraph, pred: np.ndarray, keep: np.ndarray, source: int) -> Dict[Any, List[Any]]:
    """{node: [source, ..., node]} of the kept vertices along ``pred``, in node order."""
    labels = G.nodes
    up = pred.tolist()
    paths: Dict[int, List[Any]] = {source: [labels[source]]}
    kept = np.flatnonzero(keep).tolist()
    for v in kept:
        if v in paths:
            continue
        chain = []
        x = v
        while x not in paths:
            chain.append(x)
            x = up[x]
        path = paths[x]
        for y in reversed(chain):
            path = path + [labels[y]]
            paths[y] = path
    return {labels[v]: paths[v] for v in kept}


def _csr_or_none(G: ApspGraph, weight: Any, default: Any = 1, none_hides: bool = True) -> Optional[Csr]:
    try:
        return G.csr(weight, default, none_hides)
    except NotVectorisable:
        return None


def _cutoff_ok(cutoff: Any) -> bool:
    return cutoff is None or (isinstance(cutoff, (int, float, np.integer, np.floating)) and cutoff >= 0)


# --- Floyd-Warshall -----------------------------------------------------------------------------------


def floyd_warshall_numpy(G: ApspGraph, nodelist: Any = None, weight: Any = "weight") -> np.ndarray:
    nx = _nx()
    if nodelist is not None:
        if not (len(nodelist) == len(G) == len(set(nodelist))):
            raise nx.NetworkXError(
                "nodelist must contain every node in G with no repeats."
                "If you wanted a subgraph of G use G.subgraph(nodelist)"
            )
        if not all(node in G for node in nodelist):
            return _networkx("floyd_warshall_numpy", G, nodelist=nodelist, weight=weight)
    csr = None if callable(weight) else _csr_or_none(G, weight)
    if csr is None:
        return _networkx("floyd_warshall_numpy", G, nodelist=nodelist, weight=weight)
    n = len(G)
    if n == 0:
        return np.zeros((0, 0))
    try:
        dist = _solve(csr, weight is None, None, None)
    except NegativeCycleError:  # networkx returns its loop's (meaningless) numbers
        return _networkx("floyd_warshall_numpy", G, nodelist=nodelist, weight=weight)
    dist = np.asarray(dist, dtype=np.float64)
    if nodelist is not None:
        order = np.fromiter((G.index[node] for node in nodelist), dtype=np.int64, count=n)
        if not np.array_equal(order, np.arange(n)):
            dist = dist[np.ix_(order, order)]
    return dist


def _fw_csr(G: ApspGraph, weight: Any) -> Optional[Csr]:
    """Floyd-Warshall's weighting (default 1.0, as networkx's ``d.get(weight, 1.0)``), or None to fall back."""
    if callable(weight):
        return None
    csr = _csr_or_none(G, weight, 1.0)
    if csr is None or csr.negative_self_loop:
        return None
    return csr


def floyd_warshall(G: ApspGraph, weight: Any = "weight") -> Dict[Any, Any]:
    csr = _fw_csr(G, weight)
    if csr is None:
        return _networkx("floyd_warshall", G, weight=weight)
    try:
        rows = list(_blocks(G, csr, False, None))
    except NegativeCycleError:
        return _networkx("floyd_warshall", G, weight=weight)
    labels = G.nodes
    return {
        labels[source]: defaultdict(lambda: _INF, _full_row(G, row, csr.integral)) for source, row in rows
    }


def floyd_warshall_predecessor_and_distance(G: ApspGraph, weight: Any = "weight") -> Tuple[Dict[Any, Any], Dict[Any, Any]]:
    name = "floyd_warshall_predecessor_and_distance"
    csr = _fw_csr(G, weight)
    if csr is None:
        return _networkx(name, G, weight=weight)  # type: ignore[no-any-return]
    try:
        rows = list(_blocks(G, csr, False, None))
    except NegativeCycleError:
        return _networkx(name, G, weight=weight)  # type: ignore[no-any-return]
    labels = G.nodes
    out_degree = np.diff(csr.indptr)
    loops = set(csr.tails[csr.tails == csr.indices].tolist())
    pred: Dict[Any, Dict[Any, Any]] = {}
    dist: Dict[Any, Any] = {}
    for source, row in rows:
        dist[labels[source]] = defaultdict(lambda: _INF, _full_row(G, row, csr.integral))
        if out_degree[source] == 0:
            continue  # networkx's pred has keys only for nodes with an edge out
        keep = row < _INF
        up = _tight_predecessors(csr, row, keep, source)
        if up is None:  # ties: networkx's loop order decides the predecessors
            return _networkx(name, G, weight=weight)  # type: ignore[no-any-return]
        keep[source] = False
        index = np.flatnonzero(keep)
        entry = dict(zip(G.labels[index].tolist(), G.labels[up[index]].tolist()))
        if source in loops:
            entry[labels[source]] = labels[source]
        pred[labels[source]] = entry
    return pred, dist


# --- Dijkstra -----------------------------------------------------------------------------------------


def _dijkstra_csr(G: ApspGraph, weight: Any, cutoff: Any) -> Optional[Csr]:
    """The weighting Dijkstra reads, or None where networkx's code must run (negative weights, ...)."""
    if not _cutoff_ok(cutoff):
        return None
    csr = _csr_or_none(G, weight)
    if csr is None or csr.min_weight < 0:
        return None
    return csr


def _limit(cutoff: Any) -> Optional[float]:
    return None if cutoff is None else float(cutoff)


def all_pairs_dijkstra_path_length(G: ApspGraph, cutoff: Any = None, weight: Any = "weight") -> Iterator[Tuple[Any, Dict[Any, Any]]]:
    csr = _dijkstra_csr(G, weight, cutoff)
    if csr is None:
        yield from _networkx("all_pairs_dijkstra_path_length", G, cutoff=cutoff, weight=weight)
        return
    labels = G.nodes
    for source, row in _blocks(G, csr, False, _limit(cutoff)):
        yield labels[source], _lengths(G, row, _kept(row, cutoff), csr.integral)


def single_source_dijkstra_path_length(G: ApspGraph, source: Any, cutoff: Any = None, weight: Any = "weight") -> Dict[Any, Any]:
    csr = _dijkstra_csr(G, weight, cutoff)
    if csr is None or source not in G:
        return _networkx("single_source_dijkstra_path_length", G, source, cutoff=cutoff, weight=weight)  # type: ignore[no-any-return]
    ((_, row),) = _blocks(G, csr, False, _limit(cutoff), [G.index[source]])
    return _lengths(G, row, _kept(row, cutoff), csr.integral)


def _path_rows(
    G: ApspGraph, csr: Csr, unweighted: bool, cutoff: Any, single: str, single_kwargs: Dict[str, Any], sources: Optional[Sequence[int]] = None
) -> Iterator[Tuple[int, np.ndarray, np.ndarray, Dict[Any, List[Any]]]]:
    """(source, row, kept, paths) per source; a source with ties gets networkx's ``single`` paths."""
    for source, row in _blocks(G, csr, unweighted, _limit(cutoff), sources):
        keep = _kept(row, cutoff)
        pred = _tight_predecessors(csr, row, keep, source)
        if pred is None:
            paths = _networkx(single, G, G.nodes[source], **single_kwargs)
        else:
            paths = _paths(G, pred, keep, source)
        yield source, row, keep, paths


def _dijkstra_with_paths(G: ApspGraph, cutoff: Any, weight: Any, name: str, lengths: bool) -> Iterator[Tuple[Any, Any]]:
    """(node, paths), or (node, (lengths, paths)) when ``lengths``: networkx's ``name``."""
    csr = _dijkstra_csr(G, weight, cutoff)
    if csr is None:
        yield from _networkx(name, G, cutoff=cutoff, weight=weight)
        return
    kwargs = {"cutoff": cutoff, "weight": weight}
    for source, row, keep, paths in _path_rows(G, csr, False, cutoff, "single_source_dijkstra_path", kwargs):
        yield G.nodes[source], ((_lengths(G, row, keep, csr.integral), paths) if lengths else paths)


def all_pairs_dijkstra_path(G: ApspGraph, cutoff: Any = None, weight: Any = "weight") -> Iterator[Tuple[Any, Dict[Any, List[Any]]]]:
    return _dijkstra_with_paths(G, cutoff, weight, "all_pairs_dijkstra_path", lengths=False)


def all_pairs_dijkstra(G: ApspGraph, cutoff: Any = None, weight: Any = "weight") -> Iterator[Tuple[Any, Tuple[Dict[Any, Any], Dict[Any, List[Any]]]]]:
    return _dijkstra_with_paths(G, cutoff, weight, "all_pairs_dijkstra", lengths=True)


# --- unweighted ---------------------------------------------------------------------------------------


def _levels(cutoff: Any) -> Optional[float]:
    """The last BFS level networkx lists for ``cutoff``: it expands a level while ``cutoff > level``,
    so a cutoff of 3.5 lists level 4."""
    return None if cutoff is None else float(math.ceil(cutoff))


def all_pairs_shortest_path_length(G: ApspGraph, cutoff: Any = None) -> Iterator[Tuple[Any, Dict[Any, int]]]:
    if not _cutoff_ok(cutoff):
        yield from _networkx("all_pairs_shortest_path_length", G, cutoff=cutoff)
        return
    cutoff = _levels(cutoff)
    csr = G.csr(None)
    labels = G.nodes
    for source, row in _blocks(G, csr, True, cutoff):
        yield labels[source], _lengths(G, row, _kept(row, cutoff), True)


def all_pairs_shortest_path(G: ApspGraph, cutoff: Any = None) -> Iterator[Tuple[Any, Dict[Any, List[Any]]]]:
    if not _cutoff_ok(cutoff):
        yield from _networkx("all_pairs_shortest_path", G, cutoff=cutoff)
        return
    single_kwargs = {"cutoff": cutoff}
    cutoff = _levels(cutoff)
    csr = G.csr(None)
    for source, _, _, paths in _path_rows(G, csr, True, cutoff, "single_source_shortest_path", single_kwargs):
        yield G.nodes[source], paths


# --- Bellman-Ford and Johnson -------------------------------------------------------------------------


def all_pairs_bellman_ford_path_length(G: ApspGraph, weight: Any = "weight") -> Iterator[Tuple[Any, Dict[Any, Any]]]:
    csr = _csr_or_none(G, weight, none_hides=False)
    rows = None
    if csr is not None:
        try:
            rows = _blocks(G, csr, False, None)
            first = next(rows, None)
        except NegativeCycleError:  # networkx raises at the first source that reaches the cycle
            rows = None
    if rows is None:
        yield from _networkx("all_pairs_bellman_ford_path_length", G, weight=weight)
        return
    assert csr is not None
    labels = G.nodes
    if first is None:
        return
    for source, row in _chain(first, rows):
        yield labels[source], _lengths(G, row, row < _INF, csr.integral)


def all_pairs_bellman_ford_path(G: ApspGraph, weight: Any = "weight") -> Iterator[Tuple[Any, Dict[Any, List[Any]]]]:
    csr = _csr_or_none(G, weight, none_hides=False)
    rows = None
    if csr is not None:
        try:
            rows = _path_rows(G, csr, False, None, "single_source_bellman_ford_path", {"weight": weight})
            first = next(rows, None)
        except NegativeCycleError:
            rows = None
    if rows is None:
        yield from _networkx("all_pairs_bellman_ford_path", G, weight=weight)
        return
    if first is None:
        return
    for source, _, _, paths in _chain(first, rows):
        yield G.nodes[source], paths


def _chain(first: Any, rest: Iterator[Any]) -> Iterator[Any]:
    yield first
    yield from rest


def johnson(G: ApspGraph, weight: Any = "weight") -> Dict[Any, Dict[Any, List[Any]]]:
    nx = _nx()
    csr = _csr_or_none(G, weight, none_hides=False)
    if csr is None:
        return _networkx("johnson", G, weight=weight)  # type: ignore[no-any-return]
    result: Dict[Any, Dict[Any, List[Any]]] = {}
    try:
        for source, row in _blocks(G, csr, False, None):
            keep = row < _INF
            pred = _tight_predecessors(csr, row, keep, source)
            if pred is None:  # ties: networkx's reweighted Dijkstra decides
                return _networkx("johnson", G, weight=weight)  # type: ignore[no-any-return]
            result[G.nodes[source]] = _paths(G, pred, keep, source)
    except NegativeCycleError:
        raise nx.NetworkXUnbounded("Negative cycle detected.") from None
    return result


# --- the generic entry points -------------------------------------------------------------------------


def shortest_path_length(G: ApspGraph, source: Any = None, target: Any = None, weight: Any = None, method: str = "dijkstra") -> Any:
    """All-pairs forms (source and target None) and the single-source form; others run networkx's code."""
    if method not in ("dijkstra", "bellman-ford") or target is not None:
        return _networkx("shortest_path_length", G, source, target, weight, method)
    if source is None:
        if weight is None:
            return all_pairs_shortest_path_length(G)
        if method == "dijkstra":
            return all_pairs_dijkstra_path_length(G, weight=weight)
        return all_pairs_bellman_ford_path_length(G, weight=weight)
    if weight is not None and method == "dijkstra":
        return single_source_dijkstra_path_length(G, source, weight=weight)
    if weight is None and source in G:
        ((_, row),) = _blocks(G, G.csr(None), True, None, [G.index[source]])
        return _lengths(G, row, row < _INF, True)
    return _networkx("shortest_path_length", G, source, target, weight, method)


def shortest_path(G: ApspGraph, source: Any = None, target: Any = None, weight: Any = None, method: str = "dijkstra") -> Any:
    """The all-pairs form (an iterator of (node, paths)); others run networkx's code."""
    if method not in ("dijkstra", "bellman-ford") or source is not None or target is not None:
        return _networkx("shortest_path", G, source, target, weight, method)
    if weight is None:
        return all_pairs_shortest_path(G)
    if method == "dijkstra":
        return all_pairs_dijkstra_path(G, weight=weight)
    return all_pairs_bellman_ford_path(G, weight=weight)


#: The functions served, by networkx name.
FUNCTIONS = {
    f.__name__: f
    for f in (
        floyd_warshall_numpy,
        floyd_warshall,
        floyd_warshall_predecessor_and_distance,
        all_pairs_dijkstra_path_length,
        all_pairs_dijkstra_path,
        all_pairs_dijkstra,
        single_source_dijkstra_path_length,
        all_pairs_shortest_path_length,
        all_pairs_shortest_path,
        all_pairs_bellman_ford_path_length,
        all_pairs_bellman_ford_path,
        johnson,
        shortest_path_length,
        shortest_path,
    )
}
