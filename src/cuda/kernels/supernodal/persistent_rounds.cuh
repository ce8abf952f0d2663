// The supernodal factor's dense rounds in ONE launch (issue 21's small dense
// blocks at low latency; the kernel ladder in docs/perf.md, "persistent
// rounds"). fw's rounds (kernels/dense/fw.cu) cost three dependent launches
// a round, plus a pad and an unpad launch around them: on a front's block of
// up to 2048 x 2048 (16 MiB of int32, L2-resident) that is latency, not work.
// Here one cooperative launch does all of it, the phases separated by grid
// barriers (cooperative_groups::this_grid().sync(), which also orders the
// global memory of the phases):
//   pad:      the block (the whole front, or its k x k diagonal block) into
//             the n_pad x n_pad scratch, padding isolated (pad_entry, the
//             pad_front launch's body: the edge is masked here, once);
//   round kb: block 0 closes diagonal tile kb (close_diagonal_tile); the
//             blocks take the 2 (nb - 1) panel tiles (update_panel_tile),
//             then the phase-3 tiles (update_rest_tile), in turn;
//   unpad:    the block back into the front (unpad_entry).
// Every tile is fw's own device function on fw's 128 x 128 tile, so the
// result is bit for bit fw's rounds on the padded copy (the order of the
// add-mins within a tile is fw's; min-plus on integers is exact anyway).
// The grid is at most what fits co-resident (the cooperative launch refuses
// more): with fw's 128 tile one block per SM (the panels take 135 KB of
// shared memory), with 64 tiles several (PersistentRoundsTraits).
#pragma once

#include <cooperative_groups.h>

#include <cstddef>
#include <cstdint>

#include "cuda/kernels/dense/close_diagonal.cuh"
#include "cuda/kernels/dense/traits.cuh"
#include "cuda/kernels/dense/update_panels.cuh"
#include "cuda/kernels/dense/update_rest.cuh"
#include "cuda/kernels/supernodal/fronts.cuh"

namespace apsp::cuda::kernels::supernodal {

// The tile (pivot block and C tile edge) of the rounds, and their threads:
// fw's 8 x 8 words per thread, so Tile / 8 threads a side. Tile 128 is fw's
// own tile (bit for bit fw's rounds, also in float32); tile 64 runs rounds
// of 64 pivots on 64 x 64 tiles, a quarter of the work per block on each
// phase's critical path (int32 only: min-plus on integers is exact, so the
// closure is the same whatever the blocking; float32 sums would round in
// another order).
template <int Tile, int BlocksPerSm>
struct PersistentRoundsTraits : ProductionTraits {
  static constexpr int kTile = Tile;
  static constexpr int kThreadsX = Tile / 8;
  static constexpr int kThreadsY = Tile / 8;
  static constexpr int kThreads = kThreadsX * kThreadsY;
  static constexpr int kRowsPerThread = kTile / kThreadsY;
  static constexpr int kPivotStride = kTile + 4;
  // The largest padded block: 2048^2 int32 words = 16 MiB, which H100's and
  // H200's 50 MiB L2 hold with the panel scratch; past it the rounds are
  // bandwidth, and fw's launches cost little beside them.
  static constexpr int kMaxPad = 2048;
  static constexpr int kMaxTiles = kMaxPad / kTile;
  // Blocks an SM should hold (the launch bounds' register budget): tile 128,
  // one (the panels' 135 KB of shared memory); tile 64, several.
  static constexpr int kBlocksPerSm = BlocksPerSm;
  static constexpr std::size_t kPanelSharedBytes = sizeof(std::int32_t) * 2 * kTile * kPivotStride;
  static constexpr std::size_t kRestSharedBytes = sizeof(std::int32_t) * kStages * kChunk * 2 * kTile;
  static constexpr std::size_t kSharedBytes = kPanelSharedBytes > kRestSharedBytes ? kPanelSharedBytes
                                                                                   : kRestSharedBytes;
  // close_diagonal_tile's static row and column buffers.
  static constexpr std::size_t kStaticSharedBytes = sizeof(std::int32_t) * 4 * kTile;

  static_assert(kRowsPerThread == 8 && kWordsPerThread == 8, "fw's fragment: 8 x 8 words a thread");
  static_assert(kTile % kChunk == 0, "k-chunks must tile the pivot block");
  static_assert(kChunk * kTile / 4 % kThreads == 0, "each thread copies whole int4s of a stage");
  static_assert(kThreads % (kTile / 4) == 0, "a copy pass covers whole rows");
  static_assert(kPivotStride % 4 == 0, "pivot rows must stay 16-byte aligned");
  static_assert(kMaxPad % kTile == 0 && ProductionTraits::kTile % kTile == 0,
                "the largest block is whole tiles, and fw's 128 padding is too");
  static_assert((kSharedBytes + kStaticSharedBytes) * kBlocksPerSm <= 227 * 1024,
                "the blocks asked for fit an SM's shared memory (sm_90)");
};
using PersistentRounds128 = PersistentRoundsTraits<128, 1>;
using PersistentRounds64 = PersistentRoundsTraits<64, 4>;

// Pivots 0 .. rounds * kTile - 1 of the block `shape` of `front` eliminated
// (rounds = k_pad / kTile closes its first k indices), through `padded`
// (shape.n_pad^2 words, n_pad a multiple of kTile and at most kMaxPad) and
// `panel_t` (kTile x n_pad words, fw's panel scratch). Int32Words and
// Float32Words (one distance a word, no predecessors). Launch with
// cudaLaunchCooperativeKernel, T::kThreads threads, T::kSharedBytes of
// dynamic shared memory, at most the co-resident blocks.
template <class T, class W>
__global__ void __launch_bounds__(T::kThreads, T::kBlocksPerSm)
    persistent_rounds(typename W::storage_t* front, PaddedFront shape, typename W::storage_t* padded,
                      std::int32_t* panel_t, int rounds) {
  static_assert(W::kPerWord == 1 && !W::kTagged, "one untagged distance per word");
  namespace cg = cooperative_groups;
  const cg::grid_group grid = cg::this_grid();
  extern __shared__ int4 shared_words[];
  const std::int64_t n_pad = shape.n_pad;
  const int nb = static_cast<int>(n_pad / T::kTile);
  const std::int64_t first = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x;
  const std::int64_t stride = std::int64_t{gridDim.x} * blockDim.x;
  for (std::int64_t x = first; x < n_pad * n_pad; x += stride) pad_entry(front, shape, padded, x);
  grid.sync();
  const int tiles_x = nb - 1, tiles = tiles_x * (nb - 1);
#pragma unroll 1
  for (int kb = 0; kb < rounds; ++kb) {
    if (blockIdx.x == 0) close_diagonal_tile<T, W>(padded, n_pad, kb, nullptr);
    grid.sync();
    if (nb == 1) continue;
#pragma unroll 1
    for (int b = blockIdx.x; b < 2 * (nb - 1); b += gridDim.x) {
      update_panel_tile<T, W>(padded, panel_t, n_pad, kb, nb, nullptr, nullptr, b, shared_words);
      __syncthreads();  // the next tile's loads reuse the shared memory
    }
    grid.sync();
    const std::int32_t* b_rows = reinterpret_cast<const std::int32_t*>(padded) + std::int64_t{kb} * T::kTile * n_pad;
#pragma unroll 1
    for (int t = blockIdx.x; t < tiles; t += gridDim.x) {
      update_rest_tile<T, W>(padded, panel_t, b_rows, n_pad, kb, nullptr, -1, t % tiles_x, t / tiles_x, shared_words);
      __syncthreads();
    }
    grid.sync();
  }
  for (std::int64_t x = first; x < unpad_entries(shape); x += stride) unpad_entry(padded, shape, front, x);
}

}  // namespace apsp::cuda::kernels::supernodal
