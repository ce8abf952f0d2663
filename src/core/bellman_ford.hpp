// The one Bellman-Ford of the library: label-correcting with a FIFO queue
// (Bellman-Ford-Moore, round by round), with the negative-cycle proof and the
// finder of a vertex on one. Johnson's potentials (src/core/potentials.cpp)
// and the CPU's per-source "bellman-ford" algorithm both run it. Host-only.
#pragma once

#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

#include "apsp/graph.hpp"
#include "core/csr.hpp"

namespace apsp::core {

// O(n) state for graphs of n vertices, reused across runs (one per thread).
// W is the weight type; labels are int64 for int32 weights and double for
// real ones (float32 weights are summed in double).
//
// Every label is the weight of a walk from the source (or from a virtual
// source) whose edge count is hops[v]. A walk of n or more edges repeats a
// vertex, and it only improved on that vertex's earlier label if the closed
// walk between the two visits weighs < 0: so hops[v] >= n proves a negative
// cycle, and labels keep falling (hops keep growing) while one is reachable.
// Any cycle of the parent pointers is a negative cycle; that is how a vertex
// on one is named.
template <class W>
class BasicBellmanFord {
 public:
  using label_type = std::conditional_t<std::is_integral<W>::value, std::int64_t, double>;
  // Label of a vertex not reached from the source; far from any real label
  // (+infinity for real weights).
  static constexpr label_type kUnreached = std::is_integral<W>::value ? static_cast<label_type>(std::int64_t{1} << 62)
                                                                      : std::numeric_limits<label_type>::infinity();

  // `slack` (real weights only; see core::relaxation_slack): a relaxation
  // must improve a label by more than it.
  explicit BasicBellmanFord(std::int64_t n, double slack = 0);

  // Labels from `source`: shortest distances, kUnreached for vertices it does
  // not reach, and parent pointers forming a shortest-path tree. Returns false
  // as soon as a negative cycle reachable from `source` is proven (labels and
  // parents are then meaningless).
  bool from_source(const CsrView<W>& g, vertex_t source);

  // Labels from a virtual source joined to every vertex by a zero-weight edge
  // (so every label is <= 0): Johnson's potentials. Returns -1, or a vertex on
  // a negative cycle of `g`.
  std::int64_t from_all(const CsrView<W>& g);

  const std::vector<label_type>& labels() const { return label_; }
  std::vector<label_type> take_labels() { return std::move(label_); }
  const std::vector<vertex_t>& parents() const { return parent_; }

 private:
  enum class CycleWanted { proof, vertex };
  // Relaxes until the queue empties (returns -1), until a negative cycle is
  // proven (returns kProven, for CycleWanted::proof), or until the parent
  // pointers close a cycle (returns a vertex on it, for CycleWanted::vertex).
  std::int64_t relax_queued(const CsrView<W>& g, CycleWanted wanted);
  void push(vertex_t v);
  std::int64_t vertex_on_parent_cycle();

  static constexpr std::int64_t kProven = -2;
  std::int64_t n_;
  label_type slack_;
  std::vector<label_type> label_;
  std::vector<std::int64_t> hops_;
  std::vector<vertex_t> parent_;
  std::vector<char> queued_;
  // FIFO ring of the queued vertices: each is queued at most once, so n slots.
  std::vector<vertex_t> ring_;
  std::size_t head_ = 0, size_ = 0;
  // The parent-cycle walk's marks: the id of the walk that visited a vertex.
  std::vector<std::int64_t> walk_;
};
using BellmanFord = BasicBellmanFord<weight_t>;

}  // namespace apsp::core
