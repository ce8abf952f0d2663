// The one rule that decides whether a cycle of a real-weighted graph is
// negative, and the host search that applies it. Every backend's
// negative-cycle decision for float32/float64 weights goes through here.
//
// The rule: a cycle C of k edges is negative when its weight, summed over C's
// own edges in long double with Neumaier compensation, is below
// -k * u * sum_{e in C} |w_e|, u the unit roundoff of the weight type (2^-24
// for float32, 2^-53 for float64). The tolerance depends only on C's own
// edges, never on n or on other edges, so isolated vertices cannot hide a
// cycle; a cycle whose weights sum to zero (0.1, 0.2, -0.3 style) is not
// negative even where rounding makes its computed sum slightly negative.
// Host-only.
#pragma once

#include <cstdint>
#include <vector>

#include "apsp/graph.hpp"

namespace apsp::core {

// Whether the cycle whose edge weights are `weights` (k = weights.size()
// edges, in the graph's weight type) is negative by the rule above.
template <class W>
bool cycle_is_negative(const std::vector<W>& weights);

// A vertex on a cycle of `g` that is negative by the rule, or -1. A
// Bellman-Ford from a virtual source without slack finds a cycle the labels
// keep falling around; the rule then judges that cycle's own edges. O(n * m)
// at worst: meant for the rare path where a solver has a candidate (a
// diagonal entry below 0) or before a label-correcting search. A cycle that
// rounding alone made negative is judged not negative, and -1 is returned.
template <class W>
std::int64_t vertex_on_negative_cycle(const BasicCsr<W>& g);

}  // namespace apsp::core
