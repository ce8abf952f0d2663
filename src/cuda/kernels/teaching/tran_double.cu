// Tran's first algorithm: Floyd-Warshall with two matrices in ping-pong. Step k
// reads `from` and writes every cell of `to`, so no cell is read and written in
// the same launch; as in Tran's kernel, each kTile x kTile block stages the
// row segment d[k][j] and column segment d[i][k] in shared memory.
//
// Host launcher of Tran's ping-pong kernel: swaps the two matrices after every
// pivot and leaves the result in problem.dist / problem.pred.
#include <cstdint>
#include <utility>

#include "apsp/graph.hpp"
#include "cuda/algorithm.hpp"
#include "core/cuda_check.hpp"
#include "cuda/family.hpp"
#include "cuda/kernels/teaching/relax.cuh"

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

namespace apsp::cuda {

void run_tran_double(GpuProblem& problem) {
  using Shape = kernels::TranShape;
  problem.used_precision = Precision::int32;
  const SecondMatrix second = allocate_second_matrix(problem, "tran-double");
  const dim3 block(Shape::kTile, Shape::kTile);
  const std::int64_t tiles = ceil_div(problem.n_pad, Shape::kTile);
  const dim3 grid = grid_of(tiles, tiles, "tran-double");
  dist_t* from = problem.dist;
  dist_t* to = second.dist.get();
  vertex_t* pred_from = problem.pred;
  vertex_t* pred_to = second.pred.get();
  for_each_pivot(problem, [&](auto track, std::int64_t k) {
    kernels::tran_double_step<decltype(track)::value>
        <<<grid, block, 0, problem.stream>>>(from, to, pred_from, pred_to, problem.n_pad, k);
    APSP_CUDA_CHECK_LAUNCH("tran_double_step");
    std::swap(from, to);
    std::swap(pred_from, pred_to);
  });
  if (from != problem.dist) copy_result_back(problem, from, pred_from);
  // `second` is freed on return: the work that uses it must be done.
  APSP_CUDA_CHECK(cudaStreamSynchronize(problem.stream));
}

}  // namespace apsp::cuda
