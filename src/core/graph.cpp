#include "apsp/graph.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <cstddef>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "apsp/error.hpp"
#include "core/csr.hpp"
#include "core/weights.hpp"

namespace apsp {
namespace {

void check_vertex_count(std::int64_t n) {
  if (n < 0 || n > std::numeric_limits<vertex_t>::max())
    throw InputError("vertex count " + std::to_string(n) + " is outside 0.." +
                     std::to_string(std::numeric_limits<vertex_t>::max()));
}

template <class W>
std::string edge_text(std::size_t index, const BasicEdge<W>& x) {
  return "edge " + std::to_string(index) + " (" + std::to_string(x.src) + " -> " + std::to_string(x.dst) + ")";
}

// Throws InputError when edge `index` has an endpoint outside 0..n-1.
template <class W>
void check_endpoints(std::size_t index, const BasicEdge<W>& x, std::int64_t n) {
  if (x.src < 0 || x.src >= n || x.dst < 0 || x.dst >= n)
    throw InputError(edge_text(index, x) + " has a vertex outside 0.." + std::to_string(n - 1));
}

// Throws InputError when a real weight is NaN or -infinity: neither is a
// length (+infinity, "no edge", is left to the caller).
template <class W>
void check_weight_value(std::size_t index, const BasicEdge<W>& x) {
  if constexpr (std::is_floating_point<W>::value) {
    if (std::isnan(x.w)) throw InputError(edge_text(index, x) + " has a NaN weight");
    if (x.w == -std::numeric_limits<W>::infinity()) throw InputError(edge_text(index, x) + " has weight -inf");
  }
}

// Sorts `edges` (endpoints in 0..n-1) by (src, dst, w). Where n is not far
// above the edge count, by source first in O(n + m) (a counting sort), then
// each source's few edges by (dst, w) on OpenMP threads: the whole sort of a
// 612k-edge road graph was most of the CLI's 58 ms `normalize` on the H100 host
// (docs/perf.md, "A part's fixed costs"). A sparse id range (n >> m) sorts
// the edges alone, as before, so that no array of n counts is made, and so
// does a list of more than kMaxBucketedEdges edges: the counting sort
// holds a second copy of the list, which a graph of that size should not
// pay for in peak memory.
constexpr std::size_t kMaxBucketedEdges = std::size_t{1} << 26;
template <class W>
void sort_by_source_target_weight(std::vector<BasicEdge<W>>& edges, std::int64_t n) {
  const auto by_target_weight = [](const BasicEdge<W>& a, const BasicEdge<W>& b) {
    if (a.dst != b.dst) return a.dst < b.dst;
    return a.w < b.w;
  };
  const std::size_t m = edges.size();
  if (n > 4 * static_cast<std::int64_t>(m) + 1024 || m > kMaxBucketedEdges) {
    std::sort(edges.begin(), edges.end(), [&](const BasicEdge<W>& a, const BasicEdge<W>& b) {
      if (a.src != b.src) return a.src < b.src;
      return by_target_weight(a, b);
    });
    return;
  }
  std::vector<std::size_t> first(static_cast<std::size_t>(n) + 1, 0);
  for (const BasicEdge<W>& e : edges) ++first[static_cast<std::size_t>(e.src) + 1];
  for (std::size_t v = 0; v < static_cast<std::size_t>(n); ++v) first[v + 1] += first[v];
  std::vector<BasicEdge<W>> sorted(m);
  std::vector<std::size_t> next(first.begin(), first.end() - 1);
  for (const BasicEdge<W>& e : edges) sorted[next[static_cast<std::size_t>(e.src)]++] = e;
#pragma omp parallel for schedule(static)
  for (std::int64_t v = 0; v < n; ++v)
    std::sort(sorted.begin() + static_cast<std::ptrdiff_t>(first[static_cast<std::size_t>(v)]),
              sorted.begin() + static_cast<std::ptrdiff_t>(first[static_cast<std::size_t>(v) + 1]), by_target_weight);
  edges = std::move(sorted);
}

template <class W>
BasicGraph<W> normalize_typed(const BasicGraph<W>& g) {
  check_vertex_count(g.n);
  BasicGraph<W> out;
  out.n = g.n;
  out.edges.reserve(g.edges.size());
  for (std::size_t e = 0; e < g.edges.size(); ++e) {
    BasicEdge<W> x = g.edges[e];
    check_endpoints(e, x, g.n);
    check_weight_value(e, x);
    if constexpr (std::is_floating_point<W>::value)
      if (x.w == kUnreachable<W>) continue;  // +inf: no edge
    if (x.src == x.dst) {
      if (x.w < 0) throw NegativeCycleError(x.src);
      continue;  // a non-negative self-loop never shortens a path
    }
    if constexpr (std::is_floating_point<W>::value) x.w = x.w + W(0);  // -0.0 becomes +0.0
    out.edges.push_back(x);
  }
  sort_by_source_target_weight(out.edges, g.n);
  // Sorted by weight within (src, dst): the first of each run is the minimum.
  auto last = std::unique(out.edges.begin(), out.edges.end(), [](const BasicEdge<W>& a, const BasicEdge<W>& b) {
    return a.src == b.src && a.dst == b.dst;
  });
  out.edges.erase(last, out.edges.end());
  out.edges.shrink_to_fit();
  return out;
}

template <class W>
void check_normalized_typed(const BasicGraph<W>& g) {
  check_vertex_count(g.n);
  for (std::size_t e = 0; e < g.edges.size(); ++e) {
    const BasicEdge<W>& x = g.edges[e];
    check_endpoints(e, x, g.n);
    check_weight_value(e, x);
    if constexpr (std::is_floating_point<W>::value)
      if (x.w == kUnreachable<W>)
        throw InputError(edge_text(e, x) +
                         " has weight +inf; a normalized graph has none (apsp::normalize drops them)");
    if (x.src == x.dst)
      throw InputError(edge_text(e, x) + " is a self-loop; a normalized graph has none (apsp::normalize drops them)");
    if (e == 0) continue;
    const BasicEdge<W>& previous = g.edges[e - 1];
    if (x.src == previous.src && x.dst == previous.dst)
      throw InputError(edge_text(e, x) + " is a duplicate of edge " + std::to_string(e - 1) +
                       "; a normalized graph has one edge per (src, dst) (apsp::normalize keeps the lightest)");
    if (x.src < previous.src || (x.src == previous.src && x.dst < previous.dst))
      throw InputError(edge_text(e, x) + " comes after " + edge_text(e - 1, previous) +
                       "; a normalized graph's edges are sorted by (src, dst) (apsp::normalize sorts them)");
  }
}

template <class W>
bool is_normalized_typed(const BasicGraph<W>& g) {
  if (g.n < 0 || g.n > std::numeric_limits<vertex_t>::max()) return false;
  for (std::size_t e = 0; e < g.edges.size(); ++e) {
    const BasicEdge<W>& x = g.edges[e];
    if (x.src < 0 || x.src >= g.n || x.dst < 0 || x.dst >= g.n || x.src == x.dst) return false;
    if constexpr (std::is_floating_point<W>::value)
      if (!std::isfinite(x.w)) return false;
    if (e > 0) {
      const BasicEdge<W>& before = g.edges[e - 1];
      if (before.src > x.src || (before.src == x.src && before.dst >= x.dst)) return false;
    }
  }
  return true;
}

template <class W>
BasicGraph<W> symmetrize_typed(const BasicGraph<W>& g) {
  BasicGraph<W> out;
  out.n = g.n;
  out.edges.reserve(g.edges.size() * 2);
  for (const BasicEdge<W>& e : g.edges) {
    out.edges.push_back(e);
    out.edges.push_back(BasicEdge<W>{e.dst, e.src, e.w});
  }
  return out;
}

template <class W>
std::vector<vertex_t> compact_vertices_typed(BasicGraph<W>& g) {
  if (g.n < 0) throw InputError("negative vertex count " + std::to_string(g.n));
  std::vector<vertex_t> renumbered(static_cast<std::size_t>(g.n), -1);
  for (const BasicEdge<W>& e : g.edges) {
    if (e.src < 0 || e.src >= g.n || e.dst < 0 || e.dst >= g.n)
      throw InputError("edge " + std::to_string(e.src) + " -> " + std::to_string(e.dst) + " has a vertex outside 0.." +
                       std::to_string(g.n - 1));
    renumbered[static_cast<std::size_t>(e.src)] = 0;
    renumbered[static_cast<std::size_t>(e.dst)] = 0;
  }
  std::vector<vertex_t> ids;
  for (vertex_t v = 0; v < static_cast<vertex_t>(g.n); ++v)
    if (renumbered[static_cast<std::size_t>(v)] == 0) {
      renumbered[static_cast<std::size_t>(v)] = static_cast<vertex_t>(ids.size());
      ids.push_back(v);
    }
  for (BasicEdge<W>& e : g.edges) {
    e.src = renumbered[static_cast<std::size_t>(e.src)];
    e.dst = renumbered[static_cast<std::size_t>(e.dst)];
  }
  g.n = static_cast<std::int64_t>(ids.size());
  return ids;
}

template <class W>
BasicWeightStats<W> weight_stats_typed(const BasicGraph<W>& g) {
  using Magnitude = typename BasicWeightStats<W>::magnitude_type;
  BasicWeightStats<W> s;
  if (g.edges.empty()) return s;
  s.min_w = std::numeric_limits<W>::max();
  s.max_w = std::numeric_limits<W>::lowest();
  for (const BasicEdge<W>& e : g.edges) {
    s.min_w = std::min(s.min_w, e.w);
    s.max_w = std::max(s.max_w, e.w);
  }
  s.max_abs = std::max<Magnitude>(-static_cast<Magnitude>(s.min_w), static_cast<Magnitude>(s.max_w));
  return s;
}

template <class W>
std::vector<W> dense_adjacency_typed(const BasicGraph<W>& g) {
  check_normalized(g);
  const std::size_t n = static_cast<std::size_t>(g.n);
  std::vector<W> d(n * n, kUnreachable<W>);
  for (std::size_t i = 0; i < n; ++i) d[i * n + i] = 0;
  for (const BasicEdge<W>& e : g.edges) d[static_cast<std::size_t>(e.src) * n + static_cast<std::size_t>(e.dst)] = e.w;
  return d;
}

template <class W>
void check_csr_typed(const BasicCsr<W>& c) {
  check_vertex_count(c.n);
  const std::size_t rows = static_cast<std::size_t>(c.n);
  if (c.row_start.size() != rows + 1)
    throw InputError("Csr: row_start has " + std::to_string(c.row_start.size()) +
                     " entries, expected n + 1 = " + std::to_string(rows + 1));
  if (c.weight.size() != c.col.size())
    throw InputError("Csr: " + std::to_string(c.col.size()) + " columns but " + std::to_string(c.weight.size()) +
                     " weights");
  if (c.row_start.front() != 0 || c.row_start.back() != static_cast<std::int64_t>(c.col.size()))
    throw InputError("Csr: row_start runs from " + std::to_string(c.row_start.front()) + " to " +
                     std::to_string(c.row_start.back()) + ", expected 0 to " + std::to_string(c.col.size()));
  for (std::size_t v = 0; v < rows; ++v)
    if (c.row_start[v + 1] < c.row_start[v])
      throw InputError("Csr: row_start[" + std::to_string(v + 1) + "] = " + std::to_string(c.row_start[v + 1]) +
                       " is below row_start[" + std::to_string(v) + "] = " + std::to_string(c.row_start[v]));
  for (std::size_t k = 0; k < c.col.size(); ++k)
    if (c.col[k] < 0 || c.col[k] >= c.n)
      throw InputError("Csr: col[" + std::to_string(k) + "] = " + std::to_string(c.col[k]) + " is outside 0.." +
                       std::to_string(c.n - 1));
}

template <class W>
BasicCsr<W> to_csr_typed(const BasicGraph<W>& g) {
  check_normalized(g);
  BasicCsr<W> c;
  c.n = g.n;
  // Sorted by source: edge k is the k-th entry of the CSR.
  c.row_start = core::row_offsets(g.n, g.edges.size(), [&](std::size_t k) { return g.edges[k].src; });
  c.col.resize(g.edges.size());
  c.weight.resize(g.edges.size());
  for (std::size_t k = 0; k < g.edges.size(); ++k) {
    c.col[k] = g.edges[k].dst;
    c.weight[k] = g.edges[k].w;
  }
  return c;
}

template <class W>
BasicCsr<W> transpose_typed(const BasicCsr<W>& c) {
  check_csr(c);
  BasicCsr<W> t;
  t.n = c.n;
  t.row_start = core::row_offsets(c.n, c.col.size(), [&](std::size_t k) { return c.col[k]; });
  t.col.resize(c.col.size());
  t.weight.resize(c.col.size());
  // Scanning sources in increasing order keeps each reverse row sorted.
  std::vector<std::int64_t> next(t.row_start.begin(), t.row_start.end() - 1);
  for (std::int64_t u = 0; u < c.n; ++u)
    for (std::int64_t k = c.row_start[u]; k < c.row_start[u + 1]; ++k) {
      const std::int64_t at = next[static_cast<std::size_t>(c.col[k])]++;
      t.col[static_cast<std::size_t>(at)] = static_cast<vertex_t>(u);
      t.weight[static_cast<std::size_t>(at)] = c.weight[k];
    }
  return t;
}

// The edges of `from` with weights converted by convert(index, edge).
template <class To, class From, class Convert>
BasicGraph<To> with_weights(const BasicGraph<From>& from, Convert convert) {
  BasicGraph<To> out;
  out.n = from.n;
  out.edges.reserve(from.edges.size());
  for (std::size_t e = 0; e < from.edges.size(); ++e)
    out.edges.push_back(BasicEdge<To>{from.edges[e].src, from.edges[e].dst, convert(e, from.edges[e])});
  return out;
}

}  // namespace

const char* to_string(WeightType t) {
  switch (t) {
    case WeightType::int32: return "int32";
    case WeightType::float32: return "float32";
    case WeightType::float64: return "float64";
  }
  return "?";
}

WeightType parse_weight_type(const std::string& s) {
  if (s == "int32" || s == "i32") return WeightType::int32;
  if (s == "float32" || s == "f32" || s == "float") return WeightType::float32;
  if (s == "float64" || s == "f64" || s == "double") return WeightType::float64;
  throw UsageError("unknown weight type '" + s + "' (expected int32, float32 or float64)", "weights");
}

WeightType weight_type(const AnyGraph& g) {
  return std::visit(
      [](const auto& graph) { return weight_type_of<typename std::decay_t<decltype(graph)>::weight_type>; }, g);
}

Graph normalize(const Graph& g) { return normalize_typed(g); }
GraphF32 normalize(const GraphF32& g) { return normalize_typed(g); }
GraphF64 normalize(const GraphF64& g) { return normalize_typed(g); }

void check_normalized(const Graph& g) { check_normalized_typed(g); }
void check_normalized(const GraphF32& g) { check_normalized_typed(g); }
void check_normalized(const GraphF64& g) { check_normalized_typed(g); }
bool is_normalized(const Graph& g) { return is_normalized_typed(g); }
bool is_normalized(const GraphF32& g) { return is_normalized_typed(g); }
bool is_normalized(const GraphF64& g) { return is_normalized_typed(g); }

Graph symmetrize(const Graph& g) { return symmetrize_typed(g); }
GraphF32 symmetrize(const GraphF32& g) { return symmetrize_typed(g); }
GraphF64 symmetrize(const GraphF64& g) { return symmetrize_typed(g); }

std::vector<vertex_t> compact_vertices(Graph& g) { return compact_vertices_typed(g); }
std::vector<vertex_t> compact_vertices(GraphF32& g) { return compact_vertices_typed(g); }
std::vector<vertex_t> compact_vertices(GraphF64& g) { return compact_vertices_typed(g); }

WeightStats weight_stats(const Graph& g) { return weight_stats_typed(g); }
BasicWeightStats<float> weight_stats(const GraphF32& g) { return weight_stats_typed(g); }
BasicWeightStats<double> weight_stats(const GraphF64& g) { return weight_stats_typed(g); }

bool fits_int32_arithmetic(const Graph& g, const WeightStats& s) {
  const std::int64_t hops = g.n > 0 ? g.n - 1 : 0;
  return hops * s.max_abs < static_cast<std::int64_t>(kInf) / 2;
}

std::vector<dist_t> dense_adjacency(const Graph& g) { return dense_adjacency_typed(g); }
std::vector<float> dense_adjacency(const GraphF32& g) { return dense_adjacency_typed(g); }
std::vector<double> dense_adjacency(const GraphF64& g) { return dense_adjacency_typed(g); }

void check_csr(const Csr& c) { check_csr_typed(c); }
void check_csr(const CsrF32& c) { check_csr_typed(c); }
void check_csr(const CsrF64& c) { check_csr_typed(c); }

Csr to_csr(const Graph& g) { return to_csr_typed(g); }
CsrF32 to_csr(const GraphF32& g) { return to_csr_typed(g); }
CsrF64 to_csr(const GraphF64& g) { return to_csr_typed(g); }

Csr transpose(const Csr& c) { return transpose_typed(c); }
CsrF32 transpose(const CsrF32& c) { return transpose_typed(c); }
CsrF64 transpose(const CsrF64& c) { return transpose_typed(c); }

WeightType choose_weight_type(const GraphF64& g) {
  double max_abs = 0;
  for (const EdgeF64& e : g.edges) {
    if (!is_auto_int_weight(e.w)) return WeightType::float64;
    max_abs = std::max(max_abs, std::fabs(e.w));
  }
  return choose_weight_type(g.n, true, max_abs);
}

WeightType choose_weight_type(const Graph& g) {
  std::int64_t max_abs = 0;
  for (const Edge& e : g.edges) max_abs = std::max(max_abs, std::abs(static_cast<std::int64_t>(e.w)));
  return choose_weight_type(g.n, true, static_cast<double>(max_abs));
}

AnyGraph convert_weights(AnyGraph g, WeightType to) {
  if (weight_type(g) == to) return g;
  return std::visit(
      [to](const auto& from) -> AnyGraph {
        using From = typename std::decay_t<decltype(from)>::weight_type;
        switch (to) {
          case WeightType::int32:
            return with_weights<weight_t>(from, [](std::size_t index, const BasicEdge<From>& x) {
              const double w = static_cast<double>(x.w);
              if (!(std::fabs(w) <= std::numeric_limits<weight_t>::max()) || w != std::trunc(w))
                throw InputError(edge_text(index, x) + " has weight " + core::format_weight(x.w) +
                                 ", not an integer inside int32");
              return static_cast<weight_t>(w);
            });
          case WeightType::float32:
            return with_weights<float>(from,
                                       [](std::size_t, const BasicEdge<From>& x) { return static_cast<float>(x.w); });
          case WeightType::float64:
            return with_weights<double>(from,
                                        [](std::size_t, const BasicEdge<From>& x) { return static_cast<double>(x.w); });
        }
        return from;
      },
      g);
}

}  // namespace apsp
