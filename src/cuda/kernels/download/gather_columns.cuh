// Device side of the target columns' gather (gather_columns.hpp).
#pragma once

#include <cstdint>

namespace apsp::cuda::kernels {

// out[r * width + c] = rows[r * ld + columns[c]] for r < count, c < width:
// blockIdx.y (and its grid stride) walks the rows, x the columns.
template <class T>
__global__ void gather_columns(const T* __restrict__ rows, std::int64_t ld, std::int64_t count,
                               const std::int32_t* __restrict__ columns, std::int64_t width, T* __restrict__ out) {
  for (std::int64_t r = blockIdx.y; r < count; r += gridDim.y) {
    const T* row = rows + r * ld;
    T* to = out + r * width;
    for (std::int64_t c = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; c < width;
         c += std::int64_t{gridDim.x} * blockDim.x)
      to[c] = row[columns[c]];
  }
}

}  // namespace apsp::cuda::kernels
