// Private to the CPU backend and the distributed solver (src/distributed): the tile
// steps of fw-blocked (src/cpu/floyd_warshall.cpp), so that a solver which
// owns only some tiles runs the same kernels on them.
#pragma once

#include <cstdint>

#include "apsp/graph.hpp"

namespace apsp::cpu::detail {

constexpr std::int64_t kTile = 64;
constexpr std::int64_t kTileCells = kTile * kTile;

// kTile x kTile blocks, row-major and contiguous (row i starts at i * kTile).
// With predecessors, `p` is the predecessor block.
template <class D>
struct Block {
  D* d;
  vertex_t* p;
};

enum class Step { diagonal, row_panel, column_panel, update };

// One tile step of a round: `target` is updated; `left` and `right` are the
// finished tiles it is relaxed through (the diagonal tile for the panels).
// A diagonal entry below `negative_below` is a negative cycle: 0 for integer
// distances, minus the rounding tolerance for real ones.
template <class D>
struct StepArgs {
  Step step;
  Block<D> target, left, right;
  D negative_below = 0;
};

// Runs one step. Returns, for the diagonal step, the pivot (within the tile)
// whose step made a diagonal entry fall below negative_below, else -1.
template <class D>
using StepFunction = std::int64_t (*)(const StepArgs<D>&);

// The step compiled for the best instruction set this CPU has (AVX-512, AVX2,
// baseline), or the one APSP_CPU_ISA names (UsageError if unsupported).
// Instantiated for D = int32, int64, float and double, with and without
// predecessors.
template <class D, bool kPred>
StepFunction<D> tile_step();

}  // namespace apsp::cpu::detail
