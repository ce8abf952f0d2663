// Stream-K for the supernodal tiled factor's launches (opt-in:
// testing::hooks.supernodal_stream_k; int32 rows): the launch's products are
// one sequence of (tile, k-chunk) steps, product after product, tile after
// tile (row-major, as tiled_products numbers them), the chunks of a tile in
// order; block b of G takes the steps [b S / G, (b + 1) S / G) of the S in
// all, so every block does the same number of add-mins whatever the tile
// count (split-K's pieces are whole tiles' depth ranges of one length, so a
// launch of 1.8 - 2.8 waves keeps its last wave part empty). A block runs
// each tile it meets over the chunks of its range (tiled_tile): a tile whose
// chunks all fall in one block is written as tiled_products writes it, one
// shared with other blocks is mined into C by atomicMin. Bit for bit the
// whole launch's result in any order, for split-K's reasons
// (tiled_update.cuh). The tasks' tile_begin holds their first step here
// (host: supernodal::stream_k_blocks, src/supernodal/split_k.hpp).
#pragma once

#include <cstdint>

#include "cuda/kernels/supernodal/tiled_update.cuh"

namespace apsp::cuda::kernels::supernodal {

// `count` tasks, task t's steps [tasks[t].tile_begin, + its tiles x chunks),
// `steps` in all; gridDim.x blocks; dynamic shared memory kTiledSharedBytes.
__global__ void __launch_bounds__(TiledTraits::kThreads, TiledTraits::kMinBlocksPerSm)
    tiled_stream_products(const TiledTask<std::int32_t>* __restrict__ tasks, std::int32_t count, std::int64_t steps) {
  extern __shared__ int4 shared_words[];
  // The block's next step, kept in shared memory rather than in registers
  // across tiled_tile (whose 8 x 8 fragment takes all 128 a thread has):
  // nothing of the walk stays live across a tile.
  __shared__ std::int64_t next;
  if (threadIdx.x == 0) next = blockIdx.x * steps / gridDim.x;
  __syncthreads();
  for (;;) {
    const std::int64_t step = next, end = (blockIdx.x + 1) * steps / gridDim.x;
    if (step >= end) return;  // block-uniform
    // The task holding `step` (every thread walks the same few tasks).
    std::int32_t t = 0;
    while (t + 1 < count &&
           step >= tasks[t].tile_begin + tasks[t].m_pad / TiledTraits::kTile * tasks[t].tiles_n * tasks[t].chunks)
      ++t;
    const TiledTask<std::int32_t> task = tasks[t];
    const std::int64_t local = step - task.tile_begin;
    const int tile = static_cast<int>(local / task.chunks);
    const int chunk_begin = static_cast<int>(local % task.chunks);
    const std::int64_t left = end - step;
    const int chunk_end = left < task.chunks - chunk_begin ? chunk_begin + static_cast<int>(left) : task.chunks;
    // A tile whose chunks all lie in this block's range is its alone (the
    // ranges are disjoint); the others share C with their neighbours' blocks.
    const bool shared = chunk_begin > 0 || chunk_end < task.chunks;
    __syncthreads();  // every thread has read `next`
    if (threadIdx.x == 0) next = step + (chunk_end - chunk_begin);
    tiled_tile<std::int32_t, true>(task, tile / task.tiles_n, tile % task.tiles_n, chunk_begin, chunk_end, shared,
                                   shared_words);  // ends at a barrier: `next` is written before any thread reads it
  }
}

}  // namespace apsp::cuda::kernels::supernodal
