// Tran's first algorithm: Floyd-Warshall with two matrices in ping-pong. Step k
// reads `from` and writes every cell of `to`, so no cell is read and written in
// the same launch; as in Tran's kernel, each kTile x kTile block stages the
// row segment d[k][j] and column segment d[i][k] in shared memory.
#pragma once

#include <cstdint>

#include "apsp/graph.hpp"
#include "common.cuh"

namespace apsp::cuda::kernels {

struct TranShape {
  static constexpr int kTile = 16;  // Tran's row[16], col[16]
  static constexpr int kThreads = kTile * kTile;
  static_assert(kThreads <= 1024, "one block per tile");
};

// Grid: ceil(n_pad / kTile)^2 blocks of kTile x kTile threads (x -> j) over
// the whole padded matrix, so `to` is complete after every step. pred_from /
// pred_to are null unless kTrackPred.
template <bool kTrackPred>
__global__ void __launch_bounds__(TranShape::kThreads)
    tran_double_step(const dist_t* __restrict__ from, dist_t* __restrict__ to, const vertex_t* __restrict__ pred_from,
                     vertex_t* __restrict__ pred_to, std::int64_t ld, std::int64_t k) {
  __shared__ dist_t row_k[TranShape::kTile];  // from[k][j] for the tile's columns
  __shared__ dist_t col_k[TranShape::kTile];  // from[i][k] for the tile's rows
  const std::int64_t i = blockIdx.y * std::int64_t{TranShape::kTile} + threadIdx.y;
  const std::int64_t j = blockIdx.x * std::int64_t{TranShape::kTile} + threadIdx.x;
  const bool inside = i < ld && j < ld;
  if (threadIdx.y == 0 && j < ld) row_k[threadIdx.x] = from[k * ld + j];
  if (threadIdx.x == 0 && i < ld) col_k[threadIdx.y] = from[i * ld + k];
  __syncthreads();
  if (!inside) return;
  const std::int64_t at = i * ld + j;
  dist_t best = from[at];
  if constexpr (kTrackPred) {
    vertex_t best_pred = pred_from[at];
    relax<true>(best, col_k[threadIdx.y], row_k[threadIdx.x], [&] { best_pred = pred_from[k * ld + j]; });
    pred_to[at] = best_pred;
  } else {
    relax<false>(best, col_k[threadIdx.y], row_k[threadIdx.x], [] {});
  }
  to[at] = best;
}

}  // namespace apsp::cuda::kernels
