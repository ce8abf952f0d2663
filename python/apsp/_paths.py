"""Paths from predecessor matrices: scipy's ``reconstruct_path`` and ``construct_dist_matrix``, and one path.

The graph is read as :func:`apsp.shortest_path` reads it (dense: 0, inf and
NaN are "no edge"; sparse: every stored entry an edge, duplicates at their
lightest; ``directed=False``: the lighter of [i, j] and [j, i]), and a
predecessor that is not an edge of it, or a predecessor chain that does not
lead back to its source, is a ValueError rather than a wrong number.
"""

from __future__ import annotations

from typing import Any, List

import numpy as np

from ._csgraph import NO_PREDECESSOR, _graph

#: Rows of a construct_dist_matrix block: at most this many entries at a time.
_BLOCK_ENTRIES = 1 << 22


class _EdgeWeights:
    """Weight lookup of the normalized graph's edges by (tail, head), vectorized."""

    def __init__(self, csgraph: Any, directed: bool) -> None:
        graph = _graph(csgraph, directed, False)
        n, indptr, indices, weights = graph.csr()
        self.n = int(n)
        rows = np.repeat(np.arange(self.n, dtype=np.int64), np.diff(np.asarray(indptr, dtype=np.int64)))
        self.keys = rows * self.n + np.asarray(indices, dtype=np.int64)  # sorted: rows, then columns
        self.weights = np.asarray(weights, dtype=np.float64)

    def __call__(self, tails: np.ndarray, heads: np.ndarray) -> tuple[np.ndarray, int]:
        """Weights of the edges tails[k] -> heads[k], and the first k that is not an edge (-1: none)."""
        wanted = tails * self.n + heads
        at = np.searchsorted(self.keys, wanted)
        found = at < self.keys.size
        found[found] = self.keys[at[found]] == wanted[found]
        if not found.all():
            return self.weights[:0], int(np.flatnonzero(~found)[0])
        return self.weights[at], -1


def _not_an_edge(where: str, tail: int, head: int) -> ValueError:
    return ValueError(f"predecessors{where} = {tail}, but {tail} -> {head} is not an edge of the graph")


def _predecessor_array(predecessors: Any, ndim: int, n: int) -> np.ndarray:
    pred = np.asarray(predecessors)
    if pred.dtype.kind not in "iu":
        raise ValueError(f"predecessors must be integers, got {pred.dtype}")
    shape = (n,) * ndim
    if pred.shape != shape:
        raise ValueError(f"predecessors must have shape {shape}, got {pred.shape}")
    pred = pred.astype(np.int64)
    bad = (pred != NO_PREDECESSOR) & ((pred < 0) | (pred >= n))
    if bad.any():
        where = tuple(int(x) for x in np.argwhere(bad)[0])
        raise ValueError(f"predecessors{list(where)} = {int(pred[where])} is outside 0..{n - 1} and not {NO_PREDECESSOR}")
    return pred


def reconstruct_path(csgraph: Any, predecessors: Any, directed: bool = True) -> Any:
    """The shortest-path tree of one source as a sparse matrix (scipy.sparse.csgraph.reconstruct_path).

    Parameters
    ----------
    csgraph : array_like or sparse matrix, shape (N, N)
        The graph the predecessors were computed on.
    predecessors : array_like of int, shape (N,)
        One row of a predecessor matrix: ``predecessors[j]`` is j's parent,
        -9999 for none.
    directed : bool, optional
        False: an edge may be used in either direction (the lighter of the two).

    Returns
    -------
    scipy.sparse.csr_array of float64, shape (N, N)
        Entry [predecessors[j], j] is the weight of that edge.
    """
    from scipy.sparse import csr_array

    weight = _EdgeWeights(csgraph, directed)
    n = weight.n
    pred = _predecessor_array(predecessors, 1, n)
    heads = np.flatnonzero(pred != NO_PREDECESSOR)
    tails = pred[heads]
    data, missing = weight(tails, heads)
    if missing >= 0:
        raise _not_an_edge(f"[{int(heads[missing])}]", int(tails[missing]), int(heads[missing]))
    order = np.lexsort((heads, tails))
    indptr = np.searchsorted(tails[order], np.arange(n + 1))
    return csr_array((data[order], heads[order], indptr), shape=(n, n))


def construct_dist_matrix(graph: Any, predecessors: Any, directed: bool = True, null_value: float = np.inf) -> np.ndarray:
    """The length of every path a predecessor matrix encodes (scipy.sparse.csgraph.construct_dist_matrix).

    Parameters
    ----------
    graph : array_like or sparse matrix, shape (N, N)
        The graph the predecessors were computed on.
    predecessors : array_like of int, shape (N, N)
        Row i: each vertex's predecessor on its path from i, -9999 for none.
    directed : bool, optional
        False: an edge may be used in either direction (the lighter of the two).
    null_value : float, optional
        The value of pairs with no path (default inf).

    Returns
    -------
    ndarray of float64, shape (N, N)
        Path lengths, 0 on the diagonal, ``null_value`` where no path exists.

    Raises
    ------
    ValueError
        A predecessor that is not an edge of the graph, or a chain of
        predecessors that does not lead back to its row's source.
    """
    weight = _EdgeWeights(graph, directed)
    n = weight.n
    pred = _predecessor_array(predecessors, 2, n)
    dist = np.empty((n, n), dtype=np.float64)
    rows_per_block = max(1, _BLOCK_ENTRIES // max(n, 1))
    rounds = max(1, int(np.ceil(np.log2(max(n, 2)))) + 1)
    columns = np.arange(n, dtype=np.int64)
    for start in range(0, n, rows_per_block):
        block = pred[start : start + rows_per_block]
        sources = np.arange(start, start + block.shape[0], dtype=np.int64)[:, None]
        has = block != NO_PREDECESSOR
        has[np.arange(block.shape[0]), sources[:, 0]] = False  # a source's own entry is never followed
        lengths = np.zeros(block.shape, dtype=np.float64)
        if has.any():
            tails = block[has]
            heads = np.broadcast_to(columns, block.shape)[has]
            found, missing = weight(tails, heads)
            if missing >= 0:
                row = int(np.broadcast_to(sources, block.shape)[has][missing])
                raise _not_an_edge(f"[{row}, {int(heads[missing])}]", int(tails[missing]), int(heads[missing]))
            lengths[has] = found
        # Pointer doubling: after k rounds, up[i, j] is j's 2^k-th ancestor on row i's tree (the source
        # and vertices without a predecessor point to themselves) and lengths[i, j] the weight between.
        up = np.where(has, block, columns[None, :])
        for _ in range(rounds):
            lengths = lengths + np.take_along_axis(lengths, up, axis=1)
            up = np.take_along_axis(up, up, axis=1)
        home = up == sources
        broken = has & ~home
        if broken.any():
            i, j = (int(x) for x in np.argwhere(broken)[0])
            raise ValueError(f"the predecessors of row {start + i} do not lead from {start + i} to {j} (a cycle, or a chain that ends elsewhere)")
        dist[start : start + block.shape[0]] = np.where(home, lengths, null_value)
    return dist


def path(predecessors: Any, source: int, target: int) -> List[int]:
    """The vertices of the path from ``source`` to ``target`` that a predecessor matrix encodes.

    Parameters
    ----------
    predecessors : array_like of int, shape (N, N) or (N,)
        A predecessor matrix (row ``source`` is used) or the row of ``source``
        alone (as ``shortest_path(..., indices=source)`` returns it).
    source, target : int
        Vertices; negative values count from the end.

    Returns
    -------
    list of int
        ``[source, ..., target]``; ``[source]`` when they are equal; ``[]``
        when ``target`` is unreachable.

    Raises
    ------
    ValueError
        Vertices out of range, or predecessors that do not lead back to ``source``.
    """
    pred = np.asarray(predecessors)
    if pred.ndim not in (1, 2) or (pred.ndim == 2 and pred.shape[0] != pred.shape[1]):
        raise ValueError(f"predecessors must have shape (N, N) or (N,), got {pred.shape}")
    n = pred.shape[-1]
    for name, vertex in (("source", source), ("target", target)):
        if not -n <= int(vertex) < n:
            raise ValueError(f"{name} {vertex} outside 0..{n - 1}")
    source, target = int(source) % n, int(target) % n
    row = pred[source] if pred.ndim == 2 else pred
    vertices = [target]
    at = target
    while at != source:
        at = int(row[at])
        if at == NO_PREDECESSOR:
            if len(vertices) == 1:
                return []
            raise ValueError(f"the predecessors from {source} end at {vertices[-1]} on the way to {target}")
        if not 0 <= at < n or len(vertices) > n:
            raise ValueError(f"the predecessors from {source} to {target} do not lead back to {source}")
        vertices.append(at)
    vertices.reverse()
    return vertices


def paths(predecessors: Any, pairs: Any) -> List[List[int]]:
    """The paths of many (source, target) pairs from one predecessor matrix, as :func:`path` gives each.

    Parameters
    ----------
    predecessors : array_like of int, shape (N, N)
        A predecessor matrix (``shortest_path(..., return_predecessors=True)``).
    pairs : array_like of int, shape (K, 2)
        One (source, target) pair a row; negative values count from the end.

    Returns
    -------
    list of K lists of int
        ``[source, ..., target]`` for each pair, ``[]`` where unreachable.

    Raises
    ------
    ValueError
        ``pairs`` not of shape (K, 2), or as :func:`path` for any pair
        (checked before any path is followed).
    """
    pred = np.asarray(predecessors)
    wanted = np.asarray(pairs)
    if wanted.size == 0:
        return []
    if wanted.ndim != 2 or wanted.shape[1] != 2 or wanted.dtype.kind not in "iu":
        raise ValueError(f"pairs must be integers of shape (K, 2), got {wanted.dtype} of shape {wanted.shape}")
    if pred.ndim != 2 or pred.shape[0] != pred.shape[1]:
        raise ValueError(f"predecessors must have shape (N, N), got {pred.shape}")
    n = pred.shape[0]
    if (wanted < -n).any() or (wanted >= n).any():
        raise ValueError(f"pairs hold vertices outside 0..{n - 1}")
    return [path(pred, int(s), int(t)) for s, t in wanted]
