// Kernels that build the padded dense matrix from an edge list and inspect it.
#pragma once

#include <cstdint>

#include "apsp/graph.hpp"

namespace apsp::cuda::kernels {

// dist[i][j] = 0 on the diagonal, kInf elsewhere; pred = -1. Grid-stride over n_pad^2.
static __global__ void init_matrix(dist_t* dist, vertex_t* pred, std::int64_t n_pad) {
  const std::int64_t total = n_pad * n_pad;
  for (std::int64_t x = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; x < total;
       x += std::int64_t{gridDim.x} * blockDim.x) {
    const std::int64_t i = x / n_pad, j = x - i * n_pad;
    dist[x] = i == j ? 0 : kInf;
    if (pred) pred[x] = -1;
  }
}

// Edges are normalized (unique (src, dst), no self-loops), so plain stores suffice.
static __global__ void scatter_edges(dist_t* dist, vertex_t* pred, std::int64_t n_pad, const Edge* edges,
                              std::int64_t count) {
  for (std::int64_t e = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; e < count;
       e += std::int64_t{gridDim.x} * blockDim.x) {
    const Edge x = edges[e];
    const std::int64_t at = std::int64_t{x.src} * n_pad + x.dst;
    dist[at] = x.w;
    if (pred) pred[at] = x.src;
  }
}

// *result = max over the n x n block of the entries below `infinity`
// (atomicMax; *result must start at INT_MIN).
template <typename T>
__global__ void max_finite(const T* dist, std::int64_t n, std::int64_t n_pad, int infinity, int* result) {
  int best = INT_MIN;
  const std::int64_t total = n * n;
  for (std::int64_t x = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; x < total;
       x += std::int64_t{gridDim.x} * blockDim.x) {
    const std::int64_t i = x / n, j = x - i * n;
    const int v = dist[i * n_pad + j];
    if (v < infinity && v > best) best = v;
  }
  for (int offset = 16; offset > 0; offset /= 2) best = max(best, __shfl_down_sync(0xffffffffu, best, offset));
  if ((threadIdx.x & 31) == 0) atomicMax(result, best);
}

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
