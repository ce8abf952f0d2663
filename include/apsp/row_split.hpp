// The one row split of row-parallel work (design.md): per-source solvers,
// the supernodal solve phase and the distributed row path take the rows of
// their result from a RowSplit, whether the consumers are threads of one
// process, GPUs of a node or ranks of an MPI job.
//
// Balance is dynamic: rows are handed out in chunks on demand, so a consumer
// that draws slow sources (hubs, long paths) simply takes fewer chunks.
// Chunk sizes are guided: chunk c covers about remaining / (2 * consumers)
// rows, within [min_chunk, max_chunk], so they shrink toward the end and the
// last consumers finish together. A Policy may open each range with a
// static share (`consumers` equal chunks, about one per consumer) before the
// guided ones, and fold a last chunk smaller than min_chunk into the one
// before it: GPU consumers, which pay a launch's tail per chunk, take
// fewer, larger chunks so (kGpuChunkPolicy). The chunk boundaries are a
// function of (ranges, consumers, min_chunk, max_chunk, policy) alone, so
// every consumer of every rank computes the same table, and one shared
// counter of chunk indices (SharedCounter::fetch_add(1)) is the whole
// protocol: chunk c goes to whoever draws c, so every row is handed out
// exactly once.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <vector>

#include "apsp/comm.hpp"
#include "apsp/error.hpp"

namespace apsp {

// A SharedCounter of one process: an atomic, for threads (and the GPUs a
// process drives) without a communicator.
class AtomicCounter final : public SharedCounter {
 public:
  std::int64_t fetch_add(std::int64_t k) override { return value_.fetch_add(k); }

 private:
  std::atomic<std::int64_t> value_{0};
};

// How a range is cut beside the guided rule (the default: guided only).
struct RowSplitPolicy {
  // The share (0 <= s < 1) of each range's rows handed out first, as
  // `consumers` equal chunks (within [min_chunk, max_chunk]), before the
  // guided chunks of the rest: fewer chunks where the rows' cost is about
  // even, with the guided tail still balancing slow sources.
  double static_share = 0;
  // A range's last chunk that would be smaller than min_chunk joins the
  // chunk before it (when that stays within max_chunk): no launch for a
  // few leftover rows.
  bool fold_last = false;
};

// Rows [first, end) in guided chunks drawn from `counter`. The counter must
// start at 0 and serve this split only; every consumer (on every rank) must
// build its split with the same arguments. next() and stop() are
// thread-safe when the counter is.
class RowSplit {
 public:
  struct Range {
    std::int64_t first = 0;  // first row of the chunk
    std::int64_t count = 0;  // rows in it; 0 = no rows are left
    std::int64_t chunk = 0;  // the chunk's index, 0..chunks()-1
  };

  // Rows [first, end) of a half-open row range.
  struct Span {
    std::int64_t first = 0;
    std::int64_t end = 0;
  };

  using Policy = RowSplitPolicy;

  // consumers >= 1, 1 <= min_chunk <= max_chunk, first <= end,
  // 0 <= policy.static_share < 1; Error otherwise.
  RowSplit(std::int64_t first, std::int64_t end, std::int64_t consumers, std::int64_t min_chunk, std::int64_t max_chunk,
           SharedCounter& counter, Policy policy = Policy{})
      : RowSplit(std::vector<Span>{Span{first, end}}, consumers, min_chunk, max_chunk, counter, policy) {}

  // The rows of several disjoint ranges, in order (a resumed solve's rows
  // left: the gaps between the rows an interrupted run kept). Each range is
  // cut into chunks of its own, so no chunk spans two ranges.
  // `spans` ascending and disjoint, each first <= end; Error otherwise.
  RowSplit(const std::vector<Span>& spans, std::int64_t consumers, std::int64_t min_chunk, std::int64_t max_chunk,
           SharedCounter& counter, Policy policy = Policy{})
      : counter_(counter), max_chunk_(max_chunk) {
    const Span whole{spans.empty() ? 0 : spans.front().first, spans.empty() ? 0 : spans.back().end};
    if (consumers < 1 || min_chunk < 1 || max_chunk < min_chunk || whole.end < whole.first ||
        !(policy.static_share >= 0 && policy.static_share < 1))
      throw Error("RowSplit over rows [" + std::to_string(whole.first) + ", " + std::to_string(whole.end) + ") with " +
                  std::to_string(consumers) + " consumers, chunks of " + std::to_string(min_chunk) + ".." +
                  std::to_string(max_chunk) + " rows and a static share of " + std::to_string(policy.static_share));
    first_ = whole.first;
    end_ = whole.end;
    done_before_.push_back(0);
    std::int64_t previous_end = whole.first;
    for (const Span& span : spans) {
      if (span.end < span.first || span.first < previous_end)
        throw Error("RowSplit: the row range [" + std::to_string(span.first) + ", " + std::to_string(span.end) +
                    ") is reversed or overlaps the one before it");
      previous_end = span.end;
      const std::int64_t span_chunks = chunks();
      // The static share: `consumers` chunks of its rows, the same size.
      const auto shared = static_cast<std::int64_t>(policy.static_share * static_cast<double>(span.end - span.first));
      const std::int64_t static_count = std::clamp(shared / consumers, min_chunk, max_chunk);
      std::int64_t at = span.first;
      for (std::int64_t c = 0; c < consumers && shared > 0 && span.end - at > static_count; ++c) {
        push_chunk(at, static_count);
        at += static_count;
      }
      while (at < span.end) {
        const std::int64_t remaining = span.end - at;
        const std::int64_t guided = (remaining + 2 * consumers - 1) / (2 * consumers);
        const std::int64_t count = std::min(remaining, std::clamp(guided, min_chunk, max_chunk));
        push_chunk(at, count);
        at += count;
      }
      // The range's last chunk, when under min_chunk, into the one before it.
      const std::size_t last = chunk_first_.size() - 1;
      if (policy.fold_last && chunks() - span_chunks >= 2 && done_before_[last + 1] - done_before_[last] < min_chunk &&
          done_before_[last + 1] - done_before_[last - 1] <= max_chunk) {
        chunk_first_.pop_back();
        done_before_.erase(done_before_.end() - 2);
      }
    }
  }

  // The next chunk for the calling consumer; count 0 once every chunk is out.
  Range next() {
    const std::int64_t c = counter_.fetch_add(1);
    if (c < 0 || c >= chunks()) return Range{0, 0, chunks()};
    const auto i = static_cast<std::size_t>(c);
    return Range{chunk_first_[i], done_before_[i + 1] - done_before_[i], c};
  }

  // After a failure: every consumer's next() returns no rows from now on
  // (the counter jumps past the last chunk), so the others stop early.
  void stop() { counter_.fetch_add(kPastEveryChunk); }

  std::int64_t chunks() const { return static_cast<std::int64_t>(chunk_first_.size()); }
  std::int64_t max_chunk() const { return max_chunk_; }
  // The first row of the first range and the end of the last: the span the
  // split covers (every row of it when there is one range).
  std::int64_t first() const { return first_; }
  std::int64_t end() const { return end_; }
  // The rows the split hands out (the ranges' rows together).
  std::int64_t rows() const { return done_before_.back(); }
  // The rows of the chunks before chunk c (c in 0..chunks()): the progress
  // made once chunks 0..c-1 are done.
  std::int64_t rows_before(std::int64_t c) const { return done_before_[static_cast<std::size_t>(c)]; }

 private:
  // More than any split's chunks, and small enough that 2^22 stops do not
  // overflow the counter.
  static constexpr std::int64_t kPastEveryChunk = std::int64_t{1} << 40;

  void push_chunk(std::int64_t at, std::int64_t count) {
    chunk_first_.push_back(at);
    done_before_.push_back(done_before_.back() + count);
  }

  SharedCounter& counter_;
  std::int64_t max_chunk_;
  std::int64_t first_ = 0, end_ = 0;
  // Chunk c covers rows [chunk_first_[c], chunk_first_[c] + done_before_[c + 1] - done_before_[c]).
  std::vector<std::int64_t> chunk_first_;
  std::vector<std::int64_t> done_before_;  // chunks() + 1 entries, from 0
};

// The split of GPU consumers (a GPU rank, or the one-GPU proxy of a split:
// bench/gpu_sparse_bench.cu): chunks of at least kGpuMinChunk rows, about
// one row per resident block of the sssp kernels on an H100 (132 SMs,
// several blocks each) so the last chunks still fill a launch, half of the
// rows in a first static share, and no leftover chunk below kGpuMinChunk.
inline constexpr std::int64_t kGpuMinChunk = 512;
inline constexpr RowSplit::Policy kGpuChunkPolicy{0.5, true};

}  // namespace apsp
