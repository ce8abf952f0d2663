// The production solver's predecessor fallback, after int32 rounds: each
// predecessor read off the exact distances as the tail of a tight in-edge
// (d[i][u] + w(u, j) == d[i][j]). A positive-weight tight edge is taken
// first: along such edges distances strictly fall, so they close no cycle;
// only zero-weight ties can, and the dispatcher's tree certificate finds and
// the host repairs those rows. O(n * m) work.
#pragma once

#include <cstdint>

#include "apsp/graph.hpp"
#include "cuda/algorithm.hpp"

namespace apsp::cuda::kernels {

// pred[i][j] for the n x n block of n_pad x n_pad matrices; in_edges is the
// transposed CSR (col = source vertex). Grid-stride over n^2.
static __global__ void predecessors_from_tight_edges(const dist_t* __restrict__ dist, vertex_t* __restrict__ pred,
                                                     std::int64_t n, std::int64_t n_pad, DeviceCsr in_edges) {
  for (std::int64_t x = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; x < n * n;
       x += std::int64_t{gridDim.x} * blockDim.x) {
    const std::int64_t i = x / n, j = x - i * n;
    const dist_t* row = dist + i * n_pad;
    const dist_t d_ij = row[j];
    vertex_t chosen = -1;
    if (i != j && d_ij < kInf) {
      for (std::int64_t e = in_edges.row_start[j]; e < in_edges.row_start[j + 1]; ++e) {
        const vertex_t u = in_edges.col[e];
        const weight_t w = in_edges.weight[e];
        if (row[u] >= kInf || row[u] + w != d_ij) continue;
        if (w > 0 || chosen < 0) chosen = u;
        if (w > 0) break;
      }
    }
    pred[i * n_pad + j] = chosen;
  }
}

}  // namespace apsp::cuda::kernels
