// The supernodal factor's look-ahead along chains of large fronts
// (testing::hooks.supernodal_lookahead; src/cuda/supernodal_solver.cu,
// factor(): a front's pivot-block update and its parent's closure on one
// stream, its whole s x s update beside them on another). At n = 4096 the
// large class is lowered (testing::hooks.supernodal_large_front, dense fronts
// from 8 columns) so that chains occur on every family (the CPU test
// SupernodalLookahead.LevelsLookAheadExactlyAlongChainsOfLargeFronts checks
// that premise on the same graphs); int32 rows must equal the default path's
// bit for bit (exact min-plus), with and without predecessors and the
// persistent rounds, and repeated solves must agree (racecheck does not see
// races between streams). At this size the grid's and the geometric graph's
// look-ahead fronts have s < 128 (the whole update is its pivot tiles, the
// second stream runs only the extend-adds outside the pivot blocks); R-MAT's
// and the uniform graph's also run the rest of their updates beside (s up to
// 2425 at r = 128-512). Skips without a CUDA device.
#include <gtest/gtest.h>

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "apsp/apsp.hpp"
#include "apsp/cuda.hpp"
#include "cuda/persistent_rounds.hpp"
#include "cuda/testing.hpp"
#include "gpu_support.hpp"
#include "support/cases.hpp"
#include "support/lookahead_cases.hpp"

namespace apsp {
namespace {

using test::IntHook;

// The thresholds and graphs the CPU test checks for chains
// (support/lookahead_cases.hpp).
constexpr std::int64_t kDenseColumns = test::kLookaheadDenseColumns;
constexpr std::int64_t kLargeFront = test::kLookaheadLargeFront;

std::vector<test::Case> cases() { return test::lookahead_cases(); }

// The default path (int32: the merged chains, the tiled factor) with the
// lowered large class, with or without the look-ahead.
SolveResult solve_with(const Graph& g, bool lookahead, bool predecessors) {
  IntHook dense(cuda::testing::hooks.supernodal_dense_columns, kDenseColumns);
  IntHook large(cuda::testing::hooks.supernodal_large_front, kLargeFront);
  cuda::testing::hooks.supernodal_lookahead = lookahead;
  SolveResult r;
  try {
    r = solve(g, test::on_gpu("supernodal", Precision::automatic, predecessors));
  } catch (...) {
    cuda::testing::hooks.supernodal_lookahead = false;
    throw;
  }
  cuda::testing::hooks.supernodal_lookahead = false;
  return r;
}

bool persistent_rounds_here() { return cuda::persistent_rounds_fit(cuda::kPersistentRoundsMaxPad); }

TEST(GpuSupernodalLookahead, MatchesTheDefaultPathBitForBit) {
  SKIP_WITHOUT_GPU();
  for (const test::Case& c : cases()) {
    SCOPED_TRACE(c.name);
    const SolveResult plain = solve(c.graph, test::on_gpu("supernodal"));
    for (const int tile : {0, 64}) {
      if (tile != 0 && !persistent_rounds_here()) continue;
      SCOPED_TRACE("persistent rounds tile " + std::to_string(tile));
      IntHook persistent(cuda::testing::hooks.supernodal_persistent_rounds, tile);
      const SolveResult lowered = solve_with(c.graph, false, false);
      EXPECT_EQ(test::first_difference(plain.dist, lowered.dist, c.graph.n), "");
      const std::int64_t before = cuda::testing::hooks.supernodal_lookahead_levels;
      const SolveResult ahead = solve_with(c.graph, true, false);
      EXPECT_GT(cuda::testing::hooks.supernodal_lookahead_levels, before) << "no level looked ahead";
      EXPECT_EQ(test::first_difference(plain.dist, ahead.dist, c.graph.n), "");
      const SolveResult with_pred = solve_with(c.graph, true, true);
      EXPECT_EQ(test::first_difference(plain.dist, with_pred.dist, c.graph.n), "");
      EXPECT_EQ(test::check_predecessors(c.graph, with_pred.dist, with_pred.pred), "");
    }
  }
}

// One exact reference besides the default path: the CPU solver on R-MAT.
TEST(GpuSupernodalLookahead, MatchesTheCpuSolver) {
  SKIP_WITHOUT_GPU();
  if (!test::cpu_algorithm_available("supernodal")) GTEST_SKIP() << "no CPU supernodal in this build";
  const test::Case c = cases()[2];
  SolveOptions cpu;
  cpu.backend = Backend::cpu;
  cpu.algorithm = "supernodal";
  EXPECT_EQ(test::first_difference(solve(c.graph, cpu).dist, solve_with(c.graph, true, false).dist, c.graph.n), "");
}

// Two streams: compute-sanitizer's racecheck sees shared memory only, not
// one stream's writes racing another's. A race between them would show as
// results that vary from run to run: three solves, each equal to the first,
// on the graph with the most look-ahead levels, with fw's launches and with
// the persistent rounds (whose cooperative launch shares the device with the
// updates beside it).
TEST(GpuSupernodalLookahead, RepeatedSolvesAreIdentical) {
  SKIP_WITHOUT_GPU();
  const test::Case c = cases()[3];
  for (const int tile : {0, 64}) {
    if (tile != 0 && !persistent_rounds_here()) continue;
    SCOPED_TRACE("persistent rounds tile " + std::to_string(tile));
    IntHook persistent(cuda::testing::hooks.supernodal_persistent_rounds, tile);
    const SolveResult first = solve_with(c.graph, true, false);
    for (int rep = 0; rep < 3; ++rep) {
      SCOPED_TRACE("repeat " + std::to_string(rep));
      EXPECT_EQ(test::first_difference(first.dist, solve_with(c.graph, true, false).dist, c.graph.n), "");
    }
  }
}

// The profile names the look-ahead's passes: the pivot-block updates and the
// waits on the critical path (dense passes of the large class), the whole
// updates beside it (not a dense pass: the bench's share leaves them out).
TEST(GpuSupernodalLookahead, ProfileRecordsItsPasses) {
  SKIP_WITHOUT_GPU();
  const test::Case c = cases()[3];
  std::vector<cuda::testing::SupernodalLaunch> launches;
  cuda::testing::hooks.supernodal_profile = &launches;
  SolveResult r;
  try {
    r = solve_with(c.graph, true, false);
  } catch (...) {
    cuda::testing::hooks.supernodal_profile = nullptr;
    throw;
  }
  cuda::testing::hooks.supernodal_profile = nullptr;
  std::set<std::string> passes;
  for (const auto& l : launches) {
    passes.insert(l.pass);
    EXPECT_GE(l.ms, 0.0) << l.pass;
  }
  for (const char* pass :
       {"dense tiled pivot update", "beside tiled update", "dense lookahead wait", "beside extend-add"})
    EXPECT_EQ(passes.count(pass), 1u) << pass;
  EXPECT_EQ(test::first_difference(solve(c.graph, test::on_gpu("supernodal")).dist, r.dist, c.graph.n), "");
}

// A small case for compute-sanitizer (memcheck: the pivot-block tiles and the
// split extend-adds stay inside their fronts), against the exact reference.
TEST(GpuSupernodalLookahead, SmallCaseForSanitizers) {
  SKIP_WITHOUT_GPU();
  const Graph g = test::lookahead_sanitizer_case().graph;
  const std::vector<dist_t> reference = test::reference_distances(g);
  const std::int64_t before = cuda::testing::hooks.supernodal_lookahead_levels;
  const SolveResult r = solve_with(g, true, true);
  EXPECT_GT(cuda::testing::hooks.supernodal_lookahead_levels, before) << "no level looked ahead";
  EXPECT_EQ(test::first_difference(reference, r.dist, g.n), "");
  EXPECT_EQ(test::check_predecessors(g, r.dist, r.pred), "");
}

}  // namespace
}  // namespace apsp
