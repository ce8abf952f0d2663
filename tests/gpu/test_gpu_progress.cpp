// The progress contract on the GPU (bug 1): for every algorithm of the
// registry, and through every fallback (forced with the testing hooks where
// ordinary inputs rarely reach it), the fractions SolveOptions::progress sees
// are non-decreasing and end at exactly 1.0. Skips without a CUDA device.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "apsp/apsp.hpp"
#include "cuda/testing.hpp"
#include "gpu_support.hpp"
#include "support/cases.hpp"

namespace apsp {
namespace {

struct Observed {
  SolveResult result;
  std::vector<double> fractions;
};

Observed solve_watching(const Graph& g, SolveOptions o) {
  Observed seen;
  o.progress = [&seen](double f) { seen.fractions.push_back(f); };
  seen.result = solve(g, o);
  return seen;
}

// A path 0 -> 1 -> ... -> n-1 of `weight` each, plus a shortcut and a vertex
// nothing reaches: distances up to (n - 2) * weight.
Graph long_path(std::int64_t n, weight_t weight) {
  Graph g;
  g.n = n;
  for (vertex_t v = 0; v + 2 < n; ++v) g.edges.push_back(Edge{v, v + 1, weight});
  g.edges.push_back(Edge{5, 3, 1});
  return g;
}

void expect_exact(const Graph& g, const SolveResult& r) {
  EXPECT_EQ(test::first_difference(test::reference_distances(g), r.dist, g.n), "");
}

TEST(GpuProgress, EveryRegistryAlgorithmEndsAtOne) {
  SKIP_WITHOUT_GPU();
  const test::Case c = test::tile_cases().at(8);  // random, n = 129
  for (const AlgorithmInfo& a : test::gpu_algorithms()) {
    for (bool predecessors : {false, true}) {
      if (predecessors && !a.takes_predecessors) continue;
      SCOPED_TRACE(std::string(a.name) + (predecessors ? " with predecessors" : ""));
      const Observed seen = solve_watching(c.graph, test::on_gpu(a.name, Precision::automatic, predecessors));
      EXPECT_EQ(test::check_progress(seen.fractions), "");
      expect_exact(c.graph, seen.result);
    }
  }
}

// The int16 attempt fails its certificate and the rounds run again in int32.
TEST(GpuProgress, Int16FallbackStaysMonotone) {
  SKIP_WITHOUT_GPU();
  const Graph natural = long_path(700, 60);  // distances up to 41k > 16383
  for (const AlgorithmInfo& a : test::gpu_algorithms()) {
    if (!a.takes_int16) continue;
    SCOPED_TRACE(a.name);
    const Observed seen = solve_watching(natural, test::on_gpu(a.name, Precision::int16));
    EXPECT_EQ(seen.result.precision, Precision::int32);
    EXPECT_EQ(test::check_progress(seen.fractions), "");
    expect_exact(natural, seen.result);

    const test::Case small = test::tile_cases().at(13);  // rmat, n = 97: int16 would succeed
    cuda::testing::ForceHook fail(cuda::testing::hooks.fail_int16_certificate);
    const Observed forced = solve_watching(small.graph, test::on_gpu(a.name, Precision::int16));
    EXPECT_EQ(forced.result.precision, Precision::int32);
    EXPECT_EQ(test::check_progress(forced.fractions), "");
    expect_exact(small.graph, forced.result);
  }
}

// The tagged predecessor attempt gives up and fw's own fallback runs.
TEST(GpuProgress, TaggedFallbackStaysMonotone) {
  SKIP_WITHOUT_GPU();
  const Graph natural = long_path(300, 50000);  // distances up to 15M > 2^22
  const Observed seen = solve_watching(natural, test::on_gpu("fw", Precision::automatic, true));
  EXPECT_EQ(test::check_progress(seen.fractions), "");
  expect_exact(natural, seen.result);
  EXPECT_EQ(test::check_predecessors(natural, seen.result.dist, seen.result.pred), "");

  const test::Case small = test::tile_cases().at(11);  // random, n = 257
  cuda::testing::ForceHook fail(cuda::testing::hooks.fail_tagged_range);
  const Observed forced = solve_watching(small.graph, test::on_gpu("fw", Precision::automatic, true));
  EXPECT_EQ(test::check_progress(forced.fractions), "");
  expect_exact(small.graph, forced.result);
  EXPECT_EQ(test::check_predecessors(small.graph, forced.result.dist, forced.result.pred), "");
}

// The GPU refuses a reweighted range and Backend::automatic solves on the CPU.
TEST(GpuProgress, CpuTakeoverStaysMonotone) {
  SKIP_WITHOUT_GPU();
  Graph g;
  g.n = 2000;  // above the GPU threshold of Backend::automatic
  g.edges = {{0, 1, 300000000}, {1, 2, 300000000}, {3, 2, -600000000}};
  SolveOptions o;
  const Observed seen = solve_watching(g, o);
  EXPECT_EQ(seen.result.backend, Backend::cpu);
  EXPECT_FALSE(seen.result.note.empty());
  EXPECT_EQ(test::check_progress(seen.fractions), "");
}

// fw reported every nb / 64 rounds, so with 129 rounds the last fraction
// was 128 / 129.
TEST(GpuProgress, OddRoundCountEndsAtOne) {
  SKIP_WITHOUT_GPU();
  Graph g;
  g.n = 129 * 128;
  g.edges = {{0, 1, 3}, {1, 2, 4}};
  const Observed seen = solve_watching(g, test::on_gpu("fw", Precision::int32));
  EXPECT_EQ(test::check_progress(seen.fractions), "");
  EXPECT_EQ(seen.result.dist[2], 7);
  EXPECT_EQ(seen.result.dist[g.n], kInf);
}

}  // namespace
}  // namespace apsp
