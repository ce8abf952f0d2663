// Kernels of the range certificate (the rule: cuda/range_rule.hpp).
#pragma once

#include <climits>
#include <cstdint>

#include "cuda/algorithm.hpp"
#include "cuda/range_rule.hpp"

namespace apsp::cuda::kernels {

// *result = the largest distance below view.infinity over the n x n block
// (atomicMax; *result must start at INT_MIN). Grid-stride over n^2.
template <typename T>
__global__ void largest_finite(RangeView<T> view, int* result) {
  int best = INT_MIN;
  const std::int64_t n = view.n;
  for (std::int64_t x = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; x < n * n;
       x += std::int64_t{gridDim.x} * blockDim.x) {
    const std::int64_t i = x / n;
    const int v = view.distance(i, x - i * n);
    if (v < view.infinity && v > best) best = v;
  }
  for (int offset = 16; offset > 0; offset /= 2) best = max(best, __shfl_down_sync(0xffffffffu, best, offset));
  if ((threadIdx.x & 31) == 0) atomicMax(result, best);
}

// *escaped = 1 when some cell (i, u) of the n x n block escapes the range
// (cell_escapes_range). Grid-stride over n^2; edges are on the device.
template <typename T>
__global__ void find_range_escape(RangeView<T> view, DeviceCsr edges, weight_t max_weight, int* escaped) {
  const std::int64_t n = view.n;
  bool found = false;
  for (std::int64_t x = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; x < n * n && !found;
       x += std::int64_t{gridDim.x} * blockDim.x) {
    const std::int64_t i = x / n;
    found = cell_escapes_range(view, edges, max_weight, i, x - i * n);
  }
  if (found) *escaped = 1;
}

}  // namespace apsp::cuda::kernels
