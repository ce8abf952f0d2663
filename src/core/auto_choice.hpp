// What "auto" reads off a graph, and the GPU's choice between the dense
// solver (fw) and the batched single-source solver (sssp). Host-only, built
// with and without CUDA, so the rule is unit-tested everywhere.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "apsp/graph.hpp"
#include "apsp/solver.hpp"

namespace apsp::core {

// The largest breadth-first hop count from any of `sources` to a vertex it
// reaches, over edges sorted by (src, dst) on n vertices. O(n + m) per source.
template <class W>
std::int64_t largest_hop_depth(const std::vector<BasicEdge<W>>& sorted_edges, std::int64_t n,
                               const std::vector<std::int64_t>& sources);

// A cheap look at a normalized graph: sizes, degree spread and a BFS depth
// from a few sources (O(n + m) each).
struct GraphProbe {
  std::int64_t n = 0;
  std::int64_t m = 0;
  std::int64_t max_out_degree = 0;
  std::int64_t hop_depth = 0;  // largest_hop_depth from the probe sources
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
GraphProbe probe_graph(const Graph& normalized);
GraphProbe probe_graph(const GraphF32& normalized);
GraphProbe probe_graph(const GraphF64& normalized);

// The GPU cost model's verdict: the algorithm, the estimates (seconds of
// compute on the device) and one line saying why.
struct GpuChoice {
  std::string algorithm;  // "fw", "sssp" or "sssp-nearfar" (where rounds, not edges, dominate)
  double fw_seconds = 0;
  double sssp_seconds = 0;          // the production sssp (v3)
  double sssp_nearfar_seconds = 0;  // its v2
  std::string why;
};

// "auto" on the GPU. fw when an option only fw honours is set (int16, a
// block shape); else the smaller estimate of the model in auto_choice.cpp,
// for the probe's weight type (real weights: fw's float32 / float64 rates).
GpuChoice choose_gpu_algorithm(const GraphProbe& probe, const SolveOptions& opts);

}  // namespace apsp::core
