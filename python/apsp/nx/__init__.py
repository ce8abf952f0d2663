"""apsp as a networkx backend (``backend="apsp"``).

Installed with the package: the entry points ``networkx.backends`` (the
``BackendInterface`` below) and ``networkx.backend_info`` (``get_info``) in
pyproject.toml. Use it per call, ``nx.floyd_warshall_numpy(G, backend="apsp")``,
or for every call, ``nx.config.backend_priority.algos = ["apsp"]`` (or the
environment variable ``NETWORKX_BACKEND_PRIORITY=apsp``).

Where to solve is the backend's configuration, not a keyword (networkx
keeps ``backend=`` for the choice of backend):
``nx.config.backends.apsp.backend`` is ``"auto"`` (default: the GPU for
large graphs when one is present), ``"cpu"`` or ``"cuda"``;
``nx.config.backends.apsp.device`` the CUDA ordinal and
``nx.config.backends.apsp.threads`` the CPU threads (0: OpenMP's default).
See docs/python.md ("networkx").
"""

from __future__ import annotations

from typing import Any, Dict

from ._algorithms import FUNCTIONS
from ._graph import ApspGraph, convert_from_nx, convert_to_nx

__all__ = ["ApspGraph", "BackendInterface", "get_info"]

# Position of the ``weight`` argument of the Floyd-Warshall functions, which read it as an
# attribute name only (networkx's own ``d.get(weight, 1.0)``).
_FW_WEIGHT_POSITION = {"floyd_warshall_numpy": 2, "floyd_warshall": 1, "floyd_warshall_predecessor_and_distance": 1}

_COMMON = (
    "Distances are computed by the apsp engine (CPU or GPU, ``nx.config.backends.apsp.backend``). "
    "Node labels of any hashable type; multigraphs use the lightest parallel edge. "
    "Weights that are not finite real numbers run networkx's own code."
)

_DOCS = {
    "floyd_warshall_numpy": "Same array as networkx (``nodelist`` order); negative cycles run networkx's code.",
    "floyd_warshall": "Dicts of defaultdicts as networkx; negative cycles run networkx's code.",
    "floyd_warshall_predecessor_and_distance": (
        "Predecessors from the unique tight in-edge of each vertex; where shortest paths tie, "
        "or with a negative cycle, networkx's code runs."
    ),
    "all_pairs_dijkstra_path_length": "An iterator of (node, dict), solved a block of sources at a time; cutoff supported. Negative weights run networkx's code.",
    "all_pairs_dijkstra_path": "Paths where shortest paths are unique; a source with ties gets networkx's paths.",
    "all_pairs_dijkstra": "Lengths and paths, as all_pairs_dijkstra_path_length and all_pairs_dijkstra_path.",
    "single_source_dijkstra_path_length": "One engine row; cutoff supported. Negative weights run networkx's code.",
    "all_pairs_shortest_path_length": "Hop counts from the engine; cutoff supported.",
    "all_pairs_shortest_path": "Paths where shortest paths are unique; a source with ties gets networkx's paths.",
    "all_pairs_bellman_ford_path_length": "Negative weights; a negative cycle runs networkx's code (which raises where a source reaches it).",
    "all_pairs_bellman_ford_path": "As all_pairs_bellman_ford_path_length, paths as all_pairs_dijkstra_path.",
    "johnson": "NetworkXUnbounded on a negative cycle; where shortest paths tie, networkx's code runs.",
    "shortest_path_length": "The all-pairs forms and the single-source form; a target runs networkx's code.",
    "shortest_path": "The all-pairs form; a source or target runs networkx's code.",
}


def _weight_argument(name: str, args: Any, kwargs: Any) -> Any:
    if "weight" in kwargs:
        return kwargs["weight"]
    position = _FW_WEIGHT_POSITION[name]
    return args[position] if len(args) > position else "weight"


class BackendInterface:
    """The object of the ``networkx.backends`` entry point: one attribute per function served."""

    convert_from_nx = staticmethod(convert_from_nx)
    convert_to_nx = staticmethod(convert_to_nx)

    @staticmethod
    def can_run(name: str, args: Any, kwargs: Any) -> Any:
        if name not in FUNCTIONS:
            return f"apsp does not serve {name}"
        if name in _FW_WEIGHT_POSITION and callable(_weight_argument(name, args, kwargs)):
            return "networkx's Floyd-Warshall reads weight as an attribute name, not a callable"
        return True

    @staticmethod
    def should_run(name: str, args: Any, kwargs: Any) -> Any:
        return True


for _name, _function in FUNCTIONS.items():
    setattr(BackendInterface, _name, staticmethod(_function))

#: The object networkx loads.
backend_interface = BackendInterface()


def get_info() -> Dict[str, Any]:
    """The ``networkx.backend_info`` entry point: what apsp serves, and its configuration."""
    return {
        "backend_name": "apsp",
        "project": "apsp",
        "package": "apsp",
        "short_summary": "All-pairs shortest paths on the CPU and NVIDIA GPUs.",
        "description": _COMMON,
        "default_config": {"backend": "auto", "device": 0, "threads": 0},
        "functions": {name: {"additional_docs": _DOCS[name]} for name in FUNCTIONS},
    }
