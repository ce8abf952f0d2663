#include "core/auto_choice.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <type_traits>

#include "core/csr.hpp"

namespace apsp::core {
namespace {

// The GPU cost model, in seconds of device compute, fitted on the H100
// (fw: scripts/gpu-sparse --bench quick, docs/results/2026-11-23-h100/sparse.csv;
// sssp, the production v3 with coalesced light-vertex edges:
// docs/results/2026-11-25-h100/sparse.csv; docs/perf.md "Sparse graphs"):
//  - kFwInt32Rate, kFwInt16Rate, kFwPredecessorRate: fw's updates/s at
//    n = 32768 (docs/results/2026-11-22-h100: 14.8, 28.1 and 14.4 T/s).
//  - kFwRoundSeconds: what each of fw's n / 128 rounds adds beyond n^3 / rate
//    (launches, the pivot phases): (measured - n^3 / rate) / (n / 128) was
//    0.09 to 0.12 ms at n = 4096 and 16384, in int32 and int16.
//  - kSsspLightEdgeSharedSeconds, kSsspLightEdgeGlobalSeconds: device-wide
//    seconds per (source, edge) for edges of vertices below kHeavyDegree
//    (dealt to a warp's lanes in edge order), with the working row in shared
//    memory (n up to kSsspSharedRowVertices) or in global memory (L2):
//    (sssp time - the cell term) / (n * m) was 1.84e-11 and 1.61e-11 on
//    uniform at n = 16384 and 32768 (shared); 3.71e-11 on the 2D grid at
//    65536 and 2.64e-11 on the geometric graph at 126146 (global). Hop depth
//    made no visible difference with near-far buckets; the row's placement
//    did.
//  - kSsspHeavyEdgeDenseSeconds, kSsspHeavyEdgeSparseSeconds: the same for
//    edges of vertices of degree >= kHeavyDegree, relaxed by a whole warp
//    with coalesced reads: 3.7e-12 on the dense graph with half of all pairs
//    (n = 4096, mean degree 2047, every warp full), about 1.2e-11 on R-MAT
//    (mean degree 7.4, 58-69% of edges on heavy vertices; what remains after
//    the light edges' share at n = 16384 and 32768), whose hubs are barely
//    above the warp width (warps partly idle) and draw many relaxations to
//    the same few entries. Between the two the cost moves with
//    min(1, kHeavyDegree / mean degree).
//  - kSsspSharedRowVertices: the largest n whose working row (4 bytes a
//    vertex and two bitmaps) fits the H100's 227 KiB of shared memory per
//    block (cuda::sparse_shared_row_fits asks the device; the model cannot).
//  - kSsspCellSeconds: initializing and writing one result cell (about 8
//    bytes of device memory traffic at 3 TB/s).
//  - kSsspLaunchSeconds: per solve, the launch and the range readback.
// Real weights (type-adjusted, docs/perf.md "Real weights in sssp"):
//  - kFwFloat32Rate, kFwFloat64Rate: real fw's updates/s at n = 32768
//    (docs/results/2026-11-23-h100/real.csv: 11.95 and 3.00 T/s).
//  - sssp keeps int32's per-edge costs (the same relaxation with a float
//    add and a 4- or 8-byte atomicMin on the row; not measured yet), and
//    for float64 takes the shared-row limit at 4.25 / 8.25 of
//    kSsspSharedRowVertices (8-byte entries) and twice the cell cost.
constexpr double kFwInt32Rate = 14.8e12;
constexpr double kFwFloat32Rate = 11.95e12;
constexpr double kFwFloat64Rate = 3.00e12;
constexpr double kFwInt16Rate = 28.1e12;
constexpr double kFwPredecessorRate = 14.4e12;
constexpr double kFwRoundSeconds = 1.0e-4;
constexpr std::int64_t kFwTile = 128;
constexpr double kSsspLightEdgeSharedSeconds = 1.8e-11;
constexpr double kSsspLightEdgeGlobalSeconds = 3.1e-11;
constexpr std::int64_t kSsspSharedRowVertices = 54000;
constexpr double kSsspHeavyEdgeDenseSeconds = 3.7e-12;
constexpr double kSsspHeavyEdgeSparseSeconds = 1.2e-11;
constexpr double kSsspCellSeconds = 1.0 / 375e9;
constexpr double kSsspLaunchSeconds = 20e-6;
// fw's int16 mode holds distances up to this (kernels/common/words.cuh kInf16).
constexpr std::int64_t kInt16Distances = 16383;

}  // namespace

template <class W>
std::int64_t largest_hop_depth(const std::vector<BasicEdge<W>>& sorted_edges, std::int64_t n,
                               const std::vector<std::int64_t>& sources) {
  const std::vector<std::int64_t> row_start =
      row_offsets(n, sorted_edges.size(), [&](std::size_t k) { return sorted_edges[k].src; });
  std::int64_t deepest = 0;
  std::vector<std::int32_t> hops(static_cast<std::size_t>(n));
  std::vector<vertex_t> frontier, next;
  for (const std::int64_t source : sources) {
    if (source < 0 || source >= n) continue;
    std::fill(hops.begin(), hops.end(), -1);
    hops[static_cast<std::size_t>(source)] = 0;
    frontier.assign(1, static_cast<vertex_t>(source));
    for (std::int32_t level = 1; !frontier.empty(); ++level) {
      next.clear();
      for (const vertex_t u : frontier)
        for (std::int64_t e = row_start[u]; e < row_start[u + 1]; ++e) {
          const vertex_t v = sorted_edges[static_cast<std::size_t>(e)].dst;
          if (hops[v] < 0) {
            hops[v] = level;
            next.push_back(v);
          }
        }
      if (!next.empty()) deepest = std::max<std::int64_t>(deepest, level);
      frontier.swap(next);
    }
  }
  return deepest;
}

template std::int64_t largest_hop_depth(const std::vector<Edge>&, std::int64_t, const std::vector<std::int64_t>&);
template std::int64_t largest_hop_depth(const std::vector<EdgeF32>&, std::int64_t, const std::vector<std::int64_t>&);
template std::int64_t largest_hop_depth(const std::vector<EdgeF64>&, std::int64_t, const std::vector<std::int64_t>&);

namespace {

template <class W>
GraphProbe probe(const BasicGraph<W>& normalized) {
  GraphProbe p;
  p.n = normalized.n;
  p.weights = weight_type_of<W>;
  p.m = static_cast<std::int64_t>(normalized.edges.size());
  std::int64_t heavy_edges = 0;
  for (std::size_t e = 0, run_start = 0; e < normalized.edges.size(); ++e) {
    const BasicEdge<W>& x = normalized.edges[e];
    if (e > 0 && normalized.edges[e - 1].src != x.src) run_start = e;
    const auto run = static_cast<std::int64_t>(e - run_start + 1);
    p.max_out_degree = std::max(p.max_out_degree, run);
    // The edge that completes a run of kHeavyDegree counts the whole run; later ones count themselves.
    if (run == kHeavyDegree) heavy_edges += kHeavyDegree;
    if (run > kHeavyDegree) ++heavy_edges;
    if constexpr (std::is_integral<W>::value)
      p.max_weight = std::max<weight_t>(p.max_weight, static_cast<weight_t>(std::min<std::int64_t>(std::llabs(x.w), kInf)));
    p.negative = p.negative || x.w < 0;
  }
  p.heavy_edge_fraction = p.m > 0 ? static_cast<double>(heavy_edges) / static_cast<double>(p.m) : 0;
  std::vector<std::int64_t> sources;
  for (int k = 0; k < kProbeSources; ++k) sources.push_back(p.n * k / kProbeSources);
  sources.erase(std::unique(sources.begin(), sources.end()), sources.end());
  p.hop_depth = largest_hop_depth(normalized.edges, p.n, sources);
  return p;
}

}  // namespace

GraphProbe probe_graph(const Graph& normalized) { return probe(normalized); }
GraphProbe probe_graph(const GraphF32& normalized) { return probe(normalized); }
GraphProbe probe_graph(const GraphF64& normalized) { return probe(normalized); }

GpuChoice choose_gpu_algorithm(const GraphProbe& p, const SolveOptions& opts) {
  GpuChoice c;
  const double n = static_cast<double>(p.n), m = static_cast<double>(p.m);
  // fw tries int16 when the distances look small (its own estimate is the
  // same hop depth times the largest weight, doubled); real weights have no
  // integer modes.
  const bool real = p.weights != WeightType::int32;
  const bool int16_likely = !real && !opts.predecessors && opts.precision != Precision::int32 &&
                            2 * p.hop_depth * std::int64_t{p.max_weight} < kInt16Distances;
  const double fw_rate = p.weights == WeightType::float32   ? kFwFloat32Rate
                         : p.weights == WeightType::float64 ? kFwFloat64Rate
                         : opts.predecessors                ? kFwPredecessorRate
                         : int16_likely                     ? kFwInt16Rate
                                                            : kFwInt32Rate;
  const auto rounds = static_cast<double>((p.n + kFwTile - 1) / kFwTile);
  c.fw_seconds = n * n * n / fw_rate + rounds * kFwRoundSeconds;
  // The row's placement follows the row's bytes: float64 rows fit shared
  // memory up to about half the vertices of 4-byte rows.
  const double row_bytes = p.weights == WeightType::float64 ? 8.25 : 4.25;  // per vertex, with the two bitmaps
  const auto shared_row_vertices = static_cast<std::int64_t>(static_cast<double>(kSsspSharedRowVertices) * 4.25 / row_bytes);
  const double light_edge =
      p.n <= shared_row_vertices ? kSsspLightEdgeSharedSeconds : kSsspLightEdgeGlobalSeconds;
  const double sparseness = std::min(1.0, static_cast<double>(kHeavyDegree) / std::max(1.0, p.mean_degree()));
  const double heavy_edge =
      kSsspHeavyEdgeDenseSeconds + (kSsspHeavyEdgeSparseSeconds - kSsspHeavyEdgeDenseSeconds) * sparseness;
  const double per_edge = (1 - p.heavy_edge_fraction) * light_edge + p.heavy_edge_fraction * heavy_edge;
  const double cell_seconds = p.weights == WeightType::float64 ? 2 * kSsspCellSeconds : kSsspCellSeconds;
  c.sssp_seconds = kSsspLaunchSeconds + n * (m * per_edge + n * cell_seconds);
  char line[256];
  const char* forced = opts.precision == Precision::int16 ? "int16 is a mode of fw"
                       : (opts.block.x != 0 || opts.block.y != 0) ? "a block shape was given"
                                                                   : nullptr;
  if (forced != nullptr) {
    c.algorithm = "fw";
    c.why = std::string("auto picked fw: ") + forced;
    return c;
  }
  c.algorithm = c.sssp_seconds < c.fw_seconds ? "sssp" : "fw";
  std::snprintf(line, sizeof line,
                "auto picked %s: model %.3g s for sssp against %.3g s for fw%s%s (m/n = %.1f, %.0f%% of edges on "
                "vertices of degree >= %d, hop depth %lld)",
                c.algorithm.c_str(), c.sssp_seconds, c.fw_seconds, real ? " in " : "", real ? to_string(p.weights) : "",
                p.mean_degree(), 100 * p.heavy_edge_fraction, static_cast<int>(kHeavyDegree),
                static_cast<long long>(p.hop_depth));
  c.why = line;
  return c;
}

}  // namespace apsp::core
