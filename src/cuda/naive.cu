// Host launcher of the naive kernel: the only family member whose block
// shape the user picks (--block), among the square shapes the seeds measured.
#include <string>

#include "algorithm.cuh"
#include "apsp/error.hpp"
#include "check.cuh"
#include "family.cuh"
#include "kernels/naive.cuh"

namespace apsp::cuda {
namespace {

constexpr int kNaiveSides[] = {4, 8, 16, 32};
constexpr int kNaiveDefaultSide = 16;

dim3 naive_block(const BlockShape& requested) {
  if (requested.x == 0 && requested.y == 0) return dim3(kNaiveDefaultSide, kNaiveDefaultSide);
  for (int side : kNaiveSides)
    if (requested.x == side && requested.y == side) return dim3(side, side);
  throw UsageError("naive: block " + std::to_string(requested.x) + "x" + std::to_string(requested.y) +
                   " is not supported (expected 4x4, 8x8, 16x16 or 32x32)");
}

}  // namespace

void run_naive(GpuProblem& problem) {
  const dim3 block = naive_block(problem.block);
  problem.used_precision = Precision::int32;
  const dim3 grid = grid_of(ceil_div(problem.n, block.x), ceil_div(problem.n, block.y), "naive");
  for_each_pivot(problem, [&](auto track, std::int64_t k) {
    kernels::naive_step<decltype(track)::value>
        <<<grid, block, 0, problem.stream>>>(problem.dist, problem.pred, problem.n, problem.n_pad, k);
    APSP_CUDA_CHECK_LAUNCH("naive_step");
  });
}

}  // namespace apsp::cuda
