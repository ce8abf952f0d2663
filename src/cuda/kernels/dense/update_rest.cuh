// Phase 3 of a production round, one block per C tile (the "fw" kernel).
#pragma once

#include <cstdint>
#include <type_traits>

#include "cuda/kernels/dense/fragment.cuh"
#include "cuda/kernels/dense/traits.cuh"

namespace apsp::cuda::kernels {

// Phase 3: C(ti,tj) = min(C, A (x) B) for all ti != kb and all C tiles tj
// (int32: tj != kb, grid (nb-1) x (nb-1); int16: column-tile pairs, grid
// (n_pad/256) x (nb-1)). Shared memory: kStages x (A chunk + B chunk).
//   d        n_pad x n_pad storage_t, leading dimension ld (elements)
//   panel_t  kTile x n_pad words: panel_t[k][i] = broadcast(d[i][kb*kTile + k])
//   mid_k0   predecessor mode: the vertex of the pivot block's first k, which
//            mid records; -1 means kb * kTile (the out-of-core products pass
//            their own, as their kb skips no tile)
// The body is update_rest_tile, the tile of block (bx, by) (unsigned, as
// blockIdx is: fw's code is unchanged by the split): a persistent
// kernel calls it for each of its tiles (kernels/supernodal/persistent_rounds.cuh),
// with `shared_words` its dynamic shared memory.
template <class T, class W>
__device__ __forceinline__ void update_rest_tile(typename W::storage_t* __restrict__ d,
                                                 const std::int32_t* __restrict__ panel_t,
                                                 const std::int32_t* __restrict__ b_rows, std::int64_t ld, int kb,
                                                 std::int32_t* __restrict__ mid, std::int64_t mid_k0, unsigned bx,
                                                 unsigned by, int4* shared_words) {
  constexpr int kRowWords = T::kTile;             // words in one C tile row
  constexpr int kAWords = T::kChunk * T::kTile;   // A chunk: kChunk x kTile words
  constexpr int kBWords = T::kChunk * kRowWords;  // B chunk: kChunk x kRowWords words
  std::int32_t* const stage_base = reinterpret_cast<std::int32_t*>(shared_words);

  const int tj = W::kPerWord == 1 ? bx + (bx >= kb) : bx;
  const int ti = by + (by >= kb);
  const int tid = threadIdx.x;
  const int tx = tid % T::kThreadsX;
  const int ty = tid / T::kThreadsX;
  const std::int64_t ld_words = ld / W::kPerWord;
  std::int32_t* const words = reinterpret_cast<std::int32_t*>(d);

  const std::int32_t* a_src = panel_t + std::int64_t{ti} * T::kTile;
  // b_rows: the kTile rows of the row panel, ld_words apart (in predecessor
  // mode a copy whose low bits carry each row's tag).
  const std::int32_t* b_src = b_rows + std::int64_t{tj} * kRowWords;

  auto load_stage = [&](int stage, int k0) {
    copy_stage<T>(stage_base + stage * (kAWords + kBWords), a_src, ld, b_src, ld_words, k0, tid);
    cp_async_commit();
  };

  load_stage(0, 0);

  // This thread's words of C: rows fragment_row(ty, r), words tx*4..+3 and kRowWords/2 + tx*4..+3.
  std::int32_t* c_base = words + std::int64_t{ti} * T::kTile * ld_words + std::int64_t{tj} * kRowWords;
  std::int32_t c[8][8];
  // FoldCTraits: the tile's 128-byte lines (kTile rows of kRowWords words),
  // two per thread, are asked into L2 now (and into L1 as the last k-chunk
  // starts, FoldCL1Traits) for the epilogue; C starts at infinity.
  constexpr int kLinesPerRow = kRowWords * 4 / 128;
  constexpr int kLinePasses = T::kTile * kLinesPerRow / T::kThreads;
  static_assert(T::kTile * kLinesPerRow % T::kThreads == 0, "each thread prefetches whole lines");
  auto prefetch_c = [&](auto into_l1) {
#pragma unroll
    for (int pass = 0; pass < kLinePasses; ++pass) {
      const int line = tid + pass * T::kThreads;
      const std::int32_t* at = c_base + std::int64_t{line / kLinesPerRow} * ld_words + (line % kLinesPerRow) * 32;
      if constexpr (decltype(into_l1)::value)
        asm volatile("prefetch.global.L1 [%0];" ::"l"(at));
      else
        asm volatile("prefetch.global.L2 [%0];" ::"l"(at));
    }
  };
  if constexpr (T::kFoldC) {
    static_assert(std::is_same<W, Float32Words>::value, "FoldCTraits is a float32 phase 3");
    prefetch_c(std::false_type{});
#pragma unroll
    for (int r = 0; r < 8; ++r)
#pragma unroll
      for (int x = 0; x < 8; ++x) c[r][x] = W::kInfinityWord;
  } else {
#pragma unroll
    for (int r = 0; r < 8; ++r) {
      const std::int32_t* row = c_base + std::int64_t{fragment_row<T>(ty, r)} * ld_words;
      const int4 lo = *reinterpret_cast<const int4*>(row + tx * 4);
      const int4 hi = *reinterpret_cast<const int4*>(row + kRowWords / 2 + tx * 4);
      c[r][0] = lo.x;
      c[r][1] = lo.y;
      c[r][2] = lo.z;
      c[r][3] = lo.w;
      c[r][4] = hi.x;
      c[r][5] = hi.y;
      c[r][6] = hi.z;
      c[r][7] = hi.w;
    }
  }

  constexpr int kChunks = T::kTile / T::kChunk;
#pragma unroll 1
  for (int chunk = 0; chunk < kChunks; ++chunk) {
    if (chunk + 1 < kChunks) {
      load_stage((chunk + 1) % T::kStages, (chunk + 1) * T::kChunk);
      cp_async_wait<1>();
    } else {
      if constexpr (T::kPrefetchL1) prefetch_c(std::true_type{});
      cp_async_wait<0>();
    }
    __syncthreads();
    const std::int32_t* a_stage = stage_base + (chunk % T::kStages) * (kAWords + kBWords);
    const std::int32_t* b_stage = a_stage + kAWords;
    chunk_product<T, W>(c, a_stage, b_stage, tx, ty);
    __syncthreads();  // the stage is refilled by the next iteration's load
  }

  if constexpr (T::kFoldC) {
#pragma unroll
    for (int r = 0; r < 8; ++r) {
      const std::int32_t* row = c_base + std::int64_t{fragment_row<T>(ty, r)} * ld_words;
      std::int32_t old[8];
      load_words8(row + tx * 4, row + kRowWords / 2 + tx * 4, old);
#pragma unroll
      for (int x = 0; x < 8; ++x) c[r][x] = W::min_word(c[r][x], old[x]);
    }
  }

  const std::int64_t k0 = mid_k0 >= 0 ? mid_k0 : std::int64_t{kb} * T::kTile;
#pragma unroll
  for (int r = 0; r < 8; ++r) {
    const std::int64_t row_index = std::int64_t{ti} * T::kTile + fragment_row<T>(ty, r);
#pragma unroll
    for (int x = 0; x < 8; ++x) {
      const std::int64_t col_index = std::int64_t{tj} * T::kTile + (x < 4 ? 0 : kRowWords / 2) + tx * 4 + (x & 3);
      c[r][x] = settle_tag<W>(c[r][x], mid, row_index * ld + col_index, k0);
    }
    std::int32_t* row = c_base + std::int64_t{fragment_row<T>(ty, r)} * ld_words;
    *reinterpret_cast<int4*>(row + tx * 4) = make_int4(c[r][0], c[r][1], c[r][2], c[r][3]);
    *reinterpret_cast<int4*>(row + kRowWords / 2 + tx * 4) = make_int4(c[r][4], c[r][5], c[r][6], c[r][7]);
  }
}

template <class T, class W>
__global__ void __launch_bounds__(T::kThreads, T::kMinBlocksPerSm)
    update_rest(typename W::storage_t* __restrict__ d, const std::int32_t* __restrict__ panel_t,
                const std::int32_t* __restrict__ b_rows, std::int64_t ld, int kb, std::int32_t* __restrict__ mid,
                std::int64_t mid_k0 = -1) {
  extern __shared__ int4 shared_words[];
  update_rest_tile<T, W>(d, panel_t, b_rows, ld, kb, mid, mid_k0, blockIdx.x, blockIdx.y, shared_words);
}

}  // namespace apsp::cuda::kernels
