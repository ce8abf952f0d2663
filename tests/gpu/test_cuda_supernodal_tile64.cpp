// The supernodal tiled factor's 64 x 64 C tile (testing::hooks.supernodal_tile64;
// src/supernodal/tile_choice.hpp decides per launch, kernels/supernodal/
// tiled_update.cuh's tiled_products<D, false, Tiled64Traits> runs it). A
// product's entries are the same minima over the same k-chunks in the same
// order whatever tile holds them, so the 64-tile factor's rows must equal
// the 128-tile ones bit for bit, int32 and float32 (each entry's fold over
// k is the same sequence of adds and mins): grid (negative weights),
// geometric, R-MAT (zero weights), uniform (negative weights) at n = 4096
// and two disjoint parts (+inf pairs), with the large class lowered
// (support/lookahead_cases.hpp's thresholds) so that the tiled path has
// fronts; the panels alone, every launch and by shape; with predecessors;
// repeated solves; a small case for compute-sanitizer. Skips without a CUDA device.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "apsp/apsp.hpp"
#include "apsp/cuda.hpp"
#include "cuda/testing.hpp"
#include "gpu_support.hpp"
#include "support/cases.hpp"
#include "support/lookahead_cases.hpp"

namespace apsp {
namespace {

using test::IntHook;

// The default path (int32: the merged chains, the tiled factor) with the
// lowered large class, the 64 tile at `tile64` (0 off, 1 by shape, 2 the
// panels, 3 every tiled launch).
template <class G>
auto solve_tile64(const G& g, std::int64_t tile64, bool predecessors = false) {
  IntHook dense(cuda::testing::hooks.supernodal_dense_columns, test::kLookaheadDenseColumns);
  IntHook large(cuda::testing::hooks.supernodal_large_front, test::kLookaheadLargeFront);
  IntHook tile(cuda::testing::hooks.supernodal_tile64, tile64);
  return solve(g, test::on_gpu("supernodal", Precision::automatic, predecessors));
}

TEST(GpuSupernodalTile64, TheHookIsOffByDefault) { EXPECT_EQ(cuda::testing::hooks.supernodal_tile64.load(), 0); }

TEST(GpuSupernodalTile64, Tile64FactorMatchesThe128TileBitForBit) {
  SKIP_WITHOUT_GPU();
  for (const test::Case& c : test::tiled_shape_cases()) {
    SCOPED_TRACE(c.name);
    const std::int64_t before_plain = cuda::testing::hooks.supernodal_tile64_launches;
    const SolveResult plain = solve_tile64(c.graph, 0);
    EXPECT_EQ(cuda::testing::hooks.supernodal_tile64_launches, before_plain) << "the 64 tile with the hook off";
    for (const std::int64_t tile64 : {std::int64_t{2}, std::int64_t{3}, std::int64_t{1}}) {
      SCOPED_TRACE("tile64 " + std::to_string(tile64));
      const std::int64_t before = cuda::testing::hooks.supernodal_tile64_launches;
      const SolveResult tiled = solve_tile64(c.graph, tile64);
      // Forced, every graph's tiled launches take it (n = 4096's few tiles: by shape too).
      EXPECT_GT(cuda::testing::hooks.supernodal_tile64_launches, before) << "no launch on the 64 tile";
      EXPECT_EQ(test::first_difference(plain.dist, tiled.dist, c.graph.n), "");
    }
    const SolveResult with_pred = solve_tile64(c.graph, 3, true);
    EXPECT_EQ(test::first_difference(plain.dist, with_pred.dist, c.graph.n), "");
    EXPECT_EQ(test::check_predecessors(c.graph, with_pred.dist, with_pred.pred), "");
  }
}

// Against the default path (not lowered) and the CPU solver, on the graph with +inf pairs.
TEST(GpuSupernodalTile64, MatchesTheDefaultPathAndTheCpuSolver) {
  SKIP_WITHOUT_GPU();
  const test::Case c = test::tiled_shape_cases()[4];
  const SolveResult tiled = solve_tile64(c.graph, 3);
  EXPECT_EQ(test::first_difference(solve(c.graph, test::on_gpu("supernodal")).dist, tiled.dist, c.graph.n), "");
  if (!test::cpu_algorithm_available("supernodal")) GTEST_SKIP() << "no CPU supernodal in this build";
  SolveOptions cpu;
  cpu.backend = Backend::cpu;
  cpu.algorithm = "supernodal";
  EXPECT_EQ(test::first_difference(solve(c.graph, cpu).dist, tiled.dist, c.graph.n), "");
}

TEST(GpuSupernodalTile64, RepeatedSolvesAreIdentical) {
  SKIP_WITHOUT_GPU();
  const test::Case c = test::tiled_shape_cases()[3];
  const SolveResult first = solve_tile64(c.graph, 3);
  for (int rep = 0; rep < 2; ++rep) {
    SCOPED_TRACE("repeat " + std::to_string(rep));
    EXPECT_EQ(test::first_difference(first.dist, solve_tile64(c.graph, 3).dist, c.graph.n), "");
  }
}

// float32 rows on the tiled path (its hook): the 64 tile's rows are the 128
// tile's bit for bit (the weights are small integers, exact in float, so
// the comparison also holds the rows to int32's).
TEST(GpuSupernodalTile64, Float32RowsMatchThe128Tile) {
  SKIP_WITHOUT_GPU();
  const test::Case c = test::tiled_shape_cases()[2];
  GraphF32 g;
  g.n = c.graph.n;
  for (const Edge& e : c.graph.edges) g.edges.push_back({e.src, e.dst, static_cast<float>(e.w)});
  test::BoolHook tiled_path(cuda::testing::hooks.supernodal_tiled_factor, true);
  const SolveResultF32 plain = solve_tile64(g, 0);
  const std::int64_t before = cuda::testing::hooks.supernodal_tile64_launches;
  const SolveResultF32 tiled = solve_tile64(g, 3);
  const std::int64_t launches = cuda::testing::hooks.supernodal_tile64_launches - before;
  EXPECT_GT(launches, 0) << "float32 rows took no launch on the 64 tile";
  EXPECT_EQ(plain.dist, tiled.dist);
}

// A small case for compute-sanitizer (memcheck: the 64 tile's blocks stay
// inside their tiles and operands), against the exact reference.
TEST(GpuSupernodalTile64, SmallCaseForSanitizers) {
  SKIP_WITHOUT_GPU();
  const Graph g = test::lookahead_sanitizer_case().graph;
  const std::vector<dist_t> reference = test::reference_distances(g);
  const std::int64_t before = cuda::testing::hooks.supernodal_tile64_launches;
  const SolveResult r = solve_tile64(g, 3, true);
  EXPECT_GT(cuda::testing::hooks.supernodal_tile64_launches, before) << "no launch on the 64 tile";
  EXPECT_EQ(test::first_difference(reference, r.dist, g.n), "");
  EXPECT_EQ(test::check_predecessors(g, r.dist, r.pred), "");
}

}  // namespace
}  // namespace apsp
