// Every CPU algorithm against the independent reference on the shared cases:
// distances, predecessors, negative cycles, int32 overflow and the int64 path.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <stdexcept>
#include <string>

#include "apsp/cpu.hpp"
#include "apsp/sinks.hpp"
#include "apsp/error.hpp"
#include "apsp/generate.hpp"
#include "apsp/registry.hpp"
#include "apsp/solver.hpp"
#include "support/cases.hpp"

namespace apsp {
namespace {

SolveResult run(const Graph& g, const std::string& algorithm, bool predecessors, int threads = 0) {
  SolveOptions o;
  o.backend = Backend::cpu;
  o.algorithm = algorithm;
  o.predecessors = predecessors;
  o.threads = threads;
  return solve(g, o);
}

// The width an algorithm computes in when (n-1) * max|w| fits int32: the
// narrowest of its registry precisions (the label-correcting searches,
// bellman-ford and johnson, always use int64 labels).
Precision narrowest_precision(const std::string& algorithm) {
  const AlgorithmInfo* info = find_algorithm(algorithm, Backend::cpu);
  if (info == nullptr) throw std::logic_error("no CPU algorithm " + algorithm);
  return precisions(*info).front();
}

bool has_negative_edge(const Graph& g) {
  return std::any_of(g.edges.begin(), g.edges.end(), [](const Edge& e) { return e.w < 0 && e.src != e.dst; });
}

// Reference distances of the shared cases, computed once per test binary.
const std::vector<dist_t>& reference(const test::Case& c) {
  static std::map<std::string, std::vector<dist_t>> cache;
  auto it = cache.find(c.name);
  if (it == cache.end()) it = cache.emplace(c.name, test::reference_distances(c.graph)).first;
  return it->second;
}

// The standard case whose name starts with `prefix`.
test::Case standard_case(const std::string& prefix) {
  for (test::Case& c : test::standard_cases())
    if (c.name.rfind(prefix, 0) == 0) return c;
  ADD_FAILURE() << "no standard case " << prefix;
  return {};
}

class CpuAlgorithm : public ::testing::TestWithParam<std::string> {};

TEST_P(CpuAlgorithm, MatchesReferenceOnStandardCases) {
  const std::string algorithm = GetParam();
  std::vector<test::Case> cases = test::standard_cases();
  for (test::Case& c : test::tile_cases()) cases.push_back(std::move(c));
  for (const test::Case& c : cases) {
    SCOPED_TRACE(c.name + " with " + algorithm);
    if (algorithm == "dijkstra" && has_negative_edge(c.graph)) {
      EXPECT_THROW(run(c.graph, algorithm, false), InputError);
      continue;
    }
    const SolveResult r = run(c.graph, algorithm, false);
    EXPECT_EQ(r.algorithm, algorithm);
    EXPECT_EQ(r.precision, narrowest_precision(algorithm));
    EXPECT_EQ(r.n, c.graph.n);
    EXPECT_EQ(test::first_difference(reference(c), r.dist, c.graph.n), "");
    // Every case has the edge 0 -> 1; from 3 vertices on, one vertex has no
    // in-edges (with 2, the generated edge 1 -> 0 may connect both ways).
    const test::EntryCounts counts = test::count_entries(r.dist, c.graph.n);
    if (c.graph.n >= 2) EXPECT_GT(counts.finite_off_diagonal, 0);
    if (c.graph.n >= 3) EXPECT_GT(counts.unreachable, 0);
  }
}

TEST_P(CpuAlgorithm, PredecessorsFollowShortestPaths) {
  const std::string algorithm = GetParam();
  for (const test::Case& c : test::standard_cases()) {
    SCOPED_TRACE(c.name + " with " + algorithm);
    if (algorithm == "dijkstra" && has_negative_edge(c.graph)) continue;
    const SolveResult r = run(c.graph, algorithm, true);
    ASSERT_EQ(test::first_difference(reference(c), r.dist, c.graph.n), "");
    EXPECT_EQ(test::check_predecessors(c.graph, r.dist, r.pred), "");
  }
}

TEST_P(CpuAlgorithm, NamesAVertexOnTheNegativeCycle) {
  const std::string algorithm = GetParam();
  for (const std::int64_t n : {5, 64, 65, 200, 300}) {
    const test::Case c = test::negative_cycle_case(n, static_cast<std::uint64_t>(n) + 7);
    SCOPED_TRACE(c.name + " with " + algorithm);
    if (algorithm == "dijkstra") {
      EXPECT_THROW(run(c.graph, algorithm, false), InputError);
      continue;
    }
    for (const bool predecessors : {false, true}) {
      try {
        run(c.graph, algorithm, predecessors);
        ADD_FAILURE() << "no NegativeCycleError, predecessors " << predecessors;
      } catch (const NegativeCycleError& e) {
        EXPECT_TRUE(test::lies_on_negative_cycle(normalize(c.graph), static_cast<vertex_t>(e.vertex())))
            << "vertex " << e.vertex() << " is on no negative cycle, predecessors " << predecessors;
      }
    }
  }
}

// 0 -> 1 -> 2 with both weights `w`: d(0, 2) = 2w.
Graph two_step_path(weight_t w, std::int64_t n) {
  Graph g;
  g.n = n;
  g.edges = {{0, 1, w}, {1, 2, w}};
  return g;
}

TEST_P(CpuAlgorithm, DistanceOutsideInt32IsAnOverflowError) {
  const std::string algorithm = GetParam();
  const weight_t big = (1 << 30) - 100;
  for (const weight_t w : {big, -big}) {
    SCOPED_TRACE("path 0->1->2 with weights " + std::to_string(w) + " with " + algorithm);
    const Graph g = two_step_path(w, 3);
    if (algorithm == "dijkstra" && w < 0) {
      EXPECT_THROW(run(g, algorithm, false), InputError);
      continue;
    }
    try {
      run(g, algorithm, true);
      ADD_FAILURE() << "no OverflowError";
    } catch (const OverflowError& e) {
      const std::string message = e.what();
      EXPECT_NE(message.find("from 0 to 2"), std::string::npos) << message;
      EXPECT_NE(message.find(std::to_string(2 * static_cast<std::int64_t>(w))), std::string::npos) << message;
    }
  }
}

TEST_P(CpuAlgorithm, WideArithmeticGivesExactDistances) {
  const std::string algorithm = GetParam();
  // (n-1) * max|w| is far above kInf / 2, so every algorithm computes in int64;
  // every distance still fits the int32 output.
  Graph g;
  g.n = 100;
  g.edges = {{0, 1, 600000000}, {1, 2, 400000000}, {2, 3, 50000000}, {3, 0, 7}, {5, 6, 1}};
  if (algorithm != "dijkstra") g.edges.push_back({2, 4, -900000000});
  ASSERT_FALSE(fits_int32_arithmetic(normalize(g), weight_stats(normalize(g))));
  SCOPED_TRACE("wide path graph with " + algorithm);
  const SolveResult r = run(g, algorithm, true);
  const std::vector<dist_t> expected = test::reference_distances(g);
  EXPECT_EQ(test::first_difference(expected, r.dist, g.n), "");
  EXPECT_EQ(test::check_predecessors(g, r.dist, r.pred), "");
  EXPECT_EQ(r.dist[0 * g.n + 3], 1050000000);
  EXPECT_EQ(r.precision, Precision::int64);
}

// Precision::int64 computes every algorithm in int64, with the same answer;
// int32 is no narrower than 32 bits, which every CPU algorithm honours.
TEST_P(CpuAlgorithm, ReportsThePrecisionItComputedIn) {
  const std::string algorithm = GetParam();
  const test::Case c = standard_case(algorithm == "dijkstra" ? "grid_n65_zero" : "grid_n65_neg");
  SCOPED_TRACE(c.name + " with " + algorithm);
  for (const Precision asked : {Precision::automatic, Precision::int32, Precision::int64}) {
    SolveOptions o;
    o.backend = Backend::cpu;
    o.algorithm = algorithm;
    o.predecessors = true;
    o.precision = asked;
    const SolveResult r = solve(c.graph, o);
    EXPECT_EQ(r.precision, asked == Precision::int64 ? Precision::int64 : narrowest_precision(algorithm))
        << "asked " << to_string(asked);
    EXPECT_EQ(test::first_difference(reference(c), r.dist, c.graph.n), "");
    EXPECT_EQ(test::check_predecessors(c.graph, r.dist, r.pred), "");
  }
}

TEST_P(CpuAlgorithm, MatrixTooLargeForMemoryIsAResourceError) {
  const std::string algorithm = GetParam();
  Graph g;
  g.n = 3000000;  // the n x n output alone would need 36 TB
  g.edges = {{0, 1, 1}};
  SCOPED_TRACE("3M vertices with " + algorithm);
  try {
    run(g, algorithm, false);
    ADD_FAILURE() << "no ResourceError";
  } catch (const ResourceError& e) {
    EXPECT_NE(std::string(e.what()).find("3000000 x 3000000 distance matrix needs"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("available"), std::string::npos) << e.what();
  }
}

TEST_P(CpuAlgorithm, ThreadCountDoesNotChangeTheAnswer) {
  const std::string algorithm = GetParam();
  const test::Case c = standard_case("scale-free_n200_pos");
  SCOPED_TRACE(c.name + " with " + algorithm);
  const SolveResult one = run(c.graph, algorithm, true, 1);
  const SolveResult two = run(c.graph, algorithm, true, 2);
  EXPECT_EQ(test::first_difference(reference(c), one.dist, c.graph.n), "");
  EXPECT_EQ(test::first_difference(one.dist, two.dist, c.graph.n), "");
  EXPECT_EQ(test::check_predecessors(c.graph, two.dist, two.pred), "");
}

TEST_P(CpuAlgorithm, ReportsProgressInOrder) {
  const std::string algorithm = GetParam();
  const test::Case c = standard_case("rmat_n257_pos");
  SCOPED_TRACE(c.name + " with " + algorithm);
  std::vector<double> seen;
  SolveOptions o;
  o.backend = Backend::cpu;
  o.algorithm = algorithm;
  o.progress = [&](double f) { seen.push_back(f); };
  solve(c.graph, o);
  EXPECT_EQ(test::check_progress(seen), "");
}

INSTANTIATE_TEST_SUITE_P(All, CpuAlgorithm, ::testing::ValuesIn(cpu::algorithms()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string name = info.param;
                           std::replace(name.begin(), name.end(), '-', '_');
                           return name;
                         });

TEST(CpuBackend, ListsItsAlgorithmsInAStableOrder) {
  EXPECT_EQ(cpu::algorithms(), (std::vector<std::string>{"fw-seq", "fw-blocked", "fw-ooc", "dijkstra", "bellman-ford",
                                                         "johnson", "supernodal"}));
  EXPECT_EQ(list_algorithms(Backend::cpu), cpu::algorithms());
}

// Sets APSP_CPU_ISA for the lifetime of the object.
class ForcedIsa {
 public:
  explicit ForcedIsa(const char* isa) { setenv("APSP_CPU_ISA", isa, 1); }
  ~ForcedIsa() { unsetenv("APSP_CPU_ISA"); }
};

bool cpu_supports(const std::string& isa) {
  __builtin_cpu_init();
  if (isa == "avx512")
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
           __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq");
  if (isa == "avx2") return __builtin_cpu_supports("avx2");
  return true;
}

// The build machine runs only its best fw-blocked kernel unless told otherwise.
TEST(CpuBackend, EveryFwBlockedKernelVariantMatchesTheReference) {
  std::vector<test::Case> cases = test::tile_cases();
  cases.push_back(standard_case("dense_n257_neg"));
  cases.push_back(standard_case("grid_n200_zero"));
  Graph wide;
  wide.n = 130;
  wide.edges = {{0, 1, 600000000}, {1, 2, 400000000}, {2, 129, -900000000}, {129, 70, 5}, {70, 0, 5}};
  cases.push_back(test::Case{"wide_n130", wide});
  for (const test::Case& c : cases) {
    const std::vector<dist_t> expected = test::reference_distances(c.graph);
    for (const char* isa : {"avx512", "avx2", "baseline"}) {
      if (!cpu_supports(isa)) continue;
      const ForcedIsa forced(isa);
      SCOPED_TRACE(c.name + " with the " + isa + " kernels");
      const SolveResult r = run(c.graph, "fw-blocked", true);
      EXPECT_EQ(test::first_difference(expected, r.dist, c.graph.n), "");
      EXPECT_EQ(test::check_predecessors(c.graph, r.dist, r.pred), "");
      const SolveResult plain = run(c.graph, "fw-blocked", false);
      EXPECT_EQ(test::first_difference(expected, plain.dist, c.graph.n), "");
    }
  }
}

// fw-blocked relaxes through panel values later than the sequential order
// would, so on graphs full of zero-weight cycles some predecessor rows come
// out with looping chains and are rebuilt from the distances: every row must
// still be a tree of shortest paths, at tile-straddling sizes, in every
// kernel variant.
TEST(CpuBackend, FwBlockedPredecessorsStayTreesAcrossZeroWeightCycles) {
  for (const std::int64_t n : {63, 64, 65, 130, 200}) {
    GenerateOptions o;
    o.kind = GraphKind::random;
    o.n = n;
    o.m = 4 * n;
    o.w_lo = 0;
    o.w_hi = 1;
    o.seed = static_cast<std::uint64_t>(n);
    const Graph g = generate(o);
    const std::vector<dist_t> expected = test::reference_distances(g);
    const test::EntryCounts counts = test::count_entries(expected, n);
    ASSERT_GT(counts.finite_off_diagonal, 0);
    for (const char* isa : {"avx512", "avx2", "baseline"}) {
      if (!cpu_supports(isa)) continue;
      const ForcedIsa forced(isa);
      SCOPED_TRACE("n = " + std::to_string(n) + " with the " + isa + " kernels");
      const SolveResult r = run(g, "fw-blocked", true);
      EXPECT_EQ(test::first_difference(expected, r.dist, n), "");
      EXPECT_EQ(test::check_predecessors(g, r.dist, r.pred), "");
    }
  }
}

TEST(CpuBackend, UnknownKernelVariantIsAUsageError) {
  const ForcedIsa forced("sse9");
  EXPECT_THROW(run(standard_case("random_n63_pos").graph, "fw-blocked", false), UsageError);
}

TEST(CpuBackend, DijkstraRefusesNegativeWeightsNamingTheEdge) {
  Graph g;
  g.n = 4;
  g.edges = {{0, 1, 3}, {2, 3, -4}};
  try {
    run(g, "dijkstra", false);
    FAIL() << "no InputError";
  } catch (const NegativeCycleError&) {
    FAIL() << "a negative edge is not a negative cycle";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), "dijkstra needs non-negative weights (edge 2->3 has weight -4); use johnson");
  }
}

TEST(CpuBackend, UnknownAlgorithmIsAUsageError) {
  Graph g;
  g.n = 2;
  EXPECT_THROW(run(g, "fw-quantum", false), UsageError);
}

Graph random_graph(std::int64_t n, std::int64_t m, weight_t lo) {
  GenerateOptions o;
  o.kind = GraphKind::random;
  o.n = n;
  o.m = m;
  o.w_lo = lo;
  o.seed = 5;
  return normalize(generate(o));
}

// The crossovers of docs/perf.md: one search per source costs about
// 3.2 + 10.3 log2(m/n) ns per pair (15% more for johnson), fw-blocked
// 0.015 n ns per pair.
TEST(CpuBackend, AutoPicksByDensityAndWeightSigns) {
  struct Expectation {
    const char* what;
    Graph g;
    const char* algorithm;
    bool solve;  // also check what apsp::solve runs (kept to the cheap cases)
  };
  const Expectation expectations[] = {
      {"small sparse graph", random_graph(150, 300, 1), "fw-blocked", true},
      {"dense graph", random_graph(600, 600 * 300, 1), "fw-blocked", true},
      {"dense graph with negative weights", random_graph(600, 600 * 300, -5), "fw-blocked", true},
      {"sparse graph", random_graph(2048, 2048 * 2, 1), "dijkstra", true},
      {"sparse graph with negative weights", random_graph(2048, 2048 * 2, -5), "johnson", true},
      {"moderately sparse graph", random_graph(2048, 2048 * 16, 1), "fw-blocked", false},
      {"moderately sparse, larger graph", random_graph(8192, 8192 * 16, 1), "dijkstra", false},
  };
  for (const Expectation& e : expectations) {
    SCOPED_TRACE(e.what);
    EXPECT_EQ(cpu::choose_algorithm(e.g, weight_stats(e.g)), e.algorithm);
    if (!e.solve) continue;
    SolveOptions o;
    o.backend = Backend::cpu;
    EXPECT_EQ(solve(e.g, o).algorithm, e.algorithm);
  }
}

}  // namespace
}  // namespace apsp

namespace apsp {
namespace {

// GPU-only options are refused on the CPU rather than silently ignored.
TEST(CpuBackend, RefusesGpuOnlyOptions) {
  const Graph g = test::tile_cases().front().graph;
  SolveOptions o;
  o.backend = Backend::cpu;
  o.precision = Precision::int16;
  EXPECT_THROW(solve(g, o), UsageError);
  o.precision = Precision::int32;
  EXPECT_EQ(solve(g, o).precision, Precision::int32);
  o.block = BlockShape{8, 8};
  EXPECT_THROW(solve(g, o), UsageError);
  // The CPU backend's own entry point refuses them too, naming the option.
  SolveSummary r;
  NullSink sink;
  o.precision = Precision::int16;
  o.block = {};
  try {
    cpu::solve(normalize(g), o, sink, r);
    ADD_FAILURE() << "no UsageError for int16";
  } catch (const UsageError& e) {
    EXPECT_EQ(e.option(), "precision");
  }
  o.precision = Precision::automatic;
  o.block = BlockShape{8, 8};
  try {
    cpu::solve(normalize(g), o, sink, r);
    ADD_FAILURE() << "no UsageError for a block shape";
  } catch (const UsageError& e) {
    EXPECT_EQ(e.option(), "block");
  }
}

// int64 is a CPU mode: with the automatic backend it keeps the CPU at any
// size; it parses and prints as "int64".
TEST(CpuBackend, Int64IsACpuMode) {
  EXPECT_EQ(parse_precision("int64"), Precision::int64);
  EXPECT_STREQ(to_string(Precision::int64), "int64");
  for (const char* name : {"auto", "int16", "int32", "int64"}) EXPECT_STREQ(to_string(parse_precision(name)), name);
  Graph g;
  g.n = 1600;  // above the GPU threshold of the automatic backend
  g.edges = {{0, 1, 3}, {1, 2, 4}};
  SolveOptions o;
  o.precision = Precision::int64;
  const SolveResult r = solve(g, o);
  EXPECT_EQ(r.backend, Backend::cpu);
  EXPECT_EQ(r.precision, Precision::int64);
  EXPECT_EQ(r.dist[2], 7);
}

}  // namespace
}  // namespace apsp
