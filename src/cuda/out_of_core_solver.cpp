// The GPU's out-of-core dense solve (out_of_core_solver.hpp): reweight, build
// the padded matrix in host memory, close it with fw_out_of_core, certify its
// range on the host, then hand it to the sink in row blocks with the
// potentials undone (and checked against opts.verify's certificate).
#include "cuda/out_of_core_solver.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "apsp/error.hpp"
#include "apsp/verify.hpp"
#include "core/ceil_div.hpp"
#include "core/cuda_check.hpp"
#include "core/resources.hpp"
#include "core/stages.hpp"
#include "cuda/algorithm.hpp"
#include "cuda/certificate.hpp"
#include "cuda/fw_out_of_core.hpp"
#include "cuda/instance.hpp"
#include "cuda/range_rule.hpp"
#include "cuda/stored_distance.hpp"
#include "cuda/testing.hpp"

namespace apsp::cuda {
namespace {

constexpr std::int32_t kInf16 = 16383;  // the int16 words' infinity (kernels/common/words.cuh)
constexpr std::uint64_t kDeviceWorkspace = std::uint64_t{96} << 20;
// Rows handed to the sink per put(): a few MiB of int32 rows at any n.
constexpr std::int64_t kDeliveryBytes = std::int64_t{32} << 20;

// The device memory a solve may use: the free memory, or the budget below it.
std::uint64_t allowed_device_bytes(const SolveOptions& opts, std::size_t free_bytes) {
  return opts.memory_budget > 0 ? std::min<std::uint64_t>(opts.memory_budget, free_bytes) : free_bytes;
}

// The order x order matrix of the reweighted edges (least of duplicates), 0
// on the diagonal, `infinity` elsewhere; padding vertices isolated. First
// touch on the OpenMP threads, row by row.
template <class S>
void build_matrix(S* m, std::int64_t order, const std::vector<Edge>& edges, S infinity) {
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < order; ++i) {
    S* row = m + i * order;
    std::fill(row, row + order, infinity);
    row[i] = 0;
  }
  for (const Edge& e : edges)
    if (e.src != e.dst) {
      S& cell = m[e.src * order + e.dst];
      cell = std::min(cell, static_cast<S>(e.w));
    }
}

// The range certificate (range_rule.hpp) on the host matrix: the quick check
// per cell, the exact one (an out-edge into an infinite entry) where it
// cannot decide. True when every entry below `infinity` is exact and every
// entry at it unreachable.
template <class S>
bool range_holds(const S* m, std::int64_t n, std::int64_t order, int infinity, const Reweighted& rw) {
  Graph reweighted_graph;
  reweighted_graph.n = n;
  reweighted_graph.edges = rw.edges;
  const Csr csr = to_csr(reweighted_graph);
  DeviceCsr host_csr{csr.row_start.data(), csr.col.data(), csr.weight.data(), n,
                     static_cast<std::int64_t>(csr.col.size())};
  const RangeView<S> view{m, n, order, 0, infinity};
  bool holds = true;
#pragma omp parallel for schedule(dynamic, 64) reduction(&& : holds)
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t u = 0; u < n && holds; ++u)
      if (cell_escapes_range(view, host_csr, rw.max_weight, i, u)) holds = false;
  return holds;
}

// One attempt in width S: false (before any row reaches the sink) when an
// int16 result does not certify, so that the caller solves again in int32.
template <class S>
bool solve_in_width(const Graph& g, const SolveOptions& opts, const Reweighted& rw, Sink& sink, SolveSummary& out,
                    ProgressSpan progress, S infinity) {
  const std::int64_t n = g.n;
  const Precision precision = sizeof(S) == 2 ? Precision::int16 : Precision::int32;
  StageClock clock(out.times);
  const std::string what = "the out-of-core " + std::to_string(n) + "-vertex " + to_string(precision) +
                           " matrix in host memory";
  // At least n rounded to the kernels' tile; the shape's order below may pad more.
  const auto least_order = static_cast<std::uint64_t>(round_up(n, std::int64_t{kProductionPad}));
  resources::require_memory(least_order * least_order * sizeof(S), what);
  // The shape, from the device budget and (measured) rates; nothing is
  // allocated on the host before the refusals below.
  std::size_t free_bytes = 0, total_bytes = 0;
  APSP_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  constexpr std::uint64_t kReserve = std::uint64_t{1} << 30;  // as out_of_core_shape keeps back
  const std::uint64_t allowed = allowed_device_bytes(opts, free_bytes);
  const std::uint64_t device_bytes = opts.memory_budget > 0 ? allowed : (allowed > kReserve ? allowed - kReserve : 0);
  const core::SuperShape shape = out_of_core_shape(n, precision, device_bytes, 0, nullptr);
  const std::int64_t order = shape.order();
  const auto cells = static_cast<std::uint64_t>(order) * static_cast<std::uint64_t>(order);
  resources::require_memory(cells * sizeof(S), what);
  clock.lap("super-tile shape");

  std::unique_ptr<S[]> matrix(new S[cells]);
  build_matrix(matrix.get(), order, rw.edges, infinity);
  clock.lap("build matrix (host)", cells * sizeof(S));

  OutOfCoreRun run;
  run.at_boundary = [&](std::int64_t done, std::int64_t rounds) {
    progress.report(static_cast<double>(done) / static_cast<double>(rounds));
  };
  fw_out_of_core(matrix.get(), shape, run);
  clock.lap("compute");

  const bool narrow = precision == Precision::int16;
  const bool holds = !(narrow && testing::hooks.fail_int16_certificate) &&
                     range_holds(matrix.get(), n, order, infinity, rw);
  clock.lap("range certificate (host)");
  if (!holds) {
    if (narrow) return false;
    throw_range_refusal(!rw.potential.empty());
  }
  out.precision = precision;
  out.note += std::string(out.note.empty() ? "" : "; ") + "out of core: " + std::to_string(shape.blocks) + " x " +
              std::to_string(shape.blocks) + " super-tiles of width " + std::to_string(shape.width) +
              " streamed from host memory";

  // Rows to the sink, the potentials undone: d = d' - h[i] + h[j].
  const std::vector<std::int64_t>& h = rw.potential;
  const std::int64_t block_rows = std::max<std::int64_t>(1, kDeliveryBytes / std::max<std::int64_t>(1, 4 * n));
  std::vector<dist_t> rows(static_cast<std::size_t>(std::min(block_rows, n) * n));
  std::unique_ptr<RowVerifier> verifier = opts.verify ? std::make_unique<RowVerifier>(g) : nullptr;
  for (std::int64_t first = 0; first < n; first += block_rows) {
    const std::int64_t count = std::min(block_rows, n - first);
    std::int64_t overflow_at = -1;
#pragma omp parallel for schedule(static) reduction(max : overflow_at)
    for (std::int64_t x = 0; x < count; ++x) {
      const std::int64_t i = first + x;
      const S* from = matrix.get() + i * order;
      dist_t* to = rows.data() + x * n;
      const std::int64_t hi = h.empty() ? 0 : h[static_cast<std::size_t>(i)];
      for (std::int64_t j = 0; j < n; ++j) {
        const std::int32_t v = stored_to_int32(from[j], infinity);
        const std::int64_t d = h.empty() ? v : std::int64_t{v} - hi + h[static_cast<std::size_t>(j)];
        if (v != kInf && outside_int32_distances(d)) overflow_at = std::max(overflow_at, i * n + j);
        to[j] = v == kInf ? kInf : static_cast<dist_t>(d);
      }
    }
    if (overflow_at >= 0) {  // only with potentials: a stored value below kInf fits int32
      const std::int64_t i = overflow_at / n, j = overflow_at % n;
      const std::int64_t d = std::int64_t{stored_to_int32(matrix[i * order + j], infinity)} -
                             h.at(static_cast<std::size_t>(i)) + h.at(static_cast<std::size_t>(j));
      throw OverflowError("distance " + std::to_string(i) + "->" + std::to_string(j) + " = " + std::to_string(d) +
                          " does not fit the int32 output");
    }
    if (verifier) {
      const VerifyReport report = verifier->check(first, count, rows.data());
      if (!report.ok) throw VerifyError(report.first_violation);
    }
    sink.put(RowBlock{Plane::distances, Element::int32, first, count, n, rows.data()});
  }
  out.verified = opts.verify;
  clock.lap(opts.verify ? "verify and deliver (host)" : "deliver (host)",
            static_cast<std::uint64_t>(n) * static_cast<std::uint64_t>(n) * sizeof(dist_t));
  return true;
}

}  // namespace

std::uint64_t dense_instance_bytes(std::int64_t n_pad, bool predecessors, std::uint64_t extra_bytes) {
  const auto cells = static_cast<std::uint64_t>(n_pad) * static_cast<std::uint64_t>(n_pad);
  return cells * sizeof(dist_t) * (predecessors ? 2 : 1) + extra_bytes + kDeviceWorkspace;
}

std::string dense_shortfall(std::int64_t n, const SolveOptions& opts) {
  std::size_t free_bytes = 0, total_bytes = 0;
  APSP_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  const std::uint64_t allowed = allowed_device_bytes(opts, free_bytes);
  const std::uint64_t needed = dense_instance_bytes(round_up(n, kProductionPad), opts.predecessors);
  if (needed <= allowed) return {};
  return "the " + std::to_string(n) + "-vertex matrix needs " + resources::describe_bytes(needed) +
         " of device memory, " + resources::describe_bytes(allowed) +
         (opts.memory_budget > 0 && opts.memory_budget <= free_bytes ? " allowed (memory budget)" : " free");
}

void solve_out_of_core(const Graph& g, const SolveOptions& opts, Sink& sink, SolveSummary& out, ProgressSpan progress) {
  if (opts.predecessors)
    throw UsageError("fw-ooc (the GPU's out-of-core fw) does not track predecessors; use fw within device memory",
                     "predecessors");
  const auto stage_start = std::chrono::steady_clock::now();
  const Reweighted rw = reweight(g);
  out.times.add("reweight", std::chrono::duration<double>(std::chrono::steady_clock::now() - stage_start).count());
  // int16 only when asked for, as in-core fw: an attempt whose certificate
  // fails (or whose weights the width cannot hold) is solved again in int32,
  // reporting into what is left of the bar.
  if (opts.precision == Precision::int16 && rw.max_weight < kInf16 &&
      solve_in_width<std::int16_t>(g, opts, rw, sink, out, progress, static_cast<std::int16_t>(kInf16)))
    return;
  solve_in_width<std::int32_t>(g, opts, rw, sink, out, progress.rest(), kInf);
}

}  // namespace apsp::cuda
