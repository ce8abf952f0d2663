#include "core/bellman_ford.hpp"

#include <algorithm>

namespace apsp::core {

BellmanFord::BellmanFord(std::int64_t n)
    : n_(n),
      label_(static_cast<std::size_t>(n)),
      hops_(static_cast<std::size_t>(n)),
      parent_(static_cast<std::size_t>(n)),
      queued_(static_cast<std::size_t>(n)),
      ring_(static_cast<std::size_t>(n)) {}

void BellmanFord::push(vertex_t v) {
  queued_[v] = 1;
  std::size_t tail = head_ + size_;  // < 2 n: wrap by subtraction, not division
  if (tail >= ring_.size()) tail -= ring_.size();
  ring_[tail] = v;
  ++size_;
}

bool BellmanFord::from_source(const CsrView<weight_t>& g, vertex_t source) {
  std::fill(label_.begin(), label_.end(), kUnreached);
  std::fill(parent_.begin(), parent_.end(), -1);
  std::fill(queued_.begin(), queued_.end(), 0);
  head_ = size_ = 0;
  label_[source] = 0;
  hops_[source] = 0;
  push(source);
  return relax_queued(g, CycleWanted::proof) == -1;
}

std::int64_t BellmanFord::from_all(const CsrView<weight_t>& g) {
  // The virtual source's own round is done up front: every label 0 over its
  // zero-weight edge, every vertex queued.
  std::fill(label_.begin(), label_.end(), 0);
  std::fill(hops_.begin(), hops_.end(), 0);
  std::fill(parent_.begin(), parent_.end(), -1);
  std::fill(queued_.begin(), queued_.end(), 0);
  head_ = size_ = 0;
  for (std::int64_t v = 0; v < n_; ++v) push(static_cast<vertex_t>(v));
  return relax_queued(g, CycleWanted::vertex);
}

std::int64_t BellmanFord::relax_queued(const CsrView<weight_t>& g, CycleWanted wanted) {
  bool proven = false;
  std::int64_t since_check = 0;
  while (size_ > 0) {
    const vertex_t u = ring_[head_];
    if (++head_ == ring_.size()) head_ = 0;
    --size_;
    queued_[u] = 0;
    const std::int64_t du = label_[u], hops_through_u = hops_[u] + 1;
    for (std::int64_t e = g.row_start[u]; e < g.row_start[u + 1]; ++e) {
      const vertex_t v = g.col[e];
      const std::int64_t candidate = du + g.weight[e];
      if (candidate >= label_[v]) continue;
      label_[v] = candidate;
      parent_[v] = u;
      hops_[v] = hops_through_u;
      const bool proof = hops_through_u >= n_;
      if (wanted == CycleWanted::proof) {
        if (proof) return kProven;
      } else if (++since_check > n_ || (proof && !proven)) {
        // Name a vertex: look at the parent pointers once the cycle is proven
        // and then every n + 1 relaxations (amortised O(1) per relaxation);
        // while a negative cycle is reachable they soon always hold a cycle.
        proven = proven || proof;
        since_check = 0;
        const std::int64_t on_cycle = vertex_on_parent_cycle();
        if (on_cycle >= 0) return on_cycle;
      }
      if (!queued_[v]) push(v);
    }
  }
  return -1;
}

std::int64_t BellmanFord::vertex_on_parent_cycle() {
  walk_.assign(static_cast<std::size_t>(n_), -1);
  for (std::int64_t start = 0; start < n_; ++start) {
    std::int64_t v = start;
    while (v >= 0 && walk_[v] < 0) {
      walk_[v] = start;
      v = parent_[v];
    }
    if (v >= 0 && walk_[v] == start) return v;
  }
  return -1;
}

}  // namespace apsp::core
