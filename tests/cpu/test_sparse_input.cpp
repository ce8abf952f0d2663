// The host input of the sparse GPU solver (cuda/sparse_input.hpp): the
// near-far bucket width for int32 and real weights, and the reweighting of
// real-valued graphs (clamped reduced weights, never -0.0, potentials that
// undo it, negative cycles, float32 overflow); core::reduced_weight. Pure
// host code: runs without a GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <limits>
#include <vector>

#include "apsp/error.hpp"
#include "apsp/solver.hpp"
#include "core/weights.hpp"
#include "cuda/sparse_input.hpp"
#include "support/cases.hpp"

namespace apsp {
namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

// True when x is +0.0 or positive (bit-for-bit: -0.0 is not).
template <class W>
bool non_negative_bits(W x) {
  return x >= 0 && !std::signbit(x);
}

TEST(SparseInput, Int32DeltaIsTheRoundedUpScaledMeanInOneToInf) {
  std::vector<Edge> edges = {{0, 1, 1}, {1, 2, 2}, {2, 0, 4}};
  EXPECT_EQ(cuda::near_far_delta(edges), 10);  // ceil(4 * 7 / 3)
  EXPECT_EQ(cuda::near_far_delta(edges, 1.0), 3);
  EXPECT_EQ(cuda::near_far_delta(std::vector<Edge>{}), 1);
  EXPECT_EQ(cuda::near_far_delta(std::vector<Edge>{{0, 1, 0}}), 1);
  EXPECT_EQ(cuda::near_far_delta(std::vector<Edge>{{0, 1, kInf - 1}}), kInf);
}

TEST(SparseInput, RealDeltaIsTheScaledMeanPositiveAndFinite) {
  const std::vector<EdgeF64> edges = {{0, 1, 0.25}, {1, 2, 0.5}, {2, 0, 0.75}};
  EXPECT_DOUBLE_EQ(cuda::near_far_delta(edges), 2.0);  // 4 * 0.5, not rounded up
  EXPECT_DOUBLE_EQ(cuda::near_far_delta(edges, 0.5), 0.25);
  const std::vector<EdgeF32> edges32 = {{0, 1, 0.1f}, {1, 2, 0.3f}};
  EXPECT_NEAR(cuda::near_far_delta(edges32), 0.8f, 1e-6f);
  // Every weight 0: any positive width; none: 1.
  EXPECT_EQ(cuda::near_far_delta(std::vector<EdgeF64>{{0, 1, 0.0}, {1, 0, 0.0}}), 1.0);
  EXPECT_EQ(cuda::near_far_delta(std::vector<EdgeF32>{}), 1.0f);
  // Tiny weights stay positive in float32; huge ones finite.
  EXPECT_GT(cuda::near_far_delta(std::vector<EdgeF32>{{0, 1, 1e-44f}}), 0.0f);
  EXPECT_EQ(cuda::near_far_delta(std::vector<EdgeF32>{{0, 1, 1e-44f}}), std::numeric_limits<float>::min());
  const float huge = cuda::near_far_delta(std::vector<EdgeF32>{{0, 1, 3e38f}, {1, 0, 3e38f}});
  EXPECT_TRUE(std::isfinite(huge));
  EXPECT_EQ(huge, std::numeric_limits<float>::max());
}

TEST(SparseInput, ReducedWeightIsClampedAtPositiveZero) {
  EXPECT_EQ(core::reduced_weight(1.5, -1.0, -2.0), 2.5);
  const double dips = core::reduced_weight(0.3, 0.0, 0.1 + 0.2);  // 0.3 - 0.30000000000000004 < 0
  EXPECT_EQ(dips, 0.0);
  EXPECT_TRUE(non_negative_bits(dips));
  EXPECT_TRUE(non_negative_bits(core::reduced_weight(-0.0, 0.0, 0.0)));
  EXPECT_TRUE(non_negative_bits(core::reduced_weight(-1.0, 0.0, 0.0)));
}

// Without a negative weight the edges stay as they are, -0.0 made +0.0,
// and there are no potentials.
TEST(SparseInput, NonNegativeGraphsKeepTheirWeightsWithoutNegativeZero) {
  GraphF32 g;
  g.n = 3;
  g.edges = {{0, 1, -0.0f}, {1, 2, 0.5f}, {2, 0, 3.0f}};
  const cuda::RealReweighted<float> r = cuda::reweight_real(g);
  EXPECT_TRUE(r.potential.empty());
  ASSERT_EQ(r.edges.size(), 3u);
  EXPECT_TRUE(non_negative_bits(r.edges[0].w));
  EXPECT_EQ(r.edges[0].w, 0.0f);
  EXPECT_EQ(r.edges[1].w, 0.5f);
  EXPECT_EQ(r.edges[2].w, 3.0f);
  EXPECT_EQ(r.max_weight, 3.0f);
}

// Negative weights: every reduced weight is >= +0.0, the edge order is
// kept, and a reweighted distance d' from s to t gives the graph's distance
// d' + h[t] - h[s] (checked on the standard cases with negative weights,
// through the reference distances of both graphs).
TEST(SparseInput, ReweightedDistancesGiveTheGraphsOwn) {
  int checked = 0;
  for (const test::Case& c : test::standard_cases()) {
    if (c.graph.n < 2 || c.graph.n > 70) continue;
    const GraphF64 g = normalize(test::with_real_weights(c.graph));
    const bool negative = std::any_of(g.edges.begin(), g.edges.end(), [](const EdgeF64& e) { return e.w < 0; });
    if (!negative) continue;
    SCOPED_TRACE(c.name);
    const cuda::RealReweighted<double> r = cuda::reweight_real(g);
    ASSERT_EQ(r.potential.size(), static_cast<std::size_t>(g.n));
    ASSERT_EQ(r.edges.size(), g.edges.size());
    double largest = 0;
    for (std::size_t e = 0; e < r.edges.size(); ++e) {
      EXPECT_EQ(r.edges[e].src, g.edges[e].src);
      EXPECT_EQ(r.edges[e].dst, g.edges[e].dst);
      EXPECT_TRUE(non_negative_bits(r.edges[e].w)) << e;
      largest = std::max(largest, r.edges[e].w);
    }
    EXPECT_EQ(r.max_weight, largest);
    GraphF64 reduced;
    reduced.n = g.n;
    reduced.edges = r.edges;
    const std::vector<double> want = test::reference_distances(g);
    const std::vector<double> got = test::reference_distances(reduced);
    std::vector<double> back(got.size());
    for (std::int64_t s = 0; s < g.n; ++s)
      for (std::int64_t t = 0; t < g.n; ++t) {
        const double d = got[static_cast<std::size_t>(s * g.n + t)];
        back[static_cast<std::size_t>(s * g.n + t)] = d == kInfinity ? d : d + r.potential[t] - r.potential[s];
      }
    EXPECT_EQ(test::first_real_difference(want, back, g.n, test::max_abs_weight(g),
                                          test::test_relative_tolerance<double>(g.n)),
              "");
    ++checked;
  }
  EXPECT_GT(checked, 5);
}

TEST(SparseInput, NegativeCycleThrowsAsJohnsonDoes) {
  const test::Case c = test::negative_cycle_case(40, 3);
  const GraphF64 g = normalize(test::with_real_weights(c.graph));
  EXPECT_THROW(cuda::reweight_real(g), NegativeCycleError);
  EXPECT_THROW(cuda::reweight_real(test::to_float32(g)), NegativeCycleError);
}

// A reduced weight beyond float32's range names the edge.
TEST(SparseInput, Float32OverflowOfAReducedWeightIsARangeError) {
  GraphF32 g;
  g.n = 3;
  g.edges = {{0, 1, 3e38f}, {2, 1, -3e38f}};  // h[1] = -3e38: 0 -> 1 reweights to 6e38
  try {
    cuda::reweight_real(normalize(g));
    ADD_FAILURE() << "no error";
  } catch (const ArithmeticRangeError& e) {
    EXPECT_NE(std::string(e.what()).find("float32"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("edge "), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace apsp
