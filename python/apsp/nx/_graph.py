"""The apsp backend's graph: a networkx graph's nodes and its weighted adjacency as CSR arrays.

``ApspGraph`` keeps the networkx graph it was made from (not a copy) so that
a function can evaluate a callable weight, or hand the call to networkx's own
code where apsp cannot reproduce networkx's result. The CSR arrays of each
weight attribute are built once per graph and kept on it; networkx keeps the
``ApspGraph`` itself in ``G.__networkx_cache__`` (``nx.config.cache_converted_graphs``).
"""

from __future__ import annotations

import math
from typing import Any, Callable, Dict, Hashable, List, Optional, Tuple, Union

import numpy as np

from .. import _apsp

Weight = Union[str, Callable[[Any, Any, Any], Any], None]


class NotVectorisable(Exception):
    """A weight apsp cannot take as an array of real numbers (None, a Fraction, inf, NaN, ...).

    The function that meets it runs networkx's own implementation instead.
    """


class Csr:
    """One weighting of a graph: directed CSR arrays over the node order of ``ApspGraph.nodes``.

    Row u holds every adjacency entry u -> v of networkx's ``G._adj`` (both
    directions of an undirected edge, a multigraph's parallel edges as their
    lightest, self-loops included) with its weight.
    """

    def __init__(self, n: int, indptr: np.ndarray, indices: np.ndarray, data: np.ndarray) -> None:
        self.n = n
        self.indptr = indptr  # int64, shape (n + 1,)
        self.indices = indices  # int64, shape (m,): the head v of each entry
        self.data = data  # int64 or float64, shape (m,)
        #: every weight is an integer: networkx's sums are Python ints, and so are apsp's results.
        self.integral = data.dtype.kind == "i"
        self.tails = np.repeat(np.arange(n, dtype=np.int64), np.diff(indptr))  # the tail u of each entry
        self.min_weight = float(data.min()) if data.size else 0.0
        loops = self.tails == indices
        #: a self-loop of negative weight: a negative cycle that the engine (which drops self-loops) cannot see.
        self.negative_self_loop = bool(np.any(data[loops] < 0))
        self._engine: Dict[bool, Any] = {}

    def engine(self, unweighted: bool = False) -> Any:
        """The engine's normalized graph of these arrays (hop counts when ``unweighted``), built once."""
        graph = self._engine.get(unweighted)
        if graph is None:
            graph = _apsp.graph_from_csr(self.n, self.indptr, self.indices, self.data, True, unweighted, False)
            self._engine[unweighted] = graph
        return graph


class ApspGraph:
    """A networkx graph converted for the apsp backend (``__networkx_backend__ == "apsp"``).

    ``nodes`` is the networkx graph's node order; vertex i of every array is
    ``nodes[i]``. Weightings (``csr``) are built on first use and kept.
    """

    __networkx_backend__ = "apsp"

    def __init__(self, graph: Any) -> None:
        self.graph = graph
        self.nodes: List[Hashable] = list(graph)
        self.index: Dict[Hashable, int] = {node: i for i, node in enumerate(self.nodes)}
        labels = np.empty(len(self.nodes), dtype=object)
        for i, node in enumerate(self.nodes):  # element-wise: tuple labels must stay tuples
            labels[i] = node
        self.labels = labels
        self._csr: Dict[Tuple[Any, ...], Csr] = {}
        self.__networkx_cache__: Dict[str, Any] = {}

    def __len__(self) -> int:
        return len(self.nodes)

    def __iter__(self) -> Any:
        return iter(self.nodes)

    def __contains__(self, node: Any) -> bool:
        try:
            return node in self.index
        except TypeError:  # unhashable: not a node, as in networkx
            return False

    def is_directed(self) -> bool:
        return bool(self.graph.is_directed())

    def is_multigraph(self) -> bool:
        return bool(self.graph.is_multigraph())

    def csr(self, weight: Weight, default: Any = 1, none_hides: bool = True) -> Csr:
        """The weighting by ``weight`` as networkx's functions read it.

        ``weight``: an attribute name (``default`` where an edge lacks it; a
        multigraph's parallel edges at their lightest), None (every edge 1),
        or a callable ``weight(u, v, d)`` evaluated once per adjacency entry
        (``d`` the edge's data, a multigraph's key dict); a None from it hides
        the entry when ``none_hides`` (Dijkstra's rule), else it is not a weight.

        Raises NotVectorisable where a weight is not a finite real number.
        """
        key = None if callable(weight) else (weight, default, type(default))
        if key is not None and key in self._csr:
            return self._csr[key]
        csr = self._build(weight, default, none_hides)
        if key is not None:
            self._csr[key] = csr
        return csr

    def _build(self, weight: Weight, default: Any, none_hides: bool) -> Csr:
        adj = self.graph._adj
        index = self.index
        multigraph = self.graph.is_multigraph()
        indptr = np.zeros(len(self.nodes) + 1, dtype=np.int64)
        heads: List[int] = []
        values: List[Any] = []
        for i, u in enumerate(self.nodes):
            neighbours = adj[u]
            if weight is None:
                heads.extend(map(index.__getitem__, neighbours))
            elif callable(weight):
                for v, d in neighbours.items():
                    w = weight(u, v, d)
                    if w is None:
                        if not none_hides:
                            raise NotVectorisable("a callable weight returned None")
                        continue
                    heads.append(index[v])
                    values.append(w)
            elif multigraph:
                heads.extend(map(index.__getitem__, neighbours))
                values.extend([min(e.get(weight, default) for e in d.values()) for d in neighbours.values()])
            else:
                heads.extend(map(index.__getitem__, neighbours))
                values.extend([d.get(weight, default) for d in neighbours.values()])
            indptr[i + 1] = len(heads)
        indices = np.array(heads, dtype=np.int64)
        if weight is None:
            data = np.ones(len(heads), dtype=np.int64)
        else:
            data = _numeric(values)
        return Csr(len(self.nodes), indptr, indices, data)


def _numeric(values: List[Any]) -> np.ndarray:
    """``values`` as int64 (all integers) or float64 (finite reals), else NotVectorisable."""
    if not values:
        return np.zeros(0, dtype=np.int64)
    try:
        array = np.array(values)
    except (ValueError, TypeError, OverflowError) as exc:
        raise NotVectorisable(str(exc)) from None
    kind = array.dtype.kind
    if kind == "b":
        return array.astype(np.int64)
    if kind in "iu":
        if array.dtype.itemsize == 8 and kind == "u":
            raise NotVectorisable("weights beyond int64")
        return array.astype(np.int64)
    if kind == "f":
        array = array.astype(np.float64)
        if not np.all(np.isfinite(array)):
            raise NotVectorisable("a weight is inf or NaN")
        return array
    # object arrays: Python ints beyond int64, Fractions, Decimals, None, strings
    raise NotVectorisable(f"weights of type {type(next(v for v in values if not _is_real(v))).__name__}")


def _is_real(value: Any) -> bool:
    return isinstance(value, (int, float, np.integer, np.floating)) and math.isfinite(value)


def convert_from_nx(
    graph: Any,
    edge_attrs: Optional[Dict[str, Any]] = None,
    node_attrs: Optional[Dict[str, Any]] = None,
    preserve_edge_attrs: bool = False,
    preserve_node_attrs: bool = False,
    preserve_graph_attrs: bool = False,
    name: Optional[str] = None,
    graph_name: Optional[str] = None,
) -> ApspGraph:
    """networkx's conversion hook: the graph with the weightings ``edge_attrs`` asks for built."""
    converted = ApspGraph(graph)
    for attribute, default in (edge_attrs or {}).items():
        try:
            converted.csr(attribute, 1 if default is None else default)
        except NotVectorisable:
            pass  # the function that needs it runs networkx's code
    return converted


def convert_to_nx(obj: Any, *, name: Optional[str] = None) -> Any:
    """networkx's hook for results: an ApspGraph is its networkx graph; anything else is returned as is."""
    if isinstance(obj, ApspGraph):
        return obj.graph
    return obj
