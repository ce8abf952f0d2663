// Host launcher of the shared-rowcol kernel.
#include "algorithm.cuh"
#include "check.cuh"
#include "family.cuh"
#include "kernels/shared_rowcol.cuh"

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
