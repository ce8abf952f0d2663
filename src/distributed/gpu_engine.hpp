// Private to src/distributed: the GPU engine (the production FW kernels of
// src/cuda/kernels/fw_production.cuh on one rank's tiles). Host-safe; builds
// without CUDA get a make_gpu_engine that refuses (src/no_cuda).
#pragma once

#include <cstdint>
#include <memory>

#include "apsp/graph.hpp"
#include "distributed/engine.hpp"
#include "distributed/grid.hpp"

namespace apsp::dist {

struct GpuEngineOptions {
  int device = 0;         // this rank's CUDA device
  bool lookahead = true;  // the rest of round k on its own stream while round k+1's panels are formed
  // int16: an attempt (UsageError when the largest reweighted weight leaves
  // no room); automatic: int16 when the one-GPU rule would try it; int32.
  Precision precision = Precision::automatic;
  bool predecessors = false;  // delivered rows carry predecessors (tight-edge trees)
};

// Makes CUDA device `device` current on this thread and returns it;
// UsageError when there is no such device.
int select_device(int device);

// Free device memory of CUDA device `device` (made current on this thread):
// the per-rank memory choice's measure (distributed/memory_plan.hpp).
// UsageError when there is no such device.
std::uint64_t gpu_free_bytes(int device);

// b, the tile edge of the GPU engine for `weights`: the production
// kernels' tile (128) for int32 and float32, the float64 kernels' (64).
std::int64_t gpu_tile(WeightType weights);

// Reweights `normalized` with Johnson potentials when it has negative
// weights (every rank computes them: as fast as one rank computing and
// broadcasting, docs/scaling.md) and builds this rank's tiles on its device,
// in int16 when options.precision asks for or allows the attempt.
// Throws NegativeCycleError, OverflowError (a reweighted weight beyond
// int32), ResourceError (device memory) or UsageError (no such device,
// int16 impossible).
std::unique_ptr<TileEngine> make_gpu_engine(const Graph& normalized, const ProcessGrid& grid,
                                            const GpuEngineOptions& options);
// float32 and float64 weights as they are (no reweighting;
// options.precision unused): NegativeCycleError before the tiles are built
// when the graph has one (a Bellman-Ford on every rank, as on one GPU),
// ResourceError, UsageError. float64 runs on the one-GPU float64 kernels'
// tiles (gpu_tile(WeightType::float64)).
std::unique_ptr<TileEngine> make_gpu_engine(const GraphF32& normalized, const ProcessGrid& grid,
                                            const GpuEngineOptions& options);
std::unique_ptr<TileEngine> make_gpu_engine(const GraphF64& normalized, const ProcessGrid& grid,
                                            const GpuEngineOptions& options);

// The int32 engine of the same problem after an int16 attempt (from
// make_gpu_engine) whose range certificate failed: frees the attempt first,
// keeps its reweighted edges, builds the tiles again.
std::unique_ptr<TileEngine> widen_gpu_engine(std::unique_ptr<TileEngine> attempt, const ProcessGrid& grid,
                                             const GpuEngineOptions& options);

// Out of core per rank (src/distributed/gpu_ooc_engine.cu): this rank's
// tiles of `grid` (in tiles of `width`, the agreed super width: a multiple
// of 128) in page-locked host memory, stepped through the device with
// fw_out_of_core's ring and kernels (cuda::SuperTileEngine). int32 weights
// only (Johnson-reweighted as in core); an int16 attempt where
// options.precision asks for or allows it and `width` is a multiple of 256.
// Throws as make_gpu_engine, ResourceError when the device buffers do not
// fit, UsageError for an int16 that cannot be.
std::unique_ptr<TileEngine> make_gpu_ooc_engine(const Graph& normalized, const ProcessGrid& grid, std::int64_t width,
                                                const GpuEngineOptions& options);
// The int32 engine after an int16 attempt of make_gpu_ooc_engine whose
// range certificate failed (the attempt's buffers freed first).
std::unique_ptr<TileEngine> widen_gpu_ooc_engine(std::unique_ptr<TileEngine> attempt, const ProcessGrid& grid,
                                                 std::int64_t width, const GpuEngineOptions& options);

}  // namespace apsp::dist
