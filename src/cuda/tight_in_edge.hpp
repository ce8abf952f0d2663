// One predecessor read off the tight in-edges of its target, on the device
// (kernels/dense/tight_predecessors.cuh, in-core fw's fallback past the
// tagged range) and on the host (the out-of-core solver's same fallback),
// so that both pick the same edge. Host-safe.
#pragma once

#include <cstdint>

#include "apsp/graph.hpp"
#include "core/ceil_div.hpp"  // APSP_HOST_DEVICE
#include "cuda/algorithm.hpp"

namespace apsp::cuda {

// pred[i][j] from row i's exact distances (`row`, reweighted, kInf for
// unreachable) and the reweighted graph's in-edges (`in_edges`: the
// transposed CSR, col = the edge's tail): the tail u of the first in-edge
// of j with row[u] + w == row[j] and w > 0, else of the first such edge of
// weight 0, else -1; -1 for i == j and unreachable j. Along positive tight
// edges distances strictly fall, so they close no cycle; zero-weight ties
// can, and the caller's tree check finds and repairs those rows.
APSP_HOST_DEVICE inline vertex_t tight_in_edge_predecessor(const dist_t* row, std::int64_t i, std::int64_t j,
                                                           const DeviceCsr& in_edges) {
  const dist_t d_ij = row[j];
  vertex_t chosen = -1;
  if (i == j || d_ij >= kInf) return chosen;
  for (std::int64_t e = in_edges.row_start[j]; e < in_edges.row_start[j + 1]; ++e) {
    const vertex_t u = in_edges.col[e];
    const weight_t w = in_edges.weight[e];
    if (row[u] >= kInf || row[u] + w != d_ij) continue;
    if (w > 0 || chosen < 0) chosen = u;
    if (w > 0) break;
  }
  return chosen;
}

}  // namespace apsp::cuda
