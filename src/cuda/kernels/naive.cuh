// The seeds' basic kernel: one thread per cell, one launch per pivot k.
#pragma once

#include <cstdint>

#include "apsp/graph.hpp"
#include "common.cuh"

namespace apsp::cuda::kernels {

// Grid: a 2D grid of 2D blocks over the n x n block. As in the seeds, thread
// x walks rows (i) and y walks columns (j), so a warp touches one column of
// several rows: the uncoalesced baseline that `coalesced` improves on.
template <bool kTrackPred>
__global__ void naive_step(dist_t* dist, vertex_t* pred, std::int64_t n, std::int64_t ld, std::int64_t k) {
  const std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x;
  const std::int64_t j = blockIdx.y * std::int64_t{blockDim.y} + threadIdx.y;
  if (i >= n || j >= n) return;
  relax_global<kTrackPred>(dist, pred, ld, i, j, k, dist[i * ld + k], dist[k * ld + j]);
}

}  // namespace apsp::cuda::kernels
