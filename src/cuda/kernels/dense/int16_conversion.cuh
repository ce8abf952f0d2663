// The int16 mode of the production solver: the int32 matrix narrowed to
// int16 words before the rounds and widened back after a certified run.
#pragma once

#include <cstdint>

#include "apsp/graph.hpp"
#include "cuda/kernels/common/words.cuh"

namespace apsp::cuda::kernels {

// int32 matrix (n_pad x n_pad) -> int16 matrix (n_pad16 x n_pad16, n_pad16 >=
// n_pad): entries >= kInf16 become kInf16, the extra padding is isolated
// vertices. Grid-stride over n_pad16^2.
static __global__ void narrow_to_int16(const std::int32_t* __restrict__ in, std::int64_t n_pad,
                                       std::int16_t* __restrict__ out, std::int64_t n_pad16) {
  for (std::int64_t x = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; x < n_pad16 * n_pad16;
       x += std::int64_t{gridDim.x} * blockDim.x) {
    const std::int64_t i = x / n_pad16, j = x - i * n_pad16;
    const std::int32_t v = i < n_pad && j < n_pad ? min(in[i * n_pad + j], kInf16) : (i == j ? 0 : kInf16);
    out[x] = static_cast<std::int16_t>(v);
  }
}
// Back: kInf16 becomes kInf. Grid-stride over n_pad^2.
static __global__ void widen_from_int16(const std::int16_t* __restrict__ in, std::int64_t n_pad16,
                                        std::int32_t* __restrict__ out, std::int64_t n_pad) {
  for (std::int64_t x = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; x < n_pad * n_pad;
       x += std::int64_t{gridDim.x} * blockDim.x) {
    const std::int64_t i = x / n_pad, j = x - i * n_pad;
    const std::int32_t v = in[i * n_pad16 + j];
    out[x] = v >= kInf16 ? kInf : v;
  }
}

}  // namespace apsp::cuda::kernels
