// Private to src/distributed: the CPU engine (fw-blocked's tile kernel on every rank).
#pragma once

#include <cstdint>
#include <memory>

#include "apsp/graph.hpp"
#include "distributed/engine.hpp"
#include "distributed/grid.hpp"

namespace apsp::dist {

struct CpuEngineOptions {
  bool int32_arithmetic = true;  // fits_int32_arithmetic, as fw-blocked decides; else int64
  bool predecessors = false;
  int threads = 1;        // > 0
  bool lookahead = true;  // updates on a worker thread, panel steps here
};

// b, the tile edge of the CPU engine.
std::int64_t cpu_tile();

// This rank's tiles of `normalized` (only the edges inside them are read).
// ResourceError when they cannot be allocated.
std::unique_ptr<TileEngine> make_cpu_engine(const Graph& normalized, const ProcessGrid& grid,
                                            const CpuEngineOptions& options);

}  // namespace apsp::dist
