// Private to src/distributed: the CPU engine (fw-blocked's tile kernel on every rank).
#pragma once

#include <cstdint>
#include <memory>

#include "apsp/graph.hpp"
#include "distributed/engine.hpp"
#include "distributed/grid.hpp"

namespace apsp::dist {

struct CpuEngineOptions {
  // Integer weights: fits_int32_arithmetic, as fw-blocked decides; else
  // int64. Real weights compute in their own type (unused).
  bool int32_arithmetic = true;
  // Real weights: how far below 0 rounding alone may push a diagonal entry
  // (core::distance_tolerance of the weight type over max|w|, as fw-blocked's
  // negative_cycle_threshold); also the predecessor repair's slack. 0 for int32.
  double negative_tolerance = 0;
  bool predecessors = false;
  int threads = 1;        // > 0
  bool lookahead = true;  // updates on a worker thread, panel steps here
  // > 0 (a multiple of cpu_tile()): tiles of this edge, each stepped as
  // fw-ooc steps its super-tiles (out of core per rank, the CPU's model of
  // it); 0: fw-blocked's tiles of cpu_tile().
  std::int64_t super_width = 0;
};

// b, the tile edge of the CPU engine.
std::int64_t cpu_tile();

// This rank's tiles of `normalized` (only the edges inside them are read),
// in the weight type's own arithmetic for float and double (rows delivered
// in that type), int32 or int64 for int32 weights (rows delivered in int32).
// ResourceError when they cannot be allocated.
std::unique_ptr<TileEngine> make_cpu_engine(const Graph& normalized, const ProcessGrid& grid,
                                            const CpuEngineOptions& options);
std::unique_ptr<TileEngine> make_cpu_engine(const GraphF32& normalized, const ProcessGrid& grid,
                                            const CpuEngineOptions& options);
std::unique_ptr<TileEngine> make_cpu_engine(const GraphF64& normalized, const ProcessGrid& grid,
                                            const CpuEngineOptions& options);

}  // namespace apsp::dist
