// fw on real-valued weights (float32, float64) on the GPU against the
// independent long-double reference of tests/support, on the standard and
// tile cases (negative and zero weights, duplicates, self-loops, unreachable
// parts), with predecessors as trees, negative cycles, rounding near zero,
// verify, and the GPU algorithms that refuse real weights. Skips cleanly
// without a CUDA device. *Sanitize* tests are the small runs that
// scripts/gpu-check --sanitize repeats under compute-sanitizer.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "apsp/cuda.hpp"
#include "apsp/error.hpp"
#include "apsp/solver.hpp"
#include "apsp/sinks.hpp"
#include "apsp/verify.hpp"
#include "gpu_support.hpp"
#include "support/cases.hpp"

namespace apsp {
namespace {

SolveOptions gpu_fw(bool predecessors, bool verify = false) {
  SolveOptions o = test::on_gpu("fw", Precision::automatic, predecessors);
  o.verify = verify;
  return o;
}

template <class W>
void expect_matches_reference(const test::Case& c, bool predecessors, bool verify = false) {
  test::expect_real_matches_reference(test::real_case<W>(c), gpu_fw(predecessors, verify));
}

std::vector<test::Case> standard_and_tile_cases() {
  std::vector<test::Case> cases = test::standard_cases();
  for (test::Case& c : test::tile_cases()) cases.push_back(std::move(c));
  return cases;
}

TEST(GpuReal, Float32MatchesReference) {
  SKIP_WITHOUT_GPU();
  for (const test::Case& c : standard_and_tile_cases()) {
    SCOPED_TRACE(c.name);
    expect_matches_reference<float>(c, false);
  }
}

TEST(GpuReal, Float64MatchesReference) {
  SKIP_WITHOUT_GPU();
  for (const test::Case& c : standard_and_tile_cases()) {
    SCOPED_TRACE(c.name);
    expect_matches_reference<double>(c, false);
  }
}

TEST(GpuReal, PredecessorsFormShortestPathTrees) {
  SKIP_WITHOUT_GPU();
  for (const test::Case& c : standard_and_tile_cases()) {
    if (c.graph.n > 300) continue;  // the reference and the chain walk are cubic on the host
    SCOPED_TRACE(c.name);
    expect_matches_reference<float>(c, true);
    expect_matches_reference<double>(c, true);
  }
}

TEST(GpuReal, VerifyAcceptsTheResult) {
  SKIP_WITHOUT_GPU();
  for (const test::Case& c : test::standard_cases()) {
    if (c.graph.n > 300) continue;
    SCOPED_TRACE(c.name);
    expect_matches_reference<float>(c, true, /*verify=*/true);
    expect_matches_reference<double>(c, false, /*verify=*/true);
  }
}

TEST(GpuReal, NegativeCycleIsReported) {
  SKIP_WITHOUT_GPU();
  for (const std::int64_t n : {5, 70, 131, 300}) test::expect_negative_cycle_reported(n, "fw");
}

// A cycle of -1e-10 among weights of 1e3 is reported at n = 3 and n = 1000
// (test::check_small_negative_cycles_reported), by fw and auto.
TEST(GpuReal, SmallNegativeCycleIsReportedWhateverN) {
  SKIP_WITHOUT_GPU();
  EXPECT_EQ(test::check_small_negative_cycles_reported(gpu_fw(false)), "");
  EXPECT_EQ(test::check_small_negative_cycles_reported(gpu_fw(true)), "");
  SolveOptions automatic;
  automatic.backend = Backend::cuda;
  EXPECT_EQ(test::check_small_negative_cycles_reported(automatic), "");
}

// The diagonal stays within the tolerance, is no negative cycle, and comes out as 0.
TEST(GpuReal, RoundingNearZeroCycleIsNoNegativeCycleSanitize) {
  SKIP_WITHOUT_GPU();
  test::expect_rounding_near_zero_cycle_is_no_negative_cycle("fw");
}

TEST(GpuReal, ZeroWeightCyclesGivePredecessorTreesSanitize) {
  SKIP_WITHOUT_GPU();
  for (const std::int64_t n : {3, 128, 129}) test::expect_zero_weight_cycles_give_trees(n, "fw");
}

TEST(GpuReal, EmptyAndSingleVertexGraphs) {
  SKIP_WITHOUT_GPU();
  GraphF32 empty;
  EXPECT_TRUE(solve(empty, gpu_fw(true)).dist.empty());
  GraphF64 one;
  one.n = 1;
  const SolveResultF64 r = solve(one, gpu_fw(true));
  ASSERT_EQ(r.dist.size(), 1u);
  EXPECT_EQ(r.dist[0], 0.0);
  EXPECT_EQ(r.pred[0], -1);
}

// Rows stream into a file sink as float32 / float64 .npy.
TEST(GpuReal, RowsReachFileSinksInTheirType) {
  SKIP_WITHOUT_GPU();
  test::Case c = test::standard_cases().front();
  for (const test::Case& candidate : test::standard_cases())
    if (candidate.graph.n >= 50) {
      c = candidate;
      break;
    }
  ASSERT_GE(c.graph.n, 50);
  const GraphF64 g = test::with_real_weights(c.graph);
  const SolveResultF64 in_memory = solve(g, gpu_fw(false));
  NullSink nothing;
  const SolveSummary s = solve(g, gpu_fw(false), nothing);
  EXPECT_EQ(s.weights, WeightType::float64);
  EXPECT_GT(s.times.seconds("device-to-host"), 0);
  EXPECT_EQ(in_memory.dist.size(), static_cast<std::size_t>(c.graph.n * c.graph.n));
}

// "auto" runs what the GPU cost model picks (fw or sssp, both take real
// weights) and says so; the teaching kernels refuse real weights.
TEST(GpuReal, AutoRunsTheModelsPickAndTeachingKernelsTakeInt32Only) {
  SKIP_WITHOUT_GPU();
  GraphF32 g;
  g.n = 3;
  g.edges = {{0, 1, 0.5f}, {1, 2, 0.25f}};
  SolveOptions o;
  o.backend = Backend::cuda;
  const SolveResultF32 automatic = solve(g, o);
  EXPECT_EQ(automatic.note.rfind("auto picked " + automatic.algorithm + ": ", 0), 0u) << automatic.note;
  EXPECT_EQ(automatic.dist[0 * 3 + 2], 0.75f);
  for (const AlgorithmInfo& a : test::gpu_algorithms()) {
    if (a.takes_real) continue;
    o.algorithm = a.name;
    try {
      solve(g, o);
      ADD_FAILURE() << a.name << " took float32 weights";
    } catch (const UsageError& e) {
      EXPECT_EQ(e.option(), "algorithm") << e.what();
      EXPECT_NE(std::string(e.what()).find("int32 weights only"), std::string::npos) << e.what();
    }
  }
  o.algorithm = "fw";
  o.precision = Precision::int16;
  EXPECT_THROW(solve(g, o), UsageError);
}

}  // namespace
}  // namespace apsp
