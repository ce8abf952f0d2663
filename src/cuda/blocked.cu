// Host launchers of Katz and Kider's blocked Floyd-Warshall: three launches
// per round of kTile pivots. With predecessors a third n_pad x n_pad matrix
// holds hop counts (kernels/blocked.cuh says why).
#include <string>

#include "algorithm.cuh"
#include "check.cuh"
#include "family.cuh"
#include "kernels/blocked.cuh"
#include "matrix_setup.cuh"
#include "memory.cuh"

namespace apsp::cuda {
namespace {

constexpr int kInitThreads = 256;

template <typename T, bool kTrackPred>
void run_rounds(const GpuProblem& problem, const kernels::BlockedMatrices& m, const char* algorithm) {
  using Shared = kernels::BlockedShared<T, kTrackPred>;
  APSP_CUDA_CHECK(cudaFuncSetAttribute(kernels::blocked_pivot<T, kTrackPred>,
                                       cudaFuncAttributeMaxDynamicSharedMemorySize, Shared::kPivotBytes));
  APSP_CUDA_CHECK(cudaFuncSetAttribute(kernels::blocked_cross<T, kTrackPred>,
                                       cudaFuncAttributeMaxDynamicSharedMemorySize, Shared::kPairBytes));
  APSP_CUDA_CHECK(cudaFuncSetAttribute(kernels::blocked_rest<T, kTrackPred>,
                                       cudaFuncAttributeMaxDynamicSharedMemorySize, Shared::kPairBytes));
  const std::int64_t rounds = problem.n_pad / T::kTile;
  const dim3 block(T::kThreadsX, T::kThreadsY);
  const dim3 cross_grid = grid_of(rounds, 2, algorithm);
  const dim3 rest_grid = grid_of(rounds, rounds, algorithm);
  Progress progress(problem, rounds * T::kTile);
  for (std::int64_t round = 0; round < rounds; ++round) {
    kernels::blocked_pivot<T, kTrackPred><<<1, block, Shared::kPivotBytes, problem.stream>>>(m, round);
    APSP_CUDA_CHECK_LAUNCH("blocked_pivot");
    if (rounds > 1) {
      kernels::blocked_cross<T, kTrackPred><<<cross_grid, block, Shared::kPairBytes, problem.stream>>>(m, round);
      APSP_CUDA_CHECK_LAUNCH("blocked_cross");
      kernels::blocked_rest<T, kTrackPred><<<rest_grid, block, Shared::kPairBytes, problem.stream>>>(m, round);
      APSP_CUDA_CHECK_LAUNCH("blocked_rest");
    }
    progress.reached((round + 1) * T::kTile);
  }
}

template <typename T>
void run_blocked(GpuProblem& problem, const char* algorithm) {
  require_pad_multiple(problem, T::kTile, algorithm);
  problem.used_precision = Precision::int32;
  kernels::BlockedMatrices m;
  m.dist = problem.dist;
  m.ld = problem.n_pad;
  if (problem.pred == nullptr) {
    run_rounds<T, false>(problem, m, algorithm);
    return;
  }
  const std::size_t cells = static_cast<std::size_t>(problem.n_pad) * static_cast<std::size_t>(problem.n_pad);
  require_device_memory(cells * sizeof(std::int32_t), std::string(algorithm) + "'s hop counts for predecessors");
  DeviceBuffer<std::int32_t> hops(cells);
  kernels::
      blocked_init_hops<<<grid_for(problem.n_pad * problem.n_pad, kInitThreads), kInitThreads, 0, problem.stream>>>(
          problem.dist, hops.get(), problem.n_pad);
  APSP_CUDA_CHECK_LAUNCH("blocked_init_hops");
  m.pred = problem.pred;
  m.hops = hops.get();
  run_rounds<T, true>(problem, m, algorithm);
  // `hops` is freed on return: the work that uses it must be done.
  APSP_CUDA_CHECK(cudaStreamSynchronize(problem.stream));
}

}  // namespace

void run_blocked32(GpuProblem& problem) { run_blocked<kernels::Blocked32>(problem, "blocked-32"); }
void run_blocked64(GpuProblem& problem) { run_blocked<kernels::Blocked64>(problem, "blocked-64"); }

}  // namespace apsp::cuda
