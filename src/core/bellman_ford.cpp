#include "core/bellman_ford.hpp"

#include <algorithm>

namespace apsp::core {

template <class W>
BasicBellmanFord<W>::BasicBellmanFord(std::int64_t n, double slack)
    : n_(n),
      slack_(std::is_integral<W>::value ? label_type(0) : static_cast<label_type>(slack)),
      label_(static_cast<std::size_t>(n)),
      hops_(static_cast<std::size_t>(n)),
      parent_(static_cast<std::size_t>(n)),
      queued_(static_cast<std::size_t>(n)),
      ring_(static_cast<std::size_t>(n)) {}

template <class W>
void BasicBellmanFord<W>::push(vertex_t v) {
  queued_[v] = 1;
  std::size_t tail = head_ + size_;  // < 2 n: wrap by subtraction, not division
  if (tail >= ring_.size()) tail -= ring_.size();
  ring_[tail] = v;
  ++size_;
}

template <class W>
bool BasicBellmanFord<W>::from_source(const CsrView<W>& g, vertex_t source) {
  std::fill(label_.begin(), label_.end(), kUnreached);
  std::fill(parent_.begin(), parent_.end(), -1);
  std::fill(queued_.begin(), queued_.end(), 0);
  head_ = size_ = 0;
  label_[source] = 0;
  hops_[source] = 0;
  push(source);
  return relax_queued(g, CycleWanted::proof) == -1;
}

template <class W>
std::int64_t BasicBellmanFord<W>::from_all(const CsrView<W>& g) {
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

template <class W>
std::int64_t BasicBellmanFord<W>::relax_queued(const CsrView<W>& g, CycleWanted wanted) {
  bool proven = false;
  std::int64_t since_check = 0;
  while (size_ > 0) {
    const vertex_t u = ring_[head_];
    if (++head_ == ring_.size()) head_ = 0;
    --size_;
    queued_[u] = 0;
    const label_type du = label_[u];
    const std::int64_t hops_through_u = hops_[u] + 1;
    for (std::int64_t e = g.row_start[u]; e < g.row_start[u + 1]; ++e) {
      const vertex_t v = g.col[e];
      const label_type candidate = du + static_cast<label_type>(g.weight[e]);
      if constexpr (std::is_integral<W>::value) {
        if (candidate >= label_[v]) continue;
      } else {
        if (candidate >= label_[v] - slack_) continue;  // +inf - slack is +inf: unreached labels still take any
      }
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

template <class W>
std::int64_t BasicBellmanFord<W>::vertex_on_parent_cycle() {
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

template class BasicBellmanFord<weight_t>;
template class BasicBellmanFord<float>;
template class BasicBellmanFord<double>;

}  // namespace apsp::core
