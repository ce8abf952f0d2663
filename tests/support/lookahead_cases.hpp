// The look-ahead's test graphs and thresholds, one list for the CPU test of
// its level rule (tests/cpu/test_supernodal_lookahead.cpp, which checks that
// these graphs really hold chains) and the device tests that solve them
// (tests/gpu/test_cuda_supernodal_lookahead.cpp).
#pragma once

#include <cstdint>
#include <vector>

#include "support/cases.hpp"

namespace apsp::test {

// Fronts with more than kLookaheadDenseColumns columns are dense
// (testing::hooks.supernodal_dense_columns), and dense fronts of at least
// kLookaheadLargeFront vertices are the tiled factor's large class
// (testing::hooks.supernodal_large_front): small enough that n = 4096
// graphs have chains of large fronts.
inline constexpr std::int64_t kLookaheadDenseColumns = 8;
inline constexpr std::int64_t kLookaheadLargeFront = 32;

// Negative weights on the grid and the uniform graph, zero weights on R-MAT.
inline std::vector<Case> lookahead_cases() {
  return {
      {"grid_n4096", generated(GraphKind::grid, 4096, -1, -3, 40, 61)},
      {"geometric_n4096", generated(GraphKind::geometric, 4096, -1, 1, 40, 62)},
      {"rmat_n4096", generated(GraphKind::rmat, 4096, 8 * 4096, 0, 30, 63)},
      {"random_n4096", generated(GraphKind::random, 4096, 8 * 4096, -2, 60, 64)},
  };
}

// Two graphs side by side, the second's ids shifted: two components, so
// every pair across them (half the matrix) stays +inf through the factor.
inline Graph side_by_side(const Graph& a, const Graph& b) {
  Graph both;
  both.n = a.n + b.n;
  both.edges = a.edges;
  for (const Edge& e : b.edges)
    both.edges.push_back({static_cast<vertex_t>(e.src + a.n), static_cast<vertex_t>(e.dst + a.n), e.w});
  return both;
}

// The tiled factor's launch-shape tests (split-K, stream-K, the 64 tile):
// lookahead_cases() and two disjoint parts (R-MAT with negative weights
// beside a geometric graph, n = 2048 each).
inline std::vector<Case> tiled_shape_cases() {
  std::vector<Case> cases = lookahead_cases();
  cases.push_back(
      {"rmat_n2048_negative+geometric_n2048", side_by_side(generated(GraphKind::rmat, 2048, 8 * 2048, -3, 40, 71),
                                                           generated(GraphKind::geometric, 2048, -1, 1, 40, 72))});
  return cases;
}

// GpuSupernodalLookahead.SmallCaseForSanitizers's graph.
inline Case lookahead_sanitizer_case() {
  return {"random_n512", generated(GraphKind::random, 512, 8 * 512, -2, 30, 65)};
}

}  // namespace apsp::test
