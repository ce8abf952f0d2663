// A front's k x k diagonal block closed by the blocked (2 x 2, recursive)
// min-plus closure in ONE cooperative launch (issue 21: the root front of
// R-MAT 32768, k = 1305, whose closure by fw's rounds is 11 latency-bound
// rounds and by squaring four products of 1305^3). The phases
// (supernodal/blocked_closure_plan.hpp, which says why they give the
// closure) are each a restricted product on the padded block X,
// X[rows, cols] min= X[rows, depth] (x) X[depth, cols], so every phase is a
// squaring of the squaring closure (kernels/supernodal/squaring_closure.cuh)
// restricted to tile ranges: its 32 x 32 C tiles, its depth shares, its
// square_tile (plain stores where a tile has one writer, atomicMin where the
// depth is split), its in-place reads (why they are exact: the plan's
// header). A leaf phase repeats its squaring until one lowers no cell (at
// most ceil(log2 leaf) times), as the squaring closure does; a product phase
// runs once. A grid barrier ends each.
//   pad:    the block into a k_pad x k_pad scratch (pad_entry: the padding
//           isolated, never written, so it never lowers a cell);
//   phases: as planned, the leaves' "lowered" flags in a ring of
//           kFlagRing words: block 0 zeroes the word of squaring g + 1 while
//           squaring g runs; its last use, squaring g + 1 - kFlagRing <=
//           g - 2, was read by every block right after the barrier ending
//           it, so before the barrier that ends squaring g - 1 and starts g;
//   unpad:  the k x k cells back into the front.
#pragma once

#include <cooperative_groups.h>

#include <cstdint>

#include "cuda/kernels/supernodal/fronts.cuh"
#include "cuda/kernels/supernodal/squaring_closure.cuh"
#include "supernodal/blocked_closure_plan.hpp"

namespace apsp::cuda::kernels::supernodal {

// The blocked closure's bounds: it runs on the squaring closure's tiles
// (SquaringTraits). kDefaultMaxK: the solver's largest k when the hook asks
// for the default (testing::hooks.supernodal_blocked_closure); kLeafMaxK:
// the default largest leaf, so that every k up to 2 kLeafMaxK (R-MAT's root,
// 1305) closes in one split into two squared leaves; kMaxK: the largest
// block it takes.
struct BlockedClosureTraits {
  using Tiles = SquaringTraits;
  static constexpr int kAlign = Tiles::kTile;
  static constexpr int kMaxK = 8192;
  static constexpr int kDefaultMaxK = 4096;
  static constexpr int kLeafMaxK = 704;
  static constexpr int kFlagRing = Tiles::kUsedAt;

  static_assert(Tiles::kTile == Tiles::kChunk, "a range on a tile boundary is on a depth stage's too");
  static_assert(kLeafMaxK % kAlign == 0 && kLeafMaxK >= kAlign, "leaves split on tile boundaries");
  static_assert(kLeafMaxK > Tiles::kDefaultMaxK,
                "the blocked closure takes the blocks above the squaring closure's default, in two leaves up to "
                "2 kLeafMaxK");
  static_assert(kDefaultMaxK <= kMaxK && kMaxK % kAlign == 0, "the default is within the largest");
  static_assert(kFlagRing >= 3, "a flag word is zeroed two squarings after every block read it");
};

// The phases: the plan's records (supernodal/blocked_closure_plan.hpp,
// tile_phases), in kTile tiles.
using BlockedPhase = apsp::supernodal::TilePhase;

// This block's items of the phase (blocked_item: rect 0's tiles x shares,
// then rect 1's); whether it lowered a cell.
template <class T>
__device__ __forceinline__ int run_phase(std::int32_t* d, std::int64_t ld, std::int64_t k, const BlockedPhase& phase,
                                         std::int32_t* shared) {
  const int items = apsp::supernodal::phase_items(phase);
  int lowered = 0;
#pragma unroll 1
  for (int item = blockIdx.x; item < items; item += gridDim.x) {
    const apsp::supernodal::TileItem at = apsp::supernodal::blocked_item(phase, item, T::kTile);
    lowered |= square_tile<T>(d, ld, k, at.i0, at.j0, at.s_begin, at.s_end, at.split, shared);
  }
  return lowered;
}

// The k x k block `shape` (k_pad = n_pad = k rounded up to kTile, s = 0,
// front_ld its row stride in `front`) closed through `padded` (n_pad^2
// words) by the `count` phases at `phases`; `flags`: T::kFlagWords words
// (flags[kUsedAt] = the leaves' squarings run, on return). Launch with
// cudaLaunchCooperativeKernel, T::kThreads threads, T::kSharedBytes of
// dynamic shared memory, at most the co-resident blocks.
template <class T>
__global__ void __launch_bounds__(T::kThreads)
    blocked_closure(std::int32_t* front, PaddedFront shape, std::int32_t* padded, std::int32_t* flags,
                    const BlockedPhase* __restrict__ phases, int count) {
  namespace cg = cooperative_groups;
  constexpr int kRing = BlockedClosureTraits::kFlagRing;
  const cg::grid_group grid = cg::this_grid();
  extern __shared__ int4 shared_words[];
  std::int32_t* shared = reinterpret_cast<std::int32_t*>(shared_words);
  const std::int64_t n_pad = shape.n_pad;
  pad_block_clear_flags<T>(front, shape, padded, flags);
  grid.sync();
  int used = 0;  // squarings so far, all leaves
#pragma unroll 1
  for (int p = 0; p < count; ++p) {
    const BlockedPhase phase = phases[p];
    if (!phase.square) {
      run_phase<T>(padded, n_pad, shape.k, phase, shared);
      grid.sync();
      continue;
    }
#pragma unroll 1
    for (int t = 0; t < phase.squarings; ++t) {
      std::int32_t* flag = flags + used % kRing;
      if (blockIdx.x == 0 && threadIdx.x == 0) flags[(used + 1) % kRing] = 0;
      const int lowered = run_phase<T>(padded, n_pad, shape.k, phase, shared);
      if (__syncthreads_or(lowered) && threadIdx.x == 0) atomicOr(flag, 1);
      grid.sync();
      ++used;
      if (*reinterpret_cast<volatile int*>(flag) == 0) break;  // the leaf is closed: every block stops here
    }
  }
  if (blockIdx.x == 0 && threadIdx.x == 0) flags[T::kUsedAt] = used;
  unpad_block(padded, shape, front);
}

}  // namespace apsp::cuda::kernels::supernodal
