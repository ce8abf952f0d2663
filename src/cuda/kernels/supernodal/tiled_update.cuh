// The supernodal factor's dense products through fw's phase-3 tile (the
// tiled factor, opt-in: testing::hooks.supernodal_tiled_factor): for each
// dense front K of >= 1024 vertices of a level, its panels L_K = F[S,K] (x)
// C_KK and U_K = C_KK (x) F[K,S] (one launch), then its update matrix
// F_K[S,S] min= L_K (x) U_K (another), the s x s block and by far most of
// the factor's add-mins, run on fw's 128 x 128 C tile, its 32-row cp.async
// stages and its 8 x 8 thread fragment (kernels/dense/fragment.cuh's
// copy_stage and chunk_product, the traits of kernels/dense/traits.cuh),
// one block per (product, tile) of the level's fronts in one launch. fw's
// stages read k-major operands at 16-byte alignment, so each operand is
// first packed (pack_operands) into a workspace laid out by
// supernodal::plan_tiles (src/supernodal/tile_plan.hpp): A transposed, B
// as it is, padded with +inf to whole tiles and k-chunks. The panels then
// read the front's values from before the launch (not in place): the same
// int32 result, since C_KK is closed. C is the front itself (any leading
// dimension), started at +inf in registers and folded into the old values
// after the last chunk (fw's FoldCTraits order; min is exact), written only
// where it improves, as minplus_tasks does.
#pragma once

#include <cstdint>
#include <type_traits>

#include "cuda/kernels/dense/fragment.cuh"
#include "cuda/kernels/dense/traits.cuh"
#include "cuda/kernels/supernodal/arith.cuh"

namespace apsp::cuda::kernels::supernodal {

// fw's production tile: 128 x 128 C, 32 k-rows per stage, two stages, 256 threads.
using TiledTraits = kernels::ProductionTraits;
inline constexpr int kTiledTile = TiledTraits::kTile;
inline constexpr int kTiledChunk = TiledTraits::kChunk;
inline constexpr int kTiledThreads = TiledTraits::kThreads;
// The operands' starts: 16-byte cp.async copies.
inline constexpr int kTiledAlign = 4;
// Dynamic shared memory of a block: two stages of A and B chunks.
inline constexpr int kTiledSharedBytes = TiledTraits::kStages * 2 * TiledTraits::kChunk * TiledTraits::kTile *
                                         static_cast<int>(sizeof(std::int32_t));

// fw's word policy for a 32-bit distance type (int32, float32).
template <class D>
struct TiledWords;
template <>
struct TiledWords<std::int32_t> {
  using type = kernels::Int32Words;
  static constexpr std::int32_t kInfinityWord = kernels::Int32Words::kInfinity;
};
template <>
struct TiledWords<float> {
  using type = kernels::Float32Words;
  static constexpr std::int32_t kInfinityWord = kernels::Float32Words::kInfinityWord;
};

// One product C(r, c) = min(C(r, c), min_t A(r, t) + B(t, c)), r < m,
// c < n, from packed operands: a[t * m_pad + r] = A(r, t), b[t * n_pad + c]
// = B(t, c), t < chunks * kTiledChunk (+inf past the real k); C(r, c) =
// c[r * ldc + c]. Its blocks are tile_begin .. (row-major over m_pad /
// kTiledTile x tiles_n tiles).
template <class D>
struct TiledTask {
  const D* a;
  const D* b;
  D* c;
  std::int64_t ldc, m_pad, n_pad;
  std::int32_t m, n, chunks, tiles_n;
  std::int64_t tile_begin;
};

// One operand's pack: dst[t * ld_dst + r] = src[r * src_row + t * src_inner]
// for r < rows, t < inner, +inf up to rows_pad x inner_pad (multiples of
// kPackTile). Either stride of src is 1 (a panel of a front, or its
// transpose): a 32 x 32 tile through shared memory keeps both sides coalesced.
template <class D>
struct PackTask {
  const D* src;
  std::int64_t src_row, src_inner;
  D* dst;
  std::int64_t ld_dst;
  std::int32_t rows, inner, rows_pad, inner_pad;
};
inline constexpr int kPackTile = 32;
inline constexpr int kPackRows = 8;  // blockDim (kPackTile, kPackRows)

// grid (rows tiles, inner tiles, tasks): blocks past a task's padded size leave.
template <class D>
__global__ void pack_operands(const PackTask<D>* __restrict__ tasks) {
  __shared__ D tile[kPackTile][kPackTile + 1];  // tile[t][r]
  const PackTask<D> p = tasks[blockIdx.z];
  const int r0 = blockIdx.x * kPackTile, t0 = blockIdx.y * kPackTile;
  if (r0 >= p.rows_pad || t0 >= p.inner_pad) return;
  const D inf = Arith<D>::infinity();
  const bool rows_unit = p.src_row == 1;  // else inner_unit
  for (int y = threadIdx.y; y < kPackTile; y += kPackRows) {
    const int dr = rows_unit ? threadIdx.x : y, dt = rows_unit ? y : threadIdx.x;
    const int r = r0 + dr, t = t0 + dt;
    tile[dt][dr] = r < p.rows && t < p.inner ? p.src[std::int64_t{r} * p.src_row + std::int64_t{t} * p.src_inner] : inf;
  }
  __syncthreads();
  for (int y = threadIdx.y; y < kPackTile; y += kPackRows)
    p.dst[std::int64_t{t0 + y} * p.ld_dst + r0 + threadIdx.x] = tile[y][threadIdx.x];
}

// A launch's products, gridDim.x = their blocks, tile_task[block] = the
// block's task; dynamic shared memory kTiledSharedBytes.
template <class D>
__global__ void __launch_bounds__(TiledTraits::kThreads, TiledTraits::kMinBlocksPerSm)
    tiled_products(const TiledTask<D>* __restrict__ tasks, const std::int32_t* __restrict__ tile_task) {
  using T = TiledTraits;
  using W = typename TiledWords<D>::type;
  static_assert(sizeof(D) == sizeof(std::int32_t), "fw's tile holds one 32-bit distance a word");
  constexpr int kAWords = T::kChunk * T::kTile, kBWords = T::kChunk * T::kTile;
  extern __shared__ int4 shared_words[];
  std::int32_t* const stage_base = reinterpret_cast<std::int32_t*>(shared_words);

  const TiledTask<D> task = tasks[tile_task[blockIdx.x]];
  const int local = static_cast<int>(blockIdx.x - task.tile_begin);
  const int ti = local / task.tiles_n, tj = local % task.tiles_n;
  const int tid = threadIdx.x;
  const int tx = tid % T::kThreadsX, ty = tid / T::kThreadsX;
  const std::int32_t* a_src = reinterpret_cast<const std::int32_t*>(task.a) + std::int64_t{ti} * T::kTile;
  const std::int32_t* b_src = reinterpret_cast<const std::int32_t*>(task.b) + std::int64_t{tj} * T::kTile;
  auto load_stage = [&](int stage, int k0) {
    copy_stage<T>(stage_base + stage * (kAWords + kBWords), a_src, task.m_pad, b_src, task.n_pad, k0, tid);
    cp_async_commit();
  };
  load_stage(0, 0);

  std::int32_t c[8][8];
#pragma unroll
  for (int r = 0; r < 8; ++r)
#pragma unroll
    for (int x = 0; x < 8; ++x) c[r][x] = TiledWords<D>::kInfinityWord;

#pragma unroll 1
  for (int chunk = 0; chunk < task.chunks; ++chunk) {
    if (chunk + 1 < task.chunks) {
      load_stage((chunk + 1) % T::kStages, (chunk + 1) * T::kChunk);
      cp_async_wait<1>();
    } else {
      cp_async_wait<0>();
    }
    __syncthreads();
    const std::int32_t* a_stage = stage_base + (chunk % T::kStages) * (kAWords + kBWords);
    chunk_product<T, W>(c, a_stage, a_stage + kAWords, tx, ty);
    __syncthreads();  // the stage is refilled by the next iteration's load
  }

#pragma unroll
  for (int r = 0; r < 8; ++r) {
    const int row = ti * T::kTile + fragment_row<T>(ty, r);
    if (row >= task.m) continue;
    D* c_row = task.c + std::int64_t{row} * task.ldc;
#pragma unroll
    for (int x = 0; x < 8; ++x) {
      const int col = tj * T::kTile + (x < 4 ? 0 : T::kTile / 2) + tx * 4 + (x & 3);
      if (col >= task.n) continue;
      D v;
      if constexpr (std::is_same<D, float>::value)
        v = __int_as_float(c[r][x]);
      else
        v = c[r][x];
      if (v < c_row[col]) c_row[col] = v;
    }
  }
}

}  // namespace apsp::cuda::kernels::supernodal
