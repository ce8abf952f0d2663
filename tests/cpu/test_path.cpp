// apsp::shortest_path, with and without predecessors, checked edge by edge
// against the raw graph and the independent reference distances.
#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "apsp/error.hpp"
#include "apsp/graph.hpp"
#include "apsp/path.hpp"
#include "support/cases.hpp"

namespace apsp {
namespace {

// Bellman-Ford from every source over the raw edges, changing pred only on a
// strict improvement (so the predecessors form a tree even with zero-weight
// cycles). n*n predecessors, -1 on the diagonal and for unreachable pairs.
std::vector<vertex_t> bellman_ford_predecessors(const Graph& g) {
  const std::int64_t n = g.n;
  const std::int64_t inf = std::numeric_limits<std::int64_t>::max() / 4;
  std::vector<vertex_t> pred(static_cast<std::size_t>(n * n), -1);
  std::vector<std::int64_t> d(static_cast<std::size_t>(n));
  for (std::int64_t s = 0; s < n; ++s) {
    std::fill(d.begin(), d.end(), inf);
    d[s] = 0;
    for (bool changed = true; changed;) {
      changed = false;
      for (const Edge& e : g.edges)
        if (d[e.src] != inf && d[e.src] + e.w < d[e.dst]) {
          d[e.dst] = d[e.src] + e.w;
          pred[s * n + e.dst] = e.src;
          changed = true;
        }
    }
  }
  return pred;
}

// The lightest weight of each (src, dst) pair of the raw edge list.
using EdgeWeights = std::map<std::pair<vertex_t, vertex_t>, std::int64_t>;
EdgeWeights lightest_edges(const Graph& g) {
  EdgeWeights lightest;
  for (const Edge& e : g.edges) {
    auto [it, fresh] = lightest.emplace(std::make_pair(e.src, e.dst), e.w);
    if (!fresh && e.w < it->second) it->second = e.w;
  }
  return lightest;
}

// Empty when `path` is a valid i->j path of weight d[i][j] (empty path for an
// unreachable pair); else what is wrong.
std::string path_problem(const EdgeWeights& lightest, const std::vector<dist_t>& d, std::int64_t n, std::int64_t i,
                         std::int64_t j, const std::vector<vertex_t>& path) {
  const dist_t expected = d[i * n + j];
  if (expected == kInf) return path.empty() ? "" : "a path for an unreachable pair";
  if (path.empty()) return "no path for d = " + std::to_string(expected);
  if (path.front() != i || path.back() != j)
    return "path runs from " + std::to_string(path.front()) + " to " + std::to_string(path.back());
  if (static_cast<std::int64_t>(path.size()) > n) return "path repeats a vertex";
  std::int64_t total = 0;
  for (std::size_t k = 0; k + 1 < path.size(); ++k) {
    const auto it = lightest.find({path[k], path[k + 1]});
    if (it == lightest.end()) return "no edge " + std::to_string(path[k]) + "->" + std::to_string(path[k + 1]);
    total += it->second;
  }
  if (total != expected) return "path weighs " + std::to_string(total) + ", d = " + std::to_string(expected);
  return {};
}

TEST(ShortestPath, IsAShortestPathForEveryPairOfSampledSources) {
  for (const auto& c : test::standard_cases()) {
    const std::int64_t n = c.graph.n;
    if (n > 130 || n == 0) continue;
    const Graph g = normalize(c.graph);
    const auto d = test::reference_distances(c.graph);
    const auto pred = bellman_ford_predecessors(c.graph);
    const EdgeWeights lightest = lightest_edges(c.graph);
    ASSERT_EQ(test::check_predecessors(c.graph, d, pred), "") << c.name;
    std::int64_t reachable = 0, unreachable = 0;
    for (std::int64_t i : {std::int64_t{0}, n / 2, n - 1})
      for (std::int64_t j = 0; j < n; ++j) {
        SCOPED_TRACE(c.name + ": path " + std::to_string(i) + " -> " + std::to_string(j));
        const auto from = static_cast<vertex_t>(i), to = static_cast<vertex_t>(j);
        EXPECT_EQ(path_problem(lightest, d, n, i, j, shortest_path(g, d, {}, from, to)), "") << "rebuilt from d";
        EXPECT_EQ(path_problem(lightest, d, n, i, j, shortest_path(g, d, pred, from, to)), "") << "from pred";
        ++(d[i * n + j] == kInf ? unreachable : reachable);
      }
    EXPECT_GT(reachable, 0) << c.name;
    if (n >= 3) EXPECT_GT(unreachable, 0) << c.name;  // vertex n-1 has no in-edges
  }
}

TEST(ShortestPath, RebuildsThroughZeroWeightCycles) {
  // 1 <-> 2 with weight 0 and a zero-weight way out: a walk that picks any
  // tight in-edge could circle 1, 2, 1, ...
  const Graph raw{5, {{0, 1, 0}, {1, 2, 0}, {2, 1, 0}, {2, 3, 0}, {3, 2, 0}, {3, 4, 2}, {4, 3, -2}}};
  const Graph g = normalize(raw);
  const auto d = test::reference_distances(raw);
  const auto path = shortest_path(g, d, {}, 0, 4);
  EXPECT_EQ(path, (std::vector<vertex_t>{0, 1, 2, 3, 4}));
  EXPECT_EQ(path_problem(lightest_edges(raw), d, raw.n, 0, 4, path), "");
  EXPECT_EQ(shortest_path(g, d, {}, 4, 0), std::vector<vertex_t>{});
  EXPECT_EQ(shortest_path(g, d, {}, 3, 3), std::vector<vertex_t>{3});
}

// 0 -> 1 -> 2 -> 3 and a heavier 0 -> 2; vertex 4 unreachable.
struct SmallGraph {
  Graph g = normalize(Graph{5, {{0, 1, 2}, {1, 2, 3}, {2, 3, 1}, {0, 2, 9}}});
  std::vector<dist_t> d = test::reference_distances(g);
  std::vector<vertex_t> pred = bellman_ford_predecessors(g);
};

void expect_input_error(const std::function<void()>& call, const std::string& message) {
  try {
    call();
    ADD_FAILURE() << "no InputError; expected: " << message;
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), message);
  }
}

TEST(ShortestPath, FollowsPredecessorsAndRejectsBadOnes) {
  SmallGraph s;
  EXPECT_EQ(shortest_path(s.g, s.d, s.pred, 0, 3), (std::vector<vertex_t>{0, 1, 2, 3}));
  EXPECT_EQ(shortest_path(s.g, s.d, s.pred, 0, 4), std::vector<vertex_t>{});
  auto with_pred = [&](std::int64_t j, vertex_t p) {
    auto pred = s.pred;
    pred[j] = p;
    return [&s, pred] { shortest_path(s.g, s.d, pred, 0, 3); };
  };
  expect_input_error(with_pred(2, 0), "the predecessor path 0 -> 3 weighs 10 but d[0][3] = 6");
  expect_input_error(with_pred(2, 3), "pred[0][2] = 3 but the graph has no edge 3->2");
  expect_input_error(with_pred(2, 7), "pred[0][2] = 7 is not a vertex");
  auto looping = s.pred;
  looping[1] = 2;  // 1 <- 2 <- 1: the graph has no edge 2->1, so make one
  const Graph with_back_edge = normalize(Graph{5, {{0, 1, 2}, {1, 2, 3}, {2, 3, 1}, {0, 2, 9}, {2, 1, 0}}});
  expect_input_error([&] { shortest_path(with_back_edge, s.d, looping, 0, 3); }, "predecessors of 3 from 0 loop");
  auto reaching_unreachable = s.pred;
  reaching_unreachable[4] = 2;
  expect_input_error([&] { shortest_path(s.g, s.d, reaching_unreachable, 0, 4); }, "pred[0][4] = 2 but d[0][4] is INF");
}

TEST(ShortestPath, RejectsInconsistentDistancesAndBadArguments) {
  SmallGraph s;
  auto d = s.d;
  d[3] = 5;  // no path 0 -> 3 weighs 5
  expect_input_error([&] { shortest_path(s.g, d, {}, 0, 3); },
                     "d[0][3] = 5 is not the weight of any path consistent with the distance matrix");
  d = s.d;
  d[0] = 1;
  expect_input_error([&] { shortest_path(s.g, d, {}, 0, 3); }, "d[0][0] = 1, expected 0");
  expect_input_error([&] { shortest_path(s.g, s.d, {}, 5, 0); }, "source vertex 5 is outside 0..4");
  expect_input_error([&] { shortest_path(s.g, s.d, {}, 0, -1); }, "target vertex -1 is outside 0..4");
  expect_input_error([&] { shortest_path(s.g, std::vector<dist_t>(24, 0), {}, 0, 1); },
                     "the distance matrix has 24 entries but the graph has 5 vertices");
  expect_input_error([&] { shortest_path(s.g, s.d, std::vector<vertex_t>(4, -1), 0, 1); },
                     "the predecessor matrix has 4 entries but the graph has 5 vertices");
}

}  // namespace
}  // namespace apsp
