// One shortest path from a distance matrix (and optionally predecessors).
#pragma once

#include <cstdint>
#include <vector>

#include "apsp/graph.hpp"

namespace apsp {

// Vertices from `from` to `to` inclusive; empty if unreachable. With `pred`
// (n*n, may be empty) it follows predecessors; otherwise it rebuilds the path
// from `d` and the graph's in-edges. Throws InputError if the graph is not
// normalized (check_normalized) or the matrices are inconsistent with it.
std::vector<vertex_t> shortest_path(const Graph& normalized, const std::vector<dist_t>& d,
                                    const std::vector<vertex_t>& pred, vertex_t from, vertex_t to);

}  // namespace apsp
