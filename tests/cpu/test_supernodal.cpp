// The supernodal solver (src/supernodal/): the ordering and symbolic
// invariants on every graph family, that the invariant check can fail, and
// the solver against the independent reference on the families whose
// separators are small (grids, geometric) and large (complete, dense random),
// on paths, stars and disconnected parts, in int32, int64, float32 and
// float64, with predecessors. The registry-driven suites (test_cpu_algorithms,
// test_sources, test_real_weights, test_sinks) cover it on the standard cases.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "apsp/cpu.hpp"
#include "apsp/error.hpp"
#include "apsp/generate.hpp"
#include "apsp/registry.hpp"
#include "apsp/sinks.hpp"
#include "apsp/solver.hpp"
#include "core/resources.hpp"
#include "supernodal/numeric.hpp"
#include "supernodal/symbolic.hpp"
#include "supernodal/tile_choice.hpp"
#include "supernodal/tile_plan.hpp"
#include "support/cases.hpp"
#include "support/scratch.hpp"

namespace apsp {
namespace {

bool metis_built() { return supernodal::ordering_available(); }

#define REQUIRE_METIS() \
  if (!metis_built()) GTEST_SKIP() << "this build has no METIS (APSP_WITH_METIS)"

// The generator's graph (m = its default for the kind) with weights in [lo, hi].
Graph generated(GraphKind kind, std::int64_t n, weight_t lo, weight_t hi, std::uint64_t seed) {
  return test::generated(kind, n, -1, lo, hi, seed);
}

// `g` with weights w(u, v) + p(u) - p(v) for small vertex potentials p: some
// weights turn negative, no cycle changes weight (so none turns negative).
Graph with_potentials(Graph g) {
  const auto p = [](vertex_t v) { return static_cast<weight_t>((v * 37) % 11) - 5; };
  for (Edge& e : g.edges) e.w += p(e.src) - p(e.dst);
  return g;
}

Graph path_graph(std::int64_t n, weight_t w) {
  Graph g;
  g.n = n;
  for (std::int64_t v = 0; v + 1 < n; ++v)
    g.edges.push_back({static_cast<vertex_t>(v), static_cast<vertex_t>(v + 1), w});
  return g;
}

Graph star_graph(std::int64_t n) {
  Graph g;
  g.n = n;
  for (std::int64_t v = 1; v < n; ++v) {
    g.edges.push_back({0, static_cast<vertex_t>(v), static_cast<weight_t>(v % 7)});
    g.edges.push_back({static_cast<vertex_t>(v), 0, static_cast<weight_t>(v % 5 + 1)});
  }
  return g;
}

// Two grids side by side with no edge between them, plus isolated vertices.
Graph disconnected_grids() {
  const Graph a = generated(GraphKind::grid, 150, -3, 9, 4), b = generated(GraphKind::grid, 120, 0, 5, 5);
  Graph g;
  g.n = a.n + b.n + 3;
  g.edges = a.edges;
  for (const Edge& e : b.edges)
    g.edges.push_back({static_cast<vertex_t>(e.src + a.n), static_cast<vertex_t>(e.dst + a.n), e.w});
  return g;
}

// Every family the symbolic analysis and the solver are tested on.
std::vector<test::Case> families() {
  std::vector<test::Case> cases;
  cases.push_back({"grid_n1024_neg", generated(GraphKind::grid, 1024, -4, 20, 1)});
  cases.push_back({"grid_n257_zero", generated(GraphKind::grid, 257, 0, 3, 2)});
  cases.push_back({"geometric_n700_neg", with_potentials(generated(GraphKind::geometric, 700, 0, 30, 3))});
  cases.push_back({"complete_n90", test::generated(GraphKind::dense, 90, -1, -2, 40, 4, 1.0)});
  cases.push_back({"dense_n200_large_separators", test::generated(GraphKind::dense, 200, -1, 1, 50, 5, 0.3)});
  cases.push_back({"rmat_n300_neg", generated(GraphKind::rmat, 300, -6, 60, 6)});
  cases.push_back({"path_n200", path_graph(200, -1)});
  cases.push_back({"star_n150", star_graph(150)});
  cases.push_back({"disconnected_grids", disconnected_grids()});
  for (std::int64_t n : {0, 1, 2}) cases.push_back({"path_n" + std::to_string(n), path_graph(n, 3)});
  return cases;
}

supernodal::Symbolic analyse_graph(const Graph& g) { return supernodal::analyse(to_csr(normalize(g))); }

TEST(SupernodalSymbolic, InvariantsHoldOnEveryFamily) {
  REQUIRE_METIS();
  std::vector<test::Case> cases = families();
  for (const test::Case& c : test::standard_cases()) cases.push_back(c);
  for (const test::Case& c : cases) {
    SCOPED_TRACE(c.name);
    const Graph g = normalize(c.graph);
    const supernodal::Symbolic s = analyse_graph(g);
    EXPECT_NO_THROW(supernodal::check_invariants(s));
    EXPECT_EQ(s.n, g.n);
    // Every edge (both ways) lies in a front: the higher endpoint is in the
    // lower one's supernode or its structure.
    for (const Edge& e : g.edges) {
      const std::int32_t a = std::min(s.iperm[e.src], s.iperm[e.dst]), b = std::max(s.iperm[e.src], s.iperm[e.dst]);
      const std::int32_t K = s.supernode_of[a];
      const auto S = s.struct_idx.begin() + s.struct_ptr[K], S_end = s.struct_idx.begin() + s.struct_ptr[K + 1];
      EXPECT_TRUE(b < s.first[K + 1] || std::binary_search(S, S_end, b)) << e.src << "->" << e.dst;
    }
    // The offsets' totals are the sizes the numeric phases allocate.
    std::int64_t diag = 0, panel = 0;
    for (std::int32_t K = 0; K < s.count; ++K) {
      diag += static_cast<std::int64_t>(s.columns(K)) * s.columns(K);
      panel += s.columns(K) * s.structure_size(K);
    }
    EXPECT_EQ(s.diag_offset.back(), diag);
    EXPECT_EQ(s.panel_offset.back(), panel);
  }
}

// merge_chains (the GPU's opt-in deeper pivot blocks): with a rule loose
// enough to merge on small graphs, the merged analysis keeps every invariant,
// has fewer supernodes where fronts chain, and its factor gives the same
// rows as the default analysis's (the CPU numeric phases on both).
TEST(SupernodalSymbolic, MergeChainsKeepsInvariantsAndDistances) {
  REQUIRE_METIS();
  const std::vector<test::Case> cases = {
      {"grid_n1024", generated(GraphKind::grid, 1024, 0, 20, 11)},
      {"geometric_n900", generated(GraphKind::geometric, 900, 1, 30, 12)},
      {"rmat_n700", generated(GraphKind::rmat, 700, 1, 60, 13)},
      {"random_n600", test::generated(GraphKind::random, 600, 8 * 600, 1, 40, 14)},
      {"dense_n200", test::generated(GraphKind::dense, 200, -1, 1, 50, 15, 0.3)},
  };
  std::int64_t merged_away = 0;
  for (const test::Case& c : cases) {
    SCOPED_TRACE(c.name);
    const Graph g = normalize(c.graph);
    const Csr out = to_csr(g), in = transpose(out);
    const supernodal::Symbolic s = supernodal::analyse(out);
    supernodal::ChainMerge rule;
    rule.min_front = 8;
    rule.max_extra_ops = 1.0;
    const supernodal::Symbolic m = supernodal::merge_chains(s, rule);
    ASSERT_NO_THROW(supernodal::check_invariants(m));
    EXPECT_EQ(m.perm, s.perm);
    EXPECT_LE(m.count, s.count);
    EXPECT_GE(m.factor_ops, s.factor_ops * (1 - 1e-12));
    merged_away += s.count - m.count;
    // A rule no front meets changes nothing.
    supernodal::ChainMerge none;
    none.min_front = s.n + 1;
    EXPECT_EQ(supernodal::merge_chains(s, none).first, s.first);

    auto rows = [&](const supernodal::Symbolic& sym) {
      const auto f = supernodal::factor<std::int32_t>(sym, out, in, kInf, 0, 1, [](double) {});
      std::vector<std::int32_t> sources(static_cast<std::size_t>(g.n));
      for (std::int32_t v = 0; v < g.n; ++v) sources[v] = v;
      std::vector<std::int32_t> x(static_cast<std::size_t>(g.n * g.n));
      supernodal::SolveScratch<std::int32_t> scratch;
      supernodal::solve_rows(sym, f, sources.data(), g.n, x.data(), kInf, scratch);
      for (std::int32_t& d : x) d = std::min(d, kInf);  // above kInf / 2: unreachable
      return x;
    };
    EXPECT_EQ(rows(m), rows(s));
  }
  EXPECT_GT(merged_away, 0);
}

TEST(SupernodalSymbolic, NestedDissectionKeepsGridSeparatorsSmall) {
  REQUIRE_METIS();
  // A 64 x 64 grid: nested dissection's top separator is about one side (64),
  // its fronts O(side); the identity order's front would be a full band.
  const Graph g = normalize(generated(GraphKind::grid, 4096, 1, 9, 7));
  const supernodal::Symbolic s = analyse_graph(g);
  EXPECT_LE(s.top_separator, 4 * 64);
  EXPECT_LE(s.max_front, 6 * 64);
  EXPECT_LT(s.factor_ops, 1e-2 * 4096.0 * 4096.0 * 4096.0);
  EXPECT_GT(s.count, 16);
  EXPECT_GT(s.levels(), 4);
}

TEST(SupernodalSymbolic, AnalysisIsDeterministic) {
  REQUIRE_METIS();
  const Graph g = normalize(generated(GraphKind::geometric, 900, 1, 9, 8));
  const supernodal::Symbolic a = analyse_graph(g), b = analyse_graph(g);
  EXPECT_EQ(a.perm, b.perm);
  EXPECT_EQ(a.first, b.first);
  EXPECT_EQ(a.struct_idx, b.struct_idx);
}

// Each broken invariant is caught (so the test above can fail).
TEST(SupernodalSymbolic, CheckInvariantsCatchesEachBrokenInvariant) {
  REQUIRE_METIS();
  const supernodal::Symbolic good = analyse_graph(generated(GraphKind::grid, 400, 1, 9, 9));
  ASSERT_NO_THROW(supernodal::check_invariants(good));
  ASSERT_GT(good.count, 3);
  std::int32_t with_structure = -1;  // a supernode whose S_K has two or more entries
  for (std::int32_t K = 0; K < good.count && with_structure < 0; ++K)
    if (good.structure_size(K) >= 2) with_structure = K;
  ASSERT_GE(with_structure, 0);
  const std::int64_t at = good.struct_ptr[with_structure];
  const std::vector<std::pair<const char*, void (*)(supernodal::Symbolic&, std::int32_t, std::int64_t)>> breaks = {
      {"perm not a permutation", [](supernodal::Symbolic& s, std::int32_t, std::int64_t) { s.perm[1] = s.perm[0]; }},
      {"parent before child",
       [](supernodal::Symbolic& s, std::int32_t K, std::int64_t) { s.parent[K] = K > 0 ? K - 1 : K; }},
      {"structure unsorted",
       [](supernodal::Symbolic& s, std::int32_t, std::int64_t e) { std::swap(s.struct_idx[e], s.struct_idx[e + 1]); }},
      {"structure below K",
       [](supernodal::Symbolic& s, std::int32_t K, std::int64_t e) { s.struct_idx[e] = s.first[K]; }},
      {"supernodes overlap", [](supernodal::Symbolic& s, std::int32_t, std::int64_t) { s.first[1] = s.first[2]; }},
      {"extend-add map off",
       [](supernodal::Symbolic& s, std::int32_t, std::int64_t e) { s.struct_rel[e] = s.struct_rel[e] + 1; }},
      {"level missing a supernode",
       [](supernodal::Symbolic& s, std::int32_t, std::int64_t) { s.level_idx[0] = s.level_idx[1]; }},
  };
  for (const auto& [what, brk] : breaks) {
    SCOPED_TRACE(what);
    supernodal::Symbolic bad = good;
    brk(bad, with_structure, at);
    EXPECT_THROW(supernodal::check_invariants(bad), std::logic_error);
  }
}

SolveResult run_supernodal(const Graph& g, bool predecessors, Precision precision = Precision::automatic,
                           int threads = 0) {
  SolveOptions o;
  o.backend = Backend::cpu;
  o.algorithm = "supernodal";
  o.predecessors = predecessors;
  o.precision = precision;
  o.threads = threads;
  return solve(g, o);
}

TEST(Supernodal, MatchesTheReferenceOnEveryFamily) {
  REQUIRE_METIS();
  std::int64_t finite = 0, unreachable = 0;
  for (const test::Case& c : families()) {
    SCOPED_TRACE(c.name);
    const std::vector<dist_t> expected = test::reference_distances(c.graph);
    for (const Precision precision : {Precision::automatic, Precision::int64}) {
      const SolveResult r = run_supernodal(c.graph, true, precision);
      EXPECT_EQ(r.algorithm, "supernodal");
      EXPECT_EQ(test::first_difference(expected, r.dist, c.graph.n), "") << to_string(precision);
      EXPECT_EQ(test::check_predecessors(c.graph, r.dist, r.pred), "") << to_string(precision);
    }
    const test::EntryCounts counts = test::count_entries(expected, c.graph.n);
    finite += counts.finite_off_diagonal;
    unreachable += counts.unreachable;
  }
  EXPECT_GT(finite, 0);
  EXPECT_GT(unreachable, 0);
}

TEST(Supernodal, RealWeightsMatchTheReference) {
  REQUIRE_METIS();
  for (const test::Case& c : families()) {
    if (c.graph.n > 300) continue;  // the long double reference is n^3
    SCOPED_TRACE(c.name);
    const GraphF64 g = test::with_real_weights(c.graph);
    const std::vector<double> expected = test::reference_distances(g);
    SolveOptions o;
    o.backend = Backend::cpu;
    o.algorithm = "supernodal";
    o.predecessors = true;
    const SolveResultF64 d = solve(g, o);
    const double scale = test::max_abs_weight(g);
    EXPECT_EQ(test::first_real_difference(expected, d.dist, g.n, scale, test::test_relative_tolerance<double>(g.n)),
              "");
    EXPECT_EQ(test::check_predecessors(g, d.dist, d.pred, scale * test::test_relative_tolerance<double>(g.n)), "");
    const SolveResultF32 f = solve(test::to_float32(g), o);
    const std::vector<double> expected32 = test::reference_distances(test::to_float64(test::to_float32(g)));
    EXPECT_EQ(test::first_real_difference(expected32, test::widened(f.dist), g.n, scale,
                                          test::test_relative_tolerance<float>(g.n)),
              "");
  }
}

// Zero-weight cycles through every vertex: every row's predecessors must
// still be a tree (rebuilt over tight edges).
TEST(Supernodal, ZeroWeightCyclesGivePredecessorTrees) {
  REQUIRE_METIS();
  for (const std::int64_t n : {3, 64, 65, 300}) {
    Graph g;
    g.n = n;
    for (std::int64_t v = 0; v < n; ++v) {
      g.edges.push_back({static_cast<vertex_t>(v), static_cast<vertex_t>((v + 1) % n), 0});
      g.edges.push_back({static_cast<vertex_t>(v), static_cast<vertex_t>((v * 7 + 3) % n), 0});
      g.edges.push_back({static_cast<vertex_t>((v * 5 + 1) % n), static_cast<vertex_t>(v), 2});
    }
    SCOPED_TRACE(n);
    const SolveResult r = run_supernodal(g, true);
    EXPECT_EQ(test::first_difference(test::reference_distances(g), r.dist, n), "");
    EXPECT_EQ(test::check_predecessors(g, r.dist, r.pred), "");
  }
}

TEST(Supernodal, NegativeCycleIsAnErrorNamingAVertexOnIt) {
  REQUIRE_METIS();
  for (const GraphKind kind : {GraphKind::grid, GraphKind::geometric}) {
    Graph g = generated(kind, 400, 1, 9, 11);
    // A negative cycle far apart in the graph: 10 -> 390 -> 200 -> 10.
    g.edges.push_back({10, 390, -30});
    g.edges.push_back({390, 200, 2});
    g.edges.push_back({200, 10, 3});
    try {
      run_supernodal(g, false);
      ADD_FAILURE() << "no NegativeCycleError";
    } catch (const NegativeCycleError& e) {
      EXPECT_TRUE(test::lies_on_negative_cycle(normalize(g), static_cast<vertex_t>(e.vertex()))) << e.vertex();
    }
  }
}

TEST(Supernodal, ThreadCountDoesNotChangeTheAnswer) {
  REQUIRE_METIS();
  const Graph g = with_potentials(generated(GraphKind::geometric, 1500, 0, 40, 12));
  const SolveResult one = run_supernodal(g, true, Precision::automatic, 1);
  const SolveResult three = run_supernodal(g, true, Precision::automatic, 3);
  EXPECT_EQ(test::first_difference(test::reference_distances(g), one.dist, g.n), "");
  EXPECT_EQ(test::first_difference(one.dist, three.dist, g.n), "");
  EXPECT_EQ(test::check_predecessors(g, three.dist, three.pred), "");
}

// bench/cpu_solvers' graphs: weights 1..100, seed 2024.
Graph benchmark_graph(GraphKind kind, std::int64_t n, std::int64_t edges_per_vertex = 8) {
  return normalize(test::generated(kind, n, edges_per_vertex * n, 1, 100, 2024));
}

// auto's rule (src/cpu/cpu.cpp): supernodal on deep graphs (grids, geometric)
// whose symbolic op counts beat the searches; the searches on R-MAT and
// uniform random graphs (shallow: no symbolic analysis), as measured.
TEST(Supernodal, AutoPicksItWhereSeparatorsAreSmall) {
  REQUIRE_METIS();
  struct Expectation {
    const char* what;
    Graph g;
    const char* algorithm;
  };
  const Expectation expectations[] = {
      {"grid n = 4096", benchmark_graph(GraphKind::grid, 4096), "supernodal"},
      {"geometric n = 4096", benchmark_graph(GraphKind::geometric, 4096), "supernodal"},
      {"grid with negative weights", with_potentials(benchmark_graph(GraphKind::grid, 2048)), "supernodal"},
      {"grid below the size floor", benchmark_graph(GraphKind::grid, 1000), "fw-blocked"},
      {"rmat n = 4096", benchmark_graph(GraphKind::rmat, 4096), "dijkstra"},
      {"uniform random n = 4096", benchmark_graph(GraphKind::random, 4096, 4), "dijkstra"},
  };
  for (const Expectation& e : expectations) {
    SCOPED_TRACE(e.what);
    const std::string reason = cpu::choice_reason(e.g, weight_stats(e.g));
    EXPECT_EQ(cpu::choose_algorithm(e.g, weight_stats(e.g)), e.algorithm) << reason;
    EXPECT_EQ(reason.rfind(std::string("auto picked ") + e.algorithm, 0), 0u) << reason;
    if (std::string(e.algorithm) == "supernodal") {
      EXPECT_NE(reason.find("top separator"), std::string::npos) << reason;
    }
  }
  // The reason names why supernodal was not tried on a shallow graph.
  const Graph rmat = benchmark_graph(GraphKind::rmat, 4096);
  EXPECT_NE(cpu::choice_reason(rmat, weight_stats(rmat)).find("supernodal not tried: hop depth"), std::string::npos);
}

// supernodal::AnalysisReuse: inside a scope an identical pattern (another
// graph object with the same endpoints, as the GPU solver's reweighted
// edges are) gets the kept analysis without ordering again; a different
// pattern is analysed afresh; outside every scope nothing is kept.
TEST(SupernodalSymbolic, AnalysisReuseOrdersEachPatternOnce) {
  REQUIRE_METIS();
  const Graph g = benchmark_graph(GraphKind::grid, 900);
  Graph reweighted = g;
  for (Edge& e : reweighted.edges) e.w = e.w * 3 - 1;
  const Graph other = benchmark_graph(GraphKind::geometric, 900);
  const supernodal::Symbolic fresh = supernodal::analyse(to_csr(g));
  std::int64_t before = supernodal::orderings_run();
  EXPECT_EQ(supernodal::analyse(to_csr(g)).perm, fresh.perm);
  EXPECT_EQ(supernodal::orderings_run() - before, 1);  // no scope: nothing kept
  {
    const supernodal::AnalysisReuse reuse;
    before = supernodal::orderings_run();
    supernodal::AnalyseTimes first, second;
    const supernodal::Symbolic a = supernodal::analyse(to_csr(g), &first);
    const supernodal::Symbolic b = supernodal::analyse(to_csr(reweighted), &second);
    EXPECT_EQ(supernodal::orderings_run() - before, 1);
    EXPECT_FALSE(first.reused);
    EXPECT_TRUE(second.reused);
    EXPECT_EQ(second.ordering, 0);
    EXPECT_EQ(b.perm, fresh.perm);
    EXPECT_EQ(b.first, fresh.first);
    EXPECT_EQ(b.struct_idx, fresh.struct_idx);
    EXPECT_EQ(b.solve_ops_per_source, a.solve_ops_per_source);
    {
      const supernodal::AnalysisReuse nested;
      EXPECT_EQ(supernodal::analyse(to_csr(g)).perm, fresh.perm);
    }
    EXPECT_EQ(supernodal::orderings_run() - before, 1);  // the inner scope's end keeps it for the outer
    const supernodal::Symbolic c = supernodal::analyse(to_csr(other));
    EXPECT_EQ(supernodal::orderings_run() - before, 2);
    EXPECT_NO_THROW(supernodal::check_invariants(c));
    EXPECT_EQ(c.n, other.n);
  }
  before = supernodal::orderings_run();
  supernodal::analyse(to_csr(other));
  EXPECT_EQ(supernodal::orderings_run() - before, 1);  // the last scope ended: dropped
}

// auto on the CPU analyses a graph once: the probe's analysis is the one the
// supernodal solver it picks runs on (before the reuse, solve() analysed it
// three times: its own resolve, cpu::solve's resolve and the solver).
TEST(Supernodal, AutoOrdersTheGraphOnceForProbeAndSolve) {
  REQUIRE_METIS();
  const Graph g = benchmark_graph(GraphKind::grid, 4096);
  SolveOptions o;
  o.backend = Backend::cpu;
  NullSink sink;
  const std::int64_t before = supernodal::orderings_run();
  const SolveSummary s = solve(g, o, sink);
  EXPECT_EQ(s.algorithm, "supernodal");
  EXPECT_EQ(supernodal::orderings_run() - before, 1);
  EXPECT_EQ(s.note.rfind("auto picked supernodal:", 0), 0u) << s.note;
  EXPECT_GT(s.times.seconds("auto probe"), 0);
  EXPECT_EQ(s.times.seconds("ordering"), 0);  // spent in the probe
  // The public cpu::solve too (it resolves auto itself).
  const std::int64_t again = supernodal::orderings_run();
  HostMatrixSink host;
  host.begin(SinkLayout{g.n, Element::int32, false, -1});
  SolveSummary direct;
  cpu::solve(g, o, host, direct);
  host.commit();
  EXPECT_EQ(supernodal::orderings_run() - again, 1);
  // Without auto the solver analyses once as before.
  o.algorithm = "supernodal";
  const std::int64_t named = supernodal::orderings_run();
  solve(g, o, sink);
  EXPECT_EQ(supernodal::orderings_run() - named, 1);
}

// The factor's memory is checked after the symbolic analysis sizes it and
// before any of it is allocated: a ResourceError naming it, not the OOM killer.
class SupernodalMemory : public test::ScratchDirTest {
 protected:
  void TearDown() override {
    resources::set_memory_sources_for_testing(nullptr);
    ScratchDirTest::TearDown();
  }
};

TEST_F(SupernodalMemory, AFactorBeyondTheAvailableMemoryIsAResourceError) {
  REQUIRE_METIS();
  const Graph g = normalize(generated(GraphKind::grid, 160000, 1, 9, 13));
  write_text("meminfo", "MemAvailable:    16384 kB\n");  // 16 MiB; the factor needs more
  resources::MemorySources fake;
  fake.meminfo = path("meminfo");
  fake.self_cgroup = path("no-cgroup");
  fake.cgroup_root = path("no-fs");
  resources::set_memory_sources_for_testing(&fake);
  SolveOptions o;
  o.backend = Backend::cpu;
  o.algorithm = "supernodal";
  NullSink sink;
  try {
    solve(g, o, sink);
    ADD_FAILURE() << "no ResourceError";
  } catch (const ResourceError& e) {
    EXPECT_NE(std::string(e.what()).find("supernodal's factor on 160000 vertices"), std::string::npos) << e.what();
  }
}

TEST(Supernodal, RegisteredAsAProductionCpuAlgorithmOfItsOwnWork) {
  const AlgorithmInfo* a = find_algorithm("supernodal");
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->backend, Backend::cpu);
  EXPECT_EQ(a->role, Role::production);
  EXPECT_EQ(a->work, Work::separators);
  EXPECT_TRUE(a->takes_predecessors);
  EXPECT_TRUE(a->takes_real);
  EXPECT_FALSE(a->takes_int16);
  EXPECT_EQ(a->available, metis_built());
}

// The tiled factor's tile table (src/supernodal/tile_plan.hpp, planned on
// the host for kernels/supernodal/tiled_update.cuh): operands padded to
// whole tiles and k-chunks, aligned, disjoint, inside the workspace; each
// product's blocks contiguous from its tile_begin, row-major over its tiles,
// naming it; empty products get no blocks and no workspace.
TEST(SupernodalTilePlan, PadsAlignsAndCoversEveryTileOnce) {
  const std::int64_t tile = 128, chunk = 32, align = 4;
  const std::vector<supernodal::TiledProduct> products = {
      {1300, 1300, 150}, {1, 1, 1}, {0, 500, 70}, {129, 257, 33}, {128, 128, 32}, {3400, 3400, 430}, {64, 5, 0}};
  const supernodal::TilePlan plan = supernodal::plan_tiles(products, tile, chunk, align);
  ASSERT_EQ(plan.layouts.size(), products.size());
  std::vector<std::pair<std::int64_t, std::int64_t>> ranges;  // [begin, end) of every operand
  std::int64_t tiles = 0;
  for (std::size_t p = 0; p < products.size(); ++p) {
    SCOPED_TRACE(p);
    const supernodal::TiledProduct& product = products[p];
    const supernodal::TiledLayout& l = plan.layouts[p];
    EXPECT_EQ(l.tile_begin, tiles);
    if (product.m == 0 || product.n == 0 || product.k == 0) {
      EXPECT_EQ(l.tiles_n, 0);
      continue;
    }
    EXPECT_EQ(l.m_pad % tile, 0);
    EXPECT_EQ(l.n_pad % tile, 0);
    EXPECT_EQ(l.k_pad % chunk, 0);
    EXPECT_GE(l.m_pad, product.m);
    EXPECT_LT(l.m_pad - product.m, tile);
    EXPECT_GE(l.n_pad, product.n);
    EXPECT_LT(l.n_pad - product.n, tile);
    EXPECT_GE(l.k_pad, product.k);
    EXPECT_LT(l.k_pad - product.k, chunk);
    EXPECT_EQ(l.a_offset % align, 0);
    EXPECT_EQ(l.b_offset % align, 0);
    ranges.push_back({l.a_offset, l.a_offset + l.k_pad * l.m_pad});
    ranges.push_back({l.b_offset, l.b_offset + l.k_pad * l.n_pad});
    EXPECT_EQ(l.tiles_n, l.n_pad / tile);
    const std::int64_t count = l.m_pad / tile * l.tiles_n;
    for (std::int64_t b = l.tile_begin; b < l.tile_begin + count; ++b) {
      ASSERT_LT(b, static_cast<std::int64_t>(plan.tile_task.size()));
      EXPECT_EQ(plan.tile_task[static_cast<std::size_t>(b)], static_cast<std::int32_t>(p));
    }
    tiles += count;
  }
  EXPECT_EQ(static_cast<std::int64_t>(plan.tile_task.size()), tiles);
  // 1300 x 1300: 11 x 11 tiles; 1 x 1: one; 129 x 257: 2 x 3; 128 x 128: one; 3400 x 3400: 27 x 27.
  EXPECT_EQ(tiles, 121 + 1 + 6 + 1 + 729);
  std::sort(ranges.begin(), ranges.end());
  for (std::size_t i = 0; i < ranges.size(); ++i) {
    EXPECT_LE(ranges[i].second, plan.words);
    if (i > 0) EXPECT_LE(ranges[i - 1].second, ranges[i].first) << "operands overlap";
  }
  EXPECT_THROW(supernodal::plan_tiles({{-1, 2, 3}}, tile, chunk, align), UsageError);
  EXPECT_EQ(supernodal::plan_tiles({}, tile, chunk, align).words, 0);
}

// The tiled factor's C tile per launch (tile64): 64 below two waves of 128
// tiles or where 128 pads more than a tenth, else 128; forced either way;
// 128 without a device's count or without products. The shapes are R-MAT
// 32768's chain (docs/perf.md) and uniform's fronts.
TEST(SupernodalTileChoice, SmallLaunchesAndPaddingTakeThe64Tile) {
  supernodal::TileChoiceRule rule;
  rule.resident_128 = 264;  // an H100: 132 SMs x 2
  // R-MAT's panels of the k = 156 front over s = 3420: 2 x 27 tiles twice.
  const std::vector<supernodal::TiledProduct> panels{{3420, 156, 156}, {156, 3420, 156}};
  EXPECT_EQ(supernodal::choose_tile(panels, rule), 64);
  // Its update, 27 x 27 = 729 tiles: 2.8 waves, under 2 no; 156 deep pads nothing across C.
  const std::vector<supernodal::TiledProduct> update{{3420, 3420, 156}};
  EXPECT_EQ(supernodal::choose_tile(update, rule), 128);
  // 1305 x 1305 (121 tiles): under one wave.
  EXPECT_EQ(supernodal::choose_tile({{1305, 1305, 288}}, rule), 64);
  // Uniform's fronts: tens of thousands of tiles, little padding.
  EXPECT_EQ(supernodal::choose_tile({{17000, 17000, 300}}, rule), 128);
  // Many tiles but m = 130 pads to 256 (64: 192): the padding decides.
  EXPECT_EQ(supernodal::choose_tile({{130, 40000, 64}, {130, 40000, 64}, {130, 40000, 64}}, rule), 64);
  // Empty products count for nothing; none at all, or no device count: 128.
  EXPECT_EQ(supernodal::choose_tile({{0, 3420, 156}, {17000, 17000, 300}}, rule), 128);
  EXPECT_EQ(supernodal::choose_tile({}, rule), 128);
  supernodal::TileChoiceRule unknown;
  EXPECT_EQ(supernodal::choose_tile(panels, unknown), 128);
  for (const int forced : {64, 128}) {
    supernodal::TileChoiceRule f = rule;
    f.forced = forced;
    EXPECT_EQ(supernodal::choose_tile(panels, f), forced);
    EXPECT_EQ(supernodal::choose_tile({{17000, 17000, 300}}, f), forced);
  }
}

}  // namespace
}  // namespace apsp
