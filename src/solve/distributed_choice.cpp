// The distributed solver's "auto": the row split of a per-source algorithm
// or the distributed Floyd-Warshall and its layout, from the one-process
// cost models, the ranks and the measured distributed costs.
#include <algorithm>
#include <cstdio>
#include <string>

#include "apsp/cpu.hpp"
#include "apsp/distributed.hpp"
#include "apsp/registry.hpp"
#include "solve/auto_choice.hpp"

namespace apsp {
namespace {

bool splits_rows(const std::string& name, Backend backend) {
  const AlgorithmInfo* info = find_algorithm(name, backend);
  return info != nullptr && (info->work == Work::per_source || info->work == Work::separators);
}

// The distributed fw's costs beyond n^3 / (P rate), per rank, fitted on
// docs/results/2026-11-26-h200x4-scale/scale.csv (R-MAT n = 65536, int32,
// 4 H200s, rows layout): setup + output were 0.59, 0.47 and 0.59 s at
// P = 1, 2 and 4 (the tile build, and each rank's rows converted and
// delivered), so about 0.55 s at n = 65536, taken as n^2 / 65536^2 of that
// elsewhere. The startup (MPI, contexts, NCCL) is every layout's and
// algorithm's alike and left out.
constexpr double kFwDistributedSeconds = 0.55;
constexpr double kFwDistributedOrder = 65536;

// The layouts' per-round messages against their rounds (docs/scaling.md):
// rows sends every rank the whole b x n pivot strip, so its communication
// over computation is 4 P R / (n BW); 2d's is 8 sqrt(P) R / (n BW). rows is
// the simpler and, inside a node, measured as fast (the rounds of rows and
// 2d within 1% on 2 and 4 H200s, and rows' output twice as fast); 2d is
// chosen once rows' ratio passes kRowsCommShare, where look-ahead no longer
// hides the strip. R: a GPU's int32 rate (14.8 T/s), a CPU rank's about
// 1e11 updates/s; BW: NVLink inside a node (450 GB/s), InfiniBand NDR
// between nodes (50 GB/s per GPU), a CPU node's MPI about 10 GB/s.
constexpr double kRowsCommShare = 0.5;

// One GPU's rows to host memory: 54 GB/s measured on an H100 (the pinned,
// chunked download; docs/perf.md). The row split's ranks each download
// their own rows over their own links.
constexpr double kRowDownloadBytesPerSecond = 54e9;

double rows_comm_share(std::int64_t n, Backend backend, int ranks, int ranks_per_node) {
  const bool gpu = backend == Backend::cuda;
  const bool one_node = ranks_per_node <= 0 || ranks <= ranks_per_node;
  const double rate = gpu ? 14.8e12 : 1e11;
  const double bandwidth = !gpu ? 10e9 : one_node ? 450e9 : 50e9;
  return 4.0 * ranks * rate / (std::max<double>(1, static_cast<double>(n)) * bandwidth);
}

template <class W>
DistributedChoice choose_typed(const BasicGraph<W>& normalized, Backend backend, int ranks, int ranks_per_node,
                               bool part) {
  const std::string over = " over " + std::to_string(ranks) + (ranks == 1 ? " rank" : " ranks");
  const int p = std::max(1, ranks);
  DistributedChoice c;
  std::string one_process;
  bool fw_wins = false;
  char line[256] = "";
  if (backend == Backend::cuda) {
    // Both ways divide the one-GPU work by P: the row split's sources have
    // nothing to send (each rank repeats only the graph's upload, inside
    // sssp's estimate), fw's rounds scale as measured (1.98x and 3.92x on 2
    // and 4 GPUs) and add kFwDistributedSeconds.
    SolveOptions opts;
    opts.backend = Backend::cuda;
    const choice::GpuChoice gpu = choice::choose_gpu_algorithm(core::probe_graph(normalized), opts);
    one_process = gpu.why;
    const double n = static_cast<double>(normalized.n);
    const double fw_p = gpu.fw_fixed_seconds + (gpu.fw_seconds - gpu.fw_fixed_seconds) / p +
                        kFwDistributedSeconds * n * n / (kFwDistributedOrder * kFwDistributedOrder);
    double rows_p = std::min(gpu.sssp_seconds, gpu.sssp_nearfar_seconds) / p;
    std::string row_algorithm = gpu.sssp_nearfar_seconds < gpu.sssp_seconds ? "sssp-nearfar" : "sssp";
    if (gpu.algorithm == "supernodal" && gpu.supernodal_seconds >= 0) {
      rows_p = gpu.supernodal_seconds / p;
      row_algorithm = "supernodal";
    }
    // A rank keeps its rows on its device and downloads them after its last
    // chunk (solve_rows; an overlap through two halves of the row budget
    // measured 4.7x slower on 2 H200s, docs/scaling.md): the download follows
    // its compute, and every rank downloads its n^2 / P rows at once over its
    // own link, so each adds n^2 * 4 B / (P * 54 GB/s).
    rows_p += n * n * sizeof(dist_t) / (p * kRowDownloadBytesPerSecond);
    fw_wins = fw_p <= rows_p && !part;
    c.algorithm = fw_wins ? "fw" : row_algorithm;
    std::snprintf(line, sizeof line, "; on %d GPUs the model gives %.3g s for fw against %.3g s for %s's row split", p,
                  fw_p, rows_p, row_algorithm.c_str());
  } else {
    const BasicWeightStats<W> stats = weight_stats(normalized);
    c.algorithm = cpu::choose_algorithm(normalized, stats);
    one_process =
        cpu::choice_reason(normalized.n, static_cast<std::int64_t>(normalized.edges.size()), stats.has_negative());
    // Both layouts divide the CPU work by the ranks: the one-process
    // verdict carries over.
    fw_wins = !splits_rows(c.algorithm, backend);
    // A part of the matrix: the per-source searches compute the chosen rows
    // only (fw would compute every row).
    if (fw_wins && part) {
      c.algorithm = stats.has_negative() ? "johnson" : "dijkstra";
      fw_wins = false;
      std::snprintf(line, sizeof line, "; a part of the matrix takes %s's searches", c.algorithm.c_str());
    }
  }
  if (!fw_wins) {
    c.row_split = true;
    c.why = one_process + line + "; its rows split" + over;
    return c;
  }
  for (const AlgorithmInfo& a : algorithm_registry())
    if (a.backend == backend && a.distributable) c.algorithm = a.name;
  const double share = rows_comm_share(normalized.n, backend, p, ranks_per_node);
  c.distribution = choose_distributed_layout(normalized.n, backend, p, ranks_per_node);
  char layout[160];
  std::snprintf(layout, sizeof layout, ", layout %s (the rows layout's messages %.2g of its rounds' compute%s)",
                to_string(c.distribution), share,
                ranks_per_node > 0 && p > ranks_per_node ? ", across nodes" : ", in one node");
  c.why = one_process + line + "; distributed Floyd-Warshall" + over + layout;
  return c;
}

}  // namespace

Distribution choose_distributed_layout(std::int64_t n, Backend backend, int ranks, int ranks_per_node) {
  return rows_comm_share(n, backend, std::max(1, ranks), ranks_per_node) > kRowsCommShare ? Distribution::grid
                                                                                          : Distribution::rows;
}

DistributedChoice choose_distributed(const Graph& normalized, Backend backend, int ranks, int ranks_per_node,
                                     bool part) {
  return choose_typed(normalized, backend, ranks, ranks_per_node, part);
}
DistributedChoice choose_distributed(const GraphF32& normalized, Backend backend, int ranks, int ranks_per_node,
                                     bool part) {
  return choose_typed(normalized, backend, ranks, ranks_per_node, part);
}
DistributedChoice choose_distributed(const GraphF64& normalized, Backend backend, int ranks, int ranks_per_node,
                                     bool part) {
  return choose_typed(normalized, backend, ranks, ranks_per_node, part);
}

}  // namespace apsp
