// A front's k x k diagonal block closed by repeated in-place min-plus
// squaring, D <- min(D, D (x) D), in ONE cooperative launch (issue 21: the
// closures of R-MAT's chain fronts, k = 150-430, are latency; fw's rounds
// cost three dependent phases per 128 pivots, the first of them 128
// barrier-separated steps on one SM). Here a squaring is one wide phase:
// every block takes C tiles of 32 x 32 (and, where the block has few tiles, a
// share of the depth), computes min over its depth of A[i, :] + B[:, j] and
// lowers C in place; a grid barrier ends the squaring.
//   pad:       the block into a k_pad x k_pad scratch (k_pad: k rounded up
//              to 32; 16-byte rows for cp.async), padding isolated
//              (pad_entry: +inf off the diagonal); the padding is never
//              written (only cells i, j < k are), so it stays +inf and a
//              padded m adds kInf + kInf to any sum: no cell changes by it;
//   squarings: at most squarings_bound(k) = ceil(log2 k) (1 for k = 1),
//              each ended by a grid barrier; a device flag per squaring says
//              whether any cell decreased, and after the barrier every block
//              reads it and all stop together when none did;
//   unpad:     the k x k cells back into the front.
// Why the result is the closure, and exactly fw's integers:
//   - With no negative cycles every value ever written is the length of a
//     walk (a sum of two walk lengths), so it is >= the true distance. Reads
//     of a cell that another block lowers concurrently see the old or the
//     new value: both are walk lengths, so this holds in place too.
//   - After t squarings each cell is <= the shortest walk of at most 2^t
//     edges (by induction: values read are at most the squaring's starting
//     values). Shortest walks of >= 1 edge are simple paths (<= k - 1 edges)
//     or, on the diagonal, simple cycles (<= k edges), so ceil(log2 k)
//     squarings reach every one: the result is the exact closure.
//   - A squaring that lowered nothing means D[i][j] <= D[i][m] + D[m][j] for
//     all i, j, m (every block's sums were >= the cells it read, and nothing
//     changed while it read); with D[i][i] <= 0 that makes D <= every path's
//     length, so D is the closure already and the rest are skipped.
//   - fw's rounds compute the same exact closure (min-plus on int32 is exact:
//     entries are at most kInf = 2^30 - 1, the sum of two stays in int32, and
//     an add-min never raises a cell, so no clamping is needed here or in fw;
//     an +inf entry is then a weight of kInf, in both), so the two agree bit
//     for bit, whatever the order of the add-mins.
// The add-min is Int32Words::add_min (kernels/common/words.cuh: Hopper's
// VIADDMNMX, __viaddmin_s32), fw's own.
#pragma once

#include <cooperative_groups.h>

#include <climits>
#include <cstddef>
#include <cstdint>

#include "cuda/kernels/common/cp_async.cuh"
#include "cuda/kernels/common/words.cuh"
#include "cuda/kernels/supernodal/fronts.cuh"

namespace apsp::cuda::kernels::supernodal {

// ceil(log2 k), at least 1: the squarings that close any k x k block.
__host__ __device__ constexpr int squarings_bound(std::int64_t k) {
  int t = 1;
  while ((std::int64_t{1} << t) < k) ++t;
  return t;
}

// The squaring closure's shapes. A block of 64 threads (8 x 8, a 4 x 4
// fragment of words each) computes a 32 x 32 C tile; A (32 rows x kChunk
// depth, row-major, rows padded to kAStride) and B (kChunk x 32) pass
// through double-buffered shared-memory stages. Small tiles so that small
// blocks still spread over the card (k = 256: 64 tiles), and the depth split
// over blocks where the tiles alone are fewer than kItemsPerSm per SM.
struct SquaringTraits {
  static constexpr int kTile = 32;
  static constexpr int kThreadsX = 8;
  static constexpr int kThreads = kThreadsX * kThreadsX;
  static constexpr int kWords = kTile / kThreadsX;  // a thread's fragment: kWords x kWords
  static constexpr int kChunk = 32;                 // depth of one shared-memory stage
  static constexpr int kStages = 2;
  static constexpr int kAStride = kChunk + 4;  // words per A row in shared memory
  static constexpr int kStageWords = kTile * kAStride + kChunk * kTile;
  static constexpr std::size_t kSharedBytes = sizeof(std::int32_t) * kStages * kStageWords;
  // The largest block it takes, and the solver's default largest k when the
  // hook asks for the default (testing::hooks.supernodal_squaring_closure):
  // past about 640 the k^3 log k of the squarings outweighs fw's k^3 in
  // latency-free rounds (docs/perf.md, "Squaring closure").
  static constexpr int kMaxK = 2048;
  static constexpr int kDefaultMaxK = 640;
  // Device flags: flags[t] for squaring t, flags[kUsedAt] the squarings run.
  static constexpr int kFlagWords = 32;
  static constexpr int kUsedAt = kFlagWords - 1;
  // Work items (tile x depth share) asked per SM before the depth is split,
  // and the grid's cap in blocks per SM (a grid barrier's cost grows with it).
  static constexpr int kItemsPerSm = 2;
  static constexpr int kBlocksPerSm = 4;

  static_assert(kWords == 4, "the fragment code holds 4 x 4 words: one int4 per A row and per B row");
  static_assert(kChunk % 4 == 0 && kAStride % 4 == 0, "16-byte rows in shared memory");
  static_assert(kTile * kChunk / 4 % kThreads == 0 && kChunk == kTile,
                "a stage's A and B copies are whole int4 passes of the same shape");
  static_assert(kThreads >= kFlagWords, "one thread zeroes each flag");
  static_assert(squarings_bound(kMaxK) < kUsedAt, "a flag per squaring, and the count");
  static_assert(kDefaultMaxK <= kMaxK && kMaxK % kTile == 0, "the default is within the largest");
  static_assert(2 * std::int64_t{kInf} < INT_MAX, "kInf + kInf fits int32: the accumulator starts at INT_MAX");
};

// How a squaring's work is cut: tiles_x^2 C tiles of kTile, each depth cut
// into `splits` shares of the `stages` kChunk stages; `squarings` the bound.
struct SquaringPlan {
  int tiles_x, splits, stages, squarings;
};

template <int U>
__device__ __forceinline__ std::int32_t int4_word(const int4& v) {
  if constexpr (U == 0)
    return v.x;
  else if constexpr (U == 1)
    return v.y;
  else if constexpr (U == 2)
    return v.z;
  else
    return v.w;
}

// acc[q][x] = add_min(A[row q][u], B[u][column x], acc) for the 4 depths of
// k-step group kk: one int4 of each A row and of each B row.
template <class T, int U>
__device__ __forceinline__ void add_min_depth(std::int32_t (&acc)[4][4], const int4 (&a)[4], const int4 (&b)[4]) {
  const int4 row = b[U];
  const std::int32_t bx[4] = {row.x, row.y, row.z, row.w};
#pragma unroll
  for (int q = 0; q < 4; ++q) {
    const std::int32_t aq = int4_word<U>(a[q]);
#pragma unroll
    for (int x = 0; x < 4; ++x) acc[q][x] = Int32Words::add_min(aq, bx[x], acc[q][x]);
  }
}

// The C tile at (i0, j0) of the k_pad x k_pad scratch `d` (row stride ld)
// lowered by min over stages [s_begin, s_end) of A (x) B, in place: plain
// stores where this block is the tile's only writer, atomicMin where the
// depth is split. Returns whether this thread lowered a cell (i, j < k).
template <class T>
__device__ __forceinline__ int square_tile(std::int32_t* d, std::int64_t ld, std::int64_t k, int i0, int j0,
                                           int s_begin, int s_end, bool split, std::int32_t* shared) {
  constexpr int kVectorsPerRow = T::kChunk / 4;
  constexpr int kPasses = T::kTile * T::kChunk / 4 / T::kThreads;
  const int tid = threadIdx.x, tx = tid % T::kThreadsX, ty = tid / T::kThreadsX;
  auto copy = [&](int stage, int buffer) {
    std::int32_t* a = shared + buffer * T::kStageWords;
    std::int32_t* b = a + T::kTile * T::kAStride;
    const std::int64_t m0 = std::int64_t{stage} * T::kChunk;
#pragma unroll
    for (int pass = 0; pass < kPasses; ++pass) {
      const int v = tid + pass * T::kThreads, row = v / kVectorsPerRow, col = (v % kVectorsPerRow) * 4;
      cp_async16(a + row * T::kAStride + col, d + (i0 + row) * ld + m0 + col);
      cp_async16(b + row * T::kTile + col, d + (m0 + row) * ld + j0 + col);
    }
    cp_async_commit();
  };
  std::int32_t acc[4][4];
#pragma unroll
  for (int q = 0; q < 4; ++q)
#pragma unroll
    for (int x = 0; x < 4; ++x) acc[q][x] = INT_MAX;
  copy(s_begin, 0);
#pragma unroll 1
  for (int s = s_begin; s < s_end; ++s) {
    const int buffer = (s - s_begin) & 1;
    if (s + 1 < s_end) {
      copy(s + 1, buffer ^ 1);
      cp_async_wait<1>();
    } else {
      cp_async_wait<0>();
    }
    __syncthreads();
    const std::int32_t* a_stage = shared + buffer * T::kStageWords;
    const std::int32_t* b_stage = a_stage + T::kTile * T::kAStride;
#pragma unroll
    for (int kk = 0; kk < T::kChunk; kk += 4) {
      int4 a[4], b[4];
#pragma unroll
      for (int q = 0; q < 4; ++q) a[q] = *reinterpret_cast<const int4*>(a_stage + (ty * 4 + q) * T::kAStride + kk);
#pragma unroll
      for (int u = 0; u < 4; ++u) b[u] = *reinterpret_cast<const int4*>(b_stage + (kk + u) * T::kTile + tx * 4);
      add_min_depth<T, 0>(acc, a, b);
      add_min_depth<T, 1>(acc, a, b);
      add_min_depth<T, 2>(acc, a, b);
      add_min_depth<T, 3>(acc, a, b);
    }
    __syncthreads();  // the next copy overwrites this buffer
  }
  int lowered = 0;
#pragma unroll
  for (int q = 0; q < 4; ++q) {
    const std::int64_t i = i0 + ty * 4 + q;
    if (i >= k) continue;
    std::int32_t* row = d + i * ld + j0 + tx * 4;
    const int4 now = __ldcg(reinterpret_cast<const int4*>(row));
    const std::int32_t c[4] = {now.x, now.y, now.z, now.w};
#pragma unroll
    for (int x = 0; x < 4; ++x) {
      if (j0 + tx * 4 + x >= k || acc[q][x] >= c[x]) continue;
      if (split)
        atomicMin(row + x, acc[q][x]);
      else
        row[x] = acc[q][x];
      lowered = 1;
    }
  }
  return lowered;
}

// A closure launch's first phase (its grid barrier the caller's): the block
// `shape` into `padded`, padding isolated, and the T::kFlagWords flags
// zeroed; and its last, the k x k cells back into `front`. Shared with the
// blocked closure (kernels/supernodal/blocked_closure.cuh).
template <class T>
__device__ __forceinline__ void pad_block_clear_flags(const std::int32_t* front, const PaddedFront& shape,
                                                      std::int32_t* padded, std::int32_t* flags) {
  const std::int64_t first = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x;
  const std::int64_t stride = std::int64_t{gridDim.x} * blockDim.x;
  for (std::int64_t x = first; x < shape.n_pad * shape.n_pad; x += stride) pad_entry(front, shape, padded, x);
  if (blockIdx.x == 0 && threadIdx.x < T::kFlagWords) flags[threadIdx.x] = 0;
}
__device__ __forceinline__ void unpad_block(const std::int32_t* padded, const PaddedFront& shape, std::int32_t* front) {
  const std::int64_t first = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x;
  const std::int64_t stride = std::int64_t{gridDim.x} * blockDim.x;
  for (std::int64_t x = first; x < unpad_entries(shape); x += stride) unpad_entry(padded, shape, front, x);
}

// The k x k block `shape` (k_pad = n_pad = k rounded up to kTile, s = 0,
// front_ld its row stride in `front`) closed through `padded` (n_pad^2
// words) by at most plan.squarings squarings; `flags`: T::kFlagWords words
// (flags[kUsedAt] = the squarings run, on return). Launch with
// cudaLaunchCooperativeKernel, T::kThreads threads, T::kSharedBytes of
// dynamic shared memory, at most the co-resident blocks.
template <class T>
__global__ void __launch_bounds__(T::kThreads)
    squaring_closure(std::int32_t* front, PaddedFront shape, std::int32_t* padded, std::int32_t* flags,
                     SquaringPlan plan) {
  namespace cg = cooperative_groups;
  const cg::grid_group grid = cg::this_grid();
  extern __shared__ int4 shared_words[];
  std::int32_t* shared = reinterpret_cast<std::int32_t*>(shared_words);
  const std::int64_t n_pad = shape.n_pad;
  pad_block_clear_flags<T>(front, shape, padded, flags);
  grid.sync();
  const int tiles = plan.tiles_x * plan.tiles_x, items = tiles * plan.splits;
  int t = 0;
#pragma unroll 1
  while (t < plan.squarings) {
    int lowered = 0;
#pragma unroll 1
    for (int item = blockIdx.x; item < items; item += gridDim.x) {
      const int tile = item % tiles, share = item / tiles;
      const int s_begin = share * plan.stages / plan.splits, s_end = (share + 1) * plan.stages / plan.splits;
      lowered |= square_tile<T>(padded, n_pad, shape.k, tile / plan.tiles_x * T::kTile, tile % plan.tiles_x * T::kTile,
                                s_begin, s_end, plan.splits > 1, shared);
    }
    if (__syncthreads_or(lowered) && threadIdx.x == 0) atomicOr(flags + t, 1);
    grid.sync();
    ++t;
    if (*reinterpret_cast<volatile int*>(flags + t - 1) == 0) break;  // closed: every block stops here
  }
  if (blockIdx.x == 0 && threadIdx.x == 0) flags[T::kUsedAt] = t;
  unpad_block(padded, shape, front);
}

}  // namespace apsp::cuda::kernels::supernodal
