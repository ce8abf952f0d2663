// The seeds' shared-memory kernel: each block owns a kTileRows x kTileCols tile
// and stages, per pivot k, the tile's column segment d[i][k] and row segment
// d[k][j] in shared memory, so each is read from global memory once per tile.
// One launch per pivot k.
//
// Host launcher of the shared-rowcol kernel.
#include <cstdint>

#include "apsp/graph.hpp"
#include "cuda/algorithm.hpp"
#include "core/cuda_check.hpp"
#include "cuda/family.hpp"
#include "cuda/kernels/teaching/relax.cuh"

namespace apsp::cuda::kernels {

struct SharedRowColShape {
  static constexpr int kTileCols = 32;  // threadIdx.x -> j: a warp reads one row segment
  static constexpr int kTileRows = 16;
  static constexpr int kThreads = kTileCols * kTileRows;
  // The registry pads n to 32, so every tile lies inside the padded matrix.
  static constexpr int kPadMultiple = 32;
  static_assert(kPadMultiple % kTileCols == 0 && kPadMultiple % kTileRows == 0, "tiles must divide the pad");
  static_assert(kThreads <= 1024, "one block per tile");
};

// Grid: ceil(n / kTileCols) x ceil(n / kTileRows) blocks of kTileCols x kTileRows
// threads, one per cell. Cells past n are padded vertices: they stay isolated.
template <bool kTrackPred>
__global__ void __launch_bounds__(SharedRowColShape::kThreads)
    shared_rowcol_step(dist_t* dist, vertex_t* pred, std::int64_t ld, std::int64_t k) {
  __shared__ dist_t row_k[SharedRowColShape::kTileCols];  // d[k][j] for the tile's columns
  __shared__ dist_t col_k[SharedRowColShape::kTileRows];  // d[i][k] for the tile's rows
  const std::int64_t i = blockIdx.y * std::int64_t{SharedRowColShape::kTileRows} + threadIdx.y;
  const std::int64_t j = blockIdx.x * std::int64_t{SharedRowColShape::kTileCols} + threadIdx.x;
  if (threadIdx.y == 0) row_k[threadIdx.x] = dist[k * ld + j];
  if (threadIdx.x == 0) col_k[threadIdx.y] = dist[i * ld + k];
  __syncthreads();
  relax_global<kTrackPred>(dist, pred, ld, i, j, k, col_k[threadIdx.y], row_k[threadIdx.x]);
}

}  // namespace apsp::cuda::kernels

namespace apsp::cuda {

void run_shared_rowcol(GpuProblem& problem) {
  using Shape = kernels::SharedRowColShape;
  require_pad_multiple(problem, Shape::kPadMultiple, "shared-rowcol");
  problem.used_precision = Precision::int32;
  const dim3 block(Shape::kTileCols, Shape::kTileRows);
  const dim3 grid =
      grid_of(ceil_div(problem.n, Shape::kTileCols), ceil_div(problem.n, Shape::kTileRows), "shared-rowcol");
  for_each_pivot(problem, [&](auto track, std::int64_t k) {
    kernels::shared_rowcol_step<decltype(track)::value>
        <<<grid, block, 0, problem.stream>>>(problem.dist, problem.pred, problem.n_pad, k);
    APSP_CUDA_CHECK_LAUNCH("shared_rowcol_step");
  });
}

}  // namespace apsp::cuda
