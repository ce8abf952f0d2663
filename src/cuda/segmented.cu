// Host launcher of the segmented kernel.
#include "algorithm.cuh"
#include "check.cuh"
#include "family.cuh"
#include "kernels/segmented.cuh"

namespace apsp::cuda {

void run_segmented(GpuProblem& problem) {
  using Shape = kernels::SegmentedShape;
  problem.used_precision = Precision::int32;
  const std::int64_t segments = problem.n * ceil_div(problem.n, Shape::kSegmentCells);
  const dim3 grid = grid_of(ceil_div(segments, Shape::kThreads), 1, "segmented");
  for_each_pivot(problem, [&](auto track, std::int64_t k) {
    kernels::segmented_step<decltype(track)::value>
        <<<grid, Shape::kThreads, 0, problem.stream>>>(problem.dist, problem.pred, problem.n, problem.n_pad, k);
    APSP_CUDA_CHECK_LAUNCH("segmented_step");
  });
}

}  // namespace apsp::cuda
