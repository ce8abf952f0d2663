// Launch shapes shared by every launcher: grids for grid-stride loops and
// grids checked against CUDA's limits. Host-only.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <string>

#include "apsp/error.hpp"
#include "core/ceil_div.hpp"

namespace apsp::cuda {

// A grid size for grid-stride loops over `work` items, at most 65536 blocks.
inline int grid_for(std::int64_t work, int threads) {
  const std::int64_t blocks = ceil_div(work, std::int64_t{threads});
  return static_cast<int>(blocks < 1 ? 1 : blocks > 65536 ? 65536 : blocks);
}

// A grid of blocks_x x blocks_y blocks; throws ResourceError beyond CUDA's
// grid limits (2^31 - 1 in x, 65535 in y) instead of failing the launch.
inline dim3 grid_of(std::int64_t blocks_x, std::int64_t blocks_y, const char* algorithm) {
  if (blocks_x > 2147483647 || blocks_y > 65535)
    throw ResourceError(std::string(algorithm) + ": a grid of " + std::to_string(blocks_x) + " x " +
                        std::to_string(blocks_y) + " blocks exceeds CUDA's limits");
  return dim3(static_cast<unsigned>(blocks_x < 1 ? 1 : blocks_x), static_cast<unsigned>(blocks_y < 1 ? 1 : blocks_y));
}

}  // namespace apsp::cuda
