// Out-of-core fw (cuda/fw_out_of_core.hpp, an internal module of the CUDA
// backend) against the in-core production rounds on the same padded matrix,
// bit for bit, at small forced super-tile widths so that every step of the
// schedule runs; and against the tests' independent reference. Then the
// registry entry fw-ooc through apsp::solve: a memory budget forcing it
// equals in-core fw bit for bit, auto's choice and note, the refusals; the
// predecessor mode likewise.
// Exists only in CUDA builds; skips without a device.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "apsp/cuda.hpp"
#include "apsp/generate.hpp"
#include "apsp/sinks.hpp"
#include "apsp/solver.hpp"
#include "core/cuda_check.hpp"
#include "core/cuda_memory.hpp"
#include "core/resources.hpp"
#include "cuda/fw_out_of_core.hpp"
#include "cuda/fw_real.hpp"
#include "cuda/testing.hpp"
#include "gpu/device_fixtures.hpp"
#include "support/cases.hpp"

namespace apsp {
namespace {

constexpr std::int32_t kInf16 = 16383;  // kernels/common/words.cuh

// A seeded graph on n vertices with about 4 out-edges each, weights in
// [0, max_weight] (zeros included), duplicate edges and self-loops, and
// vertices n - n/5 .. n-1 reachable from nowhere else: finite and
// unreachable pairs both appear.
Graph seeded_graph(std::int64_t n, weight_t max_weight, std::uint64_t seed) {
  Graph g;
  g.n = n;
  std::mt19937_64 random(seed);
  const std::int64_t closed_from = n - n / 5;
  for (std::int64_t e = 0; n > 0 && e < 4 * n; ++e) {
    const auto u = static_cast<vertex_t>(random() % static_cast<std::uint64_t>(n));
    auto v = static_cast<vertex_t>(random() % static_cast<std::uint64_t>(n));
    if (v >= closed_from && u < closed_from) v = static_cast<vertex_t>(v % std::max<std::int64_t>(closed_from, 1));
    const auto w = static_cast<weight_t>(random() % static_cast<std::uint64_t>(max_weight + 1));
    g.edges.push_back({u, v, w});
    if (e % 17 == 0) g.edges.push_back({u, v, w + 1});  // a duplicate, heavier
  }
  if (n > 0) g.edges.push_back({0, 0, 3});  // a self-loop
  return g;
}

// The order x order matrix of g: edge weights (least of duplicates), 0 on the
// diagonal, `infinity` elsewhere; vertices past n are isolated padding.
template <class T>
std::vector<T> matrix_of(const Graph& g, std::int64_t order, std::int32_t infinity) {
  std::vector<T> m(static_cast<std::size_t>(order * order), static_cast<T>(infinity));
  for (std::int64_t v = 0; v < order; ++v) m[static_cast<std::size_t>(v * order + v)] = 0;
  for (const Edge& e : g.edges) {
    if (e.src == e.dst) continue;
    T& cell = m[static_cast<std::size_t>(e.src * order + e.dst)];
    cell = std::min<T>(cell, static_cast<T>(e.w));
  }
  return m;
}

// The in-core production rounds on a device copy of `m` (order x order).
template <class T>
std::vector<T> in_core(const std::vector<T>& m, std::int64_t order) {
  cuda::DeviceBuffer<T> d(m.size());
  cuda::Stream stream;
  APSP_CUDA_CHECK(cudaMemcpy(d.get(), m.data(), m.size() * sizeof(T), cudaMemcpyHostToDevice));
  if constexpr (sizeof(T) == 4)
    cuda::fw_rounds_int32(d.get(), order, stream.get(), ProgressSpan{});
  else
    cuda::fw_rounds_int16(d.get(), order, stream.get(), ProgressSpan{});
  stream.synchronize();
  std::vector<T> out(m.size());
  APSP_CUDA_CHECK(cudaMemcpy(out.data(), d.get(), m.size() * sizeof(T), cudaMemcpyDeviceToHost));
  return out;
}

// The first n x n block of an order x order result, as int32 with kInf for
// the width's infinity: what test::reference_distances gives.
template <class T>
std::vector<dist_t> distances(const std::vector<T>& m, std::int64_t n, std::int64_t order, std::int32_t infinity) {
  std::vector<dist_t> d(static_cast<std::size_t>(n * n));
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      const std::int32_t v = m[static_cast<std::size_t>(i * order + j)];
      d[static_cast<std::size_t>(i * n + j)] = v >= infinity ? kInf : v;
    }
  return d;
}

template <class T>
void expect_out_of_core_matches(std::int64_t n, std::int64_t width, std::int32_t infinity, weight_t max_weight) {
  const Graph g = seeded_graph(n, max_weight, 20261126 + static_cast<std::uint64_t>(n));
  const core::SuperShape shape{width,
                               std::max<std::int64_t>(1, test::round_up(std::max<std::int64_t>(n, 1), width) / width)};
  const std::int64_t order = shape.order();
  const std::vector<T> input = matrix_of<T>(g, order, infinity);
  const std::vector<T> expected = in_core(input, order);
  cuda::PinnedBuffer<T> host(input.size());
  std::copy(input.begin(), input.end(), host.get());
  cuda::fw_out_of_core(host.get(), shape);
  const std::vector<T> actual(host.get(), host.get() + input.size());
  const std::string where = "n = " + std::to_string(n) + ", width " + std::to_string(width);
  ASSERT_EQ(expected, actual) << where << ": out-of-core differs from the in-core rounds";
  const std::vector<dist_t> d = distances(actual, n, order, infinity);
  EXPECT_EQ(test::first_difference(test::reference_distances(g), d, n), "") << where;
  if (n >= 10) {
    const test::EntryCounts counts = test::count_entries(d, n);
    EXPECT_GT(counts.finite_off_diagonal, 0) << where;
    EXPECT_GT(counts.unreachable, 0) << where;
  }
}

TEST(CudaFwOutOfCore, Int32MatchesInCoreBitForBitSanitize) {
  SKIP_WITHOUT_GPU();
  expect_out_of_core_matches<std::int32_t>(300, 128, kInf, 50);  // 3 x 3 super-tiles: every step
}

TEST(CudaFwOutOfCore, Int32AtTileBoundaries) {
  SKIP_WITHOUT_GPU();
  for (const std::int64_t n : {1, 127, 128, 129, 256, 257, 513})
    expect_out_of_core_matches<std::int32_t>(n, 128, kInf, 1000);
  expect_out_of_core_matches<std::int32_t>(700, 256, kInf, 1000);
}

TEST(CudaFwOutOfCore, Int16MatchesInCoreBitForBit) {
  SKIP_WITHOUT_GPU();
  for (const std::int64_t n : {1, 255, 256, 257, 600}) expect_out_of_core_matches<std::int16_t>(n, 256, kInf16, 20);
}

// Predecessor mode (kernels/common/words.cuh): distances d << 8 with
// kInfTagged = 2^22 - 1 as infinity, midpoints -1 before the rounds.
constexpr int kTagBits = 8;
constexpr std::int32_t kInfTagged = (1 << 22) - 1;

struct Tagged {
  std::vector<std::int32_t> cells, mid;
};

Tagged tagged_input(const Graph& g, std::int64_t order) {
  Tagged t{matrix_of<std::int32_t>(g, order, kInfTagged), {}};
  for (std::int32_t& x : t.cells) x <<= kTagBits;
  t.mid.assign(t.cells.size(), -1);
  return t;
}

// In-core fw's predecessor rounds (fw_rounds_tagged on the whole matrix).
Tagged in_core_tagged(const Tagged& input, std::int64_t order) {
  cuda::DeviceBuffer<std::int32_t> d(input.cells.size()), mid(input.mid.size());
  cuda::DeviceBuffer<std::int32_t> row_tagged(static_cast<std::size_t>(128 * order));
  cuda::Stream stream;
  const std::size_t bytes = input.cells.size() * sizeof(std::int32_t);
  APSP_CUDA_CHECK(cudaMemcpy(d.get(), input.cells.data(), bytes, cudaMemcpyHostToDevice));
  APSP_CUDA_CHECK(cudaMemcpy(mid.get(), input.mid.data(), bytes, cudaMemcpyHostToDevice));
  cuda::fw_rounds_tagged(d.get(), order, stream.get(), mid.get(), row_tagged.get());
  stream.synchronize();
  Tagged out{std::vector<std::int32_t>(input.cells.size()), std::vector<std::int32_t>(input.mid.size())};
  APSP_CUDA_CHECK(cudaMemcpy(out.cells.data(), d.get(), bytes, cudaMemcpyDeviceToHost));
  APSP_CUDA_CHECK(cudaMemcpy(out.mid.data(), mid.get(), bytes, cudaMemcpyDeviceToHost));
  return out;
}

Tagged out_of_core_tagged(const Tagged& input, const core::SuperShape& shape) {
  cuda::PinnedBuffer<std::int32_t> cells(input.cells.size());
  std::vector<std::int32_t> mid = input.mid;  // pageable: registered for the run
  std::copy(input.cells.begin(), input.cells.end(), cells.get());
  cuda::fw_out_of_core_tagged(cells.get(), mid.data(), shape);
  return Tagged{std::vector<std::int32_t>(cells.get(), cells.get() + input.cells.size()), mid};
}

core::SuperShape shape_of(std::int64_t n, std::int64_t width) {
  return core::SuperShape{width,
                          std::max<std::int64_t>(1, test::round_up(std::max<std::int64_t>(n, 1), width) / width)};
}

// 128-wide super-tiles are in-core fw's rounds one for one: the tagged words
// and every midpoint bit for bit (ties included: the words' min is
// canonical), and the distances the reference's.
TEST(CudaFwOutOfCore, TaggedMatchesInCoreBitForBitAt128Sanitize) {
  SKIP_WITHOUT_GPU();
  for (const std::int64_t n : {1, 129, 300}) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const Graph g = seeded_graph(n, 20, 31 + static_cast<std::uint64_t>(n));  // small weights: many ties
    const core::SuperShape shape = shape_of(n, 128);
    const Tagged input = tagged_input(g, shape.order());
    const Tagged expected = in_core_tagged(input, shape.order());
    const Tagged actual = out_of_core_tagged(input, shape);
    ASSERT_EQ(expected.cells, actual.cells);
    ASSERT_EQ(expected.mid, actual.mid);
    std::vector<std::int32_t> unshifted(actual.cells.size());
    for (std::size_t x = 0; x < unshifted.size(); ++x) unshifted[x] = actual.cells[x] >> kTagBits;
    const std::vector<dist_t> d = distances(unshifted, n, shape.order(), kInfTagged);
    EXPECT_EQ(test::first_difference(test::reference_distances(g), d, n), "");
    if (n >= 10) {
      const test::EntryCounts counts = test::count_entries(d, n);
      EXPECT_GT(counts.finite_off_diagonal, 0);
      EXPECT_GT(counts.unreachable, 0);
      EXPECT_GT(std::count_if(actual.mid.begin(), actual.mid.end(), [](std::int32_t m) { return m >= 0; }), 0);
    }
  }
}

// Wider super-tiles: the same distances; each midpoint k of (i, j) a vertex
// on a shortest path (d[i][k] + d[k][j] = d[i][j], k not i or j). On ties it
// may name another vertex than in-core's: a super-round's rank-128 steps see
// panels closed over the whole super-block.
TEST(CudaFwOutOfCore, TaggedWiderSuperTilesGiveShortestPathMidpoints) {
  SKIP_WITHOUT_GPU();
  for (const std::int64_t n : {257, 600}) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const Graph g = seeded_graph(n, 20, 77 + static_cast<std::uint64_t>(n));
    const core::SuperShape shape = shape_of(n, 256);
    const std::int64_t order = shape.order();
    const Tagged input = tagged_input(g, order);
    const Tagged expected = in_core_tagged(input, order);
    const Tagged actual = out_of_core_tagged(input, shape);
    ASSERT_EQ(expected.cells, actual.cells);
    std::int64_t midpoints = 0;
    for (std::int64_t i = 0; i < n; ++i)
      for (std::int64_t j = 0; j < n; ++j) {
        const std::int32_t k = actual.mid[static_cast<std::size_t>(i * order + j)];
        if (k < 0) continue;
        ++midpoints;
        ASSERT_LT(k, n) << i << "->" << j;
        ASSERT_NE(k, i);
        ASSERT_NE(k, j);
        auto at = [&](std::int64_t a, std::int64_t b) { return actual.cells[static_cast<std::size_t>(a * order + b)]; };
        ASSERT_EQ(at(i, k) + at(k, j), at(i, j)) << i << "->" << k << "->" << j;
      }
    EXPECT_GT(midpoints, 0);
  }
}

// The round-boundary hook: a copy of the host matrix taken after round 1,
// continued with first_round = 1, ends where the uninterrupted run ends.
TEST(CudaFwOutOfCore, ContinuesFromARoundBoundary) {
  SKIP_WITHOUT_GPU();
  constexpr std::int64_t n = 400, width = 128;
  const core::SuperShape shape{width, 4};
  const Graph g = seeded_graph(n, 100, 7);
  const std::vector<std::int32_t> input = matrix_of<std::int32_t>(g, shape.order(), kInf);
  cuda::PinnedBuffer<std::int32_t> whole(input.size());
  std::copy(input.begin(), input.end(), whole.get());
  std::vector<std::int32_t> after_one;
  std::vector<std::int64_t> boundaries;
  cuda::OutOfCoreRun run;
  run.at_boundary = [&](std::int64_t done, std::int64_t rounds) {
    boundaries.push_back(done);
    EXPECT_EQ(rounds, 4);
    if (done == 1) after_one.assign(whole.get(), whole.get() + input.size());
  };
  cuda::fw_out_of_core(whole.get(), shape, run);
  EXPECT_EQ(boundaries, (std::vector<std::int64_t>{1, 2, 3, 4}));
  ASSERT_EQ(after_one.size(), input.size());
  EXPECT_NE(after_one, input);                    // round 0 changed something
  std::vector<std::int32_t> resumed = after_one;  // pageable: registered for the run
  cuda::OutOfCoreRun rest;
  rest.first_round = 1;
  cuda::fw_out_of_core(resumed.data(), shape, rest);
  EXPECT_EQ(resumed, std::vector<std::int32_t>(whole.get(), whole.get() + input.size()));
}

TEST(CudaFwOutOfCore, ShapeRespectsTheBudgetAndRefusesWhatCannotFit) {
  SKIP_WITHOUT_GPU();
  const core::SuperShape forced = cuda::out_of_core_shape(1000, Precision::int32, std::uint64_t{1} << 30, 256, nullptr);
  EXPECT_EQ(forced.width, 256);
  EXPECT_EQ(forced.blocks, 4);
  const cuda::OutOfCoreRates rates{25e9, 1.5e13};
  const std::uint64_t budget = std::uint64_t{2} << 30;
  const core::SuperShape chosen = cuda::out_of_core_shape(150000, Precision::int32, budget, 0, &rates);
  EXPECT_GE(chosen.order(), 150000);
  EXPECT_LE(core::super_device_bytes(chosen, 4), budget);
  EXPECT_THROW(cuda::out_of_core_shape(150000, Precision::int32, std::uint64_t{64} << 20, 0, &rates), ResourceError);
  EXPECT_THROW(cuda::out_of_core_shape(1000, Precision::int16, std::uint64_t{1} << 30, 128, nullptr), UsageError);
}

// seeded_graph with Johnson-style shifts w + p[u] - p[v] (p in [0, 60]):
// negative weights, no negative cycle (every cycle keeps its weight).
Graph with_negative_weights(std::int64_t n, std::uint64_t seed) {
  Graph g = seeded_graph(n, 100, seed);
  std::mt19937_64 random(seed + 1);
  std::vector<weight_t> p(static_cast<std::size_t>(n));
  for (weight_t& x : p) x = static_cast<weight_t>(random() % 61);
  for (Edge& e : g.edges)
    if (e.src != e.dst) e.w += p[static_cast<std::size_t>(e.src)] - p[static_cast<std::size_t>(e.dst)];
  return g;
}

SolveOptions on_gpu(const std::string& algorithm, std::uint64_t memory_budget = 0) {
  SolveOptions o;
  o.backend = Backend::cuda;
  o.algorithm = algorithm;
  o.precision = Precision::int32;
  o.memory_budget = memory_budget;
  return o;
}

// 2 MiB holds 128-wide super-tiles for these sizes, not one matrix: several
// super-rounds with every step.
constexpr std::uint64_t kSmallBudget = std::uint64_t{2} << 20;
// int16 works in 256-wide granules: at n = 600 (768 padded) a 256-wide
// super-tile needs about 2.2 MB (core::super_device_bytes), so 3 MiB gives
// three super-rounds of width 256 and no wider shape fits.
constexpr std::uint64_t kSmallInt16Budget = std::uint64_t{3} << 20;

TEST(CudaFwOutOfCoreSolve, EqualsInCoreFwBitForBitWithNegativeWeights) {
  SKIP_WITHOUT_GPU();
  for (const std::int64_t n : {0, 1, 127, 129, 300, 700}) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const Graph g = with_negative_weights(n, 99 + static_cast<std::uint64_t>(n));
    const SolveResult in_core = solve(g, on_gpu("fw"));
    SolveOptions forced = on_gpu("fw-ooc", kSmallBudget);
    forced.verify = true;
    const SolveResult out_of_core = solve(g, forced);
    EXPECT_EQ(out_of_core.algorithm, "fw-ooc");
    EXPECT_EQ(out_of_core.precision, Precision::int32);
    EXPECT_TRUE(out_of_core.verified);
    ASSERT_EQ(in_core.dist.size(), out_of_core.dist.size());
    EXPECT_TRUE(in_core.dist == out_of_core.dist);
    EXPECT_EQ(test::first_difference(test::reference_distances(g), out_of_core.dist, n), "");
    if (n >= 10) {
      const test::EntryCounts counts = test::count_entries(out_of_core.dist, n);
      EXPECT_GT(counts.finite_off_diagonal, 0);
      EXPECT_GT(counts.unreachable, 0);
    }
    if (n >= 300) EXPECT_NE(out_of_core.note.find("out of core: "), std::string::npos) << out_of_core.note;
  }
}

TEST(CudaFwOutOfCoreSolve, Int16EqualsInCoreFw) {
  SKIP_WITHOUT_GPU();
  const Graph g = seeded_graph(600, 20, 5);
  SolveOptions in_core = on_gpu("fw");
  in_core.precision = Precision::int16;
  SolveOptions forced = on_gpu("fw-ooc", kSmallInt16Budget);
  forced.precision = Precision::int16;
  const SolveResult a = solve(g, in_core), b = solve(g, forced);
  EXPECT_EQ(b.precision, Precision::int16);
  EXPECT_TRUE(a.dist == b.dist);
  EXPECT_EQ(test::first_difference(test::reference_distances(g), b.dist, 600), "");
}

// auto runs fw-ooc only when fw's matrix exceeds the device memory allowed,
// and says so; an explicit fw beyond the budget is refused. int16 makes the
// cost model's pick fw whatever the graph ("int16 is a mode of fw").
TEST(CudaFwOutOfCoreSolve, AutoGoesOutOfCoreOnlyPastTheBudget) {
  SKIP_WITHOUT_GPU();
  const Graph g = normalize(test::generated(GraphKind::dense, 1000, -1, 1, 100, 3));
  SolveOptions automatic = on_gpu("auto");
  automatic.precision = Precision::int16;
  const SolveResult within = solve(g, automatic);
  EXPECT_EQ(within.algorithm, "fw") << within.note;
  EXPECT_EQ(within.note.find("does not fit"), std::string::npos) << within.note;
  // fw needs 4 MiB of matrix plus 96 MiB of working space.
  automatic.memory_budget = std::uint64_t{64} << 20;
  const SolveResult past = solve(g, automatic);
  EXPECT_EQ(past.algorithm, "fw-ooc") << past.note;
  EXPECT_EQ(past.precision, within.precision);
  EXPECT_NE(past.note.find("in-core fw does not fit (the 1000-vertex matrix needs"), std::string::npos) << past.note;
  EXPECT_NE(past.note.find("out of core: "), std::string::npos) << past.note;
  EXPECT_TRUE(within.dist == past.dist);
  try {
    solve(g, on_gpu("fw", std::uint64_t{64} << 20));
    ADD_FAILURE() << "no ResourceError";
  } catch (const ResourceError& e) {
    EXPECT_NE(std::string(e.what()).find("memory budget"), std::string::npos) << e.what();
  }
  // With predecessors the cost model weighs fw against sssp on its own
  // terms (no int16); whatever it picks within the budget, past the budget
  // a pick of fw becomes fw-ooc (fw's matrices then need twice the memory).
  // At n = 4000 dense it picks fw with today's constants.
  const Graph big = normalize(test::generated(GraphKind::dense, 4000, -1, 1, 100, 4));
  SolveOptions with_predecessors = on_gpu("auto");
  with_predecessors.precision = Precision::automatic;
  with_predecessors.predecessors = true;
  const SolveResult unlimited = solve(big, with_predecessors);
  with_predecessors.memory_budget = std::uint64_t{64} << 20;  // fw needs 128 MiB of matrices
  const SolveResult limited = solve(big, with_predecessors);
  EXPECT_EQ(limited.algorithm, unlimited.algorithm == "fw" ? "fw-ooc" : unlimited.algorithm) << limited.note;
  EXPECT_TRUE(unlimited.dist == limited.dist);
  EXPECT_EQ(test::check_predecessors(big, limited.dist, limited.pred), "");
  SolveOptions int16_predecessors = on_gpu("fw-ooc", std::uint64_t{64} << 20);
  int16_predecessors.predecessors = true;
  int16_predecessors.precision = Precision::int16;
  EXPECT_THROW(solve(g, int16_predecessors), UsageError);
}

// Predecessors through solve(): under kSmallBudget the super-tiles are 128
// wide, in-core fw's own rounds, so distances and predecessors equal in-core
// fw's bit for bit (negative and zero weights, ties, duplicates, self-loops,
// unreachable parts); the trees are checked against the graph.
TEST(CudaFwOutOfCoreSolve, PredecessorsEqualInCoreFw) {
  SKIP_WITHOUT_GPU();
  for (const std::int64_t n : {0, 1, 129, 300, 700}) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const Graph g = with_negative_weights(n, 41 + static_cast<std::uint64_t>(n));
    SolveOptions fw = on_gpu("fw");
    fw.predecessors = true;
    SolveOptions forced = on_gpu("fw-ooc", kSmallBudget);
    forced.predecessors = true;
    forced.verify = true;
    const SolveResult in_core = solve(g, fw), out_of_core = solve(g, forced);
    EXPECT_EQ(out_of_core.algorithm, "fw-ooc");
    EXPECT_TRUE(in_core.dist == out_of_core.dist);
    EXPECT_TRUE(in_core.pred == out_of_core.pred);
    EXPECT_EQ(test::first_difference(test::reference_distances(g), out_of_core.dist, n), "");
    EXPECT_EQ(test::check_predecessors(g, out_of_core.dist, out_of_core.pred), "");
    if (n >= 300) EXPECT_NE(out_of_core.note.find("of width 128 "), std::string::npos) << out_of_core.note;
  }
}

// The zero-weight cycle of GpuProduction.HostRepairsPredecessorRowsTheGpuLeftCyclic
// and a path beyond the tagged range (the fallback: int32 rounds, each
// predecessor off a tight in-edge by in-core fw's rule), both out of core
// and in core: the same distances and predecessors, valid trees; and with
// the tagged certificate forced to fail on the first graph, the fallback
// leaves rows 8 and 9 cyclic, which the host repairs, as in core.
TEST(CudaFwOutOfCoreSolve, PredecessorsOnZeroCyclesAndBeyondTheTaggedRange) {
  SKIP_WITHOUT_GPU();
  Graph zero_cycle;
  zero_cycle.n = 12;
  zero_cycle.edges = {{9, 8, 1}, {8, 6, 0}, {6, 7, 0}, {7, 6, 0}, {0, 9, 4}, {6, 10, 2}, {7, 10, 2}, {10, 0, 3}};
  Graph long_path;
  long_path.n = 300;
  for (vertex_t v = 0; v + 1 < long_path.n; ++v) long_path.edges.push_back(Edge{v, v + 1, 50000});
  long_path.edges.push_back(Edge{7, 2, 3});
  SolveOptions fw = on_gpu("fw");
  fw.predecessors = true;
  SolveOptions forced = on_gpu("fw-ooc", kSmallBudget);
  forced.predecessors = true;
  for (int pass = 0; pass < 3; ++pass) {
    const Graph& g = pass == 1 ? long_path : zero_cycle;
    SCOPED_TRACE("pass " + std::to_string(pass));
    const std::unique_ptr<cuda::testing::ForceHook> fallback =
        pass == 2 ? std::make_unique<cuda::testing::ForceHook>(cuda::testing::hooks.fail_tagged_range) : nullptr;
    const SolveResult in_core = solve(g, fw);
    const std::int64_t repaired_before = cuda::testing::hooks.repaired_rows;
    const SolveResult r = solve(g, forced);
    if (pass == 2) EXPECT_GT(cuda::testing::hooks.repaired_rows - repaired_before, 0) << "no row repaired";
    EXPECT_EQ(r.algorithm, "fw-ooc");
    EXPECT_TRUE(in_core.dist == r.dist);
    EXPECT_TRUE(in_core.pred == r.pred);
    EXPECT_EQ(test::first_difference(test::reference_distances(g), r.dist, g.n), "");
    EXPECT_EQ(test::check_predecessors(g, r.dist, r.pred), "");
    const test::EntryCounts counts = test::count_entries(r.dist, g.n);
    EXPECT_GT(counts.finite_off_diagonal, 0);
    EXPECT_GT(counts.unreachable, 0);
  }
}

// The host matrix is refused before any work when the available memory
// (the resources module's test seam: a MemAvailable of 1 MiB) cannot hold it.
TEST(CudaFwOutOfCoreSolve, RefusedWhenHostMemoryCannotHoldTheMatrix) {
  SKIP_WITHOUT_GPU();
  const std::string meminfo = ::testing::TempDir() + "apsp_ooc_meminfo";
  std::ofstream(meminfo) << "MemAvailable:  1024 kB\n";
  resources::MemorySources fake;
  fake.meminfo = meminfo;
  fake.self_cgroup = meminfo + ".none";
  fake.cgroup_root = meminfo + ".none";
  resources::set_memory_sources_for_testing(&fake);
  const Graph g = seeded_graph(2000, 100, 1);
  NullSink sink;
  std::vector<double> progress;
  SolveOptions o = on_gpu("fw-ooc", kSmallBudget * 4);
  o.progress = [&](double f) { progress.push_back(f); };
  try {
    solve(g, o, sink);
    ADD_FAILURE() << "no ResourceError";
  } catch (const ResourceError& e) {
    EXPECT_NE(std::string(e.what()).find("the out-of-core 2000-vertex int32 matrix in host memory"), std::string::npos)
        << e.what();
  }
  o.predecessors = true;
  try {
    solve(g, o, sink);
    ADD_FAILURE() << "no ResourceError with predecessors";
  } catch (const ResourceError& e) {
    EXPECT_NE(std::string(e.what()).find("distance and midpoint matrices (predecessors) in host memory"),
              std::string::npos)
        << e.what();
  }
  resources::set_memory_sources_for_testing(nullptr);
  EXPECT_TRUE(progress.empty());
}

}  // namespace
}  // namespace apsp
