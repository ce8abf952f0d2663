// solve_distributed: checks and agreements around the rounds, the process
// grid, and delivery of each rank's rows to its sink.
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>

#include "apsp/distributed.hpp"
#include "apsp/error.hpp"
#include "apsp/verify.hpp"
#include "core/algorithm_checks.hpp"
#include "core/stages.hpp"
#include "core/negative_cycle.hpp"
#include "core/resources.hpp"
#include "core/weights.hpp"
#include "cpu/backend.hpp"
#include "cuda/algorithm.hpp"
#include "distributed/cpu_engine.hpp"
#include "distributed/gpu_engine.hpp"
#include "distributed/memory_plan.hpp"
#include "distributed/output.hpp"
#include "distributed/rank_threads.hpp"
#include "distributed/same_graph.hpp"
#include "distributed/schedule.hpp"
#include "sink/rank_checkpoints.hpp"
#include "sink/resume.hpp"

namespace apsp {
namespace {

// The name of what the distributed solver runs on `backend`: that backend's
// distributable registry entry (fw-blocked on the CPU, fw on the GPU).
const char* distributed_algorithm(Backend backend) {
  const std::vector<AlgorithmInfo>& entries = backend == Backend::cuda ? cuda::gpu_algorithm_infos()
                                                                       : cpu::detail::cpu_algorithm_infos();
  for (const AlgorithmInfo& a : entries)
    if (a.distributable) return a.name;
  throw Error(std::string("the registry has no distributable entry for the ") + to_string(backend) + " backend");
}

// What this rank may use for its share (distributed/memory_plan.hpp): a GPU
// rank its device's free memory, capped by `budget` when set; the host's
// available memory (core/resources.hpp), which a CPU rank's budget caps.
dist::RankMemory measure_rank_memory(bool on_gpu, int device, std::uint64_t budget) {
  dist::RankMemory memory;
  memory.gpu = on_gpu;
  if (on_gpu) {
    const std::uint64_t free_bytes = dist::gpu_free_bytes(device);
    memory.device_budget = budget > 0 && budget < free_bytes;
    memory.device = memory.device_budget ? budget : free_bytes;
  }
  if (const std::optional<resources::AvailableMemory> host = resources::available_memory(resources::MemorySources{})) {
    memory.host_known = true;
    memory.host = host->bytes;
  }
  if (!on_gpu && budget > 0 && (!memory.host_known || budget < memory.host)) {
    memory.host_known = memory.host_budget = true;
    memory.host = budget;
  }
  return memory;
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

dist::ProcessGrid choose_grid(const Communicator& comm, const DistributedOptions& opts, std::int64_t tiles) {
  const int ranks = comm.size();
  int rows = ranks, cols = 1;
  const bool given = opts.grid_rows != 0 || opts.grid_cols != 0;
  if (opts.distribution == Distribution::rows) {
    if (given && (opts.grid_rows != ranks || opts.grid_cols != 1))
      throw UsageError("the rows distribution is a " + std::to_string(ranks) + " x 1 grid; a grid shape is for 2d",
                       "grid");
  } else if (given) {
    if (opts.grid_rows <= 0 || opts.grid_cols <= 0 ||
        static_cast<std::int64_t>(opts.grid_rows) * opts.grid_cols != ranks)
      throw UsageError("a " + std::to_string(opts.grid_rows) + " x " + std::to_string(opts.grid_cols) +
                           " grid does not have the " + std::to_string(ranks) + " ranks of the communicator",
                       "grid");
    rows = opts.grid_rows;
    cols = opts.grid_cols;
  } else {
    // The most square grid, rows <= cols.
    rows = static_cast<int>(std::sqrt(static_cast<double>(ranks)));
    while (ranks % rows != 0) --rows;
    cols = ranks / rows;
  }
  dist::ProcessGrid g;
  g.rows = rows;
  g.cols = cols;
  g.row = comm.rank() / cols;
  g.col = comm.rank() % cols;
  g.tiles = tiles;
  return g;
}

}  // namespace

const char* to_string(Distribution d) { return d == Distribution::rows ? "rows" : "2d"; }

Distribution parse_distribution(const std::string& s) {
  if (s == "rows") return Distribution::rows;
  if (s == "2d") return Distribution::grid;
  throw UsageError("unknown distribution '" + s + "' (expected rows or 2d)", "distribution");
}

namespace {

// Real weights, after the rounds: a diagonal entry below 0 on some rank (but
// above the tolerance, else the rounds threw) is a candidate negative cycle,
// which the one rule judges on the graph's own edges, as fw-blocked does
// (every rank holds the graph and reaches the same verdict). Collective.
template <class W>
void confirm_candidate_cycle(Communicator& comm, dist::TileEngine& engine, const BasicGraph<W>& normalized) {
  if constexpr (std::is_floating_point<W>::value) {
    bool candidate = false;
    agree(comm, [&] { candidate = engine.candidate_negative_diagonal(); });
    if (comm.all_reduce(std::int64_t{candidate}, ReduceOp::max) == 0) return;
    std::int64_t on_cycle = -1;
    agree(comm, [&] { on_cycle = core::vertex_on_negative_cycle(to_csr(normalized)); });
    if (on_cycle >= 0) throw Agreed<NegativeCycleError>(-1, on_cycle);
  } else {
    (void)comm, (void)engine, (void)normalized;
  }
}

// GPU ranks out of core per rank (dist::make_gpu_ooc_engine) take integer
// weights on super widths that are multiples of the GPU tile; UsageError
// otherwise, before any work.
template <class W>
void require_gpu_out_of_core(std::int64_t width) {
  if (std::is_floating_point<W>::value)
    throw UsageError(std::string("GPU ranks out of core per rank compute int32 weights (fw-ooc's); ") +
                         to_string(weight_type_of<W>) +
                         " weights need their share in device memory: more device memory or more ranks, or the "
                         "cpu backend",
                     "super_width");
  const std::int64_t granule = dist::gpu_tile(WeightType::int32);
  if (width % granule != 0)
    throw UsageError("GPU ranks out of core need a super width that is a multiple of " + std::to_string(granule) +
                         ", not " + std::to_string(width),
                     "super_width");
}

template <class W>
DistributedResult solve_typed(Communicator& comm, const BasicGraph<W>& g, const DistributedOptions& opts, Sink& sink) {
  constexpr bool kReal = std::is_floating_point<W>::value;
  const auto start = std::chrono::steady_clock::now();
  DistributedResult result;
  // Before the team size changes: a count OpenMP cannot start crashes it.
  require_thread_count(opts.threads);
  const dist::RankThreads rank_threads(opts.threads);
  try {
    BasicGraph<W> normalized;
    BasicWeightStats<W> stats;
    dist::ProcessGrid grid;
    const bool on_gpu = opts.backend == Backend::cuda;
    // A super width (forced, or the memory plan's) makes the tiles super-tiles
    // of that width: out of core per rank.
    std::int64_t tile = opts.super_width > 0 ? opts.super_width
                        : on_gpu             ? dist::gpu_tile(weight_type_of<W>)
                                             : dist::cpu_tile();
    StageClock setup(result.setup_stages);
    agree(comm, [&] {
      if (!opts.sources.empty() || !opts.targets.empty() || opts.cutoff)
        throw UsageError(
            "the distributed Floyd-Warshall computes every row; sources, targets and a cutoff take the "
            "row split of a per-source algorithm (dijkstra, johnson, bellman-ford, supernodal; sssp on GPUs)",
            !opts.sources.empty()   ? "sources"
            : !opts.targets.empty() ? "targets"
                                    : "cutoff");
      if (opts.super_width < 0 || opts.super_width % dist::cpu_tile() != 0)
        throw UsageError("super width " + std::to_string(opts.super_width) + " is not a positive multiple of " +
                             std::to_string(dist::cpu_tile()),
                         "super_width");
      if (on_gpu && opts.super_width > 0) require_gpu_out_of_core<W>(opts.super_width);
      if (!on_gpu && opts.precision == Precision::int16)
        throw UsageError("the distributed CPU solver computes in int32 (int64 where sums could overflow); int16 is "
                         "for the cuda backend",
                         "precision");
      if (on_gpu && opts.precision == Precision::int64)
        throw UsageError("the distributed GPU solver computes in int32 or int16, not int64; use the cpu backend",
                         "precision");
      if (kReal && opts.precision != Precision::automatic)
        throw UsageError(std::string(to_string(weight_type_of<W>)) + " weights compute in their own type; " +
                             to_string(opts.precision) + " is for int32 weights",
                         "precision");
      // The CLI's rank 0 normalized the graph it broadcast: one O(m) check
      // instead of normalize's sort (30 ms at R-MAT n = 65536 on every rank).
      normalized = is_normalized(g) ? g : normalize(g);
      stats = weight_stats(normalized);
      grid = choose_grid(comm, opts, (normalized.n + tile - 1) / tile);
    });
    setup.lap("normalize");
    dist::require_same_graph(comm, normalized);
    setup.lap("same graph");
    result.n = normalized.n;
    result.grid_rows = grid.rows;
    result.grid_cols = grid.cols;
    result.tile = tile;
    result.backend = on_gpu ? Backend::cuda : Backend::cpu;
    result.algorithm = distributed_algorithm(result.backend);
    result.precision = Precision::int32;
    result.super_width = opts.super_width;
    if (result.super_width > 0)
      result.out_of_core = "super-rounds of " + std::to_string(result.super_width) + " (forced by super_width)";

    std::unique_ptr<dist::TileEngine> engine;
    dist::GpuEngineOptions gpu_options;
    gpu_options.device = opts.device >= 0 ? opts.device : std::max(0, comm.device());
    // The per-rank memory choice, before any tile is built.
    if (opts.super_width == 0) {
      dist::ShareShape share;
      share.n = normalized.n;
      share.grid = grid;
      share.tile = tile;
      share.predecessors = opts.predecessors && !on_gpu;
      // int32 cells on GPUs (an int16 attempt needs half and may widen); the
      // CPU engine's int64 where sums could overflow, else the weights' own.
      share.cell_bytes = static_cast<std::int64_t>(std::max(sizeof(W), sizeof(std::int32_t)));
      // An explicit int16 solve on GPUs keeps int16 tiles: a share that only
      // they fit is not refused.
      if constexpr (!kReal)
        if (on_gpu && opts.precision == Precision::int16) {
          share.cell_bytes = 2;
          share.granule = 256;  // int16 super-tiles out of core (fw-ooc's int16 granule)
        }
      if constexpr (!kReal)
        if (!on_gpu && (opts.precision == Precision::int64 || !fits_int32_arithmetic(normalized, stats)))
          share.cell_bytes = 8;
      dist::RankMemory memory;
      agree(comm, [&] { memory = measure_rank_memory(on_gpu, gpu_options.device, opts.memory_budget); });
      const dist::MemoryPlan plan = dist::agree_memory_plan(comm, share, memory);
      result.memory_plan = plan.summary;
      if (plan.super_width > 0) {
        // Only GPU ranks choose out of core (a CPU rank's share is in host
        // memory either way): super-tiles of the agreed width from here on.
        agree(comm, [&] { require_gpu_out_of_core<W>(plan.super_width); });
        tile = plan.super_width;
        grid = dist::grid_for_tile(grid, normalized.n, tile);
        result.tile = tile;
        result.super_width = tile;
        result.out_of_core = plan.summary;
      }
    }
    const std::int64_t super_width = result.super_width;
    gpu_options.lookahead = opts.lookahead;
    gpu_options.precision = opts.precision;
    gpu_options.predecessors = opts.predecessors;
    const auto build_engine = [&] {
      if (on_gpu) {
        if constexpr (!kReal)
          if (super_width > 0) {
            engine = dist::make_gpu_ooc_engine(normalized, grid, super_width, gpu_options);
            return;
          }
        engine = dist::make_gpu_engine(normalized, grid, gpu_options);
      }
      if (!on_gpu) {
        dist::CpuEngineOptions engine_options;
        if constexpr (kReal)
          engine_options.negative_tolerance =
              core::distance_tolerance<W>(normalized.n, static_cast<double>(stats.max_abs));
        else
          engine_options.int32_arithmetic = opts.precision != Precision::int64 &&
                                            fits_int32_arithmetic(normalized, stats);
        engine_options.predecessors = opts.predecessors;
        engine_options.threads = opts.threads > 0 ? opts.threads : omp_get_max_threads();
        engine_options.lookahead = opts.lookahead;
        engine_options.super_width = opts.super_width;
        engine = dist::make_cpu_engine(normalized, grid, engine_options);
      }
    };
    agree(comm, build_engine);
    setup.lap("build tiles");
    // The communicator's device side may still be in the making (nccl: on a
    // helper thread since startup, overlapping the read and the tile build
    // above); the splits need it, and the rounds unless their device calls
    // go through the host transport until it is ready (stages_until_ready:
    // the rounds switch over at a round boundary, run_rounds). Its failure
    // on any rank is every rank's.
    const bool splits = grid.cols > 1 && grid.rows > 1;
    if (splits || !comm.stages_until_ready()) agree(comm, [&] { comm.wait_ready(); });
    setup.lap("comm ready");
    // A process row (column) that holds every rank, in rank order (a 1 x P
    // grid's row, a P x 1 grid's column: the rows layout), is `comm` itself:
    // no split, which on GPUs creates an NCCL communicator (a collective
    // costing tenths of a second, docs/scaling.md).
    const std::unique_ptr<Communicator> own_row = grid.cols > 1 && grid.rows > 1 ? comm.split(grid.row, grid.col)
                                                                                 : nullptr;
    const std::unique_ptr<Communicator> own_column = grid.rows > 1 && grid.cols > 1 ? comm.split(grid.col, grid.row)
                                                                                    : nullptr;
    Communicator* const process_row = grid.cols == 1 ? nullptr : grid.rows == 1 ? &comm : own_row.get();
    Communicator* const process_column = grid.rows == 1 ? nullptr : grid.cols == 1 ? &comm : own_column.get();
    setup.lap("split comms");
    // Apart: a sink's begin() may make collective calls of its own, which no
    // rank may skip because its engine failed.
    SinkLayout layout{normalized.n, dist::output_element<W>(), opts.predecessors};
    if (sink.keeps_partial()) {
      SolveOptions keyed;
      keyed.precision = opts.precision;
      keyed.predecessors = opts.predecessors;
      layout.solve_key = resume::solve_key(normalized, result.algorithm, result.backend, keyed);
    }
    agree(comm, [&] { sink.begin(layout); });
    // A resumed output: the rows an interrupted run kept are not put again.
    resume::RowsLeft left = resume::rows_left(sink, layout, SolveOptions{}, false);
    result.resume_note = left.note;
    Sink& into = left.into ? *left.into : sink;
    setup.lap("begin sink");
    // Round checkpoints, each rank its share (several ranks, an engine that
    // keeps them: not a GPU int16 attempt): restored before the rounds,
    // saved at the round after which rank 0's clock says one is due.
    auto* const checkpoints = dynamic_cast<sink::RankRoundCheckpoints*>(sink.round_checkpoints());
    const bool checkpointed = checkpoints != nullptr && engine->precision() != Precision::int16 &&
                              !engine->state_layout().empty();
    const auto round_state = [&](std::int64_t round) {
      return RoundState{engine->state_layout(), round, grid.tiles, engine->state_buffers()};
    };
    std::int64_t first_round = 0;
    if (checkpointed) {
      agree(comm, [&] { first_round = checkpoints->restore(round_state(0)); });
      if (first_round > 0) {
        agree(comm, [&] { engine->state_restored(); });
      } else if (checkpoints->planes_touched()) {
        agree(comm, build_engine);  // a restore that failed may have left anything in the tiles
      }
      const std::string note = checkpoints->note();
      if (!note.empty()) result.resume_note += (result.resume_note.empty() ? "" : "; ") + note;
      setup.lap("restore checkpoint");
    }
    const std::function<bool(std::int64_t)> save_after = [&](std::int64_t) { return checkpoints->due(); };
    const std::function<void(std::int64_t)> save = [&](std::int64_t round) {
      agree(comm, [&] { checkpoints->save(round_state(round)); });
    };
    result.setup_seconds = seconds_since(start);

    const auto rounds_start = std::chrono::steady_clock::now();
    dist::RoundOptions round_options;
    round_options.lookahead = opts.lookahead;
    // The GPU engine works on Johnson-reweighted, non-negative weights: its
    // potentials already refused any negative cycle.
    round_options.check_negative_cycles = stats.has_negative() && !on_gpu;
    round_options.tile = tile;
    round_options.padded_order = grid.tiles * tile;
    const dist::Communicators comms{comm, process_row, process_column};
    // Every rank attempts int16 or none does (the same graph and options).
    // An attempt covers the first third of the progress (it runs at about
    // twice the int32 rate), a rerun the rest.
    const bool attempt = engine->precision() == Precision::int16;
    const double attempt_share = attempt ? 1.0 / 3.0 : 0.0;
    std::function<void(double)> progress;
    if (opts.progress) progress = [&](double f) { opts.progress(attempt ? f * attempt_share : f); };
    round_options.progress = &progress;
    round_options.first_round = first_round;
    if (checkpointed) {
      round_options.save_after = &save_after;
      round_options.save = &save;
    }
    // A communicator that switched in an earlier solve carries every round
    // of this one through its device transport.
    const bool switched_before = comm.transport_switch_round() >= 0;
    round_options.transport_stages = &result.rounds_stages;
    RankTimes mine = dist::run_rounds(*engine, grid, comms, round_options);
    round_options.transport_stages = nullptr;  // a rerun's rounds are not split
    if (comm.stages_until_ready()) result.transport_switch_round = switched_before ? 0 : comm.transport_switch_round();
    if (attempt) {
      bool certified = false;
      agree(comm, [&] { certified = engine->range_certified(); });
      if (comm.all_reduce(std::int64_t{certified}, ReduceOp::min) == 0) {
        agree(comm, [&] {
          engine = super_width > 0 ? dist::widen_gpu_ooc_engine(std::move(engine), grid, super_width, gpu_options)
                                   : dist::widen_gpu_engine(std::move(engine), grid, gpu_options);
        });
        if (opts.progress) progress = [&](double f) { opts.progress(attempt_share + (1 - attempt_share) * f); };
        const RankTimes rerun = dist::run_rounds(*engine, grid, comms, round_options);
        mine.compute += rerun.compute;
        mine.communication += rerun.communication;
        mine.wait += rerun.wait;
      } else if (opts.progress) {
        opts.progress(1.0);
      }
    }
    if constexpr (kReal) {
      // A diagonal entry below minus the tolerance: the GPU engine's check
      // (the CPU engine's rounds checked every round already).
      std::int64_t vertex = -1;
      agree(comm, [&] { vertex = engine->negative_diagonal(); });
      const std::int64_t first =
          comm.all_reduce(vertex < 0 ? std::numeric_limits<std::int64_t>::max() : vertex, ReduceOp::min);
      if (first != std::numeric_limits<std::int64_t>::max()) throw Agreed<NegativeCycleError>(-1, first);
    }
    confirm_candidate_cycle(comm, *engine, normalized);
    result.precision = engine->precision();
    result.rounds_seconds = seconds_since(rounds_start);

    const auto output_start = std::chrono::steady_clock::now();
    agree(comm, [&] { engine->check_output_range(); });
    std::unique_ptr<BasicRowVerifier<W>> verifier;
    std::string violation;
    dist::RowCheck check;
    if (opts.verify) {
      verifier = std::make_unique<BasicRowVerifier<W>>(normalized);
      result.verify_seconds = 0;
      check = [&](std::int64_t first, std::int64_t rows, const void* d, const vertex_t* pred) {
        if (!violation.empty()) return;
        const auto verify_start = std::chrono::steady_clock::now();
        const VerifyReport report = verifier->check(first, rows, static_cast<const W*>(d), pred);
        if (!report.ok) violation = report.first_violation;
        result.verify_seconds += seconds_since(verify_start);
      };
    }
    engine->deliver(process_row, into, check);
    agree(comm, [&] { engine->check_delivered_range(); });
    agree(comm, [&] {
      if (!violation.empty()) throw Error("verify failed: " + violation);
    });
    agree(comm, [&] { sink.commit(); });
    result.output_seconds = seconds_since(output_start);

    // Every rank's times on every rank: each fills its own three slots.
    const std::size_t ranks = static_cast<std::size_t>(comm.size());
    std::vector<double> all(3 * ranks, 0.0);
    const std::size_t at = 3 * static_cast<std::size_t>(comm.rank());
    all[at] = mine.compute;
    all[at + 1] = mine.communication;
    all[at + 2] = mine.wait;
    comm.all_reduce(all.data(), all.data(), all.size(), ReduceOp::sum);
    for (std::size_t r = 0; r < ranks; ++r)
      result.ranks.push_back(RankTimes{all[3 * r], all[3 * r + 1], all[3 * r + 2]});
  } catch (...) {
    sink.discard();
    throw;
  }
  return result;
}

}  // namespace

DistributedResult solve_distributed(Communicator& comm, const Graph& g, const DistributedOptions& opts, Sink& sink) {
  return solve_typed(comm, g, opts, sink);
}
DistributedResult solve_distributed(Communicator& comm, const GraphF32& g, const DistributedOptions& opts, Sink& sink) {
  return solve_typed(comm, g, opts, sink);
}
DistributedResult solve_distributed(Communicator& comm, const GraphF64& g, const DistributedOptions& opts, Sink& sink) {
  return solve_typed(comm, g, opts, sink);
}
DistributedResult solve_distributed(Communicator& comm, const AnyGraph& g, const DistributedOptions& opts, Sink& sink) {
  return std::visit([&](const auto& typed) { return solve_typed(comm, typed, opts, sink); }, g);
}

}  // namespace apsp
