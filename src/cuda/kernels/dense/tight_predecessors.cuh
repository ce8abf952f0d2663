// The production solver's predecessor fallback, after int32 rounds: each
// predecessor read off the exact distances as the tail of a tight in-edge
// (cuda/tight_in_edge.hpp: a positive-weight one first); the dispatcher's
// tree certificate finds and the host repairs rows that zero-weight ties
// leave cyclic. O(n * m) work.
#pragma once

#include <cstdint>

#include "apsp/graph.hpp"
#include "cuda/algorithm.hpp"
#include "cuda/tight_in_edge.hpp"

namespace apsp::cuda::kernels {

// pred[i][j] for the n x n block of n_pad x n_pad matrices; in_edges is the
// transposed CSR (col = source vertex). Grid-stride over n^2.
static __global__ void predecessors_from_tight_edges(const dist_t* __restrict__ dist, vertex_t* __restrict__ pred,
                                                     std::int64_t n, std::int64_t n_pad, DeviceCsr in_edges) {
  for (std::int64_t x = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; x < n * n;
       x += std::int64_t{gridDim.x} * blockDim.x) {
    const std::int64_t i = x / n, j = x - i * n;
    pred[i * n_pad + j] = tight_in_edge_predecessor(dist + i * n_pad, i, j, in_edges);
  }
}

}  // namespace apsp::cuda::kernels
