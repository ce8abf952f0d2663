// Private to the CPU backend: single-source searches run once per source
// (Dijkstra, Johnson, Bellman-Ford) and the OpenMP driver over sources.
#pragma once

#include <omp.h>

#include <atomic>
#include <cstdint>
#include <optional>
#include <vector>

#include "cpu/backend.hpp"

namespace apsp::cpu::detail {

// Out-edges of u are [row_start[u], row_start[u+1]) in col / weight. Views a
// Csr (W = weight_t) or Johnson's reweighted copy (W = int64).
template <class W>
struct Adjacency {
  std::int64_t n;
  const std::int64_t* row_start;
  const vertex_t* col;
  const W* weight;
};

inline Adjacency<weight_t> view(const Csr& c) { return {c.n, c.row_start.data(), c.col.data(), c.weight.data()}; }

// Min-heap entries. int32 distances are non-negative here, so (distance,
// vertex) packs into one integer whose order is the distance order.
template <class D>
struct HeapEntry {
  D key;
  vertex_t vertex;
  bool operator<(const HeapEntry& o) const { return key < o.key; }
};
template <>
struct HeapEntry<std::int32_t> {
  std::uint64_t packed;
  HeapEntry() = default;
  HeapEntry(std::int32_t key, vertex_t vertex)
      : packed(static_cast<std::uint64_t>(key) << 32 | static_cast<std::uint32_t>(vertex)) {}
  std::int32_t key_value() const { return static_cast<std::int32_t>(packed >> 32); }
  vertex_t vertex_value() const { return static_cast<vertex_t>(packed & 0xffffffffu); }
  bool operator<(const HeapEntry& o) const { return packed < o.packed; }
};

template <class D>
D key_of(const HeapEntry<D>& e) {
  if constexpr (std::is_same<D, std::int32_t>::value) return e.key_value(); else return e.key;
}
template <class D>
vertex_t vertex_of(const HeapEntry<D>& e) {
  if constexpr (std::is_same<D, std::int32_t>::value) return e.vertex_value(); else return e.vertex;
}

// A 4-ary min-heap with lazy deletion (stale entries are skipped on pop).
template <class D>
class Heap {
 public:
  bool empty() const { return items_.empty(); }
  void push(HeapEntry<D> e) {
    std::size_t i = items_.size();
    items_.push_back(e);
    while (i > 0) {
      const std::size_t parent = (i - 1) / 4;
      if (!(e < items_[parent])) break;
      items_[i] = items_[parent];
      i = parent;
    }
    items_[i] = e;
  }
  HeapEntry<D> pop() {
    const HeapEntry<D> top = items_.front();
    const HeapEntry<D> last = items_.back();
    items_.pop_back();
    const std::size_t size = items_.size();
    if (size == 0) return top;
    std::size_t i = 0;
    for (;;) {
      const std::size_t first = 4 * i + 1;
      if (first >= size) break;
      std::size_t best = first;
      const std::size_t end = first + 4 < size ? first + 4 : size;
      for (std::size_t c = first + 1; c < end; ++c)
        if (items_[c] < items_[best]) best = c;
      if (!(items_[best] < last)) break;
      items_[i] = items_[best];
      i = best;
    }
    items_[i] = last;
    return top;
  }

 private:
  std::vector<HeapEntry<D>> items_;
};

// Dijkstra from `source`. `dist` holds infinity<D>() and `pred` (may be null)
// holds -1 for every vertex on entry. Weights must be non-negative.
template <class D, class W>
void dijkstra_from(const Adjacency<W>& g, vertex_t source, D* dist, vertex_t* pred, Heap<D>& heap) {
  dist[source] = 0;
  heap.push(HeapEntry<D>{D{0}, source});
  while (!heap.empty()) {
    const HeapEntry<D> top = heap.pop();
    const vertex_t u = vertex_of(top);
    const D du = key_of(top);
    if (du != dist[u]) continue;
    for (std::int64_t e = g.row_start[u]; e < g.row_start[u + 1]; ++e) {
      const vertex_t v = g.col[e];
      const D candidate = du + static_cast<D>(g.weight[e]);
      if (candidate < dist[v]) {
        dist[v] = candidate;
        if (pred) pred[v] = u;
        heap.push(HeapEntry<D>{candidate, v});
      }
    }
  }
}

// Runs solve_row(worker, source, dist_row, pred_row) for every source over
// OpenMP, with one worker = make_worker() per thread. out.dist starts as kInf
// and out.pred (when asked for) as -1. Exceptions from any thread stop the
// others and are rethrown here; progress is reported from the calling thread
// (now and then by OpenMP thread 0, and 1 at the end).
template <class MakeWorker, class SolveRow>
void for_each_source(const Job& job, SolveResult& out, MakeWorker make_worker, SolveRow solve_row) {
  const std::int64_t n = job.graph.n;
  out.dist = square_matrix<dist_t>(n, kInf, "the distance matrix");
  if (job.predecessors) out.pred = square_matrix<vertex_t>(n, -1, "the predecessor matrix");
  FirstError errors;
  std::atomic<std::int64_t> finished{0};
  const std::int64_t report_every = n / 100 + 1;
  std::int64_t next_report = report_every;
#pragma omp parallel num_threads(job.threads)
  {
    std::optional<decltype(make_worker())> worker;
    errors.run([&] { worker.emplace(make_worker()); });
#pragma omp for schedule(dynamic, 4)
    for (std::int64_t s = 0; s < n; ++s) {
      if (errors.stopped()) continue;
      errors.run([&] {
        solve_row(*worker, static_cast<vertex_t>(s), &out.dist[s * n],
                  job.predecessors ? &out.pred[s * n] : nullptr);
        const std::int64_t done = ++finished;
        if (omp_get_thread_num() == 0 && done >= next_report) {
          next_report = done + report_every;
          job.report(static_cast<double>(done) / static_cast<double>(n));
        }
      });
    }
  }
  errors.rethrow();
  job.report(1.0);
}

}  // namespace apsp::cpu::detail
