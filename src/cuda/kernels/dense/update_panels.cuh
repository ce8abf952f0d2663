// Phase 2 of a production round: the row and column panels of the pivot tile.
#pragma once

#include <cstdint>

#include "cuda/kernels/dense/fragment.cuh"
#include "cuda/kernels/dense/traits.cuh"

namespace apsp::cuda::kernels {

// Phase 2. Grid: 2*(nb-1) blocks; block 0..nb-2 updates the row-panel tile
// (kb, j), block nb-1..2nb-3 the column-panel tile (i, kb), which it also
// writes transposed into panel_t. Shared memory: two kTile x kPivotStride
// int32 tiles (the closed diagonal and the panel tile); storage_t in global.
// The body is update_panel_tile, block b's tile: a persistent kernel calls
// it for each of its tiles (kernels/supernodal/persistent_rounds.cuh), with
// `shared` its dynamic shared memory and a barrier between two tiles.
template <class T, class W>
__device__ __forceinline__ void update_panel_tile(typename W::storage_t* __restrict__ d,
                                                  std::int32_t* __restrict__ panel_t, std::int64_t ld, int kb, int nb,
                                                  std::int32_t* __restrict__ mid, std::int32_t* __restrict__ row_tagged,
                                                  int b, int4* shared_words) {
  std::int32_t* const diag = reinterpret_cast<std::int32_t*>(shared_words);
  std::int32_t* const panel = diag + T::kTile * T::kPivotStride;
  const int tid = threadIdx.x;
  const std::int64_t pivot = std::int64_t{kb} * T::kTile;
  const bool row_panel = b < nb - 1;
  const int other = row_panel ? b : b - (nb - 1);
  const std::int64_t other_origin = std::int64_t{other + (other >= kb)} * T::kTile;
  const std::int64_t row0 = row_panel ? pivot : other_origin;
  const std::int64_t col0 = row_panel ? other_origin : pivot;
  for (int idx = tid; idx < T::kTile * T::kTile; idx += T::kThreads) {
    const int i = idx / T::kTile, j = idx % T::kTile;
    diag[i * T::kPivotStride + j] = W::to_word(d[(pivot + i) * ld + pivot + j]);
    panel[i * T::kPivotStride + j] = W::to_word(d[(row0 + i) * ld + col0 + j]);
  }
  __syncthreads();

  // Row panel:    new[i][j] = min(old[i][j], min_m diag[i][m] + old[m][j])
  // Column panel: new[i][j] = min(old[i][j], min_m old[i][m] + diag[m][j])
  // Starting from old[i][j] (tag 0) keeps the m = i (or m = j) term, which
  // equals old[i][j], from claiming an improvement in predecessor mode.
  const std::int32_t* a_tile = row_panel ? diag : panel;
  const std::int32_t* b_tile = row_panel ? panel : diag;
  const int tx = tid % T::kThreadsX, ty = tid / T::kThreadsX;
  auto column = [&](int x) { return (x < 4 ? 0 : T::kTile / 2) + tx * 4 + (x & 3); };
  std::int32_t c[8][8];
#pragma unroll
  for (int r = 0; r < 8; ++r)
#pragma unroll
    for (int x = 0; x < 8; ++x) c[r][x] = panel[fragment_row<T>(ty, r) * T::kPivotStride + column(x)];
#pragma unroll 4
  for (int m = 0; m < T::kTile; ++m) {
    std::int32_t a[8];
#pragma unroll
    for (int r = 0; r < 8; ++r) a[r] = a_tile[fragment_row<T>(ty, r) * T::kPivotStride + m];
    std::int32_t bv[8];
    load_words8(b_tile + m * T::kPivotStride + tx * 4, b_tile + m * T::kPivotStride + T::kTile / 2 + tx * 4, bv);
    if constexpr (W::kTagged) {
#pragma unroll
      for (int x = 0; x < 8; ++x) bv[x] += m + 1;
    }
    add_min_fragment<typename W::Scalar>(c, a, bv);
  }
  __syncthreads();  // everyone is done reading `panel` before it is overwritten
#pragma unroll
  for (int r = 0; r < 8; ++r)
#pragma unroll
    for (int x = 0; x < 8; ++x) {
      const int i = fragment_row<T>(ty, r), j = column(x);
      panel[i * T::kPivotStride + j] = settle_tag<W>(c[r][x], mid, (row0 + i) * ld + col0 + j, pivot);
    }
  __syncthreads();
  for (int idx = tid; idx < T::kTile * T::kTile; idx += T::kThreads) {
    const int i = idx / T::kTile, j = idx % T::kTile;
    d[(row0 + i) * ld + col0 + j] = W::from_word(panel[i * T::kPivotStride + j]);
    // Phase 3's B operand in predecessor mode: row i of the panel, tagged i + 1.
    if constexpr (W::kTagged)
      if (row_panel) row_tagged[std::int64_t{i} * ld + col0 + j] = panel[i * T::kPivotStride + j] | (i + 1);
  }
  if (!row_panel) {
    // panel_t[k][row0 + i] = broadcast(new[i][k]): consecutive threads take consecutive i.
    for (int idx = tid; idx < T::kTile * T::kTile; idx += T::kThreads) {
      const int k = idx / T::kTile, i = idx % T::kTile;
      panel_t[std::int64_t{k} * ld + row0 + i] = W::broadcast(panel[i * T::kPivotStride + k]);
    }
  }
}

template <class T, class W>
__global__ void __launch_bounds__(T::kThreads)
    update_panels(typename W::storage_t* __restrict__ d, std::int32_t* __restrict__ panel_t, std::int64_t ld, int kb,
                  int nb, std::int32_t* __restrict__ mid, std::int32_t* __restrict__ row_tagged) {
  extern __shared__ int4 shared_words[];
  update_panel_tile<T, W>(d, panel_t, ld, kb, nb, mid, row_tagged, blockIdx.x, shared_words);
}

}  // namespace apsp::cuda::kernels
