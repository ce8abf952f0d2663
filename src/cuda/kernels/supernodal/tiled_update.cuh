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
//
// Split-K (tiled_products<D, true>, int32 rows; testing::hooks.supernodal_split_k,
// supernodal::split_k_pieces in src/supernodal/split_k.hpp decides): a launch
// of fewer tiles than about two waves of the device cuts each product's depth
// into `pieces` ranges of whole k-chunks, one block per (tile, piece), and
// each block mins its partial product into C with atomicMin. That is the
// unsplit result bit for bit, in any order: int32 min-plus is exact (entries
// at most kInf = 2^30 - 1, a sum of two at most 2^31 - 2: no overflow, so no
// clamp), min is associative and commutative, and each partial starts at
// +inf in registers exactly as the whole product does, so
// min(C, min over pieces of min(kInf, piece's sums)) = min(C, min(kInf, all
// sums)): the unsplit kernel's "saturation" is only that start at kInf (an
// all-+inf piece leaves kInf, which never lowers C, C being at most kInf).
// The block reads C first and issues the atomic only where its partial is
// below what it read: C only falls during the launch, so a stale read is at
// least the current value and skipping where v >= it is right. C is the
// front's own block (F[S,S] for the update, F[S,K] and F[K,S] for the
// panels), assembled on the stream before the launch; no block of the launch
// reads another product's C, and the operands come from the packs.
#pragma once

#include <cstdint>
#include <type_traits>

#include "cuda/kernels/dense/fragment.cuh"
#include "cuda/kernels/dense/traits.cuh"
#include "cuda/kernels/supernodal/arith.cuh"
#include "supernodal/split_k.hpp"

namespace apsp::cuda::kernels::supernodal {

// fw's production tile: 128 x 128 C, 32 k-rows per stage, two stages, 256 threads.
using TiledTraits = kernels::ProductionTraits;
inline constexpr int kTiledTile = TiledTraits::kTile;
inline constexpr int kTiledChunk = TiledTraits::kChunk;
inline constexpr int kTiledThreads = TiledTraits::kThreads;
// Split-K's shape rule (supernodal::SplitKRule): pieces of at least
// kMinPieceDepth (whole k-chunks; a block's start, the first stage, and its
// end, C's fold and atomics, are then at most about a fifth of its time), at
// most kMaxPieces of them, and launches of at least kTargetWaves waves of
// tiles left whole.
struct SplitKTraits {
  static constexpr int kTile = TiledTraits::kTile;
  static constexpr int kChunk = TiledTraits::kChunk;
  static constexpr int kMinPieceDepth = 64;
  static constexpr int kMinPieceChunks = kMinPieceDepth / kChunk;
  static constexpr int kMaxPieces = 8;
  static constexpr double kTargetWaves = 2.0;
  // A block's start and end in chunk times (the model's; a chunk of the
  // 128 x 128 tile is about 9 us on an H100 at fw int32's rate, the first
  // stage's load and the fold of a 64 KB C tile a few us).
  static constexpr double kOverheadChunks = 0.5;
  static_assert(kTile == 128, "the tile is fw's production C tile");
  static_assert(kMinPieceDepth % kChunk == 0 && kMinPieceDepth >= 64, "a piece is whole k-chunks, 64 deep at least");
  static_assert(kMaxPieces >= 2, "a split has two pieces at least");
};

// The 64 x 64 C tile (tile64; testing::hooks.supernodal_tile64, opt-in
// until measured; supernodal::choose_tile in src/supernodal/tile_choice.hpp
// decides per launch): fw's 8 x 8 thread fragment, 32-row k-chunks and two
// cp.async stages on a quarter of the tile, 64 threads a block. A launch of
// few 128 tiles (the chain fronts' panels of R-MAT: 90-280 tiles of k =
// 156-450 deep against 264 resident blocks) leaves SMs idle or doubly
// loaded for its whole depth; on 64 tiles it has four times the blocks of a
// quarter of the depth's work each, and k = 156 pads its rows to 192, not
// 256. Per k-step a thread reads 8 A and 8 B words for 64 add-mins, as the
// 128 tile does: the same shared-memory traffic per add-min. Its shared
// memory, 32 KiB a block, lets 6 blocks share an SM (fewer warps than the
// 128 tile's 2 x 8: the latency hiding is the risk).
struct Tiled64Traits : TiledTraits {
  static constexpr int kTile = 64;
  static constexpr int kThreadsX = 8;
  static constexpr int kThreadsY = 8;
  static constexpr int kThreads = kThreadsX * kThreadsY;
  static constexpr int kRowsPerThread = kTile / kThreadsY;
  static constexpr int kPivotStride = kTile + 4;
  // Caps registers at 255 a thread (the 128 tile's code needs about 128).
  static constexpr int kMinBlocksPerSm = 4;
  static_assert(kRowsPerThread == 8, "the fragment code holds rows as two groups of four");
  static_assert(kTile / 2 == kThreadsX * 4, "a fragment row's two int4 lie half a tile apart");
  static_assert(kTile % kChunk == 0, "k-chunks must tile the C tile's edge");
  static_assert(kChunk * kTile / 4 % kThreads == 0, "each thread copies whole int4s of a stage");
  static_assert(kThreads % (kTile / 4) == 0 && kChunk % (kThreads / (kTile / 4)) == 0,
                "copy_stage's passes cover a stage's rows exactly");
};
inline constexpr int kTiled64Tile = Tiled64Traits::kTile;
inline constexpr int kTiled64Threads = Tiled64Traits::kThreads;

// The operands' starts: 16-byte cp.async copies.
inline constexpr int kTiledAlign = 4;
// Dynamic shared memory of a block: two stages of A and B chunks.
template <class T>
inline constexpr int kTiledSharedBytesOf = T::kStages * 2 * T::kChunk* T::kTile* static_cast<int>(sizeof(std::int32_t));
inline constexpr int kTiledSharedBytes = kTiledSharedBytesOf<TiledTraits>;
inline constexpr int kTiled64SharedBytes = kTiledSharedBytesOf<Tiled64Traits>;
static_assert(kTiled64SharedBytes <= 48 * 1024, "the 64 tile's launch needs no shared-memory opt-in");

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
  // Split-K (tiled_products<D, true> only): the depth's chunks in `pieces`
  // ranges, piece p of chunks [p * chunks / pieces, (p + 1) * chunks /
  // pieces) (supernodal::split_k_piece_begin); the task's blocks are pieces
  // x its tiles, piece-major. 1: whole, C written without atomics.
  std::int32_t pieces = 1;
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

// Chunks [chunk_begin, chunk_end) of C tile (ti, tj) of `task`, folded into
// C: written where it improves, by atomicMin when `atomic` (other blocks min
// other chunks of the same tile into it; int32 only: kAtomic). The block's
// shared memory is free again on return (the last chunk ends at a barrier).
// T: the C tile's traits (TiledTraits, fw's 128; Tiled64Traits), whose
// kTile the task's padding and tiles_n were planned for.
template <class D, bool kAtomic, class T = TiledTraits>
__device__ __forceinline__ void tiled_tile(const TiledTask<D>& task, int ti, int tj, int chunk_begin, int chunk_end,
                                           bool atomic, int4* shared_words) {
  using W = typename TiledWords<D>::type;
  static_assert(sizeof(D) == sizeof(std::int32_t), "fw's tile holds one 32-bit distance a word");
  static_assert(!kAtomic || std::is_same<D, std::int32_t>::value, "split-K mins into C with int32 atomicMin");
  constexpr int kAWords = T::kChunk * T::kTile, kBWords = T::kChunk * T::kTile;
  std::int32_t* const stage_base = reinterpret_cast<std::int32_t*>(shared_words);
  const int tid = threadIdx.x;
  const int tx = tid % T::kThreadsX, ty = tid / T::kThreadsX;
  const std::int32_t* a_src = reinterpret_cast<const std::int32_t*>(task.a) + std::int64_t{ti} * T::kTile;
  const std::int32_t* b_src = reinterpret_cast<const std::int32_t*>(task.b) + std::int64_t{tj} * T::kTile;
  auto load_stage = [&](int stage, int k0) {
    copy_stage<T>(stage_base + stage * (kAWords + kBWords), a_src, task.m_pad, b_src, task.n_pad, k0, tid);
    cp_async_commit();
  };
  load_stage(0, chunk_begin * T::kChunk);

  std::int32_t c[8][8];
#pragma unroll
  for (int r = 0; r < 8; ++r)
#pragma unroll
    for (int x = 0; x < 8; ++x) c[r][x] = TiledWords<D>::kInfinityWord;

#pragma unroll 1
  for (int chunk = chunk_begin; chunk < chunk_end; ++chunk) {
    const int stage = (chunk - chunk_begin) % T::kStages;
    if (chunk + 1 < chunk_end) {
      load_stage((stage + 1) % T::kStages, (chunk + 1) * T::kChunk);
      cp_async_wait<1>();
    } else {
      cp_async_wait<0>();
    }
    __syncthreads();
    const std::int32_t* a_stage = stage_base + stage * (kAWords + kBWords);
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
      if (v < c_row[col]) {
        if constexpr (kAtomic) {
          if (atomic)
            atomicMin(c_row + col, v);
          else
            c_row[col] = v;
        } else {
          c_row[col] = v;
        }
      }
    }
  }
}

// A launch's products, gridDim.x = their blocks, tile_task[block] = the
// block's task; T::kThreads threads and dynamic shared memory
// kTiledSharedBytesOf<T> a block. kSplit: the tasks' blocks are (piece,
// tile) pairs (TiledTask::pieces) and a split task's C takes the partial
// products by atomicMin (int32 only, fw's 128 tile only).
template <class D, bool kSplit = false, class T = TiledTraits>
__global__ void __launch_bounds__(T::kThreads, T::kMinBlocksPerSm)
    tiled_products(const TiledTask<D>* __restrict__ tasks, const std::int32_t* __restrict__ tile_task) {
  static_assert(!kSplit || T::kTile == TiledTraits::kTile, "split-K runs on fw's 128 tile");
  extern __shared__ int4 shared_words[];
  const TiledTask<D> task = tasks[tile_task[blockIdx.x]];
  int local = static_cast<int>(blockIdx.x - task.tile_begin);
  int chunk_begin = 0, chunk_end = task.chunks;
  if constexpr (kSplit) {
    const apsp::supernodal::TileChunks piece = apsp::supernodal::split_k_block(
        local, task.m_pad / TiledTraits::kTile * task.tiles_n, task.chunks, task.pieces);
    local = static_cast<int>(piece.tile);
    chunk_begin = static_cast<int>(piece.chunk_begin);
    chunk_end = static_cast<int>(piece.chunk_end);
  }
  tiled_tile<D, kSplit, T>(task, local / task.tiles_n, local % task.tiles_n, chunk_begin, chunk_end, task.pieces > 1,
                           shared_words);
}

}  // namespace apsp::cuda::kernels::supernodal
