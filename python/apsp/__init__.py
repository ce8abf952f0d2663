"""apsp: all-pairs shortest paths on the CPU and NVIDIA GPUs.

A drop-in for ``scipy.sparse.csgraph``'s shortest-path functions: replace

    from scipy.sparse.csgraph import shortest_path

with

    from apsp import shortest_path

and keep the code. See docs/python.md for the extras (backend, device,
algorithm, precision, dtype, progress, threads).
"""

from ._csgraph import (
    INF,
    INF16,
    NO_PREDECESSOR,
    algorithm_traits,
    algorithms,
    bellman_ford,
    cuda_device_count,
    dijkstra,
    floyd_warshall,
    johnson,
    last_solve_info,
    read_graph,
    shortest_path,
    solve_to_file,
    sparse_distances,
    verify,
)
from ._errors import NegativeCycleError, ResumeError, VerifyError
from ._paths import construct_dist_matrix, path, paths, reconstruct_path

__version__ = "0.1.0"

__all__ = [
    "INF",
    "INF16",
    "NO_PREDECESSOR",
    "NegativeCycleError",
    "ResumeError",
    "VerifyError",
    "algorithm_traits",
    "algorithms",
    "bellman_ford",
    "construct_dist_matrix",
    "cuda_device_count",
    "dijkstra",
    "floyd_warshall",
    "johnson",
    "last_solve_info",
    "path",
    "paths",
    "read_graph",
    "reconstruct_path",
    "shortest_path",
    "solve_to_file",
    "sparse_distances",
    "verify",
]
