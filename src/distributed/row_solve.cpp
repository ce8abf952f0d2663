// solve_distributed_rows: the row split across ranks. Every rank holds the
// whole graph, runs a per-source algorithm of its backend, and draws chunks
// of result rows from one counter that all ranks share (RowSplit over
// Communicator::make_counter); its rows go straight into its own sink.
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "apsp/cuda.hpp"
#include "apsp/distributed.hpp"
#include "apsp/error.hpp"
#include "apsp/registry.hpp"
#include "apsp/verify.hpp"
#include "core/algorithm_checks.hpp"
#include "core/row_blocks.hpp"
#include "core/stages.hpp"
#include "apsp/row_split.hpp"
#include "cpu/backend.hpp"
#include "cpu/run.hpp"
#include "cuda/algorithm.hpp"
#include "distributed/rank_threads.hpp"
#include "distributed/same_graph.hpp"
#include "sink/part.hpp"
#include "sink/resume.hpp"

namespace apsp {
namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// What a rank hands its algorithm as the sink: put() goes to the rank's
// sink, begin() and commit() are the distributed solve's (agreed over every
// rank), so here they do nothing. With `verifier` every row is checked:
// distances as their block comes; with predecessors, each row once both of
// its planes have come (a solver puts them as separate blocks, in either
// order and cut into pieces of its own, from several threads), so each
// waiting row is kept here until its other plane arrives. put() may run on
// several threads.
template <class W>
class RankShare final : public Sink {
 public:
  // n: the row length; predecessors: whether the solver puts that plane.
  RankShare(Sink& target, const BasicRowVerifier<W>* verifier, std::int64_t n, bool predecessors)
      : target_(target), verifier_(verifier), n_(n), predecessors_(predecessors) {}
  void begin(const SinkLayout&) override {}
  void put(const RowBlock& block) override {
    if (verifier_ != nullptr && !predecessors_ && block.plane == Plane::distances) {
      const VerifyReport report =
          verifier_->check(block.first_row, block.rows, static_cast<const W*>(block.data), nullptr);
      if (!report.ok) throw VerifyError(report.first_violation);
    }
    if (verifier_ != nullptr && predecessors_) pair_and_check(block);
    target_.put(block);
  }
  void commit() override {}
  // A resumable target stays resumable through the share (resume::rows_left).
  bool keeps_partial() const override { return target_.keeps_partial(); }
  SinkResume resumed() const override { return target_.resumed(); }
  void* row_address(Plane plane, std::int64_t row) override {
    // Verified rows are checked before they reach the sink's memory.
    return verifier_ != nullptr ? nullptr : target_.row_address(plane, row);
  }
  // Rows whose distances and predecessors were checked together.
  std::int64_t rows_checked_with_predecessors() const { return paired_rows_; }
  // Throws when a row's other plane never came (a solver that put only one).
  void require_paired() const {
    if (!waiting_.empty())
      throw VerifyError("row " + std::to_string(waiting_.begin()->first) +
                        " came with one of its planes only (distances, predecessors), so it was not checked");
  }

 private:
  struct Waiting {
    std::vector<W> d;
    std::vector<vertex_t> p;
  };

  // Keeps each row of `block` until its other plane is here, then checks
  // the pair (outside the lock).
  void pair_and_check(const RowBlock& block) {
    const bool distances = block.plane == Plane::distances;
    for (std::int64_t r = 0; r < block.rows; ++r) {
      const std::int64_t row = block.first_row + r;
      Waiting done;
      {
        std::lock_guard<std::mutex> lock(mutex_);
        Waiting& w = waiting_[row];
        if (distances) {
          const W* from = static_cast<const W*>(block.data) + r * block.row_stride;
          w.d.assign(from, from + n_);
        } else {
          const vertex_t* from = static_cast<const vertex_t*>(block.data) + r * block.row_stride;
          w.p.assign(from, from + n_);
        }
        if (w.d.empty() || w.p.empty()) continue;
        done = std::move(w);
        waiting_.erase(row);
        ++paired_rows_;
      }
      const VerifyReport report = verifier_->check(row, 1, done.d.data(), done.p.data());
      if (!report.ok) throw VerifyError(report.first_violation);
    }
  }

  Sink& target_;
  const BasicRowVerifier<W>* verifier_;
  std::int64_t n_;
  bool predecessors_;
  std::mutex mutex_;
  std::map<std::int64_t, Waiting> waiting_;
  std::int64_t paired_rows_ = 0;
};

// The registry entry `name` names on `backend`: one whose rows the split can
// hand out (Work::per_source or Work::separators). UsageError otherwise.
const AlgorithmInfo& row_algorithm(const std::string& name, Backend backend) {
  const std::vector<AlgorithmInfo>& entries = backend == Backend::cuda ? cuda::gpu_algorithm_infos()
                                                                       : cpu::detail::cpu_algorithm_infos();
  for (const AlgorithmInfo& a : entries)
    if (name == a.name) {
      if (a.work != Work::per_source && a.work != Work::separators)
        throw UsageError("the row split runs algorithms whose rows are independent (one search per source, or "
                         "supernodal); " +
                             name + " computes the whole matrix at once",
                         "algorithm");
      if (!a.available) throw UsageError(name + " is not available in this build", "algorithm");
      return a;
    }
  throw_unknown_algorithm(name, backend, entries);
}

template <class W>
DistributedResult solve_rows_typed(Communicator& comm, const BasicGraph<W>& g, const std::string& algorithm,
                                   const DistributedOptions& opts, Sink& sink) {
  const auto start = std::chrono::steady_clock::now();
  DistributedResult result;
  require_thread_count(opts.threads);
  const dist::RankThreads rank_threads(opts.threads);
  const Backend backend = opts.backend == Backend::cuda ? Backend::cuda : Backend::cpu;
  try {
    StageClock setup(result.setup_stages);
    BasicGraph<W> normalized;
    SolveOptions run;
    // A part of the matrix (opts.sources, targets): the route one process
    // takes (sink::PartRoute), on every rank alike.
    std::optional<sink::PartRoute<BasicGraph<W>>> route;
    agree(comm, [&] {
      const AlgorithmInfo& info = row_algorithm(algorithm, backend);
      if (std::is_floating_point<W>::value && !info.takes_real)
        throw UsageError(algorithm + " takes int32 weights only", "algorithm");
      run.algorithm = info.name;
      run.backend = backend;
      run.threads = opts.threads > 0 ? opts.threads : omp_get_max_threads();
      run.predecessors = opts.predecessors;
      run.precision = opts.precision;
      run.device = opts.device >= 0 ? opts.device : std::max(0, comm.device());
      run.sources = opts.sources;
      run.targets = opts.targets;
      run.cutoff = opts.cutoff;
      if (opts.verify && (!run.sources.empty() || !run.targets.empty() || run.cutoff))
        throw UsageError("each rank checks whole rows of every source; verify without sources, targets or a cutoff",
                         "verify");
      const std::vector<AlgorithmInfo>& entries = backend == Backend::cuda ? cuda::gpu_algorithm_infos()
                                                                           : cpu::detail::cpu_algorithm_infos();
      require_options_honoured(run.algorithm, backend, run, entries);
      normalized = is_normalized(g) ? g : normalize(g);  // the CLI broadcasts a normalized graph
      // Every row algorithm of the GPU is one of its row solvers (sssp, supernodal).
      route.emplace(run, normalized, backend == Backend::cuda,
                    backend == Backend::cpu && computes_chosen_rows(run.algorithm, backend, entries), sink);
      if (backend == Backend::cpu) require_sources_honoured(run.algorithm, backend, normalized.n, run, entries);
    });
    setup.lap("normalize");
    dist::require_same_graph(comm, normalized);
    setup.lap("same graph");
    // The row split moves no device buffer, but a device communicator still
    // in the making (nccl, on a helper thread) allocates device memory, and
    // the GPU row solvers size their pieces by the memory left: it is done
    // first.
    agree(comm, [&] { comm.wait_ready(); });
    setup.lap("comm ready");
    const std::int64_t n = normalized.n;
    // CPU: every thread of every rank is a consumer, and chunks hold at most
    // the rows of a thread's staging (about 1 MiB), the same on every rank.
    // GPU: each rank's device is one consumer; half of the rows go in a
    // static share (one chunk a rank), then chunks of a (2 * ranks)-th of
    // what is left end at kGpuMinChunk rows, which keep a launch's resident
    // blocks busy (kGpuChunkPolicy; the device computes a chunk in pieces of
    // what its memory holds).
    const std::int64_t consumers = backend == Backend::cuda ? comm.size()
                                                            : comm.all_reduce(std::int64_t{run.threads}, ReduceOp::sum);
    std::int64_t min_chunk = 1, max_chunk = 1;
    if (backend == Backend::cuda) {
      min_chunk = std::max<std::int64_t>(1, std::min(n, kGpuMinChunk));
      max_chunk = std::max<std::int64_t>(1, n);
    } else {
      max_chunk = staging_rows(n, static_cast<std::size_t>(n) * sizeof(W),
                               static_cast<int>(std::min<std::int64_t>(consumers, kMaxThreads)));
    }
    result.n = n;
    result.grid_rows = comm.size();
    result.grid_cols = 1;
    result.algorithm = run.algorithm;
    result.backend = backend;
    constexpr Element element = cpu::detail::BasicJob<W>::element;
    // The rows and columns the backend puts (the chosen sources, the targets
    // the GPU gathers); a PartSink between it and `sink` makes the part.
    Sink& produced = route->sink();
    SinkLayout layout{n, element, opts.predecessors,
                      run.sources.empty() ? -1 : static_cast<std::int64_t>(run.sources.size()),
                      run.targets.empty() ? -1 : static_cast<std::int64_t>(run.targets.size())};
    if (produced.keeps_partial()) layout.solve_key = resume::solve_key(normalized, run.algorithm, backend, run);
    agree(comm, [&] { produced.begin(layout); });
    setup.lap("begin sink");
    std::unique_ptr<BasicRowVerifier<W>> verifier;
    if (opts.verify) verifier = std::make_unique<BasicRowVerifier<W>>(normalized);
    RankShare<W> share(produced, verifier.get(), n, opts.predecessors);
    // A resumed output: every rank knows the rows the interrupted run kept
    // (the sink's begin() told them all). A CPU algorithm that computes
    // chosen sources gets only the others, and the split hands out those
    // (their rows go to their place); any other computes every row and the
    // kept ones are dropped before the sink.
    const bool narrow = backend == Backend::cpu && takes_sources(row_algorithm(algorithm, backend));
    resume::RowsLeft left = resume::rows_left(share, layout, run, narrow);
    result.resume_note = left.note;
    run = left.run;
    Sink& into = left.into ? *left.into : share;
    const std::int64_t split_rows = run.sources.empty() ? n : static_cast<std::int64_t>(run.sources.size());
    const std::unique_ptr<SharedCounter> counter = comm.make_counter();
    RowSplit split(0, split_rows, consumers, min_chunk, max_chunk, *counter,
                   backend == Backend::cuda ? kGpuChunkPolicy : RowSplit::Policy{});
    setup.lap("shared counter");
    result.tile = max_chunk;
    run.progress = opts.progress;
    run.row_split = &split;
    run.row_split_per_chunk_download = opts.row_download_per_chunk;
    run.row_split_serial = opts.row_split_serial;
    result.setup_seconds = seconds_since(start);

    const auto rows_start = std::chrono::steady_clock::now();
    SolveSummary summary;
    double compute = 0;
    agree(comm, [&] {
      try {
        if (left.nothing_left)
          summary.precision = opts.precision == Precision::automatic ? Precision::int32 : opts.precision;
        else if (backend == Backend::cuda)
          cuda::solve(route->graph(), run, into, summary);
        else
          cpu::detail::run_named(route->graph(), run, into, summary);
      } catch (...) {
        // The other ranks take no more rows; this rank's error is the one told.
        try {
          split.stop();
        } catch (...) {
        }
        compute = seconds_since(rows_start);
        throw;
      }
      compute = seconds_since(rows_start);
    });
    result.rounds_seconds = seconds_since(rows_start);
    result.precision = summary.precision;
    if (opts.verify) {
      result.verify_seconds = 0;  // inside the rows' time: each block is checked as it is put
      share.require_paired();
      result.verified_predecessor_rows = share.rows_checked_with_predecessors();
    }

    const auto output_start = std::chrono::steady_clock::now();
    agree(comm, [&] { produced.commit(); });
    result.output_seconds = seconds_since(output_start);

    // Every rank's times on every rank: compute, its rows' download (a GPU
    // rank's device-to-host stages), and the wait for the slowest rank
    // (imbalance) after it. A GPU rank's compute is its solver's "compute"
    // stage: the time its device had a chunk's launch in flight (the
    // pipeline's overlapping launches counted once), which the download
    // may overlap; a CPU rank's is its rows' time less the download.
    double download = 0, device_compute = 0;
    for (const Stage& stage : summary.times.stages) {
      if (stage.name.find("device-to-host") != std::string::npos) download += stage.seconds;
      if (stage.name == "compute") device_compute += stage.seconds;
    }
    download = std::min(download, compute);
    const std::size_t ranks = static_cast<std::size_t>(comm.size());
    const std::size_t me = 3 * static_cast<std::size_t>(comm.rank());
    std::vector<double> all(3 * ranks, 0.0);
    all[me] = backend == Backend::cuda ? std::min(device_compute, compute) : compute - download;
    all[me + 1] = download;
    all[me + 2] = result.rounds_seconds - compute;
    comm.all_reduce(all.data(), all.data(), all.size(), ReduceOp::sum);
    for (std::size_t r = 0; r < ranks; ++r) {
      RankTimes t{all[3 * r], 0.0, all[3 * r + 2]};
      t.download = all[3 * r + 1];
      result.ranks.push_back(t);
    }
  } catch (...) {
    sink.discard();
    throw;
  }
  return result;
}

}  // namespace

DistributedResult solve_distributed_rows(Communicator& comm, const Graph& g, const std::string& algorithm,
                                         const DistributedOptions& opts, Sink& sink) {
  return solve_rows_typed(comm, g, algorithm, opts, sink);
}
DistributedResult solve_distributed_rows(Communicator& comm, const GraphF32& g, const std::string& algorithm,
                                         const DistributedOptions& opts, Sink& sink) {
  return solve_rows_typed(comm, g, algorithm, opts, sink);
}
DistributedResult solve_distributed_rows(Communicator& comm, const GraphF64& g, const std::string& algorithm,
                                         const DistributedOptions& opts, Sink& sink) {
  return solve_rows_typed(comm, g, algorithm, opts, sink);
}

}  // namespace apsp
