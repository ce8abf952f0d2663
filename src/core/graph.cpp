#include "apsp/graph.hpp"

#include <algorithm>
#include <limits>
#include <string>

#include "apsp/error.hpp"
#include "core/csr.hpp"

namespace apsp {
namespace {

void check_vertex_count(std::int64_t n) {
  if (n < 0 || n > std::numeric_limits<vertex_t>::max())
    throw InputError("vertex count " + std::to_string(n) + " is outside 0.." +
                     std::to_string(std::numeric_limits<vertex_t>::max()));
}

std::string edge_text(std::size_t index, const Edge& x) {
  return "edge " + std::to_string(index) + " (" + std::to_string(x.src) + " -> " + std::to_string(x.dst) + ")";
}

// Throws InputError when edge `index` has an endpoint outside 0..n-1.
void check_endpoints(std::size_t index, const Edge& x, std::int64_t n) {
  if (x.src < 0 || x.src >= n || x.dst < 0 || x.dst >= n)
    throw InputError(edge_text(index, x) + " has a vertex outside 0.." + std::to_string(n - 1));
}

}  // namespace

Graph normalize(const Graph& g) {
  check_vertex_count(g.n);
  Graph out;
  out.n = g.n;
  out.edges.reserve(g.edges.size());
  for (std::size_t e = 0; e < g.edges.size(); ++e) {
    const Edge& x = g.edges[e];
    check_endpoints(e, x, g.n);
    if (x.src == x.dst) {
      if (x.w < 0) throw NegativeCycleError(x.src);
      continue;  // a non-negative self-loop never shortens a path
    }
    out.edges.push_back(x);
  }
  std::sort(out.edges.begin(), out.edges.end(), [](const Edge& a, const Edge& b) {
    if (a.src != b.src) return a.src < b.src;
    if (a.dst != b.dst) return a.dst < b.dst;
    return a.w < b.w;
  });
  // Sorted by weight within (src, dst): the first of each run is the minimum.
  auto last = std::unique(out.edges.begin(), out.edges.end(), [](const Edge& a, const Edge& b) {
    return a.src == b.src && a.dst == b.dst;
  });
  out.edges.erase(last, out.edges.end());
  out.edges.shrink_to_fit();
  return out;
}

void check_normalized(const Graph& g) {
  check_vertex_count(g.n);
  for (std::size_t e = 0; e < g.edges.size(); ++e) {
    const Edge& x = g.edges[e];
    check_endpoints(e, x, g.n);
    if (x.src == x.dst)
      throw InputError(edge_text(e, x) + " is a self-loop; a normalized graph has none (apsp::normalize drops them)");
    if (e == 0) continue;
    const Edge& previous = g.edges[e - 1];
    if (x.src == previous.src && x.dst == previous.dst)
      throw InputError(edge_text(e, x) + " is a duplicate of edge " + std::to_string(e - 1) +
                       "; a normalized graph has one edge per (src, dst) (apsp::normalize keeps the lightest)");
    if (x.src < previous.src || (x.src == previous.src && x.dst < previous.dst))
      throw InputError(edge_text(e, x) + " comes after " + edge_text(e - 1, previous) +
                       "; a normalized graph's edges are sorted by (src, dst) (apsp::normalize sorts them)");
  }
}

Graph symmetrize(const Graph& g) {
  Graph out;
  out.n = g.n;
  out.edges.reserve(g.edges.size() * 2);
  for (const Edge& e : g.edges) {
    out.edges.push_back(e);
    out.edges.push_back(Edge{e.dst, e.src, e.w});
  }
  return out;
}

WeightStats weight_stats(const Graph& g) {
  WeightStats s;
  if (g.edges.empty()) return s;
  s.min_w = std::numeric_limits<weight_t>::max();
  s.max_w = std::numeric_limits<weight_t>::min();
  for (const Edge& e : g.edges) {
    s.min_w = std::min(s.min_w, e.w);
    s.max_w = std::max(s.max_w, e.w);
  }
  s.max_abs = std::max<std::int64_t>(-static_cast<std::int64_t>(s.min_w), s.max_w);
  return s;
}

bool fits_int32_arithmetic(const Graph& g, const WeightStats& s) {
  const std::int64_t hops = g.n > 0 ? g.n - 1 : 0;
  return hops * s.max_abs < static_cast<std::int64_t>(kInf) / 2;
}

std::vector<dist_t> dense_adjacency(const Graph& g) {
  check_normalized(g);
  const std::size_t n = static_cast<std::size_t>(g.n);
  std::vector<dist_t> d(n * n, kInf);
  for (std::size_t i = 0; i < n; ++i) d[i * n + i] = 0;
  for (const Edge& e : g.edges) d[static_cast<std::size_t>(e.src) * n + static_cast<std::size_t>(e.dst)] = e.w;
  return d;
}

void check_csr(const Csr& c) {
  check_vertex_count(c.n);
  const std::size_t rows = static_cast<std::size_t>(c.n);
  if (c.row_start.size() != rows + 1)
    throw InputError("Csr: row_start has " + std::to_string(c.row_start.size()) + " entries, expected n + 1 = " +
                     std::to_string(rows + 1));
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

Csr to_csr(const Graph& g) {
  check_normalized(g);
  Csr c;
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

Csr transpose(const Csr& c) {
  check_csr(c);
  Csr t;
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

}  // namespace apsp
