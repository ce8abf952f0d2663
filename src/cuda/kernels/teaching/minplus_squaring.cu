// Tran's second algorithm: repeated min-plus squaring D <- D (x) D, where
// (D (x) D)[i][j] = min_k D[i][k] + D[k][j]. After s squarings D holds the
// shortest paths of at most 2^s edges. Each product is tiled like a matrix
// multiplication: a block stages kTile x kTile tiles of D[i-tile][k-tile] and
// D[k-tile][j-tile] in shared memory and each thread keeps kCellsPerThread
// cells of one column in registers.
//
// Host launcher of repeated min-plus squaring: ceil(log2(n - 1)) products,
// ping-ponging between problem.dist and a second matrix. O(n^3 log n).
#include <cstdint>
#include <utility>

#include "apsp/graph.hpp"
#include "cuda/algorithm.hpp"
#include "core/cuda_check.hpp"
#include "cuda/family.hpp"
#include "cuda/kernels/teaching/relax.cuh"

namespace apsp::cuda::kernels {

struct MinPlusTraits {
  static constexpr int kTile = 32;
  static constexpr int kThreadsX = 32;  // threadIdx.x -> column j
  static constexpr int kThreadsY = 8;   // threadIdx.y -> rows y, y + 8, y + 16, y + 24
  static constexpr int kCellsPerThread = kTile / kThreadsY;
  static constexpr int kThreads = kThreadsX * kThreadsY;
  static_assert(kThreadsX == kTile, "one thread per tile column");
  static_assert(kTile % kThreadsY == 0, "rows split evenly over threadIdx.y");
  static_assert(kThreads <= 1024, "one block per tile");
};

// One product to = from (x) from over the n_pad x n_pad matrix (n_pad a
// multiple of kTile). Grid: (n_pad / kTile)^2 blocks of kThreadsX x kThreadsY.
// The candidate k = i (from[i][j] itself) comes first and only a strict
// improvement moves pred, to pred_from[k][j]. pred_from / pred_to are null
// unless kTrackPred.
template <bool kTrackPred>
__global__ void __launch_bounds__(MinPlusTraits::kThreads)
    minplus_square(const dist_t* __restrict__ from, dist_t* __restrict__ to, const vertex_t* __restrict__ pred_from,
                   vertex_t* __restrict__ pred_to, std::int64_t ld) {
  using T = MinPlusTraits;
  __shared__ dist_t left[T::kTile][T::kTile];   // from[i-tile][k-tile]
  __shared__ dist_t right[T::kTile][T::kTile];  // from[k-tile][j-tile]
  __shared__ vertex_t right_pred[kTrackPred ? T::kTile : 1][T::kTile];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const std::int64_t row0 = blockIdx.y * std::int64_t{T::kTile};
  const std::int64_t j = blockIdx.x * std::int64_t{T::kTile} + tx;

  dist_t best[T::kCellsPerThread];
  vertex_t best_pred[T::kCellsPerThread];
#pragma unroll
  for (int c = 0; c < T::kCellsPerThread; ++c) {
    const std::int64_t at = (row0 + ty + c * T::kThreadsY) * ld + j;
    best[c] = from[at];
    if constexpr (kTrackPred) best_pred[c] = pred_from[at];
  }

  for (std::int64_t k0 = 0; k0 < ld; k0 += T::kTile) {
#pragma unroll
    for (int c = 0; c < T::kCellsPerThread; ++c) {
      const int r = ty + c * T::kThreadsY;
      left[r][tx] = from[(row0 + r) * ld + k0 + tx];
      right[r][tx] = from[(k0 + r) * ld + j];
      if constexpr (kTrackPred) right_pred[r][tx] = pred_from[(k0 + r) * ld + j];
    }
    __syncthreads();
#pragma unroll 8
    for (int kk = 0; kk < T::kTile; ++kk) {
      const dist_t d_kj = right[kk][tx];
#pragma unroll
      for (int c = 0; c < T::kCellsPerThread; ++c)
        relax<kTrackPred>(best[c], left[ty + c * T::kThreadsY][kk], d_kj, [&] { best_pred[c] = right_pred[kk][tx]; });
    }
    __syncthreads();
  }

#pragma unroll
  for (int c = 0; c < T::kCellsPerThread; ++c) {
    const std::int64_t at = (row0 + ty + c * T::kThreadsY) * ld + j;
    to[at] = best[c];
    if constexpr (kTrackPred) pred_to[at] = best_pred[c];
  }
}

}  // namespace apsp::cuda::kernels

namespace apsp::cuda {
namespace {

// Squarings until 2^s >= n - 1, the most edges a shortest path can have.
int squarings_needed(std::int64_t n) {
  int s = 0;
  while (n > 2 && (std::int64_t{1} << s) < n - 1) ++s;
  return s;
}

}  // namespace

void run_minplus_squaring(GpuProblem& problem) {
  using T = kernels::MinPlusTraits;
  require_pad_multiple(problem, T::kTile, "minplus-squaring");
  problem.used_precision = Precision::int32;
  const int squarings = squarings_needed(problem.n);
  if (squarings == 0) return;
  const SecondMatrix second = allocate_second_matrix(problem, "minplus-squaring");
  const dim3 block(T::kThreadsX, T::kThreadsY);
  const std::int64_t tiles = problem.n_pad / T::kTile;
  const dim3 grid = grid_of(tiles, tiles, "minplus-squaring");
  dist_t* from = problem.dist;
  dist_t* to = second.dist.get();
  vertex_t* pred_from = problem.pred;
  vertex_t* pred_to = second.pred.get();
  Progress progress(problem, squarings, 1);
  with_pred_flag(problem, [&](auto track) {
    for (int s = 0; s < squarings; ++s) {
      kernels::minplus_square<decltype(track)::value>
          <<<grid, block, 0, problem.stream>>>(from, to, pred_from, pred_to, problem.n_pad);
      APSP_CUDA_CHECK_LAUNCH("minplus_square");
      std::swap(from, to);
      std::swap(pred_from, pred_to);
      progress.reached(s + 1);
    }
  });
  if (from != problem.dist) copy_result_back(problem, from, pred_from);
  // `second` is freed on return: the work that uses it must be done.
  APSP_CUDA_CHECK(cudaStreamSynchronize(problem.stream));
}

}  // namespace apsp::cuda
