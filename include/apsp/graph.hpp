// Graph model: vertices 0..n-1, directed edges with int32, float32 or float64
// weights (the weight type, WeightType).
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

namespace apsp {

using vertex_t = std::int32_t;
using weight_t = std::int32_t;
using dist_t = std::int32_t;

// Unreachable, as in the NTHU HW3 format (2^30 - 1). 2*kInf fits in int32, so
// kernels may add two stored values without overflow.
inline constexpr dist_t kInf = 1073741823;

// The weight type of a graph and of its distances: int32 (exact, kInf =
// unreachable), float32 or float64 (IEEE, +infinity = unreachable).
enum class WeightType { int32, float32, float64 };

// "int32", "float32", "float64".
const char* to_string(WeightType t);
// Parses int32 / float32 / float64 (also i32, f32, f64, float, double).
// Throws UsageError (option "weights") for anything else, "auto" included:
// the callers that accept "auto" handle it before calling this.
WeightType parse_weight_type(const std::string& s);

// The value that marks "unreachable" in a distance of type W: kInf for int32,
// +infinity for float and double.
template <class W>
inline constexpr W kUnreachable = std::numeric_limits<W>::infinity();
template <>
inline constexpr std::int32_t kUnreachable<std::int32_t> = kInf;

// The WeightType of a C++ weight type (int32_t, float, double).
template <class W>
inline constexpr WeightType weight_type_of = std::is_same<W, float>::value    ? WeightType::float32
                                             : std::is_same<W, double>::value ? WeightType::float64
                                                                              : WeightType::int32;

template <class W>
struct BasicEdge {
  vertex_t src;
  vertex_t dst;
  W w;
};

template <class W>
struct BasicGraph {
  using weight_type = W;
  std::int64_t n = 0;  // validated to fit vertex_t by every reader / generator
  std::vector<BasicEdge<W>> edges;
};

using Edge = BasicEdge<weight_t>;
using Graph = BasicGraph<weight_t>;  // the int32 graph
using EdgeF32 = BasicEdge<float>;
using EdgeF64 = BasicEdge<double>;
using GraphF32 = BasicGraph<float>;
using GraphF64 = BasicGraph<double>;

// A graph of any weight type, as read from a file whose type is known only
// at run time (io::read_any_graph).
using AnyGraph = std::variant<Graph, GraphF32, GraphF64>;
WeightType weight_type(const AnyGraph& g);

// Over kept edges; all 0 when there are none. max_abs is int64 for int32
// weights, double for real ones.
template <class W>
struct BasicWeightStats {
  using magnitude_type = std::conditional_t<std::is_integral<W>::value, std::int64_t, double>;
  W min_w = 0;
  W max_w = 0;
  magnitude_type max_abs = 0;
  bool has_negative() const { return min_w < 0; }
};
using WeightStats = BasicWeightStats<weight_t>;

// Canonical form used by every algorithm: edges sorted by (src, dst),
// duplicates keep the minimum weight, positive and zero self-loops dropped.
// Real weights: +infinity means "no edge" and is dropped. Throws InputError
// for a vertex out of range, or a NaN or -infinity weight (naming the edge);
// NegativeCycleError for a negative self-loop.
Graph normalize(const Graph& g);
GraphF32 normalize(const GraphF32& g);
GraphF64 normalize(const GraphF64& g);

// Throws InputError, naming the first offending edge, unless `g` is in
// normalize()'s form: 0 <= n <= int32 max, every vertex in 0..n-1, edges
// sorted by (src, dst), no two with the same (src, dst), no self-loop, every
// real weight finite. O(m). Every function below that takes a normalized
// graph calls it first.
void check_normalized(const Graph& g);
void check_normalized(const GraphF32& g);
void check_normalized(const GraphF64& g);

// True when check_normalized(g) would pass: one O(m) pass that names
// nothing, for callers that normalize() a graph only when it is not in that
// form already (solve, the Python binding), against normalize's sort.
bool is_normalized(const Graph& g);
bool is_normalized(const GraphF32& g);
bool is_normalized(const GraphF64& g);

// Renumbers the vertices that some edge touches to 0..k-1 in increasing
// order (ids of a SNAP edge list that run high, with most numbers unused),
// drops the others and returns the old vertex of each new one (size k; g.n
// becomes k). Edge order is kept, so a normalized graph stays normalized.
std::vector<vertex_t> compact_vertices(Graph& g);
std::vector<vertex_t> compact_vertices(GraphF32& g);
std::vector<vertex_t> compact_vertices(GraphF64& g);

// Adds every edge in both directions (--undirected).
Graph symmetrize(const Graph& g);
GraphF32 symmetrize(const GraphF32& g);
GraphF64 symmetrize(const GraphF64& g);

WeightStats weight_stats(const Graph& g);
BasicWeightStats<float> weight_stats(const GraphF32& g);
BasicWeightStats<double> weight_stats(const GraphF64& g);

// True when every shortest-path distance, and every sum of two stored values
// an in-place int32 FW forms, is provably inside int32 with kInf as infinity:
// (n-1) * max|w| < kInf / 2. Otherwise algorithms compute in int64.
bool fits_int32_arithmetic(const Graph& g, const WeightStats& s);

// Dense adjacency, n x n row-major: 0 on the diagonal, the edge weight, or
// kUnreachable<W> (kInf, +infinity). Throws InputError unless g is
// normalized (check_normalized).
std::vector<dist_t> dense_adjacency(const Graph& normalized);
std::vector<float> dense_adjacency(const GraphF32& normalized);
std::vector<double> dense_adjacency(const GraphF64& normalized);

// Compressed sparse rows: out-edges of v are [row_start[v], row_start[v+1])
// in col / weight (row_start has n + 1 entries, col and weight the same count).
template <class W>
struct BasicCsr {
  using weight_type = W;
  std::int64_t n = 0;
  std::vector<std::int64_t> row_start;
  std::vector<vertex_t> col;
  std::vector<W> weight;
};
using Csr = BasicCsr<weight_t>;
using CsrF32 = BasicCsr<float>;
using CsrF64 = BasicCsr<double>;

// Throws InputError unless `c` is well formed: 0 <= n <= int32 max,
// row_start has n + 1 non-decreasing entries from 0 to col.size(), weight is
// as long as col, every col entry is in 0..n-1. O(n + m).
void check_csr(const Csr& c);
void check_csr(const CsrF32& c);
void check_csr(const CsrF64& c);
// The CSR of a normalized graph: columns increase within each row. Throws
// InputError unless the graph is normalized (check_normalized).
Csr to_csr(const Graph& normalized);
CsrF32 to_csr(const GraphF32& normalized);
CsrF64 to_csr(const GraphF64& normalized);
// The reverse graph (in-edges as rows), columns in increasing order within
// each row. Throws InputError for a malformed `c` (check_csr).
Csr transpose(const Csr& c);
CsrF32 transpose(const CsrF32& c);
CsrF64 transpose(const CsrF64& c);

// The largest integer weight that auto keeps as int32: every |w| up to it is
// exact in int32 and in float64 (the reader's type), and (n-1) * |w| stays
// inside int64 for any int32 n.
inline constexpr double kMaxAutoIntWeight = 2147483647.0;

// Whether auto keeps weight `w` as int32 as far as the weight alone goes: an
// integer with |w| <= kMaxAutoIntWeight (NaN and infinities are not). The
// per-weight half of choose_weight_type's rule (the scans that read weights
// one by one use it); the graph's bound is the other half.
inline bool is_auto_int_weight(double w) {
  return std::fabs(w) <= kMaxAutoIntWeight && w == static_cast<double>(static_cast<std::int32_t>(w));
}

// Whether int32 distances (kInf = unreachable) hold every shortest-path
// distance of a graph of n vertices whose weights are at most `max_abs` in
// magnitude: a shortest path has at most n - 1 edges, so |d| <= (n-1) *
// max_abs, which must stay below kInf. Knowable before any work.
inline bool int32_distances_fit(std::int64_t n, double max_abs) {
  const double hops = n > 1 ? static_cast<double>(n - 1) : 0.0;
  return hops * max_abs < static_cast<double>(kInf);
}

// The one home of the "auto" weight type (--weights auto, the Python
// binding's arrays, dense views): int32 when every weight is an integer with
// |w| <= kMaxAutoIntWeight (`integer_weights`) and int32 distances hold the
// answer (int32_distances_fit(n, max_abs)); float64 otherwise, whose
// distances are exact integers while |d| < 2^53 (scipy's result type too).
inline WeightType choose_weight_type(std::int64_t n, bool integer_weights, double max_abs) {
  return integer_weights && int32_distances_fit(n, max_abs) ? WeightType::int32 : WeightType::float64;
}

// choose_weight_type over the edges of `g` (n = g.n; +infinity and NaN
// weights are not integers).
WeightType choose_weight_type(const GraphF64& g);
WeightType choose_weight_type(const Graph& g);

// `g` with its weights in type `to`. To int32: throws InputError naming the
// first edge whose weight is not an integer inside int32 (or is infinite or
// NaN). To float32: each weight rounds to the nearest float (+infinity stays
// +infinity, meaning no edge). To float64 every weight is exact. The vertex
// count and the edge order are kept.
AnyGraph convert_weights(AnyGraph g, WeightType to);

}  // namespace apsp
