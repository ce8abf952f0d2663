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

// Throws InputError, naming the first offending edge, unless `g` is in
// normalize()'s form: 0 <= n <= int32 max, every vertex in 0..n-1, edges
// sorted by (src, dst), no two with the same (src, dst), no self-loop. O(m).
// Every function below that takes a normalized graph calls it first.
void check_normalized(const Graph& g);

// Adds every edge in both directions (--undirected).
Graph symmetrize(const Graph& g);

WeightStats weight_stats(const Graph& g);

// True when every shortest-path distance, and every sum of two stored values
// an in-place int32 FW forms, is provably inside int32 with kInf as infinity:
// (n-1) * max|w| < kInf / 2. Otherwise algorithms compute in int64.
bool fits_int32_arithmetic(const Graph& g, const WeightStats& s);

// Dense adjacency, n x n row-major: 0 on the diagonal, the edge weight, or kInf.
// Throws InputError unless g is normalized (check_normalized).
std::vector<dist_t> dense_adjacency(const Graph& normalized);

// Compressed sparse rows: out-edges of v are [row_start[v], row_start[v+1])
// in col / weight (row_start has n + 1 entries, col and weight the same count).
struct Csr {
  std::int64_t n = 0;
  std::vector<std::int64_t> row_start;
  std::vector<vertex_t> col;
  std::vector<weight_t> weight;
};
// Throws InputError unless `c` is well formed: 0 <= n <= int32 max,
// row_start has n + 1 non-decreasing entries from 0 to col.size(), weight is
// as long as col, every col entry is in 0..n-1. O(n + m).
void check_csr(const Csr& c);
// The CSR of a normalized graph: columns increase within each row. Throws
// InputError unless the graph is normalized (check_normalized).
Csr to_csr(const Graph& normalized);
// The reverse graph (in-edges as rows), columns in increasing order within
// each row. Throws InputError for a malformed `c` (check_csr).
Csr transpose(const Csr& c);

}  // namespace apsp
