// Phase 3 of a production round, persistent blocks that prefetch the next C
// tile (the "fw-persistent" kernel; docs/perf.md says why it lost).
#pragma once

#include <cstdint>

#include "cuda/kernels/dense/fragment.cuh"
#include "cuda/kernels/dense/traits.cuh"

namespace apsp::cuda::kernels {

// Phase 3, v2: persistent. Grid: a few blocks per SM; block b takes C tiles
// b, b + gridDim.x, ... of the (tiles_x) x (nb-1) tile grid, in the tile
// numbering of update_rest. Shared memory: kStages stages + one C tile.
template <class T, class W>
__global__ void __launch_bounds__(T::kThreads, T::kMinBlocksPerSm)
    update_rest_persistent(typename W::storage_t* __restrict__ d, const std::int32_t* __restrict__ panel_t,
                           std::int64_t ld, int kb, int tiles_x, int tiles_total) {
  constexpr int kStageWords = 2 * T::kChunk * T::kTile;
  constexpr int kChunks = T::kTile / T::kChunk;
  extern __shared__ int4 shared_words[];
  std::int32_t* const stages = reinterpret_cast<std::int32_t*>(shared_words);
  std::int32_t* const c_next = stages + T::kStages * kStageWords;  // kTile x kTile words

  const int tid = threadIdx.x;
  const int tx = tid % T::kThreadsX;
  const int ty = tid / T::kThreadsX;
  const std::int64_t ld_words = ld / W::kPerWord;
  std::int32_t* const words = reinterpret_cast<std::int32_t*>(d);
  const std::int32_t* const b_panel = words + std::int64_t{kb} * T::kTile * ld_words;

  auto tile_origin = [&](int tile) {
    const int bx = tile % tiles_x, by = tile / tiles_x;
    const int tj = W::kPerWord == 1 ? bx + (bx >= kb) : bx;
    const int ti = by + (by >= kb);
    return int2{ti, tj};
  };
  auto c_tile = [&](int2 t) { return words + std::int64_t{t.x} * T::kTile * ld_words + std::int64_t{t.y} * T::kTile; };
  auto prefetch_c = [&](int tile) {
    if (tile < tiles_total) {
      const std::int32_t* src = c_tile(tile_origin(tile));
#pragma unroll
      for (int v = tid; v < T::kTile * T::kTile / 4; v += T::kThreads) {
        const int row = v / (T::kTile / 4), col = (v % (T::kTile / 4)) * 4;
        cp_async16(c_next + row * T::kTile + col, src + std::int64_t{row} * ld_words + col);
      }
    }
    cp_async_commit();  // possibly empty: keeps the group count uniform
  };

  prefetch_c(blockIdx.x);
#pragma unroll 1
  for (int tile = blockIdx.x; tile < tiles_total; tile += gridDim.x) {
    const int2 t = tile_origin(tile);
    const std::int32_t* a_src = panel_t + std::int64_t{t.x} * T::kTile;
    const std::int32_t* b_src = b_panel + std::int64_t{t.y} * T::kTile;
    copy_stage<T>(stages, a_src, ld, b_src, ld_words, 0, tid);
    cp_async_commit();
    cp_async_wait<1>();  // this tile's C has landed; stage 0 may still be in flight
    __syncthreads();
    std::int32_t c[8][8];
#pragma unroll
    for (int r = 0; r < 8; ++r) {
      const std::int32_t* row = c_next + fragment_row<T>(ty, r) * T::kTile;
      const int4 lo = *reinterpret_cast<const int4*>(row + tx * 4);
      const int4 hi = *reinterpret_cast<const int4*>(row + T::kTile / 2 + tx * 4);
      c[r][0] = lo.x;
      c[r][1] = lo.y;
      c[r][2] = lo.z;
      c[r][3] = lo.w;
      c[r][4] = hi.x;
      c[r][5] = hi.y;
      c[r][6] = hi.z;
      c[r][7] = hi.w;
    }
    __syncthreads();  // c_next is free for the next tile's prefetch
    prefetch_c(tile + gridDim.x);
    // Groups in flight now: stage 0, next C. Each iteration commits at most
    // one more stage; waiting for "all but the newer ones" completes stage `chunk`.
#pragma unroll 1
    for (int chunk = 0; chunk < kChunks; ++chunk) {
      if (chunk + 1 < kChunks) {
        copy_stage<T>(stages + ((chunk + 1) % T::kStages) * kStageWords, a_src, ld, b_src, ld_words,
                      (chunk + 1) * T::kChunk, tid);
        cp_async_commit();
        if (chunk == 0)
          cp_async_wait<2>();
        else
          cp_async_wait<1>();
      } else {
        if (chunk == 0)
          cp_async_wait<1>();
        else
          cp_async_wait<0>();
      }
      __syncthreads();
      const std::int32_t* a_stage = stages + (chunk % T::kStages) * kStageWords;
      chunk_product<T, W>(c, a_stage, a_stage + T::kChunk * T::kTile, tx, ty);
      __syncthreads();  // the stage is refilled by a later copy
    }
    std::int32_t* c_out = c_tile(t);
#pragma unroll
    for (int r = 0; r < 8; ++r) {
      std::int32_t* row = c_out + std::int64_t{fragment_row<T>(ty, r)} * ld_words;
      *reinterpret_cast<int4*>(row + tx * 4) = make_int4(c[r][0], c[r][1], c[r][2], c[r][3]);
      *reinterpret_cast<int4*>(row + T::kTile / 2 + tx * 4) = make_int4(c[r][4], c[r][5], c[r][6], c[r][7]);
    }
  }
  cp_async_wait<0>();
}

}  // namespace apsp::cuda::kernels
