// apsp::generate: determinism, sizes and ranges per kind, and no negative
// cycle when the weight range goes below zero.
#include <gtest/gtest.h>

#include <algorithm>
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

GenerateOptions geometric(std::int64_t n, int k, std::uint64_t seed, weight_t lo = 1, weight_t hi = 100) {
  GenerateOptions o = options(GraphKind::geometric, n, lo, hi, seed);
  o.degree = k;
  return o;
}

// Vertices reached from 0 over the edges of g.
std::int64_t reached_from_zero(const Graph& g) {
  if (g.n == 0) return 0;
  const Csr c = to_csr(normalize(g));
  std::vector<char> seen(static_cast<std::size_t>(g.n), 0);
  std::vector<vertex_t> stack{0};
  seen[0] = 1;
  std::int64_t count = 1;
  while (!stack.empty()) {
    const vertex_t u = stack.back();
    stack.pop_back();
    for (std::int64_t e = c.row_start[u]; e < c.row_start[u + 1]; ++e)
      if (!seen[c.col[e]]) {
        seen[c.col[e]] = 1;
        ++count;
        stack.push_back(c.col[e]);
      }
  }
  return count;
}

TEST(GenerateGeometric, IsSymmetricWithoutDuplicatesAndReproducible) {
  for (std::int64_t n : {2, 3, 17, 500}) {
    for (int k : {1, 3, 6}) {
      const GenerateOptions o = geometric(n, k, static_cast<std::uint64_t>(n * 10 + k));
      SCOPED_TRACE("n=" + std::to_string(n) + " k=" + std::to_string(k));
      const Graph g = generate(o);
      EXPECT_TRUE(same_edges(g, generate(o)));
      GenerateOptions other = o;
      other.seed += 1;
      if (n >= 17) EXPECT_FALSE(same_edges(g, generate(other)));
      const Graph norm = normalize(g);
      EXPECT_EQ(norm.edges.size(), g.edges.size()) << "duplicate edges or self-loops";
      const Csr c = to_csr(norm);
      for (const Edge& e : g.edges) {
        const weight_t* back = nullptr;
        for (std::int64_t x = c.row_start[e.dst]; x < c.row_start[e.dst + 1]; ++x)
          if (c.col[x] == e.src) back = &c.weight[x];
        ASSERT_NE(back, nullptr) << e.src << "->" << e.dst << " has no reverse edge";
        EXPECT_EQ(*back, e.w);
        EXPECT_GE(e.w, 1);
        EXPECT_LE(e.w, 100);
      }
      // Every vertex has at least min(k, n - 1) neighbours, and each pair appears
      // once per direction: between n * k and 2 * n * k arcs.
      const auto m = static_cast<std::int64_t>(g.edges.size());
      const std::int64_t kk = std::min<std::int64_t>(k, n - 1);
      EXPECT_GE(m, n * kk);
      EXPECT_LE(m, 2 * n * kk);
      for (std::int64_t v = 0; v < n; ++v) EXPECT_GE(c.row_start[v + 1] - c.row_start[v], kk) << "vertex " << v;
    }
  }
}

TEST(GenerateGeometric, EdgeCasesOfNAndK) {
  EXPECT_EQ(generate(geometric(0, 4, 1)).n, 0);
  EXPECT_TRUE(generate(geometric(0, 4, 1)).edges.empty());
  const Graph one = generate(geometric(1, 4, 1));
  EXPECT_EQ(one.n, 1);
  EXPECT_TRUE(one.edges.empty());
  // n = 2: one pair, both ways, the longest edge: weight w_hi.
  const Graph two = generate(geometric(2, 4, 1));
  ASSERT_EQ(two.edges.size(), 2u);
  EXPECT_EQ(two.edges[0].w, 100);
  // k >= n: the complete graph, both directions.
  const Graph complete = generate(geometric(9, 50, 2));
  EXPECT_EQ(complete.edges.size(), 9u * 8u);
  // A zero weight range: every edge weighs w_lo.
  for (const Edge& e : generate(geometric(40, 3, 3, 5, 5)).edges) EXPECT_EQ(e.w, 5);
}

TEST(GenerateGeometric, IsConnectedForSensibleKAndWeightsGrowWithLength) {
  for (std::uint64_t seed : {1u, 2u, 3u}) {
    const Graph g = generate(geometric(3000, 6, seed, 0, 1000));
    EXPECT_EQ(reached_from_zero(g), g.n) << "seed " << seed;
    // Weights are proportional to length (w_lo = 0): the mean edge of 6-NN on
    // n uniform points is short, far below the longest.
    double sum = 0;
    for (const Edge& e : g.edges) sum += e.w;
    EXPECT_LT(sum / static_cast<double>(g.edges.size()), 500.0);
  }
}

TEST(GenerateGeometric, RefusesNegativeWeightsAndParsesNames) {
  EXPECT_EQ(parse_graph_kind("geometric"), GraphKind::geometric);
  EXPECT_EQ(parse_graph_kind("uniform"), GraphKind::random);
  EXPECT_THROW(generate(geometric(10, 3, 1, -5, 5)), UsageError);
  try {
    generate(geometric(10, 3, 1, -5, 5));
  } catch (const UsageError& e) {
    EXPECT_EQ(e.option(), "weights");
  }
}

// The benchmark's size: every vertex gets its k neighbours through the grid's
// ring search (k = 4, so between 4n and 8n arcs). How fast it generates is
// the benchmarks' concern, not a test's: no clock here.
TEST(GenerateGeometric, TheBenchmarkSizeGivesEveryVertexItsNeighbours) {
  const Graph g = generate(geometric(126146, 4, 1));
  ASSERT_EQ(g.n, 126146);
  EXPECT_GE(static_cast<std::int64_t>(g.edges.size()), 4 * g.n);
  EXPECT_LE(static_cast<std::int64_t>(g.edges.size()), 8 * g.n);
  std::vector<std::int64_t> out_degree(static_cast<std::size_t>(g.n), 0);
  for (const Edge& e : g.edges) ++out_degree[static_cast<std::size_t>(e.src)];
  EXPECT_GE(*std::min_element(out_degree.begin(), out_degree.end()), 4);
}

}  // namespace
}  // namespace apsp
