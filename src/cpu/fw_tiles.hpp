// Private to the CPU backend and the distributed solver (src/distributed): the tile
// steps of fw-blocked (src/cpu/floyd_warshall.cpp), so that a solver which
// owns only some tiles runs the same kernels on them.
#pragma once

#include <cstdint>

#include "apsp/error.hpp"
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

// Round r of fw-blocked over tiles first .. first + count - 1 of each
// dimension (r among them): the diagonal step, then the panels and the
// updates in parallel. Throws NegativeCycleError naming the pivot whose
// diagonal step made a diagonal entry fall below negative_below.
template <class D, class BlockAt>
void blocked_round(StepFunction<D> step, const BlockAt& block, std::int64_t first, std::int64_t count, std::int64_t r,
                   D negative_below, int threads) {
  const Block<D> diag = block(r, r);
  const std::int64_t pivot = step(StepArgs<D>{Step::diagonal, diag, diag, diag, negative_below});
  if (pivot >= 0) throw NegativeCycleError(r * kTile + pivot);
  const std::int64_t others = count - 1, own = r - first;
#pragma omp parallel num_threads(threads)
  {
#pragma omp for schedule(static)
    for (std::int64_t x = 0; x < 2 * others; ++x) {
      const std::int64_t c = first + (x / 2 < own ? x / 2 : x / 2 + 1);
      if (x % 2 == 0)
        step(StepArgs<D>{Step::row_panel, block(r, c), diag, diag});
      else
        step(StepArgs<D>{Step::column_panel, block(c, r), diag, diag});
    }
#pragma omp for schedule(static)
    for (std::int64_t x = 0; x < others * others; ++x) {
      const std::int64_t a = first + (x / others < own ? x / others : x / others + 1);
      const std::int64_t c = first + (x % others < own ? x % others : x % others + 1);
      step(StepArgs<D>{Step::update, block(a, c), block(a, r), block(r, c)});
    }
  }
}

}  // namespace apsp::cpu::detail
