"""The scipy.sparse.csgraph-compatible layer over the C++ engine (apsp._apsp).

Same names, arguments, results and errors as scipy's ``shortest_path``,
``floyd_warshall``, ``dijkstra``, ``bellman_ford`` and ``johnson``; the
keyword-only extras choose apsp's backend, device, algorithm, precision,
result dtype, progress display and threads.
"""

from __future__ import annotations

import functools
import operator
import os
import sys
import threading
import warnings
from typing import Any, Callable, Literal, Optional, Sequence, Tuple, Union, overload

import numpy as np
import numpy.typing as npt

from . import _apsp
from ._errors import ResumeError, VerifyError  # noqa: F401 (ResumeError: raised by the engine)

#: int32 results (``dtype=np.int32``) mark an unreachable pair with this value (2**30 - 1).
INF: int = _apsp.INF
#: int16 results (``dtype=np.int16``) mark an unreachable pair with this value (2**15 - 1).
INF16: int = 32767

#: scipy's predecessor value for "none" (the source itself, or unreachable).
NO_PREDECESSOR: int = -9999

Method = Literal["auto", "FW", "D", "BF", "J"]
Backend = Literal["auto", "cpu", "cuda", "gpu"]
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
        ``algorithm``, ``backend`` and ``precision`` that ran, ``weights``
        (the weight type solved in: ``int32`` or ``float64``), ``threads``
        (the CPU threads asked for, or OpenMP's default), ``note`` (why the
        result was reached another way, or empty), ``stages`` (name ->
        seconds, as in the CLI's summary) and ``solve_seconds`` (the wall
        time of the C++ solve, without reading the input; the conversion of
        the rows into the returned arrays is included, as it runs while the
        engine delivers them). Empty before the first solve.
    """
    return dict(getattr(_last, "info", {}))


# scipy's method codes and the CPU algorithm each one runs.
_CPU_ALGORITHM = {"D": "dijkstra", "BF": "bellman-ford", "J": "johnson"}
_DTYPES = {"float64": "float64", "float32": "float32", "int32": "int32", "int16": "int32"}


def _sparse_data(data: Any) -> Any:
    """Sparse data the engine reads: other dtypes (longdouble, complex, float16, object) as scipy converts them, float64."""
    if data.dtype.kind in "biu" or data.dtype in (np.float32, np.float64):
        return data
    return np.asarray(data).astype(np.float64)


def _graph(csgraph: Any, directed: bool, unweighted: bool, method: str = "auto") -> Any:
    """The engine's normalized graph of a scipy.sparse matrix or array, or of a dense array.

    Sparse input: every stored entry is an edge (an explicit zero too); CSR,
    CSC and COO are read in place, other formats through ``tocsr()``. Dense
    input (anything ``np.asarray`` takes): 0, |w| <= 1e-8, inf and NaN mean
    "no edge"; the array is read in place in any memory order and dtype. A
    masked array (scipy's rule): its unmasked cells are the edges, zeros
    too, except for method 'FW', which reads it as dense with the masked
    cells 0.
    """
    if isinstance(csgraph, _apsp.Graph):
        return csgraph
    directed, unweighted = bool(directed), bool(unweighted)
    sparse = sys.modules.get("scipy.sparse")
    if sparse is not None and sparse.issparse(csgraph):
        if csgraph.ndim != 2 or csgraph.shape[0] != csgraph.shape[1]:
            raise ValueError(f"compressed-sparse graph must be of shape (N, N), got {csgraph.shape}")
        n = int(csgraph.shape[0])
        fmt = csgraph.format
        if fmt not in ("csr", "csc", "coo"):
            csgraph, fmt = csgraph.tocsr(), "csr"
        data = _sparse_data(csgraph.data)
        if fmt == "coo":
            return _apsp.graph_from_coo(n, csgraph.row, csgraph.col, data, directed, unweighted)
        return _apsp.graph_from_csr(n, csgraph.indptr, csgraph.indices, data, directed, unweighted, fmt == "csc")
    if isinstance(csgraph, np.ma.MaskedArray):
        if method != "FW":
            values = np.ma.getdata(csgraph)
            if values.ndim != 2 or values.shape[0] != values.shape[1]:
                raise ValueError(f"graph should have two dimensions of equal length, got shape {values.shape}")
            row, col = np.nonzero(~np.ma.getmaskarray(csgraph))
            data = _sparse_data(values[row, col])
            return _apsp.graph_from_coo(int(values.shape[0]), row, col, data, directed, unweighted)
        csgraph = csgraph.filled(0)  # masked cells are "no edge", as in scipy
    dense = np.asarray(csgraph)
    if dense.dtype == object or np.iscomplexobj(dense) or dense.dtype.kind not in "biuf" or dense.dtype.itemsize > 8:
        dense = np.asarray(dense, dtype=np.float64)
    elif dense.dtype == np.float16:
        dense = dense.astype(np.float32)
    if dense.ndim != 2 or dense.shape[0] != dense.shape[1]:
        raise ValueError(f"graph should have two dimensions of equal length, got shape {dense.shape}")
    return _apsp.graph_from_dense(dense, directed, unweighted)


def _sources(indices: Indices, n: int) -> Tuple[Optional[list[int]], Optional[Tuple[int, ...]]]:
    """The source list for the engine (None = every vertex) and the shape of ``indices`` (None when not given).

    As scipy: float indices are truncated toward zero, negative ones count
    from the end, others outside 0..n-1 are a ValueError, and the results'
    leading dimensions are the shape of ``indices`` (a scalar: 1-d results).
    """
    if indices is None:
        return None, None
    array = np.asarray(indices)
    if array.size and array.dtype.kind not in "iuf":
        raise ValueError(f"indices must be integers, got {array.dtype}")
    if array.size and array.dtype.kind == "f" and not np.all(np.isfinite(array)):
        raise ValueError("indices must be finite")
    shape = tuple(int(k) for k in array.shape)
    array = array.reshape(-1).astype(np.int64)
    array = np.where(array < 0, array + n, array)
    if array.size and (array.min() < 0 or array.max() >= n):
        raise ValueError(f"indices out of range 0...{n - 1}")
    return array.tolist(), shape


def _shaped(result: Any, shape: Optional[Tuple[int, ...]], n: int) -> Any:
    """A (rows, n) result reshaped to ``indices``' shape + (n,), as scipy returns it (n: the column count)."""
    return result if shape is None or result is None else result.reshape(shape + (n,))


def _targets(targets: Indices, n: int) -> Optional[list[int]]:
    """The target list for the engine (None = every vertex): as ``indices`` (negative count from the end), 1-d."""
    if targets is None:
        return None
    try:
        listed, shape = _sources(targets, n)
    except ValueError as error:
        raise ValueError(str(error).replace("indices", "targets")) from None
    if shape is not None and len(shape) > 1:
        raise ValueError(f"targets must be a scalar or 1-d, got shape {shape}")
    return listed


def _index(name: str, value: Any) -> int:
    """``value`` as an int, or a TypeError naming the argument."""
    try:
        return operator.index(value)
    except TypeError:
        raise TypeError(f"{name} must be an integer, got {type(value).__name__}") from None


def _choice(name: str, value: Any, allowed: Tuple[str, ...]) -> str:
    """``value`` if it is one of ``allowed``, else a ValueError (TypeError for a non-string) naming the argument."""
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a string ({', '.join(allowed)}), got {type(value).__name__}")
    if value not in allowed:
        raise ValueError(f"{name}: expected one of {', '.join(allowed)}, got '{value}'")
    return value


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
    request.backend = _choice("backend", backend, ("auto", "cpu", "cuda", "gpu"))
    request.device = _index("device", device)
    request.precision = _choice("precision", precision, ("auto", "int32", "int16", "int64"))
    request.threads = _index("threads", threads)
    request.predecessors = bool(predecessors)
    request.sources = sources
    try:
        name = "float64" if dtype is None else np.dtype(dtype).name
    except TypeError:
        raise TypeError(f"dtype: expected float64, float32, int32 or int16, got {dtype!r}") from None
    if name not in _DTYPES:
        raise ValueError(f"dtype: expected float64, float32, int32 or int16, got {name}")
    request.dtype = _DTYPES[name]  # int16: solved into int32, narrowed by _narrow16
    request.limit = limit
    return request


@functools.lru_cache(maxsize=None)
def _production_algorithm(backend: str, work: str) -> str:
    """The name of ``backend``'s production algorithm whose work grows as ``work`` (registry traits, not names)."""
    for entry in _apsp.registry():
        if entry["backend"] == backend and entry["work"] == work and entry["role"] == "production":
            return str(entry["name"])
    raise ValueError(f"the {backend} backend has no production algorithm of work {work}")


def _narrow16(dist: Any) -> Any:
    """An int32 result as int16 (``INF`` becomes ``INF16``); ValueError where a distance is not below 2**15 - 1."""
    finite = dist != INF
    if np.any(finite & (np.abs(dist) >= INF16)):
        at = tuple(int(i) for i in np.argwhere(finite & (np.abs(dist) >= INF16))[0])
        raise ValueError(
            f"dtype: the distance {int(dist[at])} at {at} is not below 2**15 - 1 in magnitude: "
            "int16 would not be exact; use int32"
        )
    out = dist.astype(np.int16)
    out[~finite] = INF16
    return out


def _algorithm(method: str, algorithm: Optional[str], backend: str, graph: Any, request: Any) -> Tuple[str, str]:
    """The (algorithm, backend) that scipy's ``method`` stands for, unless ``algorithm=`` names one."""
    if backend == "gpu":
        backend = "cuda"
    if algorithm is not None:
        if not isinstance(algorithm, str):
            raise TypeError(f"algorithm must be a string, got {type(algorithm).__name__}")
        return algorithm, backend
    if method == "auto":
        return "auto", backend
    if method == "FW":
        if backend == "auto":
            request.algorithm = "auto"
            backend = _apsp.choose_backend(graph, request)
        return _production_algorithm(backend, "n^3"), backend
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


def _check_cycles(graph: Any, threads: int) -> None:
    """NegativeCycleError when ``graph`` has a negative cycle anywhere (a solve with no source, as scipy's, still checks).

    One Bellman-Ford search from an added vertex with a zero-weight edge to
    every vertex reaches every cycle.
    """
    if graph.n == 0 or graph.min_weight >= 0:
        return
    extended = graph.with_source_vertex(list(range(graph.n)))
    request = _request("bellman-ford", "cpu", 0, "auto", threads, False, [graph.n], None, None)
    _apsp.solve(extended, request)


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
    targets: Indices = None,
) -> Any:
    if not isinstance(method, str):
        raise TypeError(f"method must be a string, got {type(method).__name__}")
    if method == "FW" and indices is not None:
        raise ValueError("Cannot specify indices with method == 'FW'.")
    no_limit = limit is not None and np.isnan(limit)  # scipy: no pair is within a NaN limit but a source and itself
    if limit is not None and not no_limit and not limit >= 0:
        raise ValueError("'limit' must be >= 0")
    graph = _graph(csgraph, directed, unweighted, method)
    sources, shape = _sources(indices, graph.n)
    columns = _targets(targets, graph.n)
    width = graph.n if columns is None else len(columns)
    request = _request(
        "auto", backend, device, precision, threads, return_predecessors, sources, dtype, 0.0 if no_limit else limit
    )
    request.targets = columns
    narrow16 = dtype is not None and np.dtype(dtype) == np.int16
    request.algorithm, request.backend = _algorithm(method, algorithm, backend, graph, request)
    if sources == []:  # the engine reads an empty list as "every source"
        if method != "D":
            _check_cycles(graph, request.threads)
        dist = np.empty((0, width), dtype=np.int16 if narrow16 else request.dtype)
        pred = np.empty((0, width), dtype=np.int32) if return_predecessors else None
        dist, pred = _shaped(dist, shape, width), _shaped(pred, shape, width)
        return (dist, pred) if return_predecessors else dist
    callback, close = _progress(progress)
    if callback is not None:
        request.progress = callback
    try:
        dist, pred, _last.info = _apsp.solve(graph, request)
    finally:
        close()
    if no_limit:
        # Only each source's own column stays (where it is a target).
        own = np.asarray(sources if sources is not None else np.arange(dist.shape[0]))
        column_vertex = np.asarray(columns if columns is not None else np.arange(width))
        mine = own[:, None] == column_vertex[None, :]
        dist[~mine] = np.inf if dist.dtype.kind == "f" else INF
        if pred is not None:
            pred[...] = NO_PREDECESSOR
    if narrow16:
        dist = _narrow16(dist)
    dist, pred = _shaped(dist, shape, width), _shaped(pred, shape, width)
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
    targets: Indices = ...,
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
    method: Method,
    directed: bool,
    return_predecessors: Literal[True],
    unweighted: bool = ...,
    overwrite: bool = ...,
    indices: Indices = ...,
    *,
    targets: Indices = ...,
    backend: Backend = ...,
    device: int = ...,
    algorithm: Optional[str] = ...,
    precision: Precision = ...,
    dtype: DType = ...,
    progress: Progress = ...,
    threads: int = ...,
) -> Tuple[Matrix, Matrix]: ...
@overload
def shortest_path(
    csgraph: Any,
    method: Method = ...,
    directed: bool = ...,
    *,
    targets: Indices = ...,
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
@overload
def shortest_path(
    csgraph: Any,
    method: Method = ...,
    directed: bool = ...,
    return_predecessors: bool = ...,
    unweighted: bool = ...,
    overwrite: bool = ...,
    indices: Indices = ...,
    *,
    targets: Indices = ...,
    backend: Backend = ...,
    device: int = ...,
    algorithm: Optional[str] = ...,
    precision: Precision = ...,
    dtype: DType = ...,
    progress: Progress = ...,
    threads: int = ...,
) -> Union[Matrix, Tuple[Matrix, Matrix]]: ...
def shortest_path(
    csgraph: Any,
    method: Method = "auto",
    directed: bool = True,
    return_predecessors: bool = False,
    unweighted: bool = False,
    overwrite: bool = False,
    indices: Indices = None,
    *,
    targets: Indices = None,
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
        0, |w| <= 1e-8, +-inf and NaN mean no edge (scipy's rule). A masked
        array: the unmasked cells are edges, zeros too (method 'FW': as
        dense, masked cells 0). scipy.sparse matrix or array (CSR, CSC and
        COO read in place, other formats through ``tocsr()``; longdouble
        and complex data converted to float64 as scipy does): every stored
        entry is an edge, an explicit zero a zero-weight one; a stored inf
        or NaN is none (with ``unweighted``: an edge of length 1, as in
        scipy's D, BF and J), a stored -inf a ValueError.
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
        Compute only the rows of these sources (not with method 'FW'); the
        results' leading dimensions are ``indices``' shape (a scalar gives
        1-d results). Negative values count from the end; floats are
        truncated, as in scipy. An empty ``indices`` still checks the graph
        for a negative cycle.
    targets : int or array_like of int, optional
        (apsp extension, keyword only) Keep only the columns of these
        vertices, in this order: the results have ``len(targets)`` columns
        (column k: the distance to ``targets[k]``; predecessors stay vertex
        ids). The columns are cut as each block of rows is finished, so the
        (len(indices), N) matrix is never held. Negative values count from
        the end, as in ``indices``. With method 'FW' the whole matrix is
        computed, then sliced.

    Returns
    -------
    dist_matrix : ndarray, shape (N, N) or (len(indices), N) (N: len(targets) when given)
        Distances, float64 with ``inf`` for unreachable pairs (see ``dtype``).
    predecessors : ndarray of int32, same shape
        Returned with ``return_predecessors=True``: ``[i, j]`` is the vertex
        before j on a shortest path from i (row i's source), -9999 if none.

    Other Parameters
    ----------------
    backend : {'auto', 'cpu', 'cuda', 'gpu'}
        Where to solve: 'auto' picks the GPU for large graphs when one is
        present; 'gpu' is another name for 'cuda'.
    device : int
        CUDA device ordinal.
    algorithm : str, optional
        Any apsp algorithm by name (``apsp.algorithms()``: the CPU ones and
        the GPU kernels); overrides ``method``.
    precision : {'auto', 'int32', 'int16', 'int64'}
        Arithmetic width: 'int16' is the GPU's packed mode, 'int64' a CPU mode.
    dtype : {None, np.float64, np.float32, np.int32, np.int16}
        The distances' type: float64 (default, as scipy), float32 (half the
        memory, exact below 2**24), int32 with ``apsp.INF`` for unreachable,
        the engine's own buffer handed over without conversion, or int16 with
        ``apsp.INF16`` for unreachable (solved in int32 and narrowed; a
        distance of 2**15 - 1 or more is a ValueError).
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
    TypeError
        An argument of the wrong type (e.g. ``threads='4'``).
    MemoryError
        The result does not fit the memory available (the message names its size).
    KeyboardInterrupt
        Ctrl-C during the solve (it stops within about a second).

    Notes
    -----
    The GIL is released while solving. Integer weights (floats with integer
    values too) are solved exactly in int32 arithmetic (int64 where sums
    could overflow) when int32 distances can hold every answer, that is when
    (N - 1) * max|w| < 2**30 - 1; other graphs (real weights, larger integer
    ones, int64 weights beyond int32) are solved in float64, on the CPU or
    the GPU, as scipy does: integer distances are exact below 2**53.

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
        backend, device, algorithm, precision, dtype, progress, threads, targets,
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
    directed: bool,
    return_predecessors: Literal[True],
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
) -> Tuple[Matrix, Matrix]: ...
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
@overload
def floyd_warshall(
    csgraph: Any,
    directed: bool = ...,
    return_predecessors: bool = ...,
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
) -> Union[Matrix, Tuple[Matrix, Matrix]]: ...
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


@overload
def dijkstra(
    csgraph: Any,
    directed: bool = ...,
    indices: Indices = ...,
    return_predecessors: Literal[False] = ...,
    unweighted: bool = ...,
    limit: float = ...,
    min_only: bool = ...,
    *,
    targets: Indices = ...,
    backend: Backend = ...,
    device: int = ...,
    algorithm: Optional[str] = ...,
    precision: Precision = ...,
    dtype: DType = ...,
    progress: Progress = ...,
    threads: int = ...,
) -> Matrix: ...
@overload
def dijkstra(
    csgraph: Any,
    directed: bool,
    indices: Indices,
    return_predecessors: Literal[True],
    unweighted: bool = ...,
    limit: float = ...,
    min_only: Literal[False] = ...,
    *,
    targets: Indices = ...,
    backend: Backend = ...,
    device: int = ...,
    algorithm: Optional[str] = ...,
    precision: Precision = ...,
    dtype: DType = ...,
    progress: Progress = ...,
    threads: int = ...,
) -> Tuple[Matrix, Matrix]: ...
@overload
def dijkstra(
    csgraph: Any,
    directed: bool = ...,
    indices: Indices = ...,
    *,
    targets: Indices = ...,
    return_predecessors: Literal[True],
    unweighted: bool = ...,
    limit: float = ...,
    min_only: Literal[False] = ...,
    backend: Backend = ...,
    device: int = ...,
    algorithm: Optional[str] = ...,
    precision: Precision = ...,
    dtype: DType = ...,
    progress: Progress = ...,
    threads: int = ...,
) -> Tuple[Matrix, Matrix]: ...
@overload
def dijkstra(
    csgraph: Any,
    directed: bool = ...,
    indices: Indices = ...,
    *,
    targets: Indices = ...,
    return_predecessors: Literal[True],
    unweighted: bool = ...,
    limit: float = ...,
    min_only: Literal[True],
    backend: Backend = ...,
    device: int = ...,
    algorithm: Optional[str] = ...,
    precision: Precision = ...,
    dtype: DType = ...,
    progress: Progress = ...,
    threads: int = ...,
) -> Tuple[Matrix, Matrix, Matrix]: ...
@overload
def dijkstra(
    csgraph: Any,
    directed: bool = ...,
    indices: Indices = ...,
    return_predecessors: bool = ...,
    unweighted: bool = ...,
    limit: float = ...,
    min_only: bool = ...,
    *,
    targets: Indices = ...,
    backend: Backend = ...,
    device: int = ...,
    algorithm: Optional[str] = ...,
    precision: Precision = ...,
    dtype: DType = ...,
    progress: Progress = ...,
    threads: int = ...,
) -> Union[Matrix, Tuple[Matrix, Matrix], Tuple[Matrix, Matrix, Matrix]]: ...
def dijkstra(
    csgraph: Any,
    directed: bool = True,
    indices: Indices = None,
    return_predecessors: bool = False,
    unweighted: bool = False,
    limit: float = np.inf,
    min_only: bool = False,
    *,
    targets: Indices = None,
    backend: Backend = "auto",
    device: int = 0,
    algorithm: Optional[str] = None,
    precision: Precision = "auto",
    dtype: DType = None,
    progress: Progress = None,
    threads: int = 0,
) -> Union[Matrix, Tuple[Matrix, Matrix], Tuple[Matrix, Matrix, Matrix]]:
    """Distances from some or all sources by Dijkstra (scipy.sparse.csgraph.dijkstra).

    Parameters
    ----------
    csgraph, directed, indices, return_predecessors, unweighted
        As in :func:`shortest_path`.
    limit : float, optional
        Pairs farther apart than this are reported unreachable (inf, -9999).
        For a sparse result holding only the pairs within it, see
        :func:`sparse_distances`.
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
            backend, device, algorithm, precision, dtype, progress, threads, targets,
        )  # fmt: skip
    if targets is not None:
        raise ValueError("targets= keeps columns of the per-source rows; min_only returns one row")
    no_limit = bound is not None and np.isnan(bound)  # as scipy: only the indices themselves are within it
    if no_limit:
        bound = 0.0
    if bound is not None and not bound >= 0:
        raise ValueError("'limit' must be >= 0")
    graph = _graph(csgraph, directed, unweighted, "D")
    n = graph.n
    origins, _ = _sources(indices, n)
    if origins is None:
        origins = list(range(n))
    # One search from an added vertex n with zero-weight edges to every target.
    extended = graph.with_source_vertex(origins)
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
    if no_limit:
        is_target = np.zeros(n, dtype=bool)
        is_target[origins] = True
        dist[~is_target] = np.inf if dist.dtype.kind == "f" else INF
        pred[...] = NO_PREDECESSOR
        sources = np.where(is_target, vertices, NO_PREDECESSOR).astype(np.int32)
    if return_predecessors:
        return dist, pred, sources
    return dist


@overload
def bellman_ford(
    csgraph: Any,
    directed: bool = ...,
    indices: Indices = ...,
    return_predecessors: Literal[False] = ...,
    unweighted: bool = ...,
    *,
    targets: Indices = ...,
    backend: Backend = ...,
    device: int = ...,
    algorithm: Optional[str] = ...,
    precision: Precision = ...,
    dtype: DType = ...,
    progress: Progress = ...,
    threads: int = ...,
) -> Matrix: ...
@overload
def bellman_ford(
    csgraph: Any,
    directed: bool,
    indices: Indices,
    return_predecessors: Literal[True],
    unweighted: bool = ...,
    *,
    targets: Indices = ...,
    backend: Backend = ...,
    device: int = ...,
    algorithm: Optional[str] = ...,
    precision: Precision = ...,
    dtype: DType = ...,
    progress: Progress = ...,
    threads: int = ...,
) -> Tuple[Matrix, Matrix]: ...
@overload
def bellman_ford(
    csgraph: Any,
    directed: bool = ...,
    indices: Indices = ...,
    *,
    targets: Indices = ...,
    return_predecessors: Literal[True],
    unweighted: bool = ...,
    backend: Backend = ...,
    device: int = ...,
    algorithm: Optional[str] = ...,
    precision: Precision = ...,
    dtype: DType = ...,
    progress: Progress = ...,
    threads: int = ...,
) -> Tuple[Matrix, Matrix]: ...
@overload
def bellman_ford(
    csgraph: Any,
    directed: bool = ...,
    indices: Indices = ...,
    return_predecessors: bool = ...,
    unweighted: bool = ...,
    *,
    targets: Indices = ...,
    backend: Backend = ...,
    device: int = ...,
    algorithm: Optional[str] = ...,
    precision: Precision = ...,
    dtype: DType = ...,
    progress: Progress = ...,
    threads: int = ...,
) -> Union[Matrix, Tuple[Matrix, Matrix]]: ...
def bellman_ford(
    csgraph: Any,
    directed: bool = True,
    indices: Indices = None,
    return_predecessors: bool = False,
    unweighted: bool = False,
    *,
    targets: Indices = None,
    backend: Backend = "auto",
    device: int = 0,
    algorithm: Optional[str] = None,
    precision: Precision = "auto",
    dtype: DType = None,
    progress: Progress = None,
    threads: int = 0,
) -> Union[Matrix, Tuple[Matrix, Matrix]]:
    """Distances by Bellman-Ford, negative weights allowed (scipy.sparse.csgraph.bellman_ford).

    ``shortest_path(csgraph, method='BF', ...)``: see :func:`shortest_path`.
    """
    return _solve(
        csgraph, "BF", directed, return_predecessors, unweighted, indices, None,
        backend, device, algorithm, precision, dtype, progress, threads, targets,
    )  # fmt: skip


@overload
def johnson(
    csgraph: Any,
    directed: bool = ...,
    indices: Indices = ...,
    return_predecessors: Literal[False] = ...,
    unweighted: bool = ...,
    *,
    targets: Indices = ...,
    backend: Backend = ...,
    device: int = ...,
    algorithm: Optional[str] = ...,
    precision: Precision = ...,
    dtype: DType = ...,
    progress: Progress = ...,
    threads: int = ...,
) -> Matrix: ...
@overload
def johnson(
    csgraph: Any,
    directed: bool,
    indices: Indices,
    return_predecessors: Literal[True],
    unweighted: bool = ...,
    *,
    targets: Indices = ...,
    backend: Backend = ...,
    device: int = ...,
    algorithm: Optional[str] = ...,
    precision: Precision = ...,
    dtype: DType = ...,
    progress: Progress = ...,
    threads: int = ...,
) -> Tuple[Matrix, Matrix]: ...
@overload
def johnson(
    csgraph: Any,
    directed: bool = ...,
    indices: Indices = ...,
    *,
    targets: Indices = ...,
    return_predecessors: Literal[True],
    unweighted: bool = ...,
    backend: Backend = ...,
    device: int = ...,
    algorithm: Optional[str] = ...,
    precision: Precision = ...,
    dtype: DType = ...,
    progress: Progress = ...,
    threads: int = ...,
) -> Tuple[Matrix, Matrix]: ...
@overload
def johnson(
    csgraph: Any,
    directed: bool = ...,
    indices: Indices = ...,
    return_predecessors: bool = ...,
    unweighted: bool = ...,
    *,
    targets: Indices = ...,
    backend: Backend = ...,
    device: int = ...,
    algorithm: Optional[str] = ...,
    precision: Precision = ...,
    dtype: DType = ...,
    progress: Progress = ...,
    threads: int = ...,
) -> Union[Matrix, Tuple[Matrix, Matrix]]: ...
def johnson(
    csgraph: Any,
    directed: bool = True,
    indices: Indices = None,
    return_predecessors: bool = False,
    unweighted: bool = False,
    *,
    targets: Indices = None,
    backend: Backend = "auto",
    device: int = 0,
    algorithm: Optional[str] = None,
    precision: Precision = "auto",
    dtype: DType = None,
    progress: Progress = None,
    threads: int = 0,
) -> Union[Matrix, Tuple[Matrix, Matrix]]:
    """Distances by Johnson's algorithm, negative weights allowed (scipy.sparse.csgraph.johnson).

    ``shortest_path(csgraph, method='J', ...)``: see :func:`shortest_path`.
    """
    return _solve(
        csgraph, "J", directed, return_predecessors, unweighted, indices, None,
        backend, device, algorithm, precision, dtype, progress, threads, targets,
    )  # fmt: skip


def sparse_distances(
    csgraph: Any,
    directed: bool = True,
    indices: Indices = None,
    limit: Optional[float] = None,
    nearest: Optional[int] = None,
    unweighted: bool = False,
    *,
    targets: Indices = None,
    method: Method = "auto",
    backend: Backend = "auto",
    device: int = 0,
    algorithm: Optional[str] = None,
    progress: Progress = None,
    threads: int = 0,
) -> Any:
    """The pairs within ``limit`` and/or each source's ``nearest`` targets, as a ``scipy.sparse.csr_array``.

    The sparse counterpart of ``dijkstra(..., limit=...)``: only the kept
    pairs are stored, so memory grows with what is kept (about 12 bytes a
    pair), not with ``len(indices) * N``. Rows are computed and cut as they
    are finished.

    Parameters
    ----------
    csgraph, directed, indices, unweighted
        As in :func:`shortest_path`; ``indices`` is a scalar or 1-d (the
        result always has one row per source).
    limit : float, optional
        Keep the distances ``<= limit`` (scipy's ``limit``, including the
        source's own 0).
    nearest : int, optional
        Keep the ``nearest`` smallest distances of each row (after
        ``limit``), ties to the lower column; the source itself counts (at
        distance 0) where it is a target.
    targets : int or array_like of int, optional
        Columns of these vertices only (as in :func:`shortest_path`).
    method, backend, device, algorithm, progress, threads
        As in :func:`shortest_path`.

    Returns
    -------
    scipy.sparse.csr_array of float64, shape (len(indices) or N, len(targets) or N)
        The kept distances, explicit zeros included (a source's distance to
        itself); unreachable and dropped pairs are not stored. Indices are
        sorted within each row.

    Raises
    ------
    ValueError
        Neither ``limit`` nor ``nearest``, a negative or NaN ``limit``, or
        ``nearest`` below 1; ``return_predecessors`` is not offered.
    """
    if limit is None and nearest is None:
        raise ValueError("sparse_distances needs limit, nearest or both (else use shortest_path)")
    if limit is not None:
        limit = float(limit)
        if not limit >= 0:
            raise ValueError("'limit' must be >= 0")
    if nearest is not None:
        nearest = _index("nearest", nearest)
        if nearest < 1:
            raise ValueError(f"'nearest' must be >= 1, got {nearest}")
    import scipy.sparse

    graph = _graph(csgraph, directed, unweighted, method)
    sources, shape = _sources(indices, graph.n)
    if shape is not None and len(shape) > 1:
        raise ValueError(f"indices must be a scalar or 1-d for a sparse result, got shape {shape}")
    columns = _targets(targets, graph.n)
    rows = graph.n if sources is None else len(sources)
    width = graph.n if columns is None else len(columns)
    request = _request("auto", backend, device, "auto", threads, False, sources, None, limit)
    request.targets = columns
    request.sparse = True
    request.nearest = 0 if nearest is None else nearest
    request.algorithm, request.backend = _algorithm(method, algorithm, backend, graph, request)
    if sources == []:
        if method != "D":
            _check_cycles(graph, request.threads)
        return scipy.sparse.csr_array((0, width), dtype=np.float64)
    callback, close = _progress(progress)
    if callback is not None:
        request.progress = callback
    try:
        (indptr, kept_columns, data), _, _last.info = _apsp.solve(graph, request)
    finally:
        close()
    if indptr[-1] < 2**31:
        # int32 offsets keep scipy from widening the column indices to int64 (4 more bytes a pair).
        indptr = indptr.astype(np.int32)
    return scipy.sparse.csr_array((data, kept_columns, indptr), shape=(rows, width))


def solve_to_file(
    csgraph: Any,
    path: Union[str, os.PathLike[str]],
    *,
    predecessors: Union[str, os.PathLike[str], None] = None,
    method: str = "auto",
    directed: bool = True,
    unweighted: bool = False,
    backend: Backend = "auto",
    device: int = 0,
    algorithm: Optional[str] = None,
    precision: Precision = "auto",
    progress: Progress = None,
    threads: int = 0,
    checkpoint: bool = False,
    resume: bool = False,
    checkpoint_every: Optional[float] = None,
) -> dict[str, Any]:
    """Solve every pair and write the matrices to files, as ``apsp solve -o PATH``; resumable after a kill.

    The distances go to ``path`` and the predecessors to ``predecessors``
    (when given), each in the format of its extension (``.npy`` or ``.bin``,
    as the CLI's ``-o`` and ``--predecessors``) and in the solve's own type:
    int32 with :data:`apsp.INF` for unreachable pairs when the graph is
    solved in integers (the rule of :func:`shortest_path`'s Notes), float64
    with ``inf`` otherwise; predecessors are int32 with -1 for none (the
    CLI's files; -9999 is scipy's, in memory). A
    file is renamed into place only when complete: a failed or killed solve
    leaves an existing file untouched.

    Parameters
    ----------
    csgraph : array_like or sparse array, shape (N, N)
        The graph, read as :func:`shortest_path` reads it.
    path : str
        The distances' file.
    predecessors : str, optional
        The predecessors' file; none are computed without it.
    method, directed, unweighted, backend, device, algorithm, precision, progress, threads
        As in :func:`shortest_path`.
    checkpoint : bool, optional
        Make the output resumable (the CLI's ``--checkpoint``): rows go to
        hidden partial files beside ``path`` with a journal of the row blocks
        written, which outlive a killed process; a dense solver (Floyd-Warshall)
        also saves its working matrix at a round boundary every
        ``checkpoint_every`` seconds.
    resume : bool, optional
        Continue what a killed resumable run of the same solve left (the
        CLI's ``--resume``; implies ``checkpoint``): only the rows its journal
        lacks are computed (or, for a dense solver, from its last valid
        round checkpoint). Without such a run, it starts afresh (the note in
        :func:`last_solve_info` says so). Damaged rows or checkpoints are
        detected and computed again.
    checkpoint_every : float, optional
        Seconds between a dense solver's round checkpoints (the CLI's
        ``--checkpoint-every``; default 300); implies ``checkpoint``.

    Returns
    -------
    dict
        :func:`last_solve_info` of the solve; its ``note`` says what a resume kept.

    Raises
    ------
    ResumeError
        ``resume`` of a run that was another solve: another graph (by its
        hash), algorithm, backend, precision, predecessors or file format.
        Nothing is written and the interrupted run's files stay.
    ValueError
        A format without resume support (text) with ``checkpoint`` or
        ``resume``, a ``checkpoint_every`` that is not positive, or the
        options :func:`shortest_path` refuses.
    """
    if not isinstance(method, str):
        raise TypeError(f"method must be a string, got {type(method).__name__}")
    if checkpoint_every is not None:
        checkpoint_every = float(checkpoint_every)
    graph = _graph(csgraph, directed, unweighted, method)
    request = _request("auto", backend, device, precision, threads, predecessors is not None, None, None, None)
    request.algorithm, request.backend = _algorithm(method, algorithm, backend, graph, request)
    resumable = bool(checkpoint) or bool(resume) or checkpoint_every is not None
    callback, close = _progress(progress)
    if callback is not None:
        request.progress = callback
    try:
        _last.info = _apsp.solve_to_file(
            graph,
            request,
            os.fspath(path),
            None if predecessors is None else os.fspath(predecessors),
            resumable,
            bool(resume),
            checkpoint_every,
        )
    finally:
        close()
    return dict(_last.info)


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
    scipy.sparse.csr_matrix, shape (N, N)
        int32 weights when they are integers whose distances int32 holds
        (the rule of :func:`shortest_path`'s Notes), float64 otherwise (real
        weights). Normalized: duplicates at their lightest, no self-loops;
        zero-weight edges are explicit zeros.
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
        float with inf for unreachable, or integers with ``apsp.INF`` (read
        without narrowing: a value int32 does not hold is a violation).
    predecessors : array_like of int, shape (N, N), optional
        Vertex numbers, -9999 for "none"; any other value (1.7, 2**32 + 1)
        is a violation.
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


def algorithm_traits(backend: Backend = "auto") -> list[dict[str, Any]]:
    """The registry's traits of every algorithm on ``backend`` ('auto': both, CPU first).

    One dict per algorithm: ``name`` (what ``algorithm=`` takes), ``backend``
    ('cpu' or 'cuda'), ``work`` ('n^3', 'n^3 log n', 'per source',
    'separators'), ``role`` ('production' or 'teaching'), ``weights`` (the
    weight types it solves: 'int32', 'float32', 'float64'), ``precisions``
    (the integer widths it computes integer graphs in: 'int16', 'int32',
    'int64'), and the bools ``predecessors``, ``block``, ``distributable``
    and ``available`` (compiled into this build).
    """
    wanted = _choice("backend", backend, ("auto", "cpu", "cuda", "gpu"))
    wanted = "cuda" if wanted == "gpu" else wanted
    return [dict(entry) for entry in _apsp.registry() if wanted == "auto" or entry["backend"] == wanted]


def cuda_device_count() -> int:
    """The CUDA devices this build sees (0 without the CUDA backend or a GPU)."""
    return int(_apsp.cuda_device_count())
