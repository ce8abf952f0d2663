// The supernodal solve's row kernels: a batch's working rows are stored
// transposed, XT (n x ldx, new-order vertex j's row holds column j of the B
// sources' rows, entry b for source b < B), so that the solve's products
// gather and scatter whole contiguous rows of it. The rows the forward pass
// touches start as unit rows, and finished rows go back to the original
// order (a transpose through shared memory) in the caller's result rows; the
// int32 range check of a finished chunk.
#pragma once

#include <cstdint>
#include <type_traits>

#include "apsp/graph.hpp"
#include "cuda/algorithm.hpp"
#include "cuda/kernels/supernodal/arith.cuh"
#include "cuda/range_rule.hpp"

namespace apsp::cuda::kernels::supernodal {

// XT[j][b] = 0 for j = sources[b] (new order), +inf otherwise, b < rows,
// for the vertex rows j of supernodes[blockIdx.x] (columns first[K] ..
// first[K + 1] - 1), and stamps[K] = stamp: those rows now hold this
// batch's values. Rows stride gridDim.y, threads the sources.
template <class D>
__global__ void unit_rows(D* __restrict__ xt, std::int64_t ldx, const std::int32_t* __restrict__ first,
                          const std::int32_t* __restrict__ supernodes, const std::int32_t* __restrict__ sources,
                          std::int64_t rows, std::int32_t* __restrict__ stamps, int stamp) {
  const D inf = Arith<D>::infinity();
  const std::int32_t K = supernodes[blockIdx.x];
  if (blockIdx.y == 0 && threadIdx.x == 0) stamps[K] = stamp;
  for (std::int64_t j = first[K] + blockIdx.y; j < first[K + 1]; j += gridDim.y)
    for (std::int64_t b = threadIdx.x; b < rows; b += blockDim.x) xt[j * ldx + b] = j == sources[b] ? D{0} : inf;
}

// The transpose's square of vertices x sources per block, and its threads.
inline constexpr int kTransposeTile = 32;
inline constexpr int kTransposeRows = 8;  // threads down: blockDim = (32, 8), 4 entries each
static_assert(kTransposeTile % kTransposeRows == 0, "whole columns of the transpose per thread");

// out[slot[b] * ld + v] = XT[iperm[v]][b] for b < rows and every original
// vertex v: the row of original source `source[b]`. With potentials (real
// D), a finite value becomes the graph's distance x - h[source] + h[v].
// Block (x, y) moves vertices 32x .. 32x + 31 of sources 32y .. 32y + 31:
// both the read (a row of XT) and the write (a row of out) are contiguous.
// With largest_finite (int32 D), *largest_finite is raised to the largest
// finite value written (at most one atomicMax per warp, none where the
// value already read is as large): the range check's quick
// rule reads it instead of a pass over the result.
// W: the working rows' type, D or (int32 D) int16, whose infinity becomes
// D's and whose finite values are widened as they are.
template <class W, class D>
__global__ void rows_to_original(const W* __restrict__ xt, std::int64_t n, std::int64_t ldx,
                                 const std::int32_t* __restrict__ iperm, const std::int64_t* __restrict__ slot,
                                 const std::int32_t* __restrict__ source, std::int64_t rows,
                                 const double* __restrict__ potentials, D* __restrict__ out, std::int64_t ld,
                                 int* __restrict__ largest_finite) {
  __shared__ W tile[kTransposeTile][kTransposeTile + 1];  // tile[vertex][source]
  const D inf = Arith<D>::infinity();
  const W narrow_inf = Arith<W>::infinity();
  [[maybe_unused]] int largest =
      -1;  // int32 D: the largest finite value this thread wrote (the rows are reweighted, >= 0)
  const std::int64_t v0 = std::int64_t{blockIdx.x} * kTransposeTile, b0 = std::int64_t{blockIdx.y} * kTransposeTile;
  for (int i = threadIdx.y; i < kTransposeTile; i += kTransposeRows) {
    const std::int64_t v = v0 + i, b = b0 + threadIdx.x;
    if (v < n && b < rows) tile[i][threadIdx.x] = xt[std::int64_t{iperm[v]} * ldx + b];
  }
  __syncthreads();
  for (int i = threadIdx.y; i < kTransposeTile; i += kTransposeRows) {
    const std::int64_t b = b0 + i, v = v0 + threadIdx.x;
    if (v >= n || b >= rows) continue;
    const W x = tile[threadIdx.x][i];
    D value = x < narrow_inf ? static_cast<D>(x) : inf;
    if (potentials != nullptr && value < inf)
      value = static_cast<D>(static_cast<double>(value) - potentials[source[b]] + potentials[v]);
    out[slot[b] * ld + v] = value;
    if constexpr (std::is_same<D, std::int32_t>::value)
      if (value < inf) largest = max(largest, value);
  }
  if constexpr (std::is_same<D, std::int32_t>::value) {
    // Every lane of the warp (one threadIdx.y row of 32) reaches here.
    for (int offset = 16; offset > 0; offset /= 2)
      largest = max(largest, __shfl_xor_sync(0xffffffffu, largest, offset));
    // A plain read first: once the largest value is raised, most warps have
    // nothing to add, and atomics on one address serialize (hundreds of
    // thousands of warps per batch).
    if (largest_finite != nullptr && threadIdx.x == 0 && largest >= 0 && largest > *(volatile int*)largest_finite)
      atomicMax(largest_finite, largest);
  }
}

// *escaped = 1 when a cell of the rows x n chunk (leading dimension ld) is
// out of the int32 range by the exact rule of range_rule.hpp. Blocks stride
// the rows (y) and the columns (x), threads the columns (no division). First
// the quick rule on *largest_finite (at least the chunk's largest finite
// value, raised by rows_to_original): when it holds, no cell is read.
static __global__ void chunk_escapes_range(RangeView<std::int32_t> view, std::int64_t rows, DeviceCsr out_edges,
                                           weight_t max_weight, const int* __restrict__ largest_finite,
                                           int* __restrict__ escaped) {
  if (range_holds_below(*largest_finite, view.infinity, max_weight)) return;
  for (std::int64_t i = blockIdx.y; i < rows; i += gridDim.y)
    for (std::int64_t u = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; u < view.n;
         u += std::int64_t{gridDim.x} * blockDim.x)
      if (cell_escapes_range(view, out_edges, max_weight, i, u)) *escaped = 1;
}

}  // namespace apsp::cuda::kernels::supernodal
