// Private to the CPU backend: producing the result in row blocks over OpenMP
// threads and handing each block to the sink as soon as it is finished.
#pragma once

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <optional>

#include "apsp/matrix.hpp"
#include "apsp/sink.hpp"
#include "core/ceil_div.hpp"
#include "cpu/backend.hpp"
#include "core/row_blocks.hpp"

namespace apsp::cpu::detail {

// Where the blocks of deliver_rows are produced: the sink's own memory when
// it exposes row_address() for every plane of the job (nothing is copied),
// else a staging buffer of each thread, put() into the sink block by block.
// Out is the distance type of the job's output (its weight type).
template <class Out>
struct RowTargets {
  Out* dist = nullptr;       // row 0 of the sink's distances, or null
  vertex_t* pred = nullptr;  // row 0 of the sink's predecessors, or null

  explicit RowTargets(const BasicJob<Out>& job) {
    if (job.graph.n == 0) return;
    dist = static_cast<Out*>(job.sink.row_address(Plane::distances, 0));
    pred = job.predecessors ? static_cast<vertex_t*>(job.sink.row_address(Plane::predecessors, 0)) : nullptr;
    if (job.predecessors && (dist == nullptr || pred == nullptr)) {
      dist = nullptr;
      pred = nullptr;
    }
  }
  bool in_sink() const { return dist != nullptr; }
};

// Rows of the result: n, or one per source of job.sources.
template <class Out>
std::int64_t result_rows(const BasicJob<Out>& job) {
  return job.sources.empty() ? job.graph.n : static_cast<std::int64_t>(job.sources.size());
}

// Rows per block of deliver_rows: its staging, and the largest chunk of its
// row split (a job.split's own max_chunk when it has one).
template <class Out>
std::int64_t block_rows(const BasicJob<Out>& job) {
  if (job.split != nullptr) return job.split->max_chunk();
  return staging_rows(result_rows(job), static_cast<std::size_t>(job.graph.n) * sizeof(Out), job.threads);
}

// Bytes of staging deliver_rows allocates per thread (0 in the sink's memory).
template <class Out>
std::uint64_t staging_bytes_per_thread(const BasicJob<Out>& job) {
  if (RowTargets<Out>(job).in_sink()) return 0;
  return static_cast<std::uint64_t>(block_rows(job)) * static_cast<std::uint64_t>(job.graph.n) *
         (sizeof(Out) + (job.predecessors ? sizeof(vertex_t) : 0));
}

// Calls fill(worker, first_row, rows, dist, pred) for blocks of rows of the
// n x n result (Out = the job's weight type), over job.threads OpenMP threads with one worker =
// make_worker() per thread. The blocks are the chunks of a row split
// (apsp/row_split.hpp): job.split when the job shares its rows with other
// consumers (then only the chunks this job draws are produced here), else a
// split of rows [first_row, first_row + row_count) (row_count < 0: through
// the last row) among this job's threads. fill writes rows [first_row,
// first_row + rows) at stride n into `dist` (and `pred` when
// job.predecessors, else it is null); the memory is the sink's or a staging
// buffer (RowTargets). Each block is then put() into job.sink. Staging holds
// a few blocks of about 1 MiB per thread, whatever n. Exceptions from any
// thread stop the others (and job.split's other consumers: RowSplit::stop)
// and are rethrown here. With report_progress, the fraction of rows handed
// out is reported from the calling thread (now and then by OpenMP thread 0,
// and 1 at the end). The result has n rows, or one per source of
// job.sources.
template <class Out, class MakeWorker, class Fill>
void deliver_rows(const BasicJob<Out>& job, MakeWorker make_worker, Fill fill, bool report_progress,
                  std::int64_t first_row = 0, std::int64_t row_count = -1) {
  const std::int64_t n = job.graph.n;
  const std::int64_t end_row = row_count < 0 ? result_rows(job) : std::min(result_rows(job), first_row + row_count);
  const RowTargets<Out> targets(job);
  const std::int64_t block = block_rows(job);
  AtomicCounter own_counter;
  std::optional<RowSplit> own_split;
  if (job.split == nullptr)
    own_split.emplace(first_row, std::max(first_row, end_row), job.threads, 1, block, own_counter);
  RowSplit& split = job.split != nullptr ? *job.split : *own_split;
  const std::int64_t split_rows = split.rows();
  FirstError errors;
  std::atomic<std::int64_t> handed_out{0};
  const std::int64_t report_every = split_rows / 100 + 1;
  std::int64_t next_report = report_every;
#pragma omp parallel num_threads(job.threads)
  {
    std::optional<decltype(make_worker())> worker;
    HostVector<Out> staged_dist;
    HostVector<vertex_t> staged_pred;
    errors.run([&] {
      worker.emplace(make_worker());
      if (!targets.in_sink()) {
        staged_dist.resize(static_cast<std::size_t>(block * n));
        if (job.predecessors) staged_pred.resize(static_cast<std::size_t>(block * n));
      }
    });
    while (!errors.stopped()) {
      bool more = true;
      errors.run([&] {
        const RowSplit::Range chunk = split.next();
        if (chunk.count == 0) {
          more = false;
          return;
        }
        const std::int64_t first = chunk.first, rows = chunk.count;
        Out* dist = targets.in_sink() ? targets.dist + first * n : staged_dist.data();
        vertex_t* pred = !job.predecessors   ? nullptr
                         : targets.in_sink() ? targets.pred + first * n
                                             : staged_pred.data();
        fill(*worker, first, rows, dist, pred);
        job.sink.put(RowBlock{Plane::distances, BasicJob<Out>::element, first, rows, n, dist});
        if (pred) job.sink.put(RowBlock{Plane::predecessors, Element::int32, first, rows, n, pred});
        // Rows handed out up to the end of this chunk: every rank's progress.
        const std::int64_t done = split.rows_before(chunk.chunk + 1);
        std::int64_t seen = handed_out.load();
        while (seen < done && !handed_out.compare_exchange_weak(seen, done)) {
        }
        if (report_progress && omp_get_thread_num() == 0 && handed_out >= next_report) {
          next_report = handed_out + report_every;
          job.report(static_cast<double>(handed_out) / static_cast<double>(split_rows));
        }
      });
      if (!more) break;
    }
  }
  if (errors.stopped()) {
    // Best effort: the error that stopped this job is the one to report.
    try {
      split.stop();
    } catch (...) {
    }
  }
  errors.rethrow();
  if (report_progress) job.report(1.0);
}

// A worker for deliver_rows callers that need no per-thread state.
struct NoWorker {};

}  // namespace apsp::cpu::detail
