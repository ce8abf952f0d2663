// Private to the CPU backend: single-source searches run once per source
// (Dijkstra, Johnson, Bellman-Ford) and the OpenMP driver over sources.
#pragma once

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "core/csr.hpp"
#include "core/resources.hpp"
#include "cpu/backend.hpp"
#include "cpu/deliver.hpp"

namespace apsp::cpu::detail {

// A radix heap (Ahuja, Mehlhorn, Orlin, Tarjan) of (key, vertex) pairs for
// monotone non-negative keys: every key pushed is >= the last key popped, as
// in Dijkstra with non-negative weights. Entries are bucketed by an unsigned
// image of the key that never decreases as the key grows:
// - an integer key is its own image: pops come in key order;
// - a float or double key's image is floor(key / width) for a bucket width
//   the search chooses (bucket_width), saturating far above any distance.
//   Keys of one image pop in any order, so a search that uses real keys is
//   label-correcting within a width: it re-pushes a vertex whose label drops
//   after it was popped, and its labels end as Dijkstra's do, at the least
//   sum d[u] + w over the paths, rounded the same way (never a rounded key).
// Bucket b > 0 holds the entries whose image's highest bit differing from
// the last popped key's is bit b - 1, bucket 0 those with the same image:
// push is O(1) and each entry moves down at most once per bit.
template <class D>
class RadixHeap {
  static_assert(std::is_integral<D>::value || std::is_same<D, float>::value || std::is_same<D, double>::value,
                "RadixHeap keys are integers, float or double");

 public:
  struct Entry {
    D key;
    vertex_t vertex;
  };

  // Real keys only: images are floor(key / width); width > 0.
  void set_bucket_width(double width) { per_width_ = 1.0 / width; }

  bool empty() const { return size_ == 0; }
  void reset() {
    for (auto& b : buckets_) b.clear();
    size_ = 0;
    last_ = 0;
  }
  void push(D key, vertex_t vertex) {
    buckets_[bucket(key)].push_back(Entry{key, vertex});
    ++size_;
  }
  Entry pop() {
    if (buckets_[0].empty()) {
      std::size_t b = 1;
      while (buckets_[b].empty()) ++b;
      std::vector<Entry>& from = buckets_[b];
      std::uint64_t smallest = image(from.front().key);
      for (const Entry& e : from) smallest = std::min(smallest, image(e.key));
      last_ = smallest;
      for (const Entry& e : from) buckets_[bucket(e.key)].push_back(e);
      from.clear();
    }
    const Entry top = buckets_[0].back();
    buckets_[0].pop_back();
    --size_;
    return top;
  }

 private:
  static constexpr int kBits = std::is_integral<D>::value ? 8 * sizeof(D) : 63;
  // Where a real key's image saturates (keys above it share one image).
  static constexpr double kSaturation = 0x1p62;

  std::uint64_t image(D key) const {
    if constexpr (std::is_integral<D>::value) {
      return static_cast<std::uint64_t>(key);
    } else {
      const double scaled = static_cast<double>(key) * per_width_;
      return scaled < kSaturation ? static_cast<std::uint64_t>(scaled) : static_cast<std::uint64_t>(kSaturation);
    }
  }
  std::size_t bucket(D key) const {
    const std::uint64_t diff = image(key) ^ last_;
    return diff == 0 ? 0 : static_cast<std::size_t>(64 - __builtin_clzll(diff));
  }

  std::vector<Entry> buckets_[kBits + 1];
  std::size_t size_ = 0;
  std::uint64_t last_ = 0;  // the image of the last popped key
  double per_width_ = 1.0;
};

// The search limit (dijkstra_from) of labels of type D for SolveOptions::
// cutoff moved by `shift` (Johnson's h[s] - min h: a reduced label above
// cutoff + shift is a distance above cutoff), and widened by `slack` for
// labels that round: no label of a distance at or below the cutoff is above
// it. infinity<D>() without a cutoff or where it reaches that far.
template <class D>
D label_limit(const std::optional<double>& cutoff, double shift = 0, double slack = 0) {
  if (!cutoff) return infinity<D>();
  const double x = *cutoff + shift + slack;
  if constexpr (std::is_floating_point<D>::value) {
    if (!(x < static_cast<double>(std::numeric_limits<D>::max()))) return infinity<D>();
    return std::nextafter(static_cast<D>(x), infinity<D>());
  } else {
    if (!(x < static_cast<double>(infinity<D>()))) return infinity<D>();
    const double lowest = -static_cast<double>(infinity<D>());
    return x < lowest ? static_cast<D>(lowest) : static_cast<D>(std::floor(x));
  }
}

// After a search stopped at `limit`: the labels above it, tentative, become
// unreachable (predecessors -1), so the row holds exact distances or none.
template <class D>
void drop_beyond(D* dist, vertex_t* pred, std::int64_t n, D limit) {
  if (limit == infinity<D>()) return;
  for (std::int64_t t = 0; t < n; ++t)
    if (dist[t] > limit && dist[t] != infinity<D>()) {
      dist[t] = infinity<D>();
      if (pred) pred[t] = -1;
    }
}

// The bucket width of a Dijkstra search over real weights (RadixHeap): the
// mean positive weight over the mean out-degree, so that a bucket holds about
// the vertices one settled vertex reaches (Delta-stepping's rule of thumb),
// and no smaller than the largest distance (n - 1) * max_w over 2^60, so that
// images stay below the saturation point. Only the speed depends on it.
template <class W>
double bucket_width(const core::CsrView<W>& g) {
  const std::int64_t m = g.row_start[g.n];
  double sum = 0, largest = 0;
  std::int64_t positive = 0;
  for (std::int64_t e = 0; e < m; ++e)
    if (g.weight[e] > 0) {
      sum += static_cast<double>(g.weight[e]);
      largest = std::max(largest, static_cast<double>(g.weight[e]));
      ++positive;
    }
  if (positive == 0) return 1.0;
  const double mean_degree = static_cast<double>(m) / static_cast<double>(g.n);
  const double width = sum / static_cast<double>(positive) / std::max(1.0, mean_degree);
  return std::max(width, largest * static_cast<double>(g.n) * 0x1p-60);
}

// Dijkstra from `source`. `dist` holds infinity<D>() and `pred` (may be null)
// holds -1 for every vertex on entry. Weights must be non-negative. With a
// `limit` (label_limit), no vertex whose label is above it is expanded:
// every label at or below it is then final, those above are tentative
// (drop_beyond clears them).
template <class D, class W>
void dijkstra_from(const core::CsrView<W>& g, vertex_t source, D* dist, vertex_t* pred, RadixHeap<D>& heap,
                   D limit = infinity<D>()) {
  heap.reset();
  dist[source] = 0;
  heap.push(0, source);
  while (!heap.empty()) {
    const auto [du, u] = heap.pop();
    // Past the limit nothing is expanded, but the heap drains: the radix
    // heap of real labels pops a bucket's labels in no order, so a label
    // at or below the limit may still follow.
    if (du != dist[u] || du > limit) continue;
    for (std::int64_t e = g.row_start[u]; e < g.row_start[u + 1]; ++e) {
      const vertex_t v = g.col[e];
      const D candidate = du + static_cast<D>(g.weight[e]);
      if (candidate < dist[v]) {
        dist[v] = candidate;
        if (pred) pred[v] = u;
        // A vertex without out-edges relaxes nothing when popped.
        if (g.row_start[v + 1] != g.row_start[v]) heap.push(candidate, v);
      }
    }
  }
}

// Throws ResourceError (resources::require_memory) unless the memory of one
// search per source fits, before any of it is allocated: the CSR (16 bytes
// per vertex while it is built, 8 per edge), `shared_bytes` more (Johnson's
// reweighted copy and potentials), and per thread `scratch_per_vertex` bytes
// per vertex plus deliver_rows' staging. No n x n matrix is counted: rows go
// to the sink as they are finished.
template <class W>
void require_search_memory(const BasicJob<W>& job, const char* algorithm, std::uint64_t scratch_per_vertex,
                           std::uint64_t shared_bytes) {
  const auto n = static_cast<std::uint64_t>(job.graph.n);
  const std::uint64_t csr = 16 * (n + 1) + 8 * static_cast<std::uint64_t>(job.graph.edges.size());
  const std::uint64_t per_thread = scratch_per_vertex * n + staging_bytes_per_thread(job);
  resources::require_memory(csr + shared_bytes + static_cast<std::uint64_t>(job.threads) * per_thread,
                            std::string(algorithm) + "'s working memory on " + std::to_string(n) + " vertices (" +
                                std::to_string(job.threads) + " threads)");
}

// Runs solve_row(worker, source, dist_row, pred_row) for every source (every
// vertex, or job.sources: result row r is from job.sources[r]) over OpenMP,
// with one worker = make_worker() per thread, and hands the rows to job.sink
// in blocks as they finish (deliver_rows: a file sink needs no n x n host
// matrix). dist_row (of the job's weight type W) starts as kUnreachable<W>
// and pred_row (null unless predecessors are asked for) as -1. Progress is
// the fraction of sources done.
template <class W, class MakeWorker, class SolveRow>
void for_each_source(const BasicJob<W>& job, MakeWorker make_worker, SolveRow solve_row) {
  const std::int64_t n = job.graph.n;
  const bool subset = !job.sources.empty();
  deliver_rows(
      job, make_worker,
      [&](auto& worker, std::int64_t first, std::int64_t rows, W* dist, vertex_t* pred) {
        std::fill(dist, dist + rows * n, kUnreachable<W>);
        if (pred) std::fill(pred, pred + rows * n, -1);
        for (std::int64_t r = 0; r < rows; ++r) {
          const auto source = subset ? job.sources[static_cast<std::size_t>(first + r)]
                                     : static_cast<vertex_t>(first + r);
          solve_row(worker, source, dist + r * n, pred ? pred + r * n : nullptr);
        }
      },
      /*report_progress=*/true);
}

}  // namespace apsp::cpu::detail
