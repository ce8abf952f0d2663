// The seeds' GPU kernel family (every CUDA algorithm but the production solvers)
// through apsp::solve, against the independent int64 reference of
// tests/support, with and without predecessors. Every test skips cleanly
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
#include "apsp/solver.hpp"
#include "support/cases.hpp"

namespace apsp {
namespace {

const std::vector<std::string>& family() {
  static const std::vector<std::string> names = {
      "naive",       "coalesced",        "segmented", "shared-rowcol", "shared-row",  // one launch per pivot
      "tran-double", "minplus-squaring", "harish",    "blocked-32",    "blocked-64"};
  return names;
}

// Reference distances, computed once per case (cases are named uniquely by seed).
const std::vector<dist_t>& reference_for(const test::Case& c) {
  static std::map<std::string, std::vector<dist_t>> cache;
  auto found = cache.find(c.name);
  if (found == cache.end()) found = cache.emplace(c.name, test::reference_distances(c.graph)).first;
  return found->second;
}

SolveOptions gpu_options(const std::string& algorithm, bool predecessors, BlockShape block = {}) {
  SolveOptions opts;
  opts.backend = Backend::cuda;
  opts.algorithm = algorithm;
  opts.predecessors = predecessors;
  opts.block = block;
  return opts;
}

// Solves `c` with `algorithm` and compares everything with the reference.
void expect_matches_reference(const test::Case& c, const std::string& algorithm, bool predecessors,
                              BlockShape block = {}) {
  SCOPED_TRACE(algorithm + " on " + c.name + (predecessors ? " with predecessors" : "") + " block " +
               std::to_string(block.x) + "x" + std::to_string(block.y));
  const SolveResult r = solve(c.graph, gpu_options(algorithm, predecessors, block));
  EXPECT_EQ(r.algorithm, algorithm);
  EXPECT_EQ(r.backend, Backend::cuda);
  EXPECT_EQ(r.precision, Precision::int32);
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
  if (apsp::cuda::devices().empty()) GTEST_SKIP() << "no CUDA device";
  expect_cases_match_reference(standard_subset(), GetParam());
}

TEST_P(GpuKernelFamily, TileCasesMatchReference) {
  if (apsp::cuda::devices().empty()) GTEST_SKIP() << "no CUDA device";
  expect_cases_match_reference(tile_subset(), GetParam());
}

TEST_P(GpuKernelFamily, NegativeCycleThrows) {
  if (apsp::cuda::devices().empty()) GTEST_SKIP() << "no CUDA device";
  const test::Case c = test::negative_cycle_case(40, 7);
  SCOPED_TRACE(GetParam() + " on " + c.name);
  EXPECT_THROW(solve(c.graph, gpu_options(GetParam(), true)), NegativeCycleError);
}

TEST_P(GpuKernelFamily, ReportsMonotoneProgressEndingAtOne) {
  if (apsp::cuda::devices().empty()) GTEST_SKIP() << "no CUDA device";
  const test::Case& c = tile_subset().at(8);  // random, n = 129
  SCOPED_TRACE(GetParam() + " on " + c.name);
  std::vector<double> seen;
  SolveOptions opts = gpu_options(GetParam(), false);
  opts.progress = [&](double fraction) { seen.push_back(fraction); };
  solve(c.graph, opts);
  EXPECT_EQ(test::check_progress(seen), "");
}

INSTANTIATE_TEST_SUITE_P(GpuKernels, GpuKernelFamily, ::testing::ValuesIn(family()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string name = info.param;
                           std::replace(name.begin(), name.end(), '-', '_');
                           return name;
                         });

TEST(GpuKernelsNaive, EveryBlockShapeMatchesReference) {
  if (apsp::cuda::devices().empty()) GTEST_SKIP() << "no CUDA device";
  const std::vector<test::Case>& tiles = tile_subset();
  for (int side : {4, 8, 16, 32}) {
    expect_matches_reference(tiles.at(2), "naive", true, BlockShape{side, side});    // random, n = 33
    expect_matches_reference(tiles.at(13), "naive", false, BlockShape{side, side});  // rmat, n = 97
  }
}

TEST(GpuKernelsNaive, UnsupportedBlockShapeThrowsUsageError) {
  if (apsp::cuda::devices().empty()) GTEST_SKIP() << "no CUDA device";
  const test::Case& c = tile_subset().front();
  for (BlockShape shape : {BlockShape{8, 16}, BlockShape{3, 3}, BlockShape{64, 64}, BlockShape{16, 0},
                           BlockShape{0, 16}, BlockShape{1, 1}}) {
    SCOPED_TRACE("block " + std::to_string(shape.x) + "x" + std::to_string(shape.y));
    try {
      solve(c.graph, gpu_options("naive", false, shape));
      ADD_FAILURE() << "no UsageError";
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find("16x16"), std::string::npos) << e.what();
    }
  }
}

TEST(GpuKernelsSanitize, AllKernelsSmall) {
  if (apsp::cuda::devices().empty()) GTEST_SKIP() << "no CUDA device";
  const test::Case c = sanitize_case();
  for (const std::string& algorithm : family()) expect_matches_reference(c, algorithm, true);
}

}  // namespace
}  // namespace apsp
