// Parts of the matrix on the GPU: sources x targets and the sparse results of
// a cutoff or the nearest targets, against the GPU's own full solve, in
// int32, float32 and float64, for every production GPU algorithm (the row
// solvers compute the chosen rows of a renumbered graph; fw computes every
// row and the chosen ones are kept), predecessors included. Skips without a
// CUDA device.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <type_traits>
#include <vector>

#include "apsp/sinks.hpp"
#include "apsp/solver.hpp"
#include "cuda/testing.hpp"
#include "gpu_support.hpp"
#include "support/cases.hpp"

namespace apsp {
namespace {

// Sources and targets with repeats, out of order, and the last vertex.
std::vector<vertex_t> chosen(std::int64_t n, int salt) {
  const auto last = static_cast<vertex_t>(n - 1);
  return {static_cast<vertex_t>((n / 3 + salt) % n), last, 0, last, static_cast<vertex_t>((n / 2 + salt) % n)};
}

// The graph of a standard case in weight type W (int32: as is; real: test::with_real_weights).
template <class W>
BasicGraph<W> in_type(const Graph& g) {
  if constexpr (std::is_same<W, std::int32_t>::value) {
    return g;
  } else if constexpr (std::is_same<W, double>::value) {
    return test::with_real_weights(g);
  } else {
    return test::to_float32(test::with_real_weights(g));
  }
}

template <class W>
void expect_parts_match_the_full_solve() {
  std::int64_t finite = 0, unreachable = 0;
  for (const AlgorithmInfo& a : test::gpu_algorithms()) {
    if (a.role != Role::production || (!std::is_same<W, std::int32_t>::value && !a.takes_real)) continue;
    for (const test::Case& c : test::tile_cases()) {
      if (c.graph.n < 2 || c.graph.n > 300) continue;
      SCOPED_TRACE(c.name + " algo=" + a.name);
      const BasicGraph<W> g = in_type<W>(c.graph);
      const std::int64_t n = g.n;
      SolveOptions o = test::on_gpu(a.name, Precision::automatic, /*predecessors=*/a.takes_predecessors);
      const BasicSolveResult<W> full = solve(g, o);
      double scale = 1;  // the largest |w|, which bounds the rounding with |want|
      for (const auto& e : g.edges) scale = std::max(scale, std::fabs(double(e.w)));
      o.sources = chosen(n, 1);
      o.targets = chosen(n, 2);
      const BasicSolveResult<W> part = solve(g, o);
      ASSERT_EQ(part.dist.size(), o.sources.size() * o.targets.size());
      const std::size_t t = o.targets.size();
      for (std::size_t r = 0; r < o.sources.size(); ++r)
        for (std::size_t k = 0; k < t; ++k) {
          const W want = full.dist[static_cast<std::size_t>(o.sources[r] * n + o.targets[k])];
          // Integers bit for bit. Reals within the tests' tolerance: the part
          // renumbers its sources first, so supernodal's ordering (and the
          // order of its additions) can differ from the full solve's.
          if (std::is_same<W, std::int32_t>::value || want == kUnreachable<W>) {
            ASSERT_EQ(part.dist[r * t + k], want) << "source " << o.sources[r] << " target " << o.targets[k];
          } else {
            const double bound = test::test_relative_tolerance<W>(n) * std::max(scale, std::fabs(double(want)));
            ASSERT_NEAR(double(part.dist[r * t + k]), double(want), bound)
                << "source " << o.sources[r] << " target " << o.targets[k];
          }
          (want == kUnreachable<W> ? unreachable : finite) += 1;
        }
      if (a.takes_predecessors) {
        // The rows' predecessors form shortest paths (ties may pick other
        // ones than the full solve's), in the caller's vertex numbers.
        for (std::size_t r = 0; r < o.sources.size(); ++r)
          for (std::size_t k = 0; k < t; ++k) {
            const vertex_t p = part.pred[r * t + k];
            if (o.targets[k] == o.sources[r] || part.dist[r * t + k] == kUnreachable<W>) continue;
            ASSERT_GE(p, 0);
            ASSERT_LT(p, n);
            const W via = full.dist[static_cast<std::size_t>(o.sources[r] * n + p)];
            ASSERT_NE(via, kUnreachable<W>) << "predecessor " << p << " unreachable";
          }
      }
      SparseSink sparse(SparseKeep{std::nullopt, 3});
      o.predecessors = false;
      solve(g, o, sparse);
      const SparseDistances& kept = sparse.result();
      ASSERT_EQ(kept.rows, static_cast<std::int64_t>(o.sources.size()));
      for (std::size_t r = 0; r < o.sources.size(); ++r)
        for (auto k = kept.row_start[r]; k < kept.row_start[r + 1]; ++k) {
          const auto column = static_cast<std::size_t>(kept.column[static_cast<std::size_t>(k)]);
          const double want =
              static_cast<double>(full.dist[static_cast<std::size_t>(o.sources[r] * n + o.targets[column])]);
          const double got = kept.distance(static_cast<std::size_t>(k));
          if (std::is_same<W, std::int32_t>::value)
            ASSERT_EQ(got, want);
          else  // reals within the tests' tolerance, as above
            ASSERT_NEAR(got, want, test::test_relative_tolerance<W>(n) * std::max(scale, std::fabs(want)));
        }
    }
  }
  EXPECT_GT(finite, 0);
  EXPECT_GT(unreachable, 0);
}

TEST(GpuParts, SourcesByTargetsMatchTheFullSolveInt32) {
  SKIP_WITHOUT_GPU();
  expect_parts_match_the_full_solve<std::int32_t>();
}
TEST(GpuParts, SourcesByTargetsMatchTheFullSolveFloat32) {
  SKIP_WITHOUT_GPU();
  expect_parts_match_the_full_solve<float>();
}
TEST(GpuParts, SourcesByTargetsMatchTheFullSolveFloat64) {
  SKIP_WITHOUT_GPU();
  expect_parts_match_the_full_solve<double>();
}

// The row solvers gather the target columns on the device (issue 23): the
// link and the sink see s x t values. Against the full solve's submatrix, in
// each weight type, for sssp and supernodal: one target, every vertex as a
// target (reversed), repeats out of order, targets without sources, with
// predecessors, in chunks under a small device budget; with --verify the
// rows reach the host whole and are cut there (no device gather), same values.
template <class W>
void expect_device_gather_matches_the_full_solve() {
  const Graph base = test::generated(GraphKind::random, 600, 3000, 1, 100, 5);
  const BasicGraph<W> g = in_type<W>(base);
  const std::int64_t n = g.n;
  std::vector<vertex_t> every(static_cast<std::size_t>(n));
  for (vertex_t v = 0; v < n; ++v) every[static_cast<std::size_t>(v)] = static_cast<vertex_t>(n - 1 - v);
  const std::vector<std::vector<vertex_t>> target_sets = {{static_cast<vertex_t>(n - 1)}, every, chosen(n, 2)};
  double scale = 1;
  for (const auto& e : g.edges) scale = std::max(scale, std::fabs(double(e.w)));
  int checked = 0;
  for (const AlgorithmInfo& a : test::gpu_algorithms()) {
    if (std::string(a.name) != "sssp" && std::string(a.name) != "supernodal") continue;
    SolveOptions o = test::on_gpu(a.name, Precision::automatic, a.takes_predecessors);
    const BasicSolveResult<W> full = solve(g, o);
    for (const std::vector<vertex_t>& targets : target_sets)
      for (const bool with_sources : {true, false})
        for (const bool verify : {false, true})
          for (const std::int64_t budget : {std::int64_t{0}, static_cast<std::int64_t>(7 * n * 12)}) {
            SCOPED_TRACE(std::string(a.name) + " t=" + std::to_string(targets.size()) +
                         " sources=" + std::to_string(with_sources) + " verify=" + std::to_string(verify) +
                         " budget=" + std::to_string(budget));
            SolveOptions part = o;
            part.targets = targets;
            part.verify = verify;
            if (with_sources) part.sources = chosen(n, 1);
            cuda::testing::hooks.sparse_row_budget = budget;
            const std::int64_t gathered_before = cuda::testing::hooks.gathered_chunks;
            const BasicSolveResult<W> got = solve(g, part);
            cuda::testing::hooks.sparse_row_budget = 0;
            // float32's predecessors may be repaired on the host (ties within
            // its rounding on a cycle), which also takes whole rows there.
            if (verify || !std::is_same<W, float>::value)
              EXPECT_EQ(cuda::testing::hooks.gathered_chunks > gathered_before, !verify);
            const std::size_t rows = with_sources ? part.sources.size() : static_cast<std::size_t>(n);
            const std::size_t t = targets.size();
            ASSERT_EQ(got.dist.size(), rows * t);
            if (a.takes_predecessors) ASSERT_EQ(got.pred.size(), rows * t);
            for (std::size_t r = 0; r < rows; ++r) {
              const auto source = static_cast<std::int64_t>(with_sources ? part.sources[r] : static_cast<vertex_t>(r));
              for (std::size_t k = 0; k < t; ++k) {
                const W want = full.dist[static_cast<std::size_t>(source * n + targets[k])];
                const W value = got.dist[r * t + k];
                if (std::is_same<W, std::int32_t>::value || want == kUnreachable<W>)
                  ASSERT_EQ(value, want) << "source " << source << " target " << targets[k];
                else
                  ASSERT_NEAR(double(value), double(want),
                              test::test_relative_tolerance<W>(n) * std::max(scale, std::fabs(double(want))));
                const vertex_t p = got.pred[r * t + k];
                ++checked;
                if (!a.takes_predecessors || targets[k] == source || want == kUnreachable<W>) continue;
                ASSERT_GE(p, 0);
                ASSERT_LT(p, n);
                ASSERT_NE(full.dist[static_cast<std::size_t>(source * n + p)], kUnreachable<W>);
              }
            }
          }
  }
  EXPECT_GT(checked, 0);
}

TEST(GpuParts, DeviceGatherOfTargetsMatchesTheFullSolveInt32) {
  SKIP_WITHOUT_GPU();
  expect_device_gather_matches_the_full_solve<std::int32_t>();
}
TEST(GpuParts, DeviceGatherOfTargetsMatchesTheFullSolveFloat32) {
  SKIP_WITHOUT_GPU();
  expect_device_gather_matches_the_full_solve<float>();
}
TEST(GpuParts, DeviceGatherOfTargetsMatchesTheFullSolveFloat64) {
  SKIP_WITHOUT_GPU();
  expect_device_gather_matches_the_full_solve<double>();
}

// A part's fixed costs are labelled (issue 23): the row solvers' renumbering
// is its own stage (not the sink's "open output"), only when sources move,
// and the device's start is "device start" (not the CLI's "other").
TEST(GpuParts, RenumberingAndTheDeviceStartAreStagesOfTheirOwn) {
  SKIP_WITHOUT_GPU();
  const Graph g = test::generated(GraphKind::random, 600, 3000, 1, 100, 5);
  const auto stage_named = [](const SolveSummary& s, const std::string& name) {
    return std::any_of(s.times.stages.begin(), s.times.stages.end(),
                       [&](const Stage& stage) { return stage.name == name; });
  };
  SolveOptions o = test::on_gpu("sssp", Precision::automatic, false);
  o.sources = {7, 3, 500};
  o.targets = {1, 2};
  HostMatrixSink moved;
  const SolveSummary renumbered = solve(g, o, moved);
  EXPECT_TRUE(stage_named(renumbered, "renumber sources"));
  EXPECT_TRUE(stage_named(renumbered, "device start"));
  o.sources = {0, 1, 2};
  HostMatrixSink prefix;
  const SolveSummary kept = solve(g, o, prefix);
  EXPECT_FALSE(stage_named(kept, "renumber sources"));
  EXPECT_TRUE(stage_named(kept, "device start"));
}

// The row solvers compute only the chosen rows: a cutoff over some sources
// of a larger graph streams in chunks under a small device budget and still
// keeps exactly the full solve's pairs.
TEST(GpuParts, CutoffOverStreamedChunksKeepsTheFullSolvesPairs) {
  SKIP_WITHOUT_GPU();
  const Graph g = test::generated(GraphKind::random, 5000, 20000, 1, 100, 3);
  SolveOptions o = test::on_gpu("sssp");
  const SolveResult full = solve(g, o);
  std::vector<vertex_t> sources;
  for (vertex_t s = 4999; s >= 0; s -= 37) sources.push_back(s);
  o.sources = sources;
  cuda::testing::hooks.sparse_row_budget = 8 * 5000 * 4;  // 8 rows a chunk
  SparseSink sink(SparseKeep{150.0, 0});
  solve(g, o, sink);
  cuda::testing::hooks.sparse_row_budget = 0;
  const SparseDistances& kept = sink.result();
  std::size_t want = 0;
  for (std::size_t r = 0; r < sources.size(); ++r) {
    for (std::int64_t j = 0; j < 5000; ++j) want += full.dist[static_cast<std::size_t>(sources[r] * 5000 + j)] <= 150;
    for (auto k = kept.row_start[r]; k < kept.row_start[r + 1]; ++k)
      ASSERT_EQ(kept.distance(static_cast<std::size_t>(k)),
                full.dist[static_cast<std::size_t>(sources[r] * 5000 + kept.column[static_cast<std::size_t>(k)])]);
  }
  EXPECT_EQ(kept.size(), want);
  EXPECT_GT(want, sources.size());
}

}  // namespace
}  // namespace apsp
