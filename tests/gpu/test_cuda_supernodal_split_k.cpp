// Split-K for the supernodal tiled factor's panels and updates
// (testing::hooks.supernodal_split_k; src/supernodal/split_k.hpp decides,
// kernels/supernodal/tiled_update.cuh's tiled_products<int32, true> runs it:
// each piece of a product's depth mins its partial product into C with
// atomicMin). int32 min-plus is exact and min is order-free, so the split
// factor's rows must equal the unsplit one's bit for bit whatever order the
// pieces land in: grid (negative weights), geometric, R-MAT (zero weights),
// uniform (negative weights, no negative cycle) and two disjoint parts (half
// the pairs +inf) at n = 2048 - 4096, with the large class lowered (support/lookahead_cases.hpp's
// thresholds) so that the tiled path has fronts to split, the split forced
// (2, 3 and 8 pieces, pieces of one k-chunk allowed) and by shape, with and
// without predecessors; repeated solves equal; a small case for
// compute-sanitizer. The same for stream-K (testing::hooks.supernodal_stream_k,
// kernels/supernodal/stream_k.cuh: the launch's (tile, k-chunk) steps in
// equal shares over N blocks, tiles shared between blocks mined atomically),
// forced onto 7, 13 and 264 blocks (ranges that start and end inside tiles
// and across products) and by shape. Skips without a CUDA device.
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

// The geometric graph's tiled fronts with an update all have k <= 32 at
// these thresholds (one k-chunk: nothing to split; its pieces' rows are
// checked all the same); each other graph has 1-3 fronts of k > 32 with an
// update (counted on the host with the same analysis and merge).
std::vector<test::Case> cases() { return test::tiled_shape_cases(); }

// The default path (int32: the merged chains, the tiled factor) with the
// lowered large class, split-K at `split` (0 off, 1 by shape, N >= 2 N pieces).
// stream: stream-K at that value likewise (0 off).
SolveResult solve_split(const Graph& g, std::int64_t split, bool predecessors = false, std::int64_t stream = 0) {
  IntHook dense(cuda::testing::hooks.supernodal_dense_columns, test::kLookaheadDenseColumns);
  IntHook large(cuda::testing::hooks.supernodal_large_front, test::kLookaheadLargeFront);
  IntHook split_k(cuda::testing::hooks.supernodal_split_k, split);
  IntHook stream_k(cuda::testing::hooks.supernodal_stream_k, stream);
  return solve(g, test::on_gpu("supernodal", Precision::automatic, predecessors));
}

TEST(GpuSupernodalSplitK, TheHookIsOffByDefault) {
  EXPECT_EQ(cuda::testing::hooks.supernodal_split_k.load(), cuda::testing::kSplitKDefault);
  EXPECT_EQ(cuda::testing::kSplitKDefault, 0);
}

TEST(GpuSupernodalSplitK, SplitFactorMatchesTheUnsplitBitForBit) {
  SKIP_WITHOUT_GPU();
  for (const test::Case& c : cases()) {
    SCOPED_TRACE(c.name);
    const std::int64_t before_plain = cuda::testing::hooks.supernodal_split_k_launches;
    const SolveResult plain = solve_split(c.graph, 0);
    EXPECT_EQ(cuda::testing::hooks.supernodal_split_k_launches, before_plain) << "split with the hook off";
    for (const std::int64_t split : {std::int64_t{2}, std::int64_t{3}, std::int64_t{8}, std::int64_t{1}}) {
      SCOPED_TRACE("split-K " + std::to_string(split));
      const std::int64_t before = cuda::testing::hooks.supernodal_split_k_launches;
      const SolveResult split_rows = solve_split(c.graph, split);
      if (split >= 2 && c.name != "geometric_n4096")
        EXPECT_GT(cuda::testing::hooks.supernodal_split_k_launches, before) << "nothing was split";
      EXPECT_EQ(test::first_difference(plain.dist, split_rows.dist, c.graph.n), "");
    }
    const SolveResult with_pred = solve_split(c.graph, 3, true);
    EXPECT_EQ(test::first_difference(plain.dist, with_pred.dist, c.graph.n), "");
    EXPECT_EQ(test::check_predecessors(c.graph, with_pred.dist, with_pred.pred), "");
  }
}

TEST(GpuSupernodalSplitK, StreamKMatchesTheUnsplitBitForBit) {
  SKIP_WITHOUT_GPU();
  EXPECT_EQ(cuda::testing::hooks.supernodal_stream_k.load(), 0) << "stream-K is opt-in";
  for (const test::Case& c : cases()) {
    SCOPED_TRACE(c.name);
    const SolveResult plain = solve_split(c.graph, 0);
    for (const std::int64_t blocks : {std::int64_t{7}, std::int64_t{13}, std::int64_t{264}, std::int64_t{1}}) {
      SCOPED_TRACE("stream-K " + std::to_string(blocks));
      const std::int64_t before = cuda::testing::hooks.supernodal_stream_k_launches;
      const SolveResult streamed = solve_split(c.graph, 0, false, blocks);
      // Every tiled launch (the geometric graph's too: one chunk a step is enough).
      if (blocks >= 2) EXPECT_GT(cuda::testing::hooks.supernodal_stream_k_launches, before) << "no stream-K launch";
      EXPECT_EQ(test::first_difference(plain.dist, streamed.dist, c.graph.n), "");
    }
    // With split-K by shape as well (stream-K first where both take a launch), and predecessors.
    const SolveResult both = solve_split(c.graph, 1, true, 13);
    EXPECT_EQ(test::first_difference(plain.dist, both.dist, c.graph.n), "");
    EXPECT_EQ(test::check_predecessors(c.graph, both.dist, both.pred), "");
  }
}

// The unsplit default path (not lowered) and the CPU solver, on the graph with +inf pairs.
TEST(GpuSupernodalSplitK, MatchesTheDefaultPathAndTheCpuSolver) {
  SKIP_WITHOUT_GPU();
  const test::Case c = cases()[4];
  const SolveResult split_rows = solve_split(c.graph, 2);
  EXPECT_EQ(test::first_difference(solve(c.graph, test::on_gpu("supernodal")).dist, split_rows.dist, c.graph.n), "");
  if (!test::cpu_algorithm_available("supernodal")) GTEST_SKIP() << "no CPU supernodal in this build";
  SolveOptions cpu;
  cpu.backend = Backend::cpu;
  cpu.algorithm = "supernodal";
  EXPECT_EQ(test::first_difference(solve(c.graph, cpu).dist, split_rows.dist, c.graph.n), "");
}

// The pieces' atomics land in a different order each run: the rows must not change.
TEST(GpuSupernodalSplitK, RepeatedSolvesAreIdentical) {
  SKIP_WITHOUT_GPU();
  const test::Case c = cases()[3];
  const SolveResult first = solve_split(c.graph, 8);
  for (int rep = 0; rep < 3; ++rep) {
    SCOPED_TRACE("repeat " + std::to_string(rep));
    EXPECT_EQ(test::first_difference(first.dist, solve_split(c.graph, 8).dist, c.graph.n), "");
    EXPECT_EQ(test::first_difference(first.dist, solve_split(c.graph, 0, false, 13).dist, c.graph.n), "");
  }
}

// float32 rows keep the whole launches (split-K is int32's): the hook changes nothing.
TEST(GpuSupernodalSplitK, Float32RowsIgnoreTheHook) {
  SKIP_WITHOUT_GPU();
  const test::Case c = cases()[2];
  GraphF32 g;  // the same weights, exact in float
  g.n = c.graph.n;
  for (const Edge& e : c.graph.edges) g.edges.push_back({e.src, e.dst, static_cast<float>(e.w)});
  cuda::testing::hooks.supernodal_tiled_factor = true;
  SolveResultF32 plain, split_rows;
  std::int64_t launches = 0;
  try {
    IntHook dense(cuda::testing::hooks.supernodal_dense_columns, test::kLookaheadDenseColumns);
    IntHook large(cuda::testing::hooks.supernodal_large_front, test::kLookaheadLargeFront);
    plain = solve(g, test::on_gpu("supernodal"));
    IntHook split_k(cuda::testing::hooks.supernodal_split_k, 2);
    IntHook stream_k(cuda::testing::hooks.supernodal_stream_k, 13);
    const std::int64_t before = cuda::testing::hooks.supernodal_split_k_launches;
    const std::int64_t before_stream = cuda::testing::hooks.supernodal_stream_k_launches;
    split_rows = solve(g, test::on_gpu("supernodal"));
    launches = cuda::testing::hooks.supernodal_split_k_launches - before +
               (cuda::testing::hooks.supernodal_stream_k_launches - before_stream);
  } catch (...) {
    cuda::testing::hooks.supernodal_tiled_factor = false;
    throw;
  }
  cuda::testing::hooks.supernodal_tiled_factor = false;
  EXPECT_EQ(launches, 0);
  EXPECT_EQ(plain.dist, split_rows.dist);
}

// A small case for compute-sanitizer (memcheck: the pieces' blocks stay
// inside their tiles and operands), against the exact reference.
TEST(GpuSupernodalSplitK, SmallCaseForSanitizers) {
  SKIP_WITHOUT_GPU();
  const Graph g = test::lookahead_sanitizer_case().graph;
  const std::vector<dist_t> reference = test::reference_distances(g);
  const std::int64_t before = cuda::testing::hooks.supernodal_split_k_launches;
  const SolveResult r = solve_split(g, 3, true);
  EXPECT_GT(cuda::testing::hooks.supernodal_split_k_launches, before) << "nothing was split";
  EXPECT_EQ(test::first_difference(reference, r.dist, g.n), "");
  EXPECT_EQ(test::check_predecessors(g, r.dist, r.pred), "");
  const std::int64_t before_stream = cuda::testing::hooks.supernodal_stream_k_launches;
  const SolveResult streamed = solve_split(g, 0, false, 13);
  EXPECT_GT(cuda::testing::hooks.supernodal_stream_k_launches, before_stream) << "no stream-K launch";
  EXPECT_EQ(test::first_difference(reference, streamed.dist, g.n), "");
}

}  // namespace
}  // namespace apsp
