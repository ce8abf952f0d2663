// Phase 1 of a production round: the diagonal tile closed in registers.
#pragma once

#include <cstdint>

#include "cuda/kernels/dense/fragment.cuh"
#include "cuda/kernels/dense/traits.cuh"

namespace apsp::cuda::kernels {

// Phase 1: close the diagonal tile (kb,kb) in place. One block. Each thread
// keeps its 8x8 fragment in registers; step k publishes row k and column k
// (as of step k-1) through double-buffered shared arrays, so each step needs
// one barrier and four 16-byte loads per thread. Row k and column k do not
// change in step k because d[k][k] = 0 (no negative cycles).
// The body is close_diagonal_tile, which a persistent kernel calls from one
// of its blocks (kernels/supernodal/persistent_rounds.cuh).
template <class T, class W>
__device__ __forceinline__ void close_diagonal_tile(typename W::storage_t* __restrict__ d, std::int64_t ld, int kb,
                                                    std::int32_t* __restrict__ mid) {
  __shared__ __align__(16) std::int32_t row_k[2][T::kTile];
  __shared__ __align__(16) std::int32_t col_k[2][T::kTile];
  const int tid = threadIdx.x, tx = tid % T::kThreadsX, ty = tid / T::kThreadsX;
  const std::int64_t pivot = std::int64_t{kb} * T::kTile;
  auto column = [&](int x) { return (x < 4 ? 0 : T::kTile / 2) + tx * 4 + (x & 3); };
  std::int32_t c[8][8];
#pragma unroll
  for (int r = 0; r < 8; ++r)
#pragma unroll
    for (int x = 0; x < 8; ++x) c[r][x] = W::to_word(d[(pivot + fragment_row<T>(ty, r)) * ld + pivot + column(x)]);

  auto publish = [&](int k, int buffer) {
#pragma unroll
    for (int r = 0; r < 8; ++r)
      if (fragment_row<T>(ty, r) == k) {
#pragma unroll
        for (int x = 0; x < 8; ++x) row_k[buffer][column(x)] = W::kTagged ? c[r][x] & ~kTagMask : c[r][x];
      }
#pragma unroll
    for (int x = 0; x < 8; ++x)
      if (column(x) == k) {
#pragma unroll
        for (int r = 0; r < 8; ++r) col_k[buffer][fragment_row<T>(ty, r)] = W::kTagged ? c[r][x] & ~kTagMask : c[r][x];
      }
  };
  publish(0, 0);
  __syncthreads();
#pragma unroll 1
  for (int k = 0; k < T::kTile; ++k) {
    const int buffer = k & 1;
    std::int32_t a[8], b[8];
    load_words8(&col_k[buffer][ty * 4], &col_k[buffer][T::kTile / 2 + ty * 4], a);
    load_words8(&row_k[buffer][tx * 4], &row_k[buffer][T::kTile / 2 + tx * 4], b);
    if constexpr (W::kTagged) {
#pragma unroll
      for (int x = 0; x < 8; ++x) b[x] += k + 1;
    }
    add_min_fragment<typename W::Scalar>(c, a, b);
    if (k + 1 < T::kTile) publish(k + 1, buffer ^ 1);
    __syncthreads();
  }
#pragma unroll
  for (int r = 0; r < 8; ++r)
#pragma unroll
    for (int x = 0; x < 8; ++x) {
      const std::int64_t at = (pivot + fragment_row<T>(ty, r)) * ld + pivot + column(x);
      d[at] = W::from_word(settle_tag<W>(c[r][x], mid, at, pivot));
    }
}

template <class T, class W>
__global__ void __launch_bounds__(T::kThreads)
    close_diagonal(typename W::storage_t* __restrict__ d, std::int64_t ld, int kb, std::int32_t* __restrict__ mid) {
  close_diagonal_tile<T, W>(d, ld, kb, mid);
}

}  // namespace apsp::cuda::kernels
