// The one breadth-first search over tight edges, and the one walk along
// predecessor chains. verify (every finite entry is attained), shortest_path
// (a path rebuilt from distances alone), the CPU's fw-blocked and the GPU
// backend (predecessor rows rebuilt as trees) all use them. Templated on the
// weight type W and the distance type D of the row: int32 rows are tested
// exactly, real-valued rows within an absolute slack (the rounding
// tolerance, core/weights.hpp). Host-only.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "apsp/graph.hpp"
#include "core/weights.hpp"

namespace apsp::core {

// An edge u -> v of weight w is tight in a row d of distances from one source
// when d[u] and d[v] are reachable and d[u] + w == d[v]: exactly for integer
// distances, within `slack` for real ones (slack is ignored for integers). A
// chain of tight edges from the source to v weighs d[v] (within the chain's
// summed slack).
template <class D, class W>
inline bool is_tight(D du, W w, D dv, double slack = 0) {
  if (!is_reachable(du) || !is_reachable(dv)) return false;
  if constexpr (std::is_integral<D>::value)
    return std::int64_t{du} + w == dv;
  else
    return std::fabs(static_cast<double>(du) + static_cast<double>(w) - static_cast<double>(dv)) <= slack;
}

// Which way a search runs over the tight edges u -> v.
enum class Walk {
  out_edges,  // `edges` is the graph's Csr: from u on to v, away from the source
  in_edges,   // `edges` is transpose() of it: from v back to u, towards the source
};

// Breadth-first search over tight edges, with O(n) scratch for graphs of n
// vertices (one per thread).
class TightEdgeSearch {
 public:
  explicit TightEdgeSearch(std::int64_t n) { queue_.reserve(static_cast<std::size_t>(n)); }

  // Searches from `root` over the tight edges of `row` (n distances from one
  // source) in the direction `walk`. On return via[v] (n entries) is the
  // vertex v was reached from, via[root] = root, and -1 where not reached;
  // the search stops once `stop_at` is reached (-1: never). Each vertex is
  // visited once, so zero-weight cycles cannot trap it, and the via links
  // form a tree of chains with the fewest edges. `slack`: see is_tight. O(n + m).
  template <class W, class D>
  void run(const BasicCsr<W>& edges, Walk walk, const D* row, vertex_t root, vertex_t* via, vertex_t stop_at = -1,
           double slack = 0) {
    std::fill(via, via + edges.n, -1);
    queue_.assign(1, root);
    via[root] = root;
    for (std::size_t head = 0; head < queue_.size() && (stop_at < 0 || via[stop_at] == -1); ++head) {
      const vertex_t at = queue_[head];
      for (std::int64_t k = edges.row_start[at]; k < edges.row_start[at + 1]; ++k) {
        const vertex_t next = edges.col[k];
        if (via[next] != -1) continue;
        const bool tight = walk == Walk::out_edges ? is_tight(row[at], edges.weight[k], row[next], slack)
                                                   : is_tight(row[next], edges.weight[k], row[at], slack);
        if (!tight) continue;
        via[next] = at;
        queue_.push_back(next);
      }
    }
  }

 private:
  std::vector<vertex_t> queue_;
};

// Rewrites pred_row (the predecessors from `source`, n entries) as the
// breadth-first tree over the tight out-edges of `row`: pred_row[v] is the
// vertex before v, -1 for the source and for vertices no tight chain reaches.
// A tree whatever the ties on zero-weight cycles. `slack`: see is_tight.
template <class W, class D>
void tight_predecessor_row(const BasicCsr<W>& out_edges, const D* row, vertex_t source, vertex_t* pred_row,
                           TightEdgeSearch& search, double slack = 0) {
  search.run(out_edges, Walk::out_edges, row, source, pred_row, -1, slack);
  pred_row[source] = -1;
}

// What is wrong with a predecessor row, found by follow_predecessor_row.
struct ChainProblem {
  enum Kind {
    none,
    unexpected,    // pred[at] != -1 where d[at] is unreachable or at is the source
    not_a_vertex,  // pred[at] is outside 0..n-1 on the chain of `target`
    loops,         // the chain of `target` comes back to `at`
    bad_link,      // the link pred[at] -> at fails the caller's check: `detail`
  };
  Kind kind = none;
  std::int64_t at = -1;
  std::int64_t target = -1;
  std::string detail;
};

// Scratch for following the predecessor chains of one row (one per thread).
class PredecessorChains {
 public:
  explicit PredecessorChains(std::int64_t n) : state_(static_cast<std::size_t>(n)) {}

  // Follows pred_row (the predecessors from `source`) back from every vertex
  // j with finite row[j], checking each link u = pred_row[v] once with
  // link_problem(u, v) (a message as a string or string_view, empty when fine). Every chain must reach
  // the source; entries for the source and for INF distances must be -1.
  // Returns the first problem in vertex order. O(n) plus the link checks.
  template <class D, class LinkProblem>
  ChainProblem first_problem(const D* row, const vertex_t* pred_row, std::int64_t source, LinkProblem link_problem);

 private:
  enum : char { unknown = 0, on_chain = 1, reaches_source = 2 };
  std::vector<char> state_;
  std::vector<vertex_t> chain_;
};

// Per-thread scratch that makes predecessor rows trees rooted at their
// source: row() leaves a row whose chains all reach the source, and rebuilds
// one whose chains loop (ties on zero-weight cycles in a blocked schedule)
// with tight_predecessor_row. The row must already hold tight links.
class PredecessorRepair {
 public:
  explicit PredecessorRepair(std::int64_t n) : chains_(n), search_(n) {}
  // Returns whether the row was rebuilt. `slack`: see is_tight.
  template <class W, class D>
  bool row(const BasicCsr<W>& out_edges, const D* row, vertex_t source, vertex_t* pred_row, double slack = 0) {
    const ChainProblem problem =
        chains_.first_problem(row, pred_row, source, [](vertex_t, vertex_t) { return std::string_view(); });
    if (problem.kind == ChainProblem::none) return false;
    tight_predecessor_row(out_edges, row, source, pred_row, search_, slack);
    return true;
  }

 private:
  PredecessorChains chains_;
  TightEdgeSearch search_;
};

template <class D, class LinkProblem>
ChainProblem PredecessorChains::first_problem(const D* row, const vertex_t* pred_row, std::int64_t source,
                                              LinkProblem link_problem) {
  const std::int64_t n = static_cast<std::int64_t>(state_.size());
  std::fill(state_.begin(), state_.end(), unknown);
  state_[source] = reaches_source;
  for (std::int64_t j = 0; j < n; ++j) {
    if (j == source || !is_reachable(row[j])) {
      if (pred_row[j] != -1) return ChainProblem{ChainProblem::unexpected, j, j, {}};
      continue;
    }
    chain_.clear();
    std::int64_t v = j;
    while (state_[v] != reaches_source) {
      if (state_[v] == on_chain) return ChainProblem{ChainProblem::loops, v, j, {}};
      state_[v] = on_chain;
      chain_.push_back(static_cast<vertex_t>(v));
      const vertex_t u = pred_row[v];
      if (u < 0 || u >= n) return ChainProblem{ChainProblem::not_a_vertex, v, j, {}};
      auto problem = link_problem(u, static_cast<vertex_t>(v));
      if (!problem.empty()) return ChainProblem{ChainProblem::bad_link, v, j, std::string(problem)};
      v = u;
    }
    for (const vertex_t x : chain_) state_[x] = reaches_source;
  }
  return {};
}

}  // namespace apsp::core
