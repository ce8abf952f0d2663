// Production blocked Floyd-Warshall: device code.
//
// Round kb of the blocked algorithm on an n_pad x n_pad matrix (n_pad a
// multiple of kTile) is two launches:
//   pivot_round:   every block closes the diagonal tile (kb,kb) in shared
//                  memory (redundantly: one block per panel tile avoids a
//                  grid-wide barrier), then updates one row-panel or
//                  column-panel tile as a single min-plus product with the
//                  closed diagonal. Column-panel tiles are also written
//                  transposed into `panel_t` (kTile x n_pad words) so that
//                  phase 3 reads its A operand with 16-byte loads.
//   update_rest:   every other tile C(i,j) = min(C, A(i,kb) (x) B(kb,j)),
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

// Distances per 32-bit word and the arithmetic on words.
struct Int32Words {
  using storage_t = std::int32_t;
  static constexpr int kPerWord = 1;
  static constexpr std::int32_t kInfinity = kInf;
  __device__ static std::int32_t add_min(std::int32_t a, std::int32_t b, std::int32_t c) { return __viaddmin_s32(a, b, c); }
  // The A operand word for one distance: the distance itself.
  __device__ static std::int32_t broadcast(std::int32_t v) { return v; }
};

struct Int16Words {
  using storage_t = std::int16_t;
  static constexpr int kPerWord = 2;
  static constexpr std::int32_t kInfinity = kInf16;
  __device__ static std::int32_t add_min(std::int32_t a, std::int32_t b, std::int32_t c) {
    return static_cast<std::int32_t>(__viaddmin_s16x2(static_cast<unsigned>(a), static_cast<unsigned>(b), static_cast<unsigned>(c)));
  }
  // The A operand word for one distance: the distance in both halves.
  __device__ static std::int32_t broadcast(std::int32_t v) {
    return static_cast<std::int32_t>((static_cast<std::uint32_t>(v) & 0xffffu) | (static_cast<std::uint32_t>(v) << 16));
  }
};

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

// ---------------------------------------------------------------------------
// Phase 3: C(ti,tj) = min(C, A (x) B) for all ti != kb and all C tiles tj
// (int32: tj != kb, grid (nb-1) x (nb-1); int16: column-tile pairs, grid
// (n_pad/256) x (nb-1)). Shared memory: kStages x (A chunk + B chunk).
//   d        n_pad x n_pad storage_t, leading dimension ld (elements)
//   panel_t  kTile x n_pad words: panel_t[k][i] = broadcast(d[i][kb*kTile + k])
template <class T, class W>
__global__ void __launch_bounds__(T::kThreads, T::kMinBlocksPerSm)
    update_rest(typename W::storage_t* __restrict__ d, const std::int32_t* __restrict__ panel_t, std::int64_t ld, int kb) {
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
  const std::int32_t* b_src = words + std::int64_t{kb} * T::kTile * ld_words + std::int64_t{tj} * kRowWords;

  auto load_stage = [&](int stage, int k0) {
    std::int32_t* a_dst = stage_base + stage * (kAWords + kBWords);
    std::int32_t* b_dst = a_dst + kAWords;
#pragma unroll
    for (int v = tid; v < kAWords / 4; v += T::kThreads) {
      const int row = v / (T::kTile / 4), col = (v % (T::kTile / 4)) * 4;
      cp_async16(a_dst + row * T::kTile + col, a_src + std::int64_t{k0 + row} * ld + col);
    }
#pragma unroll
    for (int v = tid; v < kBWords / 4; v += T::kThreads) {
      const int row = v / (kRowWords / 4), col = (v % (kRowWords / 4)) * 4;
      cp_async16(b_dst + row * kRowWords + col, b_src + std::int64_t{k0 + row} * ld_words + col);
    }
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
#pragma unroll
    for (int k = 0; k < T::kChunk; ++k) {
      const int4 a_lo = *reinterpret_cast<const int4*>(a_stage + k * T::kTile + ty * 4);
      const int4 a_hi = *reinterpret_cast<const int4*>(a_stage + k * T::kTile + T::kTile / 2 + ty * 4);
      const int4 b_lo = *reinterpret_cast<const int4*>(b_stage + k * kRowWords + tx * 4);
      const int4 b_hi = *reinterpret_cast<const int4*>(b_stage + k * kRowWords + kRowWords / 2 + tx * 4);
      const std::int32_t a[8] = {a_lo.x, a_lo.y, a_lo.z, a_lo.w, a_hi.x, a_hi.y, a_hi.z, a_hi.w};
      const std::int32_t b[8] = {b_lo.x, b_lo.y, b_lo.z, b_lo.w, b_hi.x, b_hi.y, b_hi.z, b_hi.w};
#pragma unroll
      for (int r = 0; r < 8; ++r)
#pragma unroll
        for (int x = 0; x < 8; ++x) c[r][x] = W::add_min(a[r], b[x], c[r][x]);
    }
    __syncthreads();  // the stage is refilled by the next iteration's load
  }

#pragma unroll
  for (int r = 0; r < 8; ++r) {
    std::int32_t* row = c_base + std::int64_t{fragment_row<T>(ty, r)} * ld_words;
    *reinterpret_cast<int4*>(row + tx * 4) = make_int4(c[r][0], c[r][1], c[r][2], c[r][3]);
    *reinterpret_cast<int4*>(row + kRowWords / 2 + tx * 4) = make_int4(c[r][4], c[r][5], c[r][6], c[r][7]);
  }
}

// ---------------------------------------------------------------------------
// Phases 1 and 2. Grid: 2*(nb-1) + 1 blocks. Block 0 writes the closed
// diagonal; block 1..nb-1 the row panel tile (kb, j); block nb..2nb-2 the
// column panel tile (i, kb) and its transpose into panel_t.
// Shared memory: two kTile x kPivotStride int32 tiles. Distances are widened
// to int32 in shared memory; storage_t holds them in global memory.
template <class T, class W>
__global__ void __launch_bounds__(T::kThreads)
    pivot_round(typename W::storage_t* __restrict__ d, std::int32_t* __restrict__ panel_t, std::int64_t ld, int kb, int nb) {
  using storage_t = typename W::storage_t;
  extern __shared__ int4 shared_words[];
  std::int32_t* const diag = reinterpret_cast<std::int32_t*>(shared_words);
  std::int32_t* const panel = diag + T::kTile * T::kPivotStride;
  const int tid = threadIdx.x;
  const std::int64_t pivot = std::int64_t{kb} * T::kTile;

  for (int idx = tid; idx < T::kTile * T::kTile; idx += T::kThreads) {
    const int i = idx / T::kTile, j = idx % T::kTile;
    diag[i * T::kPivotStride + j] = d[(pivot + i) * ld + pivot + j];
  }
  __syncthreads();
  // In place is safe: step k reads row k and column k, which step k leaves
  // unchanged because diag[k][k] = 0 (no negative cycles).
  for (int k = 0; k < T::kTile; ++k) {
    for (int idx = tid; idx < T::kTile * T::kTile; idx += T::kThreads) {
      const int i = idx / T::kTile, j = idx % T::kTile;
      std::int32_t& cell = diag[i * T::kPivotStride + j];
      cell = min(cell, diag[i * T::kPivotStride + k] + diag[k * T::kPivotStride + j]);
    }
    __syncthreads();
  }

  const int b = blockIdx.x;
  if (b == 0) {
    for (int idx = tid; idx < T::kTile * T::kTile; idx += T::kThreads) {
      const int i = idx / T::kTile, j = idx % T::kTile;
      d[(pivot + i) * ld + pivot + j] = static_cast<storage_t>(diag[i * T::kPivotStride + j]);
    }
    return;
  }
  const bool row_panel = b < nb;
  const int other = (row_panel ? b - 1 : b - nb);
  const std::int64_t other_origin = std::int64_t{other + (other >= kb)} * T::kTile;
  const std::int64_t row0 = row_panel ? pivot : other_origin;
  const std::int64_t col0 = row_panel ? other_origin : pivot;
  for (int idx = tid; idx < T::kTile * T::kTile; idx += T::kThreads) {
    const int i = idx / T::kTile, j = idx % T::kTile;
    panel[i * T::kPivotStride + j] = d[(row0 + i) * ld + col0 + j];
  }
  __syncthreads();

  // Row panel:    new[i][j] = min_m diag[i][m] + old[m][j]
  // Column panel: new[i][j] = min_m old[i][m] + diag[m][j]
  // (diag has a zero diagonal, so the minimum includes old[i][j].)
  const std::int32_t* a_tile = row_panel ? diag : panel;
  const std::int32_t* b_tile = row_panel ? panel : diag;
  const int tx = tid % T::kThreadsX, ty = tid / T::kThreadsX;
  std::int32_t c[8][8];
#pragma unroll
  for (int r = 0; r < 8; ++r)
#pragma unroll
    for (int x = 0; x < 8; ++x) c[r][x] = W::kInfinity;
#pragma unroll 4
  for (int m = 0; m < T::kTile; ++m) {
    std::int32_t a[8];
#pragma unroll
    for (int r = 0; r < 8; ++r) a[r] = a_tile[fragment_row<T>(ty, r) * T::kPivotStride + m];
    const int4 b_lo = *reinterpret_cast<const int4*>(b_tile + m * T::kPivotStride + tx * 4);
    const int4 b_hi = *reinterpret_cast<const int4*>(b_tile + m * T::kPivotStride + T::kTile / 2 + tx * 4);
    const std::int32_t bv[8] = {b_lo.x, b_lo.y, b_lo.z, b_lo.w, b_hi.x, b_hi.y, b_hi.z, b_hi.w};
#pragma unroll
    for (int r = 0; r < 8; ++r)
#pragma unroll
      for (int x = 0; x < 8; ++x) c[r][x] = min(c[r][x], a[r] + bv[x]);
  }
  __syncthreads();  // everyone is done reading `panel` before it is overwritten
#pragma unroll
  for (int r = 0; r < 8; ++r)
#pragma unroll
    for (int x = 0; x < 8; ++x)
      panel[fragment_row<T>(ty, r) * T::kPivotStride + (x < 4 ? tx * 4 + x : T::kTile / 2 + tx * 4 + x - 4)] = c[r][x];
  __syncthreads();
  for (int idx = tid; idx < T::kTile * T::kTile; idx += T::kThreads) {
    const int i = idx / T::kTile, j = idx % T::kTile;
    d[(row0 + i) * ld + col0 + j] = static_cast<storage_t>(panel[i * T::kPivotStride + j]);
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
__global__ void narrow_to_int16(const std::int32_t* __restrict__ in, std::int64_t n_pad, std::int16_t* __restrict__ out,
                                std::int64_t n_pad16) {
  for (std::int64_t x = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; x < n_pad16 * n_pad16;
       x += std::int64_t{gridDim.x} * blockDim.x) {
    const std::int64_t i = x / n_pad16, j = x - i * n_pad16;
    const std::int32_t v = i < n_pad && j < n_pad ? min(in[i * n_pad + j], kInf16) : (i == j ? 0 : kInf16);
    out[x] = static_cast<std::int16_t>(v);
  }
}
// Back: kInf16 becomes kInf. Grid-stride over n_pad^2.
__global__ void widen_from_int16(const std::int16_t* __restrict__ in, std::int64_t n_pad16, std::int32_t* __restrict__ out,
                                 std::int64_t n_pad) {
  for (std::int64_t x = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; x < n_pad * n_pad;
       x += std::int64_t{gridDim.x} * blockDim.x) {
    const std::int64_t i = x / n_pad, j = x - i * n_pad;
    const std::int32_t v = in[i * n_pad16 + j];
    out[x] = v >= kInf16 ? kInf : v;
  }
}

}  // namespace apsp::cuda::kernels
