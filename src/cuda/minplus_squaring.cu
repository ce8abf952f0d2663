// Host launcher of repeated min-plus squaring: ceil(log2(n - 1)) products,
// ping-ponging between problem.dist and a second matrix. O(n^3 log n).
#include <utility>

#include "algorithm.cuh"
#include "check.cuh"
#include "family.cuh"
#include "kernels/minplus_squaring.cuh"

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
