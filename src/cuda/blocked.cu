// Host launchers of Katz and Kider's blocked Floyd-Warshall: three launches
// per round of kTile pivots.
#include "algorithm.cuh"
#include "check.cuh"
#include "family.cuh"
#include "kernels/blocked.cuh"

namespace apsp::cuda {
namespace {

template <typename T>
void run_blocked(GpuProblem& problem, const char* algorithm) {
  require_pad_multiple(problem, T::kTile, algorithm);
  problem.used_precision = Precision::int32;
  const std::int64_t rounds = problem.n_pad / T::kTile;
  const dim3 block(T::kThreadsX, T::kThreadsY);
  const dim3 cross_grid = grid_of(rounds, 2, algorithm);
  const dim3 rest_grid = grid_of(rounds, rounds, algorithm);
  Progress progress(problem, rounds * T::kTile);
  with_pred_flag(problem, [&](auto track) {
    constexpr bool kTrackPred = decltype(track)::value;
    for (std::int64_t round = 0; round < rounds; ++round) {
      kernels::blocked_pivot<T, kTrackPred>
          <<<1, block, 0, problem.stream>>>(problem.dist, problem.pred, problem.n_pad, round);
      APSP_CUDA_CHECK_LAUNCH("blocked_pivot");
      if (rounds > 1) {
        kernels::blocked_cross<T, kTrackPred>
            <<<cross_grid, block, 0, problem.stream>>>(problem.dist, problem.pred, problem.n_pad, round);
        APSP_CUDA_CHECK_LAUNCH("blocked_cross");
        kernels::blocked_rest<T, kTrackPred>
            <<<rest_grid, block, 0, problem.stream>>>(problem.dist, problem.pred, problem.n_pad, round);
        APSP_CUDA_CHECK_LAUNCH("blocked_rest");
      }
      progress.reached((round + 1) * T::kTile);
    }
  });
}

}  // namespace

void run_blocked32(GpuProblem& problem) { run_blocked<kernels::Blocked32>(problem, "blocked-32"); }
void run_blocked64(GpuProblem& problem) { run_blocked<kernels::Blocked64>(problem, "blocked-64"); }

}  // namespace apsp::cuda
