// The download's device staging step: a row block of the result, widened to
// int32 and un-reweighted, packed for one contiguous copy to the host.
#pragma once

#include <cstdint>

#include "apsp/graph.hpp"
#include "../../stored_distance.hpp"

namespace apsp::cuda::kernels {

// Rows [first_row, first_row + rows) of the n-column stored matrix `in`
// (leading dimension ld) into `out` (rows x n int32, leading dimension n):
// unreachable becomes kInf; with potentials h (n entries, or nullptr) a
// finite v at (i, j) becomes v - h[i] + h[j]. An entry whose value leaves
// (-kInf, kInf) is written as kInf, and atomicMin lowers *first_overflow to
// its row-major index i * n + j (start it at ~0ull).
// Grid: x strides over columns, y over rows.
template <typename S>
__global__ void rows_to_int32(const S* __restrict__ in, std::int64_t ld, std::int64_t n, std::int64_t first_row,
                              std::int64_t rows, std::int32_t int16_infinity, const std::int64_t* __restrict__ h,
                              std::int32_t* __restrict__ out, unsigned long long* __restrict__ first_overflow) {
  for (std::int64_t r = blockIdx.y; r < rows; r += gridDim.y) {
    const std::int64_t i = first_row + r;
    const S* source = in + i * ld;
    std::int32_t* target = out + r * n;
    const std::int64_t h_i = h ? h[i] : 0;
    for (std::int64_t j = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; j < n;
         j += std::int64_t{gridDim.x} * blockDim.x) {
      const std::int32_t v = stored_to_int32(source[j], int16_infinity);
      if (!h || v == kInf) {
        target[j] = v;
        continue;
      }
      const std::int64_t d = std::int64_t{v} - h_i + h[j];
      if (outside_int32_distances(d)) {
        atomicMin(first_overflow, static_cast<unsigned long long>(i * n + j));
        target[j] = kInf;
      } else {
        target[j] = static_cast<std::int32_t>(d);
      }
    }
  }
}

}  // namespace apsp::cuda::kernels
