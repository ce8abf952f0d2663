#include "apsp/graph.hpp"

#include <algorithm>
#include <limits>
#include <string>

#include "apsp/error.hpp"

namespace apsp {

Graph normalize(const Graph& g) {
  if (g.n < 0) throw InputError("negative vertex count " + std::to_string(g.n));
  if (g.n > std::numeric_limits<vertex_t>::max())
    throw InputError("vertex count " + std::to_string(g.n) + " exceeds int32");
  Graph out;
  out.n = g.n;
  out.edges.reserve(g.edges.size());
  for (std::size_t e = 0; e < g.edges.size(); ++e) {
    const Edge& x = g.edges[e];
    if (x.src < 0 || x.src >= g.n || x.dst < 0 || x.dst >= g.n)
      throw InputError("edge " + std::to_string(e) + " (" + std::to_string(x.src) + " -> " +
                       std::to_string(x.dst) + ") has a vertex outside 0.." + std::to_string(g.n - 1));
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
  const std::size_t n = static_cast<std::size_t>(g.n);
  std::vector<dist_t> d(n * n, kInf);
  for (std::size_t i = 0; i < n; ++i) d[i * n + i] = 0;
  for (const Edge& e : g.edges) {
    dist_t& cell = d[static_cast<std::size_t>(e.src) * n + static_cast<std::size_t>(e.dst)];
    cell = std::min<dist_t>(cell, e.w);
  }
  return d;
}

Csr to_csr(const Graph& g) {
  Csr c;
  c.n = g.n;
  c.row_start.assign(static_cast<std::size_t>(g.n) + 1, 0);
  for (const Edge& e : g.edges) ++c.row_start[static_cast<std::size_t>(e.src) + 1];
  for (std::size_t v = 0; v < static_cast<std::size_t>(g.n); ++v) c.row_start[v + 1] += c.row_start[v];
  c.col.resize(g.edges.size());
  c.weight.resize(g.edges.size());
  std::vector<std::int64_t> fill(c.row_start.begin(), c.row_start.end() - (g.n > 0 ? 1 : 0));
  if (g.n == 0) fill.clear();
  for (const Edge& e : g.edges) {
    const std::int64_t at = fill[static_cast<std::size_t>(e.src)]++;
    c.col[static_cast<std::size_t>(at)] = e.dst;
    c.weight[static_cast<std::size_t>(at)] = e.w;
  }
  return c;
}

Csr transpose(const Csr& c) {
  Graph g;
  g.n = c.n;
  g.edges.reserve(c.col.size());
  for (std::int64_t u = 0; u < c.n; ++u)
    for (std::int64_t k = c.row_start[u]; k < c.row_start[u + 1]; ++k)
      g.edges.push_back(Edge{c.col[k], static_cast<vertex_t>(u), c.weight[k]});
  return to_csr(g);
}

}  // namespace apsp
