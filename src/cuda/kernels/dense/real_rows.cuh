// The real-valued GPU path's predecessors, read off its distances after the
// rounds (cuda/real_rows.cu launches it).
#pragma once

#include <cstdint>
#include <type_traits>

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
// CSR (in_col = tail). Rows 0 .. rows - 1 of dist and pred are the rows of
// sources first_source .. first_source + rows - 1 (a row chunk; rows = n,
// first_source = 0 for the whole matrix). Also int32 (kInf unreachable;
// sums in int64). Grid-stride over rows * n.
template <class D>
__global__ void real_predecessors(const D* __restrict__ dist, vertex_t* __restrict__ pred, std::int64_t n,
                                  std::int64_t ld, const std::int64_t* __restrict__ in_row_start,
                                  const vertex_t* __restrict__ in_col, const D* __restrict__ in_weight,
                                  std::int64_t rows, std::int64_t first_source) {
  using Sum = typename std::conditional<std::is_integral<D>::value, std::int64_t, D>::type;
  for (std::int64_t x = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; x < rows * n;
       x += std::int64_t{gridDim.x} * blockDim.x) {
    const std::int64_t i = x / n, j = x - i * n;
    const D* row = dist + i * ld;
    vertex_t chosen = -1;
    if (first_source + i != j && row[j] < kUnreachable<D>) {
      Sum best = kUnreachable<D>;
      bool best_positive = false;
      for (std::int64_t e = in_row_start[j]; e < in_row_start[j + 1]; ++e) {
        const vertex_t u = in_col[e];
        const D w = in_weight[e];
        const Sum via = static_cast<Sum>(row[u]) + static_cast<Sum>(w);
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
