// Host launcher of the coalesced kernel.
#include "algorithm.cuh"
#include "check.cuh"
#include "family.cuh"
#include "kernels/coalesced.cuh"

namespace apsp::cuda {

void run_coalesced(GpuProblem& problem) {
  problem.used_precision = Precision::int32;
  const dim3 grid = grid_of(ceil_div(problem.n * problem.n, kernels::kCoalescedThreads), 1, "coalesced");
  for_each_pivot(problem, [&](auto track, std::int64_t k) {
    kernels::coalesced_step<decltype(track)::value><<<grid, kernels::kCoalescedThreads, 0, problem.stream>>>(
        problem.dist, problem.pred, problem.n, problem.n_pad, k);
    APSP_CUDA_CHECK_LAUNCH("coalesced_step");
  });
}

}  // namespace apsp::cuda
