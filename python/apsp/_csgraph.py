"""The scipy.sparse.csgraph-compatible layer over the C++ engine (apsp._apsp).

Same names, arguments, results and errors as scipy's ``shortest_path``,
``floyd_warshall``, ``dijkstra``, ``bellman_ford`` and ``johnson``; the
keyword-only extras choose apsp's backend, device, algorithm, precision,
result dtype, progress display and threads.
"""

from __future__ import annotations

import sys
import threading
import warnings
from typing import Any, Callable, Literal, Optional, Sequence, Tuple, Union, overload

import numpy as np
import numpy.typing as npt

from . import _apsp
from ._errors import VerifyError

#: int32 results (``dtype=np.int32``) mark an unreachable pair with this value (2**30 - 1).
INF: int = _apsp.INF

#: scipy's predecessor value for "none" (the source itself, or unreachable).
NO_PREDECESSOR: int = -9999

Method = Literal["auto", "FW", "D", "BF", "J"]
Backend = Literal["auto", "cpu", "cuda"]
Precision = Literal["auto", "int32", "int16", "int64"]
Progress = Union[bool, Callable[[float], Any], None]
Indices = Union[int, Sequence[int], npt.NDArray[np.integer[Any]], None]
DType = Union[str, type, np.dtype[Any], None]
Matrix = npt.NDArray[Any]

# What the engine reported about this thread's last solve (algorithm, backend,
# precision, note, stages, solve_seconds): see last_solve_info().
_last = threading.local()


def last_solve_info() -> dict[str, Any]:
    """What the engine did in this thread's last solve.

    Returns
    -------
    dict
        ``algorithm``, ``backend`` and ``precision`` that ran, ``note`` (why
        the result was reached another way, or empty), ``stages`` (name ->
        seconds, as in the CLI's summary) and ``solve_seconds`` (the wall
        time of the C++ solve, without reading the input; the conversion of
        the rows into the returned arrays is included, as it runs while the
        engine delivers them). Empty before the first solve.
    """
    return dict(getattr(_last, "info", {}))


# scipy's method codes and the CPU algorithm each one runs.
_CPU_ALGORITHM = {"D": "dijkstra", "BF": "bellman-ford", "J": "johnson"}
_DTYPES = {"float64": "float64", "float32": "float32", "int32": "int32"}


def _graph(csgraph: Any, directed: bool, unweighted: bool) -> Any:
    """The engine's normalized graph of a scipy.sparse matrix or array, or of a dense array.

    Sparse input: every stored entry is an edge (an explicit zero too); CSR,
    CSC and COO are read in place, other formats through ``tocsr()``. Dense
    input (anything ``np.asarray`` takes): 0, inf and NaN mean "no edge";
    the array is read in place in any memory order and dtype.
    """
    if isinstance(csgraph, _apsp.Graph):
        return csgraph
    sparse = sys.modules.get("scipy.sparse")
    if sparse is not None and sparse.issparse(csgraph):
        if csgraph.ndim != 2 or csgraph.shape[0] != csgraph.shape[1]:
            raise ValueError(f"compressed-sparse graph must be of shape (N, N), got {csgraph.shape}")
        n = int(csgraph.shape[0])
        fmt = csgraph.format
        if fmt not in ("csr", "csc", "coo"):
            csgraph, fmt = csgraph.tocsr(), "csr"
        if fmt == "coo":
            return _apsp.graph_from_coo(n, csgraph.row, csgraph.col, csgraph.data, directed, unweighted)
        return _apsp.graph_from_csr(
            n, csgraph.indptr, csgraph.indices, csgraph.data, directed, unweighted, fmt == "csc"
        )
    if isinstance(csgraph, np.ma.MaskedArray):
        csgraph = csgraph.filled(0)  # masked cells are "no edge", as in scipy
    dense = np.asarray(csgraph)
    if dense.dtype == object or np.iscomplexobj(dense) or dense.dtype.kind not in "biuf" or dense.dtype.itemsize > 8:
        dense = np.asarray(dense, dtype=np.float64)
    elif dense.dtype == np.float16:
        dense = dense.astype(np.float32)
    if dense.ndim != 2 or dense.shape[0] != dense.shape[1]:
        raise ValueError(f"graph should have two dimensions of equal length, got shape {dense.shape}")
    return _apsp.graph_from_dense(dense, directed, unweighted)


def _sources(indices: Indices, n: int) -> Tuple[Optional[list[int]], bool]:
    """The source list for the engine (None = every vertex) and whether the result is 1-d.

    Negative indices count from the end, as in scipy; others outside 0..n-1
    are a ValueError.
    """
    if indices is None:
        return None, False
    array = np.asarray(indices)
    if array.size and array.dtype.kind not in "iu" and not (array.dtype.kind == "f" and np.all(array == np.floor(array))):
        raise ValueError(f"indices must be integers, got {array.dtype}")
    scalar = array.ndim == 0
    array = array.reshape(-1).astype(np.int64)
    array = np.where(array < 0, array + n, array)
    if array.size and (array.min() < 0 or array.max() >= n):
        raise ValueError(f"indices out of range 0...{n - 1}")
    return array.tolist(), scalar


def _progress(progress: Progress) -> Tuple[Optional[Callable[[float], Any]], Callable[[], None]]:
    """The engine's progress callback for ``progress=`` and what closes it afterwards."""
    if progress is None or progress is False:
        return None, lambda: None
    if callable(progress) and progress is not True:
        return progress, lambda: None
    try:
        from tqdm.auto import tqdm
    except ImportError:
        shown = [-1]

        def line(fraction: float) -> None:
            percent = int(fraction * 100)
            if percent != shown[0]:
                shown[0] = percent
                print(f"\rapsp: {percent:3d}%", end="" if percent < 100 else "\n", file=sys.stderr, flush=True)

        return line, lambda: None
    bar = tqdm(total=1000, desc="apsp", unit="‰", leave=False)

    def advance(fraction: float) -> None:
        bar.update(int(fraction * 1000) - bar.n)

    return advance, bar.close


def _request(
    algorithm: str,
    backend: str,
    device: int,
    precision: str,
    threads: int,
    predecessors: bool,
    sources: Optional[list[int]],
    dtype: DType,
    limit: Optional[float],
) -> Any:
    request = _apsp.SolveRequest()
    request.algorithm = algorithm
    request.backend = backend
    request.device = device
    request.precision = precision
    request.threads = threads
    request.predecessors = predecessors
    request.sources = sources
    name = "float64" if dtype is None else np.dtype(dtype).name
    if name not in _DTYPES:
        raise ValueError(f"dtype: expected float64, float32 or int32, got {name}")
    request.dtype = name
    request.limit = limit
    return request


def _algorithm(method: str, algorithm: Optional[str], backend: str, graph: Any, request: Any) -> Tuple[str, str]:
    """The (algorithm, backend) that scipy's ``method`` stands for, unless ``algorithm=`` names one."""
    if algorithm is not None:
        return algorithm, backend
    if method == "auto":
        return "auto", backend
    if method == "FW":
        if backend == "auto":
            request.algorithm = "auto"
            backend = _apsp.choose_backend(graph, request)
        return ("fw" if backend == "cuda" else "fw-blocked"), backend
    if method not in _CPU_ALGORITHM:
        raise ValueError(f"unrecognized method '{method}'")
    if backend == "cuda":
        return "auto", backend  # the GPU's production solver computes what every method does
    name = _CPU_ALGORITHM[method]
    if name == "dijkstra" and graph.min_weight < 0:
        warnings.warn(
            "Graph has negative weights: dijkstra would not be exact; apsp runs johnson instead",
            UserWarning,
            stacklevel=4,
        )
        name = "johnson"
    return name, "cpu"


def _solve(
    csgraph: Any,
    method: str,
    directed: bool,
    return_predecessors: bool,
    unweighted: bool,
    indices: Indices,
    limit: Optional[float],
    backend: Backend,
    device: int,
    algorithm: Optional[str],
    precision: Precision,
    dtype: DType,
    progress: Progress,
    threads: int,
) -> Any:
    if method == "FW" and indices is not None:
        raise ValueError("Cannot specify indices with method == 'FW'.")
    if limit is not None and not limit >= 0:
        raise ValueError("'limit' must be >= 0")
    graph = _graph(csgraph, directed, unweighted)
    sources, scalar = _sources(indices, graph.n)
    request = _request("auto", backend, device, precision, threads, return_predecessors, sources, dtype, limit)
    request.algorithm, request.backend = _algorithm(method, algorithm, backend, graph, request)
    if sources == []:  # the engine reads an empty list as "every source"
        dist = np.empty((0, graph.n), dtype=request.dtype)
        pred = np.empty((0, graph.n), dtype=np.int32) if return_predecessors else None
        return (dist, pred) if return_predecessors else dist
    callback, close = _progress(progress)
    if callback is not None:
        request.progress = callback
    try:
        dist, pred, _last.info = _apsp.solve(graph, request)
    finally:
        close()
    if scalar:
        dist = dist[0]
        pred = None if pred is None else pred[0]
    return (dist, pred) if return_predecessors else dist


@overload
def shortest_path(
    csgraph: Any,
    method: Method = ...,
    directed: bool = ...,
    return_predecessors: Literal[False] = ...,
    unweighted: bool = ...,
    overwrite: bool = ...,
    indices: Indices = ...,
    *,
    backend: Backend = ...,
    device: int = ...,
    algorithm: Optional[str] = ...,
    precision: Precision = ...,
    dtype: DType = ...,
    progress: Progress = ...,
    threads: int = ...,
) -> Matrix: ...
@overload
def shortest_path(
    csgraph: Any,
    method: Method = ...,
    directed: bool = ...,
    *,
    return_predecessors: Literal[True],
    unweighted: bool = ...,
    overwrite: bool = ...,
    indices: Indices = ...,
    backend: Backend = ...,
    device: int = ...,
    algorithm: Optional[str] = ...,
    precision: Precision = ...,
    dtype: DType = ...,
    progress: Progress = ...,
    threads: int = ...,
) -> Tuple[Matrix, Matrix]: ...
def shortest_path(
    csgraph: Any,
    method: Method = "auto",
    directed: bool = True,
    return_predecessors: bool = False,
    unweighted: bool = False,
    overwrite: bool = False,
    indices: Indices = None,
    *,
    backend: Backend = "auto",
    device: int = 0,
    algorithm: Optional[str] = None,
    precision: Precision = "auto",
    dtype: DType = None,
    progress: Progress = None,
    threads: int = 0,
) -> Union[Matrix, Tuple[Matrix, Matrix]]:
    """Shortest-path distances between the vertices of a graph (scipy.sparse.csgraph.shortest_path).

    Parameters
    ----------
    csgraph : array_like or sparse matrix, shape (N, N)
        The graph. Dense: entry ``[i, j]`` is the weight of edge i -> j, and
        0, inf and NaN mean no edge. scipy.sparse matrix or array (CSR, CSC
        and COO read in place, other formats through ``tocsr()``): every
        stored entry is an edge, an explicit zero a zero-weight one.
    method : {'auto', 'FW', 'D', 'BF', 'J'}, optional
        'FW' Floyd-Warshall (apsp's ``fw-blocked`` on the CPU, ``fw`` on the
        GPU), 'D' Dijkstra (``dijkstra``; ``johnson``, with a warning, when a
        weight is negative), 'BF' Bellman-Ford (``bellman-ford``), 'J'
        Johnson (``johnson``), 'auto' apsp's choice of backend and algorithm.
    directed : bool, optional
        If False, edge i -> j can be used from j to i too (the lighter of
        ``[i, j]`` and ``[j, i]`` counts).
    return_predecessors : bool, optional
        Also return the predecessor matrix.
    unweighted : bool, optional
        Every edge has weight 1 (hop counts).
    overwrite : bool, optional
        Accepted for compatibility; the input is never modified.
    indices : int or array_like of int, optional
        Compute only the rows of these sources (not with method 'FW'); a
        scalar gives 1-d results. Negative values count from the end.

    Returns
    -------
    dist_matrix : ndarray, shape (N, N) or (len(indices), N)
        Distances, float64 with ``inf`` for unreachable pairs (see ``dtype``).
    predecessors : ndarray of int32, same shape
        Returned with ``return_predecessors=True``: ``[i, j]`` is the vertex
        before j on a shortest path from i (row i's source), -9999 if none.

    Other Parameters
    ----------------
    backend : {'auto', 'cpu', 'cuda'}
        Where to solve: 'auto' picks the GPU for large graphs when one is present.
    device : int
        CUDA device ordinal.
    algorithm : str, optional
        Any apsp algorithm by name (``apsp.algorithms()``: the CPU ones and
        the GPU kernels); overrides ``method``.
    precision : {'auto', 'int32', 'int16', 'int64'}
        Arithmetic width: 'int16' is the GPU's packed mode, 'int64' a CPU mode.
    dtype : {None, np.float64, np.float32, np.int32}
        The distances' type: float64 (default, as scipy), float32 (half the
        memory, exact below 2**24), or int32 with ``apsp.INF`` for unreachable,
        the engine's own buffer handed over without conversion.
    progress : bool or callable
        True: a tqdm bar when tqdm is installed, else a percentage on stderr;
        a callable gets the fraction done (0..1), about every 100 ms.
    threads : int
        CPU threads (0: OpenMP's default).

    Raises
    ------
    NegativeCycleError
        The graph has a negative cycle (a subclass of scipy's class).
    ValueError
        Bad input or options (e.g. ``indices`` with method 'FW').
    KeyboardInterrupt
        Ctrl-C during the solve (it stops within about a second).

    Notes
    -----
    The GIL is released while solving. Integer weights (floats with integer
    values too) are solved exactly in int32 arithmetic (int64 where sums
    could overflow); real weights in float64, on the CPU or the GPU.

    Examples
    --------
    >>> import numpy as np, apsp
    >>> apsp.shortest_path(np.array([[0, 1, 0], [0, 0, 2], [0, 0, 0]]))
    array([[ 0.,  1.,  3.],
           [inf,  0.,  2.],
           [inf, inf,  0.]])
    """
    del overwrite
    return _solve(
        csgraph, method, directed, return_predecessors, unweighted, indices, None,
        backend, device, algorithm, precision, dtype, progress, threads,
    )  # fmt: skip


@overload
def floyd_warshall(
    csgraph: Any,
    directed: bool = ...,
    return_predecessors: Literal[False] = ...,
    unweighted: bool = ...,
    overwrite: bool = ...,
    *,
    backend: Backend = ...,
    device: int = ...,
    algorithm: Optional[str] = ...,
    precision: Precision = ...,
    dtype: DType = ...,
    progress: Progress = ...,
    threads: int = ...,
) -> Matrix: ...
@overload
def floyd_warshall(
    csgraph: Any,
    directed: bool = ...,
    *,
    return_predecessors: Literal[True],
    unweighted: bool = ...,
    overwrite: bool = ...,
    backend: Backend = ...,
    device: int = ...,
    algorithm: Optional[str] = ...,
    precision: Precision = ...,
    dtype: DType = ...,
    progress: Progress = ...,
    threads: int = ...,
) -> Tuple[Matrix, Matrix]: ...
def floyd_warshall(
    csgraph: Any,
    directed: bool = True,
    return_predecessors: bool = False,
    unweighted: bool = False,
    overwrite: bool = False,
    *,
    backend: Backend = "auto",
    device: int = 0,
    algorithm: Optional[str] = None,
    precision: Precision = "auto",
    dtype: DType = None,
    progress: Progress = None,
    threads: int = 0,
) -> Union[Matrix, Tuple[Matrix, Matrix]]:
    """All-pairs distances by Floyd-Warshall (scipy.sparse.csgraph.floyd_warshall).

    ``shortest_path(csgraph, method='FW', ...)``: see :func:`shortest_path`
    for the parameters, the extras and the results.
    """
    del overwrite
    return _solve(
        csgraph, "FW", directed, return_predecessors, unweighted, None, None,
        backend, device, algorithm, precision, dtype, progress, threads,
    )  # fmt: skip


def dijkstra(
    csgraph: Any,
    directed: bool = True,
    indices: Indices = None,
    return_predecessors: bool = False,
    unweighted: bool = False,
    limit: float = np.inf,
    min_only: bool = False,
    *,
    backend: Backend = "auto",
    device: int = 0,
    algorithm: Optional[str] = None,
    precision: Precision = "auto",
    dtype: DType = None,
    progress: Progress = None,
    threads: int = 0,
) -> Any:
    """Distances from some or all sources by Dijkstra (scipy.sparse.csgraph.dijkstra).

    Parameters
    ----------
    csgraph, directed, indices, return_predecessors, unweighted
        As in :func:`shortest_path`.
    limit : float, optional
        Pairs farther apart than this are reported unreachable (inf, -9999).
    min_only : bool, optional
        Return, for every vertex, the distance from the nearest of
        ``indices`` (all vertices when None) instead of one row per source.

    Returns
    -------
    dist_matrix : ndarray
        Shape (N, N), (len(indices), N), or (N,) with ``min_only``.
    predecessors : ndarray of int32
        With ``return_predecessors=True``; same shape as ``dist_matrix``.
    sources : ndarray of int32, shape (N,)
        With ``min_only`` and ``return_predecessors``: the source each
        vertex's distance is from, -9999 where unreachable.

    Notes
    -----
    Negative weights: scipy warns and may be wrong; apsp warns and runs
    Johnson's algorithm, which is exact (or raises NegativeCycleError).
    The extras are those of :func:`shortest_path`.
    """
    bound = None if limit is None or np.isinf(limit) else float(limit)
    if not min_only:
        return _solve(
            csgraph, "D", directed, return_predecessors, unweighted, indices, bound,
            backend, device, algorithm, precision, dtype, progress, threads,
        )  # fmt: skip
    if bound is not None and not bound >= 0:
        raise ValueError("'limit' must be >= 0")
    graph = _graph(csgraph, directed, unweighted)
    n = graph.n
    targets, _ = _sources(indices, n)
    if targets is None:
        targets = list(range(n))
    # One search from an added vertex n with zero-weight edges to every target.
    extended = graph.with_source_vertex(targets)
    request = _request(
        "auto", backend, device, precision, threads, True, [n], dtype, bound
    )  # fmt: skip
    request.algorithm, request.backend = _algorithm("D", algorithm, backend, extended, request)
    callback, close = _progress(progress)
    if callback is not None:
        request.progress = callback
    try:
        dist, pred, _last.info = _apsp.solve(extended, request)
    finally:
        close()
    dist = dist[0, :n]
    pred = pred[0, :n].copy()
    vertices = np.arange(n, dtype=np.int64)
    from_target = pred == n
    pred[from_target] = NO_PREDECESSOR
    # Each vertex's source: follow predecessors to the vertex reached straight from n.
    root = np.where(from_target, vertices, pred.astype(np.int64))
    while True:
        hop = np.where(root >= 0, root[np.maximum(root, 0)], root)
        hop[from_target] = vertices[from_target]
        if np.array_equal(hop, root):
            break
        root = hop
    sources = np.where(root >= 0, root, NO_PREDECESSOR).astype(np.int32)
    if return_predecessors:
        return dist, pred, sources
    return dist


def bellman_ford(
    csgraph: Any,
    directed: bool = True,
    indices: Indices = None,
    return_predecessors: bool = False,
    unweighted: bool = False,
    *,
    backend: Backend = "auto",
    device: int = 0,
    algorithm: Optional[str] = None,
    precision: Precision = "auto",
    dtype: DType = None,
    progress: Progress = None,
    threads: int = 0,
) -> Any:
    """Distances by Bellman-Ford, negative weights allowed (scipy.sparse.csgraph.bellman_ford).

    ``shortest_path(csgraph, method='BF', ...)``: see :func:`shortest_path`.
    """
    return _solve(
        csgraph, "BF", directed, return_predecessors, unweighted, indices, None,
        backend, device, algorithm, precision, dtype, progress, threads,
    )  # fmt: skip


def johnson(
    csgraph: Any,
    directed: bool = True,
    indices: Indices = None,
    return_predecessors: bool = False,
    unweighted: bool = False,
    *,
    backend: Backend = "auto",
    device: int = 0,
    algorithm: Optional[str] = None,
    precision: Precision = "auto",
    dtype: DType = None,
    progress: Progress = None,
    threads: int = 0,
) -> Any:
    """Distances by Johnson's algorithm, negative weights allowed (scipy.sparse.csgraph.johnson).

    ``shortest_path(csgraph, method='J', ...)``: see :func:`shortest_path`.
    """
    return _solve(
        csgraph, "J", directed, return_predecessors, unweighted, indices, None,
        backend, device, algorithm, precision, dtype, progress, threads,
    )  # fmt: skip


def read_graph(
    path: str, *, format: Optional[str] = None, directed: bool = True, no_edge: Optional[int] = None
) -> Any:
    """Read a graph file in any format the ``apsp`` CLI reads, as a scipy.sparse.csr_matrix.

    Parameters
    ----------
    path : str
        The file: .bin (NTHU), .gr (DIMACS), .mtx, .txt/.el/.edges, .npy, .mat/.dense.
    format : str, optional
        The format's name when the extension does not say it (as ``--format``).
    directed : bool, optional
        If False, every edge is added in both directions (as ``--undirected``).
    no_edge : int, optional
        The "no edge" value of dense inputs (as ``--no-edge``; default -1).

    Returns
    -------
    scipy.sparse.csr_matrix of int32, shape (N, N)
        Normalized: duplicates at their lightest, no self-loops; zero-weight
        edges are explicit zeros.
    """
    from scipy.sparse import csr_matrix

    n, indptr, indices, weights = _apsp.read_graph(path, format, not directed, no_edge).csr()
    return csr_matrix((weights, indices, indptr), shape=(n, n))


def verify(
    csgraph: Any,
    dist_matrix: Any,
    predecessors: Any = None,
    *,
    directed: bool = True,
    unweighted: bool = False,
) -> None:
    """Check a full distance matrix (and predecessors) against its graph in O(N * M).

    The certificate of ``apsp verify``: the diagonal is 0, every edge is
    relaxed, every finite distance is the weight of a real path, and the
    predecessors (when given) lead back to the source along such paths.

    Parameters
    ----------
    csgraph : array_like or sparse matrix
        The graph, as for :func:`shortest_path`.
    dist_matrix : array_like, shape (N, N)
        float with inf for unreachable, or int32 with ``apsp.INF``.
    predecessors : array_like of int, shape (N, N), optional
        With -9999 for "none".
    directed, unweighted : bool
        As for :func:`shortest_path`.

    Raises
    ------
    VerifyError
        Naming the first violation.
    """
    graph = _graph(csgraph, directed, unweighted)
    problem = _apsp.verify(graph, np.asarray(dist_matrix), None if predecessors is None else np.asarray(predecessors))
    if problem is not None:
        raise VerifyError(problem)


def algorithms(backend: Backend = "auto") -> list[str]:
    """The names ``algorithm=`` takes on ``backend`` ('auto': both backends)."""
    return list(_apsp.algorithms(backend))


def cuda_device_count() -> int:
    """The CUDA devices this build sees (0 without the CUDA backend or a GPU)."""
    return int(_apsp.cuda_device_count())
