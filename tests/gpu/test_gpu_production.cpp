// The production GPU solver ("fw", and what auto picks on a GPU) against the
// independent reference, in both precisions. Skips without a CUDA device.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>

#include "apsp/apsp.hpp"
#include "apsp/cuda.hpp"
#include "apsp/sinks.hpp"
#include "cuda/testing.hpp"
#include "gpu_support.hpp"
#include "support/cases.hpp"

namespace apsp {
namespace {

SolveResult solve_on_gpu(const Graph& g, Precision precision, const std::string& algo = "fw",
                         bool predecessors = false) {
  return solve(g, test::on_gpu(algo, precision, predecessors));
}

void expect_matches_reference(const test::Case& c, Precision precision) {
  SCOPED_TRACE(c.name + " precision=" + to_string(precision));
  const std::vector<dist_t> expected = test::reference_distances(c.graph);
  const SolveResult r = solve_on_gpu(c.graph, precision);
  EXPECT_EQ(r.backend, Backend::cuda);
  EXPECT_EQ(r.algorithm, "fw");
  EXPECT_EQ(test::first_difference(expected, r.dist, c.graph.n), "");
  if (c.graph.n >= 2) {
    const test::EntryCounts counts = test::count_entries(r.dist, c.graph.n);
    EXPECT_GT(counts.finite_off_diagonal, 0);
    EXPECT_GT(counts.unreachable, 0);
  }
  if (precision != Precision::automatic && c.graph.n > 0) {
    // int16 may fall back to int32 only when its certificate fails; these
    // small-weight cases always fit.
    EXPECT_EQ(r.precision, precision);
  }
}

TEST(GpuProduction, StandardCasesInt32) {
  SKIP_WITHOUT_GPU();
  for (const test::Case& c : test::standard_cases()) expect_matches_reference(c, Precision::int32);
}

TEST(GpuProduction, StandardCasesInt16) {
  SKIP_WITHOUT_GPU();
  for (const test::Case& c : test::standard_cases()) expect_matches_reference(c, Precision::int16);
}

TEST(GpuProduction, TileCasesBothPrecisions) {
  SKIP_WITHOUT_GPU();
  for (const test::Case& c : test::tile_cases()) {
    expect_matches_reference(c, Precision::int32);
    expect_matches_reference(c, Precision::int16);
  }
}

void expect_predecessors_valid(const test::Case& c, const std::string& algo) {
  SCOPED_TRACE(c.name + " algo=" + algo + " with predecessors");
  const SolveResult r = solve_on_gpu(c.graph, Precision::automatic, algo, true);
  EXPECT_EQ(r.precision, Precision::int32);
  EXPECT_EQ(test::first_difference(test::reference_distances(c.graph), r.dist, c.graph.n), "");
  EXPECT_EQ(test::check_predecessors(c.graph, r.dist, r.pred), "");
}

TEST(GpuProduction, PredecessorsOnStandardCases) {
  SKIP_WITHOUT_GPU();
  for (const test::Case& c : test::standard_cases()) expect_predecessors_valid(c, "fw");
}

TEST(GpuProduction, PredecessorsOnTileCases) {
  SKIP_WITHOUT_GPU();
  for (const test::Case& c : test::tile_cases()) expect_predecessors_valid(c, "fw");
}

// Zero-weight cycles everywhere: ties must never make a predecessor chain loop.
TEST(GpuProduction, PredecessorsWithZeroWeightCycles) {
  SKIP_WITHOUT_GPU();
  GenerateOptions o;
  o.kind = GraphKind::random;
  o.n = 300;
  o.m = 3000;
  o.w_lo = 0;
  o.w_hi = 1;
  o.seed = 9;
  expect_predecessors_valid(test::Case{"zero-one_n300", generate(o)}, "fw");
}

// Distances beyond the 22-bit tagged range: the solver's own fallback (int32
// rounds, predecessors off tight in-edges) stays exact.
TEST(GpuProduction, PredecessorsBeyondTaggedRange) {
  SKIP_WITHOUT_GPU();
  Graph g;
  g.n = 300;
  for (vertex_t v = 0; v + 1 < g.n; ++v) g.edges.push_back(Edge{v, v + 1, 50000});
  g.edges.push_back(Edge{7, 2, 3});
  expect_predecessors_valid(test::Case{"long-path_n300", g}, "fw");
}

// The tight-edge fallback on zero-weight cycles: its predecessor rows may
// loop, the tree certificate finds them and the host rebuilds them. Here 8
// enters the zero cycle 6 <-> 7 with weight 0, so 6 has two tight in-edges of
// weight 0, and the fallback picks 7 (the smaller tail): rows 8 and 9 loop.
TEST(GpuProduction, HostRepairsPredecessorRowsTheGpuLeftCyclic) {
  SKIP_WITHOUT_GPU();
  Graph g;
  g.n = 12;
  g.edges = {{9, 8, 1}, {8, 6, 0}, {6, 7, 0}, {7, 6, 0}, {0, 9, 4}, {6, 10, 2}, {7, 10, 2}, {10, 0, 3}};
  const std::int64_t repaired_before = cuda::testing::hooks.repaired_rows;
  {
    cuda::testing::ForceHook fallback(cuda::testing::hooks.fail_tagged_range);
    expect_predecessors_valid(test::Case{"zero-cycle_n12", g}, "fw");
  }
  EXPECT_GT(cuda::testing::hooks.repaired_rows - repaired_before, 0) << "no row went through the host repair";
  // The same graph without the hook: the tagged mode, exact too.
  expect_predecessors_valid(test::Case{"zero-cycle_n12", g}, "fw");
}

TEST(GpuProduction, PredecessorsRefuseInt16) {
  SKIP_WITHOUT_GPU();
  EXPECT_THROW(solve_on_gpu(test::tile_cases().front().graph, Precision::int16, "fw", true), UsageError);
}

TEST(GpuProduction, PersistentVariantMatchesReference) {
  SKIP_WITHOUT_GPU();
  for (const test::Case& c : test::tile_cases()) {
    SCOPED_TRACE(c.name);
    for (Precision p : {Precision::int32, Precision::int16}) {
      const SolveResult r = solve_on_gpu(c.graph, p, "fw-persistent");
      EXPECT_EQ(test::first_difference(test::reference_distances(c.graph), r.dist, c.graph.n), "");
    }
  }
}

// At n = 3000 the persistent kernel has more C tiles per round (23 x 23 in
// int32, 12 x 23 in int16) than blocks on an H100 (2 per SM, 264), so each
// block loops over several tiles, prefetching the next. Checked with the
// O(n m) certificate and against fw.
TEST(GpuProduction, PersistentBlocksLoopOverSeveralTiles) {
  SKIP_WITHOUT_GPU();
  GenerateOptions o;
  o.kind = GraphKind::rmat;
  o.n = 3000;
  o.m = 8 * o.n;
  o.w_lo = 0;
  o.w_hi = 100;
  o.seed = 3000;
  Graph g = generate(o);
  // Nothing reaches the last vertex: unreachable entries for sure.
  g.edges.erase(std::remove_if(g.edges.begin(), g.edges.end(), [&](const Edge& e) { return e.dst == g.n - 1; }),
                g.edges.end());
  const SolveResult reference = solve_on_gpu(g, Precision::int32, "fw");
  const test::EntryCounts counts = test::count_entries(reference.dist, g.n);
  EXPECT_GT(counts.finite_off_diagonal, 0);
  EXPECT_GT(counts.unreachable, 0);
  for (Precision p : {Precision::int32, Precision::int16}) {
    SCOPED_TRACE(to_string(p));
    const SolveResult r = solve_on_gpu(g, p, "fw-persistent");
    EXPECT_EQ(r.precision, p);
    EXPECT_EQ(test::first_difference(reference.dist, r.dist, g.n), "");
    const VerifyReport check = verify(normalize(g), r.dist);
    EXPECT_TRUE(check.ok) << check.first_violation;
  }
}

TEST(GpuProduction, AutoPicksInt16WhenDistancesAreSmall) {
  SKIP_WITHOUT_GPU();
  GenerateOptions o;
  o.kind = GraphKind::rmat;
  o.n = 1000;
  o.w_lo = 1;
  o.w_hi = 20;
  o.seed = 5;
  const Graph g = generate(o);
  const SolveResult r = solve_on_gpu(g, Precision::automatic);
  EXPECT_EQ(r.precision, Precision::int16);
  EXPECT_EQ(test::first_difference(test::reference_distances(g), r.dist, g.n), "");
}

// A long path whose distances exceed int16: the int16 attempt must notice
// (its certificate fails) and the result must still be exact, in int32.
TEST(GpuProduction, Int16FallsBackToInt32WhenDistancesDoNotFit) {
  SKIP_WITHOUT_GPU();
  Graph g;
  g.n = 700;
  for (vertex_t v = 0; v + 1 < g.n; ++v) g.edges.push_back(Edge{v, v + 1, 60});
  g.edges.push_back(Edge{5, 3, 1});
  const SolveResult r = solve_on_gpu(g, Precision::int16);
  EXPECT_EQ(r.precision, Precision::int32);
  EXPECT_EQ(r.dist[0 * 700 + 699], 699 * 60);
  EXPECT_EQ(test::first_difference(test::reference_distances(g), r.dist, g.n), "");
}

TEST(GpuProduction, Int16RefusesWeightsThatCannotFit) {
  SKIP_WITHOUT_GPU();
  Graph g;
  g.n = 3;
  g.edges = {{0, 1, 20000}, {1, 2, 1}};
  EXPECT_THROW(solve_on_gpu(g, Precision::int16), UsageError);
  const SolveResult r = solve_on_gpu(g, Precision::automatic);
  EXPECT_EQ(r.precision, Precision::int32);
  EXPECT_EQ(r.dist[0 * 3 + 2], 20001);
}

TEST(GpuProduction, NegativeCycleIsReported) {
  SKIP_WITHOUT_GPU();
  const test::Case c = test::negative_cycle_case(300, 3);
  for (Precision p : {Precision::int32, Precision::int16}) {
    try {
      solve_on_gpu(c.graph, p);
      ADD_FAILURE() << "no NegativeCycleError for " << c.name;
    } catch (const NegativeCycleError& e) {
      EXPECT_TRUE(test::lies_on_negative_cycle(c.graph, static_cast<vertex_t>(e.vertex())))
          << "vertex " << e.vertex() << " is not on a negative cycle";
    }
  }
}

TEST(GpuProduction, DistancesBeyondInt32AreRefused) {
  SKIP_WITHOUT_GPU();
  Graph g;
  g.n = 4;
  g.edges = {{0, 1, 1000000000}, {1, 2, 1000000000}, {2, 3, 5}};
  EXPECT_THROW(solve_on_gpu(g, Precision::int32), OverflowError);
  SolveOptions o;  // the CPU cannot hold them either: no takeover
  EXPECT_THROW(solve(g, o), OverflowError);
}

// Bug 2: a 6e8 edge among 2000 vertices was refused ("may reach 600000000,
// beyond the GPU's int32 range") by an a-priori bound; every distance fits.
TEST(GpuProduction, LargeWeightsWhoseDistancesFitAreSolved) {
  SKIP_WITHOUT_GPU();
  Graph g;
  g.n = 2000;
  g.edges = {{0, 1, 600000000}};
  for (Precision p : {Precision::automatic, Precision::int32}) {
    const SolveResult r = solve_on_gpu(g, p);
    EXPECT_EQ(r.backend, Backend::cuda);
    EXPECT_EQ(r.dist[1], 600000000);
    EXPECT_EQ(r.dist[2], kInf);
    EXPECT_EQ(r.dist[g.n + 1], 0);
  }
  g.edges.push_back(Edge{1, 2, 473741822});  // 0 -> 2 is kInf - 1: still fits
  const SolveResult r = solve(g, SolveOptions{});
  EXPECT_EQ(r.backend, Backend::cuda);
  EXPECT_EQ(r.note.find("CPU"), std::string::npos) << r.note;  // auto says which GPU method, no fallback
  EXPECT_EQ(r.dist[2], kInf - 1);
}

// Johnson potentials can make reweighted distances larger than the true
// ones: here 0 -> 2 is 6e8 but 1.2e9 after reweighting. The GPU refuses the
// range; under Backend::automatic the CPU (int64) solves it and says so.
TEST(GpuProduction, ReweightedRangeRefusalFallsBackToTheCpu) {
  SKIP_WITHOUT_GPU();
  Graph g;
  g.n = 2000;
  g.edges = {{0, 1, 300000000}, {1, 2, 300000000}, {3, 2, -600000000}};
  EXPECT_THROW(solve_on_gpu(g, Precision::int32), ArithmeticRangeError);
  const SolveResult r = solve(g, SolveOptions{});
  EXPECT_EQ(r.backend, Backend::cpu);
  EXPECT_NE(r.note.find("GPU's int32"), std::string::npos) << r.note;
  EXPECT_EQ(r.dist[0 * g.n + 2], 600000000);
  EXPECT_EQ(r.dist[3 * g.n + 2], -600000000);
  EXPECT_EQ(r.dist[2 * g.n + 0], kInf);
  const VerifyReport check = verify(normalize(g), r.dist);
  EXPECT_TRUE(check.ok) << check.first_violation;
}

// A matrix larger than the device: a ResourceError naming the size, before
// any device or host allocation of the matrix.
TEST(GpuProduction, MatrixBeyondDeviceMemoryIsAResourceError) {
  SKIP_WITHOUT_GPU();
  Graph g;
  g.n = 200000;  // 160 GB of int32 distances
  g.edges = {{0, 1, 3}, {1, 2, 4}};
  // Rows streamed nowhere: only the device must hold the matrix.
  try {
    NullSink nothing;
    solve(g, test::on_gpu("fw", Precision::int32, false), nothing);
    ADD_FAILURE() << "no ResourceError";
  } catch (const ResourceError& e) {
    EXPECT_NE(std::string(e.what()).find("GiB of device memory"), std::string::npos) << e.what();
  }
  // Into a host matrix: the host's own check refuses first, before any device work.
  try {
    solve_on_gpu(g, Precision::int32);
    ADD_FAILURE() << "no ResourceError";
  } catch (const ResourceError& e) {
    EXPECT_NE(std::string(e.what()).find("of memory"), std::string::npos) << e.what();
  }
}

// Options a kernel cannot honour are refused, not silently ignored; those it
// honours work (the registry's traits).
TEST(GpuProduction, KernelsRefuseOptionsTheyDoNotHonour) {
  SKIP_WITHOUT_GPU();
  const Graph g = test::tile_cases().front().graph;
  for (const AlgorithmInfo& a : test::gpu_algorithms()) {
    SCOPED_TRACE(a.name);
    if (a.takes_int16) {
      EXPECT_EQ(solve_on_gpu(g, Precision::int16, a.name).precision, Precision::int16);
    } else {
      EXPECT_THROW(solve_on_gpu(g, Precision::int16, a.name), UsageError);
    }
    if (!a.takes_predecessors) EXPECT_THROW(solve_on_gpu(g, Precision::automatic, a.name, true), UsageError);
    const SolveOptions o = test::on_gpu(a.name, Precision::automatic, false, BlockShape{8, 8});
    if (a.takes_block) {
      EXPECT_EQ(test::first_difference(test::reference_distances(g), solve(g, o).dist, g.n), "");
    } else {
      EXPECT_THROW(solve(g, o), UsageError);
    }
  }
  // With --backend auto, int16 chooses the GPU even for a small graph.
  SolveOptions o;
  o.precision = Precision::int16;
  EXPECT_EQ(solve(g, o).backend, Backend::cuda);
}

TEST(GpuProductionSanitize, SmallCases) {
  SKIP_WITHOUT_GPU();
  for (const test::Case& c : test::tile_cases()) {
    if (c.graph.n > 260) continue;
    expect_matches_reference(c, Precision::int32);
    expect_matches_reference(c, Precision::int16);
    expect_predecessors_valid(c, "fw");
    const SolveResult persistent = solve_on_gpu(c.graph, Precision::int16, "fw-persistent");
    EXPECT_EQ(test::first_difference(test::reference_distances(c.graph), persistent.dist, c.graph.n), "");
  }
}

}  // namespace
}  // namespace apsp
