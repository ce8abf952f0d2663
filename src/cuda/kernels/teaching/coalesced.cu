// The seeds' coalesced kernel: a 1D grid laid along the row-major matrix, so
// consecutive threads own consecutive cells of a row. One launch per pivot k.
//
// Host launcher of the coalesced kernel.
#include <cstdint>

#include "apsp/graph.hpp"
#include "cuda/algorithm.hpp"
#include "core/cuda_check.hpp"
#include "cuda/family.hpp"
#include "cuda/kernels/teaching/relax.cuh"

namespace apsp::cuda::kernels {

// The seeds' best block size for this kernel.
inline constexpr int kCoalescedThreads = 128;

// Grid: ceil(n^2 / kCoalescedThreads) blocks; thread t owns cell t of the n x n block.
template <bool kTrackPred>
__global__ void __launch_bounds__(kCoalescedThreads)
    coalesced_step(dist_t* dist, vertex_t* pred, std::int64_t n, std::int64_t ld, std::int64_t k) {
  const std::int64_t cell = blockIdx.x * std::int64_t{kCoalescedThreads} + threadIdx.x;
  if (cell >= n * n) return;
  const std::int64_t i = cell / n, j = cell - i * n;
  relax_global<kTrackPred>(dist, pred, ld, i, j, k, dist[i * ld + k], dist[k * ld + j]);
}

}  // namespace apsp::cuda::kernels

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
