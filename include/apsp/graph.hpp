// Graph model: vertices 0..n-1, directed edges with int32 weights.
#pragma once

#include <cstdint>
#include <vector>

namespace apsp {

using vertex_t = std::int32_t;
using weight_t = std::int32_t;
using dist_t = std::int32_t;

// Unreachable, as in the NTHU HW3 format (2^30 - 1). 2*kInf fits in int32, so
// kernels may add two stored values without overflow.
inline constexpr dist_t kInf = 1073741823;

struct Edge {
  vertex_t src;
  vertex_t dst;
  weight_t w;
};

struct Graph {
  std::int64_t n = 0;  // validated to fit vertex_t by every reader / generator
  std::vector<Edge> edges;
};

struct WeightStats {
  weight_t min_w = 0;  // over kept edges; 0 when there are none
  weight_t max_w = 0;
  std::int64_t max_abs = 0;
  bool has_negative() const { return min_w < 0; }
};

// Canonical form used by every algorithm: edges sorted by (src, dst),
// duplicates keep the minimum weight, positive and zero self-loops dropped.
// Throws InputError for a vertex out of range, NegativeCycleError for a
// negative self-loop.
Graph normalize(const Graph& g);

// Adds every edge in both directions (--undirected).
Graph symmetrize(const Graph& g);

WeightStats weight_stats(const Graph& g);

// True when every shortest-path distance, and every sum of two stored values
// an in-place int32 FW forms, is provably inside int32 with kInf as infinity:
// (n-1) * max|w| < kInf / 2. Otherwise algorithms compute in int64.
bool fits_int32_arithmetic(const Graph& g, const WeightStats& s);

// Dense adjacency, n x n row-major: 0 on the diagonal, the edge weight, or kInf.
// Precondition: g is normalized.
std::vector<dist_t> dense_adjacency(const Graph& g);

// Compressed sparse rows of the normalized graph: out-edges of v are
// [row_start[v], row_start[v+1]) in col / weight.
struct Csr {
  std::int64_t n = 0;
  std::vector<std::int64_t> row_start;
  std::vector<vertex_t> col;
  std::vector<weight_t> weight;
};
Csr to_csr(const Graph& normalized);
Csr transpose(const Csr& c);

}  // namespace apsp
