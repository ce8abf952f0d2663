// Host launcher of Tran's ping-pong kernel: swaps the two matrices after every
// pivot and leaves the result in problem.dist / problem.pred.
#include <utility>

#include "algorithm.cuh"
#include "check.cuh"
#include "family.cuh"
#include "kernels/tran_double.cuh"

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
