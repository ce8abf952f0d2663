// apsp::verify and apsp::verify_predecessors against the independent
// reference distances of tests/support, and on each kind of corruption.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "apsp/generate.hpp"
#include "apsp/graph.hpp"
#include "apsp/verify.hpp"
#include "support/cases.hpp"

namespace apsp {
namespace {

// Floyd-Warshall in int64 that also records predecessors, written apart from
// the library: pred[i][j] changes only on a strict improvement, so it stays a
// tree even with zero-weight cycles.
struct ReferenceWithPred {
  std::vector<dist_t> dist;
  std::vector<vertex_t> pred;
};
ReferenceWithPred reference_with_predecessors(const Graph& g) {
  const std::int64_t n = g.n;
  const std::int64_t inf = std::numeric_limits<std::int64_t>::max() / 4;
  std::vector<std::int64_t> d(static_cast<std::size_t>(n * n), inf);
  std::vector<vertex_t> p(static_cast<std::size_t>(n * n), -1);
  for (std::int64_t i = 0; i < n; ++i) d[i * n + i] = 0;
  for (const Edge& e : g.edges)
    if (e.src != e.dst && e.w < d[e.src * n + e.dst]) {
      d[e.src * n + e.dst] = e.w;
      p[e.src * n + e.dst] = e.src;
    }
  for (std::int64_t k = 0; k < n; ++k)
    for (std::int64_t i = 0; i < n; ++i) {
      if (d[i * n + k] == inf) continue;
      for (std::int64_t j = 0; j < n; ++j)
        if (d[k * n + j] != inf && d[i * n + k] + d[k * n + j] < d[i * n + j]) {
          d[i * n + j] = d[i * n + k] + d[k * n + j];
          p[i * n + j] = p[k * n + j];
        }
    }
  ReferenceWithPred r{std::vector<dist_t>(d.size()), p};
  for (std::size_t x = 0; x < d.size(); ++x) r.dist[x] = d[x] == inf ? kInf : static_cast<dist_t>(d[x]);
  return r;
}

Graph graph_of(std::int64_t n, std::vector<Edge> edges) { return normalize(Graph{n, std::move(edges)}); }

// Cases small enough for the O(n^3) references, still covering every kind,
// weight sign and the tile-straddling sizes.
std::vector<test::Case> checked_cases() {
  std::vector<test::Case> cases;
  for (auto& c : test::standard_cases())
    if (c.graph.n <= 130) cases.push_back(std::move(c));
  return cases;
}

TEST(Verify, AcceptsReferenceDistancesOfEveryCase) {
  for (const auto& c : checked_cases()) {
    SCOPED_TRACE(c.name);
    const Graph g = normalize(c.graph);
    const auto ref = reference_with_predecessors(c.graph);
    ASSERT_EQ(test::first_difference(test::reference_distances(c.graph), ref.dist, g.n), "");
    const VerifyReport r = verify(g, ref.dist);
    EXPECT_TRUE(r.ok) << r.first_violation;
    EXPECT_EQ(r.first_violation, "");
    ASSERT_EQ(test::check_predecessors(c.graph, ref.dist, ref.pred), "");
    const VerifyReport rp = verify_predecessors(g, ref.dist, ref.pred);
    EXPECT_TRUE(rp.ok) << rp.first_violation;
    // n = 2 cases may have both 0->1 and 1->0; larger ones have a vertex without in-edges.
    const auto counts = test::count_entries(ref.dist, g.n);
    if (g.n >= 2) EXPECT_GT(counts.finite_off_diagonal, 0);
    if (g.n >= 3) EXPECT_GT(counts.unreachable, 0);
  }
}

std::string dcell(std::int64_t i, std::int64_t j) { return "d[" + std::to_string(i) + "][" + std::to_string(j) + "]"; }

// (i, j) with d[i][j] = INF and d[i][x] finite for every edge j->x; (-1, -1) if none.
std::pair<std::int64_t, std::int64_t> inf_entry_with_finite_out_neighbours(const Graph& g,
                                                                           const std::vector<dist_t>& d) {
  const std::int64_t n = g.n;
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      if (d[i * n + j] != kInf) continue;
      bool all_finite = true;
      for (const Edge& e : g.edges)
        if (e.src == j && d[i * n + e.dst] == kInf) all_finite = false;
      if (all_finite) return {i, j};
    }
  return {-1, -1};
}

// Applies each kind of corruption to every case with n >= 3 (vertex n-1 has no
// in-edges and 0->1 is an edge, see tests/support/cases.hpp).
TEST(Verify, RejectsEachCorruptionOfEveryCase) {
  int finite_where_inf_checked = 0;
  for (const auto& c : checked_cases()) {
    const std::int64_t n = c.graph.n;
    if (n < 3) continue;
    const Graph g = normalize(c.graph);
    const auto good = test::reference_distances(c.graph);
    const auto last = n - 1;
    auto expect_rejected = [&](const char* what, std::int64_t i, std::int64_t j, dist_t value,
                               const std::string& words) {
      SCOPED_TRACE(c.name + ": " + what + " at d[" + std::to_string(i) + "][" + std::to_string(j) +
                   "] = " + std::to_string(value));
      auto d = good;
      ASSERT_NE(d[i * n + j], value);
      d[i * n + j] = value;
      const VerifyReport r = verify(g, d);
      EXPECT_FALSE(r.ok);
      EXPECT_NE(r.first_violation.find(words), std::string::npos) << r.first_violation;
    };
    expect_rejected("wrong diagonal", 2, 2, -1, "d[2][2] = -1, expected 0");
    expect_rejected("INF where finite", 0, 1, kInf, "d[0][1] = INF but d[0][0] + w(0->1)");
    // An INF entry whose out-neighbours are all finite, so that a large value
    // there leaves every edge relaxed and only attainment can catch it.
    const auto [inf_row, inf_col] = inf_entry_with_finite_out_neighbours(g, good);
    if (inf_row >= 0) {
      ++finite_where_inf_checked;
      expect_rejected("finite where INF", inf_row, inf_col, 1000000,
                      dcell(inf_row, inf_col) + " = 1000000 is not attained");
    }
    expect_rejected("above kInf", 1, 0, kInf + 1, "neither a distance nor INF");
    // Raising a reachable entry breaks the relaxation of its tight in-edge.
    expect_rejected("unrelaxed edge", 0, 1, good[1] + 1, "d[0][1] = " + std::to_string(good[1] + 1) + " but d[0][");
    // Lowering it breaks attainment, or the relaxation of a tight out-edge.
    expect_rejected("unattained finite", 0, 1, good[1] - 1, "d[0]");
  }
  EXPECT_GT(finite_where_inf_checked, 20);
}

TEST(Verify, NamesTheUnattainedValue) {
  // 0 -> 1 -> 2; vertex 2 has no out-edges, so lowering d[0][2] only breaks attainment.
  const Graph g = graph_of(3, {{0, 1, 5}, {1, 2, 3}});
  std::vector<dist_t> d = {0, 5, 8, kInf, 0, 3, kInf, kInf, 0};
  EXPECT_TRUE(verify(g, d).ok) << verify(g, d).first_violation;
  d[2] = 7;
  EXPECT_EQ(verify(g, d).first_violation, "d[0][2] = 7 is not attained: no in-edge u->2 has d[0][u] + w == 7");
}

TEST(Verify, RejectsValuesProppedUpByAZeroWeightCycle) {
  // 2 <-> 3 with weight 0, unreachable from 0: d[0][2] = d[0][3] = 4 is relaxed
  // and each is "attained" through the other, yet no path from 0 exists.
  const Graph g = graph_of(4, {{0, 1, 1}, {2, 3, 0}, {3, 2, 0}, {2, 0, 1}});
  std::vector<dist_t> d = test::reference_distances(g);
  ASSERT_EQ(d[2], kInf);
  EXPECT_TRUE(verify(g, d).ok) << verify(g, d).first_violation;
  d[2] = d[3] = 4;
  const VerifyReport r = verify(g, d);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.first_violation.find("zero-weight cycle"), std::string::npos) << r.first_violation;
}

TEST(Verify, ReportsTheLowestFailingRow) {
  test::Case c;
  for (auto& candidate : test::standard_cases())
    if (candidate.graph.n == 65) {
      c = std::move(candidate);
      break;
    }
  SCOPED_TRACE(c.name);
  const Graph g = normalize(c.graph);
  auto d = test::reference_distances(c.graph);
  const std::int64_t n = g.n;
  ASSERT_GE(n, 40);
  for (std::int64_t i : {35, 7, 20}) d[i * n + i] = 3;
  EXPECT_EQ(verify(g, d).first_violation, "d[7][7] = 3, expected 0");
}

TEST(Verify, LargeGraphsRunInParallelAndStillReportTheLowestRow) {
  // A 32 x 32 grid with unit weights both ways: d is the Manhattan distance,
  // known without an O(n^3) reference, and n * (n + m) is past the threshold
  // at which verify starts threads.
  GenerateOptions o;
  o.kind = GraphKind::grid;
  o.n = 1024;
  o.w_lo = o.w_hi = 1;
  const Graph g = normalize(generate(o));
  const std::int64_t n = g.n, side = 32;
  std::vector<dist_t> d(static_cast<std::size_t>(n * n));
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t j = 0; j < n; ++j)
      d[i * n + j] = static_cast<dist_t>(std::abs(i / side - j / side) + std::abs(i % side - j % side));
  EXPECT_TRUE(verify(g, d).ok) << verify(g, d).first_violation;
  for (std::int64_t row : {900, 301, 700}) d[row * n + 5] += 1;
  EXPECT_EQ(verify(g, d).first_violation.substr(0, 9), "d[301][5]") << verify(g, d).first_violation;
}

TEST(Verify, RejectsAWrongShapeAndANegativeCycle) {
  const Graph g = graph_of(3, {{0, 1, 1}, {1, 2, -3}, {2, 1, 1}});
  EXPECT_EQ(verify(g, std::vector<dist_t>(8, 0)).first_violation, "distance matrix has 8 entries, expected 3*3 = 9");
  // No matrix is consistent with a negative cycle: whatever values are given,
  // an edge on it is unrelaxed.
  const std::vector<dist_t> best_try = {0, -100, -103, kInf, 0, -3, kInf, 1, 0};
  EXPECT_FALSE(verify(g, best_try).ok);
  EXPECT_TRUE(verify(graph_of(0, {}), {}).ok);
}

TEST(VerifyPredecessors, RejectsEachCorruption) {
  // 0 -> 1 -> 2 -> 3, 1 <-> 4 with weight 0, 5 unreachable.
  const Graph g = graph_of(6, {{0, 1, 2}, {1, 2, 3}, {2, 3, 1}, {1, 4, 0}, {4, 1, 0}, {0, 2, 9}});
  const auto ref = reference_with_predecessors(g);
  const std::int64_t n = g.n;
  ASSERT_TRUE(verify(g, ref.dist).ok);
  ASSERT_TRUE(verify_predecessors(g, ref.dist, ref.pred).ok)
      << verify_predecessors(g, ref.dist, ref.pred).first_violation;
  auto expect_rejected = [&](std::int64_t j, vertex_t p, const std::string& words) {
    SCOPED_TRACE("pred[0][" + std::to_string(j) + "] = " + std::to_string(p));
    auto pred = ref.pred;
    pred[j] = p;
    const VerifyReport r = verify_predecessors(g, ref.dist, pred);
    EXPECT_FALSE(r.ok);
    EXPECT_NE(r.first_violation.find(words), std::string::npos) << r.first_violation;
  };
  expect_rejected(0, 0, "pred[0][0] = 0, expected -1");
  expect_rejected(5, 2, "pred[0][5] = 2, expected -1 (d[0][5] = INF)");
  expect_rejected(3, -1, "pred[0][3] = -1 is not a vertex");
  expect_rejected(3, 6, "pred[0][3] = 6 is not a vertex");
  expect_rejected(3, 1, "pred[0][3] = 1 but there is no edge 1->3");
  expect_rejected(2, 0, "pred[0][2] = 0 but d[0][0] + w = 0 + 9 != d[0][2] = 5");
  expect_rejected(1, 4, "following predecessors loops at vertex 1");  // 1 <- 4 <- 1 <- ...: tight but a loop
  EXPECT_EQ(verify_predecessors(g, ref.dist, std::vector<vertex_t>(3, -1)).first_violation,
            "predecessor matrix has 3 entries, expected 6*6 = 36");
  EXPECT_EQ(n * n, static_cast<std::int64_t>(ref.pred.size()));
}

}  // namespace
}  // namespace apsp
