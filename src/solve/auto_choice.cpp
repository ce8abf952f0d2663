#include "solve/auto_choice.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace apsp::choice {

using core::GraphProbe;
using core::kHeavyDegree;

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
//  - sssp's time is a fixed cost, plus a cost per (source, edge), plus a
//    cost per (source, cell), plus the rounds: each resident block walks its
//    share of the sources, one round per hop of depth at least, and a round
//    (its barriers and queue swaps) takes about the same time whatever the
//    frontier. Fitted by least squares on relative error over the eleven
//    production-sssp rows of the 2026-11-25 run (R-MAT, uniform, grid,
//    geometric, dense-half; n = 4096 to 126146): every estimate within
//    0.88x to 1.10x of the measured time.
//  - kSsspFixedSeconds: per solve (launches, the range readback, the tail
//    where the last blocks finish their last sources alone): 1.3 ms.
//  - kSsspLightEdgeSharedSeconds, kSsspLightEdgeGlobalSeconds: device-wide
//    seconds per (source, edge) for edges of vertices below kHeavyDegree
//    (dealt to a warp's lanes in edge order), with the working row in shared
//    memory (n up to kSsspSharedRowVertices) or in global memory (L2).
//  - kSsspHeavyEdgeDenseSeconds, kSsspHeavyEdgeSparseSeconds: the same for
//    edges of vertices of degree >= kHeavyDegree, relaxed by a whole warp
//    with coalesced reads: dense-half (mean degree 2047, every warp full)
//    against R-MAT (mean degree 7.4, 58-69% of edges on heavy vertices),
//    whose hubs are barely above the warp width (warps partly idle) and
//    draw many relaxations to the same few entries. Between the two the
//    cost moves with min(1, kHeavyDegree / mean degree).
//  - kSsspHopSeconds: one round of one block; the sources per block are
//    n / (kSms x blocks per SM: 1 with the row in shared memory, 1024
//    threads; 6 with it in global memory, 256 threads) and the rounds per
//    source the probe's hop depth. This is what makes the 2D grid at
//    n = 16384 (hop depth 254) cost 5x uniform's per edge.
//  - kSsspSharedRowVertices: the largest n whose working row (4 bytes a
//    vertex and two bitmaps) fits the H100's 227 KiB of shared memory per
//    block (cuda::sparse_shared_row_fits asks the device; the model cannot).
//  - kSsspCellSeconds: initializing and writing one result cell (about 8
//    bytes of device memory traffic at 3 TB/s).
// Real weights (type-adjusted, docs/perf.md "Real weights in sssp"):
//  - kFwFloat32Rate, kFwFloat64Rate: real fw's updates/s at n = 32768
//    (float32 13.55 T/s with the C tile folded in after the k-chunks,
//    docs/results/2026-11-25-h100/real-f32-variants.csv; float64 3.00 T/s,
//    docs/results/2026-11-23-h100/real.csv).
//  - sssp keeps int32's constants (the same relaxation with a float add and
//    a 4- or 8-byte atomicMin on the row; measured on R-MAT and uniform at
//    n = 16384: float32 within 1% of int32, float64 18-23% slower, which the
//    model does not charge beyond the cell cost), and for
//    float64 takes the shared-row limit at 4.25 / 8.25 of
//    kSsspSharedRowVertices (8-byte entries) and twice the cell cost.
constexpr double kFwInt32Rate = 14.8e12;
constexpr double kFwFloat32Rate = 13.55e12;
constexpr double kFwFloat64Rate = 3.00e12;
constexpr double kFwInt16Rate = 28.1e12;
constexpr double kFwPredecessorRate = 14.4e12;
constexpr double kFwRoundSeconds = 1.0e-4;
constexpr std::int64_t kFwTile = 128;
// One step of the sssp ladder in the model's terms (the list above), fitted
// the same way on its own rows of the same runs.
struct SsspModel {
  double fixed, light_shared, light_global, heavy_dense, heavy_sparse, hop;
};
// v3, the production sssp.
constexpr SsspModel kSssp{1.3e-3, 1.6e-11, 2.6e-11, 6.3e-12, 1.14e-11, 2.8e-6};
// v2, sssp-nearfar: dearer light edges (one lane per vertex, uncoalesced),
// cheaper rounds (no warp prefix sums); its eleven rows within 0.81x to 1.19x.
// It wins where the rounds dominate: the 2D grid at n = 16384 (85.6 against
// v3's 98.4 ms).
constexpr SsspModel kSsspNearFar{0.8e-3, 2.7e-11, 3.1e-11, 6.3e-12, 8.6e-12, 2.0e-6};
constexpr std::int64_t kSsspSharedRowVertices = 54000;
constexpr std::int64_t kSms = 132;
constexpr std::int64_t kSsspSharedBlocksPerSm = 1, kSsspGlobalBlocksPerSm = 6;
constexpr double kSsspCellSeconds = 1.0 / 375e9;
// fw's int16 mode holds distances up to this (kernels/common/words.cuh kInf16).
constexpr std::int64_t kInt16Distances = 16383;
// fw's fixed cost of a solve in a fresh process (module loading, the int16
// attempt and its certificate), which the n^3 and round terms above, fitted
// on warm benchmark runs, leave out: issue 21's report of tiny graphs forced
// onto the H100 (n = 64 and 991, GD99_b and jpwh_991, one CLI run each):
// fw 65 to 93 ms of compute where sssp took 0.05 to 0.3 ms. The low end.
constexpr double kFwFixedSeconds = 0.065;

// supernodal, fitted on the H100 (docs/results/2026-11-26-h100-sn3,
// supernodal-v6.csv for the solve; docs/results/2026-11-26-h100-supernodal-v2
// for the factor and the analysis):
//  - kSnAnalysisPerEdge: METIS_NodeND and the symbolic analysis on the device
//    host's CPU, per directed edge: 1.0e-6 to 1.2e-6 s on grids and geometric
//    graphs from n = 16384 to 262144 (1.5e-6 on the 3D grid, 1.7e-6 on R-MAT).
//  - the factor: kSnFactorFixed + n * kSnFactorPerVertex + factor ops *
//    kSnFactorOpSeconds (fronts >= 1024 columns ran at 4.3e12 ops/s); under
//    3% of the planar graphs' compute, so only roughly fitted (0.4x to 1.3x).
//  - the solve: kSnSolveFixed + n^2 * kSnSolveCellSeconds + n * solve ops per
//    source * kSnSolveOpSeconds; the v6 solve (min-plus tiles at 4 resident
//    blocks per SM), least squares on relative error over grid 65536,
//    geometric 126146 and grid3d 32768 with the fixed part kept at v4's
//    5.6 ms: each within 0.98x to 1.01x; R-MAT 32768 (never analysed: its hop
//    depth is below the gate) comes out at 0.72x, its deep etree's top levels
//    being latency-bound.
//  - kSnAnalysisMargin: the analysis runs only when its estimate plus the
//    solve's op-free part stays below this share of the best other estimate:
//    a graph where supernodal loses pays the analysis for nothing.
//  - float64 rows move twice the bytes: the solve's cell and op costs double
//    there (assumed, not measured; the solve is bound by its row traffic).
constexpr double kSnAnalysisPerEdge = 1.2e-6;
constexpr double kSnFactorFixed = 5e-4;
constexpr double kSnFactorPerVertex = 4e-8;
constexpr double kSnFactorOpSeconds = 1 / 4.3e12;
constexpr double kSnSolveFixed = 5.6e-3;
constexpr double kSnSolveCellSeconds = 8.4e-12;
constexpr double kSnSolveOpSeconds = 1.24e-13;
constexpr double kSnAnalysisMargin = 0.8;
// The probe's size limits of the analysis: no graph with fewer edges than
// vertices (isolated vertices: the searches are trivial), none beyond 2^24
// vertices (a 1 PiB int32 result, refused for memory before any analysis).
constexpr std::int64_t kSnMaxVertices = std::int64_t{1} << 24;

}  // namespace

namespace {

// Seconds of device compute of one sssp step on the probed graph. The row's
// placement and its cells follow the distance type: float64 rows fit shared
// memory up to about half the vertices of 4-byte rows (4.25 bytes a vertex
// with the two bitmaps, 8.25 for float64) and write 8-byte cells.
// `rows`: the sources whose rows are computed (n for the whole matrix).
double sssp_estimate(const GraphProbe& p, const SsspModel& k, std::int64_t rows) {
  const double n = static_cast<double>(p.n), m = static_cast<double>(p.m), s = static_cast<double>(rows);
  const bool wide = p.weights == WeightType::float64;
  const auto shared_row_vertices =
      static_cast<std::int64_t>(static_cast<double>(kSsspSharedRowVertices) * 4.25 / (wide ? 8.25 : 4.25));
  const bool shared_row = p.n <= shared_row_vertices;
  const double light_edge = shared_row ? k.light_shared : k.light_global;
  const double sparseness = std::min(1.0, static_cast<double>(kHeavyDegree) / std::max(1.0, p.mean_degree()));
  const double heavy_edge = k.heavy_dense + (k.heavy_sparse - k.heavy_dense) * sparseness;
  const double per_edge = (1 - p.heavy_edge_fraction) * light_edge + p.heavy_edge_fraction * heavy_edge;
  const double cell_seconds = wide ? 2 * kSsspCellSeconds : kSsspCellSeconds;
  const std::int64_t blocks = kSms * (shared_row ? kSsspSharedBlocksPerSm : kSsspGlobalBlocksPerSm);
  const auto sources_per_block = static_cast<double>((rows + blocks - 1) / blocks);
  return k.fixed + s * (m * per_edge + n * cell_seconds) +
         sources_per_block * static_cast<double>(std::max<std::int64_t>(1, p.hop_depth)) * k.hop;
}

}  // namespace

bool separators_may_be_small(std::int64_t n, std::int64_t hop_depth) {
  return n > 1 && static_cast<double>(hop_depth) >= kPlanarDepthPerLog2 * std::log2(static_cast<double>(n));
}

namespace {

// supernodal's factor and solve on the device from the analysis's figures:
// the factor whatever the rows, the solve for `rows` sources (its fixed part
// covers one batch's chain of level launches).
double supernodal_estimate(const GraphProbe& p, const SeparatorFigures& f, std::int64_t rows) {
  const double n = static_cast<double>(p.n), s = static_cast<double>(rows);
  const double row_bytes = p.weights == WeightType::float64 ? 2.0 : 1.0;
  const double factor = kSnFactorFixed + n * kSnFactorPerVertex + f.factor_ops * kSnFactorOpSeconds;
  const double solve = kSnSolveFixed +
                       row_bytes * (s * n * kSnSolveCellSeconds + s * f.solve_ops_per_source * kSnSolveOpSeconds);
  return factor + solve;
}

// Considers supernodal for `c` (whose other estimates and pick are made):
// the gates, the analysis, the estimate; appends to c.why.
void consider_supernodal(const GraphProbe& p, const AnalyseSeparators& analyse, std::int64_t rows, GpuChoice& c) {
  char line[300];
  if (!analyse || p.n > kSnMaxVertices || p.m < p.n) return;
  if (!separators_may_be_small(p.n, p.hop_depth)) {
    std::snprintf(line, sizeof line, "; supernodal not tried: hop depth %lld < %.0f log2 n, separators are large",
                  static_cast<long long>(p.hop_depth), kPlanarDepthPerLog2);
    c.why += line;
    return;
  }
  const double best = std::min({c.fw_seconds, c.sssp_seconds, c.sssp_nearfar_seconds});
  const double n = static_cast<double>(p.n);
  c.supernodal_analysis_seconds = kSnAnalysisPerEdge * static_cast<double>(p.m);
  const double least = c.supernodal_analysis_seconds + kSnSolveFixed +
                       static_cast<double>(rows) * n * kSnSolveCellSeconds;
  if (least > kSnAnalysisMargin * best) {
    std::snprintf(line, sizeof line,
                  "; supernodal not analysed: its ordering (model %.3g s) and least solve leave no margin below "
                  "%.3g s",
                  c.supernodal_analysis_seconds, best);
    c.why += line;
    return;
  }
  const SeparatorFigures f = analyse();
  c.analysed = true;
  c.supernodal_seconds = supernodal_estimate(p, f, rows);
  std::snprintf(line, sizeof line,
                "model %.3g s for supernodal's factor and solve after its analysis (%.3g s modelled, top separator "
                "%lld, nnz(L)/n = %.1f)",
                c.supernodal_seconds, c.supernodal_analysis_seconds, static_cast<long long>(f.top_separator),
                f.solve_ops_per_source / n);
  if (c.supernodal_seconds < best) {
    std::snprintf(line + std::strlen(line), sizeof line - std::strlen(line), " against %.3g s for %s", best,
                  c.algorithm.c_str());
    c.algorithm = "supernodal";
    c.why = std::string("auto picked supernodal: ") + line;
  } else {
    c.why += std::string("; ") + line;
  }
}

}  // namespace

std::int64_t rows_asked(std::int64_t n, const std::vector<vertex_t>& sources) {
  if (sources.empty()) return n;
  std::vector<vertex_t> distinct(sources);
  std::sort(distinct.begin(), distinct.end());
  return std::min<std::int64_t>(n, std::unique(distinct.begin(), distinct.end()) - distinct.begin());
}

GpuChoice choose_gpu_algorithm(const GraphProbe& p, const SolveOptions& opts, const AnalyseSeparators& analyse) {
  GpuChoice c;
  const double n = static_cast<double>(p.n);
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
  c.fw_fixed_seconds = kFwFixedSeconds;
  c.fw_seconds = kFwFixedSeconds + n * n * n / fw_rate + rounds * kFwRoundSeconds;
  // The row solvers compute the chosen sources' rows only; fw every row.
  const std::int64_t rows = rows_asked(p.n, opts.sources);
  c.sssp_seconds = sssp_estimate(p, kSssp, rows);
  c.sssp_nearfar_seconds = sssp_estimate(p, kSsspNearFar, rows);
  char line[256];
  const char* forced = opts.precision == Precision::int16         ? "int16 is a mode of fw"
                       : (opts.block.x != 0 || opts.block.y != 0) ? "a block shape was given"
                                                                  : nullptr;
  if (forced != nullptr) {
    c.algorithm = "fw";
    c.why = std::string("auto picked fw: ") + forced;
    return c;
  }
  const double best_sparse = std::min(c.sssp_seconds, c.sssp_nearfar_seconds);
  c.algorithm = best_sparse >= c.fw_seconds ? "fw" : c.sssp_nearfar_seconds < c.sssp_seconds ? "sssp-nearfar" : "sssp";
  std::snprintf(line, sizeof line,
                "auto picked %s: model %.3g s for sssp (%.3g s for sssp-nearfar) against %.3g s for fw%s%s (m/n "
                "= %.1f, %.0f%% of edges on vertices of degree >= %d, hop depth %lld)",
                c.algorithm.c_str(), c.sssp_seconds, c.sssp_nearfar_seconds, c.fw_seconds, real ? " in " : "",
                real ? to_string(p.weights) : "", p.mean_degree(), 100 * p.heavy_edge_fraction,
                static_cast<int>(kHeavyDegree), static_cast<long long>(p.hop_depth));
  c.why = line;
  if (!p.hop_depth_complete) {
    std::snprintf(line, sizeof line, "; the hop depth is a lower bound (the probe stopped after %lld edges)",
                  static_cast<long long>(p.hop_edges_scanned));
    c.why += line;
  }
  if (rows < p.n) {
    std::snprintf(line, sizeof line, "; sssp and supernodal for the %lld sources' rows, fw for all %lld",
                  static_cast<long long>(rows), static_cast<long long>(p.n));
    c.why += line;
  }
  consider_supernodal(p, analyse, rows, c);
  return c;
}

void prefer_out_of_core(GpuChoice& c, const std::string& shortfall, WeightType weights) {
  if (c.algorithm != "fw" || shortfall.empty() || weights != WeightType::int32) return;
  c.algorithm = "fw-ooc";
  c.why += "; in-core fw does not fit (" + shortfall + "), so fw-ooc solves it out of core from host memory";
}

}  // namespace apsp::choice
