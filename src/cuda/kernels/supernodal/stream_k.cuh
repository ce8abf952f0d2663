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
#include "supernodal/split_k.hpp"

namespace apsp::cuda::kernels::supernodal {

// `count` tasks, task t's steps [tasks[t].tile_begin, + its tiles x chunks),
// `steps` in all; gridDim.x blocks; dynamic shared memory kTiledSharedBytes.
__global__ void __launch_bounds__(TiledTraits::kThreads, TiledTraits::kMinBlocksPerSm)
    tiled_stream_products(const TiledTask<std::int32_t>* __restrict__ tasks, std::int32_t count, std::int64_t steps) {
  extern __shared__ int4 shared_words[];
  // The walk's state in shared memory, stepped by thread 0 between tiles:
  // nothing of it stays in registers across tiled_tile, whose 8 x 8
  // fragment takes all 128 a thread has (held there, it spilled).
  __shared__ std::int64_t next;
  __shared__ int task_index, tile, chunk_begin, chunk_end;
  __shared__ bool shared;
  const std::int64_t end = apsp::supernodal::stream_k_begin(blockIdx.x + 1, gridDim.x, steps);
  if (threadIdx.x == 0) next = apsp::supernodal::stream_k_begin(blockIdx.x, gridDim.x, steps);
  for (;;) {
    __syncthreads();          // (a): `next` written; every read of the last tile's state done
    if (next >= end) return;  // block-uniform: thread 0 changes `next` only after (b)
    if (threadIdx.x == 0) {
      const std::int64_t step = next;
      std::int32_t t = 0;  // the task holding `step`
      while (t + 1 < count &&
             step >= tasks[t].tile_begin + tasks[t].m_pad / TiledTraits::kTile * tasks[t].tiles_n * tasks[t].chunks)
        ++t;
      const apsp::supernodal::TileChunks part =
          apsp::supernodal::stream_k_segment(step, tasks[t].tile_begin, tasks[t].chunks, end);
      task_index = t;
      tile = static_cast<int>(part.tile);
      chunk_begin = static_cast<int>(part.chunk_begin);
      chunk_end = static_cast<int>(part.chunk_end);
      shared = part.shared;
    }
    __syncthreads();                                        // (b): the state written; every thread has read `next`
    if (threadIdx.x == 0) next += chunk_end - chunk_begin;  // read again after (a), through tiled_tile's barriers
    const TiledTask<std::int32_t> task = tasks[task_index];
    tiled_tile<std::int32_t, true>(task, tile / task.tiles_n, tile % task.tiles_n, chunk_begin, chunk_end, shared,
                                   shared_words);
  }
}

}  // namespace apsp::cuda::kernels::supernodal
