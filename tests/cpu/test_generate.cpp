// apsp::generate: determinism, sizes and ranges per kind, and no negative
// cycle when the weight range goes below zero.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "apsp/error.hpp"
#include "apsp/generate.hpp"
#include "apsp/graph.hpp"
#include "support/cases.hpp"

namespace apsp {
namespace {

constexpr GraphKind kKinds[] = {GraphKind::random, GraphKind::scale_free, GraphKind::rmat, GraphKind::grid,
                                GraphKind::dense};
const char* const kKindNames[] = {"random", "scale-free", "rmat", "grid", "dense"};

GenerateOptions options(GraphKind kind, std::int64_t n, weight_t lo, weight_t hi, std::uint64_t seed) {
  GenerateOptions o;
  o.kind = kind;
  o.n = n;
  o.m = 5 * n;
  o.degree = 3;
  o.density = 0.2;
  o.w_lo = lo;
  o.w_hi = hi;
  o.seed = seed;
  return o;
}

std::string describe(int kind, const GenerateOptions& o) {
  return std::string(kKindNames[kind]) + " n=" + std::to_string(o.n) + " weights " + std::to_string(o.w_lo) + ":" +
         std::to_string(o.w_hi) + " seed " + std::to_string(o.seed);
}

bool same_edges(const Graph& a, const Graph& b) {
  if (a.n != b.n || a.edges.size() != b.edges.size()) return false;
  for (std::size_t e = 0; e < a.edges.size(); ++e)
    if (a.edges[e].src != b.edges[e].src || a.edges[e].dst != b.edges[e].dst || a.edges[e].w != b.edges[e].w)
      return false;
  return true;
}

TEST(Generate, IsDeterministicForASeedAndVariesWithIt) {
  for (int k = 0; k < 5; ++k) {
    const GenerateOptions o = options(kKinds[k], 150, -10, 40, 7);
    SCOPED_TRACE(describe(k, o));
    EXPECT_TRUE(same_edges(generate(o), generate(o)));
    GenerateOptions other = o;
    other.seed = 8;
    EXPECT_FALSE(same_edges(generate(o), generate(other)));
  }
}

TEST(Generate, EveryKindHasNVerticesAndEdgesInRange) {
  for (int k = 0; k < 5; ++k)
    for (std::int64_t n : {0, 1, 2, 17, 64, 100, 333})
      for (auto [lo, hi] : {std::pair<weight_t, weight_t>{1, 100}, {0, 0}, {-30, 30}, {-1000, 1000}, {-50, 10}}) {
        const GenerateOptions o = options(kKinds[k], n, lo, hi, static_cast<std::uint64_t>(n + k));
        SCOPED_TRACE(describe(k, o));
        const Graph g = generate(o);
        EXPECT_EQ(g.n, n);
        for (const Edge& e : g.edges) {
          ASSERT_TRUE(e.src >= 0 && e.src < n && e.dst >= 0 && e.dst < n) << e.src << "->" << e.dst;
          ASSERT_TRUE(e.w >= lo && e.w <= hi) << "weight " << e.w << " on " << e.src << "->" << e.dst;
        }
        if (kKinds[k] == GraphKind::random || kKinds[k] == GraphKind::rmat)
          EXPECT_EQ(static_cast<std::int64_t>(g.edges.size()), n == 0 ? 0 : o.m);
        if (n >= 17 && kKinds[k] != GraphKind::dense) EXPECT_GE(static_cast<std::int64_t>(g.edges.size()), n);
        if (kKinds[k] == GraphKind::dense && n >= 64) {
          const double fraction = static_cast<double>(g.edges.size()) / static_cast<double>(n * (n - 1));
          EXPECT_NEAR(fraction, o.density, 0.05);
        }
      }
}

TEST(Generate, GridIsANearSquareLatticeBothWays) {
  const GenerateOptions o = options(GraphKind::grid, 100, 1, 9, 3);
  const Graph g = generate(o);
  // 10 x 10: 2 directions x (10 rows x 9 + 10 columns x 9) edges.
  EXPECT_EQ(g.edges.size(), 2u * (90 + 90));
  for (const Edge& e : g.edges) {
    const int step = std::abs(e.src - e.dst);
    EXPECT_TRUE(step == 10 || (step == 1 && std::min(e.src, e.dst) % 10 != 9)) << e.src << "->" << e.dst;
  }
}

TEST(Generate, NegativeWeightsNeverMakeANegativeCycle) {
  std::int64_t negative_edges = 0;
  for (int k = 0; k < 5; ++k)
    for (auto [lo, hi] : {std::pair<weight_t, weight_t>{-50, 10}, {-1000, 1000}, {-3, 0}})
      for (std::uint64_t seed : {1u, 2u, 3u}) {
        const GenerateOptions o = options(kKinds[k], 90, lo, hi, seed);
        SCOPED_TRACE(describe(k, o));
        const Graph g = generate(o);
        for (const Edge& e : g.edges) negative_edges += e.w < 0;
        // A negative cycle through i would leave the reference with d[i][i] < 0.
        const auto d = test::reference_distances(g);
        for (std::int64_t i = 0; i < g.n; ++i) ASSERT_EQ(d[i * g.n + i], 0) << "negative cycle through " << i;
      }
  EXPECT_GT(negative_edges, 1000);
}

TEST(Generate, RejectsBadOptionsAndKindNames) {
  for (int k = 0; k < 5; ++k) EXPECT_EQ(parse_graph_kind(kKindNames[k]), kKinds[k]);
  EXPECT_THROW(parse_graph_kind("torus"), UsageError);
  GenerateOptions o = options(GraphKind::random, 10, 1, 5, 1);
  o.n = -1;
  EXPECT_THROW(generate(o), UsageError);
  o = options(GraphKind::random, 10, 6, 5, 1);
  EXPECT_THROW(generate(o), UsageError);
  o = options(GraphKind::random, 10, -5, -1, 1);  // every cycle would be negative
  EXPECT_THROW(generate(o), UsageError);
  o = options(GraphKind::dense, 10, 1, 5, 1);
  o.density = 1.5;
  EXPECT_THROW(generate(o), UsageError);
  o = options(GraphKind::scale_free, 10, 1, 5, 1);
  o.degree = 0;
  EXPECT_THROW(generate(o), UsageError);
}

}  // namespace
}  // namespace apsp
