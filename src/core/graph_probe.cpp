#include "core/graph_probe.hpp"

#include <algorithm>
#include <cstdlib>
#include <type_traits>

#include "core/csr.hpp"

namespace apsp::core {

namespace {

// hop_depth_search over the rows' starts (n + 1 offsets into sorted_edges).
template <class W>
HopDepth search(const std::vector<BasicEdge<W>>& sorted_edges, const std::vector<std::int64_t>& row_start,
                std::int64_t n, const std::vector<std::int64_t>& sources, std::int64_t edge_budget) {
  HopDepth found;
  std::vector<std::int32_t> hops(static_cast<std::size_t>(n));
  std::vector<vertex_t> frontier, next;
  for (const std::int64_t source : sources) {
    if (source < 0 || source >= n) continue;
    std::fill(hops.begin(), hops.end(), -1);
    hops[static_cast<std::size_t>(source)] = 0;
    std::int64_t discovered = 1;
    frontier.assign(1, static_cast<vertex_t>(source));
    for (std::int32_t level = 1; !frontier.empty() && discovered < n; ++level) {
      next.clear();
      for (const vertex_t u : frontier) {
        if (found.edges_scanned >= edge_budget) {
          found.complete = false;
          break;
        }
        found.edges_scanned += row_start[u + 1] - row_start[u];
        for (std::int64_t e = row_start[u]; e < row_start[u + 1]; ++e) {
          const vertex_t v = sorted_edges[static_cast<std::size_t>(e)].dst;
          if (hops[v] < 0) {
            hops[v] = level;
            next.push_back(v);
          }
        }
        if (discovered + static_cast<std::int64_t>(next.size()) == n) break;  // every vertex seen
      }
      discovered += static_cast<std::int64_t>(next.size());
      if (!next.empty()) found.depth = std::max<std::int64_t>(found.depth, level);
      if (!found.complete) return found;
      frontier.swap(next);
    }
  }
  return found;
}

}  // namespace

template <class W>
HopDepth hop_depth_search(const std::vector<BasicEdge<W>>& sorted_edges, std::int64_t n,
                          const std::vector<std::int64_t>& sources, std::int64_t edge_budget) {
  if (n <= 0) return HopDepth{};
  const std::vector<std::int64_t> row_start =
      row_offsets(n, sorted_edges.size(), [&](std::size_t k) { return sorted_edges[k].src; });
  return search(sorted_edges, row_start, n, sources, edge_budget);
}

template HopDepth hop_depth_search(const std::vector<Edge>&, std::int64_t, const std::vector<std::int64_t>&,
                                   std::int64_t);
template HopDepth hop_depth_search(const std::vector<EdgeF32>&, std::int64_t, const std::vector<std::int64_t>&,
                                   std::int64_t);
template HopDepth hop_depth_search(const std::vector<EdgeF64>&, std::int64_t, const std::vector<std::int64_t>&,
                                   std::int64_t);

namespace {

template <class W>
GraphProbe probe(const BasicGraph<W>& normalized) {
  GraphProbe p;
  p.n = normalized.n;
  p.weights = weight_type_of<W>;
  p.m = static_cast<std::int64_t>(normalized.edges.size());
  std::int64_t heavy_edges = 0;
  // The rows' starts for the hop-depth search, in the same pass (edges sorted by src).
  std::vector<std::int64_t> row_start(static_cast<std::size_t>(std::max<std::int64_t>(0, p.n)) + 1, 0);
  for (std::size_t e = 0, run_start = 0; e < normalized.edges.size(); ++e) {
    const BasicEdge<W>& x = normalized.edges[e];
    if (e > 0 && normalized.edges[e - 1].src != x.src) run_start = e;
    ++row_start[static_cast<std::size_t>(x.src) + 1];
    const auto run = static_cast<std::int64_t>(e - run_start + 1);
    p.max_out_degree = std::max(p.max_out_degree, run);
    // The edge that completes a run of kHeavyDegree counts the whole run; later ones count themselves.
    if (run == kHeavyDegree) heavy_edges += kHeavyDegree;
    if (run > kHeavyDegree) ++heavy_edges;
    if constexpr (std::is_integral<W>::value)
      p.max_weight =
          std::max<weight_t>(p.max_weight, static_cast<weight_t>(std::min<std::int64_t>(std::llabs(x.w), kInf)));
    p.negative = p.negative || x.w < 0;
  }
  p.heavy_edge_fraction = p.m > 0 ? static_cast<double>(heavy_edges) / static_cast<double>(p.m) : 0;
  std::vector<std::int64_t> sources;
  for (int k = 0; k < kProbeSources; ++k) sources.push_back(p.n * k / kProbeSources);
  sources.erase(std::unique(sources.begin(), sources.end()), sources.end());
  for (std::size_t v = 0; v + 1 < row_start.size(); ++v) row_start[v + 1] += row_start[v];
  const HopDepth hops = p.n > 0 ? search(normalized.edges, row_start, p.n, sources, kProbeEdgeBudget) : HopDepth{};
  p.hop_depth = hops.depth;
  p.hop_edges_scanned = hops.edges_scanned;
  p.hop_depth_complete = hops.complete;
  return p;
}

}  // namespace

GraphProbe probe_graph(const Graph& normalized) { return probe(normalized); }
GraphProbe probe_graph(const GraphF32& normalized) { return probe(normalized); }
GraphProbe probe_graph(const GraphF64& normalized) { return probe(normalized); }

}  // namespace apsp::core
