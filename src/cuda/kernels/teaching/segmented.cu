// The seeds' coalesced kernel with segmentation: each thread owns a segment of
// kSegmentCells consecutive cells of one row, loads d[i][k] once for all of
// them, and consecutive threads own consecutive segments. One launch per pivot k.
//
// Host launcher of the segmented kernel.
#include <cstdint>

#include "apsp/graph.hpp"
#include "cuda/algorithm.hpp"
#include "core/cuda_check.hpp"
#include "cuda/family.hpp"
#include "cuda/kernels/teaching/relax.cuh"
#include "core/ceil_div.hpp"

namespace apsp::cuda::kernels {

struct SegmentedShape {
  static constexpr int kThreads = 128;
  static constexpr int kSegmentCells = 4;
  static_assert(kThreads % 32 == 0, "whole warps");
  static_assert(kSegmentCells >= 1 && kSegmentCells <= 16, "a segment a thread keeps in flight");
};

// Grid: ceil(n * segments_per_row / kThreads) blocks, segments_per_row =
// ceil(n / kSegmentCells); the last segment of a row may be short.
template <bool kTrackPred>
__global__ void __launch_bounds__(SegmentedShape::kThreads)
    segmented_step(dist_t* dist, vertex_t* pred, std::int64_t n, std::int64_t ld, std::int64_t k) {
  constexpr int kCells = SegmentedShape::kSegmentCells;
  const std::int64_t segments_per_row = ceil_div(n, kCells);
  const std::int64_t segment = blockIdx.x * std::int64_t{SegmentedShape::kThreads} + threadIdx.x;
  if (segment >= n * segments_per_row) return;
  const std::int64_t i = segment / segments_per_row;
  const std::int64_t first = (segment - i * segments_per_row) * kCells;
  const dist_t d_ik = dist[i * ld + k];
  const dist_t* row_k = dist + k * ld;
#pragma unroll
  for (int c = 0; c < kCells; ++c) {
    const std::int64_t j = first + c;
    if (j < n) relax_global<kTrackPred>(dist, pred, ld, i, j, k, d_ik, row_k[j]);
  }
}

}  // namespace apsp::cuda::kernels

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
