#include "core/tight_edges.hpp"

#include <algorithm>
#include <string_view>

namespace apsp::core {

void TightEdgeSearch::run(const Csr& edges, Walk walk, const dist_t* row, vertex_t root, vertex_t* via,
                          vertex_t stop_at) {
  std::fill(via, via + edges.n, -1);
  queue_.assign(1, root);
  via[root] = root;
  for (std::size_t head = 0; head < queue_.size() && (stop_at < 0 || via[stop_at] == -1); ++head) {
    const vertex_t at = queue_[head];
    for (std::int64_t k = edges.row_start[at]; k < edges.row_start[at + 1]; ++k) {
      const vertex_t next = edges.col[k];
      if (via[next] != -1) continue;
      const bool tight = walk == Walk::out_edges ? is_tight(row[at], edges.weight[k], row[next])
                                                 : is_tight(row[next], edges.weight[k], row[at]);
      if (!tight) continue;
      via[next] = at;
      queue_.push_back(next);
    }
  }
}

void tight_predecessor_row(const Csr& out_edges, const dist_t* row, vertex_t source, vertex_t* pred_row,
                           TightEdgeSearch& search) {
  search.run(out_edges, Walk::out_edges, row, source, pred_row);
  pred_row[source] = -1;
}

bool PredecessorRepair::row(const Csr& out_edges, const dist_t* row, vertex_t source, vertex_t* pred_row) {
  const ChainProblem problem =
      chains_.first_problem(row, pred_row, source, [](vertex_t, vertex_t) { return std::string_view(); });
  if (problem.kind == ChainProblem::none) return false;
  tight_predecessor_row(out_edges, row, source, pred_row, search_);
  return true;
}

}  // namespace apsp::core
