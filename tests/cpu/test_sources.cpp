// SolveOptions::sources (rows of chosen sources only, the Python layer's
// `indices`) and cancelling a solve from its progress callback.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "apsp/error.hpp"
#include "apsp/registry.hpp"
#include "apsp/sinks.hpp"
#include "apsp/solver.hpp"
#include "support/cases.hpp"
#include "support/scratch.hpp"

namespace apsp {
namespace {

const std::vector<std::string> kPerSource = {"dijkstra", "johnson", "bellman-ford", "supernodal"};

bool has_negative_edge(const Graph& g) {
  for (const Edge& e : g.edges)
    if (e.w < 0 && e.src != e.dst) return true;
  return false;
}

// Sources that exercise the mapping: the last vertex first, a repeat, vertex 0.
std::vector<vertex_t> chosen_sources(std::int64_t n) {
  const auto last = static_cast<vertex_t>(n - 1);
  return {last, 0, static_cast<vertex_t>(n / 2), last};
}

// Lightest weight of each edge u -> v of g, n x n, kInf where there is none.
std::vector<std::int64_t> edge_matrix(const Graph& g) {
  const Graph normalized = normalize(g);
  std::vector<std::int64_t> w(static_cast<std::size_t>(normalized.n * normalized.n), kInf);
  for (const Edge& e : normalized.edges) w[e.src * normalized.n + e.dst] = e.w;
  return w;
}

// Empty when the predecessor path source -> j in `pred_row` weighs `expected`; else the problem.
std::string path_problem(const std::vector<std::int64_t>& w, std::int64_t n, vertex_t source, vertex_t j,
                         const vertex_t* pred_row, dist_t expected) {
  std::int64_t weight = 0;
  vertex_t v = j;
  for (std::int64_t steps = 0; v != source; ++steps) {
    const vertex_t u = pred_row[v];
    if (u < 0 || steps > n) return "broken chain at " + std::to_string(v);
    if (w[u * n + v] == kInf) return "no edge " + std::to_string(u) + "->" + std::to_string(v);
    weight += w[u * n + v];
    v = u;
  }
  return weight == expected ? std::string()
                            : "path weight " + std::to_string(weight) + " != " + std::to_string(expected);
}

class SourcesOf : public ::testing::TestWithParam<std::string> {};

TEST_P(SourcesOf, RowsMatchTheReferenceRowsOfTheirSources) {
  const std::string algorithm = GetParam();
  std::int64_t finite = 0, unreachable = 0;
  for (const test::Case& c : test::standard_cases()) {
    if (c.graph.n < 2 || (algorithm == "dijkstra" && has_negative_edge(c.graph))) continue;
    SCOPED_TRACE(c.name);
    const std::int64_t n = c.graph.n;
    const std::vector<dist_t> expected = test::reference_distances(c.graph);
    const std::vector<std::int64_t> weights = edge_matrix(c.graph);
    SolveOptions o;
    o.backend = Backend::cpu;
    o.algorithm = algorithm;
    o.predecessors = true;
    o.sources = chosen_sources(n);
    const SolveResult r = solve(c.graph, o);
    ASSERT_EQ(r.dist.size(), o.sources.size() * static_cast<std::size_t>(n));
    ASSERT_EQ(r.pred.size(), r.dist.size());
    for (std::size_t row = 0; row < o.sources.size(); ++row) {
      const vertex_t s = o.sources[row];
      for (std::int64_t j = 0; j < n; ++j) {
        const dist_t got = r.dist[row * n + j], want = expected[s * n + j];
        ASSERT_EQ(got, want) << "source " << s << " (row " << row << ") to " << j;
        if (got == kInf) {
          ++unreachable;
          EXPECT_EQ(r.pred[row * n + j], -1);
        } else if (j != s) {
          ++finite;
          EXPECT_EQ(path_problem(weights, n, s, static_cast<vertex_t>(j), &r.pred[row * n], got), "")
              << "source " << s << " to " << j;
        }
      }
    }
  }
  EXPECT_GT(finite, 0);
  EXPECT_GT(unreachable, 0);
}

TEST_P(SourcesOf, EmptySourceListMeansEveryVertex) {
  const test::Case c = test::standard_cases()[5];
  SolveOptions o;
  o.backend = Backend::cpu;
  o.algorithm = GetParam() == "dijkstra" && has_negative_edge(c.graph) ? "johnson" : GetParam();
  const SolveResult r = solve(c.graph, o);
  EXPECT_EQ(test::first_difference(test::reference_distances(c.graph), r.dist, c.graph.n), "");
}

INSTANTIATE_TEST_SUITE_P(PerSourceAlgorithms, SourcesOf, ::testing::ValuesIn(kPerSource), [](const auto& info) {
  std::string name = info.param;
  for (char& ch : name)
    if (ch == '-') ch = '_';
  return name;
});

TEST(Sources, AutoPicksAPerSourceAlgorithmOnTheCpu) {
  const Graph positive = test::generated(GraphKind::dense, 300, 0, 1, 9, 4);
  const Graph negative = test::generated(GraphKind::random, 300, 3000, -2, 9, 4);
  SolveOptions o;
  o.sources = {7};
  const SolveResult p = solve(positive, o);
  EXPECT_EQ(p.algorithm, "dijkstra");
  EXPECT_EQ(p.backend, Backend::cpu);
  EXPECT_EQ(p.dist.size(), 300u);
  EXPECT_EQ(solve(negative, o).algorithm, "johnson");
}

// An algorithm that computes every row (fw) still serves chosen sources:
// the solve keeps their rows as they arrive (compute, then slice).
TEST(Sources, AlgorithmsOfEverySourceServeThemBySlicing) {
  const Graph g = test::generated(GraphKind::random, 50, 200, 1, 9, 1);
  SolveOptions whole;
  whole.backend = Backend::cpu;
  whole.algorithm = "dijkstra";
  const SolveResult full = solve(g, whole);
  for (const AlgorithmInfo& a : algorithm_registry()) {
    if (a.backend != Backend::cpu || a.work == Work::per_source || a.work == Work::separators) continue;
    SolveOptions o;
    o.backend = Backend::cpu;
    o.algorithm = a.name;
    o.sources = {49, 0, 49};
    const SolveResult some = solve(g, o);
    ASSERT_EQ(some.dist.size(), 3u * 50u) << a.name;
    for (std::size_t r = 0; r < 3; ++r)
      for (std::int64_t j = 0; j < 50; ++j)
        ASSERT_EQ(some.dist[r * 50 + j], full.dist[o.sources[r] * 50 + j]) << a.name << " row " << r << " col " << j;
  }
}

TEST(Sources, SourceOutsideTheGraphIsAUsageError) {
  const Graph g = test::generated(GraphKind::random, 20, 60, 1, 9, 2);
  for (const vertex_t bad : {-1, 20}) {
    SolveOptions o;
    o.sources = {0, bad};
    try {
      solve(g, o);
      ADD_FAILURE() << "source " << bad << " accepted";
    } catch (const UsageError& e) {
      EXPECT_EQ(e.option(), "sources");
      EXPECT_NE(std::string(e.what()).find(std::to_string(bad)), std::string::npos) << e.what();
    }
  }
}

// Real weights: the rows of chosen sources are those of the full solve.
TEST(Sources, RealWeightedRowsEqualTheFullSolvesRows) {
  GraphF64 g;
  g.n = 90;
  std::uint64_t state = 7;
  auto next = [&state] { return state = state * 6364136223846793005ULL + 1442695040888963407ULL; };
  for (int e = 0; e < 600; ++e) {
    const auto u = static_cast<vertex_t>(next() % 89), v = static_cast<vertex_t>(next() % 89);  // 89: unreachable
    const double w = static_cast<double>(next() % 10000) / 997.0 - (u < v ? 1.5 : 0.0);
    g.edges.push_back({u, v, u < v ? w : w + 40.0});
  }
  for (const std::string& algorithm : kPerSource) {
    if (algorithm == "dijkstra") continue;  // negative weights
    SolveOptions o;
    o.backend = Backend::cpu;
    o.algorithm = algorithm;
    o.predecessors = true;
    const SolveResultF64 full = solve(g, o);
    o.sources = {89, 3, 3, 60};
    const SolveResultF64 some = solve(g, o);
    ASSERT_EQ(some.dist.size(), 4u * 90u);
    std::int64_t finite = 0, unreachable = 0;
    for (std::size_t r = 0; r < o.sources.size(); ++r)
      for (std::int64_t j = 0; j < 90; ++j) {
        const double want = full.dist[o.sources[r] * 90 + j], got = some.dist[r * 90 + j];
        EXPECT_EQ(got, want) << algorithm << " source " << o.sources[r] << " to " << j;
        EXPECT_EQ(some.pred[r * 90 + j], full.pred[o.sources[r] * 90 + j]) << algorithm;
        (got == kUnreachable<double> ? unreachable : finite) += 1;
      }
    EXPECT_GT(finite, 0);
    EXPECT_GT(unreachable, 0);
  }
}

class SourcesIntoFiles : public test::ScratchDirTest {};

TEST_F(SourcesIntoFiles, MatrixFilesHoldAResultOfSomeRows) {
  const Graph g = test::generated(GraphKind::random, 20, 60, 1, 9, 3);
  FileSink sink(MatrixFileTarget{path("dist.npy")});
  SolveOptions o;
  o.sources = {1, 2};
  solve(g, o, sink);
  const SolveResult full = solve(g, SolveOptions{});
  const std::string file = read_text("dist.npy");
  EXPECT_NE(file.find("'shape': (2, 20)"), std::string::npos) << file.substr(0, 128);
  ASSERT_GE(file.size(), 2u * 20u * 4u);
  std::vector<dist_t> rows(40);
  std::memcpy(rows.data(), file.data() + file.size() - rows.size() * 4, rows.size() * 4);
  for (std::int64_t j = 0; j < 40; ++j) EXPECT_EQ(rows[j], full.dist[20 + j]) << j;
}

// A progress callback that throws Cancelled stops every CPU algorithm; the
// exception reaches the caller as itself, and the solve calls back no more.
// On one thread the callback is called before the solve ends, so it throws
// every time. On the default threads the rows' progress is reported by
// OpenMP thread 0 as it finishes a chunk: on a busy machine the other threads
// may take every chunk first and the solve end before any report below 1,
// so there the test asks only that a callback that threw stopped the solve.
TEST(Cancel, ProgressCallbackThrowingCancelledStopsEveryCpuAlgorithm) {
  const Graph g = test::generated(GraphKind::random, 700, 5000, 1, 9, 5);
  for (const std::string& algorithm : list_algorithms(Backend::cpu)) {
    for (const int threads : {1, 0}) {
      SolveOptions o;
      o.backend = Backend::cpu;
      o.algorithm = algorithm;
      o.threads = threads;
      int calls = 0;
      bool threw = false;
      o.progress = [&](double fraction) {
        ++calls;
        if (fraction < 1.0) {
          threw = true;
          throw Cancelled();
        }
      };
      if (threads == 1) {
        EXPECT_THROW(solve(g, o), Cancelled) << algorithm;
      } else {
        try {
          solve(g, o);
          EXPECT_FALSE(threw) << algorithm << ": the callback's Cancelled was lost";
        } catch (const Cancelled&) {
          EXPECT_TRUE(threw) << algorithm;
        }
      }
      EXPECT_EQ(calls, 1) << algorithm << " on " << threads << " threads: the solve went on after its callback threw";
    }
  }
}

}  // namespace
}  // namespace apsp
