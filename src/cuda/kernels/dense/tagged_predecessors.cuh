// The predecessor mode of the production solver: distances packed with
// predecessor tags before the rounds, and the midpoints the tags leave turned
// into predecessors after them (pointer jumping along each column).
#pragma once

#include <cstdint>

#include "apsp/graph.hpp"
#include "cuda/kernels/common/words.cuh"

namespace apsp::cuda::kernels {

// Predecessor mode, before the rounds: tagged[x] = min(dist[x], kInfTagged)
// << kTagBits and mid[x] = -1. Grid-stride over count.
static __global__ void pack_tagged(const std::int32_t* __restrict__ dist, std::int32_t* __restrict__ tagged,
                                   std::int32_t* __restrict__ mid, std::int64_t count) {
  for (std::int64_t x = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; x < count;
       x += std::int64_t{gridDim.x} * blockDim.x) {
    tagged[x] = min(dist[x], kInfTagged) << kTagBits;
    mid[x] = -1;
  }
}

// After the rounds: dist = tagged >> kTagBits (kInfTagged becomes kInf), and
// mid becomes the chain pointer of pred[i][j] = pred[mid[i][j]][j]:
// link[i][j] = mid[i][j] when set, else ~i (the edge i -> j ends the path).
static __global__ void unpack_tagged(const std::int32_t* __restrict__ tagged, std::int32_t* __restrict__ dist,
                                     std::int32_t* __restrict__ mid_to_link, std::int64_t n_pad) {
  for (std::int64_t x = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; x < n_pad * n_pad;
       x += std::int64_t{gridDim.x} * blockDim.x) {
    const std::int32_t v = tagged[x] >> kTagBits;
    dist[x] = v >= kInfTagged ? kInf : v;
    const std::int32_t m = mid_to_link[x];
    if (m < 0) mid_to_link[x] = ~static_cast<std::int32_t>(x / n_pad);
  }
}

// One pointer-jumping pass over the n x n block: a link >= 0 names a row of
// the same column to follow. Reading a neighbour mid-update is harmless: old
// and new values are both links further along the same chain.
static __global__ void jump_links(std::int32_t* __restrict__ link, std::int64_t n, std::int64_t n_pad, int* changed) {
  bool any = false;
  for (std::int64_t x = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; x < n * n;
       x += std::int64_t{gridDim.x} * blockDim.x) {
    const std::int64_t i = x / n, j = x - i * n;
    const std::int32_t to = link[i * n_pad + j];
    if (to >= 0) {
      link[i * n_pad + j] = link[std::int64_t{to} * n_pad + j];
      any = true;
    }
  }
  if (__syncthreads_or(any) && threadIdx.x == 0) *changed = 1;
}

// pred[i][j] = ~link[i][j] for finite off-diagonal entries, else -1.
static __global__ void links_to_pred(std::int32_t* __restrict__ link, const std::int32_t* __restrict__ dist,
                                     std::int64_t n_pad) {
  for (std::int64_t x = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; x < n_pad * n_pad;
       x += std::int64_t{gridDim.x} * blockDim.x) {
    const std::int64_t i = x / n_pad, j = x - i * n_pad;
    link[x] = (i == j || dist[x] >= kInf) ? -1 : ~link[x];
  }
}

}  // namespace apsp::cuda::kernels
