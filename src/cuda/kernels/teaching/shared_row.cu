// The seeds' "fully optimized" kernel: a block is a segment of kThreads
// consecutive cells of one row, which all need the same d[i][k]; one thread
// stages it in shared memory for the segment, while d[k][j] and d[i][j] are
// read by consecutive threads (coalesced). One launch per pivot k.
//
// Host launcher of the shared-row kernel.
#include <cstdint>

#include "apsp/graph.hpp"
#include "cuda/algorithm.hpp"
#include "core/cuda_check.hpp"
#include "cuda/family.hpp"
#include "cuda/kernels/teaching/relax.cuh"

namespace apsp::cuda::kernels {

struct SharedRowShape {
  static constexpr int kThreads = 256;  // the report's best segment size
  static_assert(kThreads % 32 == 0 && kThreads <= 1024, "whole warps in one block");
};

// Grid: n x ceil(n / kThreads) blocks; block (i, s) owns cells (i, s*kThreads ..).
template <bool kTrackPred>
__global__ void __launch_bounds__(SharedRowShape::kThreads)
    shared_row_step(dist_t* dist, vertex_t* pred, std::int64_t n, std::int64_t ld, std::int64_t k) {
  __shared__ dist_t d_ik;
  const std::int64_t i = blockIdx.x;
  const std::int64_t j = blockIdx.y * std::int64_t{SharedRowShape::kThreads} + threadIdx.x;
  if (threadIdx.x == 0) d_ik = dist[i * ld + k];
  __syncthreads();
  // Uniform per block: an unreachable pivot improves nothing in this row.
  if (d_ik == kInf || j >= n) return;
  relax_global<kTrackPred>(dist, pred, ld, i, j, k, d_ik, dist[k * ld + j]);
}

}  // namespace apsp::cuda::kernels

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
