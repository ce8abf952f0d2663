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

constexpr double kInfinity = std::numeric_limits<double>::infinity();

SolveOptions gpu_fw(bool predecessors, bool verify = false) {
  SolveOptions o = test::on_gpu("fw", Precision::automatic, predecessors);
  o.verify = verify;
  return o;
}

double max_abs_weight(const GraphF64& g) {
  double m = 0;
  for (const EdgeF64& e : g.edges) m = std::max(m, std::abs(e.w));
  return m;
}

// 4 * n * epsilon(W): looser than the library's bound, so it checks the answer.
template <class W>
double relative_tolerance(std::int64_t n) {
  return 4.0 * static_cast<double>(std::max<std::int64_t>(n, 1)) * std::numeric_limits<W>::epsilon();
}

template <class W>
void expect_matches_reference(const test::Case& c, bool predecessors, bool verify = false) {
  const GraphF64 real = test::with_real_weights(c.graph);
  GraphF64 exact;
  BasicSolveResult<W> r;
  if constexpr (std::is_same<W, float>::value) {
    const GraphF32 g = test::to_float32(real);
    exact = test::to_float64(g);
    r = solve(g, gpu_fw(predecessors, verify));
  } else {
    exact = real;
    r = solve(real, gpu_fw(predecessors, verify));
  }
  EXPECT_EQ(r.algorithm, "fw");
  EXPECT_EQ(r.backend, Backend::cuda);
  EXPECT_EQ(r.weights, weight_type_of<W>);
  EXPECT_EQ(r.verified, verify);
  const std::int64_t n = c.graph.n;
  const std::vector<double> d(r.dist.begin(), r.dist.end());
  const std::vector<double> expected = test::reference_distances(exact);
  const double rel = relative_tolerance<W>(n);
  EXPECT_EQ(test::first_real_difference(expected, d, n, max_abs_weight(exact), rel), "");
  const test::EntryCounts counts = test::count_entries(d, n);
  if (n >= 2) EXPECT_GT(counts.finite_off_diagonal, 0);
  if (n >= 3) EXPECT_GT(counts.unreachable, 0);
  for (std::int64_t i = 0; i < n; ++i) EXPECT_EQ(d[static_cast<std::size_t>(i * n + i)], 0.0);
  if (predecessors) {
    double scale = max_abs_weight(exact);
    for (const double x : expected)
      if (x != kInfinity) scale = std::max(scale, std::abs(x));
    EXPECT_EQ(test::check_predecessors(exact, d, r.pred, rel * scale), "");
  }
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
  for (const std::int64_t n : {5, 70, 131, 300}) {
    const test::Case c = test::negative_cycle_case(n, 7);
    const GraphF64 g = test::with_real_weights(c.graph);
    for (const bool single : {true, false}) {
      try {
        if (single)
          solve(test::to_float32(g), gpu_fw(false));
        else
          solve(g, gpu_fw(true));
        ADD_FAILURE() << "no negative cycle reported for n = " << n;
      } catch (const NegativeCycleError& e) {
        EXPECT_TRUE(test::lies_on_negative_cycle(c.graph, static_cast<vertex_t>(e.vertex()))) << e.what();
      }
    }
  }
}

// 0.3 - 0.1 - 0.2 is not 0 in binary; the diagonal stays within the
// tolerance, is no negative cycle, and comes out as 0.
TEST(GpuReal, RoundingNearZeroCycleIsNoNegativeCycleSanitize) {
  SKIP_WITHOUT_GPU();
  GraphF64 g;
  g.n = 4;
  g.edges = {{0, 1, 0.3}, {1, 2, -0.1}, {2, 0, -0.2}, {2, 3, 1.5}, {3, 2, -1.5}};
  const SolveResultF64 r = solve(g, gpu_fw(true));
  EXPECT_NEAR(r.dist[0 * 4 + 3], 0.3 - 0.1 + 1.5, 1e-12);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(r.dist[i * 4 + i], 0.0);
  EXPECT_TRUE(verify(g, r.dist).ok);
  EXPECT_TRUE(verify_predecessors(g, r.dist, r.pred).ok) << verify_predecessors(g, r.dist, r.pred).first_violation;
  const SolveResultF32 f = solve(test::to_float32(g), gpu_fw(true));
  EXPECT_NEAR(f.dist[0 * 4 + 3], 1.7, 1e-5);
}

// Zero-weight cycles tie every path around them: predecessor rows that the
// device leaves looping are rebuilt on the host, so every row is a tree.
TEST(GpuReal, ZeroWeightCyclesGivePredecessorTreesSanitize) {
  SKIP_WITHOUT_GPU();
  for (const std::int64_t n : {3, 128, 129}) {
    GraphF64 g;
    g.n = n;
    for (std::int64_t v = 0; v < n; ++v) {
      g.edges.push_back({static_cast<vertex_t>(v), static_cast<vertex_t>((v + 1) % n), 0.0});
      g.edges.push_back({static_cast<vertex_t>(v), static_cast<vertex_t>((v * 7 + 3) % n), 0.0});
    }
    SCOPED_TRACE("n = " + std::to_string(n));
    const SolveResultF64 r = solve(g, gpu_fw(true));
    EXPECT_EQ(test::check_predecessors(g, r.dist, r.pred, 0.0), "");
    const SolveResultF32 f = solve(test::to_float32(g), gpu_fw(true));
    EXPECT_EQ(test::check_predecessors(g, test::widened(f.dist), f.pred, 0.0), "");
  }
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

TEST(GpuReal, AutoRunsFwAndTeachingKernelsTakeInt32Only) {
  SKIP_WITHOUT_GPU();
  GraphF32 g;
  g.n = 3;
  g.edges = {{0, 1, 0.5f}, {1, 2, 0.25f}};
  SolveOptions o;
  o.backend = Backend::cuda;
  EXPECT_EQ(solve(g, o).algorithm, "fw");
  for (const AlgorithmInfo& a : test::gpu_algorithms()) {
    if (std::string(a.name) == "fw") continue;
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
