// Out-of-core fw (cuda/fw_out_of_core.hpp, an internal module of the CUDA
// backend) against the in-core production rounds on the same padded matrix,
// bit for bit, at small forced super-tile widths so that every step of the
// schedule runs; and against the tests' independent reference. Exists only
// in CUDA builds; skips without a device.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "apsp/cuda.hpp"
#include "core/cuda_check.hpp"
#include "core/cuda_memory.hpp"
#include "cuda/fw_out_of_core.hpp"
#include "cuda/fw_real.hpp"
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

}  // namespace
}  // namespace apsp
