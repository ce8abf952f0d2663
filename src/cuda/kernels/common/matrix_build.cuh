// Kernels that build the padded dense matrix from an edge list, for every
// distance type (int32 with kInf, float and double with +infinity).
#pragma once

#include <cstdint>

#include "apsp/graph.hpp"

namespace apsp::cuda::kernels {

// dist[i][j] = 0 on the diagonal, kUnreachable<D> elsewhere; pred = -1. Grid-stride over n_pad^2.
template <class D>
__global__ void init_matrix(D* dist, vertex_t* pred, std::int64_t n_pad) {
  const std::int64_t total = n_pad * n_pad;
  for (std::int64_t x = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; x < total;
       x += std::int64_t{gridDim.x} * blockDim.x) {
    const std::int64_t i = x / n_pad, j = x - i * n_pad;
    dist[x] = i == j ? D(0) : kUnreachable<D>;
    if (pred) pred[x] = -1;
  }
}

// Edges are normalized (unique (src, dst), no self-loops), so plain stores suffice.
template <class D>
__global__ void scatter_edges(D* dist, vertex_t* pred, std::int64_t n_pad, const BasicEdge<D>* edges,
                              std::int64_t count) {
  for (std::int64_t e = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; e < count;
       e += std::int64_t{gridDim.x} * blockDim.x) {
    const BasicEdge<D> x = edges[e];
    const std::int64_t at = std::int64_t{x.src} * n_pad + x.dst;
    dist[at] = x.w;
    if (pred) pred[at] = x.src;
  }
}

}  // namespace apsp::cuda::kernels
