// Host launcher of the shared-row kernel.
#include "algorithm.cuh"
#include "check.cuh"
#include "family.cuh"
#include "kernels/shared_row.cuh"

namespace apsp::cuda {

void run_shared_row(GpuProblem& problem) {
  using Shape = kernels::SharedRowShape;
  problem.used_precision = Precision::int32;
  const dim3 grid = grid_of(problem.n, ceil_div(problem.n, Shape::kThreads), "shared-row");
  for_each_pivot(problem, [&](auto track, std::int64_t k) {
    kernels::shared_row_step<decltype(track)::value>
        <<<grid, Shape::kThreads, 0, problem.stream>>>(problem.dist, problem.pred, problem.n, problem.n_pad, k);
    APSP_CUDA_CHECK_LAUNCH("shared_row_step");
  });
}

}  // namespace apsp::cuda
