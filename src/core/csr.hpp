// The one compressed-sparse-row layout (apsp::Csr in include/apsp/graph.hpp),
// seen through a view so that the same layout serves the Csr itself and copies
// that keep its structure with other weights (Johnson's int64 reweighted
// weights), plus the one builder of row offsets. Host-only.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "apsp/graph.hpp"

namespace apsp::core {

// Out-edges of u are [row_start[u], row_start[u + 1]) in col / weight; the
// arrays belong to someone else and must outlive the view.
template <class W>
struct CsrView {
  std::int64_t n;
  const std::int64_t* row_start;  // n + 1 entries
  const vertex_t* col;
  const W* weight;
};

template <class W>
CsrView<W> csr_view(const BasicCsr<W>& c) {
  return {c.n, c.row_start.data(), c.col.data(), c.weight.data()};
}

// The weight of edge u -> v in a Csr whose rows hold increasing columns (as
// to_csr builds them), or nullptr when there is no such edge. O(log degree).
template <class W>
const W* find_edge_weight(const BasicCsr<W>& c, vertex_t u, vertex_t v) {
  const auto first = c.col.begin() + c.row_start[u], last = c.col.begin() + c.row_start[u + 1];
  const auto edge = std::lower_bound(first, last, v);
  return edge == last || *edge != v ? nullptr : &c.weight[static_cast<std::size_t>(edge - c.col.begin())];
}

// Row offsets (n + 1 entries) of `count` items where item k belongs to row
// row_of(k): row r owns [offsets[r], offsets[r + 1]). Precondition: every
// row_of(k) is in 0..n-1 (callers have checked their input).
template <class RowOf>
std::vector<std::int64_t> row_offsets(std::int64_t n, std::size_t count, RowOf row_of) {
  std::vector<std::int64_t> offsets(static_cast<std::size_t>(n) + 1, 0);
  for (std::size_t k = 0; k < count; ++k) ++offsets[static_cast<std::size_t>(row_of(k)) + 1];
  for (std::size_t r = 0; r < static_cast<std::size_t>(n); ++r) offsets[r + 1] += offsets[r];
  return offsets;
}

}  // namespace apsp::core
