// Johnson vertex potentials: reweighting w'(u,v) = w(u,v) + h(u) - h(v) makes
// every weight non-negative and keeps every shortest path.
#pragma once

#include <cstdint>
#include <vector>

#include "apsp/graph.hpp"

namespace apsp {

// h(v) = shortest distance to v from a virtual source joined to every vertex by
// a zero-weight edge (so h <= 0). Bellman-Ford with a FIFO queue (SPFA).
// Throws NegativeCycleError naming a vertex on a negative cycle, InputError
// for a malformed `g` (check_csr).
std::vector<std::int64_t> johnson_potentials(const Csr& g);
// Real weights: the potentials in double (float32 weights summed in double).
// A cycle is negative by core::cycle_is_negative's rule (its own k edges sum
// below -k * u * sum|w|, u the weight type's unit roundoff), whatever n is.
std::vector<double> johnson_potentials(const CsrF32& g);
std::vector<double> johnson_potentials(const CsrF64& g);

}  // namespace apsp
