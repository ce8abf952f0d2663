// The seeds' coalesced kernel: a 1D grid laid along the row-major matrix, so
// consecutive threads own consecutive cells of a row. One launch per pivot k.
#pragma once

#include <cstdint>

#include "apsp/graph.hpp"
#include "common.cuh"

namespace apsp::cuda::kernels {

// The seeds' best block size for this kernel.
inline constexpr int kCoalescedThreads = 128;

// Grid: ceil(n^2 / kCoalescedThreads) blocks; thread t owns cell t of the n x n block.
template <bool kTrackPred>
__global__ void __launch_bounds__(kCoalescedThreads)
    coalesced_step(dist_t* dist, vertex_t* pred, std::int64_t n, std::int64_t ld, std::int64_t k) {
  const std::int64_t cell = blockIdx.x * std::int64_t{kCoalescedThreads} + threadIdx.x;
  if (cell >= n * n) return;
  const std::int64_t i = cell / n, j = cell - i * n;
  relax_global<kTrackPred>(dist, pred, ld, i, j, k, dist[i * ld + k], dist[k * ld + j]);
}

}  // namespace apsp::cuda::kernels
