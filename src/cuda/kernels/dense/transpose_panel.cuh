// The out-of-core solver's A operands: a width x width super-tile written
// transposed as phase-3 panel words (update_rest's panel_t), so that the
// rank-128 update of rows r*128.. reads its A operand at panel_t + r*128*width.
#pragma once

#include <cstdint>

#include "cuda/kernels/common/words.cuh"

namespace apsp::cuda::kernels {

inline constexpr int kTransposeEdge = 32;  // a block moves one 32 x 32 square
inline constexpr int kTransposeRows = 8;   // thread rows of a block (32 x 8 threads)

// dst[k * width + i] = broadcast(src[i * width + k]) for i, k < width.
// Grid (width / 32, width / 32), block (32, 8); width a multiple of 32.
template <class W>
__global__ void __launch_bounds__(kTransposeEdge* kTransposeRows)
    transpose_to_panel(const typename W::storage_t* __restrict__ src, std::int32_t* __restrict__ dst,
                       std::int64_t width) {
  __shared__ std::int32_t square[kTransposeEdge][kTransposeEdge + 1];
  const std::int64_t i0 = std::int64_t{blockIdx.y} * kTransposeEdge, k0 = std::int64_t{blockIdx.x} * kTransposeEdge;
  for (int r = threadIdx.y; r < kTransposeEdge; r += kTransposeRows)
    square[r][threadIdx.x] = W::to_word(src[(i0 + r) * width + k0 + threadIdx.x]);
  __syncthreads();
  for (int r = threadIdx.y; r < kTransposeEdge; r += kTransposeRows)
    dst[(k0 + r) * width + i0 + threadIdx.x] = W::broadcast(square[threadIdx.x][r]);
}

}  // namespace apsp::cuda::kernels
