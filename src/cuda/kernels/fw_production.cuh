// Production blocked Floyd-Warshall: device code.
//
// Round kb of the blocked algorithm on an n_pad x n_pad matrix (n_pad a
// multiple of kTile) is three launches:
//   close_diagonal: one block closes the diagonal tile (kb,kb), in registers.
//   update_panels:  each block updates one row-panel or column-panel tile as
//                   a single min-plus product with the closed diagonal.
//                   Column-panel tiles are also written transposed into
//                   `panel_t` (kTile x n_pad words) so that phase 3 reads its
//                   A operand with 16-byte loads.
//   update_rest:    every other tile C(i,j) = min(C, A(i,kb) (x) B(kb,j)),
//                  with C held in registers (8x8 words per thread), A and B
//                  streamed through shared memory in k-chunks by cp.async,
//                  double-buffered, and one DPX add-min per word.
// Storage is int32 (one distance per word) or int16 (two adjacent columns
// per word, packed add-min). Phase 3 works on 128 x 128-word C tiles either
// way: 128 columns in int32, 256 columns (two column tiles) in int16. In
// int16 the pair holding column tile kb is updated too, harmlessly: that
// tile already equals A (x) D*, and D* is closed, so a second product leaves
// it unchanged (and phase 3 reads A from panel_t, not from that tile). Weights are non-negative and infinity is
// kInf (int32) or kInf16 (int16), so a + b never wraps and never undercuts.
#pragma once

#include <cstdint>

#include "apsp/graph.hpp"

namespace apsp::cuda::kernels {

inline constexpr std::int32_t kInf16 = 16383;  // 2 * kInf16 < 2^15

// Predecessor mode: a distance d is stored as d << kTagBits; the low bits of
// a phase's result name the k (1 + its index in the pivot block) that last
// improved it, 0 for none. Two infinities plus a tag stay below 2^31.
inline constexpr int kTagBits = 8;
inline constexpr std::int32_t kTagMask = (1 << kTagBits) - 1;
inline constexpr std::int32_t kInfTagged = (1 << 22) - 1;  // in distance units

struct ProductionTraits {
  static constexpr int kTile = 128;       // pivot block edge = C tile edge
  static constexpr int kThreadsX = 16;
  static constexpr int kThreadsY = 16;
  static constexpr int kThreads = kThreadsX * kThreadsY;
  static constexpr int kRowsPerThread = kTile / kThreadsY;  // 8: two groups of 4
  static constexpr int kWordsPerThread = 8;                 // two int4 per row
  static constexpr int kChunk = 32;       // k rows per shared-memory stage
  static constexpr int kStages = 2;
  static constexpr int kMinBlocksPerSm = 2;  // caps registers at 128 per thread
  static constexpr int kPivotStride = kTile + 4;  // words; 16-byte aligned rows, spreads column reads over banks

  static_assert(kRowsPerThread == 8, "the fragment code holds rows as two groups of four");
  static_assert(kTile % kChunk == 0, "k-chunks must tile the pivot block");
  static_assert(kChunk * kTile / 4 % kThreads == 0, "each thread copies whole int4s of a stage");
  static_assert(kPivotStride % 4 == 0, "pivot rows must stay 16-byte aligned");
};

// v2, persistent phase 3: each block walks over C tiles and prefetches the
// next C tile into shared memory (cp.async) while it computes the current
// one, so the two blocks of an SM, which start in lockstep, stop waiting on
// DRAM together. Smaller k-chunks pay for the 64 KB C buffer:
// 2 x 16 KB stages + 64 KB = 96 KB per block, two blocks per SM.
struct PersistentTraits : ProductionTraits {
  static constexpr int kChunk = 16;
  static_assert(kTile % kChunk == 0, "k-chunks must tile the pivot block");
  static_assert(kChunk * kTile / 4 % kThreads == 0, "each thread copies whole int4s of a stage");
};

// Distances per 32-bit word and the arithmetic on words.
struct Int32Words {
  using storage_t = std::int32_t;
  static constexpr int kPerWord = 1;
  static constexpr bool kTagged = false;
  static constexpr std::int32_t kInfinity = kInf;
  __device__ static std::int32_t add_min(std::int32_t a, std::int32_t b, std::int32_t c) { return __viaddmin_s32(a, b, c); }
  // The A operand word for one distance: the distance itself.
  __device__ static std::int32_t broadcast(std::int32_t v) { return v; }
};

struct Int16Words {
  using storage_t = std::int16_t;
  static constexpr int kPerWord = 2;
  static constexpr bool kTagged = false;
  static constexpr std::int32_t kInfinity = kInf16;
  __device__ static std::int32_t add_min(std::int32_t a, std::int32_t b, std::int32_t c) {
    return static_cast<std::int32_t>(__viaddmin_s16x2(static_cast<unsigned>(a), static_cast<unsigned>(b), static_cast<unsigned>(c)));
  }
  // The A operand word for one distance: the distance in both halves.
  __device__ static std::int32_t broadcast(std::int32_t v) {
    return static_cast<std::int32_t>((static_cast<std::uint32_t>(v) & 0xffffu) | (static_cast<std::uint32_t>(v) << 16));
  }
};

// int32 words holding d << kTagBits | tag (predecessor mode).
struct TaggedWords : Int32Words {
  static constexpr bool kTagged = true;
  static constexpr std::int32_t kInfinity = kInfTagged << kTagBits;
};
static_assert(2 * (std::int64_t{kInfTagged} << kTagBits) + kTagMask < (std::int64_t{1} << 31),
              "two tagged infinities and a tag must not overflow int32");
static_assert(ProductionTraits::kTile < (1 << kTagBits), "a tag names one of kTile rows, plus 0 for none");

// In predecessor mode, strips the tag of c and records the improving k:
// mid[at] = k0 + tag - 1. No-op otherwise.
template <class W>
__device__ __forceinline__ std::int32_t settle_tag(std::int32_t c, std::int32_t* mid, std::int64_t at, std::int64_t k0) {
  if constexpr (W::kTagged) {
    const std::int32_t tag = c & kTagMask;
    if (tag != 0) mid[at] = static_cast<std::int32_t>(k0 + tag - 1);
    return c & ~kTagMask;
  } else {
    return c;
  }
}

__device__ inline void cp_async16(void* shared, const void* global) {
  const unsigned address = static_cast<unsigned>(__cvta_generic_to_shared(shared));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(address), "l"(global));
}
__device__ inline void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int kPending>
__device__ inline void cp_async_wait() { asm volatile("cp.async.wait_group %0;\n" ::"n"(kPending)); }

// Row `r` (0..7) of this thread's fragment inside a tile: two groups of four
// rows, 64 apart, so the A operand of a k-step is two int4 loads.
template <class T>
__device__ inline int fragment_row(int ty, int r) {
  return (r < 4 ? 0 : T::kTile / 2) + ty * 4 + (r & 3);
}

// The 8 words of a fragment row or column: two int4, 64 words apart in a tile.
__device__ __forceinline__ void load_words8(const std::int32_t* lo, const std::int32_t* hi, std::int32_t (&out)[8]) {
  const int4 a = *reinterpret_cast<const int4*>(lo);
  const int4 b = *reinterpret_cast<const int4*>(hi);
  out[0] = a.x; out[1] = a.y; out[2] = a.z; out[3] = a.w;
  out[4] = b.x; out[5] = b.y; out[6] = b.z; out[7] = b.w;
}

// c[r][x] = add_min(a[r], b[x], c[r][x]): one k-step on a thread's 8x8 fragment.
template <class W>
__device__ __forceinline__ void add_min_fragment(std::int32_t (&c)[8][8], const std::int32_t (&a)[8],
                                                 const std::int32_t (&b)[8]) {
#pragma unroll
  for (int r = 0; r < 8; ++r)
#pragma unroll
    for (int x = 0; x < 8; ++x) c[r][x] = W::add_min(a[r], b[x], c[r][x]);
}

// c[r][x] = add_min(A[k][row r], B[k][word x], c) over the kChunk k-rows of
// one stage: A is kChunk x kTile words (k-major), B kChunk x kTile words.
template <class T, class W>
__device__ __forceinline__ void chunk_product(std::int32_t (&c)[8][8], const std::int32_t* a_stage,
                                              const std::int32_t* b_stage, int tx, int ty) {
#pragma unroll
  for (int k = 0; k < T::kChunk; ++k) {
    std::int32_t a[8], b[8];
    load_words8(a_stage + k * T::kTile + ty * 4, a_stage + k * T::kTile + T::kTile / 2 + ty * 4, a);
    load_words8(b_stage + k * T::kTile + tx * 4, b_stage + k * T::kTile + T::kTile / 2 + tx * 4, b);
    add_min_fragment<W>(c, a, b);
  }
}

// Copies one kChunk-row stage of A (from panel_t) and B (from the row panel)
// into shared memory with cp.async; the caller commits.
template <class T>
__device__ __forceinline__ void copy_stage(std::int32_t* a_dst, const std::int32_t* a_src, std::int64_t a_ld,
                                           const std::int32_t* b_src, std::int64_t b_ld, int k0, int tid) {
  std::int32_t* b_dst = a_dst + T::kChunk * T::kTile;
#pragma unroll
  for (int v = tid; v < T::kChunk * T::kTile / 4; v += T::kThreads) {
    const int row = v / (T::kTile / 4), col = (v % (T::kTile / 4)) * 4;
    cp_async16(a_dst + row * T::kTile + col, a_src + std::int64_t{k0 + row} * a_ld + col);
    cp_async16(b_dst + row * T::kTile + col, b_src + std::int64_t{k0 + row} * b_ld + col);
  }
}

// ---------------------------------------------------------------------------
// Phase 3: C(ti,tj) = min(C, A (x) B) for all ti != kb and all C tiles tj
// (int32: tj != kb, grid (nb-1) x (nb-1); int16: column-tile pairs, grid
// (n_pad/256) x (nb-1)). Shared memory: kStages x (A chunk + B chunk).
//   d        n_pad x n_pad storage_t, leading dimension ld (elements)
//   panel_t  kTile x n_pad words: panel_t[k][i] = broadcast(d[i][kb*kTile + k])
template <class T, class W>
__global__ void __launch_bounds__(T::kThreads, T::kMinBlocksPerSm)
    update_rest(typename W::storage_t* __restrict__ d, const std::int32_t* __restrict__ panel_t,
                const std::int32_t* __restrict__ b_rows, std::int64_t ld, int kb, std::int32_t* __restrict__ mid) {
  constexpr int kRowWords = T::kTile;             // words in one C tile row
  constexpr int kAWords = T::kChunk * T::kTile;   // A chunk: kChunk x kTile words
  constexpr int kBWords = T::kChunk * kRowWords;  // B chunk: kChunk x kRowWords words
  extern __shared__ int4 shared_words[];
  std::int32_t* const stage_base = reinterpret_cast<std::int32_t*>(shared_words);

  const int tj = W::kPerWord == 1 ? blockIdx.x + (blockIdx.x >= kb) : blockIdx.x;
  const int ti = blockIdx.y + (blockIdx.y >= kb);
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
#pragma unroll
  for (int r = 0; r < 8; ++r) {
    const std::int32_t* row = c_base + std::int64_t{fragment_row<T>(ty, r)} * ld_words;
    const int4 lo = *reinterpret_cast<const int4*>(row + tx * 4);
    const int4 hi = *reinterpret_cast<const int4*>(row + kRowWords / 2 + tx * 4);
    c[r][0] = lo.x; c[r][1] = lo.y; c[r][2] = lo.z; c[r][3] = lo.w;
    c[r][4] = hi.x; c[r][5] = hi.y; c[r][6] = hi.z; c[r][7] = hi.w;
  }

  constexpr int kChunks = T::kTile / T::kChunk;
#pragma unroll 1
  for (int chunk = 0; chunk < kChunks; ++chunk) {
    if (chunk + 1 < kChunks) {
      load_stage((chunk + 1) % T::kStages, (chunk + 1) * T::kChunk);
      cp_async_wait<1>();
    } else {
      cp_async_wait<0>();
    }
    __syncthreads();
    const std::int32_t* a_stage = stage_base + (chunk % T::kStages) * (kAWords + kBWords);
    const std::int32_t* b_stage = a_stage + kAWords;
    chunk_product<T, W>(c, a_stage, b_stage, tx, ty);
    __syncthreads();  // the stage is refilled by the next iteration's load
  }

#pragma unroll
  for (int r = 0; r < 8; ++r) {
    const std::int64_t row_index = std::int64_t{ti} * T::kTile + fragment_row<T>(ty, r);
#pragma unroll
    for (int x = 0; x < 8; ++x) {
      const std::int64_t col_index = std::int64_t{tj} * T::kTile + (x < 4 ? 0 : kRowWords / 2) + tx * 4 + (x & 3);
      c[r][x] = settle_tag<W>(c[r][x], mid, row_index * ld + col_index, std::int64_t{kb} * T::kTile);
    }
    std::int32_t* row = c_base + std::int64_t{fragment_row<T>(ty, r)} * ld_words;
    *reinterpret_cast<int4*>(row + tx * 4) = make_int4(c[r][0], c[r][1], c[r][2], c[r][3]);
    *reinterpret_cast<int4*>(row + kRowWords / 2 + tx * 4) = make_int4(c[r][4], c[r][5], c[r][6], c[r][7]);
  }
}

// ---------------------------------------------------------------------------
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
      c[r][0] = lo.x; c[r][1] = lo.y; c[r][2] = lo.z; c[r][3] = lo.w;
      c[r][4] = hi.x; c[r][5] = hi.y; c[r][6] = hi.z; c[r][7] = hi.w;
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
        if (chunk == 0) cp_async_wait<2>(); else cp_async_wait<1>();
      } else {
        if (chunk == 0) cp_async_wait<1>(); else cp_async_wait<0>();
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

// ---------------------------------------------------------------------------
// Phase 1: close the diagonal tile (kb,kb) in place. One block. Each thread
// keeps its 8x8 fragment in registers; step k publishes row k and column k
// (as of step k-1) through double-buffered shared arrays, so each step needs
// one barrier and four 16-byte loads per thread. Row k and column k do not
// change in step k because d[k][k] = 0 (no negative cycles).
template <class T, class W>
__global__ void __launch_bounds__(T::kThreads)
    close_diagonal(typename W::storage_t* __restrict__ d, std::int64_t ld, int kb, std::int32_t* __restrict__ mid) {
  using storage_t = typename W::storage_t;
  __shared__ __align__(16) std::int32_t row_k[2][T::kTile];
  __shared__ __align__(16) std::int32_t col_k[2][T::kTile];
  const int tid = threadIdx.x, tx = tid % T::kThreadsX, ty = tid / T::kThreadsX;
  const std::int64_t pivot = std::int64_t{kb} * T::kTile;
  auto column = [&](int x) { return (x < 4 ? 0 : T::kTile / 2) + tx * 4 + (x & 3); };
  std::int32_t c[8][8];
#pragma unroll
  for (int r = 0; r < 8; ++r)
#pragma unroll
    for (int x = 0; x < 8; ++x) c[r][x] = d[(pivot + fragment_row<T>(ty, r)) * ld + pivot + column(x)];

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
    add_min_fragment<Int32Words>(c, a, b);
    if (k + 1 < T::kTile) publish(k + 1, buffer ^ 1);
    __syncthreads();
  }
#pragma unroll
  for (int r = 0; r < 8; ++r)
#pragma unroll
    for (int x = 0; x < 8; ++x) {
      const std::int64_t at = (pivot + fragment_row<T>(ty, r)) * ld + pivot + column(x);
      d[at] = static_cast<storage_t>(settle_tag<W>(c[r][x], mid, at, pivot));
    }
}

// ---------------------------------------------------------------------------
// Phase 2. Grid: 2*(nb-1) blocks; block 0..nb-2 updates the row-panel tile
// (kb, j), block nb-1..2nb-3 the column-panel tile (i, kb), which it also
// writes transposed into panel_t. Shared memory: two kTile x kPivotStride
// int32 tiles (the closed diagonal and the panel tile); storage_t in global.
template <class T, class W>
__global__ void __launch_bounds__(T::kThreads)
    update_panels(typename W::storage_t* __restrict__ d, std::int32_t* __restrict__ panel_t, std::int64_t ld, int kb,
                  int nb, std::int32_t* __restrict__ mid, std::int32_t* __restrict__ row_tagged) {
  using storage_t = typename W::storage_t;
  extern __shared__ int4 shared_words[];
  std::int32_t* const diag = reinterpret_cast<std::int32_t*>(shared_words);
  std::int32_t* const panel = diag + T::kTile * T::kPivotStride;
  const int tid = threadIdx.x;
  const std::int64_t pivot = std::int64_t{kb} * T::kTile;
  const int b = blockIdx.x;
  const bool row_panel = b < nb - 1;
  const int other = row_panel ? b : b - (nb - 1);
  const std::int64_t other_origin = std::int64_t{other + (other >= kb)} * T::kTile;
  const std::int64_t row0 = row_panel ? pivot : other_origin;
  const std::int64_t col0 = row_panel ? other_origin : pivot;
  for (int idx = tid; idx < T::kTile * T::kTile; idx += T::kThreads) {
    const int i = idx / T::kTile, j = idx % T::kTile;
    diag[i * T::kPivotStride + j] = d[(pivot + i) * ld + pivot + j];
    panel[i * T::kPivotStride + j] = d[(row0 + i) * ld + col0 + j];
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
    add_min_fragment<Int32Words>(c, a, bv);
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
    d[(row0 + i) * ld + col0 + j] = static_cast<storage_t>(panel[i * T::kPivotStride + j]);
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

// int32 matrix (n_pad x n_pad) -> int16 matrix (n_pad16 x n_pad16, n_pad16 >=
// n_pad): entries >= kInf16 become kInf16, the extra padding is isolated
// vertices. Grid-stride over n_pad16^2.
static __global__ void narrow_to_int16(const std::int32_t* __restrict__ in, std::int64_t n_pad, std::int16_t* __restrict__ out,
                                std::int64_t n_pad16) {
  for (std::int64_t x = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; x < n_pad16 * n_pad16;
       x += std::int64_t{gridDim.x} * blockDim.x) {
    const std::int64_t i = x / n_pad16, j = x - i * n_pad16;
    const std::int32_t v = i < n_pad && j < n_pad ? min(in[i * n_pad + j], kInf16) : (i == j ? 0 : kInf16);
    out[x] = static_cast<std::int16_t>(v);
  }
}
// Back: kInf16 becomes kInf. Grid-stride over n_pad^2.
static __global__ void widen_from_int16(const std::int16_t* __restrict__ in, std::int64_t n_pad16, std::int32_t* __restrict__ out,
                                 std::int64_t n_pad) {
  for (std::int64_t x = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; x < n_pad * n_pad;
       x += std::int64_t{gridDim.x} * blockDim.x) {
    const std::int64_t i = x / n_pad, j = x - i * n_pad;
    const std::int32_t v = in[i * n_pad16 + j];
    out[x] = v >= kInf16 ? kInf : v;
  }
}

// Predecessor mode, before the rounds: tagged[x] = min(dist[x], kInfTagged)
// << kTagBits and mid[x] = -1. Grid-stride over count.
static __global__ void pack_tagged(const std::int32_t* __restrict__ dist, std::int32_t* __restrict__ tagged,
                                   std::int32_t* __restrict__ mid, std::int64_t count) {
  for (std::int64_t x = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; x < count; x += std::int64_t{gridDim.x} * blockDim.x) {
    tagged[x] = min(dist[x], kInfTagged) << kTagBits;
    mid[x] = -1;
  }
}

// After the rounds: dist = tagged >> kTagBits (kInfTagged becomes kInf), and
// mid becomes the chain pointer of pred[i][j] = pred[mid[i][j]][j]:
// link[i][j] = mid[i][j] when set, else ~i (the edge i -> j ends the path).
static __global__ void unpack_tagged(const std::int32_t* __restrict__ tagged, std::int32_t* __restrict__ dist,
                                     std::int32_t* __restrict__ mid_to_link, std::int64_t n_pad) {
  for (std::int64_t x = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; x < n_pad * n_pad;
       x += std::int64_t{gridDim.x} * blockDim.x) {
    const std::int32_t v = tagged[x] >> kTagBits;
    dist[x] = v >= kInfTagged ? kInf : v;
    const std::int32_t m = mid_to_link[x];
    if (m < 0) mid_to_link[x] = ~static_cast<std::int32_t>(x / n_pad);
  }
}

// One pointer-jumping pass over the n x n block: a link >= 0 names a row of
// the same column to follow. Reading a neighbour mid-update is harmless: old
// and new values are both links further along the same chain.
static __global__ void jump_links(std::int32_t* __restrict__ link, std::int64_t n, std::int64_t n_pad, int* changed) {
  bool any = false;
  for (std::int64_t x = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; x < n * n;
       x += std::int64_t{gridDim.x} * blockDim.x) {
    const std::int64_t i = x / n, j = x - i * n;
    const std::int32_t to = link[i * n_pad + j];
    if (to >= 0) {
      link[i * n_pad + j] = link[std::int64_t{to} * n_pad + j];
      any = true;
    }
  }
  if (__syncthreads_or(any) && threadIdx.x == 0) *changed = 1;
}

// Predecessors as the dispatcher builds them: i for an edge i -> j, else -1
// (restores pred after an abandoned predecessor-mode attempt).
static __global__ void pred_from_edges(const std::int32_t* __restrict__ dist, std::int32_t* __restrict__ pred,
                                       std::int64_t n_pad) {
  for (std::int64_t x = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; x < n_pad * n_pad;
       x += std::int64_t{gridDim.x} * blockDim.x) {
    const std::int64_t i = x / n_pad, j = x - i * n_pad;
    pred[x] = (i != j && dist[x] < kInf) ? static_cast<std::int32_t>(i) : -1;
  }
}

// pred[i][j] = ~link[i][j] for finite off-diagonal entries, else -1.
static __global__ void links_to_pred(std::int32_t* __restrict__ link, const std::int32_t* __restrict__ dist,
                                     std::int64_t n_pad) {
  for (std::int64_t x = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; x < n_pad * n_pad;
       x += std::int64_t{gridDim.x} * blockDim.x) {
    const std::int64_t i = x / n_pad, j = x - i * n_pad;
    link[x] = (i == j || dist[x] >= kInf) ? -1 : ~link[x];
  }
}

}  // namespace apsp::cuda::kernels
