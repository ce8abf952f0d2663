// Kernels of the predecessor-tree certificate: pointer jumping along each
// predecessor row finds the rows whose chains do not all lead to the source.
#pragma once

#include <cstdint>

#include "apsp/graph.hpp"

namespace apsp::cuda::kernels {

// Root finding along predecessor rows, for the tree check. anc is n x n
// (leading dimension n): start: anc[i][j] = pred[i][j] if >= 0, else j.
static __global__ void start_ancestors(const vertex_t* pred, std::int64_t n, std::int64_t n_pad, vertex_t* anc) {
  for (std::int64_t x = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; x < n * n;
       x += std::int64_t{gridDim.x} * blockDim.x) {
    const std::int64_t i = x / n, j = x - i * n;
    const vertex_t p = pred[i * n_pad + j];
    anc[x] = p >= 0 ? p : static_cast<vertex_t>(j);
  }
}
// One pointer-jumping pass within each row; reading a neighbour mid-update
// is harmless (both values are ancestors on the same chain).
static __global__ void jump_ancestors(vertex_t* anc, std::int64_t n) {
  for (std::int64_t x = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; x < n * n;
       x += std::int64_t{gridDim.x} * blockDim.x) {
    const std::int64_t i = x / n;
    anc[x] = anc[i * n + anc[x]];
  }
}
// bad[i] = 1 when some j with a predecessor does not lead back to i.
static __global__ void flag_broken_rows(const vertex_t* pred, const vertex_t* anc, std::int64_t n, std::int64_t n_pad,
                                        unsigned char* bad) {
  for (std::int64_t x = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; x < n * n;
       x += std::int64_t{gridDim.x} * blockDim.x) {
    const std::int64_t i = x / n, j = x - i * n;
    if (pred[i * n_pad + j] >= 0 && anc[x] != i) bad[i] = 1;
  }
}

}  // namespace apsp::cuda::kernels
