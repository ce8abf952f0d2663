#include "core/auto_choice.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "core/csr.hpp"

namespace apsp::core {
namespace {

// The GPU cost model, in seconds of device compute. PLACEHOLDERS until the
// lead fits them on the H100 with apsp_bench_gpu_sparse_bench (docs/perf.md,
// "Sparse graphs"); how each is (to be) fitted:
//  - kFwInt32Rate, kFwInt16Rate, kFwPredecessorRate: fw's updates/s at
//    n = 32768 (docs/results/2026-11-22-h100: 14.8, 28.1 and 14.4 T/s);
//    measured, not placeholders.
//  - kSsspEdgeSeconds: device-wide seconds per edge relaxation of sssp; fit
//    as the slope of sssp time against n * m * passes on R-MAT and uniform
//    (low hop depth, so rounds cost little). Placeholder: 60 G relaxations/s.
//  - kSsspPassesBase, kSsspPassesPerHopDoubling: relaxations per edge per
//    source grow slowly with the hop depth (near-far re-relaxes few edges);
//    fit from the kernel's own count on grid and geometric graphs.
//  - kSsspRoundSeconds: device-wide seconds per (source, round); a round is a
//    few block barriers, and rounds grow with the hop depth; fit on grids,
//    where rounds dominate. Placeholder: 1.5 us per round over 128 blocks.
//  - kSsspCellSeconds: writing one result cell and initializing it (about
//    8 bytes of device memory traffic at 3 TB/s).
//  - kSsspSpreadPenalty: extra time per doubling of the degree spread beyond
//    kSpreadFree (hubs go to whole warps, so the penalty is small); fit on
//    R-MAT against uniform.
constexpr double kFwInt32Rate = 14.8e12;
constexpr double kFwInt16Rate = 28.1e12;
constexpr double kFwPredecessorRate = 14.4e12;
constexpr double kSsspEdgeSeconds = 1.0 / 60e9;
constexpr double kSsspPassesBase = 1.5;
constexpr double kSsspPassesPerHopDoubling = 0.25;
constexpr double kSsspRoundSeconds = 1.5e-6 / 128;
constexpr double kSsspCellSeconds = 1.0 / 375e9;
constexpr double kSsspSpreadPenalty = 0.05;
constexpr double kSpreadFree = 32;
// fw's int16 mode holds distances up to this (kernels/common/words.cuh kInf16).
constexpr std::int64_t kInt16Distances = 16383;

}  // namespace

std::int64_t largest_hop_depth(const std::vector<Edge>& sorted_edges, std::int64_t n,
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

GraphProbe probe_graph(const Graph& normalized) {
  GraphProbe p;
  p.n = normalized.n;
  p.m = static_cast<std::int64_t>(normalized.edges.size());
  std::int64_t run = 0;
  for (std::size_t e = 0; e < normalized.edges.size(); ++e) {
    const Edge& x = normalized.edges[e];
    run = e > 0 && normalized.edges[e - 1].src == x.src ? run + 1 : 1;
    p.max_out_degree = std::max(p.max_out_degree, run);
    p.max_weight = std::max<weight_t>(p.max_weight, static_cast<weight_t>(std::min<std::int64_t>(std::llabs(x.w), kInf)));
    p.negative = p.negative || x.w < 0;
  }
  std::vector<std::int64_t> sources;
  for (int k = 0; k < kProbeSources; ++k) sources.push_back(p.n * k / kProbeSources);
  sources.erase(std::unique(sources.begin(), sources.end()), sources.end());
  p.hop_depth = largest_hop_depth(normalized.edges, p.n, sources);
  return p;
}

GpuChoice choose_gpu_algorithm(const GraphProbe& p, const SolveOptions& opts) {
  GpuChoice c;
  const double n = static_cast<double>(p.n), m = static_cast<double>(p.m);
  // fw tries int16 when the distances look small (its own estimate is the
  // same hop depth times the largest weight, doubled).
  const bool int16_likely = !opts.predecessors && opts.precision != Precision::int32 &&
                            2 * p.hop_depth * std::int64_t{p.max_weight} < kInt16Distances;
  const double fw_rate = opts.predecessors ? kFwPredecessorRate : int16_likely ? kFwInt16Rate : kFwInt32Rate;
  c.fw_seconds = n * n * n / fw_rate;
  const double hops = static_cast<double>(std::max<std::int64_t>(1, p.hop_depth));
  const double passes = kSsspPassesBase + kSsspPassesPerHopDoubling * std::log2(1 + hops);
  const double spread = std::max(1.0, p.degree_spread() / kSpreadFree);
  c.sssp_seconds = n * (m * passes * kSsspEdgeSeconds + hops * kSsspRoundSeconds + n * kSsspCellSeconds) *
                   (1 + kSsspSpreadPenalty * std::log2(spread));
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
                "auto picked %s: model %.3g s for sssp against %.3g s for fw (m/n = %.1f, hop depth %lld, degree spread %.0f)",
                c.algorithm.c_str(), c.sssp_seconds, c.fw_seconds, p.mean_degree(), static_cast<long long>(p.hop_depth),
                p.degree_spread());
  c.why = line;
  return c;
}

}  // namespace apsp::core
