// core::midpoints_to_predecessors (the host's chain following for the GPU's
// out-of-core predecessor mode) against an independent midpoint Floyd-Warshall
// and a per-cell chain walk, on seeded graphs at sizes around its 16-column
// strips, with padding (order > n); and its refusal of broken chains.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "apsp/error.hpp"
#include "apsp/graph.hpp"
#include "core/midpoint_chains.hpp"
#include "support/cases.hpp"

namespace apsp {
namespace {

// The textbook triple loop on an order x order matrix (padding isolated),
// recording in mid the last k that strictly improved each entry.
struct MidpointFw {
  std::vector<std::int32_t> dist, mid;
};
MidpointFw midpoint_fw(const Graph& g, std::int64_t order) {
  const auto cells = static_cast<std::size_t>(order * order);
  MidpointFw r{std::vector<std::int32_t>(cells, kInf), std::vector<std::int32_t>(cells, -1)};
  for (std::int64_t v = 0; v < order; ++v) r.dist[static_cast<std::size_t>(v * order + v)] = 0;
  for (const Edge& e : g.edges)
    if (e.src != e.dst) {
      std::int32_t& cell = r.dist[static_cast<std::size_t>(e.src * order + e.dst)];
      cell = std::min(cell, e.w);
    }
  for (std::int64_t k = 0; k < order; ++k)
    for (std::int64_t i = 0; i < order; ++i) {
      const std::int32_t ik = r.dist[static_cast<std::size_t>(i * order + k)];
      if (ik >= kInf) continue;
      for (std::int64_t j = 0; j < order; ++j) {
        const std::int32_t kj = r.dist[static_cast<std::size_t>(k * order + j)];
        std::int32_t& ij = r.dist[static_cast<std::size_t>(i * order + j)];
        if (kj < kInf && ik + kj < ij) {
          ij = ik + kj;
          r.mid[static_cast<std::size_t>(i * order + j)] = static_cast<std::int32_t>(k);
        }
      }
    }
  return r;
}

// A seeded graph on n vertices with 3n edges of weights 1..50 (no zero
// cycles: the trees are then loop-free), duplicates and a self-loop, and the
// vertices n - n/5 .. n-1 reachable from nowhere else.
Graph seeded_graph(std::int64_t n, std::uint64_t seed) {
  Graph g;
  g.n = n;
  std::mt19937_64 random(seed);
  const std::int64_t closed_from = n - n / 5;
  for (std::int64_t e = 0; n > 0 && e < 3 * n; ++e) {
    const auto u = static_cast<vertex_t>(random() % static_cast<std::uint64_t>(n));
    auto v = static_cast<vertex_t>(random() % static_cast<std::uint64_t>(n));
    if (v >= closed_from && u < closed_from) v = static_cast<vertex_t>(v % std::max<std::int64_t>(closed_from, 1));
    const auto w = static_cast<weight_t>(1 + random() % 50);
    g.edges.push_back({u, v, w});
    if (e % 7 == 0) g.edges.push_back({u, v, w + 2});
  }
  if (n > 0) g.edges.push_back({0, 0, 3});
  return g;
}

TEST(MidpointChains, PredecessorsAreTheChainsEndsAndShortestPathTrees) {
  for (const std::int64_t n : {0, 1, 2, 15, 16, 17, 33, 100}) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const Graph g = seeded_graph(n, 17 + static_cast<std::uint64_t>(n));
    const std::int64_t order = n + 5;
    MidpointFw fw = midpoint_fw(g, order);
    const std::vector<std::int32_t> before = fw.mid;
    core::midpoints_to_predecessors(fw.mid.data(), fw.dist.data(), n, order, kInf);
    std::vector<dist_t> d(static_cast<std::size_t>(n * n));
    std::vector<vertex_t> pred(d.size());
    std::int64_t through_midpoints = 0;
    for (std::int64_t i = 0; i < n; ++i)
      for (std::int64_t j = 0; j < n; ++j) {
        const auto at = static_cast<std::size_t>(i * order + j);
        d[static_cast<std::size_t>(i * n + j)] = fw.dist[at];
        pred[static_cast<std::size_t>(i * n + j)] = fw.mid[at];
        // The chain walked cell by cell.
        std::int64_t r = i;
        while (before[static_cast<std::size_t>(r * order + j)] >= 0)
          r = before[static_cast<std::size_t>(r * order + j)];
        const std::int32_t expected = i == j || fw.dist[at] >= kInf ? -1 : static_cast<std::int32_t>(r);
        ASSERT_EQ(fw.mid[at], expected) << i << "->" << j;
        through_midpoints += before[at] >= 0;
      }
    EXPECT_EQ(test::first_difference(test::reference_distances(g), d, n), "");
    EXPECT_EQ(test::check_predecessors(g, d, pred), "");
    if (n >= 15) {
      const test::EntryCounts counts = test::count_entries(d, n);
      EXPECT_GT(counts.finite_off_diagonal, 0);
      EXPECT_GT(counts.unreachable, 0);
      EXPECT_GT(through_midpoints, 0);
    }
    // Padding untouched.
    for (std::int64_t j = n; j < order; ++j) EXPECT_EQ(fw.mid[static_cast<std::size_t>(j)], before[j]);
  }
}

TEST(MidpointChains, BrokenChainsAreRefused) {
  constexpr std::int64_t n = 20, order = 20;
  std::vector<std::int32_t> dist(order * order, 1), mid(order * order, -1);
  // Column 3: 0 -> 1 -> 0, a cycle.
  mid[0 * order + 3] = 1;
  mid[1 * order + 3] = 0;
  try {
    core::midpoints_to_predecessors(mid.data(), dist.data(), n, order, kInf);
    ADD_FAILURE() << "no Error for a cycle";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("-> 3"), std::string::npos) << e.what();
  }
  std::fill(mid.begin(), mid.end(), -1);
  mid[5 * order + 7] = static_cast<std::int32_t>(n);  // no vertex
  EXPECT_THROW(core::midpoints_to_predecessors(mid.data(), dist.data(), n, order, kInf), Error);
}

}  // namespace
}  // namespace apsp
