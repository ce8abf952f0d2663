// One shortest path from a distance matrix (and optionally predecessors).
#pragma once

#include <cstdint>
#include <vector>

#include "apsp/graph.hpp"
#include "apsp/matrix.hpp"

namespace apsp {

// Vertices from `from` to `to` inclusive; empty if unreachable. `d` and
// `pred` are n*n row-major views (a vector, a HostVector, a mapped file). With
// `pred` (may be empty) it follows predecessors; otherwise it rebuilds the path
// from `d` and the graph's in-edges. Throws InputError if the graph is not
// normalized (check_normalized) or the matrices are inconsistent with it.
// Real weights (float32, float64): unreachable is +inf, and d[from][from],
// the weight of a predecessor path and the tight edges of a rebuilt one are
// tested within verify's rounding tolerance (VerifyReport::relative_tolerance
// times the row's largest |w| or |d|).
std::vector<vertex_t> shortest_path(const Graph& normalized, Span<const dist_t> d, Span<const vertex_t> pred,
                                    vertex_t from, vertex_t to);
std::vector<vertex_t> shortest_path(const GraphF32& normalized, Span<const float> d, Span<const vertex_t> pred,
                                    vertex_t from, vertex_t to);
std::vector<vertex_t> shortest_path(const GraphF64& normalized, Span<const double> d, Span<const vertex_t> pred,
                                    vertex_t from, vertex_t to);

}  // namespace apsp
