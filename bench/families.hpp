// The GPU benchmarks' graph families (issue 21's and the sparse
// benchmark's), normalized, weights uniform in [1, 100] from `seed`:
//   rmat (m = 8n), uniform (random, m = 8n), grid (2D, side sqrt(n)),
//   geometric (k = 4 nearest neighbours), dense-half (each ordered pair with
//   probability 1/2), grid3d (side cbrt(n), the worst case for separators).
#pragma once

#include <cmath>
#include <cstdint>
#include <string>

#include "apsp/apsp.hpp"

namespace apsp::bench {

// A side^3 grid (side = cbrt(n) rounded), each vertex joined both ways to its
// axis neighbours.
inline Graph grid3d(std::int64_t n, std::uint64_t seed) {
  const auto side = static_cast<vertex_t>(std::llround(std::cbrt(static_cast<double>(n))));
  Graph g;
  g.n = std::int64_t{side} * side * side;
  std::uint64_t state = seed * 0x9e3779b97f4a7c15ULL + 1;
  auto weight = [&] {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<weight_t>(1 + (state >> 33) % 100);
  };
  auto id = [&](vertex_t x, vertex_t y, vertex_t z) { return (z * side + y) * side + x; };
  auto link = [&](vertex_t a, vertex_t b) {
    g.edges.push_back({a, b, weight()});
    g.edges.push_back({b, a, weight()});
  };
  for (vertex_t z = 0; z < side; ++z)
    for (vertex_t y = 0; y < side; ++y)
      for (vertex_t x = 0; x < side; ++x) {
        if (x + 1 < side) link(id(x, y, z), id(x + 1, y, z));
        if (y + 1 < side) link(id(x, y, z), id(x, y + 1, z));
        if (z + 1 < side) link(id(x, y, z), id(x, y, z + 1));
      }
  return normalize(g);
}

// w_hi: the largest weight of the generated families (grid3d keeps 100).
inline Graph family_graph(const std::string& family, std::int64_t n, std::uint64_t seed, weight_t w_hi = 100) {
  if (family == "grid3d") return grid3d(n, seed);
  GenerateOptions o;
  o.n = n;
  o.seed = seed;
  o.w_lo = 1;
  o.w_hi = w_hi;
  if (family == "rmat")
    o.kind = GraphKind::rmat;
  else if (family == "uniform")
    o.kind = GraphKind::random;
  else if (family == "grid")
    o.kind = GraphKind::grid;
  else if (family == "geometric")
    o.kind = GraphKind::geometric;
  else if (family == "dense-half") {
    o.kind = GraphKind::dense;
    o.density = 0.5;
  } else {
    throw UsageError("unknown family '" + family + "' (rmat, uniform, grid, geometric, dense-half, grid3d)",
                     "families");
  }
  return normalize(generate(o));
}

}  // namespace apsp::bench
