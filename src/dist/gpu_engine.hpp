// Private to src/dist: the GPU engine (the production FW kernels of
// src/cuda/kernels/fw_production.cuh on one rank's tiles). Host-safe; builds
// without CUDA get a make_gpu_engine that refuses (src/no_cuda).
#pragma once

#include <cstdint>
#include <memory>

#include "apsp/graph.hpp"
#include "dist/engine.hpp"
#include "dist/grid.hpp"

namespace apsp::dist {

struct GpuEngineOptions {
  int device = 0;         // this rank's CUDA device
  bool lookahead = true;  // the rest of round k on its own stream while round k+1's panels are formed
};

// b, the tile edge of the GPU engine (the production kernels' tile).
std::int64_t gpu_tile();

// Reweights `normalized` with Johnson potentials when it has negative
// weights (every rank computes them: as fast as one rank computing and
// broadcasting, docs/scaling.md), builds this rank's tiles and uploads them.
// Throws NegativeCycleError, OverflowError (a reweighted weight beyond
// int32), ResourceError (device memory) or UsageError (no such device).
std::unique_ptr<TileEngine> make_gpu_engine(const Graph& normalized, const ProcessGrid& grid,
                                            const GpuEngineOptions& options);

}  // namespace apsp::dist
