// The supernodal solve's row kernels: a batch's working rows X (B x n,
// new-order columns) start as unit rows, and finished rows go back to the
// original order in the caller's result rows; the int32 range check of a
// finished chunk.
#pragma once

#include <cstdint>

#include "apsp/graph.hpp"
#include "cuda/algorithm.hpp"
#include "cuda/kernels/supernodal/arith.cuh"
#include "cuda/range_rule.hpp"

namespace apsp::cuda::kernels::supernodal {

// X[b][j] = 0 for j = sources[b] (new order), +inf otherwise; rows b < rows.
template <class D>
__global__ void unit_rows(D* __restrict__ x, std::int64_t n, const std::int32_t* __restrict__ sources,
                          std::int64_t rows) {
  const D inf = Arith<D>::infinity();
  for (std::int64_t e = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; e < rows * n;
       e += std::int64_t{gridDim.x} * blockDim.x) {
    const std::int64_t b = e / n, j = e - b * n;
    x[e] = j == sources[b] ? D{0} : inf;
  }
}

// out[slot[b] * ld + v] = X[b][iperm[v]] for b < rows and every original
// vertex v: the row of original source `source[b]`. With potentials (real
// D), a finite value becomes the graph's distance x - h[source] + h[v].
template <class D>
__global__ void rows_to_original(const D* __restrict__ x, std::int64_t n, const std::int32_t* __restrict__ iperm,
                                 const std::int64_t* __restrict__ slot, const std::int32_t* __restrict__ source,
                                 std::int64_t rows, const double* __restrict__ potentials, D* __restrict__ out,
                                 std::int64_t ld) {
  const D inf = Arith<D>::infinity();
  for (std::int64_t e = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; e < rows * n;
       e += std::int64_t{gridDim.x} * blockDim.x) {
    const std::int64_t b = e / n, v = e - b * n;
    D value = x[b * n + iperm[v]];
    if (potentials != nullptr && value < inf)
      value = static_cast<D>(static_cast<double>(value) - potentials[source[b]] + potentials[v]);
    out[slot[b] * ld + v] = value;
  }
}

// *escaped = 1 when a cell of the rows x n chunk (leading dimension ld) is
// out of the int32 range by the exact rule of range_rule.hpp.
static __global__ void chunk_escapes_range(RangeView<std::int32_t> view, std::int64_t rows, DeviceCsr out_edges,
                                           weight_t max_weight, int* __restrict__ escaped) {
  for (std::int64_t e = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; e < rows * view.n;
       e += std::int64_t{gridDim.x} * blockDim.x) {
    const std::int64_t i = e / view.n, u = e - i * view.n;
    if (cell_escapes_range(view, out_edges, max_weight, i, u)) *escaped = 1;
  }
}

}  // namespace apsp::cuda::kernels::supernodal
