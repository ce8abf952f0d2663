// Every public entry point that takes a normalized graph (or a Csr) checks
// that precondition and throws InputError for a hand-built graph that breaks
// it, instead of writing or reading out of bounds (run under ASan by
// scripts/test) or giving a verdict on edges it assumed sorted.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <type_traits>
#include <limits>
#include <string>
#include <vector>

#include "apsp/comm.hpp"
#include "apsp/cpu.hpp"
#include "apsp/dense.hpp"
#include "apsp/distributed.hpp"
#include "apsp/sinks.hpp"
#include "apsp/error.hpp"
#include "apsp/graph.hpp"
#include "apsp/path.hpp"
#include "apsp/potentials.hpp"
#include "apsp/solver.hpp"
#include "apsp/verify.hpp"

namespace apsp {
namespace {

struct BadGraph {
  const char* what;
  Graph graph;
  const char* message_part;  // the InputError names the problem
};

// Four vertices; each graph breaks the normalized form in one way.
std::vector<BadGraph> bad_graphs() {
  return {
      {"source beyond n", Graph{4, {{0, 1, 1}, {4, 2, 1}}}, "outside 0..3"},
      {"far source beyond n", Graph{4, {{0, 1, 1}, {1 << 20, 2, 1}}}, "outside 0..3"},
      {"negative destination", Graph{4, {{0, 1, 1}, {1, -1, 1}}}, "outside 0..3"},
      {"unsorted sources", Graph{4, {{2, 3, 1}, {0, 1, 1}}}, "sorted"},
      {"unsorted destinations", Graph{4, {{0, 3, 1}, {0, 1, 1}, {1, 2, 1}}}, "sorted"},
      {"duplicate pair", Graph{4, {{0, 1, 5}, {0, 1, 1}, {1, 2, 1}}}, "duplicate"},
      {"self-loop", Graph{4, {{0, 1, 1}, {2, 2, 0}}}, "self-loop"},
      {"negative vertex count", Graph{-3, {}}, "vertex count"},
  };
}

// A 4 x 4 distance matrix (and predecessors) that a correct check must not
// read past: every pair finite, so nothing short-circuits on INF.
const std::vector<dist_t> kDist(16, 1);
const std::vector<vertex_t> kPred(16, 0);

void expect_input_error(const BadGraph& bad, const char* entry, const std::function<void()>& call) {
  SCOPED_TRACE(std::string(entry) + " with " + bad.what);
  try {
    call();
    ADD_FAILURE() << "no InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(bad.message_part), std::string::npos) << e.what();
  }
}

TEST(NormalizedPrecondition, EveryEntryPointRefusesABadGraph) {
  for (const BadGraph& bad : bad_graphs()) {
    const Graph& g = bad.graph;
    expect_input_error(bad, "check_normalized", [&] { check_normalized(g); });
    EXPECT_FALSE(is_normalized(g)) << bad.what;
    expect_input_error(bad, "to_csr", [&] { to_csr(g); });
    expect_input_error(bad, "dense_adjacency", [&] { dense_adjacency(g); });
    expect_input_error(bad, "verify", [&] { verify(g, kDist); });
    expect_input_error(bad, "verify_predecessors", [&] { verify_predecessors(g, kDist, kPred); });
    expect_input_error(bad, "shortest_path", [&] { shortest_path(g, kDist, {}, 0, 3); });
    expect_input_error(bad, "shortest_path with predecessors", [&] { shortest_path(g, kDist, kPred, 0, 3); });
    for (const std::string& algorithm : cpu::algorithms())
      expect_input_error(bad, ("cpu::solve " + algorithm).c_str(), [&] {
        SolveOptions o;
        o.algorithm = algorithm;
        SolveSummary r;
        NullSink sink;
        cpu::solve(g, o, sink, r);
      });
  }
}

// apsp::solve normalizes its input: only what normalize() cannot fix (a
// vertex out of range, a negative count) is an error there.
TEST(NormalizedPrecondition, SolveNormalizesUnsortedDuplicateInput) {
  for (const BadGraph& bad : bad_graphs()) {
    SCOPED_TRACE(bad.what);
    SolveOptions o;
    o.backend = Backend::cpu;
    const bool fixable = std::string(bad.message_part) != "outside 0..3" && bad.graph.n >= 0;
    if (fixable)
      EXPECT_EQ(solve(bad.graph, o).dist.size(), 16u);
    else
      EXPECT_THROW(solve(bad.graph, o), InputError);
  }
}

// normalize()'s two sorts (by source first where n is not far above m, the
// whole list where the ids are sparse) give the edges of a reference sort:
// sorted by (src, dst), the least weight of each pair, self-loops dropped,
// -0.0 as +0.0; on a seeded multigraph with many duplicates in each.
template <class W>
void expect_normalize_is_the_reference_sort(std::int64_t n, std::size_t m, std::uint64_t seed) {
  BasicGraph<W> g;
  g.n = n;
  std::uint64_t x = seed;
  const auto next = [&x](std::uint64_t bound) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    return (x >> 33) % bound;
  };
  // Endpoints from a few hundred ids spread over 0..n-1, so pairs repeat.
  const auto vertex = [&] { return static_cast<vertex_t>(next(300) * static_cast<std::uint64_t>(n - 1) / 299); };
  for (std::size_t e = 0; e < m; ++e) {
    W w = static_cast<W>(static_cast<std::int64_t>(next(41)) - 10);
    if (std::is_floating_point<W>::value && w == 0 && next(2) == 0) w = -w;  // -0.0
    g.edges.push_back(BasicEdge<W>{vertex(), vertex(), w});
  }
  for (auto& e : g.edges)
    if (e.src == e.dst && e.w < 0) e.w = 1;  // no negative self-loop (a negative cycle)
  std::vector<BasicEdge<W>> want;
  for (const auto& e : g.edges)
    if (e.src != e.dst) want.push_back(BasicEdge<W>{e.src, e.dst, static_cast<W>(e.w + W(0))});
  std::stable_sort(want.begin(), want.end(), [](const BasicEdge<W>& a, const BasicEdge<W>& b) {
    return a.src != b.src ? a.src < b.src : a.dst != b.dst ? a.dst < b.dst : a.w < b.w;
  });
  want.erase(std::unique(want.begin(), want.end(),
                         [](const BasicEdge<W>& a, const BasicEdge<W>& b) { return a.src == b.src && a.dst == b.dst; }),
             want.end());
  const BasicGraph<W> got = normalize(g);
  ASSERT_EQ(got.edges.size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i) {
    ASSERT_EQ(got.edges[i].src, want[i].src) << i;
    ASSERT_EQ(got.edges[i].dst, want[i].dst) << i;
    ASSERT_EQ(got.edges[i].w, want[i].w) << i;
    if (std::is_floating_point<W>::value) ASSERT_FALSE(std::signbit(got.edges[i].w) && got.edges[i].w == 0) << i;
  }
  EXPECT_TRUE(is_normalized(got));
}

TEST(NormalizedPrecondition, NormalizeSortsByTheSourceFirstOrTheWholeListAlike) {
  for (const std::uint64_t seed : {1u, 2u, 3u}) {
    expect_normalize_is_the_reference_sort<std::int32_t>(300, 20000, seed);       // by source first
    expect_normalize_is_the_reference_sort<std::int32_t>(50000000, 20000, seed);  // n >> m: the whole list
    expect_normalize_is_the_reference_sort<double>(1000, 20000, seed);
    expect_normalize_is_the_reference_sort<float>(90000000, 5000, seed);
  }
}

TEST(NormalizedPrecondition, ANormalizedGraphPasses) {
  const Graph g{4, {{0, 1, 1}, {0, 3, -2}, {1, 2, 0}, {3, 0, 7}}};
  EXPECT_NO_THROW(check_normalized(g));
  EXPECT_NO_THROW(check_normalized(Graph{0, {}}));
  EXPECT_NO_THROW(check_normalized(normalize(Graph{4, {{3, 0, 1}, {0, 1, 4}, {0, 1, 2}, {2, 2, 5}}})));
  EXPECT_TRUE(is_normalized(g));
  EXPECT_TRUE(is_normalized(Graph{0, {}}));
  // Real weights: finite ones only (normalize drops +inf and refuses NaN).
  EXPECT_TRUE(is_normalized(GraphF64{3, {{0, 1, -0.5}, {1, 2, 1e300}}}));
  EXPECT_FALSE(is_normalized(GraphF64{3, {{0, 1, 0.5}, {1, 2, std::numeric_limits<double>::infinity()}}}));
  EXPECT_FALSE(is_normalized(GraphF32{3, {{0, 1, std::numeric_limits<float>::quiet_NaN()}}}));
  EXPECT_EQ(to_csr(g).row_start, (std::vector<std::int64_t>{0, 2, 3, 3, 4}));
}

struct BadCsr {
  const char* what;
  Csr csr;
};

std::vector<BadCsr> bad_csrs() {
  // A valid CSR of 0->1 (w 2), 1->2 (w -1), 2->0 (w 3) to break one way at a time.
  const Csr ok{3, {0, 1, 2, 3}, {1, 2, 0}, {2, -1, 3}};
  std::vector<BadCsr> bad;
  Csr c = ok;
  c.row_start.pop_back();
  bad.push_back({"row_start one short", c});
  c = ok;
  c.row_start = {0, 2, 1, 3};
  bad.push_back({"row_start decreasing", c});
  c = ok;
  c.row_start = {1, 1, 2, 3};
  bad.push_back({"row_start not starting at 0", c});
  c = ok;
  c.row_start = {0, 1, 2, 7};
  bad.push_back({"row_start ending past col", c});
  c = ok;
  c.col[1] = 3;
  bad.push_back({"column beyond n", c});
  c = ok;
  c.col[0] = -2;
  bad.push_back({"negative column", c});
  c = ok;
  c.weight.pop_back();
  bad.push_back({"weight shorter than col", c});
  c = ok;
  c.n = -1;
  bad.push_back({"negative n", c});
  return bad;
}

TEST(CsrPrecondition, EveryEntryPointRefusesABadCsr) {
  for (const BadCsr& bad : bad_csrs()) {
    SCOPED_TRACE(bad.what);
    EXPECT_THROW(check_csr(bad.csr), InputError);
    EXPECT_THROW(transpose(bad.csr), InputError);
    EXPECT_THROW(johnson_potentials(bad.csr), InputError);
  }
  const Csr ok{3, {0, 1, 2, 3}, {1, 2, 0}, {2, -1, 3}};
  EXPECT_NO_THROW(check_csr(ok));
  const Csr in = transpose(ok);
  EXPECT_EQ(in.row_start, (std::vector<std::int64_t>{0, 1, 2, 3}));
  EXPECT_EQ(in.col, (std::vector<vertex_t>{2, 0, 1}));
  EXPECT_EQ(in.weight, (std::vector<weight_t>{3, 2, -1}));
  EXPECT_EQ(johnson_potentials(ok), (std::vector<std::int64_t>{0, 0, -1}));
}

// Issue 20, defect 6: threads = 100000 crashed the process (and 10**6 killed
// Python) when OpenMP tried to start the team. Every entry point refuses a
// count above kMaxThreads, or below 0, naming the option, before any work.
TEST(ThreadCount, EveryEntryPointRefusesACountOutOfRange) {
  const Graph g{3, {{0, 1, 2}, {1, 2, -1}}};
  const GraphF64 real{3, {{0, 1, 0.5}, {1, 2, 1.5}}};
  const std::vector<double> cells = {0, 1, 0, 0, 0, 1, 0, 0, 0};
  const DenseView view{3, cells.data(), DenseElement::float64, 3, 1};
  for (int threads : {-1, kMaxThreads + 1, 100000, 1000000}) {
    SCOPED_TRACE(threads);
    SolveOptions o;
    o.threads = threads;
    for (const char* algorithm : {"auto", "fw-seq", "dijkstra"}) {
      o.algorithm = algorithm;
      NullSink nothing;
      const auto expect_refused = [&](auto call) {
        try {
          call();
          ADD_FAILURE() << algorithm << " accepted threads = " << threads;
        } catch (const UsageError& e) {
          EXPECT_EQ(e.option(), "threads");
          EXPECT_NE(std::string(e.what()).find(std::to_string(kMaxThreads)), std::string::npos) << e.what();
        }
      };
      expect_refused([&] { solve(g, o, nothing); });
      expect_refused([&] { solve(real, o, nothing); });
      expect_refused([&] { solve(view, o, nothing); });
      expect_refused([&] {
        SolveSummary out;
        cpu::solve(g, o, nothing, out);
      });
    }
    DistributedOptions d;
    d.threads = threads;
    const auto comm = make_single_communicator();
    NullSink nothing;
    EXPECT_THROW(solve_distributed(*comm, g, d, nothing), UsageError);
  }
  SolveOptions most;
  most.threads = 2;
  EXPECT_EQ(solve(g, most).dist, solve(g, SolveOptions{}).dist);
}

}  // namespace
}  // namespace apsp
