// Seeded graph generators for tests, benchmarks and `apsp gen`.
#pragma once

#include <cstdint>
#include <string>

#include "apsp/graph.hpp"

namespace apsp {

// random: G(n, m), m arcs with uniform endpoints ("uniform" is the same kind);
// geometric: points in the unit square, each joined both ways to its
// `degree` nearest neighbours, weights affine in the Euclidean length
// (w_lo for length 0, w_hi for the longest edge); a stand-in for road networks.
enum class GraphKind { random, scale_free, rmat, grid, dense, geometric };

struct GenerateOptions {
  GraphKind kind = GraphKind::random;
  std::int64_t n = 0;
  std::int64_t m = -1;   // edges (random, rmat); -1 = 8*n
  int degree = 4;        // edges per new vertex (scale_free); nearest neighbours (geometric)
  double density = 0.5;  // edge probability (dense)
  weight_t w_lo = 1;     // weights uniform in [w_lo, w_hi]
  weight_t w_hi = 100;
  std::uint64_t seed = 1;
};

GraphKind parse_graph_kind(const std::string& s);  // throws UsageError

// Deterministic for a given options value. With w_lo < 0 the weights are
// shifted by random vertex potentials so that no negative cycle exists:
// w(u,v) = base(u,v) + p(u) - p(v) with base >= 0.
Graph generate(const GenerateOptions& opts);

// The same graph with real weights in [w_lo, w_hi] with `decimals` decimal
// places (0..6): generated as generate() does over the range scaled by
// 10^decimals, each weight then divided back, so that the kinds, the seed
// and the absence of negative cycles carry over (a cycle of weight 0 may
// round to +-1e-16). UsageError (option "weights") when the scaled range
// leaves int32 or `decimals` is outside 0..6.
GraphF64 generate_real(const GenerateOptions& opts, int decimals = 3);

}  // namespace apsp
