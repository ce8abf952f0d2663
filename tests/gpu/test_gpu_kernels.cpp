// Every GPU algorithm of the registry through apsp::solve, against the
// independent int64 reference of tests/support, with and without
// predecessors where the algorithm takes them. Every test skips cleanly
// without a CUDA device. Tests named *Sanitize* are the small runs that
// scripts/gpu-check --sanitize repeats under compute-sanitizer.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "apsp/cuda.hpp"
#include "apsp/error.hpp"
#include "apsp/generate.hpp"
#include "apsp/graph.hpp"
#include "apsp/registry.hpp"
#include "apsp/solver.hpp"
#include "gpu_support.hpp"
#include "support/cases.hpp"

namespace apsp {
namespace {

// The registry's GPU algorithms, by name.
const std::vector<std::string>& family() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> found;
    for (const AlgorithmInfo& a : test::gpu_algorithms()) found.emplace_back(a.name);
    return found;
  }();
  return names;
}

const AlgorithmInfo& traits(const std::string& algorithm) { return *find_algorithm(algorithm, Backend::cuda); }

// Reference distances, computed once per case (cases are named uniquely by seed).
const std::vector<dist_t>& reference_for(const test::Case& c) {
  static std::map<std::string, std::vector<dist_t>> cache;
  auto found = cache.find(c.name);
  if (found == cache.end()) found = cache.emplace(c.name, test::reference_distances(c.graph)).first;
  return found->second;
}

// Solves `c` with `algorithm` and compares everything with the reference;
// predecessors only where the algorithm takes them.
void expect_matches_reference(const test::Case& c, const std::string& algorithm, bool predecessors,
                              BlockShape block = {}) {
  predecessors = predecessors && traits(algorithm).takes_predecessors;
  SCOPED_TRACE(algorithm + " on " + c.name + (predecessors ? " with predecessors" : "") + " block " +
               std::to_string(block.x) + "x" + std::to_string(block.y));
  const SolveResult r = solve(c.graph, test::on_gpu(algorithm, Precision::automatic, predecessors, block));
  EXPECT_EQ(r.algorithm, algorithm);
  EXPECT_EQ(r.backend, Backend::cuda);
  if (!traits(algorithm).takes_int16) EXPECT_EQ(r.precision, Precision::int32);
  const std::int64_t n = c.graph.n;
  ASSERT_EQ(test::first_difference(reference_for(c), r.dist, n), "");
  // Every case has an edge 0->1 and, from n = 3 on, a vertex nothing reaches.
  const test::EntryCounts counts = test::count_entries(r.dist, n);
  if (n >= 2) EXPECT_GT(counts.finite_off_diagonal, 0);
  if (n >= 3) EXPECT_GT(counts.unreachable, 0);
  if (predecessors)
    EXPECT_EQ(test::check_predecessors(c.graph, r.dist, r.pred), "");
  else
    EXPECT_TRUE(r.pred.empty());
}

// The standard cases the family runs on: random graphs of every size up to 65
// (0, 1, 2 and the 64-straddling ones) with positive, zero and negative
// weights, plus the two-component graph.
const std::vector<test::Case>& standard_subset() {
  static const std::vector<test::Case> cases = [] {
    std::vector<test::Case> kept;
    for (test::Case& c : test::standard_cases())
      if ((c.name.rfind("random_", 0) == 0 && c.graph.n <= 65) || c.name == "two-parts_n64")
        kept.push_back(std::move(c));
    return kept;
  }();
  return cases;
}

// Solves each case once, with predecessors on every other one: the cases run
// size by size through the three weight kinds, so each size and each weight
// kind meets both modes. (Each solve costs a fixed ~0.1 s of device set-up,
// which bounds how many the suite can afford.)
void expect_cases_match_reference(const std::vector<test::Case>& cases, const std::string& algorithm) {
  for (std::size_t index = 0; index < cases.size(); ++index)
    expect_matches_reference(cases[index], algorithm, index % 2 == 0);
}

const std::vector<test::Case>& tile_subset() {
  static const std::vector<test::Case> cases = test::tile_cases();
  return cases;
}

// n = 70 pads to 96 and 128 for the tiled kernels; weights 0..3 give ties and
// zero-weight cycles; the last vertex has no in-edges (unreachable entries).
test::Case sanitize_case() {
  GenerateOptions o;
  o.kind = GraphKind::random;
  o.n = 70;
  o.m = 4 * o.n;
  o.w_lo = 0;
  o.w_hi = 3;
  o.seed = 70;
  Graph g = generate(o);
  g.edges.erase(std::remove_if(g.edges.begin(), g.edges.end(), [&](const Edge& e) { return e.dst == o.n - 1; }),
                g.edges.end());
  g.edges.push_back(Edge{0, 1, 1});
  return test::Case{"sanitize_random_n70_zero_seed70", g};
}

class GpuKernelFamily : public ::testing::TestWithParam<std::string> {};

TEST_P(GpuKernelFamily, StandardCasesMatchReference) {
  SKIP_WITHOUT_GPU();
  expect_cases_match_reference(standard_subset(), GetParam());
}

TEST_P(GpuKernelFamily, TileCasesMatchReference) {
  SKIP_WITHOUT_GPU();
  expect_cases_match_reference(tile_subset(), GetParam());
}

TEST_P(GpuKernelFamily, NegativeCycleThrows) {
  SKIP_WITHOUT_GPU();
  const test::Case c = test::negative_cycle_case(40, 7);
  SCOPED_TRACE(GetParam() + " on " + c.name);
  const bool predecessors = traits(GetParam()).takes_predecessors;
  EXPECT_THROW(solve(c.graph, test::on_gpu(GetParam(), Precision::automatic, predecessors)), NegativeCycleError);
}

// A build without CUDA has no GPU algorithm to instantiate the suite with.
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(GpuKernelFamily);
INSTANTIATE_TEST_SUITE_P(GpuKernels, GpuKernelFamily, ::testing::ValuesIn(family()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string name = info.param;
                           std::replace(name.begin(), name.end(), '-', '_');
                           return name;
                         });

TEST(GpuKernelsNaive, EveryBlockShapeMatchesReference) {
  SKIP_WITHOUT_GPU();
  const std::vector<test::Case>& tiles = tile_subset();
  for (int side : {4, 8, 16, 32}) {
    expect_matches_reference(tiles.at(2), "naive", true, BlockShape{side, side});    // random, n = 33
    expect_matches_reference(tiles.at(13), "naive", false, BlockShape{side, side});  // rmat, n = 97
  }
}

TEST(GpuKernelsNaive, UnsupportedBlockShapeThrowsUsageError) {
  SKIP_WITHOUT_GPU();
  const test::Case& c = tile_subset().front();
  for (BlockShape shape : {BlockShape{8, 16}, BlockShape{3, 3}, BlockShape{64, 64}, BlockShape{16, 0},
                           BlockShape{0, 16}, BlockShape{1, 1}}) {
    SCOPED_TRACE("block " + std::to_string(shape.x) + "x" + std::to_string(shape.y));
    try {
      solve(c.graph, test::on_gpu("naive", Precision::automatic, false, shape));
      ADD_FAILURE() << "no UsageError";
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find("16x16"), std::string::npos) << e.what();
    }
  }
}

TEST(GpuKernelsSanitize, AllKernelsSmall) {
  SKIP_WITHOUT_GPU();
  const test::Case c = sanitize_case();
  for (const std::string& algorithm : family()) expect_matches_reference(c, algorithm, true);
}

}  // namespace
}  // namespace apsp
