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
#include "core/midpoint_chains.hpp"
#include "core/resources.hpp"
#include "core/stages.hpp"
#include "core/tight_edges.hpp"
#include "cuda/algorithm.hpp"
#include "cuda/certificate.hpp"
#include "cuda/fw_out_of_core.hpp"
#include "cuda/instance.hpp"
#include "cuda/range_rule.hpp"
#include "cuda/stored_distance.hpp"
#include "cuda/testing.hpp"
#include "cuda/tight_in_edge.hpp"

namespace apsp::cuda {
namespace {

constexpr std::int32_t kInf16 = 16383;  // the int16 words' infinity (kernels/common/words.cuh)
// Predecessor mode's words (kernels/common/words.cuh): d << kTagBits, with
// kInfTagged (22 bits) as infinity.
constexpr int kTagBits = 8;
constexpr std::int32_t kInfTagged = (1 << 22) - 1;
// The bar's share of the tagged attempt, as in-core fw's (kernels/dense/fw.cu):
// its fallback costs int32 rounds plus the tight-edge pass.
constexpr double kTaggedAttemptShare = 0.5;
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
bool range_holds(const S* m, std::int64_t n, std::int64_t order, int infinity, const Reweighted& rw, int shift = 0) {
  Graph reweighted_graph;
  reweighted_graph.n = n;
  reweighted_graph.edges = rw.edges;
  const Csr csr = to_csr(reweighted_graph);
  DeviceCsr host_csr{csr.row_start.data(), csr.col.data(), csr.weight.data(), n,
                     static_cast<std::int64_t>(csr.col.size())};
  const RangeView<S> view{m, n, order, shift, infinity};
  bool holds = true;
#pragma omp parallel for schedule(dynamic, 64) reduction(&& : holds)
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t u = 0; u < n && holds; ++u)
      if (cell_escapes_range(view, host_csr, rw.max_weight, i, u)) holds = false;
  return holds;
}

// The super-tile shape for n vertices under opts.memory_budget (or the
// device's free memory less a reserve), from measured rates. Nothing is
// allocated on the host before it.
core::SuperShape shape_for(std::int64_t n, Precision precision, const SolveOptions& opts, bool predecessors,
                           std::int64_t forced_width = 0) {
  std::size_t free_bytes = 0, total_bytes = 0;
  APSP_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  constexpr std::uint64_t kReserve = std::uint64_t{1} << 30;  // as out_of_core_shape keeps back
  const std::uint64_t allowed = allowed_device_bytes(opts, free_bytes);
  const std::uint64_t device_bytes = opts.memory_budget > 0 ? allowed : (allowed > kReserve ? allowed - kReserve : 0);
  return out_of_core_shape(n, precision, device_bytes, forced_width, nullptr, predecessors);
}

// Round checkpoints of the super-rounds (Sink::round_checkpoints): the
// matrices in host memory as they are at a super-round boundary, named by
// their words and the shape.
class SuperRoundSaving {
 public:
  // `words`: "int32", "int16" or "tagged" (with the midpoint plane).
  SuperRoundSaving(Sink& sink, const char* words) : checkpoints_(sink.round_checkpoints()), words_(words) {}

  // The shape a held checkpoint of this solve was written with (the width
  // is chosen from measured rates, which vary between runs), when it still
  // fits the device; else shape_for's.
  core::SuperShape shape(std::int64_t n, Precision precision, const SolveOptions& opts, bool predecessors) const {
    if (checkpoints_ != nullptr) {
      const std::int64_t granule = precision == Precision::int16 ? 2 * kProductionPad : kProductionPad;
      const std::uint64_t cell = precision == Precision::int16 ? 2 : 4;
      for (std::int64_t width = granule; width < n + granule; width += granule) {
        const core::SuperShape held{width, ceil_div(n, width)};
        if (!checkpoints_->holds(state(held, cell, nullptr, nullptr))) continue;
        try {
          return shape_for(n, precision, opts, predecessors, width);
        } catch (const ResourceError&) {
          break;  // that width no longer fits: a fresh shape, and the rounds start afresh
        }
      }
    }
    return shape_for(n, precision, opts, predecessors);
  }

  // Whether a checkpoint of these words is held for some shape (the
  // predecessor mode's fallback skips the tagged attempt that failed before it).
  bool held_for(std::int64_t n, Precision precision) const {
    if (checkpoints_ == nullptr) return false;
    const std::int64_t granule = precision == Precision::int16 ? 2 * kProductionPad : kProductionPad;
    for (std::int64_t width = granule; width < n + granule; width += granule)
      if (checkpoints_->holds(
              state({width, ceil_div(n, width)}, precision == Precision::int16 ? 2 : 4, nullptr, nullptr)))
        return true;
    return false;
  }

  // Fills run.first_round from the newest valid checkpoint (when `restore`)
  // and run.at_boundary's saving, for `matrix` (and `mid`) of `shape`.
  void attach(OutOfCoreRun& run, const core::SuperShape& shape, std::uint64_t cell_bytes, void* matrix, void* mid,
              bool restore) {
    if (checkpoints_ == nullptr) return;
    state_ = state(shape, cell_bytes, matrix, mid);
    if (restore) run.first_round = checkpoints_->restore(state_);
    core::RoundBoundary report = std::move(run.at_boundary);
    run.at_boundary = [this, report](std::int64_t done, std::int64_t rounds) {
      if (report) report(done, rounds);
      state_.round = done;
      checkpoints_->round_done(state_);
    };
  }

 private:
  RoundState state(const core::SuperShape& shape, std::uint64_t cell_bytes, void* matrix, void* mid) const {
    RoundState s;
    s.layout = std::string("gpu fw-ooc ") + words_ + " width " + std::to_string(shape.width) + " blocks " +
               std::to_string(shape.blocks);
    s.rounds = shape.blocks;
    const auto cells = static_cast<std::size_t>(shape.order()) * static_cast<std::size_t>(shape.order());
    s.planes.push_back({matrix, cells * cell_bytes});
    if (std::string(words_) == "tagged") s.planes.push_back({mid, cells * sizeof(std::int32_t)});
    return s;
  }

  RoundCheckpoints* checkpoints_;
  const char* words_;
  RoundState state_;
};

void note_shape(SolveSummary& out, const core::SuperShape& shape) {
  out.note += std::string(out.note.empty() ? "" : "; ") + "out of core: " + std::to_string(shape.blocks) + " x " +
              std::to_string(shape.blocks) + " super-tiles of width " + std::to_string(shape.width) +
              " streamed from host memory";
}

// Where the predecessor plane comes from, if any. Either way rows that are
// not trees (ties on zero-weight cycles) are then rebuilt from tight edges,
// as in-core fw does.
enum class Predecessors {
  none,
  chains,      // `pred` holds the predecessor matrix (midpoint chains followed)
  tight_edges  // each read off a tight in-edge, in-core fw's rule (the tagged range failed)
};

// The closed matrix (order x order cells of S, `infinity` for unreachable)
// to the sink in row blocks, the potentials undone (d = d' - h[i] + h[j]),
// checked against opts.verify's certificate, with the predecessor plane when
// asked for (`pred`: order x order, for Predecessors::chains).
template <class S>
void deliver(const Graph& g, const SolveOptions& opts, const Reweighted& rw, const S* matrix, std::int64_t order,
             S infinity, Predecessors predecessors, std::int32_t* pred, Sink& sink) {
  const std::int64_t n = g.n;
  const std::vector<std::int64_t>& h = rw.potential;
  const std::int64_t block_rows = std::max<std::int64_t>(1, kDeliveryBytes / std::max<std::int64_t>(1, 4 * n));
  std::vector<dist_t> rows(static_cast<std::size_t>(std::min(block_rows, n) * n));
  std::vector<vertex_t> pred_rows(predecessors == Predecessors::none ? 0 : rows.size());
  std::unique_ptr<RowVerifier> verifier = opts.verify ? std::make_unique<RowVerifier>(g) : nullptr;
  const Csr csr = predecessors == Predecessors::none ? Csr{} : to_csr(g);
  // The reweighted graph's in-edges, for Predecessors::tight_edges: the
  // rule reads the reweighted distances in `matrix` (int32, kInf), as
  // in-core fw's device pass reads its own.
  Csr in_edges;
  if (predecessors == Predecessors::tight_edges) {
    Graph reweighted;
    reweighted.n = n;
    reweighted.edges = rw.edges;
    in_edges = transpose(to_csr(reweighted));
  }
  const DeviceCsr in_edges_view{in_edges.row_start.data(), in_edges.col.data(), in_edges.weight.data(), n,
                                static_cast<std::int64_t>(in_edges.col.size())};
  for (std::int64_t first = 0; first < n; first += block_rows) {
    const std::int64_t count = std::min(block_rows, n - first);
    std::int64_t overflow_at = -1;
#pragma omp parallel for schedule(static) reduction(max : overflow_at)
    for (std::int64_t x = 0; x < count; ++x) {
      const std::int64_t i = first + x;
      const S* from = matrix + i * order;
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
    if (predecessors == Predecessors::none) continue;
    std::int64_t repaired = 0;
#pragma omp parallel reduction(+ : repaired)
    {
      core::PredecessorRepair repair(n);
#pragma omp for schedule(dynamic, 16)
      for (std::int64_t x = 0; x < count; ++x) {
        const std::int64_t i = first + x;
        vertex_t* to = pred_rows.data() + x * n;
        if constexpr (sizeof(S) == sizeof(dist_t)) {
          if (predecessors == Predecessors::tight_edges)
            for (std::int64_t j = 0; j < n; ++j)
              to[j] =
                  tight_in_edge_predecessor(reinterpret_cast<const dist_t*>(matrix + i * order), i, j, in_edges_view);
        }
        if (predecessors == Predecessors::chains) std::copy(pred + i * order, pred + i * order + n, to);
        if (repair.row(csr, rows.data() + x * n, static_cast<vertex_t>(i), to)) ++repaired;
      }
    }
    testing::hooks.repaired_rows += repaired;
    sink.put(RowBlock{Plane::predecessors, Element::int32, first, count, n, pred_rows.data()});
  }
}

// One attempt in width S: false (before any row reaches the sink) when an
// int16 result does not certify, so that the caller solves again in int32.
// `predecessors` (int32 only) is none or tight_edges.
template <class S>
bool solve_in_width(const Graph& g, const SolveOptions& opts, const Reweighted& rw, Sink& sink, SolveSummary& out,
                    ProgressSpan progress, S infinity, Predecessors predecessors = Predecessors::none,
                    bool restore = true) {
  const std::int64_t n = g.n;
  const Precision precision = sizeof(S) == 2 ? Precision::int16 : Precision::int32;
  StageClock clock(out.times);
  const std::string what = "the out-of-core " + std::to_string(n) + "-vertex " + to_string(precision) +
                           " matrix in host memory";
  // At least n rounded to the kernels' tile; the shape's order below may pad more.
  const auto least_order = static_cast<std::uint64_t>(round_up(n, std::int64_t{kProductionPad}));
  resources::require_memory(least_order * least_order * sizeof(S), what);
  SuperRoundSaving saving(sink, sizeof(S) == 2 ? "int16" : "int32");
  const core::SuperShape shape = restore ? saving.shape(n, precision, opts, false)
                                         : shape_for(n, precision, opts, false);
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
  saving.attach(run, shape, sizeof(S), matrix.get(), nullptr, restore);
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
  note_shape(out, shape);
  deliver(g, opts, rw, matrix.get(), order, infinity, predecessors, nullptr, sink);
  out.verified = opts.verify;
  clock.lap(opts.verify ? "verify and deliver (host)" : "deliver (host)",
            static_cast<std::uint64_t>(n) * static_cast<std::uint64_t>(n) * sizeof(dist_t) *
                (predecessors == Predecessors::none ? 1 : 2));
  return true;
}

// Predecessor mode, after the rounds: the n x n block of the tagged matrix
// (order x order) as plain int32 distances in place, kInfTagged becoming kInf.
void untag_distances(std::int32_t* m, std::int64_t n, std::int64_t order) {
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < n; ++i) {
    std::int32_t* row = m + i * order;
    for (std::int64_t j = 0; j < n; ++j) {
      const std::int32_t v = row[j] >> kTagBits;
      row[j] = v >= kInfTagged ? kInf : v;
    }
  }
}

// Predecessor mode (int32): the tagged matrix and the midpoint matrix in host
// memory, closed by fw_out_of_core_tagged, the tagged range certified, then
// the midpoint chains followed. False (before any row reaches the sink, both
// matrices freed) when the range does not hold: the caller falls back to
// int32 rounds and tight-edge predecessors, as in-core fw does.
bool solve_tagged(const Graph& g, const SolveOptions& opts, const Reweighted& rw, Sink& sink, SolveSummary& out,
                  ProgressSpan progress) {
  if (rw.max_weight >= kInfTagged / 2) return false;  // the range could hardly hold a path (in-core's rule)
  const std::int64_t n = g.n;
  StageClock clock(out.times);
  const std::string what = "the out-of-core " + std::to_string(n) +
                           "-vertex distance and midpoint matrices (predecessors) in host memory";
  const auto least_order = static_cast<std::uint64_t>(round_up(n, std::int64_t{kProductionPad}));
  resources::require_memory(2 * least_order * least_order * sizeof(std::int32_t), what);
  SuperRoundSaving saving(sink, "tagged");
  const core::SuperShape shape = saving.shape(n, Precision::int32, opts, true);
  const std::int64_t order = shape.order();
  const auto cells = static_cast<std::uint64_t>(order) * static_cast<std::uint64_t>(order);
  resources::require_memory(2 * cells * sizeof(std::int32_t), what);
  clock.lap("super-tile shape");

  std::unique_ptr<std::int32_t[]> tagged(new std::int32_t[cells]);
  std::unique_ptr<std::int32_t[]> mid(new std::int32_t[cells]);
  build_matrix(tagged.get(), order, rw.edges, kInfTagged);
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < order; ++i) {
    std::int32_t* row = tagged.get() + i * order;
    for (std::int64_t j = 0; j < order; ++j) row[j] <<= kTagBits;
    std::fill(mid.get() + i * order, mid.get() + (i + 1) * order, -1);
  }
  clock.lap("build matrices (host)", 2 * cells * sizeof(std::int32_t));

  OutOfCoreRun run;
  run.at_boundary = [&](std::int64_t done, std::int64_t rounds) {
    progress.report(static_cast<double>(done) / static_cast<double>(rounds));
  };
  saving.attach(run, shape, sizeof(std::int32_t), tagged.get(), mid.get(), true);
  fw_out_of_core_tagged(tagged.get(), mid.get(), shape, run);
  clock.lap("compute");

  const bool holds = !testing::hooks.fail_tagged_range && range_holds(tagged.get(), n, order, kInfTagged, rw, kTagBits);
  clock.lap("range certificate (host)");
  if (!holds) return false;

  untag_distances(tagged.get(), n, order);
  core::midpoints_to_predecessors(mid.get(), tagged.get(), n, order, kInf);
  clock.lap("midpoints to predecessors (host)", cells * sizeof(std::int32_t));
  out.precision = Precision::int32;
  note_shape(out, shape);
  deliver(g, opts, rw, tagged.get(), order, kInf, Predecessors::chains, mid.get(), sink);
  out.verified = opts.verify;
  clock.lap(opts.verify ? "verify and deliver (host)" : "deliver (host)",
            2 * static_cast<std::uint64_t>(n) * static_cast<std::uint64_t>(n) * sizeof(dist_t));
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
  if (opts.predecessors && opts.precision == Precision::int16)
    throw UsageError("int16 cannot track predecessors (automatic or int32 can)", "precision");
  const auto stage_start = std::chrono::steady_clock::now();
  const Reweighted rw = reweight(g);
  out.times.add("reweight", std::chrono::duration<double>(std::chrono::steady_clock::now() - stage_start).count());
  if (opts.predecessors) {
    // In-core fw's order: the tagged attempt, else int32 rounds and
    // predecessors read off tight edges, reporting into the rest of the bar.
    // A resumed solve whose checkpoint holds the fallback's rounds skips the
    // attempt: it failed before that checkpoint was written.
    const bool fallback_held = SuperRoundSaving(sink, "int32").held_for(g.n, Precision::int32);
    if (fallback_held || !solve_tagged(g, opts, rw, sink, out, progress.part(0, kTaggedAttemptShare)))
      solve_in_width<std::int32_t>(g, opts, rw, sink, out, progress.rest(), kInf, Predecessors::tight_edges,
                                   fallback_held);
    return;
  }
  // int16 only when asked for, as in-core fw: an attempt whose certificate
  // fails (or whose weights the width cannot hold) is solved again in int32,
  // reporting into what is left of the bar.
  const bool int32_held = SuperRoundSaving(sink, "int32").held_for(g.n, Precision::int32);
  const bool attempt_int16 = opts.precision == Precision::int16 && rw.max_weight < kInf16 && !int32_held;
  if (attempt_int16 &&
      solve_in_width<std::int16_t>(g, opts, rw, sink, out, progress, static_cast<std::int16_t>(kInf16)))
    return;
  solve_in_width<std::int32_t>(g, opts, rw, sink, out, progress.rest(), kInf, Predecessors::none, !attempt_int16);
}

}  // namespace apsp::cuda
