// The seeds' basic kernel: one thread per cell, one launch per pivot k.
//
// Host launcher of the naive kernel: the only family member whose block
// shape the user picks (--block), among the square shapes the seeds measured.
#include <cstdint>
#include <string>

#include "apsp/error.hpp"
#include "apsp/graph.hpp"
#include "cuda/algorithm.hpp"
#include "core/cuda_check.hpp"
#include "cuda/family.hpp"
#include "cuda/kernels/teaching/relax.cuh"

namespace apsp::cuda::kernels {

// Grid: a 2D grid of 2D blocks over the n x n block. As in the seeds, thread
// x walks rows (i) and y walks columns (j), so a warp touches one column of
// several rows: the uncoalesced baseline that `coalesced` improves on.
template <bool kTrackPred>
__global__ void naive_step(dist_t* dist, vertex_t* pred, std::int64_t n, std::int64_t ld, std::int64_t k) {
  const std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x;
  const std::int64_t j = blockIdx.y * std::int64_t{blockDim.y} + threadIdx.y;
  if (i >= n || j >= n) return;
  relax_global<kTrackPred>(dist, pred, ld, i, j, k, dist[i * ld + k], dist[k * ld + j]);
}

}  // namespace apsp::cuda::kernels

namespace apsp::cuda {
namespace {

constexpr int kNaiveSides[] = {4, 8, 16, 32};
constexpr int kNaiveDefaultSide = 16;

dim3 naive_block(const BlockShape& requested) {
  if (requested.x == 0 && requested.y == 0) return dim3(kNaiveDefaultSide, kNaiveDefaultSide);
  for (int side : kNaiveSides)
    if (requested.x == side && requested.y == side) return dim3(side, side);
  throw UsageError("naive: block " + std::to_string(requested.x) + "x" + std::to_string(requested.y) +
                       " is not supported (expected 4x4, 8x8, 16x16 or 32x32)",
                   "block");
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
