// Tile shapes of the production blocked Floyd-Warshall (kernels/dense/fw.cu
// describes a round): the tile-per-block phase 3 and the persistent one.
#pragma once

#include "cuda/kernels/common/words.cuh"

namespace apsp::cuda::kernels {

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
// Phase 3 with the register cap lifted (one block per SM, up to 255
// registers a thread): float32's FADD + FMNMX keep a temporary per update,
// and under the two-block cap of 128 registers update_rest spills.
struct WideRegisterTraits : ProductionTraits {
  static constexpr int kMinBlocksPerSm = 1;
};
static_assert(ProductionTraits::kTile < (1 << kTagBits), "a tag names one of kTile rows, plus 0 for none");

}  // namespace apsp::cuda::kernels
