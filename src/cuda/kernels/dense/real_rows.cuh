// The real-valued GPU path's predecessors, read off its distances after the
// rounds (cuda/real_rows.cu launches it).
#pragma once

#include <cstdint>

#include "apsp/graph.hpp"

namespace apsp::cuda::kernels {

// pred[i][j] for the n x n block of the ld-strided matrices: the tail u of
// the in-edge (u, j) with the smallest d[i][u] + w(u, j) (a positive-weight
// edge wins a tie, then the lower u), -1 for j == i and unreachable j. In
// exact arithmetic that sum equals d[i][j] for the tails of tight edges;
// rounding may leave it a few ulps off, which the smallest sum absorbs.
// Along positive-weight edges the chains strictly descend, so only ties on
// zero-weight edges can close a loop, which the tree check finds (the host
// then rebuilds the row). in_row_start / in_col / in_weight: the transposed
// CSR (in_col = tail). Grid-stride over n^2.
template <class D>
__global__ void real_predecessors(const D* __restrict__ dist, vertex_t* __restrict__ pred, std::int64_t n,
                                  std::int64_t ld, const std::int64_t* __restrict__ in_row_start,
                                  const vertex_t* __restrict__ in_col, const D* __restrict__ in_weight) {
  for (std::int64_t x = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; x < n * n;
       x += std::int64_t{gridDim.x} * blockDim.x) {
    const std::int64_t i = x / n, j = x - i * n;
    const D* row = dist + i * ld;
    vertex_t chosen = -1;
    if (i != j && row[j] < kUnreachable<D>) {
      D best = kUnreachable<D>;
      bool best_positive = false;
      for (std::int64_t e = in_row_start[j]; e < in_row_start[j + 1]; ++e) {
        const vertex_t u = in_col[e];
        const D w = in_weight[e];
        const D via = row[u] + w;
        if (!(row[u] < kUnreachable<D>)) continue;
        const bool positive = w > 0;
        if (via < best || (via == best && positive && !best_positive)) {
          best = via;
          best_positive = positive;
          chosen = u;
        }
      }
    }
    pred[i * ld + j] = chosen;
  }
}

}  // namespace apsp::cuda::kernels
