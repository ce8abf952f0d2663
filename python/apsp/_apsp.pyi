# Type stubs of the nanobind extension apsp._apsp (python/src/module.cpp).
from typing import Any, Callable, Optional

import numpy as np
import numpy.typing as npt

INF: int

class Graph:
    """A normalized graph: edges sorted, duplicates at their lightest, no self-loops."""
    @property
    def n(self) -> int: ...
    @property
    def m(self) -> int: ...
    @property
    def weights(self) -> str: ...
    @property
    def min_weight(self) -> float: ...
    def with_source_vertex(self, targets: list[int]) -> Graph: ...
    def csr(
        self,
    ) -> tuple[int, npt.NDArray[np.int64], npt.NDArray[np.int32], npt.NDArray[Any]]: ...

class SolveRequest:
    algorithm: str
    backend: str
    device: int
    precision: str
    threads: int
    predecessors: bool
    sources: Optional[list[int]]
    progress: Callable[[float], Any]
    dtype: str
    limit: Optional[float]
    def __init__(self) -> None: ...

def graph_from_dense(csgraph: npt.NDArray[Any], directed: bool, unweighted: bool) -> Graph: ...
def graph_from_coo(
    n: int, row: npt.NDArray[Any], col: npt.NDArray[Any], data: npt.NDArray[Any], directed: bool, unweighted: bool
) -> Graph: ...
def graph_from_csr(
    n: int,
    indptr: npt.NDArray[Any],
    indices: npt.NDArray[Any],
    data: npt.NDArray[Any],
    directed: bool,
    unweighted: bool,
    transposed: bool,
) -> Graph: ...
def read_graph(
    path: str, format: Optional[str] = None, undirected: bool = False, no_edge: Optional[int] = None
) -> Graph: ...
def solve(
    graph: Graph, request: SolveRequest
) -> tuple[npt.NDArray[Any], Optional[npt.NDArray[np.int32]], dict[str, Any]]: ...
def _cxx_solve_seconds(graph: Graph, request: SolveRequest) -> float:
    """Private, for bench/python_bench.py only (not an API): the wall seconds
    of the plain C++ solve of ``graph`` with ``request``'s options into the
    library's own host matrix (int32 distances for integer weights), as a C++
    user would call it, without the GIL or a progress callback; the result is
    freed after the clock stops."""
    ...

def choose_backend(graph: Graph, request: SolveRequest) -> str: ...
def verify(graph: Graph, dist: npt.NDArray[Any], pred: Optional[npt.NDArray[Any]] = None) -> Optional[str]: ...
def algorithms(backend: str = "auto") -> list[str]: ...
def cuda_compiled_in() -> bool: ...
def cuda_device_count() -> int: ...
