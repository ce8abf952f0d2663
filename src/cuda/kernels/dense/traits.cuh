// Tile shapes of the production blocked Floyd-Warshall (kernels/dense/fw.cu
// describes a round): the tile-per-block phase 3 and the persistent one.
#pragma once

#include "cuda/kernels/common/words.cuh"

namespace apsp::cuda::kernels {

struct ProductionTraits {
  static constexpr int kTile = 128;  // pivot block edge = C tile edge
  static constexpr int kThreadsX = 16;
  static constexpr int kThreadsY = 16;
  static constexpr int kThreads = kThreadsX * kThreadsY;
  static constexpr int kRowsPerThread = kTile / kThreadsY;  // 8: two groups of 4
  static constexpr int kWordsPerThread = 8;                 // two int4 per row
  static constexpr int kChunk = 32;                         // k rows per shared-memory stage
  static constexpr int kStages = 2;
  static constexpr int kMinBlocksPerSm = 2;       // caps registers at 128 per thread
  static constexpr int kPivotStride = kTile + 4;  // words; 16-byte aligned rows, spreads column reads over banks
  static constexpr bool kFoldC = false;           // C loaded before the k-chunks (FoldCTraits: folded in after them)
  static constexpr bool kPrefetchL1 = false;      // FoldCL1Traits: old C into L1 during the last k-chunk

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
// Phase 3 with the register cap lifted (one block per SM, up to 255
// registers a thread): float32's FADD + FMNMX keep a temporary per update,
// and under the two-block cap of 128 registers update_rest spills.
struct WideRegisterTraits : ProductionTraits {
  static constexpr int kMinBlocksPerSm = 1;
};
// Phase 3 that starts its C registers at infinity and folds the old C tile
// in after the last k-chunk (min is exact and order-free, so the result is
// the same): a tile's first arithmetic then waits only for its first A/B
// stage (L2-resident panels), not for its 64 KB C tile from DRAM, which is
// prefetched into L2 at the start and read back in the epilogue. float32
// only: it is issue-bound, so the start-up stall of the two lockstep blocks
// of an SM costs it directly (H100, n = 32768: 12.34 -> 13.52 T/s).
struct FoldCTraits : ProductionTraits {
  static constexpr bool kFoldC = true;
};
// FoldCTraits, and the C tile's lines asked into L1 as the last k-chunk
// starts, so the epilogue's reads of the old C hit L1 instead of waiting
// on L2 while both blocks of the SM finish together (13.55 T/s: float32's
// production phase 3).
struct FoldCL1Traits : FoldCTraits {
  static constexpr bool kPrefetchL1 = true;
};
static_assert(ProductionTraits::kTile < (1 << kTagBits), "a tag names one of kTile rows, plus 0 for none");

}  // namespace apsp::cuda::kernels
