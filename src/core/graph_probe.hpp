// What "auto" reads off a graph: a cheap probe of sizes, degree spread and
// breadth-first depth (solve/auto_choice.hpp turns it into the GPU's choice;
// the CUDA backend reads the hop depth for its int16 estimate). Host-only.
#pragma once

#include <cstdint>
#include <vector>

#include "apsp/graph.hpp"

namespace apsp::core {

// What a bounded hop-depth search found: the largest hop count reached, the
// out-edges it scanned, and whether it finished (false: the edge budget ran
// out and `depth` is a lower bound).
struct HopDepth {
  std::int64_t depth = 0;
  std::int64_t edges_scanned = 0;
  bool complete = true;
};

// No budget: the search always finishes.
inline constexpr std::int64_t kUnboundedEdges = INT64_MAX;

// The largest breadth-first hop count from any of `sources` (those outside
// [0, n) are skipped) to a vertex it reaches, over edges sorted by (src, dst)
// on n vertices. Each search stops as soon as every vertex is discovered (no
// later level can add one, so the depth is exact): on dense graphs that is
// after a few rows, not all m edges. The whole search stops once it has
// scanned `edge_budget` edges (checked per scanned row, so it may overrun by
// one row), returning the depth seen so far with complete = false.
template <class W>
HopDepth hop_depth_search(const std::vector<BasicEdge<W>>& sorted_edges, std::int64_t n,
                          const std::vector<std::int64_t>& sources, std::int64_t edge_budget = kUnboundedEdges);

// hop_depth_search without a budget: the exact depth. O(n + m) per source.
template <class W>
std::int64_t largest_hop_depth(const std::vector<BasicEdge<W>>& sorted_edges, std::int64_t n,
                               const std::vector<std::int64_t>& sources) {
  return hop_depth_search(sorted_edges, n, sources).depth;
}

// A cheap look at a normalized graph: sizes, degree spread and a BFS depth
// from a few sources (O(n + m) each).
struct GraphProbe {
  std::int64_t n = 0;
  std::int64_t m = 0;
  std::int64_t max_out_degree = 0;
  std::int64_t hop_depth = 0;          // hop_depth_search's depth from the probe sources
  std::int64_t hop_edges_scanned = 0;  // the out-edges that search scanned
  bool hop_depth_complete = true;      // false: kProbeEdgeBudget ran out, hop_depth is a lower bound
  weight_t max_weight = 0;     // largest |w| (int32 graphs; 0 for real ones, which have no int16 mode)
  bool negative = false;
  WeightType weights = WeightType::int32;  // the graph's weight type: fw's rate and sssp's row width
  // Share of the edges that leave vertices of out-degree >= kHeavyDegree:
  // sssp relaxes those with a whole warp, several times faster per edge.
  double heavy_edge_fraction = 0;
  double mean_degree() const { return n > 0 ? static_cast<double>(m) / static_cast<double>(n) : 0; }
  // max out-degree over mean degree (1 for regular graphs, hundreds for hubs)
  double degree_spread() const { return mean_degree() > 0 ? static_cast<double>(max_out_degree) / mean_degree() : 1; }
};

// The degree from which sssp's kernel shares a vertex's edges over a warp
// (kernels/sparse/traits.cuh, SparseTraits::kWarpDegree).
inline constexpr std::int64_t kHeavyDegree = 32;

// Sources of the probe's BFS: 0, n / 3 and 2n / 3 (the distinct ones below n).
inline constexpr int kProbeSources = 3;
// The probe's hop-depth search stops after this many scanned edges. With the
// early stop, dense graphs scan a few rows per source, so only sparse graphs
// with more than ~11 million edges reachable from the sources reach it; there
// n is far past fw's reach, and the depth seen (a lower bound, said in auto's
// note) is what sssp's estimate and the separator gate read.
inline constexpr std::int64_t kProbeEdgeBudget = std::int64_t{1} << 25;
GraphProbe probe_graph(const Graph& normalized);
GraphProbe probe_graph(const GraphF32& normalized);
GraphProbe probe_graph(const GraphF64& normalized);

}  // namespace apsp::core
