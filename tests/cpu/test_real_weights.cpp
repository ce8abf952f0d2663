// Real-valued weights (float32, float64) on the CPU: every algorithm against
// the independent long-double reference on the shared cases (negative and
// zero weights, duplicates, self-loops, unreachable parts), predecessors as
// trees, negative cycles against rounding, the weight-type choice and
// conversion, verify's tolerance, and the options a real solve refuses.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>
#include <random>
#include <set>
#include <string>
#include <tuple>

#include "apsp/cpu.hpp"
#include "apsp/cuda.hpp"
#include "apsp/error.hpp"
#include "apsp/io.hpp"
#include "apsp/sinks.hpp"
#include "apsp/solver.hpp"
#include "apsp/verify.hpp"
#include "core/csr.hpp"
#include "core/negative_cycle.hpp"
#include "cpu/sources.hpp"
#include "support/cases.hpp"
#include "support/scratch.hpp"

namespace apsp {
namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

SolveOptions cpu_options(const std::string& algorithm, bool predecessors) {
  SolveOptions o;
  o.backend = Backend::cpu;
  o.algorithm = algorithm;
  o.predecessors = predecessors;
  return o;
}

bool has_negative_edge(const GraphF64& g) {
  for (const EdgeF64& e : g.edges)
    if (e.w < 0 && e.src != e.dst) return true;
  return false;
}

// One solve of `c` in W with `algorithm`, checked against the reference of
// the graph exactly as solved (float32 weights promoted to double).
template <class W>
void expect_matches_reference(const test::Case& c, const std::string& algorithm, bool predecessors) {
  const GraphF64 real = test::with_real_weights(c.graph);
  GraphF64 exact;  // the weights the solve sees, in double
  BasicSolveResult<W> r;
  const SolveOptions o = cpu_options(algorithm, predecessors);
  if constexpr (std::is_same<W, float>::value) {
    const GraphF32 g = test::to_float32(real);
    exact = test::to_float64(g);
    if (algorithm == "dijkstra" && has_negative_edge(exact)) {
      EXPECT_THROW(solve(g, o), InputError);
      return;
    }
    r = solve(g, o);
  } else {
    exact = real;
    if (algorithm == "dijkstra" && has_negative_edge(exact)) {
      EXPECT_THROW(solve(real, o), InputError);
      return;
    }
    r = solve(real, o);
  }
  EXPECT_EQ(r.algorithm, algorithm);
  EXPECT_EQ(r.weights, weight_type_of<W>);
  const std::int64_t n = c.graph.n;
  std::vector<double> d(r.dist.begin(), r.dist.end());
  const std::vector<double> expected = test::reference_distances(exact);
  const double rel = test::test_relative_tolerance<W>(n);
  EXPECT_EQ(test::first_real_difference(expected, d, n, test::max_abs_weight(exact), rel), "");
  const test::EntryCounts counts = test::count_entries(d, n);
  if (n >= 2) EXPECT_GT(counts.finite_off_diagonal, 0);
  if (n >= 3) EXPECT_GT(counts.unreachable, 0);
  if (predecessors) {
    double scale = test::max_abs_weight(exact);
    for (const double x : expected)
      if (x != kInfinity) scale = std::max(scale, std::abs(x));
    EXPECT_EQ(test::check_predecessors(exact, d, r.pred, rel * scale), "");
  }
}

using AlgorithmAndType = std::tuple<std::string, WeightType>;

class RealCpuAlgorithm : public ::testing::TestWithParam<AlgorithmAndType> {
 protected:
  template <class Body>
  void for_each_case(Body body) {
    std::vector<test::Case> cases = test::standard_cases();
    for (test::Case& c : test::tile_cases()) cases.push_back(std::move(c));
    for (const test::Case& c : cases) {
      SCOPED_TRACE(c.name + " with " + std::get<0>(GetParam()) + " in " + to_string(std::get<1>(GetParam())));
      body(c);
    }
  }
};

TEST_P(RealCpuAlgorithm, MatchesReferenceOnStandardCases) {
  const auto [algorithm, type] = GetParam();
  for_each_case([&](const test::Case& c) {
    if (type == WeightType::float32)
      expect_matches_reference<float>(c, algorithm, false);
    else
      expect_matches_reference<double>(c, algorithm, false);
  });
}

TEST_P(RealCpuAlgorithm, PredecessorsFormShortestPathTrees) {
  const auto [algorithm, type] = GetParam();
  for_each_case([&](const test::Case& c) {
    if (c.graph.n > 130) return;  // the chain walk is O(n^3); the sizes around tiles are below
    if (type == WeightType::float32)
      expect_matches_reference<float>(c, algorithm, true);
    else
      expect_matches_reference<double>(c, algorithm, true);
  });
}

// A real negative cycle is an error naming a vertex on it, in either type.
TEST_P(RealCpuAlgorithm, NegativeCycleIsReported) {
  const auto [algorithm, type] = GetParam();
  if (algorithm == "dijkstra") return;  // refuses negative weights before any search
  for (const std::int64_t n : {5, 70, 131}) {
    const test::Case c = test::negative_cycle_case(n, 7);
    const GraphF64 g = test::with_real_weights(c.graph);
    try {
      if (type == WeightType::float32)
        solve(test::to_float32(g), cpu_options(algorithm, false));
      else
        solve(g, cpu_options(algorithm, false));
      ADD_FAILURE() << "no negative cycle reported for n = " << n;
    } catch (const NegativeCycleError& e) {
      EXPECT_TRUE(test::lies_on_negative_cycle(c.graph, static_cast<vertex_t>(e.vertex()))) << e.what();
    }
  }
}

INSTANTIATE_TEST_SUITE_P(All, RealCpuAlgorithm,
                         ::testing::Combine(::testing::Values("fw-seq", "fw-blocked", "fw-ooc", "dijkstra",
                                                              "bellman-ford", "johnson"),
                                            ::testing::Values(WeightType::float32, WeightType::float64)),
                         [](const auto& info) {
                           std::string name = std::get<0>(info.param) + "_" + to_string(std::get<1>(info.param));
                           for (char& ch : name)
                             if (ch == '-') ch = '_';
                           return name;
                         });

// The radix heap on float and double keys pops them in the order of their
// buckets (floor(key / width)), in any order within one, whatever their
// magnitudes: +0, subnormals, fractions, huge values and +inf, pushed as
// Dijkstra pushes them (never below the last pop's bucket).
template <class D>
void expect_radix_heap_pops_by_bucket(double width) {
  const std::vector<D> step = {D(0),
                               std::numeric_limits<D>::denorm_min(),
                               std::numeric_limits<D>::min(),
                               D(0.1),
                               D(0.30000000000000004),
                               D(1),
                               D(1.5),
                               D(1e30),
                               std::numeric_limits<D>::max(),
                               std::numeric_limits<D>::infinity()};
  const auto bucket_of = [&](D key) { return std::min(std::floor(static_cast<double>(key) / width), 0x1p62); };
  std::mt19937_64 rng(7);
  cpu::detail::RadixHeap<D> heap;
  heap.set_bucket_width(width);
  std::multiset<D> waiting;
  D last = 0;
  for (int round = 0; round < 2000; ++round) {
    const int pushes = static_cast<int>(rng() % 4);
    for (int k = 0; k < pushes; ++k) {
      const D key = last + step[rng() % step.size()];
      heap.push(key, static_cast<vertex_t>(round));
      waiting.insert(key);
    }
    if (heap.empty()) continue;
    const D key = heap.pop().key;
    ASSERT_EQ(bucket_of(key), bucket_of(*waiting.begin())) << "round " << round;
    ASSERT_NE(waiting.find(key), waiting.end());
    waiting.erase(waiting.find(key));
    last = key;
  }
  while (!heap.empty()) {
    const D key = heap.pop().key;
    ASSERT_EQ(bucket_of(key), bucket_of(*waiting.begin()));
    waiting.erase(waiting.find(key));
  }
  EXPECT_TRUE(waiting.empty());
}

TEST(RealWeights, RadixHeapPopsFloatAndDoubleKeysByBucket) {
  for (const double width : {1e-3, 0.25, 1.0, 1e10}) {
    SCOPED_TRACE(width);
    expect_radix_heap_pops_by_bucket<float>(width);
    expect_radix_heap_pops_by_bucket<double>(width);
  }
}

// Distances from `source` by label correction in W itself, every sum
// rounded as d[u] + w: the labels scipy's Dijkstra computes.
template <class W>
std::vector<W> same_arithmetic_row(const BasicGraph<W>& g, vertex_t source) {
  std::vector<W> d(static_cast<std::size_t>(g.n), std::numeric_limits<W>::infinity());
  d[source] = 0;
  for (bool changed = true; changed;) {
    changed = false;
    for (const BasicEdge<W>& e : g.edges) {
      const W candidate = d[e.src] + e.w;
      if (candidate < d[e.dst]) {
        d[e.dst] = candidate;
        changed = true;
      }
    }
  }
  return d;
}

// dijkstra on real weights computes each label as d[u] + w in W, as scipy
// does: its distances equal the same-arithmetic reference bit for bit (not
// only within a tolerance) on the shared cases with |w|.
template <class W>
void expect_dijkstra_identical_to_same_arithmetic() {
  std::vector<test::Case> cases = test::standard_cases();
  for (test::Case& c : test::tile_cases()) cases.push_back(std::move(c));
  for (const test::Case& c : cases) {
    SCOPED_TRACE(c.name);
    BasicGraph<W> g;
    g.n = c.graph.n;
    for (const EdgeF64& e : test::with_real_weights(c.graph).edges)
      g.edges.push_back({e.src, e.dst, static_cast<W>(std::abs(e.w))});
    const BasicSolveResult<W> r = solve(g, cpu_options("dijkstra", false));
    std::int64_t different = 0, finite = 0, unreachable = 0;
    for (vertex_t s = 0; s < g.n; ++s) {
      const std::vector<W> want = same_arithmetic_row(g, s);
      for (std::int64_t t = 0; t < g.n; ++t) {
        const W got = r.dist[static_cast<std::size_t>(s * g.n + t)];
        different += std::memcmp(&got, &want[t], sizeof(W)) != 0;
        (std::isinf(got) ? unreachable : finite) += s != t;
      }
    }
    EXPECT_EQ(different, 0);
    if (g.n >= 2) EXPECT_GT(finite, 0);
    if (g.n >= 3) EXPECT_GT(unreachable, 0);
  }
}

TEST(RealWeights, DijkstraEqualsSameArithmeticReferenceBitForBit) {
  expect_dijkstra_identical_to_same_arithmetic<float>();
  expect_dijkstra_identical_to_same_arithmetic<double>();
}

// Within a bucket the search is label-correcting: with every key in one
// bucket (a width above every distance) or one per key (a tiny width), its
// labels still equal the same-arithmetic reference bit for bit, and its
// predecessors still form shortest-path trees.
TEST(RealWeights, DijkstraSearchIsExactWhateverTheBucketWidth) {
  std::vector<test::Case> cases = test::standard_cases();
  for (test::Case& c : test::tile_cases()) cases.push_back(std::move(c));
  for (const double width : {1e-9, 1e300}) {
    for (const test::Case& c : cases) {
      SCOPED_TRACE(c.name + " width " + std::to_string(width));
      GraphF64 g;
      g.n = c.graph.n;
      for (const EdgeF64& e : test::with_real_weights(c.graph).edges) g.edges.push_back({e.src, e.dst, std::abs(e.w)});
      const CsrF64 csr = to_csr(normalize(g));
      cpu::detail::RadixHeap<double> heap;
      heap.set_bucket_width(width);
      std::vector<double> dist(static_cast<std::size_t>(g.n * g.n), kInfinity);
      std::vector<vertex_t> pred(dist.size(), -1);
      std::int64_t different = 0;
      for (vertex_t s = 0; s < g.n; ++s) {
        double* row = dist.data() + s * g.n;
        cpu::detail::dijkstra_from(core::csr_view(csr), s, row, pred.data() + s * g.n, heap);
        const std::vector<double> want = same_arithmetic_row(g, s);
        for (std::int64_t t = 0; t < g.n; ++t) different += std::memcmp(&row[t], &want[t], sizeof(double)) != 0;
      }
      EXPECT_EQ(different, 0);
      // The checker sums each path its own way: within rounding of the distances.
      double scale = test::max_abs_weight(g);
      for (const double x : dist)
        if (x != kInfinity) scale = std::max(scale, x);
      EXPECT_EQ(test::check_predecessors(g, dist, pred, test::test_relative_tolerance<double>(g.n) * scale), "");
    }
  }
}

// A cycle whose weights cancel exactly in real arithmetic but not in binary
// (0.1 + 0.2 - 0.3 is 5.6e-17 in double; the other way round it is below
// zero) is no negative cycle: rounding stays within the tolerance.
// (0.762, 0.002, -0.764 sums to -1.7e-18 from the last vertex on.)
TEST(RealWeights, RoundingNearZeroCycleIsNoNegativeCycle) {
  GraphF64 g;
  g.n = 7;
  g.edges = {{0, 1, 0.3},   {1, 2, -0.1},  {2, 0, -0.2},   {2, 3, 1.5}, {3, 2, -1.5},
             {4, 5, 0.762}, {5, 6, 0.002}, {6, 4, -0.764}, {3, 4, 1.0}};
  g = normalize(g);  // verify takes the normalized graph
  for (const char* algorithm : {"fw-seq", "fw-blocked", "bellman-ford", "johnson", "supernodal"}) {
    SCOPED_TRACE(algorithm);
    const SolveResultF64 r = solve(g, cpu_options(algorithm, true));
    EXPECT_NEAR(r.dist[0 * 7 + 3], 0.3 - 0.1 + 1.5, 1e-12);
    EXPECT_NEAR(r.dist[6 * 7 + 5], -0.764 + 0.762, 1e-12);
    EXPECT_TRUE(verify(g, r.dist).ok) << verify(g, r.dist).first_violation;
    EXPECT_TRUE(verify_predecessors(g, r.dist, r.pred).ok) << verify_predecessors(g, r.dist, r.pred).first_violation;
  }
}

// A small negative cycle is reported whatever n is, by every algorithm
// (test::check_small_negative_cycles_reported); dijkstra refuses negative
// weights, and the CLI's and Python's dijkstra run johnson for them.
TEST(RealWeights, SmallNegativeCycleIsReportedWhateverN) {
  for (const char* algorithm : {"fw-seq", "fw-blocked", "bellman-ford", "johnson", "supernodal", "auto"})
    EXPECT_EQ(test::check_small_negative_cycles_reported(cpu_options(algorithm, false)), "");
  EXPECT_EQ(test::check_small_negative_cycles_reported(cpu_options("fw-blocked", true)), "");
}

// The same rule on a cycle alone: zero-sum cycles that rounding makes
// slightly negative are not negative, a cycle just below its own tolerance is.
TEST(RealWeights, NegativeCycleRuleUsesTheCyclesOwnEdges) {
  EXPECT_FALSE(core::cycle_is_negative(std::vector<double>{0.3, -0.1, -0.2}));
  EXPECT_FALSE(core::cycle_is_negative(std::vector<double>{0.762, 0.002, -0.764}));
  EXPECT_FALSE(core::cycle_is_negative(std::vector<float>{0.3f, -0.1f, -0.2f}));
  EXPECT_FALSE(core::cycle_is_negative(std::vector<double>{1.0, -1.0}));
  EXPECT_TRUE(core::cycle_is_negative(std::vector<double>{500.0, 500.0, -1000.0000000001}));
  EXPECT_TRUE(core::cycle_is_negative(std::vector<double>{1e-300, -2e-300}));
  EXPECT_TRUE(core::cycle_is_negative(std::vector<float>{512.0f, 512.0f, -1024.0009765625f}));
  // 1 ulp of 1024 below zero is within 3 * 2^-24 * 2048: rounding, not a cycle.
  EXPECT_FALSE(core::cycle_is_negative(std::vector<float>{512.0f, 512.0f, -1024.0001220703125f}));
}

// Zero-weight cycles tie every path around them: the predecessor rows must
// still be trees (fw-blocked rebuilds looping rows over tight edges).
TEST(RealWeights, ZeroWeightCyclesGivePredecessorTrees) {
  for (const std::int64_t n : {3, 64, 65, 130}) {
    GraphF64 g;
    g.n = n;
    for (std::int64_t v = 0; v < n; ++v) {
      g.edges.push_back({static_cast<vertex_t>(v), static_cast<vertex_t>((v + 1) % n), 0.0});
      g.edges.push_back({static_cast<vertex_t>(v), static_cast<vertex_t>((v * 7 + 3) % n), 0.0});
    }
    g.edges.push_back({0, static_cast<vertex_t>(n - 1), -0.0});
    for (const std::string algorithm : {"fw-seq", "fw-blocked", "dijkstra", "bellman-ford", "johnson", "supernodal"}) {
      SCOPED_TRACE(algorithm + " n = " + std::to_string(n));
      const SolveResultF64 r = solve(g, cpu_options(algorithm, true));
      EXPECT_EQ(test::check_predecessors(g, r.dist, r.pred, 0.0), "");
      const SolveResultF32 f = solve(test::to_float32(g), cpu_options(algorithm, true));
      EXPECT_EQ(test::check_predecessors(g, test::widened(f.dist), f.pred, 0.0), "");
    }
  }
}

TEST(RealWeights, EmptyAndSingleVertexGraphs) {
  GraphF64 empty;
  EXPECT_TRUE(solve(empty).dist.empty());
  GraphF64 one;
  one.n = 1;
  one.edges = {{0, 0, 2.5}};
  const SolveResultF64 r = solve(one, cpu_options("fw-blocked", true));
  ASSERT_EQ(r.dist.size(), 1u);
  EXPECT_EQ(r.dist[0], 0.0);
  EXPECT_EQ(r.pred[0], -1);
}

TEST(RealWeights, NanAndMinusInfinityWeightsAreRefusedPlusInfinityIsNoEdge) {
  GraphF64 g;
  g.n = 3;
  g.edges = {{0, 1, 1.0}, {1, 2, std::nan("")}};
  try {
    solve(g);
    ADD_FAILURE() << "NaN accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("edge 1 (1 -> 2) has a NaN weight"), std::string::npos) << e.what();
  }
  g.edges[1].w = -kInfinity;
  EXPECT_THROW(solve(g), InputError);
  g.edges[1].w = kInfinity;
  const SolveResultF64 r = solve(g);
  EXPECT_EQ(r.dist[1 * 3 + 2], kInfinity);
  EXPECT_EQ(r.dist[0 * 3 + 1], 1.0);
}

// Under auto a real graph goes to the GPU from the int32 size threshold on
// when there is a device (fw in float32 / float64), else to the CPU; the
// GPU's teaching kernels take int32 weights only.
TEST(RealWeights, AutomaticBackendFollowsTheDeviceAndGpuTeachingKernelsTakeInt32Only) {
  GraphF32 g;
  g.n = 2000;
  g.edges = {{0, 1, 0.5f}};
  EXPECT_EQ(choose_backend(g, SolveOptions{}), cuda::devices().empty() ? Backend::cpu : Backend::cuda);
  g.n = 100;
  EXPECT_EQ(choose_backend(g, SolveOptions{}), Backend::cpu);
  SolveOptions naive;
  naive.backend = Backend::cuda;
  naive.algorithm = "naive";
  g.n = 2;
  if (!cuda::compiled_in()) {
    EXPECT_THROW(solve(g, naive), ResourceError);
    return;
  }
  try {
    solve(g, naive);
    ADD_FAILURE() << "the naive GPU kernel took float32 weights";
  } catch (const UsageError& e) {
    EXPECT_EQ(e.option(), "algorithm");
    EXPECT_NE(std::string(e.what()).find("int32 weights only"), std::string::npos) << e.what();
  }
}

TEST(RealWeights, IntegerPrecisionModesAreRefused) {
  GraphF64 g;
  g.n = 2;
  g.edges = {{0, 1, 0.5}};
  for (const Precision p : {Precision::int16, Precision::int64}) {
    SolveOptions o;
    o.backend = Backend::cpu;
    o.precision = p;
    try {
      solve(g, o);
      ADD_FAILURE() << to_string(p) << " accepted";
    } catch (const UsageError& e) {
      EXPECT_EQ(e.option(), "precision");
    }
  }
}

TEST(WeightType, NamesRoundTripAndUnknownNamesAreUsageErrors) {
  for (const WeightType t : {WeightType::int32, WeightType::float32, WeightType::float64})
    EXPECT_EQ(parse_weight_type(to_string(t)), t);
  try {
    parse_weight_type("auto");
    ADD_FAILURE() << "auto parsed";
  } catch (const UsageError& e) {
    EXPECT_EQ(e.option(), "weights");
  }
}

TEST(WeightType, AutoKeepsInt32ForIntegersWhoseDistancesInt32Holds) {
  GraphF64 g;
  g.n = 3;
  g.edges = {{0, 1, 3.0}, {1, 2, -7.0}, {2, 0, 0.0}};
  EXPECT_EQ(choose_weight_type(g), WeightType::int32);
  // (n-1) * max|w| below kInf = 2^30 - 1: 2 * 536870911 = 2^30 - 2.
  g.edges.push_back({0, 2, 536870911.0});
  EXPECT_EQ(choose_weight_type(g), WeightType::int32);
  g.edges.back().w = -536870911.0;
  EXPECT_EQ(choose_weight_type(g), WeightType::int32);
  // 2 * 2^29 = 2^30 reaches kInf: a path could be unreachable's value or beyond.
  g.edges.back().w = 536870912.0;
  EXPECT_EQ(choose_weight_type(g), WeightType::float64);
  g.edges.back().w = 2147483648.0;
  EXPECT_EQ(choose_weight_type(g), WeightType::float64);
  g.edges.back().w = 0.5;
  EXPECT_EQ(choose_weight_type(g), WeightType::float64);
  g.edges.back().w = kInfinity;
  EXPECT_EQ(choose_weight_type(g), WeightType::float64);
  EXPECT_EQ(choose_weight_type(GraphF64{}), WeightType::int32);
  // One vertex: no path has an edge, any integer weight inside int32 stays.
  GraphF64 single;
  single.n = 1;
  single.edges = {{0, 0, 2147483647.0}};
  EXPECT_EQ(choose_weight_type(single), WeightType::int32);
}

TEST(WeightType, AnInt32GraphWhoseDistancesInt32CannotHoldIsFloat64UnderAuto) {
  // The path: 1100 edges of 1e6, 1.1e9 from end to end.
  Graph path;
  path.n = 1101;
  for (vertex_t v = 0; v + 1 < 1101; ++v) path.edges.push_back({v, v + 1, 1000000});
  EXPECT_EQ(choose_weight_type(path), WeightType::float64);
  // In float64 its length is exact.
  SolveOptions from_zero;
  from_zero.sources = {0};
  const SolveResultF64 r = solve(std::get<GraphF64>(convert_weights(AnyGraph(path), WeightType::float64)), from_zero);
  EXPECT_EQ(r.dist[1100], 1.1e9);
  // 999 edges: 9.99e8 < kInf, int32.
  Graph shorter = path;
  shorter.n = 1000;
  shorter.edges.resize(999);
  EXPECT_EQ(choose_weight_type(shorter), WeightType::int32);
  // Isolated vertices count: the bound is knowable from n and max|w| alone.
  shorter.n = 1100;
  EXPECT_EQ(choose_weight_type(shorter), WeightType::float64);
  EXPECT_TRUE(int32_distances_fit(0, 1e300));
  EXPECT_TRUE(int32_distances_fit(1, 1e300));
  EXPECT_TRUE(int32_distances_fit(2, kInf - 1.0));
  EXPECT_FALSE(int32_distances_fit(2, kInf));
}

TEST(WeightType, ConvertWeightsKeepsValuesAndNamesTheFirstInexactEdge) {
  GraphF64 g;
  g.n = 3;
  g.edges = {{0, 1, 3.0}, {1, 2, -7.0}};
  const AnyGraph as_int = convert_weights(g, WeightType::int32);
  ASSERT_EQ(weight_type(as_int), WeightType::int32);
  EXPECT_EQ(std::get<Graph>(as_int).edges[1].w, -7);
  const AnyGraph as_f32 = convert_weights(as_int, WeightType::float32);
  EXPECT_EQ(std::get<GraphF32>(as_f32).edges[0].w, 3.0f);
  g.edges.push_back({2, 0, 0.25});
  try {
    convert_weights(g, WeightType::int32);
    ADD_FAILURE() << "0.25 became an int32";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("edge 2 (2 -> 0) has weight 0.25"), std::string::npos) << e.what();
  }
}

// verify accepts a float32 result that differs from the float64 one by
// rounding, and rejects one entry made wrong by more than the tolerance,
// stating the tolerance in its message.
TEST(RealVerify, AcceptsRoundingAndRejectsARealViolation) {
  const test::Case c = test::standard_cases()[16];  // a random case with n = 65 or so
  SCOPED_TRACE(c.name);
  const GraphF64 g = normalize(test::with_real_weights(c.graph));
  const GraphF32 f = normalize(test::to_float32(g));
  SolveResultF64 exact = solve(g, cpu_options("fw-blocked", true));
  SolveResultF32 rounded = solve(f, cpu_options("fw-blocked", true));
  ASSERT_TRUE(verify(g, exact.dist).ok);
  const VerifyReport ok32 = verify(f, rounded.dist);
  EXPECT_TRUE(ok32.ok) << ok32.first_violation;
  EXPECT_GT(ok32.relative_tolerance, 0);
  EXPECT_TRUE(verify_predecessors(f, rounded.dist, rounded.pred).ok);
  // Nudging every finite entry by a few ulps is rounding, not a violation.
  std::vector<double> nudged(exact.dist.begin(), exact.dist.end());
  for (double& x : nudged)
    if (std::isfinite(x) && x != 0) x = std::nextafter(std::nextafter(x, kInfinity), kInfinity);
  EXPECT_TRUE(verify(g, nudged).ok) << verify(g, nudged).first_violation;
  // A finite entry 1% too large breaks relaxation far beyond the tolerance.
  const std::int64_t n = g.n;
  std::int64_t bad = -1;
  for (std::int64_t x = 0; x < n * n && bad < 0; ++x)
    if (x / n != x % n && std::isfinite(exact.dist[x]) && std::abs(exact.dist[x]) > 1) bad = x;
  ASSERT_GE(bad, 0);
  std::vector<double> wrong(exact.dist.begin(), exact.dist.end());
  wrong[bad] += 0.01 * std::abs(wrong[bad]);
  const VerifyReport report = verify(g, wrong);
  EXPECT_FALSE(report.ok);
  EXPECT_NE(report.first_violation.find("rounding tolerance"), std::string::npos) << report.first_violation;
  EXPECT_NE(report.first_violation.find("epsilon(float64)"), std::string::npos) << report.first_violation;
}

// Result files of real-valued solves: .npy keeps the dtype, text prints the
// shortest round-trip value and inf, .bin refuses floats unless bin-f32 /
// bin-f64 is named (and matches the type).
class RealOutput : public test::ScratchDirTest {
 protected:
  // 0 -> 1 (0.1), 1 -> 2 (0.2), vertex 2 reaches nothing: 0.1 + 0.2 prints
  // as 0.30000000000000004 in float64, and every row has an inf.
  static GraphF64 graph() { return GraphF64{3, {{0, 1, 0.1}, {1, 2, 0.2}}}; }
  std::string bytes_of(const std::string& name) const {
    std::ifstream in(path(name), std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }
};

TEST_F(RealOutput, NpyKeepsTheDtype) {
  FileSink f64{MatrixFileTarget{path("d64.npy")}, MatrixFileTarget{path("p.npy")}};
  SolveOptions o;
  o.predecessors = true;
  solve(graph(), o, f64);
  const std::string bytes = bytes_of("d64.npy");
  EXPECT_NE(bytes.find("'descr': '<f8'"), std::string::npos);
  const std::size_t data = bytes.size() - 9 * sizeof(double);
  double cells[9];
  std::memcpy(cells, bytes.data() + data, sizeof cells);
  EXPECT_EQ(cells[1], 0.1);
  EXPECT_EQ(cells[2], 0.1 + 0.2);
  EXPECT_EQ(cells[3], kInfinity);
  EXPECT_NE(bytes_of("p.npy").find("'descr': '<i4'"), std::string::npos);
  FileSink f32{MatrixFileTarget{path("d32.npy")}};
  solve(test::to_float32(graph()), SolveOptions{}, f32);
  EXPECT_NE(bytes_of("d32.npy").find("'descr': '<f4'"), std::string::npos);
}

TEST_F(RealOutput, TextPrintsTheShortestRoundTripValueAndInf) {
  FileSink sink{MatrixFileTarget{path("d.txt")}};
  solve(graph(), SolveOptions{}, sink);
  EXPECT_EQ(read_text("d.txt"), "0 0.1 0.30000000000000004\ninf 0 0.2\ninf inf 0\n");
  FileSink f32{MatrixFileTarget{path("f.mat")}};
  solve(test::to_float32(graph()), SolveOptions{}, f32);
  EXPECT_EQ(read_text("f.mat"), "0 0.1 0.3\ninf 0 0.2\ninf inf 0\n");
}

TEST_F(RealOutput, BinHoldsFloatsOnlyWhenNamed) {
  FileSink automatic{MatrixFileTarget{path("d.bin")}};
  try {
    solve(graph(), SolveOptions{}, automatic);
    ADD_FAILURE() << "a float64 result went to an NTHU .bin";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("NTHU .bin format holds int32 values; name the format bin-f64"),
              std::string::npos)
        << e.what();
  }
  EXPECT_FALSE(std::ifstream(path("d.bin")).good());  // nothing half-written
  FileSink named{MatrixFileTarget{path("d.bin"), io::Format::bin_f64}};
  solve(graph(), SolveOptions{}, named);
  const std::string bytes = bytes_of("d.bin");
  ASSERT_EQ(bytes.size(), 9 * sizeof(double));
  double cells[9];
  std::memcpy(cells, bytes.data(), sizeof cells);
  EXPECT_EQ(cells[2], 0.1 + 0.2);
  EXPECT_EQ(cells[6], kInfinity);
  FileSink wrong{MatrixFileTarget{path("e.bin"), io::Format::bin_f32}};
  EXPECT_THROW(solve(graph(), SolveOptions{}, wrong), UsageError);
  EXPECT_EQ(io::parse_format("bin-f32"), io::Format::bin_f32);
  EXPECT_EQ(io::parse_format(io::to_string(io::Format::bin_f64)), io::Format::bin_f64);
}

}  // namespace
}  // namespace apsp
